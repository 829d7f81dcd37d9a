"""RAPPOR theory: the smallest detectable frequency of the decoder, and the tutorial's printed ε₂.

**Detection threshold** (derived here from the regression of [erlingsson2014] §4; not printed in
the papers).  Treat the noise of every t̂_ij as its null variance (a bit no report sets)
``σ_j² = N_j p*(1−p*)/(q*−p*)²``.  OLS on all M candidates then gives
``SE(β̂_w) = σ_j sqrt([(XᵀX)⁺]_ww)``, and a per-cohort count β_w is detected with probability
``power`` by a one-sided test at level α/n_tests when ``β_w = (z_{1−α/n_tests} + z_power)·SE``:
the frequency ``π_w = β_w / N_j`` with ``N_j = N/m``.  Without collisions (``XᵀX = h m I``)::

    π_min = (z_{1−α/n_tests} + z_power) sqrt(p*(1−p*)) / ((q*−p*) sqrt(N h))      (independent of m)

A guide, not a guarantee: the t-test estimates σ and the LASSO keeps only some columns.

**Expected precision and recall** (an analytic approximation, used by the explorer's RAPPOR guide).
Take the OLS estimate as ``β̂_w ~ N(β_w, SE_w²)`` with the null SE above, so that
``SE_w / N_j = c_w = π_min,w / z`` (π_min,w the threshold at power ½, ``z = z_{1−α/n_tests}``;
``c_w`` is :func:`unit_threshold` times :func:`collision_factor`), and
let the one-sided test reject when ``β̂_w / SE_w > z``: a true candidate is detected with probability
``Φ(z (π_w / π_min,w − 1)) = Φ(π_w / c_w − z)`` and a null one with probability α/n_tests.  BH has
no fixed per-test level; use a = α·R/M at the largest fixed point R of the expected number of
rejections at level a (a deterministic stand-in for BH's random cut-off).  Recall is the mean
detection probability of the true candidates, precision E[true detections] / E[all detections]
(a ratio of expectations).  It ignores the LASSO step and the dependence between candidates.

References
----------
[erlingsson2014] §4; [rappor] §2 (Y ≈ Xβ); [tutorial] "RAPPOR" (ε₂).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats

from ldp_helpers._validation import (
    check_choice,
    check_instance,
    check_int,
    check_int_array,
    check_probabilities,
    check_probability,
    check_real,
    check_real_array,
    fail,
)
from ldp_helpers.mechanisms.pure import count_variance
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams
from ldp_helpers.mechanisms.unary_encoding import unary_loss


def tutorial_printed_p_star(f: float, p: float) -> float:
    """The tutorial's printed ``p' = ½f(p + 1) + (1 − f)p``: wrong for f > 0, see :attr:`RapporParams.p_star`.

    References
    ----------
    [tutorial] "RAPPOR", p'.
    """
    return _printed_p_star(check_probability(f, "f"), check_probability(p, "p"))


def _printed_p_star(f: float, p: float) -> float:
    """``p' = ½f(p + 1) + (1 − f)p`` for checked f and p."""
    return 0.5 * f * (p + 1) + (1 - f) * p


def detection_threshold(
    mechanism: Rappor, n_reports, *, alpha: float = 0.05, n_tests: int = 1, power: float = 0.5
) -> np.ndarray:
    """Smallest frequency π_w each candidate of ``mechanism`` needs to be detected with probability ``power``.

    Parameters
    ----------
    mechanism : Rappor
        Its design matrix X (collisions included) and p*, q*.
    n_reports : int or array_like of int
        Total reports N (at least m); an array gives a result of shape ``(*n_reports.shape, M)``.
    alpha, n_tests, power : float, int, float
        Level of the one-sided test, number of tests it is corrected for (Bonferroni), power.

    References
    ----------
    [erlingsson2014] §4 (OLS standard errors, t-tests); [rappor] §2 (Y ≈ Xβ).
    """
    n_j, z = _threshold_inputs(
        check_instance("mechanism", mechanism, Rappor).params, n_reports, alpha, n_tests, power
    )
    return z * _null_sd(n_j, mechanism.params)[..., None] * _leverage(mechanism) / n_j[..., None]


def _leverage(mechanism: Rappor) -> np.ndarray:
    """``sqrt([(XᵀX)⁺]_ww)`` of each candidate w: its OLS standard error per unit of noise SD."""
    X = mechanism.design_matrix.astype(float)
    return np.sqrt(np.diag(np.linalg.pinv(X.T @ X)))


