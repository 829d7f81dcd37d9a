"""Pure computations behind the RAPPOR parameter guide (no widgets, no per-user simulation).

From (k, h, m, f, p, q), the total number of reports N and a candidate distribution (the Zipf
``get_word_probs`` of [rappor] §3: M candidates, the first ``n_true`` of them ∝ 1/r^s), the guide
gives ε of one report (ε₁), the permanent ε∞, each candidate's detection threshold (collisions of
the hashed design included) and the decoder's **expected** precision and recall.

The expected precision/recall are an **analytic approximation**, not a simulation: the OLS
estimate of a candidate's per-cohort count is taken as ``β̂_w ~ N(β_w, SE_w²)`` with the null
standard error of :func:`~ldp_helpers.bounds.rappor.detection_threshold` (so that
``SE_w / N_j = π_min,w / z`` with ``z = z_{1−α/n_tests}`` and π_min,w the threshold at power ½),
and the one-sided test rejects when ``β̂_w / SE_w > z``.  Hence a true candidate is detected
with probability ``Φ(z (π_w / π_min,w − 1))`` and a null candidate with probability α/n_tests.
Expected recall is the mean detection probability of the true candidates; expected precision is
E[true detections] / E[all detections] (a ratio of expectations).  It ignores the LASSO step and
the dependence between candidates: at [rappor] §3's setting (k = 128, m = 8, N = 20,000, M = 200,
h = 4) it gives recall 0.30 and precision 0.86 where 10 decoded surveys give 0.24 ± 0.01 and 0.93
(the LASSO drops weak true candidates and most false ones).  :func:`simulated_precision_recall`
checks a setting by decoding surveys drawn with the exact aggregate sampler (cached).

The hashed design (the candidates' Bloom filters) is drawn once per (k, h, m, M, seed) and cached,
with its collision factor (``detection_threshold / detection_threshold_without_collisions``,
which depends on the design only), so changing f, p, q, N, α or the distribution costs O(M).

References
----------
[erlingsson2014] §2, §4, Theorems 1–2; [rappor] §2–3; [tutorial] "RAPPOR".
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
from scipy import stats

from ldp_helpers._validation import check_choice, check_int, check_n_draws, check_real
from ldp_helpers.experiments.rappor import decode_surveys
from ldp_helpers.bounds.rappor import detection_threshold, detection_threshold_without_collisions
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams
from ldp_helpers.simulate.populations import zipf_weights

#: multiple-testing corrections of the guide: none (n_tests = 1) or Bonferroni over the M candidates
CORRECTIONS = ("none", "bonferroni")


class RapporGuide(NamedTuple):
    """What the RAPPOR parameter guide shows for one setting (arrays have length M)."""

    epsilon_one_report: float  # ε₁ of one report (inf if p* = 0 or q* = 1)
    epsilon_permanent: float  # ε∞ of all reports of a user (inf if f = 0)
    q_star: float  # Pr[S_i = 1 | B_i = 1]
    p_star: float  # Pr[S_i = 1 | B_i = 0]
    frequencies: np.ndarray  # π_w of the candidate distribution (sums to 1)
    threshold: np.ndarray  # π_min,w: detected with probability ½ (collisions included)
    threshold_no_collisions: float  # the collision-free threshold (one value)
    detection_probability: np.ndarray  # Φ(z(π_w/π_min,w − 1)) (analytic approximation)
    expected_recall: float
    expected_precision: float
    expected_false: float  # expected number of null candidates detected
    identical_pairs: int  # candidate pairs whose filters coincide in every cohort


@functools.lru_cache(maxsize=16)
def _design(k: int, h: int, m: int, n_candidates: int, seed: int) -> tuple[Rappor, np.ndarray, int]:
    """The hashed design and its collision factor per candidate (independent of f, p, q, N, α)."""
    reference = RapporParams.basic_one_time(k=k, h=h, m=m)
    mechanism = Rappor.create(reference, n_candidates, rng=np.random.default_rng(seed))
    factor = detection_threshold(mechanism, m) / detection_threshold_without_collisions(reference, m)[..., None]
    factor.setflags(write=False)
    _, group_sizes = np.unique(mechanism.design_matrix.T, axis=0, return_counts=True)
    return mechanism, factor, int(np.sum(group_sizes * (group_sizes - 1) // 2))


def rappor_guide(*, k, h, m, f, p, q, n_reports, n_candidates=100, n_true=20, zipf_s=1.0, alpha=0.05,
                 correction="bonferroni", seed=0) -> RapporGuide:
    """ε₁, ε∞, detection thresholds and the expected precision/recall (analytic approximation) of one setting.

    Parameters
    ----------
    k, h, m, f, p, q : RAPPOR's parameters (:class:`~ldp_helpers.mechanisms.rappor.RapporParams`).
    n_reports : int
        Total reports N (one per user), at least m.
    n_candidates, n_true, zipf_s : int, int, float
        The candidate distribution: M candidates, the first ``n_true`` ∝ 1/r^s, the rest never held.
    alpha, correction : float, str
        Level of the one-sided test and ``"none"`` or ``"bonferroni"`` (n_tests = M).
    seed : int
        Seeds the hashing secret of the design (the thresholds depend on its collisions).

    References
    ----------
    [erlingsson2014] Theorems 1–2 (ε₁, ε∞), §4 (decoder); [rappor] §3 (the candidate
    distribution, precision and recall).
    """
    params = RapporParams(k=check_int("k", k, low=1), h=check_int("h", h, low=1), m=check_int("m", m, low=1),
                          f=f, p=p, q=q)
    n_reports = check_int("n_reports", n_reports, low=params.m)
    n_candidates = check_int("n_candidates", n_candidates, low=2, high=4096)
    weights = zipf_weights(n_candidates, check_int("n_true", n_true, low=1, high=n_candidates),
                           check_real("zipf_s", zipf_s, low=0.0, low_open=False))
    alpha = check_real("alpha", alpha, low=0.0, high=1.0)
    n_tests = n_candidates if check_choice("correction", correction, CORRECTIONS) == "bonferroni" else 1
    mechanism, factor, pairs = _design(params.k, params.h, params.m, n_candidates, check_int("seed", seed, low=0))
    free = float(detection_threshold_without_collisions(params, n_reports, alpha=alpha, n_tests=n_tests))
    threshold = free * factor
    z = stats.norm.isf(alpha / n_tests)
    power = stats.norm.cdf(z * (weights / threshold - 1.0))
    truth = weights > 0
    true_hits, false_hits = float(power[truth].sum()), float((~truth).sum() * alpha / n_tests)
    precision = true_hits / (true_hits + false_hits) if true_hits + false_hits > 0 else 0.0
    return RapporGuide(params.epsilon_one_report, params.epsilon_permanent, params.q_star, params.p_star, weights,
                       threshold, free, power, float(power[truth].mean()), precision, false_hits, pairs)


@functools.lru_cache(maxsize=32)
def _simulated(params: RapporParams, n_candidates: int, n_true: int, zipf_s: float, n_reports: int, alpha: float,
               correction: str, n_draws: int, seed: int) -> tuple[float, float, float, float]:
    weights = zipf_weights(n_candidates, n_true, zipf_s)
    scores = decode_surveys(params, weights, n_reports, n_draws, rng=np.random.default_rng(seed), alpha=alpha,
                            correction=None if correction == "none" else correction)
    se = scores[:, :2].std(axis=0, ddof=1) / np.sqrt(n_draws) if n_draws > 1 else np.full(2, np.nan)
    return float(scores[:, 0].mean()), float(scores[:, 1].mean()), float(se[0]), float(se[1])


def simulated_precision_recall(*, k, h, m, f, p, q, n_reports, n_candidates=100, n_true=20, zipf_s=1.0, alpha=0.05,
                               correction="bonferroni", n_draws=4, seed=0) -> tuple[float, float, float, float]:
    """Mean precision, mean recall and their standard errors over ``n_draws`` decoded surveys (cached).

    Each survey is [rappor] §3's: a fresh hashing secret and population, the reports' bit counts
    from the exact aggregate sampler (never a per-user simulation) and the decoder of
    :func:`~ldp_helpers.estimation.rappor_decoding.decode`
    (:func:`~ldp_helpers.experiments.rappor.decode_surveys`).  Costs about 0.1 s per survey at
    k·m = 1024 rows: a check of :func:`rappor_guide`'s approximation, not part of every redraw.

    References
    ----------
    [rappor] §3 (precision, recall); [erlingsson2014] §4 (decoder).
    """
    params = RapporParams(k=check_int("k", k, low=1), h=check_int("h", h, low=1), m=check_int("m", m, low=1),
                          f=f, p=p, q=q)
    n_candidates = check_int("n_candidates", n_candidates, low=2, high=4096)
    n_true = check_int("n_true", n_true, low=1, high=n_candidates)
    return _simulated(params, n_candidates, n_true, check_real("zipf_s", zipf_s, low=0.0, low_open=False),
                      check_int("n_reports", n_reports, low=params.m), check_real("alpha", alpha, low=0.0, high=1.0),
                      check_choice("correction", correction, CORRECTIONS), check_n_draws(n_draws),
                      check_int("seed", seed, low=0))
