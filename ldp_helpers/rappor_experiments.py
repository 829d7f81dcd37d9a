"""Seed 001's experiment: Zipf population, one decoding run, precision/recall, detection threshold.

Also the seed's printed Y_vec construction (Figure 2), kept *with its defect* so the notebook can
show what it does: the normalization ``(Y − p·N_j)/(q − p)`` sits inside the loop over
candidates, so each cohort's block is re-normalized once per candidate instead of once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._validation import check_int, check_real, check_rng
from .rappor import RapporParams
from .rappor_decoding import (
    CandidateDesign,
    Decoding,
    cohort_sizes,
    decode,
    design_matrix,
    estimate_bit_counts,
    simulate_bit_counts,
)


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
    counts = np.asarray(counts)
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
    detected = np.asarray(detected)
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
    decoding = decode(design.matrix, y, alpha=alpha, correction=correction)
    n_true = int(np.count_nonzero(weights))
    return Trial(*precision_recall(decoding.detected_candidates, n_true), decoding)


def run_trials(params: RapporParams, weights, n_reports: int, n_runs: int, *, rng: np.random.Generator, **kwargs) -> np.ndarray:
    """``n_runs`` independent :func:`run_trial` s; returns an array (n_runs, 2) of (precision, recall)."""
    n_runs = check_int("n_runs", n_runs, low=1)
    trials = [run_trial(params, weights, n_reports, rng=rng, **kwargs) for _ in range(n_runs)]
    return np.array([(t.precision, t.recall) for t in trials])


def detection_threshold(design: CandidateDesign, n_reports: int, *, alpha: float = 0.05, n_tests: int = 1,
                        power: float = 0.5) -> np.ndarray:
    """Smallest frequency π_w each candidate needs to be detected with probability ``power``.

    OLS on all M candidates with the null noise ``Var[t̂_ij] = N_j p*(1−p*)/(q*−p*)²`` gives
    ``SE(β̂_w) = σ·sqrt([(XᵀX)⁺]_ww)``; a per-cohort count β_w is detected with probability
    ``power`` when β_w = (z_{1−α/n_tests} + z_power)·SE, i.e. π_w = β_w / N_j.  Without
    collisions (XᵀX ≈ h·m·I) this is ``(z_{1−α'} + z_power)·sqrt(p*(1−p*))/((q*−p*)·sqrt(N·h))``.
    A guide, not a guarantee: the t-test estimates σ and the LASSO sees only the kept columns.
    """
    params = design.params
    n_reports = check_int("n_reports", n_reports, low=params.m)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0)
    n_tests = check_int("n_tests", n_tests, low=1)
    power = check_real("power", power, low=0.0, high=1.0)
    n_j = n_reports / params.m
    sigma = np.sqrt(n_j * params.p_star * (1 - params.p_star)) / (params.q_star - params.p_star)
    X = design.matrix.astype(float)
    se = sigma * np.sqrt(np.diag(np.linalg.pinv(X.T @ X)))
    z = stats.norm.isf(alpha / n_tests) + stats.norm.ppf(power)
    return z * se / n_j
