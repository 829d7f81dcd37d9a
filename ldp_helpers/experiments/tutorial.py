"""Experiment drivers of the tutorial notebook (00_tutorial): parameter grid → arrays.

Every driver draws whole surveys with an exact aggregate sampler (sufficient statistics, never
an n × d report matrix), R surveys in one ``sample_aggregate(..., n_draws=R)`` call, from the
injected Generator.  Data generators live in :mod:`ldp_helpers.simulate.populations`, exact
bounds in :mod:`ldp_helpers.bounds.tutorial` and :mod:`ldp_helpers.bounds.wang2017`.

References
----------
[tutorial] "Randomized response"; [tutorial] "Frequency Oracles"; [tutorial] "Apple's implementation of LDP".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldp_helpers._numeric import share_count
from ldp_helpers._validation import (
    MAX_N_DRAWS,
    Described,
    check_epsilons,
    check_instance,
    check_int,
    check_int_array,
    check_n_draws,
    check_probability,
    check_rng,
    check_true_counts,
    fail,
)
from ldp_helpers.estimation.postprocessing import METHODS, postprocess
from ldp_helpers.experiments.common import share_se, versus_exact
from ldp_helpers.mechanisms.base import FrequencyOracle
from ldp_helpers.mechanisms.count_mean_sketch import CountMeanSketch
from ldp_helpers.mechanisms.local_hashing import HASH_PRIME, LocalHashing
from ldp_helpers.mechanisms.randomized_response import BinaryRR


def _check_classes(oracle_classes) -> dict:
    """A dict of label → FrequencyOracle subclass (the oracles a study compares)."""
    if (
        not isinstance(oracle_classes, dict)
        or not oracle_classes
        or not all(
            isinstance(c, type) and issubclass(c, FrequencyOracle) for c in oracle_classes.values()
        )
    ):
        fail(
            "oracle_classes",
            oracle_classes,
            "a non-empty dict of label -> FrequencyOracle subclass (e.g. {'GRR': GRR})",
        )
    return oracle_classes


def rr_estimation_errors(
    rr: BinaryRR, true_fraction: float, sizes, *, n_draws: int, rng: np.random.Generator
) -> np.ndarray:
    """π̂ − π for ``n_draws`` simulated surveys at each n in ``sizes`` (shape (len(sizes), n_draws)).

    Each survey has round(π n) "Yes" users; its reported count is drawn by ``rr.sample_aggregate``.

    References
    ----------
    [tutorial] "Randomized response" (the estimator and its error).
    """
    check_instance("rr", rr, BinaryRR)
    true_fraction = check_probability(true_fraction, "true_fraction")
    sizes = check_int_array("sizes", sizes, low=1).ravel()
    n_draws = check_n_draws(n_draws)
    rng = check_rng(rng)
    errors = []
    for n in sizes:
        ones = share_count(true_fraction, int(n))
        reported = rr.sample_aggregate(
            np.array([n - ones, ones], dtype=np.int64), rng=rng, n_draws=n_draws
        )
        errors.append(rr.estimate_fraction(reported, n) - true_fraction)
    return np.array(errors)


def _estimates(oracle, true_counts, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """ĉ for ``n_draws`` surveys drawn in one ``oracle.sample_aggregate`` call (shape (n_draws, d));
    the oracle's sampler checks ``true_counts`` ([tutorial] "Frequency Oracles", the estimator ĉ(i))."""
    n = oracle.n_reports(true_counts)
    return oracle.estimate(oracle.sample_aggregate(true_counts, rng=rng, n_draws=n_draws), n)


