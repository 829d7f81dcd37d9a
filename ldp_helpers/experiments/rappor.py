"""Seed 001's experiment: Zipf population, one decoding run, precision/recall, detection threshold.

Also the notebook's exact checks as functions: privacy tables vs closed forms, the estimator's
z-scores and variance ratios, and the number of candidate pairs whose Bloom filters collide.

Also the seed's printed Y_vec construction (Figure 2), kept *with its defect* so the notebook can
show what it does: the normalization ``(Y − p·N_j)/(q − p)`` sits inside the loop over
candidates, so each cohort's block is re-normalized once per candidate instead of once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ldp_helpers._validation import Described, check_int, check_int_array, check_real, check_rng, fail
from ldp_helpers.estimation.pure import count_variance
from ldp_helpers.mechanisms.rappor import RapporParams, exact_privacy, tutorial_printed_epsilon_one_report
from ldp_helpers.estimation.rappor_decoding import (
    CandidateDesign,
    Decoding,
    bit_count_variance,
    check_cohort_counts,
    cohort_sizes,
    decode,
    design_matrix,
    estimate_bit_counts,
    simulate_bit_counts,
    true_bit_counts,
)

#: columns of :func:`run_trials`
TRIAL_COLUMNS = ("precision", "recall", "n_kept", "n_false")
#: columns of :func:`privacy_comparison`
PRIVACY_COLUMNS = ("f", "p", "q", "h", "eps_table", "eps1", "eps1_tutorial", "eps_inf_table", "eps_inf")


def zipf_weights(n_candidates: int, n_active: int, exponent: float) -> np.ndarray:
    """Seed 001's ``get_word_probs``: the first ``n_active`` candidates ∝ 1/r^exponent, the rest 0."""
    n_candidates = check_int("n_candidates", n_candidates, low=1)
    n_active = check_int("n_active", n_active, low=1, high=n_candidates)
    exponent = check_real("exponent", exponent, low=0.0, low_open=False)
    w = np.zeros(n_candidates)
    w[:n_active] = np.arange(1, n_active + 1, dtype=float) ** -exponent
    return w / w.sum()


def cohort_counts(weights, n_reports: int, m: int, *, rng: np.random.Generator) -> np.ndarray:
    """Seed 001's ``simulate_word_counts``: cohort j draws Multinomial(N_j, weights); shape (m, M)."""
    rng = check_rng(rng)
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 1 or weights.size < 1 or np.any(weights < 0) or not np.isclose(weights.sum(), 1.0):
        raise ValueError(f"weights must be a non-empty 1-D probability vector (non-negative, summing to 1); got shape {weights.shape}")
    return np.stack([rng.multinomial(n_j, weights) for n_j in cohort_sizes(n_reports, m)])


def printed_y_vec(design: CandidateDesign, counts, n_active: int, *, rng: np.random.Generator,
                  normalize_inside_loop: bool = True) -> np.ndarray:
    """Seed 001 Figure 2's Y_vec, literally: per-candidate binomials, then normalization.

    With ``normalize_inside_loop=True`` (as printed) each cohort block is updated
    ``Y ← (Y + draws_w − p·N_j)/(q − p)`` once per active candidate w, which multiplies the
    early candidates' terms by (q − p)^−(#candidates); with ``False`` the normalization runs once
    after the loop (the fix), giving the unbiased t̂ of Eq. (3).  The loop runs over the first
    ``n_active`` candidates (the seed's ``counts[:ACTIVE_WORDS]``).  IRR only (f = 0).
    """
    rng = check_rng(rng)
    params = design.params
    if params.f != 0:
        raise ValueError(f"printed_y_vec reproduces the IRR-only code of seed 001 and needs f = 0; got f={params.f!r}")
    counts = check_cohort_counts(design, counts)
    n_active = check_int("n_active", n_active, low=1, high=design.n_candidates)
    blocks = design.cohort_blocks()
    n_j = counts.sum(axis=1)
    y = np.zeros((params.m, params.k))
    for j in range(params.m):
        for w in range(n_active):
            y[j] += rng.binomial(counts[j, w], np.where(blocks[j][:, w] == 1, params.q, params.p))
            if normalize_inside_loop:
                y[j] = (y[j] - params.p * n_j[j]) / (params.q - params.p)
        if not normalize_inside_loop:
            y[j] = (y[j] - params.p * n_j[j]) / (params.q - params.p)
    return y.ravel()


