"""RAPPOR decoding: Y ≈ Xβ, LASSO → OLS → one-sided t-test, and the printed Y_vec loop of [rappor] Fig. 2.

The server sees, per cohort j and Bloom bit i, the count c_ij of reports with S_i = 1 (the
:class:`~ldp_helpers.mechanisms.rappor.Rappor` aggregate) and estimates the true bit counts by
``t̂_ij = (c_ij − p* N_j)/(q* − p*)`` (``Rappor.estimate``, [rappor] Eq. (3)).  Stacking the t̂_ij
of all cohorts gives Y (length k·m, cohort-major: row ``j·k + i``) and the candidates' Bloom
filters give X (``Rappor.design_matrix``, k·m × M), so ``Y ≈ Xβ`` where β_w is candidate w's
count *per cohort*.  The decoder selects candidates by a non-negative LASSO, refits them by OLS
and tests β_w > 0 ([erlingsson2014] §4).

References
----------
[rappor] §2–3; [rappor] Fig. 2; [rappor] Fig. 3; [erlingsson2014] §4.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats
from sklearn.linear_model import Lasso
from statsmodels.regression.linear_model import OLS
from statsmodels.stats.multitest import multipletests
from threadpoolctl import threadpool_limits

from ldp_helpers._validation import (
    check_allocation,
    check_bool,
    check_instance,
    check_int,
    check_real,
    check_real_array,
    check_rng,
    fail,
    fail_shape,
)
from ldp_helpers.mechanisms.rappor import Rappor

CORRECTIONS = (None, "bonferroni", "bh")
#: [rappor] §3: the LASSO's penalty and the coefficient below which a candidate is dropped
LASSO_ALPHA, DROP_BELOW = 0.1, 1e-3


def identical_filter_pairs(mechanism: Rappor, cohort: int | None = None) -> int:
    """Number of candidate pairs with identical Bloom filters in ``cohort`` (in every cohort if None).

    Such pairs are indistinguishable to the decoder; cohorts exist to make them rare ([rappor] §2).
    """
    check_instance("mechanism", mechanism, Rappor)
    if cohort is None:
        columns = mechanism.design_matrix.T
    else:
        columns = mechanism.blooms[check_int("cohort", cohort, low=0, high=mechanism.params.m - 1)]
    _, group_sizes = np.unique(columns, axis=0, return_counts=True)
    return int(np.sum(group_sizes * (group_sizes - 1) // 2))


def printed_y_vec(
    mechanism: Rappor,
    truth,
    n_active: int,
    *,
    rng: np.random.Generator,
    normalize_inside_loop: bool = True,
) -> np.ndarray:
    """The Y_vec of [rappor] Fig. 2, literally: per-candidate binomials, then normalization (IRR only, f = 0).

    With ``normalize_inside_loop=True`` (as printed) each cohort block is updated
    ``Y ← (Y + draws_w − p·N_j)/(q − p)`` once per active candidate w, which multiplies the
    early candidates' terms by (q − p)^−(#candidates); with ``False`` the normalization runs once
    after the loop (the fix), giving the unbiased t̂ of [rappor] Eq. (3).  The loop runs over the first
    ``n_active`` candidates (the ``counts[:ACTIVE_WORDS]`` of [rappor] Fig. 2).

    References
    ----------
    [rappor] Fig. 2; [rappor] Eq. (3).
    """
    rng = check_rng(rng)
    params = check_instance("mechanism", mechanism, Rappor).params
    counts, n_j = mechanism.check_truth(truth)
    n_active = check_int("n_active", n_active, low=1, high=mechanism.n_candidates)
    check_bool("normalize_inside_loop", normalize_inside_loop)
    check_real("mechanism.params.f", params.f, low=0.0, high=0.0, low_open=False, high_open=False)
    y = np.zeros((params.m, params.k))
    for j in range(params.m):
        for w in range(n_active):
            y[j] += rng.binomial(
                counts[j, w], np.where(mechanism.blooms[j, w] == 1, params.q, params.p)
            )
            if normalize_inside_loop:
                y[j] = (y[j] - params.p * n_j[j]) / (params.q - params.p)
    if not normalize_inside_loop:
        y = (y - params.p * n_j[:, None]) / (params.q - params.p)
    return y.ravel()


# ------------------------------------------------------------------ decoder


@dataclass(frozen=True)
class Decoding:
    """Result of :func:`decode`: the LASSO-kept candidates and, for each, OLS estimate, SE and p-value.

    ``estimates`` are per-cohort counts β_w (multiply by m for the total count).  ``p_values``
    are one-sided (H1: β_w > 0) and already adjusted by ``correction``; ``detected`` marks
    ``p_values < alpha``.
    """

    candidates: np.ndarray
    estimates: np.ndarray
    std_errors: np.ndarray
    p_values: np.ndarray
    detected: np.ndarray
    alpha: float
    correction: str | None

    @property
    def detected_candidates(self) -> np.ndarray:
        return self.candidates[self.detected]


def decode(
    X,
    y,
    *,
    alpha: float = 0.05,
    correction: str | None = None,
    lasso_alpha: float = LASSO_ALPHA,
    drop_below: float = DROP_BELOW,
) -> Decoding:
    """LASSO (non-negative, no intercept) → OLS on kept candidates → one-sided t-test.

    Parameters
    ----------
    X : array_like, shape (k·m, M)
        Design matrix (``Rappor.design_matrix``).
    y : array_like, shape (k·m,)
        Stacked bit-count estimates t̂ (``Rappor.estimate(...).ravel()``).
    alpha : float
        Significance level of the one-sided test, in (0, 1).
    correction : None, "bonferroni" or "bh"
        Multiple-testing correction over all M candidates (dropped ones count as p = 1).
    lasso_alpha, drop_below : float
        scikit-learn's LASSO penalty and the coefficient below which a candidate is dropped.

    References
    ----------
    [rappor] §2–3; [rappor] Fig. 2; [erlingsson2014] §4 (LASSO selection, OLS, Bonferroni-corrected t-tests).
    """
    X, y = _check_regression(X, y)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0)
    lasso_alpha = check_real("lasso_alpha", lasso_alpha, low=0.0)
    drop_below = check_real("drop_below", drop_below, low=0.0)
    correction = check_correction(correction)
    # Small dense problems: BLAS threads only contend with each other (and other processes).
    with threadpool_limits(limits=1):
        # random_state fixed: without it scikit-learn draws from NumPy's global generator (no hidden state here)
        lasso = Lasso(
            alpha=lasso_alpha, positive=True, fit_intercept=False, max_iter=10_000, random_state=0
        ).fit(X, y)
        kept = np.flatnonzero(lasso.coef_ >= drop_below)
        if kept.size == 0:
            empty = np.zeros(0)
            return Decoding(kept, empty, empty, empty, np.zeros(0, bool), alpha, correction)
        if kept.size >= X.shape[0]:
            raise ValueError(
                f"the LASSO kept {kept.size} candidates but y has only {X.shape[0]} rows (k·m): OLS needs more rows "
                f"than kept candidates; increase k or m, or the LASSO penalty"
            )
        ols = OLS(y, X[:, kept]).fit()
    p_one_sided = stats.t.sf(ols.tvalues, ols.df_resid)
    p_values = _adjust(p_one_sided, kept, X.shape[1], alpha, correction)
    return Decoding(kept, ols.params, ols.bse, p_values, p_values < alpha, alpha, correction)


def total_counts(
    decoding: Decoding, m: int, n_candidates: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every candidate's estimated count over all cohorts, m·β̂_w, its SE m·SE(β̂_w) and its p-value.

    Y stacks the m cohorts' t̂ ([rappor] Eq. (3)) and ``Y ≈ Xβ`` ([rappor] §2), so β_w counts
    candidate w's reports *per cohort*; with the reports spread evenly over the cohorts
    (N_j = N/m) its count over all of them is m·β_w.  A candidate the LASSO dropped is not
    estimated: the selection fixes β_w = 0 and the OLS refit leaves it out, so it gets estimate 0,
    SE 0 (no error bar: no OLS estimate) and p-value 1 — never NaN.  Arrays of length
    ``n_candidates`` (M).  ``m``: the cohorts decoded (:func:`decode_aggregate` leaves out cohorts
    without reports).

    References
    ----------
    [rappor] §2, Eq. (3); [erlingsson2014] §4.
    """
    check_instance("decoding", decoding, Decoding)
    m = check_int("m", m, low=1)
    low = int(decoding.candidates.max()) + 1 if decoding.candidates.size else 1
    n_candidates = check_int("n_candidates", n_candidates, low=low)
    check_allocation("n_candidates", n_candidates, n_candidates)
    estimate, p_value = np.zeros(n_candidates), np.ones(n_candidates)
    std_error = np.zeros(n_candidates)  # a dropped candidate: not estimated, SE 0 (never NaN)
    estimate[decoding.candidates] = m * decoding.estimates
    std_error[decoding.candidates] = m * decoding.std_errors
    p_value[decoding.candidates] = decoding.p_values
    return estimate, std_error, p_value


