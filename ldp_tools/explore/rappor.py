"""Pure computations behind the RAPPOR parameter guide (no widgets, no per-user simulation).

From (k, h, m, f, p, q), the total number of reports N and a candidate distribution
(:func:`~ldp_helpers.simulate.populations.candidate_weights`: M candidates, the first ``n_true``
held with a Zipf, exponential, linear or constant decay — the Zipf one is the ``get_word_probs``
of [rappor] §3, the others the decays of google/rappor's Shiny simulator), the guide gives ε of
one report (ε₁), the permanent ε∞, each candidate's detection threshold (collisions of the hashed
design included) and the decoder's **expected** precision and recall under no correction,
Bonferroni or Benjamini–Hochberg (BH).

The expected precision/recall are an **analytic approximation**, not a simulation:
:func:`~ldp_helpers.bounds.rappor.expected_precision_recall` (a true candidate detected with
probability ``Φ(z (π_w / π_min,w − 1))``, a null one with α/n_tests, BH through a fixed point).
It ignores the LASSO step and
the dependence between candidates: at [rappor] §3's setting (k = 128, m = 8, N = 20,000, M = 200,
h = 4) it gives recall 0.30 and precision 0.86 where 10 decoded surveys give 0.24 ± 0.01 and 0.93
(the LASSO drops weak true candidates and most false ones).  :func:`simulated_precision_recall`
checks a setting by decoding surveys drawn with the exact aggregate sampler (cached).

The hashed design (the candidates' Bloom filters) is drawn once per (k, h, m, M, seed) and cached,
with its collision factor (:func:`~ldp_helpers.bounds.rappor.collision_factor`,
which depends on the design only), so changing f, p, q, N, α or the distribution costs O(M).

References
----------
[erlingsson2014] §2, §4, Theorems 1–2; [rappor] §2–3; [tutorial] "RAPPOR".
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import check_choice, check_int, check_real, fail
from ldp_helpers.bounds.rappor import (
    CORRECTIONS,
    collision_factor,
    expected_precision_recall,
    unit_threshold,
)
from ldp_helpers.estimation.rappor_decoding import identical_filter_pairs
from ldp_helpers.experiments.common import mean_and_se
from ldp_helpers.experiments.rappor import decode_surveys
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams
from ldp_helpers.simulate.populations import candidate_weights


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
    factor = collision_factor(mechanism)
    factor.setflags(write=False)
    return mechanism, factor, identical_filter_pairs(mechanism)


#: the panels' ceilings on a hashed design, sized by time (XᵀX of 2^22 cells and its M × M
#: pseudo-inverse within about a second on 2 idle cores): k·m·M cells of X, m·M·h hashes,
#: M candidates
MAX_DESIGN_CELLS, MAX_HASHES, MAX_CANDIDATES = 2**22, 2**19, 1000


@dataclass(frozen=True)
class _Setting:
    """One checked setting of the guide and the simulator: RAPPOR, N, candidates, test, design seed.

    Built by :func:`_check_setting` only; equal settings hash alike (``weights`` follows from the
    population's four fields), so a setting keys the caches.
    """

    params: RapporParams
    n_reports: int
    n_candidates: int
    n_true: int
    zipf_s: float
    shape: str
    alpha: float
    correction: str
    seed: int
    weights: np.ndarray = field(compare=False, repr=False)  # π_w of the M candidates

    @property
    def design(self) -> tuple[Rappor, np.ndarray, int]:
        """:func:`_design` of this setting: the mechanism, collision factors, identical pairs."""
        return _design(self.params.k, self.params.h, self.params.m, self.n_candidates, self.seed)


def _params(k, h, m, f, p, q) -> RapporParams:
    """RAPPOR's parameters, k, h and m within the panels' ranges (f, p, q: ``RapporParams``')."""
    return RapporParams(
        k=check_int("k", k, low=1, high=4096),
        h=check_int("h", h, low=1, high=32),
        m=check_int("m", m, low=1, high=1024),
        f=f,
        p=p,
        q=q,
    )


def _check_setting(
    k, h, m, f, p, q, n_reports, n_candidates, n_true, zipf_s, shape, alpha, correction, seed
) -> _Setting:
    """The keywords of :func:`rappor_guide` checked once, within the panels' work ceilings.

    The hashed design costs m·M·h SHA-256 hashes and a k·m × M least-squares system: refused beyond
    :data:`MAX_HASHES` and :data:`MAX_DESIGN_CELLS` (a few seconds), naming M's allowed range.
    """
    params = _params(k, h, m, f, p, q)
    n_reports = check_int("n_reports", n_reports, low=params.m, high=10**12)
    n_candidates = check_int("n_candidates", n_candidates, low=2, high=MAX_CANDIDATES)
    limit = min(MAX_DESIGN_CELLS // (params.k * params.m), MAX_HASHES // (params.m * params.h))
    if n_candidates > limit:
        fail(
            "n_candidates",
            n_candidates,
            f"an integer in [2, {max(limit, 1)}] at k = {params.k}, m = {params.m}, "
            f"h = {params.h} (the design's k·m·M ≤ {MAX_DESIGN_CELLS:,} and m·M·h ≤ "
            f"{MAX_HASHES:,} keep it within a few seconds)",
        )
    zipf_s = check_real("zipf_s", zipf_s, low=0.0, high=20.0, low_open=False, high_open=False)
    n_true = check_int("n_true", n_true, low=1, high=n_candidates)
    weights = candidate_weights(shape, n_candidates, n_true, zipf_s)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0)
    correction = check_choice("correction", correction, CORRECTIONS)
    seed = check_int("seed", seed, low=0)
    return _Setting(
        params, n_reports, n_candidates, n_true, zipf_s, shape, alpha, correction, seed, weights
    )


def rappor_guide(
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
    alpha=0.05,
    correction="bonferroni",
    seed=0,
    shape="zipf",
) -> RapporGuide:
    """ε₁, ε∞, detection thresholds and the expected precision/recall (analytic approximation) of one setting.

    Parameters
    ----------
    k, h, m, f, p, q : RAPPOR's parameters (:class:`~ldp_helpers.mechanisms.rappor.RapporParams`).
    n_reports : int
        Total reports N (one per user), at least m.
    n_candidates, n_true, zipf_s, shape : int, int, float, str
        The candidate distribution of the module docstring (decay ``shape``, s = ``zipf_s``).
    alpha, correction : float, str
        Level of the one-sided test and ``"none"``, ``"bonferroni"`` (n_tests = M) or ``"bh"``.
    seed : int
        Seeds the hashing secret of the design.

    References
    ----------
    [erlingsson2014] Theorems 1–2 (ε₁, ε∞), §4 (decoder); [rappor] §3 (the candidate
    distribution, precision and recall).
    """
    setting = _check_setting(
        k, h, m, f, p, q, n_reports, n_candidates, n_true, zipf_s, shape, alpha, correction, seed
    )
    params, (_, factor, pairs) = setting.params, setting.design
    unit = float(unit_threshold(params, setting.n_reports))  # c_w = π_min,w / z = unit·factor_w
    expected = expected_precision_recall(
        setting.weights, unit * factor, alpha=setting.alpha, correction=setting.correction
    )
    return RapporGuide(
        params.epsilon_one_report,
        params.epsilon_permanent,
        params.q_star,
        params.p_star,
        setting.weights,
        unit * factor * expected.z,
        unit * expected.z,
        expected.detection_probability,
        expected.recall,
        expected.precision,
        expected.expected_false,
        pairs,
    )


@functools.lru_cache(maxsize=32)
def _simulated(setting: _Setting, n_draws: int) -> tuple[float, float, float, float]:
    """:func:`simulated_precision_recall` of a checked setting (its decoding work checked too)."""
    scores = decode_surveys(
        setting.params,
        setting.weights,
        setting.n_reports,
        n_draws,
        rng=np.random.default_rng(setting.seed),
        alpha=setting.alpha,
        correction=None if setting.correction == "none" else setting.correction,
    )
    if n_draws == 1:  # one survey: no standard error
        return float(scores[0, 0]), float(scores[0, 1]), math.nan, math.nan
    mean, se = mean_and_se(scores[:, :2].T)  # precision and recall over the surveys
    return float(mean[0]), float(mean[1]), float(se[0]), float(se[1])


def simulated_precision_recall(
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
    alpha=0.05,
    correction="bonferroni",
    n_draws=4,
    seed=0,
    shape="zipf",
) -> tuple[float, float, float, float]:
    """Mean precision, mean recall and their standard errors (NaN: one survey) over ``n_draws`` decoded surveys.

    Each survey is [rappor] §3's (:func:`~ldp_helpers.experiments.rappor.decode_surveys`): about 0.1 s
    at k·m = 1024 rows, refused beyond :data:`MAX_DECODE_CELLS` · surveys (about a second).

    References
    ----------
    [rappor] §3 (precision, recall); [erlingsson2014] §4 (decoder).
    """
    setting = _check_setting(
        k, h, m, f, p, q, n_reports, n_candidates, n_true, zipf_s, shape, alpha, correction, seed
    )
    n_draws = check_int("n_draws", n_draws, low=1, high=64)
    _check_decode_work(setting.params, setting.n_candidates, n_draws)
    return _simulated(setting, n_draws)


#: the panels' ceiling on decoding, sized by time: k·m·M cells of X over the surveys one interaction decodes (the
#: LASSO on 2^20 cells — k·m = 1024 rows, M = 1000 — takes about half a second on 2 idle cores)
MAX_DECODE_CELLS = 2**21


def _check_decode_work(params: RapporParams, n_candidates: int, n_surveys: int = 1) -> None:
    """Refuse decoding ``n_surveys`` surveys whose design X has more than :data:`MAX_DECODE_CELLS` cells in all."""
    cells = params.k * params.m * n_candidates * n_surveys
    if cells > MAX_DECODE_CELLS:
        limit = MAX_DECODE_CELLS // (params.k * params.m * n_surveys)
        fail(
            "n_candidates",
            n_candidates,
            f"an integer in [2, {max(limit, 1)}] to decode {n_surveys} survey(s) at "
            f"k = {params.k}, m = {params.m} (k·m·M·surveys ≤ {MAX_DECODE_CELLS:,}, about a "
            "second); the analytic guide alone allows more",
        )
