"""RAPPOR theory: the smallest detectable frequency of the decoder, and the tutorial's printed ε₂.

**Detection threshold** (derived here from the regression of [erlingsson2014] §4; not printed in
the papers).  Treat the noise of every t̂_ij as its null variance (a bit no report sets)
``σ_j² = N_j p*(1−p*)/(q*−p*)²``.  OLS on all M candidates then gives
``SE(β̂_w) = σ_j sqrt([(XᵀX)⁺]_ww)``, and a per-cohort count β_w is detected with probability
``power`` by a one-sided test at level α/n_tests when ``β_w = (z_{1−α/n_tests} + z_power)·SE``:
the frequency ``π_w = β_w / N_j`` with ``N_j = N/m``.  Without collisions (``XᵀX = h m I``)::

    π_min = (z_{1−α/n_tests} + z_power) sqrt(p*(1−p*)) / ((q*−p*) sqrt(N h))      (independent of m)

A guide, not a guarantee: the t-test estimates σ and the LASSO keeps only some columns.

References
----------
[erlingsson2014] §4; [rappor] §2 (Y ≈ Xβ); [tutorial] "RAPPOR" (ε₂).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ldp_helpers._validation import (
    check_instance,
    check_int,
    check_int_array,
    check_ndim,
    check_probability,
    check_real,
    check_real_array,
)
from ldp_helpers.mechanisms.pure import count_variance
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams


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
    X = mechanism.design_matrix.astype(float)
    leverage = np.sqrt(np.diag(np.linalg.pinv(X.T @ X)))
    return z * _null_sd(n_j, mechanism.params)[..., None] * leverage / n_j[..., None]


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
    weights = check_ndim(
        "weights",
        check_real_array("weights", weights, low=0.0, low_open=False),
        1,
        last=mechanism.n_candidates,
        what="(one weight per candidate)",
    )
    threshold = np.median(detection_threshold(mechanism, n_reports, alpha=alpha), axis=-1)
    return threshold, np.mean(weights[weights > 0] > np.asarray(threshold)[..., None], axis=-1)


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
    p_printed, q_star = (
        _printed_p_star(check_instance("params", params, RapporParams).f, params.p),
        params.q_star,
    )
    if p_printed == 0.0 or q_star == 1.0:
        return math.inf
    return params.h * math.log(q_star * (1 - p_printed) / (p_printed * (1 - q_star)))