def variance_study(
    oracle_classes: dict,
    epsilons,
    d: int,
    true_counts,
    index: int,
    *,
    n_draws: int,
    rng: np.random.Generator,
) -> dict:
    """For each named oracle class and ε: simulated, exact and approximate Var[ĉ(index)].

    Returns ``{name: (simulated, exact, approx)}``, three arrays over ``epsilons``.

    References
    ----------
    [wang2017] Theorem 2 (exact before approximation); [wang2017] Eq. (2) (approximate); [tutorial] the variance table.
    """
    index = check_int("index", index, low=0, high=check_int("d", d, low=2) - 1)
    epsilons = check_epsilons(epsilons).ravel()
    n_draws, rng = check_n_draws(n_draws, low=2), check_rng(rng)
    out = {}
    for name, cls in _check_classes(oracle_classes).items():
        oracles = [cls(float(e), d) for e in epsilons]
        n = oracles[0].n_reports(true_counts)
        simulated = [
            _estimates(o, true_counts, n_draws, rng)[:, index].var(ddof=1) for o in oracles
        ]
        exact = [o.variance(true_counts)[index] for o in oracles]
        approx = [o.approx_variance(n) for o in oracles]
        out[name] = (np.array(simulated), np.array(exact), np.array(approx))
    return out


def uniform_variance_per_user(
    oracle_classes: dict,
    epsilon: float,
    domain_sizes,
    users_per_value: int,
    *,
    n_draws: int | None = None,
    rng: np.random.Generator | None = None,
) -> dict:
    """Var[ĉ(0)]/n on uniform data (``users_per_value`` users per value) for each class and d.

    Exact (``n_draws=None``) or simulated with ``n_draws`` surveys of the exact aggregate samplers.

    References
    ----------
    [wang2017] §4 (DE's variance grows with d, OUE's does not); [tutorial] "Summary".
    """
    domain_sizes = check_int_array("domain_sizes", domain_sizes, low=2).ravel()
    # n = users_per_value·d users at most 2^62 (a count vector's largest total): else refused as "true_counts"
    top = 2**62 // int(domain_sizes.max())
    users_per_value = check_int("users_per_value", users_per_value, low=1, high=top)
    if n_draws is not None:
        n_draws, rng = check_n_draws(n_draws, low=2), check_rng(rng)
    out = {}
    for name, cls in _check_classes(oracle_classes).items():
        values = []
        for d in domain_sizes:
            oracle, counts = cls(epsilon, int(d)), np.full(int(d), users_per_value, dtype=np.int64)
            if n_draws is None:
                values.append(oracle.variance(counts)[0])
            else:
                values.append(_estimates(oracle, counts, n_draws, rng)[:, 0].var(ddof=1))
        out[name] = np.array(values) / (users_per_value * domain_sizes)
    return out


