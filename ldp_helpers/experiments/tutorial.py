"""Short experiment drivers for the tutorial notebook (00_tutorial): simulations over the oracles.

Every driver draws whole surveys with an exact aggregate sampler (sufficient statistics, never
an n × d report matrix) from the injected Generator and returns arrays the notebook plots.
"""

from __future__ import annotations

import math

import numpy as np

from ldp_helpers._validation import check_int, check_int_array, check_probability, check_real, check_real_array, check_rng, check_true_counts
from ldp_helpers.estimation.postprocessing import METHODS, postprocess
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.randomized_response import BinaryRR


def rr_estimation_errors(rr: BinaryRR, true_fraction: float, sizes, *, repetitions: int, rng: np.random.Generator) -> np.ndarray:
    """π̂ − π for ``repetitions`` simulated surveys at each n in ``sizes`` (shape (len(sizes), repetitions)).

    Each survey has round(π n) "Yes" users; its reported count is drawn by ``rr.sample_count``.
    """
    true_fraction = check_probability(true_fraction, "true_fraction")
    sizes = check_int_array("sizes", sizes, low=1).ravel()
    repetitions = check_int("repetitions", repetitions, low=1)
    rng = check_rng(rng)
    return np.array([rr.estimate_fraction(rr.sample_count(round(true_fraction * n), int(n), rng=rng, size=repetitions), n) - true_fraction
                     for n in sizes])


def simulated_estimates(oracle, true_counts, *, repetitions: int, rng: np.random.Generator) -> np.ndarray:
    """ĉ for ``repetitions`` surveys drawn by ``oracle.sample_support_counts`` (shape (repetitions, d))."""
    counts, n = oracle.true_counts_and_n(true_counts)
    repetitions = check_int("repetitions", repetitions, low=2)
    rng = check_rng(rng)
    return np.array([oracle.estimate_counts(oracle.sample_support_counts(counts, rng=rng), n) for _ in range(repetitions)])


def variance_study(oracle_classes: dict, epsilons, d: int, true_counts, index: int, *, repetitions: int,
                   rng: np.random.Generator) -> dict:
    """For each named oracle class and ε: simulated, exact and approximate Var[ĉ(index)].

    Returns ``{name: (simulated, exact, approx)}``, three arrays over ``epsilons``.
    """
    index = check_int("index", index, low=0, high=check_int("d", d, low=2) - 1)
    n = check_true_counts(true_counts, d)[1]
    out = {}
    for name, cls in oracle_classes.items():
        oracles = [cls(float(e), d) for e in epsilons]
        simulated = [simulated_estimates(o, true_counts, repetitions=repetitions, rng=rng)[:, index].var(ddof=1) for o in oracles]
        exact = [o.count_variance(true_counts)[index] for o in oracles]
        approx = [o.approx_count_variance(n) for o in oracles]
        out[name] = (np.array(simulated), np.array(exact), np.array(approx))
    return out


def uniform_variance_per_user(oracle_classes: dict, epsilon: float, domain_sizes, users_per_value: int, *,
                              repetitions: int | None = None, rng: np.random.Generator | None = None) -> dict:
    """Var[ĉ(0)]/n on uniform data (``users_per_value`` users per value) for each class and d.

    Exact (``repetitions=None``) or simulated with the exact aggregate samplers.
    """
    domain_sizes = check_int_array("domain_sizes", domain_sizes, low=2).ravel()
    users_per_value = check_int("users_per_value", users_per_value, low=1)
    out = {}
    for name, cls in oracle_classes.items():
        values = []
        for d in domain_sizes:
            oracle, counts = cls(epsilon, int(d)), np.full(int(d), users_per_value)
            if repetitions is None:
                values.append(oracle.count_variance(counts)[0])
            else:
                values.append(simulated_estimates(oracle, counts, repetitions=repetitions, rng=rng)[:, 0].var(ddof=1))
        out[name] = np.array(values) / (users_per_value * domain_sizes)
    return out


