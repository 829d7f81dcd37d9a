"""Pure computations behind the frequency-oracle playground (no widgets): the oracles, populations and one survey.

Every frequency oracle comes from :data:`~ldp_helpers.mechanisms.registry.REGISTRY` (the entries of a
frequency-estimation family, :data:`ORACLE_FAMILIES`, whose mechanism is a
:class:`~ldp_helpers.mechanisms.base.FrequencyOracle`); nothing here names a mechanism.  Each oracle
is **built afresh for the panel's ε and d** by its own class — ``cls.create(ε, d, **structure, rng=…)``
when the class has an alternate constructor (its extra parameters, e.g. a sketch's k and m, are the
oracle's *structure*, exposed in the panels with :data:`STRUCTURE`'s defaults and ranges), otherwise
``cls(epsilon=ε, d=d)`` with every other field at the class default (so OLH's g and THE's θ follow ε).
A registry example (built for a small d and one ε) is never reused.

The numbers a panel shows are the mechanism's exact quantities for the population shown: one survey
is one exact draw of ``sample_aggregate`` (never a per-user simulation, so a recompute costs O(d)
whatever n), σ² is ``variance(truth)``, the bias is ``expected_estimate(truth) − estimand(truth)``
(zero for an unbiased oracle; a count-mean sketch with fixed hashes is biased by its collisions) and
the MSE of each value is bias² + variance.

References
----------
[wang2017] §3–§4 (pure frequency oracles, their variances); [apple2017] Algorithms 1–3 (the sketch);
[grr_vs_oue] §3.6; [tutorial] "Frequency Oracles".
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import (check_choice, check_count_vector, check_epsilon, check_instance, check_int, check_real,
                                     check_rng, fail)
from ldp_helpers.explore.outputs import UNAVAILABLE, report_size, whole_report_epsilon  # noqa: F401 (re-exported)
from ldp_helpers.mechanisms.base import FrequencyOracle
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.simulate.datasets import load_trouser_counts
from ldp_helpers.simulate.populations import flat_counts

#: the populations of the playground
POPULATIONS = ("uniform", "zipf", "clickstream")
#: registry families whose mechanisms estimate the d counts of a value domain (the panels list these only)
ORACLE_FAMILIES = ("frequency oracle", "sketch")
#: the panels' domain sizes: d ≤ D_MAX keeps every oracle's exact quantities (a sketch's d × d collision
#: table, k passes) within about a second
D_MAX = 2048
#: the panels' numbers of users (a survey costs O(d) whatever n; counts stay exact in int64)
N_MAX = 10**12
#: exact MSEs this close (relative) are one tie: the first registered oracle is named best (ADP is GRR or OUE,
#: L-GRR's and L-OSUE's first reports are GRR's and OUE's at ε₁: equal up to rounding)
TIE_RTOL = 1e-9


class Structure(NamedTuple):
    """A structural parameter of an oracle's constructor (besides ε and d): its default and allowed range."""

    default: int
    low: int
    high: int
    label: str


#: the structural parameters the panels expose, by name, with the ranges that keep an exact update within about a
#: second at d = D_MAX: k hash functions (a sketch's rows, FLH's public hashes) and the sketch width m ([apple2017],
#: also the private count sketch and sketch response); FLH's hash range g (0: OLH's round(e^ε) + 1, [cormode2021]);
#: Hashtogram's R repetitions and T buckets ([bassily2017]).  A parameter not listed here gets the registry
#: example's value as default and at most :data:`STRUCTURE_HIGH`.
STRUCTURE = {"k": Structure(16, 1, 64, "k (hashes)"), "m": Structure(256, 2, 4096, "m (sketch width)"),
             "g": Structure(0, 0, 1024, "g (0: e^ε+1)"), "n_hashes": Structure(16, 1, 64, "R (hashes)"),
             "n_buckets": Structure(256, 2, 4096, "T (buckets)"), "n_bits": Structure(1, 1, 64, "dBitFlip's d (bits)")}
