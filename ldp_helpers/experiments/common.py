"""Measurements shared by the notebooks and the explorer: the maximum error, the Monte-Carlo mean and
its standard error, simulated estimates against their exact mean and variance, gaps between two means
in their SE, Bonferroni's z, and fitted rates."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ldp_helpers._numeric import union_log
from ldp_helpers._validation import (
    Described,
    check_bool,
    check_int,
    check_int_array,
    check_n_draws,
    check_ndim,
    check_probabilities,
    check_probability,
    check_real_array,
    fail,
    fail_shape,
)


def max_error(estimates, true_fractions) -> np.ndarray:
    """``Err = max_t |μ̂_t − μ_t|`` per survey (the last axis of ``estimates`` holds the T rounds).

    References
    ----------
    [glance] §3 (Err); [m_shot] Definition 3.1 (the α of (α, β)-accuracy).
    """
    mu = check_probabilities(
        "true_fractions", true_fractions, ndim=1, what="(one fraction per round)"
    )
    est = check_real_array("estimates", estimates)
    if est.ndim == 0 or est.shape[-1] != mu.size:
        fail_shape("estimates", est.shape, f"an array whose last axis has length T = {mu.size}")
    return np.max(np.abs(est - mu), axis=-1)


def mean_and_se(samples):
    """Mean over the last axis (the surveys) and its Monte-Carlo standard error ``sd/√n_draws``.

    ``samples`` as :func:`error_curve` returns them (``Err``), or m-shot's F-measures; at least two
    surveys per setting.
    """
    samples = check_real_array("samples", samples, low=0.0, low_open=False)
    if samples.ndim == 0 or samples.shape[-1] < 2:
        fail_shape("samples", samples.shape, "an array with at least two surveys on its last axis")
    with np.errstate(over="ignore", invalid="ignore"):
        mean = samples.mean(axis=-1)
        se = samples.std(axis=-1, ddof=1) / np.sqrt(samples.shape[-1])
    # a sum or a square beyond 1e308
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(se))):
        scale = samples.max(axis=-1)  # > 0 there: the samples over their largest, then scaled back
        with np.errstate(over="ignore", invalid="ignore"):
            unit = samples / np.expand_dims(np.where(scale > 0, scale, 1.0), -1)
            mean = np.where(np.isfinite(mean), mean, scale * unit.mean(axis=-1))
            spread = unit.std(axis=-1, ddof=1) / np.sqrt(samples.shape[-1])
            se = np.where(np.isfinite(se), se, scale * spread)
    return mean, se


def share_se(p, n):
    """``√(p(1 − p)/n)``: the binomial SE of the share of ``n`` independent trials that succeed, each
    with probability ``p`` (elementwise; a float for numbers).

    References
    ----------
    The binomial law's variance n·p(1 − p).
    """
    p = np.asarray(check_probabilities("p", p))
    n = np.asarray(check_int_array("n", n, low=1))  # trials, not draws: any int64 count
    se = np.sqrt(p * (1 - p) / n)
    return float(se) if se.ndim == 0 else se


def variance_ratio_se(n_draws: int) -> float:
    """``√(2/(n_draws − 1))``: the SD of a sample variance over ``n_draws`` ≥ 2 draws divided by the
    true variance, for (nearly) Gaussian draws ((n_draws − 1)s²/σ² is χ² with n_draws − 1 degrees).

    References
    ----------
    The χ² law of the sample variance of Gaussian draws (Cochran's theorem).
    """
    return math.sqrt(2 / (check_n_draws(n_draws, low=2) - 1))


@dataclass(frozen=True)
class EstimatorCheck:
    """Simulated estimates against their exact mean and variance (elementwise, see :func:`versus_exact`)."""

    #: (mean estimate − exact mean)/√(Var/n_draws): ≈ N(0, 1) if unbiased with that variance
    z: np.ndarray
    #: sample variance / exact variance: mean 1, SD about :func:`variance_ratio_se`
    variance_ratio: np.ndarray
    n_draws: int

    @property
    def ratio_z(self) -> np.ndarray:
        """Each variance ratio's distance from 1 in its SD (:func:`variance_ratio_se`)."""
        return (self.variance_ratio - 1) / variance_ratio_se(self.n_draws)


def versus_exact(estimates, mean, variance) -> EstimatorCheck:
    """``n_draws`` simulated estimates (draws on axis 0, ≥ 2) against the exact ``mean`` and
    ``variance`` of one estimate (each broadcast over the other axes; the variance > 0, and large
    enough that z and the variance ratio stay within double precision: else refused).

    For an unbiased estimator with that variance each z is approximately N(0, 1) and each variance
    ratio has mean 1 and SD about :func:`variance_ratio_se`.
    """
    estimates = check_real_array("estimates", estimates)
    if estimates.ndim == 0 or estimates.shape[0] < 2:
        fail_shape(
            "estimates", estimates.shape, "an array with at least two draws on its first axis"
        )
    mean = _over("mean", check_real_array("mean", mean), estimates.shape[1:])
    variance = _over("variance", check_real_array("variance", variance, low=0.0), mean.shape)
    n_draws = estimates.shape[0]
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        gap = estimates.mean(axis=0) - mean
        spread = estimates.var(axis=0, ddof=1)
        z = gap / np.sqrt(variance / n_draws)
        ratio = spread / variance
    if not (np.all(np.isfinite(gap)) and np.all(np.isfinite(spread))):  # no variance would help
        fail("estimates", Described("an array whose mean or variance overflows"), "within 1e308")
    if not (
        np.all(np.isfinite(z)) and np.all(np.isfinite(ratio))
    ):  # a variance near 1e-308 or less
        least = float(np.min(variance))
        fail(
            "variance",
            least if np.all(variance == least) else Described(f"an array with minimum {least!r}"),
            "large enough for these estimates that z and the variance ratio (sample variance / "
            "variance) stay within double precision",
        )
    return EstimatorCheck(z, ratio, n_draws)


def bonferroni_z(n_tests: int, *, confidence: float = 0.99, two_sided: bool = False) -> float:
    """``z = Φ⁻¹(1 − (1 − confidence)/n_tests)`` (``n_tests`` doubled when ``two_sided``): ``n_tests`` tests,
    each passed when its statistic stays below z standard errors (within ±z when ``two_sided``), hold
    jointly at ``confidence`` (Bonferroni's union bound).

    References
    ----------
    Bonferroni's inequality (union bound) over the tests' one-sided normal tails.
    """
    n_tests = check_int("n_tests", n_tests, low=1)
    confidence = check_probability(confidence, "confidence", open_low=True, open_high=True)
    tails = n_tests * (2 if check_bool("two_sided", two_sided) else 1)
    return float(stats.norm.isf((1 - confidence) / tails))


def _two_means(a, b):
    """:func:`mean_and_se` of two samples over one grid: ``(mean_a, se_a, mean_b, se_b)``."""
    a = check_real_array("a", a, low=0.0, low_open=False)  # named here: mean_and_se says "samples"
    b = check_real_array("b", b, low=0.0, low_open=False)
    (mean_a, se_a), (mean_b, se_b) = mean_and_se(a), mean_and_se(b)
    if mean_a.shape != mean_b.shape:
        fail(
            "b",
            Described(f"samples of shape {np.shape(b)}"),
            f"samples over a's grid {mean_a.shape}",
        )
    return mean_a, se_a, mean_b, se_b


def mean_gap(a, b) -> tuple[np.ndarray, np.ndarray]:
    """``ā − b̄`` of two independent samples (surveys on the last axis) and its Monte-Carlo SE ``√(se_a² + se_b²)``.

    (:func:`mean_and_se`.)  A gap of more than 3 SE says ā > b̄ with a one-sided error below 0.14 %.

    References
    ----------
    [m_shot] §6.3, Fig. 2d–f (the comparisons of mean F this decides).
    """
    mean_a, se_a, mean_b, se_b = _two_means(a, b)
    return mean_a - mean_b, np.hypot(se_a, se_b)


def _over(name: str, values: np.ndarray, shape: tuple) -> np.ndarray:
    """``values`` broadcast to ``shape`` (refused, naming ``name``, when they do not broadcast)."""
    try:
        return np.broadcast_to(values, shape)
    except ValueError:
        fail_shape(name, np.shape(values), f"values over shape {shape}")


def in_se(difference, se_a, se_b=0.0):
    """``difference / √(se_a² + se_b²)``: a difference of two independent means in the standard error
    of the difference (elementwise; a float for numbers), 0 where the difference and the SE are
    both 0, ±inf where only the SE is (noise-free runs have no spread).

    ``se_a, se_b``: each mean's SE; or ``se_a`` alone, the SE of the difference as :func:`mean_gap`
    gives it.  A gap of more than 3 SE says the first mean is the larger with a one-sided error
    below 0.14 %.
    """
    difference = np.asarray(check_real_array("difference", difference), dtype=float)
    se_a = _over("se_a", check_real_array("se_a", se_a, low=0.0, low_open=False), difference.shape)
    se_b = _over("se_b", check_real_array("se_b", se_b, low=0.0, low_open=False), difference.shape)
    se = np.hypot(se_a, se_b)
    noise_free = np.where(difference == 0, 0.0, np.copysign(np.inf, difference))
    z = np.where(se > 0, difference / np.where(se > 0, se, 1.0), noise_free)
    return float(z) if z.ndim == 0 else z


def log_gap(a, b) -> tuple[np.ndarray, np.ndarray]:
    """``ln ā − ln b̄`` of two independent samples (surveys on the last axis) and its Monte-Carlo SE.

    By the delta method ``Var ln ā ≈ (se_a/ā)²`` (:func:`mean_and_se`), so the SE of the gap is
    ``√((se_a/ā)² + (se_b/b̄)²)``.  A gap of more than 3 SE says ā > b̄ (ā/b̄ > 1) with a one-sided
    error below 0.14 %; differences of gaps at two grid points compare how fast two curves fall.

    References
    ----------
    [glance] §6, Fig. 3 (the comparisons of mean Err this decides).
    """
    mean_a, se_a, mean_b, se_b = _two_means(a, b)
    for name, mean in (("a", mean_a), ("b", mean_b)):
        if not np.all(mean > 0):
            fail(
                name,
                Described("a sample with mean 0"),
                "samples with positive means (a log needs them)",
            )
    return np.log(mean_a) - np.log(mean_b), np.hypot(se_a / mean_a, se_b / mean_b)


def fitted_slope(x, y, *, log_x: bool = True, log_correction_beta: float | None = None) -> float:
    """Least-squares slope of ``ln y`` against ``ln x`` (``log_x``) or against ``x``.

    Parameters
    ----------
    x, y : array_like
        Positive abscissae and ordinates of the same length ≥ 2.
    log_x : bool
        Fit against ``ln x`` (a power law ``y ∝ x^e``) or against ``x`` (``y ∝ e^{e x}``).
    log_correction_beta : float in (0, 1), optional
        If given, fit ``ln(y / √ln(2x/β))`` instead of ``ln y``. Needs ``x > β/2``.
        The union bound over the 2T one-sided sub-Gaussian tail events puts the factor
        ``√log(2T/β)`` in the high-probability bound on the maximum error over ``x = T`` rounds
        (the value it exceeds with probability ≤ β, the form of the rates cited below): for
        ``y ∝ T^e √log(2T/β)`` the corrected slope is exactly ``e``. For other statistics of the
        maximum it leaves a residual bias: for the maximum of T independent Gaussian errors and
        β = 0.05 over T = 100…1600 the corrected slope is ``e + 0.013`` for the exact (1 − β)-quantile
        (the ``log log`` term of the Gaussian tail) and ``e + 0.041`` for the *mean* maximum, which
        grows like ``√(2 ln T)`` (pinned in ``tests/mechanisms/test_continual.py``).

    References
    ----------
    [m_shot] Theorem 9; [m_shot] Eqs. (8)–(10) (rates ``O(T^e √(log(T/β)/N))``).
    """
    if log_correction_beta is not None:
        beta = check_probability(
            log_correction_beta, "log_correction_beta", open_low=True, open_high=True
        )
        x = check_real_array("x", x, low=beta / 2)
    else:
        x = check_real_array("x", x, low=0.0)
    y = check_real_array("y", y, low=0.0)
    x, y = check_ndim("x", x, 1), check_ndim("y", y, 1)  # polyfit's own TypeError for 2-D arrays
    if x.size != y.size or x.size < 2:
        fail(
            "y",
            Described(f"an array of length {y.size}"),
            f"an array of the same length as x ({x.size}), at least 2",
        )
    if log_correction_beta is not None:
        y = y / np.sqrt(union_log(2 * x, beta))
    u = np.log(x) if check_bool("log_x", log_x) else x
    if np.all(u == u.flat[0]):  # no slope: polyfit returned a number anyway (with a RankWarning)
        fail("x", Described("all abscissae equal"), "at least two distinct x")
    return float(np.polyfit(u, np.log(y), 1)[0])


def fitted_slope_se(x, y, y_se, *, log_x: bool = True) -> float:
    """Monte-Carlo standard error of :func:`fitted_slope` when each ``y_i`` is a mean with standard error ``y_se[i]``.

    The least-squares slope is ``Σ w_i ln y_i`` with ``w_i = (u_i − ū)/Σ(u_j − ū)²`` (``u = ln x`` or
    ``x``); with independent ``y_i`` and the delta method ``Var ln y_i ≈ (se_i/y_i)²``,
    ``SE = √(Σ w_i² (se_i/y_i)²)``.  (``fitted_slope``'s ``log_correction_beta`` divides each ``y_i``
    by a constant, which leaves this SE unchanged.)  It measures the noise of the simulation only,
    not how far a finite range of x is from the asymptotic rate.

    References
    ----------
    [glance] Table 1; [m_shot] Theorem 9 (the rates these slopes estimate).
    """
    x = check_real_array("x", x, low=0.0)
    y = check_real_array("y", y, low=0.0)
    y_se = check_real_array("y_se", y_se, low=0.0, low_open=False)
    if not x.size == y.size == y_se.size or x.size < 2:
        fail(
            "y_se",
            Described(f"arrays of lengths {x.size}, {y.size}, {y_se.size}"),
            "x, y and y_se of one length ≥ 2",
        )
    u = np.log(x) if check_bool("log_x", log_x) else x
    centred = u - u.mean()
    if not np.any(centred):
        fail("x", Described("all abscissae equal"), "at least two distinct x")
    w = centred / np.sum(centred**2)
    return float(np.sqrt(np.sum((w * y_se / y) ** 2)))