@dataclass(frozen=True)
class Trial:
    """One decoding run: precision and recall as seed 001 defines them, and the decoding itself."""

    precision: float
    recall: float
    decoding: Decoding


def precision_recall(detected, n_true: int) -> tuple[float, float]:
    """Seed 001's scores: candidates ``0..n_true−1`` are the true ones; precision is 0 if nothing is detected."""
    n_true = check_int("n_true", n_true, low=1)
    detected = np.asarray(detected)
    if detected.size:
        detected = check_int_array("detected", detected, low=0)
    tp = int(np.sum(detected < n_true))
    precision = tp / detected.size if detected.size else 0.0
    return precision, tp / n_true


def run_trial(params: RapporParams, weights, n_reports: int, *, rng: np.random.Generator, correction=None,
              alpha: float = 0.05, printed_logic: bool = False) -> Trial:
    """A fresh design (new secret), a population, the reports' bit counts, and the decoder.

    ``printed_logic=True`` builds Y_vec with the seed's defective loop (:func:`printed_y_vec`);
    otherwise the exact aggregate path and Eq. (3).
    """
    rng = check_rng(rng)
    weights = np.asarray(weights, dtype=float)
    design = design_matrix(params, weights.size, rng=rng)
    counts = cohort_counts(weights, n_reports, params.m, rng=rng)
    if printed_logic:
        y = printed_y_vec(design, counts, int(np.count_nonzero(weights)), rng=rng)
    else:
        y = estimate_bit_counts(simulate_bit_counts(design, counts, rng=rng), counts.sum(axis=1), params).ravel()
    decoding = decode(design.matrix, y, alpha=alpha, correction=correction, params=params)
    n_true = int(np.count_nonzero(weights))
    return Trial(*precision_recall(decoding.detected_candidates, n_true), decoding)


def run_trials(params: RapporParams, weights, n_reports: int, n_runs: int, *, rng: np.random.Generator, **kwargs) -> np.ndarray:
    """``n_runs`` independent :func:`run_trial` s, an array (n_runs, 4) with :data:`TRIAL_COLUMNS`.

    Columns: precision, recall, the number of candidates the LASSO kept, and the number of
    detected candidates that are not true ones (false detections).
    """
    n_runs = check_int("n_runs", n_runs, low=1)
    n_true = int(np.count_nonzero(weights))
    trials = [run_trial(params, weights, n_reports, rng=rng, **kwargs) for _ in range(n_runs)]
    return np.array([(t.precision, t.recall, t.decoding.candidates.size, np.sum(t.decoding.detected_candidates >= n_true))
                     for t in trials], dtype=float)


def detection_threshold(design: CandidateDesign, n_reports, *, alpha: float = 0.05, n_tests: int = 1,
                        power: float = 0.5) -> np.ndarray:
    """Smallest frequency π_w each candidate needs to be detected with probability ``power``.

    OLS on all M candidates with the null noise ``σ² = Var[t̂_ij | t_ij = 0] = N_j p*(1−p*)/(q*−p*)²``
    gives ``SE(β̂_w) = σ·sqrt([(XᵀX)⁺]_ww)``; a per-cohort count β_w is detected with probability
    ``power`` when β_w = (z_{1−α/n_tests} + z_power)·SE, i.e. π_w = β_w / N_j with N_j = N/m.
    ``n_reports`` may be an array: the result has shape ``(*n_reports.shape, M)``.
    A guide, not a guarantee: the t-test estimates σ and the LASSO sees only the kept columns.

    References
    ----------
    RAPPOR §4 (OLS standard errors and t-tests); seed 001 §2 (the regression Y ≈ Xβ).
    """
    n_j, z = _threshold_inputs(design.params, n_reports, alpha, n_tests, power)
    X = design.matrix.astype(float)
    leverage = np.sqrt(np.diag(np.linalg.pinv(X.T @ X)))
    return z * _null_sd(n_j, design.params)[..., None] * leverage / n_j[..., None]


