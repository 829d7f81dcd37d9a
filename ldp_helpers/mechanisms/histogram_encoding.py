"""Histogram encoding: one-hot vector plus Laplace noise, summed (SHE) or thresholded (THE).

A user with value v sends B' = e_v + (L_1, ..., L_d), L_i i.i.d. Laplace(β) with β = 2/ε: two
inputs' one-hot vectors differ by 2 in L1 norm, so the density ratio is at most
e^{2/β} = e^ε.

* SHE sums the reports: ĉ(i) = Σ_u B'_u[i] is unbiased with Var = n·2β² = 8n/ε².
* THE counts the reports with B'[i] > θ: a pure protocol with
  p* = Pr[1 + L > θ] = 1 − ½e^{−(1−θ)ε/2} and q* = Pr[L > θ] = ½e^{−θε/2} (0 < θ < 1),
  i.e. a unary encoding whose bits are post-processed Laplace coordinates; θ is chosen by
  minimizing the (approximate) variance q*(1−q*)/(p*−q*)² numerically.

Both send the same continuous report, so neither has an output table; their whole-report ε is
computed from the Laplace densities (:func:`laplace_report_privacy_loss`).  THE's thresholding
happens at the server: post-processing, which costs no privacy and gains none.

References
----------
[wang2017] §4.3; [tutorial] "Histogram Encoding".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.optimize import minimize_scalar

from ldp_helpers._validation import (
    as_array,
    check_aggregate,
    check_epsilon,
    check_int,
    check_ndim,
    check_real,
    check_real_array,
)
from ldp_helpers.mechanisms.base import FrequencyOracle, PureFrequencyOracle, _check_user_arrays
from ldp_helpers.mechanisms.pure import count_variance


def laplace_scale(epsilon: float) -> float:
    """β = 2/ε: the Laplace scale that makes one-hot histograms ε-LDP (L1 sensitivity 2).

    References
    ----------
    [wang2017] §4.3; [tutorial] "Histogram Encoding".
    """
    return 2.0 / check_epsilon(epsilon)


#: Laplace(β) noise drawn in doubles stays within 745·β (−β·ln U with U ≥ 2^−1074): bounds a report and a sum of n
MAX_NOISE_SCALES = 745.0


def _check_reports(
    reports, d: int, scale: float | None = None, name: str = "reports"
) -> np.ndarray:
    """Reports (users × d); with the Laplace ``scale`` β, each entry within 1 + 745·β of 0 (what a client can send)."""
    reports = check_ndim(name, reports, 2, last=d, what="(users × d)")
    bound = None if scale is None else 1.0 + MAX_NOISE_SCALES * scale
    return check_real_array(
        name,
        reports,
        low=None if bound is None else -bound,
        high=bound,
        low_open=False,
        high_open=False,
    )


def _threshold_probabilities(theta: float, epsilon: float) -> tuple[float, float]:
    half_eps = epsilon / 2
    return 1.0 - 0.5 * math.exp(-(1.0 - theta) * half_eps), 0.5 * math.exp(-theta * half_eps)


def optimal_threshold(epsilon: float) -> float:
    """θ ∈ (0, 1) minimizing THE's variance q*(1−q*)/(p*−q*)² (found numerically; it lies in (1/2, 1)).

    References
    ----------
    [wang2017] §4.3 (θ ∈ (1/2, 1)).
    """
    epsilon = check_epsilon(epsilon)

    def variance(theta):
        p, q = _threshold_probabilities(theta, epsilon)
        # p = q: ε too small (THE refuses it)
        return count_variance(0, 1, p, q) if p > q else math.inf

    return float(
        minimize_scalar(
            variance, bounds=(1e-9, 1 - 1e-9), method="bounded", options={"xatol": 1e-10}
        ).x
    )


def log_density_ratio(y, v: int, v_other: int, *, epsilon: float, d: int) -> np.ndarray:
    """ln f(y | v) − ln f(y | v') of the report y = e_v + Laplace(2/ε)^d, for reports y (rows).

    Equal to ``(‖y − e_{v'}‖₁ − ‖y − e_v‖₁)/β``: at most ‖e_v − e_{v'}‖₁/β = 2/β = ε by the
    triangle inequality, with equality when y separates v and v' (e.g. y = e_v).

    References
    ----------
    [wang2017] §4.3; [tutorial] "Histogram Encoding".
    """
    d = check_int("d", d, low=2)
    y = _check_reports(np.atleast_2d(as_array("y", y, f"reports (users × {d})")), d, name="y")
    v, v_other = (
        check_int("v", v, low=0, high=d - 1),
        check_int("v_other", v_other, low=0, high=d - 1),
    )
    x, x_other = np.eye(d)[v], np.eye(d)[v_other]
    return (np.abs(y - x_other).sum(axis=1) - np.abs(y - x).sum(axis=1)) / laplace_scale(epsilon)


def laplace_report_privacy_loss(epsilon: float, d: int) -> float:
    """The exact whole-report ε of the histogram-encoding report: ``sup_y ln f(y|v)/f(y|v')``, at its maximizer.

    By :func:`log_density_ratio` the supremum is attained at y = e_v, for any pair v ≠ v' (by
    symmetry), so evaluating it there gives the exact loss (= ε).

    References
    ----------
    [wang2017] §4.3; [tutorial] Eq. (2) (ε-LDP, here with densities).
    """
    d = check_int("d", d, low=2)
    return float(log_density_ratio(np.eye(d)[0], 0, 1, epsilon=epsilon, d=d)[0])


#: bits of one real number in a report (an IEEE-754 double): how SHE/THE reports are counted
FLOAT_BITS = 64
#: SHE's largest ε, 2^1023: beyond it β = 2/ε is subnormal and the loss 2/β at y = e_v overflowed to ∞
MAX_EPSILON = 2.0**1023
_NO_TABLE = (
    "{name}'s report is continuous (one-hot plus Laplace noise): it has no output table; "
    "its whole-report loss comes from the Laplace densities (privacy_loss())"
)


class _LaplaceReport:
    """What SHE and THE share: the client's report, one-hot plus Laplace(2/ε), and its densities' loss."""

    @property
    def report_bits(self) -> int:
        """Bits sent per report: d reals, counted as IEEE-754 doubles (:data:`FLOAT_BITS` each, [wang2017] §4.3);
        THE's client sends SHE's vector too (the threshold is the server's)."""
        return FLOAT_BITS * self.d

    def output_table(self) -> np.ndarray:
        """Not available: the report is continuous (``NotImplementedError``)."""
        raise NotImplementedError(_NO_TABLE.format(name=type(self).__name__))

    def privacy_loss(self) -> float:
        """The exact whole-report ε of the SHE report from its densities (:func:`laplace_report_privacy_loss`)."""
        return laplace_report_privacy_loss(self.epsilon, self.d)

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference client: the SHE report, one-hot vector plus i.i.d. Laplace(2/ε), shape (n, d)."""
        values, rng = self._client_inputs(values, rng)
        _check_user_arrays(values.size, self.d, "reports", "reals")
        reports = rng.laplace(0.0, laplace_scale(self.epsilon), size=(values.size, self.d))
        reports[np.arange(values.size), values] += 1.0
        return reports


@dataclass(frozen=True)
class SHE(_LaplaceReport, FrequencyOracle):
    """Summation with histogram encoding: the server sums the reports, ĉ(i) = Σ_u B'_u[i].

    References
    ----------
    [wang2017] §4.3; [tutorial] "Histogram Encoding".
    """

    def __post_init__(self):
        check_epsilon(self.epsilon, high=MAX_EPSILON)
        super().__post_init__()

    @cached_property
    def scale(self) -> float:
        """β = 2/ε (computed once)."""
        return laplace_scale(self.epsilon)

    def log_density_ratio(self, y, v: int, v_other: int) -> np.ndarray:
        """ln f(y | v) − ln f(y | v') for reports y (rows): at most ε (:func:`log_density_ratio`)."""
        return log_density_ratio(y, v, v_other, epsilon=self.epsilon, d=self.d)

    def aggregate(self, reports) -> np.ndarray:
        """Σ_u B'_u[i] for every i (this *is* the unbiased count estimate)."""
        return _check_reports(reports, self.d, self.scale).sum(axis=0)

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact aggregate sampler: f_i + (G_i − G'_i), G, G' ~ Gamma(n, β) (a Laplace is Exp − Exp).

        With ``n_draws`` the result has shape (n_draws, d): independent surveys, one Generator call.
        """
        counts, n, rng, shape = self._sampler_inputs(truth, rng, n_draws, (self.d,))
        gains, losses = rng.gamma(n, self.scale, size=(2, *shape))
        gains += counts  # (f + G) − G': this order of the float operations is the one the notebooks were run with
        gains -= losses
        return gains

    def estimate(self, aggregate, n) -> np.ndarray:
        """ĉ(i) = Σ_u B'_u[i]: the sums themselves (shape (d,) or (n_draws, d)); ``n`` is checked only."""
        n = check_int("n", n, low=1)
        noise = n * MAX_NOISE_SCALES * self.scale
        return check_aggregate(
            aggregate,
            (self.d,),
            low=-noise,
            high=n + noise,
            integral=False,
            what=f"sums of n = {n} reports, each within 1 + 745·β of 0",
        )

    def variance(self, truth) -> np.ndarray:
        """Exact Var[ĉ(i)] = 2nβ² = 8n/ε², the same for every value i (shape (d,)).

        References
        ----------
        [wang2017] §4.3; [tutorial] "Histogram Encoding".
        """
        _, n = self._counts_and_n(truth)
        return np.full(self.d, 2.0 * n * self.scale**2)


@dataclass(frozen=True)
class THE(_LaplaceReport, PureFrequencyOracle):
    """Thresholding with histogram encoding: count the noisy coordinates above θ.

    ``theta=None`` picks :func:`optimal_threshold`.  The client sends SHE's report; the server
    counts the coordinates above θ.  Given the true value those indicators are independent with
    Pr[1] = p* (own value) or q*, so the aggregate sampler and the exact variance are those of
    a pure oracle with these p*, q*.  The report is the continuous SHE report, so there is no
    output table and the whole-report loss is SHE's, exactly ε (thresholded bits alone would
    leak only ln(p*(1−q*)/(q*(1−p*))) < ε, but the client sends the report, not the bits).

    References
    ----------
    [wang2017] §4.3 (THE, θ ∈ (1/2, 1)); [tutorial] "Histogram Encoding".
    """

    theta: float | None = None  # threshold θ

    def __post_init__(self):
        theta = optimal_threshold(self.epsilon) if self.theta is None else self.theta
        object.__setattr__(self, "theta", check_real("theta", theta, low=0.0, high=1.0))
        super().__post_init__()

    def _support_probabilities(self) -> tuple[float, float]:
        return _threshold_probabilities(self.theta, self.epsilon)

    def aggregate(self, reports) -> np.ndarray:
        """C(i) = #{u : B'_u[i] > θ} (the server's thresholding)."""
        return (_check_reports(reports, self.d, laplace_scale(self.epsilon)) > self.theta).sum(
            axis=0, dtype=np.int64
        )