#: fields of a class without ``create`` that the panels expose (opt-in by name: dBitFlip's bits per user,
#: [ding2017]'s d ≤ the domain size, checked by the class); every other field keeps its class default
FIELD_STRUCTURE = ("n_bits",)
#: the largest value of a structural parameter that :data:`STRUCTURE` does not list
STRUCTURE_HIGH = 4096


def _family_ok(entry) -> bool:
    return entry.family in ORACLE_FAMILIES and isinstance(entry.example(), FrequencyOracle)


@functools.lru_cache(maxsize=1)
def oracle_keys() -> tuple[str, ...]:
    """The registry keys of every frequency oracle the panels list (registry order; cached).

    An entry is listed when its family is one of :data:`ORACLE_FAMILIES` and its mechanism is a
    :class:`~ldp_helpers.mechanisms.base.FrequencyOracle` over [0, d); streams, RAPPOR, binary
    randomized response and any other family are not.
    """
    return tuple(key for key, entry in REGISTRY.items() if _family_ok(entry))


def _creator(cls):
    """The class's alternate constructor ``create(epsilon, d, ..., rng=...)``, or None."""
    create = inspect.getattr_static(cls, "create", None)
    return cls.create if isinstance(create, classmethod) else None


@functools.lru_cache(maxsize=64)
def _structure_names(key: str) -> tuple[str, ...]:
    cls = type(REGISTRY[key].example())
    create = _creator(cls)
    if create is None:
        required = [f.name for f in dataclasses.fields(cls) if f.init and f.default is dataclasses.MISSING
                    and f.default_factory is dataclasses.MISSING and f.name not in ("epsilon", "d")]
        if required:
            raise TypeError(f"{cls.__name__} needs {required} besides epsilon and d and has no create(): the explorer "
                            "cannot build it for another d")
        return tuple(f.name for f in dataclasses.fields(cls) if f.init and f.name in FIELD_STRUCTURE)
    return tuple(name for name, p in inspect.signature(create).parameters.items()
                 if name not in ("epsilon", "d", "rng") and p.kind is p.POSITIONAL_OR_KEYWORD)


def oracle_parameters(mechanism_key) -> dict[str, Structure]:
    """The structural parameters of ``mechanism_key``'s constructor (besides ε, d and rng), with defaults and ranges.

    Empty for an oracle that is fully determined by ε and d.  A name listed in :data:`STRUCTURE`
    takes its default and range from there; another takes the registry example's value as default.

    References
    ----------
    [apple2017] Algorithms 1–3 (k hash functions, sketch width m).
    """
    key = check_choice("mechanism_key", mechanism_key, oracle_keys())
    example = REGISTRY[key].example()
    return {name: STRUCTURE.get(name, _unlisted(name, int(getattr(example, name)))) for name in _structure_names(key)}


def _unlisted(name: str, default: int) -> Structure:
    return Structure(default, min(1, default), max(STRUCTURE_HIGH, default), name)


#: work ceilings of the structured oracles (an update, its ranking of every oracle included, within a few seconds):
#: d × (hash functions) ≤ WORK_DK and (hash functions) × (sketch width or buckets) ≤ WORK_KM
WORK_DK, WORK_KM = 2**15, 2**16
#: (hash functions, width) pairs the ceilings bound
_WORK_PAIRS = (("k", "m"), ("n_hashes", "n_buckets"))


