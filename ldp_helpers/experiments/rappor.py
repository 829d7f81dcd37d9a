"""Notebook 02_rappor's drivers: the paper's setting, and parameter grid → arrays (decoded surveys, checks, privacy).

The setting of [rappor] §3 is named once, here (:data:`K`, :data:`M`, :data:`N_TRUE`, …).
Populations come from :mod:`ldp_helpers.simulate.populations` (``zipf_weights``,
``cohort_counts``), the mechanism from :mod:`ldp_helpers.mechanisms.rappor`, the decoder and the
printed Y_vec loop of [rappor] Fig. 2 from :mod:`ldp_helpers.estimation.rappor_decoding`, the tutorial's
printed ε₂ from :mod:`ldp_helpers.bounds.rappor`.  Public functions check their arguments once; the
``_private`` cores they loop over trust them.

References
----------
[rappor] §3 (the experiment); [erlingsson2014] §4; [tutorial] "RAPPOR".
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_allocation,
    check_bool,
    check_instance,
    check_int,
    check_int_array,
    check_n_draws,
    check_ndim,
    check_probabilities,
    check_real,
    check_real_array,
    check_rng,
    check_weights,
    fail,
)
from ldp_helpers.bounds.rappor import tutorial_printed_epsilon_one_report
from ldp_helpers.estimation.rappor_decoding import (
    Decoding,
    check_correction,
    decode,
    identical_filter_pairs,
    printed_y_vec,
)
from ldp_helpers.experiments.common import EstimatorCheck, share_se, versus_exact
from ldp_helpers.mechanisms.privacy import max_privacy_loss, privacy_losses
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams
from ldp_helpers.mechanisms.rappor_client import report_table
from ldp_helpers.simulate.populations import cohort_counts, zipf_weights

# [rappor] §3, the paper's setting (the names of its Fig. 2 script in brackets)
K = 128  # Bloom filter bits (k; the paper's B)
M = 200  # candidate strings (M)
N_TRUE = 100  # candidates reported: the first ones (ACTIVE_WORDS)
ZIPF_EXPONENT = 0.7  # their weights ∝ 1/r^0.7 (ALPHA)
N_REPORTS = 20_000  # reports (N)
N_COHORTS = 8  # cohorts (m): N_j = 2500
ALPHA = 0.05  # level of the one-sided t-tests, without multiple-testing correction

#: columns of :func:`decode_surveys`
SURVEY_COLUMNS = ("precision", "recall", "n_kept", "n_false")
#: columns of :func:`privacy_comparison`
PRIVACY_COLUMNS = (
    "f",
    "p",
    "q",
    "h",
    "eps_table",
    "eps1",
    "eps1_tutorial",
    "eps_inf_table",
    "eps_inf",
)


def paper_params(h: int, m: int = N_COHORTS, *, epsilon: float | None = None) -> RapporParams:
    """The paper's Basic One-time RAPPOR with h hashes (k = :data:`K`): q = 0.75, p = 0.5, or the q of ε-LDP reports.

    References
    ----------
    [rappor] §3; [rappor] Eq. (1); [erlingsson2014] Theorem 2.
    """
    if epsilon is None:
        return RapporParams.basic_one_time(K, h, m)
    return RapporParams.basic_one_time_at_epsilon(epsilon, K, h, m)


def paper_weights(exponent: float = ZIPF_EXPONENT) -> np.ndarray:
    """The paper's candidates (``get_word_probs``): M = 200, the first 100 ∝ 1/r^exponent ([rappor] §3, Fig. 2)."""
    return zipf_weights(M, N_TRUE, exponent)


def paper_setting(h: int) -> dict:
    """The paper's setting with h hashes as the RAPPOR guide's keywords (``show_panel("rappor", ...)``; [rappor] §3)."""
    return dict(
        **dataclasses.asdict(paper_params(h)),  # k, h, m, f, p, q
        n_reports=N_REPORTS,
        n_candidates=M,
        n_true=N_TRUE,
        zipf_s=ZIPF_EXPONENT,
        alpha=ALPHA,
        correction="none",
    )