def power_law_counts(n: int, d: int, exponent: float) -> np.ndarray:
    """Counts ≈ n·(i+1)^−exponent/Σ for i in [0, d), rounded (value 0 the most frequent; an emoji-like skew)."""
    n, d = check_int("n", n, low=1), check_int("d", d, low=1)
    weights = np.arange(1, d + 1, dtype=float) ** -check_real("exponent", exponent, low=0.0, low_open=False)
    return np.round(n * weights / weights.sum()).astype(np.int64)


def random_baskets(n_users: int, d: int, max_size: int, item_weights, *, rng: np.random.Generator) -> list:
    """``n_users`` item sets: each of uniform size in [1, max_size], items drawn without replacement ∝ weights."""
    n_users, d = check_int("n_users", n_users, low=1), check_int("d", d, low=1)
    max_size = check_int("max_size", max_size, low=1, high=d)
    weights = check_real_array("item_weights", item_weights, low=0.0).ravel()
    if weights.size != d:
        raise ValueError(f"item_weights must hold d = {d} weights; got {weights.size}")
    rng = check_rng(rng)
    return [rng.choice(d, size=rng.integers(1, max_size + 1), replace=False, p=weights / weights.sum()) for _ in range(n_users)]


def cms_mean_z_scores(cms, true_counts, *, repetitions: int, rng: np.random.Generator) -> np.ndarray:
    """z-scores of the mean CMS estimate over ``repetitions`` sketches vs its exact fixed-hash mean and variance."""
    counts, n = check_true_counts(true_counts, cms.d)
    repetitions = check_int("repetitions", repetitions, low=2)
    rng = check_rng(rng)
    estimates = np.array([cms.estimate_counts(cms.sample_sketch(counts, rng=rng), n) for _ in range(repetitions)])
    return (estimates.mean(axis=0) - cms.expected_counts(counts)) / np.sqrt(cms.count_variance(counts) / repetitions)


def postprocessing_summary(oracle, true_counts, *, repetitions: int, rng: np.random.Generator) -> dict:
    """For each post-processing method: (mean estimate of the absent values, MSE per value) over surveys."""
    counts, n = oracle.true_counts_and_n(true_counts)
    raw = simulated_estimates(oracle, counts, repetitions=repetitions, rng=rng)
    absent = counts == 0
    if not absent.any():
        raise ValueError("true_counts must contain at least one absent value (a zero count)")
    summary = {}
    for method in METHODS:
        processed = np.array([postprocess(row, n, method) for row in raw])
        summary[method] = (float(processed[:, absent].mean()), float(np.mean((processed - counts) ** 2)))
    return summary


def composed_privacy_loss(table, reports: int) -> float:
    """Exact privacy loss of ``reports`` independent uses of a mechanism with output table ``table``.

    The composed table has one column per tuple of outputs (product probabilities); its loss is
    computed by :func:`~ldp_helpers.mechanisms.privacy.max_privacy_loss` (sequential composition says ≤ k·ε).
    """
    table = np.asarray(table, dtype=float)
    reports = check_int("reports", reports, low=1)
    if table.ndim != 2 or table.shape[1] ** reports > 2**20:
        raise ValueError(f"table must be 2-D with (outputs)^reports ≤ 2^20; got shape {table.shape} and reports={reports}")
    composed = table
    for _ in range(reports - 1):
        composed = (composed[:, :, None] * table[:, None, :]).reshape(table.shape[0], -1)
    return max_privacy_loss(composed)


def ldp_noise_ratio(rr: BinaryRR, true_fraction: float, n: int) -> float:
    """sd of the RR count estimate × ε / √n: tends to 1 as ε → 0 (LDP noise is of order √n/ε)."""
    true_fraction = check_probability(true_fraction, "true_fraction")
    n = check_int("n", n, low=1)
    return n * math.sqrt(rr.fraction_variance(true_fraction, n)) * rr.epsilon / math.sqrt(n)