def detection_threshold_without_collisions(params: RapporParams, n_reports, *, alpha: float = 0.05,
                                           n_tests: int = 1, power: float = 0.5) -> np.ndarray:
    """:func:`detection_threshold` for a collision-free design (XᵀX = h·m·I), one value per N.

    ``π_min = (z_{1−α/n_tests} + z_power)·sqrt(p*(1−p*)) / ((q*−p*)·sqrt(N h))``: independent of m.
    """
    n_j, z = _threshold_inputs(params, n_reports, alpha, n_tests, power)
    return z * _null_sd(n_j, params) / np.sqrt(params.h * params.m) / n_j


def _threshold_inputs(params, n_reports, alpha, n_tests, power):
    n_reports = check_int_array("n_reports", n_reports, low=params.m)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0)
    n_tests = check_int("n_tests", n_tests, low=1)
    power = check_real("power", power, low=0.0, high=1.0)
    return n_reports / params.m, stats.norm.isf(alpha / n_tests) + stats.norm.ppf(power)


def _null_sd(n_j, params: RapporParams):
    """SD of t̂_ij for a bit no report sets (t = 0): the pure-LDP count variance at true count 0."""
    return np.sqrt(count_variance(0.0, n_j, params.q_star, params.p_star))


# ------------------------------------------------------------------ notebook checks


def identical_filter_pairs(design: CandidateDesign, cohort: int | None = None) -> int:
    """Number of candidate pairs with identical Bloom filters in ``cohort`` (in every cohort if None)."""
    if cohort is None:
        columns = design.matrix.T
    else:
        columns = design.cohort_blocks()[check_int("cohort", cohort, low=0, high=design.params.m - 1)].T
    _, group_sizes = np.unique(columns, axis=0, return_counts=True)
    return int(np.sum(group_sizes * (group_sizes - 1) // 2))


@dataclass(frozen=True)
class EstimatorCheck:
    """Simulated t̂ against its exact mean and variance, per cohort bit (arrays of shape (m, k))."""

    z_mean: np.ndarray  # (mean of t̂ − t) / sqrt(Var[t̂] / n_draws)
    variance_ratio: np.ndarray  # sample variance of t̂ / Var[t̂]
    n_draws: int


def estimator_check(design: CandidateDesign, counts, n_draws: int, *, rng: np.random.Generator) -> EstimatorCheck:
    """Draw ``n_draws`` exact bit-count collections of one population and compare t̂ with Eqs. (2)–(3).

    For an unbiased t̂ with the exact variance, each z is approximately N(0, 1) and each
    variance ratio has mean 1 and SD about sqrt(2/(n_draws − 1)).
    """
    n_draws = check_int("n_draws", n_draws, low=2)
    params = design.params
    counts = check_cohort_counts(design, counts)
    t, sizes = true_bit_counts(design, counts), counts.sum(axis=1)
    variance = bit_count_variance(t, sizes, params)
    if np.any(variance == 0):
        fail("design", Described(f"parameters with p*={params.p_star}, q*={params.q_star}"),
             "a randomized report (Var[t̂] > 0 for every bit) to compare variances")
    draws = estimate_bit_counts(simulate_bit_counts(design, counts, rng=rng, n_draws=n_draws), sizes, params)
    z = (draws.mean(axis=0) - t) / np.sqrt(variance / n_draws)
    return EstimatorCheck(z, draws.var(axis=0, ddof=1) / variance, n_draws)


def privacy_comparison(settings, h_values, *, k: int = 8) -> np.ndarray:
    """Exact privacy vs closed forms for each ``(f, p, q)`` in ``settings`` and h in ``h_values``.

    Returns an array with :data:`PRIVACY_COLUMNS`: the parameters, ε of one report from the
    whole output table, RAPPOR's ε₁, the tutorial's ε₂ with its printed p', the memoized B'
    from its table, and ε∞.  Tables enumerate all 2^k reports (k ≤ 16).
    """
    rows = []
    for f, p, q in settings:
        for h in h_values:
            par = RapporParams(k=k, h=h, m=1, f=f, p=p, q=q)
            exact = exact_privacy(par)
            rows.append((f, p, q, h, exact.one_report, par.epsilon_one_report, tutorial_printed_epsilon_one_report(par),
                         exact.permanent, par.epsilon_permanent))
    return np.array(rows, dtype=float)