# ------------------------------------------------------------------ decoded surveys


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


def decode_survey(
    params: RapporParams,
    weights,
    n_reports: int,
    *,
    rng: np.random.Generator,
    correction=None,
    alpha: float = ALPHA,
    printed_logic: bool = False,
) -> DecodedSurvey:
    """One survey as [rappor] §3 runs it: a fresh hashing secret, a population, the reports' bit counts, the decoder.

    ``printed_logic=True`` builds Y_vec with the defective loop of [rappor] Fig. 2
    (:func:`~ldp_helpers.estimation.rappor_decoding.printed_y_vec`); otherwise the exact
    ``sample_aggregate`` and [rappor] Eq. (3).

    References
    ----------
    [rappor] §3; [rappor] Fig. 1; [rappor] Fig. 2; [rappor] Fig. 3.
    """
    rng = check_rng(rng)
    weights, alpha = _check_survey([params], weights, [n_reports], correction, alpha, printed_logic)
    n_true = int(np.count_nonzero(weights))
    mechanism = Rappor.create(params, weights.size, rng=rng)
    truth = cohort_counts(weights, n_reports, params.m, rng=rng)
    if printed_logic:
        y = printed_y_vec(mechanism, truth, n_true, rng=rng)
    else:
        y = mechanism.estimate(
            mechanism.sample_aggregate(truth, rng=rng), mechanism.n_reports(truth)
        ).ravel()
    decoding = decode(
        mechanism.design_matrix.astype(np.float64), y, alpha=alpha, correction=correction
    )
    return DecodedSurvey(*precision_recall(decoding.detected_candidates, n_true), decoding)


def decode_surveys(
    params: RapporParams,
    weights,
    n_reports: int,
    n_draws: int,
    *,
    rng: np.random.Generator,
    correction=None,
    alpha: float = ALPHA,
    printed_logic: bool = False,
) -> np.ndarray:
    """``n_draws`` independent :func:`decode_survey` s, an array (n_draws, 4) with :data:`SURVEY_COLUMNS`.

    Columns: precision, recall, the number of candidates the LASSO kept, and the number of
    detected candidates that are not true ones (false detections).  Not one batched
    ``sample_aggregate``: every survey draws its own secret and population, as [rappor] does.

    References
    ----------
    [rappor] §3 ("16 runs" per h).
    """
    n_draws, rng = check_n_draws(n_draws), check_rng(rng)
    weights, alpha = _check_survey([params], weights, [n_reports], correction, alpha, printed_logic)
    n_true = int(np.count_nonzero(weights))
    options = {"correction": correction, "alpha": alpha, "printed_logic": printed_logic}
    surveys = [
        decode_survey(params, weights, n_reports, rng=rng, **options) for _ in range(n_draws)
    ]
    return np.array(
        [
            (
                s.precision,
                s.recall,
                s.decoding.candidates.size,
                np.sum(s.decoding.detected_candidates >= n_true),
            )
            for s in surveys
        ],
        dtype=float,
    )


def decode_grid(
    params,
    weights,
    n_draws: int,
    *,
    n_reports=N_REPORTS,
    rng: np.random.Generator,
    correction=None,
    alpha: float = ALPHA,
    printed_logic: bool = False,
) -> np.ndarray:
    """:func:`decode_surveys` at each point of a grid, in order: an array (points, n_draws, 4).

    ``params`` is a sequence of :class:`RapporParams`; ``n_reports`` one N for all points or
    one N per point.

    References
    ----------
    [rappor] §3; [rappor] Fig. 1.
    """
    n_draws, rng = check_n_draws(n_draws), check_rng(rng)
    if not isinstance(params, (list, tuple)) or not params:
        fail("params", params, "a non-empty list of RapporParams")
    n_reports = check_int_array("n_reports", n_reports, low=1)
    if n_reports.ndim > 1 or n_reports.size not in (1, len(params)):
        fail("n_reports", n_reports, f"one N or one N per point of params ({len(params)})")
    n_reports = np.broadcast_to(n_reports, (len(params),))
    weights, alpha = _check_survey(params, weights, n_reports, correction, alpha, printed_logic)
    options = {"correction": correction, "alpha": alpha, "printed_logic": printed_logic}
    return np.array(
        [
            decode_surveys(par, weights, int(n), n_draws, rng=rng, **options)
            for par, n in zip(params, n_reports)
        ]
    )


