"""Pure computations behind the RAPPOR simulator (no widgets): one user's report, one decoded survey, uploaded counts.

In the manner of google/rappor's Shiny simulator: one user's report step by step (the Bloom filter B
of her candidate in her cohort, the permanent randomized response B′, the instantaneous one S,
[erlingsson2014] §2 steps 1–3, drawn by the per-user client's own functions); one survey of N
reports decoded (a population drawn per cohort, the reported bit counts from the mechanism's exact
aggregate sampler, [rappor] Eq. (3) and the LASSO → OLS → t-test decoder with no correction,
Bonferroni or Benjamini–Hochberg); and the same decoder on **real aggregated counts**
(:func:`decode_counts`: counts per cohort and bit, reports per cohort and the candidates' Bloom
filters — what google/rappor's counts, map and params files hold).

The hashed design is cached per (k, h, m, M, seed) by :mod:`ldp_tools.explore.rappor`, so moving
f, p, q, N, α or the correction does not hash again.

References
----------
[erlingsson2014] §2, §4; [rappor] §2–3, Eq. (3); [tutorial] "RAPPOR".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_binary_array,
    check_choice,
    check_instance,
    check_int,
    check_int_array,
    check_ndim,
    check_real,
    fail,
)
from ldp_helpers.estimation.rappor_decoding import decode_aggregate, total_counts
from ldp_helpers.experiments.rappor import precision_recall
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams
from ldp_helpers.mechanisms.rappor_client import (
    instantaneous_randomized_response,
    permanent_randomized_response,
)
from ldp_helpers.simulate.populations import cohort_counts
from ldp_tools.explore.rappor import (
    CORRECTIONS,
    MAX_CANDIDATES,
    _check_decode_work,
    _check_setting,
    _design,
    _params,
)


class ReportSteps(NamedTuple):
    """One user's report: her candidate and cohort, B (Bloom filter), B′ (PRR, memoized), S (IRR, sent)."""

    candidate: int
    cohort: int
    bloom: np.ndarray  # (k,) of 0/1
    prr: np.ndarray
    irr: np.ndarray


def user_report(
    *, k, h, m, f, p, q, candidate=0, cohort=0, n_candidates=100, seed=0, user=0, report=0
) -> ReportSteps:
    """One user's report step by step: B of ``candidate`` in ``cohort`` (the design of ``seed``), then B′, then S.

    B′ is drawn once per (``user``, candidate, cohort) — it is memoized, [erlingsson2014] §2 step 2 —
    and S anew for each ``report`` number (step 3).  The draws are the per-user client's own functions.

    References
    ----------
    [erlingsson2014] §2 steps 1–3; [rappor] Eq. (1).
    """
    params = _params(k, h, m, f, p, q)
    n_candidates = check_int("n_candidates", n_candidates, low=2, high=MAX_CANDIDATES)
    seed = check_int("seed", seed, low=0)
    candidate = check_int("candidate", candidate, low=0, high=n_candidates - 1)
    cohort = check_int("cohort", cohort, low=0, high=params.m - 1)
    user, report = check_int("user", user, low=0), check_int("report", report, low=0)
    bloom = _design(params.k, params.h, params.m, n_candidates, seed)[0].blooms[cohort, candidate]
    bloom = bloom.astype(np.int8)
    prr = permanent_randomized_response(
        bloom, params.f, rng=np.random.default_rng([seed, user, candidate, cohort])
    )
    irr = instantaneous_randomized_response(
        prr,
        params.p,
        params.q,
        rng=np.random.default_rng([seed, user, candidate, cohort, report + 1]),
    )
    return ReportSteps(candidate, cohort, bloom, prr, irr)


class DecodedCounts(NamedTuple):
    """The decoder's answer for every candidate (arrays of length M): estimates are total counts (m·β̂)."""

    names: tuple  # candidate labels
    estimate: np.ndarray  # m·β̂_w for the LASSO-kept candidates, 0 for the dropped ones
    std_error: np.ndarray  # m·SE(β̂_w) (0 for dropped ones: not estimated)
    p_value: np.ndarray  # one-sided, adjusted by the correction (1 for dropped ones)
    detected: np.ndarray  # p_value < α
    n_reports: int