def decode_aggregate(
    mechanism: Rappor,
    aggregate,
    n,
    *,
    alpha: float = 0.05,
    correction: str | None = None,
    lasso_alpha: float = LASSO_ALPHA,
    drop_below: float = DROP_BELOW,
) -> Decoding:
    """Decode reported bit counts c (m, k) of cohorts of sizes ``n`` (m,): :func:`decode` on the cohorts with reports.

    A cohort without reports says nothing about the candidates: its k rows (estimate 0 whatever the truth) are
    left out of ``y ≈ Xβ``, as google/rappor's decoder does (``filter_cohorts``); kept in, they would pull every
    β toward 0.  β stays the count *per cohort*.  At least one cohort must have reports.

    References
    ----------
    [rappor] Eq. (3); [erlingsson2014] §4 (google/rappor ``analysis/R/decode.R``, ``Decode``).
    """
    check_instance("mechanism", mechanism, Rappor)
    estimates = mechanism.estimate(aggregate, n)
    if estimates.ndim != 2:
        fail_shape(
            "aggregate",
            np.shape(aggregate),
            f"one survey's bit counts, shape (m={mechanism.params.m}, k={mechanism.params.k})",
        )
    sizes = np.asarray(n)
    if not sizes.any():
        fail("n (cohort sizes)", sizes, "cohort sizes with at least one report in some cohort")
    kept = sizes > 0
    X = mechanism.blooms[kept].transpose(0, 2, 1).reshape(-1, mechanism.n_candidates).astype(float)
    return decode(
        X,
        estimates[kept].ravel(),
        alpha=alpha,
        correction=correction,
        lasso_alpha=lasso_alpha,
        drop_below=drop_below,
    )


def _adjust(p, kept, n_candidates, alpha, correction):
    if correction is None:
        return p
    if correction == "bonferroni":
        return np.minimum(p * n_candidates, 1.0)
    full = np.ones(n_candidates)
    full[kept] = p
    return multipletests(full, alpha=alpha, method="fdr_bh")[1][kept]


# ------------------------------------------------------------------ validation


def check_correction(correction) -> str | None:
    """A multiple-testing correction of :func:`decode`: one of :data:`CORRECTIONS` (None: none)."""
    if correction not in CORRECTIONS:
        fail("correction", correction, f"one of {CORRECTIONS}")
    return correction


def _check_regression(X, y):
    X = check_real_array("X", X, ndim=2, what="design matrix (k·m rows × M candidates)")
    check_int("X.shape[0] (rows k·m)", X.shape[0], low=2)
    y = check_real_array("y", y, ndim=1, last=X.shape[0], what="(one entry per row of X)")
    return X, y