def _check_survey(params_list, weights, n_reports_list, correction, alpha, printed_logic):
    """The checks of a survey's settings (every params with its N); returns weights and alpha as floats."""
    check_bool("printed_logic", printed_logic)
    check_correction(correction)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0)
    weights = check_weights("weights", weights)
    for params, n_reports in zip(params_list, n_reports_list):
        check_instance("params", params, RapporParams)
        check_int("n_reports", n_reports, low=params.m)
        if printed_logic:
            check_real(
                "params.f (printed_logic: IRR only)",
                params.f,
                low=0.0,
                high=0.0,
                low_open=False,
                high_open=False,
            )
    return weights, alpha


def paired_gain(after, before, *, se_floor: float = 0.01) -> tuple[float, float]:
    """Mean of ``after − before`` over paired surveys and its standard error (at least ``se_floor``; one survey: it)."""
    after = check_real_array("after", after, ndim=1)
    before = check_real_array("before", before, ndim=1, last=after.size, what="(paired with after)")
    se_floor = check_real("se_floor", se_floor, low=0.0, low_open=False)
    gain = after - before
    se = max(gain.std(ddof=1) / math.sqrt(gain.size), se_floor) if gain.size > 1 else se_floor
    return float(gain.mean()), float(se)


# ------------------------------------------------------------------ checks of the paper's equations


@dataclass(frozen=True)
class ClientCheck:
    """Reported-bit frequencies of the per-report client on set and unset Bloom bits, with their SEs."""

    q_hat: float  # share of 1s reported on set bits: estimates q* = Pr[S_i = 1 | B_i = 1]
    se_q: float
    p_hat: float  # share of 1s reported on unset bits: estimates p* = Pr[S_i = 1 | B_i = 0]
    se_p: float


def client_check(params: RapporParams, n_reports: int, *, rng: np.random.Generator) -> ClientCheck:
    """``n_reports`` runs of the client (``Rappor.perturb``) on one candidate's Bloom filter: [rappor] Eq. (1) measured.

    SEs are the binomial ones at q* and p*, over all reported set (unset) bits.

    References
    ----------
    [rappor] Eq. (1); [erlingsson2014] §2.
    """
    check_instance("params", params, RapporParams)
    check_int("params.h", params.h, high=params.k - 1)  # an unset bit remains
    n_reports = check_int("n_reports", n_reports, low=1)
    check_allocation("n_reports", n_reports, n_reports * (params.k + 2), what="the reports' bits")
    rng = check_rng(rng)
    # a single candidate: every user holds it, in cohort 0
    mechanism = Rappor.create(params, 1, rng=rng)
    bloom = mechanism.blooms[0, 0]
    bits = mechanism.perturb(np.zeros((n_reports, 2), dtype=int), rng=rng).bits
    on, off = bits[:, bloom == 1], bits[:, bloom == 0]
    q, p = params.q_star, params.p_star
    return ClientCheck(on.mean(), share_se(q, on.size), off.mean(), share_se(p, off.size))


