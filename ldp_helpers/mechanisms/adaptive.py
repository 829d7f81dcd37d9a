"""ADP: the adaptive choice between GRR and OUE by their variance, as multi-freq-ldpy makes it.

For a budget ε and a domain of d values, ADP runs GRR if GRR's approximate per-user variance
q*(1 − q*)/(p* − q*)² is at most OUE's, and OUE otherwise ([wang2017] Eq. (2)): GRR exactly when
d − 2 ≤ 3e^ε up to the rounding of that comparison (Wang et al.'s rule d < 3e^ε + 2, [wang2017] §4.4).
The choice depends on (ε, d) only, never on the data, so it costs no privacy: the whole report is
the chosen oracle's report, ε-LDP.

References
----------
[arcolezi2022ldpy] (multi-freq-ldpy's ``ADP_Client``); [wang2017] §4.4; [wang2017] Eq. (2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ldp_helpers.mechanisms.base import PureFrequencyOracle
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.pure import count_variance
from ldp_helpers.mechanisms.unary_encoding import OUE


def _grr_is_chosen(grr: GRR, oue: OUE) -> bool:
    """ADP's rule: GRR iff its approximate variance per user, q(1 − q)/(p − q)², is at most OUE's (ties: GRR)."""
    return bool(count_variance(0.0, 1, grr.p, grr.q) <= count_variance(0.0, 1, oue.p, oue.q))


@dataclass(frozen=True)
class ADP(PureFrequencyOracle):
    """Adaptive GRR/OUE over [0, d) with budget ε: :attr:`chosen` is GRR or OUE, everything else delegates to it.

    References
    ----------
    [arcolezi2022ldpy] (ADP); [wang2017] §4.4 (the DE-vs-OUE comparison).
    """

    def _support_probabilities(self) -> tuple[float, float]:
        return self.chosen.p, self.chosen.q

    @cached_property
    def chosen(self) -> GRR | OUE:
        """The oracle ADP runs at this (ε, d): GRR when its approximate variance is at most OUE's."""
        grr, oue = GRR(self.epsilon, self.d), OUE(self.epsilon, self.d)
        return grr if _grr_is_chosen(grr, oue) else oue

    @property
    def report_bits(self) -> int:
        """Bits per report: ⌈log2 d⌉ for GRR (one value), d for OUE (one bit per value)."""
        return math.ceil(math.log2(self.d)) if isinstance(self.chosen, GRR) else self.d

    def output_table(self) -> np.ndarray:
        """The chosen oracle's whole-report table (d × d for GRR, d × 2^d for OUE)."""
        return self.chosen.output_table()

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user client: the chosen oracle's (one value per user for GRR, a d-bit vector for OUE)."""
        return self.chosen.perturb(values, rng=rng)

    def aggregate(self, reports) -> np.ndarray:
        """Support counts C(i) under the chosen oracle."""
        return self.chosen.aggregate(reports)

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """The chosen oracle's exact aggregate sampler (GRR's mixture law or OUE's binomials)."""
        return self.chosen.sample_aggregate(truth, rng=rng, n_draws=n_draws)

    def _draw_support(self, counts, n, *, rng: np.random.Generator, size=None) -> np.ndarray:
        return self.chosen._draw_support(counts, n, rng=rng, size=size)
