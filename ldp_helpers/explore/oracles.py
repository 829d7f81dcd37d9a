"""Pure computations behind the frequency-oracle playground and the privacy–utility panel (no widgets).

Every frequency oracle is taken from :data:`~ldp_helpers.mechanisms.registry.REGISTRY` (the entries
whose example is a :class:`~ldp_helpers.mechanisms.base.FrequencyOracle`) and rebuilt at the
chosen ε and d with :func:`dataclasses.replace`; nothing here names a mechanism.  One survey is
one exact draw of the oracle's aggregate sampler (never a per-user simulation), so a recompute
costs O(d) whatever n.

References
----------
[wang2017] §3–§4 (pure frequency oracles, their variances); [grr_vs_oue] §3.6 (crossovers);
[tutorial] "Frequency Oracles".
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import (check_choice, check_epsilon, check_int, check_int_array, check_real, check_real_array,
                                     check_rng, fail)
# the pure functions of the oracles live in the science layer; the panels import them from here
from ldp_helpers.experiments.field_oracles import (TIE_RTOL, _build_oracle, _checked_key, _mse_parts, build_oracle, oracle_keys,
                                                   report_size)
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.simulate.datasets import load_trouser_counts
from ldp_helpers.simulate.populations import flat_counts, power_law_counts

#: the populations of the playground
POPULATIONS = ("uniform", "zipf", "clickstream")
#: shown for a quantity that cannot be computed at this size (e.g. an output table too large)
UNAVAILABLE = "—"


def whole_report_epsilon(mechanism_key: str, epsilon: float, d: int) -> float | str:
    """The exact whole-report ε from the oracle's output table, or :data:`UNAVAILABLE` if the table is too large.

    The oracles refuse (with a ``ValueError`` naming d) a table they cannot enumerate quickly, so
    this never hangs; cached per (key, ε, d).

    References
    ----------
    [tutorial] Eq. (2) (ε-LDP); README "Mechanism contract" (privacy_loss).
    """
    return _whole_report_epsilon(*_checked_key(mechanism_key, epsilon, d))


@functools.lru_cache(maxsize=512)
def _whole_report_epsilon(mechanism_key: str, epsilon: float, d: int) -> float | str:
    oracle = _build_oracle(mechanism_key, epsilon, d)
    try:
        return float(oracle.privacy_loss())
    except ValueError:
        return UNAVAILABLE


def population_counts(population: str, n: int, d: int, *, zipf_s: float = 1.1) -> np.ndarray:
    """True counts of n users over [0, d): ``"uniform"``, ``"zipf"`` (exponent ``zipf_s``) or ``"clickstream"``.

    ``"clickstream"`` is the committed trousers dataset ([grr_vs_oue] Dataset 2): it fixes d = 43
    and n = 49,742 (a different d is refused, n is ignored).
    """
    population = check_choice("population", population, POPULATIONS)
    d = check_int("d", d, low=2)
    n, zipf_s = check_int("n", n, low=1), check_real("zipf_s", zipf_s, low=0.0, low_open=False)  # whatever the population
    if population == "clickstream":
        counts = load_trouser_counts().counts.astype(np.int64)
        if d != counts.size:
            fail("d", d, f"{counts.size} for the clickstream population (its number of trouser models)")
        return counts
    if population == "uniform":
        return flat_counts(n, d)
    counts = power_law_counts(n, d, zipf_s)
    counts[0] += n - int(counts.sum())  # rounding: keep exactly n users (value 0 is the most frequent)
    return counts


class PlaygroundState(NamedTuple):
    """What the playground shows for one setting (all arrays have length d)."""

    label: str
    true_counts: np.ndarray
    estimate: np.ndarray  # one exact survey's unbiased count estimates
    sigma: np.ndarray  # exact standard deviation of each estimate
    whole_report_epsilon: float | str  # from the output table, or UNAVAILABLE
    report_bits: int | str  # bits per report (report_size), or UNAVAILABLE
    mse: float  # exact mean squared error of the count estimates (mean over values: variance + bias²)


def playground_state(mechanism_key, epsilon, d, n, population="uniform", *, zipf_s: float = 1.1, seed: int = 0) -> PlaygroundState:
    """One exact survey of the registered oracle on the chosen population, with ±σ and the whole-report ε.

    ``estimate`` is ``oracle.estimate(oracle.sample_aggregate(truth, rng=...), n)`` — one draw of the
    exact aggregate law — and ``sigma = sqrt(oracle.variance(truth))`` (bands at ±2σ cover each
    estimate with probability ≈ 95 %).

    References
    ----------
    [wang2017] Eq. (1), Theorem 2 (exact variance before the approximation); [tutorial] "Frequency Oracles".
    """
    oracle = build_oracle(mechanism_key, check_epsilon(epsilon), check_int("d", d, low=2))
    seed = check_int("seed", seed, low=0)
    truth = population_counts(population, n, oracle.d, zipf_s=zipf_s)
    n_users = int(truth.sum())
    rng = check_rng(np.random.default_rng(seed))
    estimate = np.asarray(oracle.estimate(oracle.sample_aggregate(truth, rng=rng), n_users), dtype=float)
    variance = np.asarray(oracle.variance(truth), dtype=float)
    return PlaygroundState(REGISTRY[mechanism_key].label, truth, estimate, np.sqrt(variance),
                           whole_report_epsilon(mechanism_key, oracle.epsilon, oracle.d),
                           report_size(mechanism_key, oracle.epsilon, oracle.d).bits, sum(_mse_parts(oracle, truth)))


class PrivacyUtilityCurves(NamedTuple):
    """Exact MSE per oracle over an ε grid (flat population of n users over d values)."""

    epsilons: np.ndarray
    exact: dict  # key -> exact MSE per ε: variance + bias² (nan where the oracle refuses that ε, e.g. underflow)
    approx: dict  # key -> Wang's approximate variance per ε (only oracles that define it)
    labels: dict  # key -> display label
    crossovers: tuple  # (ε, best key below, best key above): where the best oracle changes
    bias: dict  # key -> the bias² part of exact (0 but for the fixed-hash sketches, CMS and FLH)
    n: int  # the users the curves are computed for

    def rescaled(self, n) -> "PrivacyUtilityCurves":
        """These curves for a flat population of ``n`` users (same d): variances and Wang's approximation scale as
        n, the sketches' bias² as n²; crossovers recomputed.  Exact when both n are multiples of d (the flat
        split), in expectation over the allocation otherwise."""
        scale = check_int("n", n, low=1) / self.n
        exact = {key: scale * (values - self.bias[key]) + scale**2 * self.bias[key] for key, values in self.exact.items()}
        return self._replace(exact=exact, approx={key: scale * v for key, v in self.approx.items()},
                             crossovers=_crossovers(self.epsilons, exact),
                             bias={key: scale**2 * v for key, v in self.bias.items()}, n=int(n))


def _exact_mse(key: str, epsilon: float, d: int, counts: np.ndarray) -> tuple[float, float, float]:
    try:
        oracle = build_oracle(key, epsilon, d)
    except ValueError:  # e.g. ε too large for double precision at this d
        return math.nan, math.nan, math.nan
    variance, bias = _mse_parts(oracle, counts)
    approx = float(oracle.approx_variance(int(counts.sum()))) if hasattr(oracle, "approx_variance") else math.nan
    return variance + bias, approx, bias


def _crossovers(grid: np.ndarray, exact: dict) -> tuple:
    """Where the oracle of smallest exact MSE changes between neighbouring ε, placed where the log-MSE difference of
    the two changes sign (linear in ε); ties go to the oracle registered first."""
    keys, table = list(exact), np.array(list(exact.values()))
    finite = np.where(np.isnan(table), np.inf, table)
    lowest = finite.min(axis=0)
    # ties go to the first registered oracle: ADP is GRR or OUE, L-GRR's and L-OSUE's first reports are
    # GRR's and OUE's at ε₁, equal up to rounding (TIE_RTOL), and a tie is no crossover
    best = np.where(np.isinf(lowest), -1, np.argmax(finite <= lowest * (1 + TIE_RTOL), axis=0))
    crossovers = []
    for j in range(grid.size - 1):
        a, b = best[j], best[j + 1]
        if a != b and a >= 0 and b >= 0:
            diff = np.log(table[a, j:j + 2]) - np.log(table[b, j:j + 2])
            t = diff[0] / (diff[0] - diff[1]) if np.all(np.isfinite(diff)) and diff[0] != diff[1] else 0.5
            crossovers.append((float(grid[j] + t * (grid[j + 1] - grid[j])), keys[a], keys[b]))
    return tuple(crossovers)


def privacy_utility_curves(d, n, epsilons) -> PrivacyUtilityCurves:
    """Exact MSE (mean of ``variance`` plus the mean squared bias of the fixed-hash sketches) and Wang's
    approximation of every registered oracle vs ε, with crossovers.

    A crossover is a change of the oracle with the smallest exact MSE between two neighbouring
    grid points, placed where the log-MSE difference of the two changes sign (linear in ε).

    References
    ----------
    [wang2017] Eq. (2), Theorem 2, §4 (DE/OUE/OLH comparison); [grr_vs_oue] §3.6, Fig. 3.7.
    """
    d, n = check_int("d", d, low=2), check_int("n", n, low=1)
    grid = check_real_array("epsilons", epsilons, low=0.0)
    if grid.ndim != 1 or grid.size < 2 or np.any(np.diff(grid) <= 0):
        fail("epsilons", epsilons, "a strictly increasing 1-d grid of at least two budgets ε > 0")
    counts = flat_counts(n, d)
    keys = oracle_keys()
    parts = {key: np.array([_exact_mse(key, float(e), d, counts) for e in grid]) for key in keys}
    exact = {key: parts[key][:, 0] for key in keys}
    approx = {key: parts[key][:, 1] for key in keys if not np.all(np.isnan(parts[key][:, 1]))}
    return PrivacyUtilityCurves(grid, exact, approx, {key: REGISTRY[key].label for key in keys}, _crossovers(grid, exact),
                                {key: parts[key][:, 2] for key in keys}, n)


def oracle_ranking(epsilon, d, n, population="uniform", *, zipf_s: float = 1.1) -> tuple[tuple[str, float], ...]:
    """Every registered oracle's exact MSE at (ε, d) on this population, best first: where the point lies on the phase diagram.

    Oracles that refuse this ε at this d (e.g. double-precision underflow) are left out.

    References
    ----------
    [wang2017] §4 (DE vs OUE vs OLH by variance); [grr_vs_oue] §3.6 (exact crossover).
    """
    epsilon, d = check_epsilon(epsilon), check_int("d", d, low=2)
    truth = population_counts(population, n, d, zipf_s=zipf_s)
    ranking = []
    for key in oracle_keys():
        try:
            oracle = _build_oracle(key, epsilon, int(truth.size))
        except ValueError:
            continue
        ranking.append((key, sum(_mse_parts(oracle, truth))))
    lowest = min(mse for _, mse in ranking)  # the oracles tied for best (within TIE_RTOL) keep the registry order
    order = {key: i for i, (key, _) in enumerate(ranking)}
    return tuple(sorted(ranking, key=lambda item: (0, order[item[0]]) if item[1] <= lowest * (1 + TIE_RTOL) else (1, item[1])))


# ------------------------------------------------------------------------------------ report size, phase diagram

#: the three oracles of Wang et al.'s comparison, in the phase diagram's order
PHASE_KEYS = ("grr", "oue", "olh")
@functools.lru_cache(maxsize=4)
def _phase_table(epsilons: tuple, ds: tuple) -> np.ndarray:
    best = np.full((len(ds), len(epsilons)), -1, dtype=np.int64)
    for i, d in enumerate(ds):
        counts = np.full(d, 1000, dtype=np.int64)
        for j, e in enumerate(epsilons):
            mse = []
            for key in PHASE_KEYS:
                try:
                    oracle = dataclasses.replace(REGISTRY[key].example(), epsilon=e, d=d)
                    mse.append(float(np.mean(oracle.variance(counts))))
                except ValueError:  # the oracle refuses (ε, d) (double-precision underflow)
                    mse.append(math.inf)
            best[i, j] = int(np.argmin(mse)) if np.isfinite(min(mse)) else -1
    best.setflags(write=False)
    return best


def phase_diagram(epsilons, ds) -> np.ndarray:
    """Which of GRR (DE), OUE, OLH (:data:`PHASE_KEYS`) has the lowest exact MSE at each (d, ε), shape (len(ds), len(ε)).

    On a flat population every oracle's exact count variance is proportional to n, so the
    winner does not depend on n (computed at 1000 users per value); −1 where all three refuse.
    Cached per grid.

    References
    ----------
    [wang2017] §4.4 (DE best for d < 3e^ε + 2, else OUE/OLH); [grr_vs_oue] §3.6.
    """
    grid = check_real_array("epsilons", epsilons, low=0.0)
    if grid.ndim != 1 or grid.size < 2 or np.any(np.diff(grid) <= 0):
        fail("epsilons", epsilons, "a strictly increasing 1-d grid of at least two budgets ε > 0")
    ds = check_int_array("ds", ds, low=2)
    if ds.ndim != 1 or ds.size < 1:
        fail("ds", ds, "a 1-d array of domain sizes d ≥ 2")
    return _phase_table(tuple(float(e) for e in grid), tuple(int(d) for d in ds))
