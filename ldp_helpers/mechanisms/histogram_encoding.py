"""Histogram encoding: one-hot vector plus Laplace noise, summed (SHE) or thresholded (THE).

A user with value v sends B' = e_v + (L_1, ..., L_d), L_i i.i.d. Laplace(β) with β = 2/ε: two
inputs' one-hot vectors differ by 2 in L1 norm, so the density ratio is at most
e^{2/β} = e^ε.

* SHE sums the reports: ĉ(i) = Σ_u B'_u[i] is unbiased with Var = n·2β² = 8n/ε².
* THE counts the reports with B'[i] > θ: a pure protocol with
  p* = Pr[1 + L > θ] = 1 − ½e^{−(1−θ)ε/2} and q* = Pr[L > θ] = ½e^{−θε/2} (0 < θ < 1),
  i.e. a unary encoding whose bits are post-processed Laplace coordinates; θ is chosen by
  minimizing the (approximate) variance q*(1−q*)/(p*−q*)² numerically.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.optimize import minimize_scalar

from ldp_helpers._validation import check_domain_values, check_epsilon, check_int, check_real, check_real_array, check_rng, check_true_counts
from ldp_helpers.mechanisms.unary_encoding import UnaryEncoding


def laplace_scale(epsilon: float) -> float:
    """β = 2/ε: the Laplace scale that makes one-hot histograms ε-LDP (L1 sensitivity 2)."""
    return 2.0 / check_epsilon(epsilon)


def _one_hot_plus_laplace(values, d: int, epsilon: float, rng) -> np.ndarray:
    values = check_domain_values("values", values, d).ravel()
    rng = check_rng(rng)
    reports = rng.laplace(0.0, laplace_scale(epsilon), size=(values.size, d))
    reports[np.arange(values.size), values] += 1.0
    return reports


def _check_reports(reports, d: int) -> np.ndarray:
    shape = np.shape(reports)
    if len(shape) != 2 or shape[1] != d or shape[0] == 0:
        raise ValueError(f"reports must be a non-empty finite (n, {d}) array; got shape {shape}")
    return check_real_array("reports", reports)


def _threshold_probabilities(theta: float, epsilon: float) -> tuple[float, float]:
    half_eps = epsilon / 2
    return 1.0 - 0.5 * math.exp(-(1.0 - theta) * half_eps), 0.5 * math.exp(-theta * half_eps)


def optimal_threshold(epsilon: float) -> float:
    """θ ∈ (0, 1) minimizing THE's variance q*(1−q*)/(p*−q*)² (found numerically; it lies in (1/2, 1))."""
    epsilon = check_epsilon(epsilon)

    def variance(theta):
        p, q = _threshold_probabilities(theta, epsilon)
        return q * (1 - q) / (p - q) ** 2

    return float(minimize_scalar(variance, bounds=(1e-9, 1 - 1e-9), method="bounded", options={"xatol": 1e-10}).x)


@dataclass(frozen=True)
class SHE:
    """Summation with histogram encoding.

    References
    ----------
    Wang et al. 2017, §4.3; tutorial seed (003), "Histogram Encoding".
    """

    epsilon: float
    d: int

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "d", check_int("d", self.d, low=2))

    @cached_property
    def scale(self) -> float:
        """β = 2/ε (computed once)."""
        return laplace_scale(self.epsilon)

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference client: one-hot vector plus i.i.d. Laplace(2/ε), shape (n, d)."""
        return _one_hot_plus_laplace(values, self.d, self.epsilon, rng)

    def report_sums(self, reports) -> np.ndarray:
        """Σ_u B'_u[i] for every i (this *is* the unbiased count estimate)."""
        return _check_reports(reports, self.d).sum(axis=0)

    def sample_report_sums(self, true_counts, *, rng: np.random.Generator, n_draws: int | None = None) -> np.ndarray:
        """Exact aggregate sampler: f_i + (G_i − G'_i), G, G' ~ Gamma(n, β) (a Laplace is Exp − Exp).

        With ``n_draws`` the result has shape (n_draws, d): independent surveys, one Generator call.
        """
        counts, n = check_true_counts(true_counts, self.d)
        shape = (self.d,) if n_draws is None else (check_int("n_draws", n_draws, low=1), self.d)
        gains, losses = check_rng(rng).gamma(n, self.scale, size=(2, *shape))
        gains += counts  # (f + G) − G': this order of the float operations is the one the notebooks were run with
        gains -= losses
        return gains

    def count_variance(self, n) -> float:
        """Exact Var[ĉ(i)] = 2nβ² = 8n/ε² (the same for every i)."""
        return 2.0 * check_int("n", n, low=1) * self.scale**2

    def privacy_loss(self) -> float:
        """ε computed from the report densities: ``sup_y ln f(y | v)/f(y | v')``, evaluated at its maximizer.

        ln f(y|v) − ln f(y|v') = (‖y − e_{v'}‖₁ − ‖y − e_v‖₁)/β ≤ ‖e_v − e_{v'}‖₁/β = 2/β by the
        triangle inequality, with equality at y = e_v; by symmetry any pair v ≠ v' gives the same.

        References
        ----------
        Wang et al. 2017, §4.3 (SHE is ε-LDP with β = 2/ε); tutorial seed (003), "Histogram Encoding".
        """
        return float(self.log_density_ratio(np.eye(self.d)[0], 0, 1)[0])

    def log_density_ratio(self, y, v: int, v_other: int) -> np.ndarray:
        """ln f(y | v) − ln f(y | v') for reports y (rows): at most ε, attained when y separates v and v'."""
        y = _check_reports(np.atleast_2d(y), self.d)
        v, v_other = check_int("v", v, low=0, high=self.d - 1), check_int("v_other", v_other, low=0, high=self.d - 1)
        x, x_other = np.eye(self.d)[v], np.eye(self.d)[v_other]
        return (np.abs(y - x_other).sum(axis=1) - np.abs(y - x).sum(axis=1)) / self.scale


@dataclass(frozen=True)
class THE(UnaryEncoding):
    """Thresholding with histogram encoding: count the noisy coordinates above θ.

    ``theta=None`` picks :func:`optimal_threshold`.  Bits of the thresholded report are
    independent with Pr[1] = p* (own value) or q*, so the aggregate sampler, the per-bit and
    whole-vector tables are those of a unary encoding with these p*, q* (post-processing of
    SHE, hence ε-LDP; the vector table's loss ln(p*(1−q*)/(q*(1−p*))) is at most ε).

    References
    ----------
    Wang et al. 2017, §4.3 (THE, θ ∈ (1/2, 1)); tutorial seed (003), "Histogram Encoding".
    """

    theta: float | None = None  # threshold θ

    def __post_init__(self):
        theta = optimal_threshold(self.epsilon) if self.theta is None else self.theta
        object.__setattr__(self, "theta", check_real("theta", theta, low=0.0, high=1.0))
        super().__post_init__()

    def _support_probabilities(self) -> tuple[float, float]:
        return _threshold_probabilities(self.theta, self.epsilon)

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference client: the SHE report (one-hot plus Laplace(2/ε)), shape (n, d)."""
        return _one_hot_plus_laplace(values, self.d, self.epsilon, rng)

    def support_counts(self, reports) -> np.ndarray:
        """C(i) = #{u : B'_u[i] > θ}."""
        return (_check_reports(reports, self.d) > self.theta).sum(axis=0, dtype=np.int64)
