"""RAPPOR decoding: design matrix, exact aggregate simulation, bit-count estimator, LASSO→OLS decoder.

The server sees, per cohort j and Bloom bit i, the number c_ij of reports with S_i = 1.  With
t_ij the number of cohort-j reports whose *true* Bloom filter has bit i set,
``E[c_ij] = q* t_ij + p*(N_j − t_ij)`` (seed 001 Eq. 2), hence the unbiased estimate
``t̂_ij = (c_ij − p* N_j)/(q* − p*)`` (Eq. 3; ``q* = q, p* = p`` without PRR).  Stacking the
t̂_ij of all cohorts gives Y (length k·m, cohort-major: row ``j·k + i``) and the candidates'
Bloom filters give X (k·m × M), so ``Y ≈ Xβ`` where β_w is candidate w's count *per cohort*.

The count estimator and its variance are the pure-LDP ones of :mod:`ldp_helpers.estimation.pure` with
support probabilities q* (bit set) and p* (bit unset).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import statsmodels.api as sm
from scipy import stats
from sklearn.linear_model import Lasso
from statsmodels.stats.multitest import multipletests
from threadpoolctl import threadpool_limits

from ldp_helpers._validation import Described, check_int, check_int_array, check_real, check_real_array, check_rng, fail
from ldp_helpers.estimation.pure import count_variance, unbiased_count
from ldp_helpers.mechanisms.rappor import RapporParams, draw_secret, hash_indices

CORRECTIONS = (None, "bonferroni", "bh")


@dataclass(frozen=True)
class CandidateDesign:
    """The design matrix X (k·m × M) of M candidates, with the secret that keyed its hashes."""

    params: RapporParams
    secret: str
    matrix: np.ndarray  # X[j·k + i, w] = bit i of candidate w's Bloom filter in cohort j

    @property
    def n_candidates(self) -> int:
        return self.matrix.shape[1]

    def cohort_blocks(self) -> np.ndarray:
        """X as an array (m, k, M): ``blocks[j]`` holds cohort j's Bloom filters as columns."""
        return self.matrix.reshape(self.params.m, self.params.k, self.n_candidates)

    @cached_property
    def _float_blocks(self) -> np.ndarray:
        """:meth:`cohort_blocks` as float64 (computed once) for BLAS products with counts."""
        blocks = self.cohort_blocks().astype(np.float64)
        blocks.setflags(write=False)
        return blocks


def design_matrix(params: RapporParams, n_candidates: int, *, rng: np.random.Generator) -> CandidateDesign:
    """Seed 001's ``create_design_matrix``: per-cohort SHA-256 Bloom filters of every candidate.

    The secret is drawn from ``rng`` (the seed uses the global ``np.random.random()``), so the
    same Generator state gives the same matrix.

    References
    ----------
    Seed 001, Figure 3; RAPPOR §4 (candidate strings, design matrix X).
    """
    n_candidates = check_int("n_candidates", n_candidates, low=1)
    secret = draw_secret(rng=rng)
    matrix = np.zeros((params.m, params.k, n_candidates), dtype=np.int8)
    columns = np.arange(n_candidates)[:, None]
    for j in range(params.m):
        matrix[j, hash_indices(secret, j, n_candidates, params), columns] = 1
    return CandidateDesign(params, secret, matrix.reshape(params.m * params.k, n_candidates))


def cohort_sizes(n_reports: int, m: int) -> np.ndarray:
    """Near-equal cohort sizes N_j summing to N (``N // m`` each when m divides N, as in the seed)."""
    n_reports = check_int("n_reports", n_reports, low=1)
    m = check_int("m", m, low=1, high=n_reports)
    return n_reports // m + (np.arange(m) < n_reports % m)


def true_bit_counts(design: CandidateDesign, counts) -> np.ndarray:
    """t_ij = Σ_w X[j·k+i, w] · counts[j, w]: reports in cohort j whose Bloom bit i is set, shape (m, k)."""
    return _true_bit_counts(design, check_cohort_counts(design, counts))


def _true_bit_counts(design: CandidateDesign, counts: np.ndarray) -> np.ndarray:
    # 0/1 Bloom bits times checked counts (total below 2^53): every partial sum is an exact double
    return np.rint(np.matmul(design._float_blocks, counts[:, :, None].astype(np.float64))[..., 0]).astype(np.int64)


