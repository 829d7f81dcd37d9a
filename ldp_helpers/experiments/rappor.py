"""Notebook 02_rappor's drivers: parameter grid → arrays (decoded surveys, estimator check, privacy table).

Populations come from :mod:`ldp_helpers.simulate.populations` (``zipf_weights``,
``cohort_counts``), the mechanism from :mod:`ldp_helpers.mechanisms.rappor`, the decoder and the
printed Y_vec loop of [rappor] Fig. 2 from :mod:`ldp_helpers.estimation.rappor_decoding`, the detection
thresholds from :mod:`ldp_helpers.bounds.rappor`.

References
----------
[rappor] §3 (the experiment); [erlingsson2014] §4; [tutorial] "RAPPOR".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import check_bool, check_instance, check_int, check_int_array, check_n_draws, check_real_array, check_rng
from ldp_helpers.bounds.rappor import tutorial_printed_epsilon_one_report
from ldp_helpers.estimation.rappor_decoding import Decoding, decode, printed_y_vec
from ldp_helpers.mechanisms.privacy import privacy_losses
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams
from ldp_helpers.simulate.populations import cohort_counts

#: columns of :func:`decode_surveys`
SURVEY_COLUMNS = ("precision", "recall", "n_kept", "n_false")
#: columns of :func:`privacy_comparison`
PRIVACY_COLUMNS = ("f", "p", "q", "h", "eps_table", "eps1", "eps1_tutorial", "eps_inf_table", "eps_inf")


def precision_recall(detected, n_true: int) -> tuple[float, float]:
    """The scores of [rappor] §3: candidates ``0..n_true−1`` are the true ones; precision is 0 if nothing is detected.

    References
    ----------
    [rappor] §3.
    """
    n_true = check_int("n_true", n_true, low=1)
    detected = np.asarray(detected)
    if detected.size:
        detected = check_int_array("detected", detected, low=0)
    tp = int(np.sum(detected < n_true))
    precision = tp / detected.size if detected.size else 0.0
    return precision, tp / n_true


@dataclass(frozen=True)
class DecodedSurvey:
    """One survey decoded: precision and recall as [rappor] §3 defines them, and the decoding itself."""

    precision: float
    recall: float
    decoding: Decoding


def decode_survey(params: RapporParams, weights, n_reports: int, *, rng: np.random.Generator, correction=None,
                  alpha: float = 0.05, printed_logic: bool = False) -> DecodedSurvey:
    """One survey as [rappor] §3 runs it: a fresh hashing secret, a population, the reports' bit counts, the decoder.

    ``printed_logic=True`` builds Y_vec with the defective loop of [rappor] Fig. 2
    (:func:`~ldp_helpers.estimation.rappor_decoding.printed_y_vec`); otherwise the exact
    ``sample_aggregate`` and [rappor] Eq. (3).

    References
    ----------
    [rappor] §3; [rappor] Fig. 1; [rappor] Fig. 2; [rappor] Fig. 3.
    """
    rng = check_rng(rng)
    check_instance("params", params, RapporParams)
    check_bool("printed_logic", printed_logic)
    weights = check_real_array("weights", weights, low=0.0, low_open=False)
    mechanism = Rappor.create(params, weights.size, rng=rng)
    truth = cohort_counts(weights, n_reports, params.m, rng=rng)
    if printed_logic:
        y = printed_y_vec(mechanism, truth, int(np.count_nonzero(weights)), rng=rng)
    else:
        y = mechanism.estimate(mechanism.sample_aggregate(truth, rng=rng), mechanism.n_reports(truth)).ravel()
    decoding = decode(mechanism.design_matrix, y, alpha=alpha, correction=correction)
    return DecodedSurvey(*precision_recall(decoding.detected_candidates, int(np.count_nonzero(weights))), decoding)


def decode_surveys(params: RapporParams, weights, n_reports: int, n_draws: int, *, rng: np.random.Generator,
                   **kwargs) -> np.ndarray:
    """``n_draws`` independent :func:`decode_survey` s, an array (n_draws, 4) with :data:`SURVEY_COLUMNS`.

    Columns: precision, recall, the number of candidates the LASSO kept, and the number of
    detected candidates that are not true ones (false detections).  Not one batched
    ``sample_aggregate``: every survey draws its own secret and population, as [rappor] does.

    References
    ----------
    [rappor] §3 ("16 runs" per h).
    """
    n_draws = check_n_draws(n_draws)
    n_true = int(np.count_nonzero(weights))
    surveys = [decode_survey(params, weights, n_reports, rng=rng, **kwargs) for _ in range(n_draws)]
    return np.array([(s.precision, s.recall, s.decoding.candidates.size, np.sum(s.decoding.detected_candidates >= n_true))
                     for s in surveys], dtype=float)


@dataclass(frozen=True)
class EstimatorCheck:
    """Simulated t̂ against its exact mean and variance, per cohort bit (arrays of shape (m, k))."""

    z_mean: np.ndarray  # (mean of t̂ − t) / sqrt(Var[t̂] / n_draws)
    variance_ratio: np.ndarray  # sample variance of t̂ / Var[t̂]
    n_draws: int


def estimator_check(mechanism: Rappor, truth, n_draws: int, *, rng: np.random.Generator) -> EstimatorCheck:
    """``n_draws`` surveys of one population (one batched ``sample_aggregate``): t̂ against [rappor] Eqs. (2)–(3).

    For an unbiased t̂ with the exact variance each z is approximately N(0, 1) and each
    variance ratio has mean 1 and SD about sqrt(2/(n_draws − 1)).

    References
    ----------
    [rappor] Eq. (2); [rappor] Eq. (3).
    """
    n_draws = check_int("n_draws", n_draws, low=2)
    t = check_instance("mechanism", mechanism, Rappor).estimand(truth)
    variance = check_real_array("mechanism.variance(truth)", mechanism.variance(truth), low=0.0)  # a randomized report
    draws = mechanism.estimate(mechanism.sample_aggregate(truth, rng=rng, n_draws=n_draws), mechanism.n_reports(truth))
    z = (draws.mean(axis=0) - t) / np.sqrt(variance / n_draws)
    return EstimatorCheck(z, draws.var(axis=0, ddof=1) / variance, n_draws)


def privacy_comparison(settings, h_values, *, k: int = 8, rng: np.random.Generator) -> np.ndarray:
    """Exact privacy against the closed forms for each ``(f, p, q)`` in ``settings`` and h in ``h_values``.

    Returns an array with :data:`PRIVACY_COLUMNS`: the parameters; ε of one report from the
    whole output table (``privacy_losses`` of the mechanisms); RAPPOR's ε₁; the tutorial's ε₂
    with its printed p'; ε of the memoized B' from its table (the PRR-only mechanism,
    ``RapporParams.prr_only``); and ε∞.  Tables enumerate all 2^k reports (k ≤ 16).  ``rng``
    draws the mechanisms' hashing secrets, which the tables do not depend on.

    References
    ----------
    [erlingsson2014] Theorem 1; [erlingsson2014] Theorem 2; [tutorial] "RAPPOR" (ε₁, ε₂).
    """
    rng = check_rng(rng)
    h_values = check_int_array("h_values", h_values, low=1).ravel()
    settings = check_real_array("settings", settings, low=0.0, high=1.0, low_open=False, high_open=False)
    if settings.ndim != 2 or settings.shape[1] != 3:
        raise ValueError(f"settings must be a sequence of (f, p, q) triples; got an array of shape {settings.shape}")
    grid = [RapporParams(k=k, h=h, m=1, f=f, p=p, q=q) for f, p, q in settings for h in h_values]
    one_report = privacy_losses(Rappor.create(par, 1, rng=rng) for par in grid)
    permanent = privacy_losses(Rappor.create(par.prr_only(), 1, rng=rng) for par in grid)
    closed = [(par.f, par.p, par.q, par.h, par.epsilon_one_report, tutorial_printed_epsilon_one_report(par),
               par.epsilon_permanent) for par in grid]
    rows = [(*c[:4], one, *c[4:6], perm, c[6]) for c, one, perm in zip(closed, one_report, permanent)]
    return np.array(rows, dtype=float)