def disjoint_filters_loss(params: RapporParams) -> float:
    """Exact ε of one report from the table of two Bloom filters with disjoint h-bit supports (2h bits, h ≤ 8).

    The pair the closed form ε₁ = h ln(q*(1−p*)/(p*(1−q*))) is tight for ([erlingsson2014] Theorem 2).
    """
    # 2^(2h) reports
    check_int("params.h", check_instance("params", params, RapporParams).h, high=8)
    filters = np.kron(np.eye(2, dtype=np.int8), np.ones((1, params.h), dtype=np.int8))
    return max_privacy_loss(report_table(filters, params.bit_table()))


def colliding_pairs(
    params: RapporParams, n_candidates: int = M, *, rng: np.random.Generator
) -> tuple[int, int]:
    """Candidate pairs with identical Bloom filters in cohort 0 and in every cohort, for a fresh hashing secret.

    Cohort-specific hashes make the second number small: the reason for cohorts ([rappor] §2).  The
    arguments are ``Rappor.create``'s, checked there.
    """
    design = Rappor.create(params, n_candidates, rng=rng)
    return identical_filter_pairs(design, 0), identical_filter_pairs(design)


def estimator_check(
    mechanism: Rappor, truth, n_draws: int, *, rng: np.random.Generator
) -> EstimatorCheck:
    """``n_draws`` surveys of one population (one batched ``sample_aggregate``): t̂ against [rappor] Eqs. (2)–(3).

    For an unbiased t̂ with the exact variance each z is approximately N(0, 1) and each
    variance ratio has mean 1 and SD about sqrt(2/(n_draws − 1)).

    References
    ----------
    [rappor] Eq. (2); [rappor] Eq. (3).
    """
    n_draws = check_n_draws(n_draws, low=2)
    t = check_instance("mechanism", mechanism, Rappor).estimand(truth)
    # a randomized report
    variance = check_real_array("mechanism.variance(truth)", mechanism.variance(truth), low=0.0)
    draws = mechanism.estimate(
        mechanism.sample_aggregate(truth, rng=rng, n_draws=n_draws), mechanism.n_reports(truth)
    )
    return versus_exact(draws, t, variance)


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
    k = check_int("k", k, low=1)
    h_values = check_int_array("h_values", h_values, low=1, high=k).ravel()  # h ≤ k hashes
    settings = check_probabilities("settings", settings)
    if settings.ndim != 2 or settings.shape[1] != 3:
        raise ValueError(
            f"settings must be a sequence of (f, p, q) triples; got an array of shape {settings.shape}"
        )
    grid = [RapporParams(k=k, h=h, m=1, f=f, p=p, q=q) for f, p, q in settings for h in h_values]
    one_report = privacy_losses(Rappor.create(par, 1, rng=rng) for par in grid)
    permanent = privacy_losses(Rappor.create(par.prr_only(), 1, rng=rng) for par in grid)
    rows = [
        (
            par.f,
            par.p,
            par.q,
            par.h,
            one,
            par.epsilon_one_report,
            tutorial_printed_epsilon_one_report(par),
            perm,
            par.epsilon_permanent,
        )
        for par, one, perm in zip(grid, one_report, permanent)
    ]
    return np.array(rows, dtype=float)


def privacy_row(table, params: RapporParams) -> dict[str, float]:
    """The row of a :func:`privacy_comparison` table for ``params``' (f, p, q, h), by column name."""
    table = check_ndim(
        "table", table, 2, last=len(PRIVACY_COLUMNS), what="(privacy_comparison's rows)"
    )
    check_real_array("table[:, :4] (f, p, q, h)", table[:, :4], low=0.0, low_open=False)
    if np.isnan(table).any():
        fail(
            "table",
            Described("a table holding NaN"),
            "privacy_comparison's table (ε finite or inf)",
        )
    check_instance("params", params, RapporParams)
    match = np.flatnonzero((table[:, :4] == (params.f, params.p, params.q, params.h)).all(axis=1))
    if match.size == 0:
        fail("params", params, "a setting (f, p, q, h) of the table")
    return dict(zip(PRIVACY_COLUMNS, table[match[0]].astype(float).tolist()))