def simulate_bit_counts(design: CandidateDesign, counts, *, rng: np.random.Generator,
                        n_draws: int | None = None) -> np.ndarray:
    """Exact aggregate path: ``c_ij = Bin(t_ij, q*) + Bin(N_j − t_ij, p*)``, shape (m, k).

    Given its Bloom filter each reported bit is an independent Bernoulli(q* or p*), so the
    per-bit sums are independent binomials: the same joint law as summing per-report clients.
    With ``n_draws`` the result has shape (n_draws, m, k): independent collections of the
    same population's reports.
    """
    rng = check_rng(rng)
    params = design.params
    counts = check_cohort_counts(design, counts)
    t = _true_bit_counts(design, counts)
    n_j = counts.sum(axis=1)[:, None]
    size = None if n_draws is None else (check_int("n_draws", n_draws, low=1), *t.shape)
    return rng.binomial(t, params.q_star, size=size) + rng.binomial(n_j - t, params.p_star, size=size)


def simulate_bit_counts_per_report(design: CandidateDesign, counts, *, rng: np.random.Generator) -> np.ndarray:
    """Reference path: every report runs the client (Bloom → PRR → IRR); returns the bit sums (m, k)."""
    rng = check_rng(rng)
    counts = check_cohort_counts(design, counts)
    blocks = design.cohort_blocks()
    sums = []
    for j, row in enumerate(counts):
        values = np.repeat(np.arange(design.n_candidates), row)
        sums.append(design.params.report(blocks[j][:, values].T, rng=rng).sum(axis=0, dtype=np.int64))
    return np.array(sums)


def estimate_bit_counts(bit_counts, sizes, params: RapporParams) -> np.ndarray:
    """``t̂_ij = (c_ij − p* N_j)/(q* − p*)`` (seed 001 Eq. 3), shape (m, k) (or (..., m, k) for stacked draws).

    References
    ----------
    Seed 001 Eqs. (2)–(3); RAPPOR §4 (with PRR: p* = p + ½f(q − p), q* − p* = (1 − f)(q − p)).
    """
    c, n_j = _check_bit_counts(bit_counts, sizes, params)
    return unbiased_count(c, n_j, params.q_star, params.p_star)


def bit_count_variance(true_counts, sizes, params: RapporParams) -> np.ndarray:
    """Exact ``Var[t̂_ij] = (t q*(1−q*) + (N_j − t) p*(1−p*))/(q* − p*)²`` for true counts t."""
    t, n_j = _check_bit_counts(true_counts, sizes, params)
    return count_variance(t, n_j, params.q_star, params.p_star)


def bit_count_se(estimates, sizes, params: RapporParams) -> np.ndarray:
    """Plug-in standard error of t̂_ij: the exact variance evaluated at t̂ clamped to [0, N_j].

    The clamp only keeps the plug-in variance a variance (an estimate outside [0, N_j] is not a
    possible count); the estimates themselves are never altered.
    """
    n_j = _check_sizes(sizes, params)[:, None]
    t = check_real_array("estimates", estimates)
    if t.shape != (params.m, params.k):
        fail("estimates", Described(f"an array of shape {t.shape}"), f"an array of shape (m, k) = ({params.m}, {params.k})")
    return np.sqrt(count_variance(np.clip(t, 0.0, n_j), n_j, params.q_star, params.p_star))


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