def decode_counts(
    counts, reports_per_cohort, blooms, *, f, p, q, alpha=0.05, correction="bh", names=None
) -> DecodedCounts:
    """Decode real aggregated RAPPOR counts: the upload path (google/rappor's counts, map and params files as arrays).

    Parameters
    ----------
    counts : array_like of int, shape (m, k)
        ``counts[j, i]``: cohort-j reports with bit i set (a counts file without its first column).
    reports_per_cohort : array_like of int, shape (m,)
        N_j, the reports of each cohort (the counts file's first column).
    blooms : array_like of 0/1, shape (m, M, k)
        Each candidate's Bloom filter in each cohort (the map file's bit positions), 1 to h ones each.
    f, p, q : float
        The collection's PRR and IRR probabilities (the params file); h is read off the filters.
    alpha, correction : float, str
        Level and ``"none"``, ``"bonferroni"`` or ``"bh"``.
    names : sequence of str, optional
        The candidates' strings (default ``"0"``, ``"1"``, …).

    References
    ----------
    [rappor] Eq. (3) (t̂ = (c − p* N_j)/(q* − p*)); [erlingsson2014] §4 (LASSO → OLS → t-test).
    """
    counts = check_ndim(
        "counts", check_int_array("counts", counts, low=0), 2, what="(m cohorts × k bits)"
    )
    m, k = counts.shape
    sizes = check_int_array("reports_per_cohort", reports_per_cohort, low=1, shape=(m,))
    blooms = check_ndim(
        "blooms",
        check_binary_array("blooms", blooms),
        3,
        what="(m cohorts × M candidates × k bits)",
    )
    if blooms.shape[0] != m or blooms.shape[2] != k:
        fail(
            "blooms",
            Described(f"an array of shape {blooms.shape}"),
            f"an array of shape ({m}, M, {k}) like counts'",
        )
    n_candidates = blooms.shape[1]
    if np.any(counts > sizes[:, None]):
        fail(
            "counts",
            counts,
            "counts at most the cohort's reports (reports_per_cohort) in every cohort",
        )
    h = int(blooms.sum(axis=2).max())
    params = RapporParams(k=k, h=max(h, 1), m=m, f=f, p=p, q=q)
    _check_decode_work(params, n_candidates)
    mechanism = Rappor(params, blooms)
    if names is None:
        names = range(n_candidates)
    elif len(check_instance("names", names, (list, tuple))) != n_candidates:
        fail("names", names, f"one name per candidate ({n_candidates})")
    return _decoded(
        mechanism,
        counts,
        sizes,
        check_real("alpha", alpha, low=0.0, high=1.0),
        check_choice("correction", correction, CORRECTIONS),
        tuple(str(n) for n in names),
    )


def _decoded(
    mechanism: Rappor, counts, sizes, alpha: float, correction: str, names: tuple
) -> DecodedCounts:
    """The decoder on one survey's bit counts, per candidate as counts over all cohorts (m·β̂)."""
    result = decode_aggregate(
        mechanism,
        counts,
        sizes,
        alpha=alpha,
        correction=None if correction == "none" else correction,
    )
    estimate, std_error, p_value = total_counts(result, mechanism.params.m, mechanism.n_candidates)
    return DecodedCounts(names, estimate, std_error, p_value, p_value < alpha, int(sizes.sum()))


class SimulatedSurvey(NamedTuple):
    """One simulated survey decoded: the true counts per candidate, the decoder's answer, precision and recall."""

    true_counts: np.ndarray  # (M,) users holding each candidate
    decoded: DecodedCounts
    precision: float
    recall: float


def simulated_survey(
    *,
    k,
    h,
    m,
    f,
    p,
    q,
    n_reports,
    n_candidates=100,
    n_true=20,
    zipf_s=1.0,
    shape="zipf",
    alpha=0.05,
    correction="bh",
    seed=0,
) -> SimulatedSurvey:
    """One survey of N reports on the design of ``seed``, decoded: estimates vs the truth, precision and recall.

    The population is [rappor] §3's (cohort j draws Multinomial(N_j, π)); the reported bit counts are
    one draw of the mechanism's exact aggregate sampler.  Refused beyond the decoding ceiling
    (:func:`~ldp_tools.explore.rappor._check_decode_work`).

    References
    ----------
    [rappor] §3 (precision, recall), Eq. (3); [erlingsson2014] §4.
    """
    setting = _check_setting(
        k, h, m, f, p, q, n_reports, n_candidates, n_true, zipf_s, shape, alpha, correction, seed
    )
    _check_decode_work(setting.params, setting.n_candidates)
    params = setting.params
    mechanism = Rappor(params, setting.design[0].blooms)
    rng = np.random.default_rng([setting.seed, 2])
    truth = cohort_counts(setting.weights, setting.n_reports, params.m, rng=rng)
    decoded = _decoded(
        mechanism,
        mechanism.sample_aggregate(truth, rng=rng),
        truth.sum(axis=1),
        setting.alpha,
        setting.correction,
        tuple(str(i) for i in range(setting.n_candidates)),
    )
    precision, recall = precision_recall(np.flatnonzero(decoded.detected), setting.n_true)
    return SimulatedSurvey(truth.sum(axis=0), decoded, precision, recall)