def collision_factor(mechanism) -> np.ndarray:
    """Each candidate's detection threshold over the collision-free one: ``sqrt(h m [(XᵀX)⁺]_ww)``.

    1 for every candidate of a design without collisions (``XᵀX = h m I``), above 1 where the
    candidates' Bloom filters share bits; it depends on the design X alone (not on f, p, q, N, α
    or the power), so :func:`detection_threshold` is
    ``collision_factor · detection_threshold_without_collisions``.

    References
    ----------
    [erlingsson2014] §4 (OLS standard errors); [rappor] §2 (Y ≈ Xβ).
    """
    params = check_instance("mechanism", mechanism, Rappor).params
    return np.sqrt(params.h * params.m) * _leverage(mechanism)


def detection_threshold_without_collisions(
    params: RapporParams, n_reports, *, alpha: float = 0.05, n_tests: int = 1, power: float = 0.5
) -> np.ndarray:
    """:func:`detection_threshold` for a collision-free design (``XᵀX = h m I``): one value per N.

    ``π_min = (z_{1−α/n_tests} + z_power) sqrt(p*(1−p*)) / ((q*−p*) sqrt(N h))``.

    References
    ----------
    [erlingsson2014] §4; [rappor] §2.
    """
    n_j, z = _threshold_inputs(params, n_reports, alpha, n_tests, power)
    return _without_collisions(z, n_j, params)


def unit_threshold(params, n_reports) -> np.ndarray:
    """The collision-free detection threshold per unit of z: ``c = π_min / z`` at power ½, per N.

    ``c = sqrt(p*(1−p*)) / ((q*−p*) sqrt(N h))``, the null standard error of a candidate's
    frequency estimate; candidate w's is ``c_w = c · collision_factor_w``
    (:func:`collision_factor`), the ``unit_threshold`` that :func:`expected_precision_recall` takes.

    References
    ----------
    [erlingsson2014] §4; [rappor] §2.
    """
    check_instance("params", params, RapporParams)
    n_reports = check_int_array("n_reports", n_reports, low=params.m)
    return _without_collisions(1.0, n_reports / params.m, params)


def _without_collisions(z, n_j, params: RapporParams):
    """``z · SD(t̂_ij) / (sqrt(h m) N_j)``: the collision-free threshold at z (N_j per cohort)."""
    return z * _null_sd(n_j, params) / np.sqrt(params.h * params.m) / n_j


def threshold_recall(
    mechanism: Rappor, weights, n_reports, *, alpha: float = 0.05
) -> tuple[np.ndarray, np.ndarray]:
    """Per N: the median :func:`detection_threshold` over the candidates (power ½, level ``alpha``)
    and the share of the true candidates' weights above it, which predicts the decoder's recall.

    References
    ----------
    [erlingsson2014] §4; [rappor] §2.
    """
    check_instance("mechanism", mechanism, Rappor)
    weights = _per_candidate(
        "weights", weights, mechanism.n_candidates, "(one weight per candidate)"
    )
    threshold = np.median(detection_threshold(mechanism, n_reports, alpha=alpha), axis=-1)
    return threshold, np.mean(weights[weights > 0] > np.asarray(threshold)[..., None], axis=-1)


def _per_candidate(name, values, n_candidates, what):
    """A 1-D array of one value ≥ 0 per candidate (``what`` describes them in a refusal)."""
    return check_real_array(
        name, values, low=0.0, low_open=False, ndim=1, last=n_candidates, what=what
    )


def _threshold_inputs(params: RapporParams, n_reports, alpha, n_tests, power):
    check_instance("params", params, RapporParams)
    n_reports = check_int_array("n_reports", n_reports, low=params.m)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0)
    n_tests = check_int("n_tests", n_tests, low=1)
    power = check_real("power", power, low=0.0, high=1.0)
    return n_reports / params.m, stats.norm.isf(alpha / n_tests) + stats.norm.ppf(power)


def _null_sd(n_j, params: RapporParams):
    """SD of t̂_ij for a bit no report sets (t = 0): the count variance at true count 0."""
    channel = params.bit_channel
    return np.sqrt(count_variance(0.0, n_j, channel.p, channel.q))


def tutorial_printed_epsilon_one_report(params: RapporParams) -> float:
    """The tutorial's ε₂ = h ln(q'(1 − p')/(p'(1 − q'))) with its printed p' (differs from ε₁ when f > 0).

    References
    ----------
    [tutorial] "RAPPOR", ε₂.
    """
    p_printed = _printed_p_star(check_instance("params", params, RapporParams).f, params.p)
    return params.h * unary_loss(params.q_star, p_printed)


#: the decoder's multiple-testing corrections: none (n_tests = 1), Bonferroni over the M candidates,
#: Benjamini–Hochberg (FDR α)
CORRECTIONS = ("none", "bonferroni", "bh")