def cms_mean_z_scores(cms, true_counts, *, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """z-scores of the mean CMS estimate over ``n_draws`` sketches vs its exact fixed-hash mean and variance.

    References
    ----------
    [apple2017] Algorithm 3 (mean query); [tutorial] "Apple's implementation of LDP".
    """
    check_instance("cms", cms, CountMeanSketch)
    estimates = _estimates(cms, true_counts, check_n_draws(n_draws, low=2), check_rng(rng))
    return versus_exact(estimates, cms.expected_estimate(true_counts), cms.variance(true_counts)).z


def postprocessing_summary(oracle, true_counts, *, n_draws: int, rng: np.random.Generator) -> dict:
    """For each post-processing method: (mean estimate of the absent values, MSE per value) over surveys.

    References
    ----------
    [tutorial] "Frequency Oracles" (negative estimates); [duchi2008] (the simplex projection).
    """
    counts, n = check_true_counts(true_counts, check_instance("oracle", oracle, FrequencyOracle).d)
    absent = counts == 0
    if not absent.any():
        fail(
            "true_counts",
            Described("no zero count"),
            "counts with at least one absent value (a zero count)",
        )
    raw = _estimates(oracle, counts, check_n_draws(n_draws, low=2), check_rng(rng))
    summary = {}
    for method in METHODS:
        processed = np.array([postprocess(row, n, method) for row in raw])
        summary[method] = (
            float(processed[:, absent].mean()),
            float(np.mean((processed - counts) ** 2)),
        )
    return summary


@dataclass(frozen=True)
class Walkthrough:
    """One frequency oracle, step by step: a user's report, what it supports, and one survey's estimates."""

    report: np.ndarray  # the user's whole report (value, bit vector, noisy vector or (a, b, y))
    # the values it supports (pure oracles); empty for SHE (summed, not counted)
    support: np.ndarray
    # ĉ(i) of one survey of the population, drawn by the exact aggregate sampler
    estimates: np.ndarray
    sd: np.ndarray  # exact standard deviation of ĉ(i) for that population


def oracle_walkthrough(oracle, value: int, true_counts, *, rng: np.random.Generator) -> Walkthrough:
    """Encode → perturb → aggregate for one oracle: user ``value``'s report and support, then a survey.

    The report comes from the per-user client (the paper's algorithm); the survey of the population
    ``true_counts`` from the exact aggregate sampler, with the exact standard deviation of each ĉ(i).

    References
    ----------
    [wang2017] §3–4 (encode, perturb, aggregate; Support); [tutorial] "Frequency Oracles".
    """
    oracle = check_instance(
        "oracle", oracle, FrequencyOracle, "a frequency oracle such as GRR(1.0, 4)"
    )
    value = check_int("value", value, low=0, high=oracle.d - 1)
    counts, n = check_true_counts(true_counts, oracle.d)
    rng = check_rng(rng)
    report = np.asarray(oracle.perturb(np.array([value]), rng=rng))[0]
    support = np.empty(0, dtype=np.int64)  # SHE sums the noisy vectors: nothing is "supported"
    if hasattr(oracle, "q"):
        support = np.flatnonzero(np.asarray(oracle.aggregate(report[None])).ravel())
    estimates = np.asarray(
        oracle.estimate(oracle.sample_aggregate(counts, rng=rng), n), dtype=float
    )
    return Walkthrough(report, support, estimates, np.sqrt(oracle.variance(counts)))


def walkthrough_text(oracle, value: int, true_counts, *, rng: np.random.Generator) -> str:
    """:func:`oracle_walkthrough` as five lines of text: p* and q*, one user's report and its support, one survey.

    The report is rounded to 3 decimals, the estimates and their exact standard deviations to 1.

    References
    ----------
    [wang2017] §3–4 (encode, perturb, aggregate; Support); [tutorial] "Frequency Oracles".
    """
    w = oracle_walkthrough(oracle, value, true_counts, rng=rng)
    pure = hasattr(oracle, "q")  # SHE: summed, so no p*, q*
    p_q = f"p* = {oracle.p:.4f}, q* = {oracle.q:.4f}" if pure else "no p*, q*: summed"
    return "\n".join(
        [
            f"{type(oracle).__name__} at eps = {oracle.epsilon:.4g}, d = {oracle.d}: {p_q}",
            f"  report of a user with v = {value}: {np.round(w.report, 3)}; supports {w.support.tolist()}",
            f"  true counts        {np.asarray(true_counts).tolist()}",
            f"  one survey's c^(i) {np.round(w.estimates, 1).tolist()}",
            f"  exact sd of c^(i)  {np.round(w.sd, 1).tolist()}",
        ]
    )


def hash_collision_rate(
    oracle, x: int, y: int, *, n_seeds: int, rng: np.random.Generator
) -> tuple[float, float]:
    """How often the local-hashing client's H collides on two values: the share of ``n_seeds`` random
    seeds (a, b) with H(x) = H(y), and its standard error (1/g and √(g⁻¹(1 − g⁻¹)/n) for a random function).

    References
    ----------
    [tutorial] "Binary Local Hashing" (the family must have Pr[H(x) = H(y)] ≤ 1/2 for x ≠ y).
    """
    oracle = check_instance("oracle", oracle, LocalHashing, "a local-hashing oracle (BLH, OLH)")
    x, y = check_int("x", x, low=0, high=oracle.d - 1), check_int("y", y, low=0, high=oracle.d - 1)
    if x == y:
        fail("y", y, f"a value other than x = {x}")
    n_seeds, rng = check_int("n_seeds", n_seeds, low=2, high=MAX_N_DRAWS), check_rng(rng)
    a, b = rng.integers(1, HASH_PRIME, size=n_seeds), rng.integers(0, HASH_PRIME, size=n_seeds)
    rate = float(np.mean(oracle.hash_values(a, b, x) == oracle.hash_values(a, b, y)))
    return rate, share_se(1 / oracle.g, n_seeds)
