"""Generalized randomized response (GRR), a.k.a. direct encoding (DE) or k-RR.

Each user sends one value of the domain [0, d): her own with probability
p = e^ε/(e^ε+d−1), and each of the d−1 others with probability q = 1/(e^ε+d−1).  A report
"supports" only the value it names, so p* = p and q* = q, and the privacy loss of the d×d
output table is ln(p/q) = ε exactly.

The exact aggregate sampler uses the mixture form of a row of the table.  Since
1 − p + q = d q, the row "p on v, q elsewhere" equals "keep v with probability p − q,
otherwise report a value uniform over all d (v included)".  Hence the counts are
C = K + M with K_i ~ Binomial(f_i, p − q) and M ~ Multinomial(n − ΣK, uniform over d):
d binomials plus one multinomial, whatever n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldp_helpers._numeric import majority_probability
from ldp_helpers._validation import check_domain_values, check_epsilon, check_int, check_rng
from ldp_helpers.mechanisms.base import PureFrequencyOracle
from ldp_helpers.mechanisms.hadamard import _equal_multinomial

MAX_D_TABLE = 4096  # largest d for output_table (a d × d float table: 128 MiB)
#: at most this many users per cell on average: the uniform spread by fair halvings (numpy's multinomial
#: draws its d binomials by inversion, O(users per cell) each, there; above, in O(1) each)
SPREAD_HALVINGS_MAX_MEAN = 64


def grr_probabilities(epsilon: float, d: int) -> tuple[float, float]:
    """``(e^ε/(e^ε+d−1), 1/(e^ε+d−1))``: GRR's keep and each-other probabilities over d values.

    The one place they are derived from ε (local hashing uses them over its g hash values).
    ``d`` is a domain size: an integer ≥ 2.  Written as p = 1/(1+(d−1)e^{−ε}), q = e^{−ε}·p:
    no overflow at large ε; p is lowered by an ulp where 1 − p fell below (d − 1)q
    (:func:`~ldp_helpers._numeric.majority_probability`), so the client's other-value probability
    (1 − p)/(d − 1) is never below q.

    References
    ----------
    [wang2017] §4.1; [tutorial] "Direct Encoding".
    """
    epsilon, d = check_epsilon(epsilon), check_int("d", d, low=2)
    shrink = math.exp(-epsilon)
    p = 1.0 / (1.0 + (d - 1.0) * shrink)
    return majority_probability(p, (d - 1.0) * shrink * p), shrink * p


def amplified_grr_epsilon(epsilon: float, ell: int) -> float:
    """ε' = ln(ℓ(e^ε − 1) + 1): the GRR budget that sampling one of ℓ items (or attributes) turns
    into ε: padding-and-sampling's (:class:`~ldp_helpers.protocols.set_valued.PSFO`) and RS+FD's.

    Evaluated as ε + ln(1 + (ℓ − 1)(1 − e^{−ε})) (the same number: no overflow at large ε, and a
    log1p of an expm1, so no digit lost at small ε, where ln(ℓ − (ℓ − 1)e^{−ε}) lost 1e-4 at 1e-12).

    References
    ----------
    [tutorial] "Itemset mining" (privacy amplification by sampling); [arcolezi2021] (RS+FD).
    """
    epsilon, ell = check_epsilon(epsilon), check_int("ell", ell, low=1)
    return epsilon + math.log1p(-(ell - 1) * math.expm1(-epsilon))


def _keep_or_other(values: np.ndarray, keep: float, d: int, rng: np.random.Generator) -> np.ndarray:
    """GRR's step with keep probability ``keep``: the value, else one of the d − 1 others uniformly
    (GRR's client, and the longitudinal GRR's two rounds)."""
    kept = rng.random(values.shape) < keep
    other = rng.integers(0, d - 1, size=values.shape)
    other += other >= values  # uniform over [0, d) \ {v}
    return np.where(kept, values, other)


@dataclass(frozen=True)
class GRR(PureFrequencyOracle):
    """Generalized randomized response over [0, d) with budget ε.

    Attributes ``p = e^ε/(e^ε+d−1)`` and ``q = 1/(e^ε+d−1)`` are derived once.  The server's
    counts (:meth:`sample_aggregate`) are ``K_i ~ Binomial(f_i, p − q)`` kept values plus one
    ``Multinomial(n − ΣK, 1/d each)`` of uniform reports (:meth:`_draw_support`).

    References
    ----------
    [wang2017] §4.1 (direct encoding); [grr_vs_oue] §2.2; [grr_vs_oue] Algorithm 1; [tutorial] "Direct Encoding".
    """

    def _support_probabilities(self) -> tuple[float, float]:
        return grr_probabilities(self.epsilon, self.d)

    @property
    def report_bits(self) -> int:
        """Bits sent per report: one value of [0, d), ⌈log2 d⌉ ([wang2017] §4.1)."""
        return (self.d - 1).bit_length()

    def output_table(self) -> np.ndarray:
        """``P[v, y] = Pr[report y | value v]``: p on the diagonal, q elsewhere (d × d, d ≤ 4096).

        The report is one value, so this is the whole-report table; its loss is ln(p/q) = ε.
        """
        check_int("d", self.d, low=2, high=MAX_D_TABLE)
        return np.where(np.eye(self.d, dtype=bool), self.p, self.q)

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference client: keep each value w.p. p, else one of the d−1 others uniformly.

        Returns
        -------
        numpy.ndarray of int64
            One reported value per user.

        References
        ----------
        [grr_vs_oue] Algorithm 1; [tutorial] "Direct Encoding".
        """
        values, rng = check_domain_values("values", values, self.d), check_rng(rng)
        return _keep_or_other(values, self.p, self.d, rng)

    def aggregate(self, reports) -> np.ndarray:
        """C(i): how many reports name value i (length d; [grr_vs_oue] Algorithm 2, line 6)."""
        reports = check_domain_values("reports", reports, self.d)
        return np.bincount(reports.ravel(), minlength=self.d)

    def _draw_support(self, counts, n, *, rng: np.random.Generator, size=None) -> np.ndarray:
        """GRR's support counts given validated true counts f, the law of :meth:`sample_aggregate`.

        ``C = K + M``, ``K_i ~ Binomial(f_i, p − q)`` (users who kept their value through the
        "keep" branch) and ``M ~ Multinomial(n − ΣK, 1/d each)`` (everyone else reports a
        uniform value): the law of ``aggregate(perturb(expand(truth)))`` (tested), at a cost of
        d binomials and one d-way multinomial, independent of n.  M is drawn by
        :func:`~ldp_helpers.mechanisms.hadamard._equal_multinomial` (fair halvings when d is a power
        of 2 and the output large) when the users average at most
        :data:`SPREAD_HALVINGS_MAX_MEAN` per cell, else by numpy's multinomial (the same law).

        References
        ----------
        [wang2017] §4.1; [grr_vs_oue] Algorithm 1.
        """
        # p − q lowered by an ulp where 1 − (p − q) fell below d·q: a uniform report's share never under q
        kept = rng.binomial(
            counts, majority_probability(self.p - self.q, self.d * self.q), size=size
        )
        rest = n - np.add.reduce(kept, axis=-1)
        if np.mean(n) <= SPREAD_HALVINGS_MAX_MEAN * self.d:
            return kept + _equal_multinomial(rest, self.d, rng)
        return kept + rng.multinomial(rest, np.full(self.d, 1.0 / self.d))