def decode(X, y, *, alpha: float = 0.05, correction: str | None = None, lasso_alpha: float = 0.1,
           drop_below: float = 1e-3, params: RapporParams | None = None) -> Decoding:
    """LASSO (non-negative, no intercept) → OLS on kept candidates → one-sided t-test.

    Parameters
    ----------
    X : array_like, shape (k·m, M)
        Design matrix (:attr:`CandidateDesign.matrix`).
    y : array_like, shape (k·m,)
        Stacked bit-count estimates t̂ (:func:`estimate_bit_counts` ``.ravel()``).
    alpha : float
        Significance level of the one-sided test, in (0, 1).
    correction : None, "bonferroni" or "bh"
        Multiple-testing correction over all M candidates (dropped ones count as p = 1).
    lasso_alpha, drop_below : float
        scikit-learn's LASSO penalty and the coefficient below which a candidate is dropped.
    params : RapporParams, optional
        When given, X must have exactly k·m rows (one per cohort and Bloom bit).

    References
    ----------
    Seed 001 §2–3 and Figure 2; RAPPOR §4 (LASSO selection, OLS, Bonferroni-corrected t-tests).
    """
    X, y = _check_regression(X, y, params)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0)
    lasso_alpha = check_real("lasso_alpha", lasso_alpha, low=0.0)
    drop_below = check_real("drop_below", drop_below, low=0.0)
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}; got {correction!r}")
    # Small dense problems: BLAS threads only contend with each other (and other processes).
    with threadpool_limits(limits=1):
        lasso = Lasso(alpha=lasso_alpha, positive=True, fit_intercept=False, max_iter=10_000).fit(X, y)
        kept = np.flatnonzero(lasso.coef_ >= drop_below)
        if kept.size == 0:
            empty = np.zeros(0)
            return Decoding(kept, empty, empty, empty, np.zeros(0, bool), alpha, correction)
        if kept.size >= X.shape[0]:
            raise ValueError(
                f"the LASSO kept {kept.size} candidates but y has only {X.shape[0]} rows (k·m): OLS needs more rows "
                f"than kept candidates; increase k or m, or the LASSO penalty"
            )
        ols = sm.OLS(y, X[:, kept]).fit()
    p_one_sided = stats.t.sf(ols.tvalues, ols.df_resid)
    p_values = _adjust(p_one_sided, kept, X.shape[1], alpha, correction)
    return Decoding(kept, ols.params, ols.bse, p_values, p_values < alpha, alpha, correction)


def _adjust(p, kept, n_candidates, alpha, correction):
    if correction is None:
        return p
    if correction == "bonferroni":
        return np.minimum(p * n_candidates, 1.0)
    full = np.ones(n_candidates)
    full[kept] = p
    return multipletests(full, alpha=alpha, method="fdr_bh")[1][kept]


# ------------------------------------------------------------------ validation


def check_cohort_counts(design: CandidateDesign, counts) -> np.ndarray:
    """Reports per cohort and candidate: non-negative integers of shape (m, M), N_j ≥ 1 in every cohort."""
    arr = check_int_array("counts", counts, low=0, shape=(design.params.m, design.n_candidates))
    sizes = arr.sum(axis=1)
    if np.any(sizes < 1):
        fail("counts", Described("a cohort with no reports"), "at least one report (N_j >= 1) per cohort")
    if sizes.sum() >= 2**53:
        fail("counts", Described(f"a total of {sizes.sum()} reports"), "fewer than 2^53 reports in all (exact in double precision)")
    return arr


def _check_sizes(sizes, params: RapporParams) -> np.ndarray:
    return check_int_array("sizes", sizes, low=1, shape=(params.m,))


def _check_bit_counts(bit_counts, sizes, params: RapporParams):
    n_j = _check_sizes(sizes, params)
    c = check_int_array("bit_counts", bit_counts, low=0)
    if c.shape[-2:] != (params.m, params.k):
        fail("bit_counts", Described(f"an array of shape {c.shape}"), f"an array of shape (m, k) = ({params.m}, {params.k})")
    if np.any(c > n_j[:, None]):
        fail("bit_counts", Described("a count above its cohort size"), "counts in [0, N_j]")
    return c, n_j[:, None]


def _check_regression(X, y, params: RapporParams | None):
    shape = np.shape(X)
    if len(shape) != 2 or shape[1] < 1 or shape[0] < 2:
        fail("X", Described(f"an array of shape {shape}"), "a 2-D design matrix with M >= 1 columns and k·m >= 2 rows")
    X = check_real_array("X", X)
    y = check_real_array("y", y)
    if params is not None and X.shape[0] != params.k * params.m:
        fail("X", Described(f"a matrix with {X.shape[0]} rows"),
             f"a design matrix with k·m = {params.k}·{params.m} = {params.k * params.m} rows (one per cohort bit)")
    if y.shape != (X.shape[0],):
        fail("y", Described(f"an array of shape {y.shape}"), f"a vector with one entry per row of X (k·m = {X.shape[0]})")
    return X, y