def check_structure(structure=None, d=None) -> dict[str, int]:
    """Every structural parameter any listed oracle takes, validated (missing ones at their defaults).

    ``structure`` maps a name of :func:`oracle_parameters` to an integer in its range; ``None`` means
    all defaults.  With ``d``, the work ceilings apply too: at most ``WORK_DK // d`` hash functions
    (k, R) and ``WORK_KM // k`` sketch columns (m, T).  Returns the full mapping (name → int), in a
    fixed order.
    """
    names = _all_structure()
    if structure is None:
        structure = {}
    check_instance("structure", structure, dict, "a dict of structural parameters (e.g. {'k': 16, 'm': 256})")
    unknown = sorted(set(structure) - set(names))
    if unknown:
        fail("structure", structure, f"a dict with keys among {sorted(names)}")
    shape = {name: check_int(f"structure[{name!r}]", structure.get(name, spec.default), low=spec.low, high=spec.high)
             for name, spec in names.items()}
    if d is not None:
        d = check_int("d", d, low=2, high=D_MAX)
        for rows, cols in _WORK_PAIRS:
            if rows in shape:
                _ceiling(rows, shape[rows], names[rows].low, max(1, min(names[rows].high, WORK_DK // d)),
                         f"at d = {d} (d × {rows} ≤ {WORK_DK} keeps an update within seconds)")
            if rows in shape and cols in shape:
                _ceiling(cols, shape[cols], names[cols].low, max(names[cols].low, min(names[cols].high, WORK_KM // shape[rows])),
                         f"at {rows} = {shape[rows]} ({rows} × {cols} ≤ {WORK_KM} keeps an update within seconds)")
    return shape


def _ceiling(name: str, value: int, low: int, high: int, why: str) -> None:
    if value > high:
        fail(f"structure[{name!r}]", value, f"an integer in [{low}, {high}] {why}")


@functools.lru_cache(maxsize=1)
def _all_structure() -> dict[str, Structure]:
    return dict(sorted({name: spec for key in oracle_keys() for name, spec in oracle_parameters(key).items()}.items()))


def build_oracle(mechanism_key, epsilon, d, *, structure=None, seed=0) -> FrequencyOracle:
    """The registered oracle ``mechanism_key`` built for budget ε over [0, d) by its own class (cached).

    ``cls.create(ε, d, **structure, rng=default_rng([1, seed]))`` for an oracle with an alternate
    constructor (the seed draws its hash functions, whatever ε: curves over ε share them), else
    ``cls(epsilon=ε, d=d)``.  Raises the library's ``ValueError`` for an unknown key, ε ≤ 0, d outside
    [2, :data:`D_MAX`] or a structural parameter out of range.

    References
    ----------
    [wang2017] §4; [apple2017] Algorithm 1 (the sketch's public hash functions).
    """
    key, epsilon, d = _checked_key(mechanism_key, epsilon, d)
    shape = check_structure(structure, d)
    return _build_oracle(key, epsilon, d, tuple(shape.items()), check_int("seed", seed, low=0))


def _checked_key(mechanism_key, epsilon, d) -> tuple[str, float, int]:
    """Validate before any cache lookup (an unhashable argument gets the library's message, not lru_cache's)."""
    return (check_choice("mechanism_key", mechanism_key, oracle_keys()), check_epsilon(epsilon),
            check_int("d", d, low=2, high=D_MAX))


@functools.lru_cache(maxsize=512)
def _build_oracle(key: str, epsilon: float, d: int, structure: tuple, seed: int) -> FrequencyOracle:
    cls = type(REGISTRY[key].example())
    create = _creator(cls)
    own = {name: value for name, value in structure if name in _structure_names(key)}
    if create is None:
        return cls(epsilon=epsilon, d=d, **own)
    return create(epsilon, d, **own, rng=np.random.default_rng([1, seed]))  # its own stream (a survey uses seed)


def population_counts(population, n, d, *, zipf_s=1.1) -> np.ndarray:
    """True counts of exactly n users over [0, d): ``"uniform"``, ``"zipf"`` (exponent ``zipf_s``) or ``"clickstream"``.

    ``"uniform"`` is the flattest split; ``"zipf"`` gives value i a share ∝ (i+1)^−s, rounded by
    largest remainders (exactly n users, value 0 the most frequent).  ``"clickstream"`` is the
    committed trousers dataset ([grr_vs_oue] Dataset 2): it fixes d = 43 and n = 49,742 (a different d
    is refused, n is ignored).
    """
    population = check_choice("population", population, POPULATIONS)
    d = check_int("d", d, low=2, high=D_MAX)
    n, zipf_s = check_int("n", n, low=1, high=N_MAX), check_real("zipf_s", zipf_s, low=0.0, high=10.0, low_open=False,
                                                                high_open=False)
    if population == "clickstream":
        counts = load_trouser_counts().counts.astype(np.int64)
        if d != counts.size:
            fail("d", d, f"{counts.size} for the clickstream population (its number of trouser models)")
        return counts
    if population == "uniform":
        return flat_counts(n, d)
    share = np.arange(1, d + 1, dtype=float) ** -zipf_s
    ideal = n * share / share.sum()
    counts = np.floor(ideal).astype(np.int64)
    extra = n - int(counts.sum())  # 0 ≤ extra < d: to the largest remainders (ties: the smaller value)
    counts[np.argsort(-(ideal - counts), kind="stable")[:extra]] += 1
    return counts


class PlaygroundState(NamedTuple):
    """What the playground shows for one setting (arrays have length d)."""

    label: str
    true_counts: np.ndarray
    estimate: np.ndarray  # one exact survey's count estimates ĉ(i)
    expected: np.ndarray  # exact E[ĉ(i)] (= the true counts for an unbiased oracle)
    sigma: np.ndarray  # exact standard deviation of each estimate
    whole_report_epsilon: float | str  # from the output table, or UNAVAILABLE
    report_bits: int | str  # bits per report (report_size), or UNAVAILABLE
    mse: float  # exact mean over values of bias² + variance
    bias_sq: float  # exact mean over values of bias² (0 for an unbiased oracle)


def exact_errors(oracle: FrequencyOracle, truth) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(E[ĉ], bias, variance)`` of every value's estimate for this population: the mechanism's exact quantities.

    The MSE of value i is ``bias[i]**2 + variance[i]``.

    References
    ----------
    [wang2017] Theorem 2 (exact variance); [apple2017] Algorithm 3 (the sketch's mean query).
    """
    oracle = check_instance("oracle", oracle, FrequencyOracle)
    truth = check_count_vector("truth", truth, oracle.d)
    if not truth.any():
        fail("truth", truth, "true counts describing at least one user")
    try:
        expected = np.asarray(oracle.expected_estimate(truth), dtype=float)
        variance = np.asarray(oracle.variance(truth), dtype=float)
    except (OverflowError, ZeroDivisionError):  # a formula's e^ε beyond double precision
        expected = variance = np.array([np.inf])
    if not (np.all(np.isfinite(expected)) and np.all(np.isfinite(variance))):
        fail("epsilon", oracle.epsilon, f"a budget at which {type(oracle).__name__}'s exact moments are finite in double "
             "precision (use a smaller epsilon)")
    # a variance is ≥ 0; a difference of nearly equal terms can round to −1e-15 when the noise vanishes (ε ≫ 1)
    return expected, expected - np.asarray(oracle.estimand(truth), dtype=float), np.maximum(variance, 0.0)


def playground_state(mechanism_key, epsilon, d, n, population="uniform", *, zipf_s=1.1, seed=0,
                     structure=None) -> PlaygroundState:
    """One exact survey of the registered oracle on the chosen population, with its exact bias, σ, MSE and ε.

    ``estimate`` is ``oracle.estimate(oracle.sample_aggregate(truth, rng=default_rng(seed)), n)``,
    ``sigma = sqrt(variance(truth))``, ``mse`` the mean over values of bias² + variance.  The oracle
    is :func:`build_oracle` with the same ``seed`` (its hashes, if any, from a stream of their own).

    References
    ----------
    [wang2017] Eq. (1), Theorem 2 (exact variance before the approximation); [tutorial] "Frequency Oracles".
    """
    oracle = build_oracle(mechanism_key, epsilon, d, structure=structure, seed=seed)
    truth = population_counts(population, n, oracle.d, zipf_s=zipf_s)
    n_users = int(truth.sum())
    rng = check_rng(np.random.default_rng(int(seed)))
    estimate = np.asarray(oracle.estimate(oracle.sample_aggregate(truth, rng=rng), n_users), dtype=float)
    expected, bias, variance = exact_errors(oracle, truth)
    return PlaygroundState(REGISTRY[mechanism_key].label, truth, estimate, expected, np.sqrt(variance),
                           whole_report_epsilon(oracle), report_size(oracle).bits, float(np.mean(bias**2 + variance)),
                           float(np.mean(bias**2)))