class ExpectedDetection(NamedTuple):
    """:func:`expected_precision_recall`'s result (the array has length M)."""

    detection_probability: np.ndarray  # Φ(π_w / c_w − z) per candidate
    recall: float  # mean detection probability of the true candidates (π_w > 0)
    precision: float  # E[true detections] / E[all detections] (0 if none is expected)
    expected_false: float  # expected number of null candidates detected
    z: float  # z_{1−a} of the per-test level a (the threshold at power ½ is z·c_w)


def expected_precision_recall(
    frequencies, unit_threshold, *, alpha: float = 0.05, correction: str = "bonferroni"
) -> ExpectedDetection:
    """The decoder's expected precision and recall (analytic approximation of the module docstring).

    Parameters
    ----------
    frequencies : array_like of float, shape (M,)
        π_w of the M candidates in [0, 1]; those with π_w > 0 are the true ones (at least one).
    unit_threshold : array_like of float, shape (M,)
        c_w = π_min,w / z ≥ 0: each candidate's threshold at power ½ per unit of z (the standard
        error of its frequency, collisions included); 0 means no noise (a true candidate is then
        detected surely; a null one keeps the test's level).
    alpha : float
        Level of the one-sided tests, in (0, 1); with a correction, α/M must not underflow to 0
        (α ≥ about M·5e-324), or z_{1−α/M} would be infinite.
    correction : {"none", "bonferroni", "bh"}
        n_tests = 1, n_tests = M, or Benjamini–Hochberg at FDR α (the fixed point of the module
        docstring).

    References
    ----------
    [erlingsson2014] §4 (the t-tests); [rappor] §3 (precision, recall).
    """
    frequencies = check_probabilities("frequencies", frequencies, ndim=1)
    if not np.any(frequencies > 0):
        fail(
            "frequencies",
            frequencies,
            "an array with at least one positive entry (a true candidate)",
        )
    unit_threshold = _per_candidate(
        "unit_threshold", unit_threshold, frequencies.size, "(one value per candidate)"
    )
    alpha = check_real("alpha", alpha, low=0.0, high=1.0)
    correction = check_choice("correction", correction, CORRECTIONS)
    if correction != "none" and alpha / frequencies.size == 0.0:  # the level α/M underflows: z = ∞
        fail(
            "alpha",
            alpha,
            f"in (0, 1) with the per-test level alpha/M above 0 in double precision (M = "
            f"{frequencies.size}: alpha at least about {frequencies.size * 5e-324:.3g})",
        )
    truth = frequencies > 0
    n_null = int((~truth).sum())
    with np.errstate(divide="ignore", invalid="ignore"):  # c_w = 0: π_w/c_w = ∞, or 0 for a null
        signal = np.where(
            unit_threshold > 0, frequencies / unit_threshold, np.where(frequencies > 0, np.inf, 0.0)
        )

    def power_at(level):
        return stats.norm.cdf(signal - stats.norm.isf(level))

    level = {"none": alpha, "bonferroni": alpha / frequencies.size}.get(correction)
    if level is None:  # BH: the level at the fixed point of the expected number of rejections
        level = _bh_level(
            lambda a: float(power_at(a)[truth].sum()) + n_null * a, frequencies.size, alpha
        )
    power = power_at(level)
    true_hits, false_hits = float(power[truth].sum()), float(n_null * level)
    precision = true_hits / (true_hits + false_hits) if true_hits + false_hits > 0 else 0.0
    return ExpectedDetection(
        power, float(power[truth].mean()), precision, false_hits, float(stats.norm.isf(level))
    )


#: steps of BH's monotone fixed-point iteration before it is declared stuck (about 1 s at M = 1000)
BH_MAX_STEPS = 100_000


def _bh_level(power_at, n_candidates: int, alpha: float) -> float:
    """BH's per-test level a = α R/M at the largest fixed point R of R = E[rejections at level α R/M].

    The iteration from R = M decreases to the largest fixed point (E[rejections] grows with the
    level); near a tangency it slows down (1,572 steps at M = 323, α = 0.925), so it runs until it
    has converged and raises if it has not after :data:`BH_MAX_STEPS` steps rather than return a
    level that is not a fixed point.  A fixed point below one rejection gives BH's smallest level
    α/M (Bonferroni's).
    """
    rejections = float(n_candidates)
    for _ in range(BH_MAX_STEPS):
        expected = power_at(alpha * rejections / n_candidates)
        if abs(expected - rejections) < 1e-9 or expected > rejections:
            return alpha * max(rejections, 1.0) / n_candidates
        rejections = expected
    raise RuntimeError(
        f"Benjamini-Hochberg's expected level did not converge in {BH_MAX_STEPS} steps "
        f"(alpha={alpha}, {n_candidates} candidates, at R = {rejections:.6g}): the expected "
        "rejections are tangent to R here; use a smaller alpha"
    )
