"""Which frequency oracle for which setting: every registered oracle built at (ε, d), its exact MSE and rank.

The one copy of this science: notebook 07, the explorer's playground and privacy–utility panels and the
benchmarks all call these functions.  Every frequency oracle is taken from
:data:`~ldp_helpers.mechanisms.registry.REGISTRY` (the entries whose example is a
:class:`~ldp_helpers.mechanisms.base.FrequencyOracle`) and built afresh at the chosen ε and d by its own
class (:func:`build_oracle`); nothing here names a mechanism.  The oracles fall in three groups, read from
the classes themselves (:func:`oracle_groups`):

* **one-shot** unbiased oracles (GRR, SUE, OUE, SHE, THE, BLH, OLH, SS, HR, HM, ADP, dBitFlip): the exact
  variance of every count estimate is linear in n, so on a flat population the scaled risk
  ``n·E‖p̂ − p‖²₂ = Σ_x Var[ĉ(x)]/n`` does not depend on n — and for a pure oracle it does not depend on the
  population either (Σ_x f_x(p* − q*)(1 − p* − q*) = n(p* − q*)(1 − p* − q*));
* **sketches** with fixed hashes (FLH, CMS, HCMS, Hashtogram, the private count sketch, sketch
  response): their collisions add a bias whose square grows as n², so they lose to the unbiased
  oracles as n grows (:func:`mse_against_n`);
* **longitudinal** memoized oracles (L-GRR … L-SUE), whose ε is one report's ε₁: compared in
  :mod:`~ldp_helpers.experiments.field_deployments`.

Every oracle states its report size (``report_bits``) and its exact moments (``expected_estimate``,
``variance``); :func:`exact_moments` reads them, refusing a budget at which they leave double precision.

References
----------
[wang2017] §3–§4 (pure protocols, their variances and communication); [ye2018] (SS); [acharya2019] (HR);
[cormode2021] (the sketches); [arcolezi2022] (the longitudinal oracles).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import math
import time
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import (
    check_choice,
    check_count_vector,
    check_epsilon,
    check_epsilons,
    check_instance,
    check_int,
    check_int_array,
    check_ndim,
    check_rng,
    fail,
    fail_type,
)
from ldp_helpers.mechanisms.base import FrequencyOracle
from ldp_helpers.mechanisms.count_mean_sketch import HASH_FAMILIES
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.simulate.populations import flat_counts

#: users per value of the flat population on which the one-shot oracles are ranked (the ranking does not depend on it)
USERS_PER_VALUE = 1000
#: exact risks this close (relative) are one tie: the oracle registered first is named best (ADP is GRR or OUE,
#: SS with k = 1 is GRR)
TIE_RTOL = 1e-9
#: the groups of :func:`oracle_groups`
GROUPS = ("one-shot", "sketch", "longitudinal")
#: fields of a class without ``create`` that count as its structure (dBitFlip's bits per user, [ding2017]); every
#: other field keeps its class default, which follows ε and d (OLH's g, THE's θ, SS's k)
FIELD_STRUCTURE = ("n_bits",)


@functools.lru_cache(maxsize=1)
def oracle_keys() -> tuple[str, ...]:
    """The registry keys whose mechanism is a frequency oracle over a d-value domain (registry order; cached)."""
    return tuple(
        key for key, entry in REGISTRY.items() if isinstance(entry.example(), FrequencyOracle)
    )


@functools.cache
def _creator(cls):
    """The class's alternate constructor ``create(epsilon, d, ..., rng=...)`` (a sketch's hashes), or None."""
    return (
        cls.create if isinstance(inspect.getattr_static(cls, "create", None), classmethod) else None
    )


@functools.lru_cache(maxsize=64)
def _structure_defaults(key: str) -> tuple[tuple[str, int | None], ...]:
    """(name, default) of each structural parameter; None: the class's own default (which may follow ε and d)."""
    example = REGISTRY[key].example()
    create = _creator(type(example))
    if create is None:
        return tuple(
            (f.name, None)
            for f in dataclasses.fields(example)
            if f.init and f.name in FIELD_STRUCTURE
        )
    return tuple(
        (name, int(getattr(example, name)))
        for name, p in inspect.signature(create).parameters.items()
        if name not in ("epsilon", "d", "rng") and p.kind is p.POSITIONAL_OR_KEYWORD
    )


def oracle_structure(mechanism_key) -> dict:
    """The structural parameters of ``mechanism_key``'s constructor besides ε and d, with their defaults.

    A sketch's hash counts and widths (the arguments of its ``create``: k and m, FLH's g, Hashtogram's
    R and T) default to the registry example's values; a structural field (:data:`FIELD_STRUCTURE`)
    to ``None``, the class's own default.  Empty for an oracle determined by ε and d.

    References
    ----------
    [apple2017] Algorithms 1–3 (k hash functions, sketch width m); [cormode2021] (the sketches).
    """
    return dict(_structure_defaults(check_choice("mechanism_key", mechanism_key, oracle_keys())))


def build_oracle(
    mechanism_key, epsilon, d, *, structure=None, seed=0, hash_family="universal"
) -> FrequencyOracle:
    """The registered oracle ``mechanism_key`` built for budget ε over [0, d) by its own class (cached).

    A sketch: ``cls.create(ε, d, **structure, rng=default_rng([1, seed]))`` (the seed draws its hash
    functions, whatever ε: curves over ε share them); a sketch whose ``create`` takes a
    ``hash_family`` (the CMS and HCMS, :func:`hash_family_keys`) gets ``hash_family`` — one of
    :data:`~ldp_helpers.mechanisms.count_mean_sketch.HASH_FAMILIES`, ignored by the others.  Another
    oracle: ``cls(epsilon=ε, d=d)`` with the class's defaults (which follow ε and d: OLH's g, THE's θ,
    SS's k), the example's required fields kept (a longitudinal oracle's ε∞) and its structural fields
    from ``structure``.  ``structure`` maps names of :func:`oracle_structure` (of any oracle: names
    this one does not take are ignored, so one mapping serves every oracle) to integers ≥ 0 or None
    (the default); missing names take their defaults.

    Raises the library's ``ValueError`` for an unknown key, ε ≤ 0, d < 2, a bad structure or whatever
    the class refuses at that (ε, d) (e.g. a longitudinal oracle's ε₁ ≥ ε∞).

    References
    ----------
    [wang2017] §4; [apple2017] Algorithm 1 (the sketch's public hash functions).
    """
    key = check_choice("mechanism_key", mechanism_key, oracle_keys())
    epsilon, d = check_epsilon(epsilon), check_int("d", d, low=2)
    seed = check_int("seed", seed, low=0)
    hash_family = check_choice("hash_family", hash_family, HASH_FAMILIES)
    structure = _check_structure(structure)
    own = tuple(
        (name, default if structure.get(name) is None else structure[name])
        for name, default in _structure_defaults(key)
    )
    return _build_oracle(
        key, epsilon, d, own, seed, hash_family if key in hash_family_keys() else ""
    )


def _check_structure(structure) -> dict:
    """``structure`` as :func:`build_oracle` takes it: None (all defaults) or {name: int | None}."""
    structure = {} if structure is None else structure
    check_instance("structure", structure, dict, "a dict of structural parameters (e.g. {'k': 16})")
    names = {name for k in oracle_keys() for name, _ in _structure_defaults(k)}
    if set(structure) - names:
        fail("structure", structure, f"a dict with keys among {sorted(names)}")
    return {
        name: v if v is None else check_int(f"structure[{name!r}]", v, low=0)
        for name, v in structure.items()
    }


@functools.lru_cache(maxsize=1024)
def _build_oracle(
    key: str, epsilon: float, d: int, own: tuple, seed: int, hash_family: str
) -> FrequencyOracle:
    example = REGISTRY[key].example()
    cls = type(example)
    given = {name: value for name, value in own if value is not None}
    if hash_family:
        given["hash_family"] = hash_family
    create = _creator(cls)
    if create is not None:
        return create(epsilon, d, **given, rng=np.random.default_rng([1, seed]))
    required = {
        f.name: getattr(example, f.name)
        for f in dataclasses.fields(cls)
        if f.init
        and f.name not in ("epsilon", "d")
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    }
    return cls(epsilon=epsilon, d=d, **required, **given)


@functools.lru_cache(maxsize=1)
def hash_family_keys() -> tuple[str, ...]:
    """The frequency oracles whose ``create`` takes a ``hash_family`` (the CMS and HCMS: universal or Apple's SHA-256).

    References
    ----------
    [apple2017] Algorithm 1 (k hash functions; Apple's deployment hashes with SHA-256).
    """
    return tuple(
        key
        for key in oracle_keys()
        if (create := _creator(type(REGISTRY[key].example()))) is not None
        and "hash_family" in inspect.signature(create).parameters
    )


@functools.lru_cache(maxsize=1)
def oracle_groups() -> dict:
    """``{"one-shot": keys, "sketch": keys, "longitudinal": keys}``: the frequency oracles by what their class says.

    Longitudinal: the class has ``epsilon_after`` (a memoized oracle); sketch: not ``unbiased`` (fixed hashes);
    one-shot: the others.  Registry order within each group.
    """
    groups = {group: [] for group in GROUPS}
    for key in oracle_keys():
        oracle = REGISTRY[key].example()
        if hasattr(oracle, "epsilon_after"):
            groups["longitudinal"].append(key)
        else:
            groups["one-shot" if oracle.unbiased else "sketch"].append(key)
    return {group: tuple(keys) for group, keys in groups.items()}


class Moments(NamedTuple):
    """The exact moments of every value's count estimate ĉ(x) (arrays of length d) and the MSE they give."""

    expected: np.ndarray  # E[ĉ(x)]
    bias: np.ndarray  # E[ĉ(x)] − f_x (0 for an unbiased oracle)
    variance: np.ndarray  # Var[ĉ(x)]

    @property
    def bias_sq(self) -> float:
        """Mean over values of bias² (0 for an unbiased oracle; grows as n² for a fixed-hash sketch)."""
        return float(np.mean(self.bias**2))

    @property
    def mse(self) -> float:
        """Mean over values of bias² + Var[ĉ(x)]: the exact MSE of the count estimates."""
        return float(np.mean(self.variance)) + self.bias_sq

    @property
    def mse_per_value(self) -> np.ndarray:
        """bias² + Var[ĉ(x)] = E(ĉ(x) − f_x)² of each value's count estimate (their mean: :attr:`mse`,
        which sums the two parts apart, as it always has: notebook 07's numbers).

        References
        ----------
        [wang2017] Theorem 2 (the variance); [cormode2021] (a fixed-hash sketch's bias).
        """
        return self.bias**2 + self.variance


def exact_moments(oracle, truth) -> Moments:
    """E[ĉ], bias and Var[ĉ] of every value's count estimate for this population: the oracle's exact moments.

    The bias is ``expected_estimate − estimand`` (0 for an unbiased oracle; a sketch's fixed hashes
    collide); :attr:`Moments.mse` is the mean over values of bias² + variance.  A budget at which the
    moments leave double precision — a formula's e^ε overflows, or the variance, positive at every
    finite ε, rounds to 0 (e.g. HR at ε = 700) — is refused with a ``ValueError`` naming ε, never shown
    as an MSE of 0.

    References
    ----------
    [wang2017] Theorem 2 (exact variance); [apple2017] Algorithm 3 (the sketch's mean query).
    """
    oracle = check_instance("oracle", oracle, FrequencyOracle)
    truth = check_count_vector("truth", truth, oracle.d)
    if not truth.any():
        fail("truth", truth, "true counts describing at least one user")
    try:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            variance = np.asarray(oracle.variance(truth), dtype=float)
            estimand = np.asarray(oracle.estimand(truth), dtype=float)
            expected = (
                estimand
                if oracle.unbiased
                else np.asarray(oracle.expected_estimate(truth), dtype=float)
            )
    except (OverflowError, ZeroDivisionError):  # a formula's e^ε beyond double precision
        expected = variance = np.array([math.inf])
    if not (np.isfinite(expected).all() and np.isfinite(variance).all() and variance.max() > 0):
        fail(
            "epsilon",
            oracle.epsilon,
            f"a budget at which {type(oracle).__name__}'s exact moments are within double "
            f"precision at d = {oracle.d} (use a smaller epsilon)",
        )
    # a variance is ≥ 0; a difference of nearly equal terms can round to −1e-15 when the noise vanishes (ε ≫ 1)
    return Moments(expected, expected - estimand, np.maximum(variance, 0.0))


def exact_mse(oracle, truth) -> float:
    """The exact MSE of the count estimates: mean over values of bias² + Var[ĉ(x)] (:func:`exact_moments`).

    References
    ----------
    [wang2017] Theorem 2; [cormode2021] (the sketches' collisions: bias² grows as n², variance as n).
    """
    return exact_moments(oracle, truth).mse


def lowest_index(risk) -> np.ndarray:
    """Per column of ``risk`` (oracles × settings), the row of the smallest risk: −1 where every risk is ∞.

    Risks within :data:`TIE_RTOL` (relative) of the smallest tie; the first row (the key listed
    first) wins a tie — SS with k = 1 is GRR, ADP is GRR or OUE.

    References
    ----------
    [wang2017] §4.4 (the best oracle by variance).
    """
    table = _risk_table(check_ndim("risk", risk, 2, what="(oracles × settings)"))
    lowest = table.min(axis=0)
    return np.where(np.isinf(lowest), -1, np.argmax(_tied(table, lowest), axis=0))


def ranking(risk) -> np.ndarray:
    """The rows of ``risk`` (one risk per oracle, ∞ where one refuses) best first: the rows tied with
    the smallest (:func:`lowest_index`'s rule) in the order listed, then the others by risk, equal
    risks in the order listed.

    References
    ----------
    [wang2017] §4.4 (the best oracle by variance).
    """
    values = _risk_table(check_ndim("risk", risk, 1, what="(one risk per oracle)"))
    tied = _tied(values, values.min())
    return np.array(sorted(range(values.size), key=lambda i: (0, i) if tied[i] else (1, values[i])))


def _tied(table: np.ndarray, lowest) -> np.ndarray:
    """The risks within :data:`TIE_RTOL` (relative) of ``lowest``: one tie with the smallest."""
    return table <= lowest * (1 + TIE_RTOL)


def _risk_table(table: np.ndarray) -> np.ndarray:
    """Risks in [0, ∞] as floats, one row per oracle (∞ where it refuses), else refused naming risk."""
    if (
        table.size == 0
        or table.dtype.kind not in "iuf"  # numbers: not bool, complex, object or timedelta
        or np.isnan(table).any()
        or (table < 0).any()
    ):
        fail(
            "risk",
            table,
            "a non-empty array of risks in [0, inf] (inf where an oracle refuses), one row per oracle",
        )
    return table.astype(float)


def _check_keys(keys) -> tuple[str, ...]:
    if (
        isinstance(keys, str)
        or not isinstance(keys, (list, tuple))
        or not keys
        or any(k not in oracle_keys() for k in keys)
        or len(set(keys)) != len(keys)
    ):
        fail_type(
            "keys",
            keys,
            f"a non-empty list of distinct frequency-oracle keys of the registry {oracle_keys()}",
        )
    return tuple(keys)


def _check_grid(epsilons, most: int | None = None) -> np.ndarray:
    """A strictly increasing 1-d grid of budgets; with ``most``, of 2 to ``most`` of them."""
    grid = check_epsilons(epsilons)
    low, high = (1, math.inf) if most is None else (2, most)
    if grid.ndim != 1 or not low <= grid.size <= high or np.any(np.diff(grid) <= 0):
        allowed = "budgets ε" if most is None else f"2 to {most} budgets ε > 0"
        fail("epsilons", epsilons, f"a strictly increasing 1-d grid of {allowed}")
    return grid


def _risk(key: str, epsilon: float, d: int, counts: np.ndarray) -> float:
    try:
        mse = exact_mse(build_oracle(key, epsilon, d), counts)
    except ValueError:
        # the oracle refuses (ε, d): e.g. double-precision underflow, a longitudinal ε₁ ≥ ε∞
        return math.inf
    return d * mse / int(counts.sum())


def scaled_risk(keys, epsilons, d: int) -> np.ndarray:
    """``n·E‖p̂ − p‖²₂`` of each oracle (rows) at each ε (columns) on a flat population over [0, d).

    Exact: Σ_x MSE(ĉ(x))/n, from the oracles' exact variances (plus the sketches' bias², at
    :data:`USERS_PER_VALUE` users per value); ∞ where an oracle refuses (ε, d).  For an unbiased oracle it
    is the same for every n, and for a pure one for every population.

    References
    ----------
    [wang2017] Eq. (1), Theorem 2 (exact variance); [ye2018] (the ℓ2² risk of distribution estimation).
    """
    keys, grid, d = _check_keys(keys), _check_grid(epsilons), check_int("d", d, low=2, high=2**20)
    counts = np.full(d, USERS_PER_VALUE, dtype=np.int64)
    return np.array([[_risk(key, float(e), d, counts) for e in grid] for key in keys])


def best_oracle_map(keys, epsilons, ds, *, max_extra_bits: int | None = None) -> np.ndarray:
    """Index (into ``keys``) of the oracle of smallest :func:`scaled_risk` at each (d, ε): shape (len(ds), len(ε)).

    Ties within :data:`TIE_RTOL` go to the key listed first (ADP is GRR or OUE, SS with k = 1 is GRR);
    −1 where every oracle refuses.  ``max_extra_bits`` = b keeps only the oracles whose report
    (``report_bits``) has at most ⌈log2 d⌉ + b bits at that point (the short reports).

    References
    ----------
    [wang2017] §4.4 (DE best for d < 3e^ε + 2, else OUE/OLH); [ye2018] (SS in between).
    """
    keys, grid = _check_keys(keys), _check_grid(epsilons)
    ds = check_int_array("ds", ds, low=2, high=2**20)
    if ds.ndim != 1:
        fail("ds", ds, "a 1-d array of domain sizes d ≥ 2")
    if max_extra_bits is not None:
        max_extra_bits = check_int("max_extra_bits", max_extra_bits, low=0, high=2**20)
    best = np.full((ds.size, grid.size), -1, dtype=np.int64)
    for i, d in enumerate(ds):
        risk = scaled_risk(keys, grid, int(d))
        if max_extra_bits is not None:
            bits = np.array([report_bits_table(keys, float(e), [int(d)])[:, 0] for e in grid]).T
            risk[~(bits <= math.ceil(math.log2(d)) + max_extra_bits)] = math.inf
        best[i] = lowest_index(risk)
    return best


def mse_against_n(keys, epsilon: float, d: int, n_grid) -> np.ndarray:
    """Mean squared error of the **frequency** estimates, mean over x of E(ĉ(x)/n − f_x/n)², against n (columns).

    A flat population of n users over [0, d) (n a multiple of d keeps it exactly flat); ∞ where an oracle
    refuses.  Unbiased oracles fall as 1/n; a fixed-hash sketch levels off at its bias².

    References
    ----------
    [cormode2021] (the sketches' collisions); [wang2017] Theorem 2.
    """
    keys, epsilon = _check_keys(keys), check_epsilon(epsilon)
    d = check_int("d", d, low=2, high=2**20)
    n_grid = [int(n) for n in check_int_array("n_grid", n_grid, low=d, high=10**12).ravel()]
    return np.array(
        [[_risk(key, epsilon, d, flat_counts(n, d)) / (d * n) for n in n_grid] for key in keys]
    )


#: most budgets on one privacy–utility grid (each budget builds every oracle and its exact moments)
MAX_CURVE_POINTS = 400


class PrivacyUtilityCurves(NamedTuple):
    """:func:`privacy_utility_curves`' result: per oracle key, an array over the ε grid."""

    epsilons: np.ndarray  # the grid of budgets ε
    exact: dict  # exact MSE (mean over values of bias² + variance); NaN where the oracle refuses ε
    bias_sq: dict  # its bias² part (0 for an unbiased oracle)
    approx: dict  # Wang's approximate variance n·q*(1−q*)/(p*−q*)² (only the oracles defining it)
    labels: dict  # display label of each key
    crossovers: tuple  # (ε, best key below, best key above): where the best oracle changes


def _curve_point(key: str, epsilon: float, d: int, counts: np.ndarray, structure: dict):
    """(exact MSE, bias², Wang's approximate variance) of one oracle at one ε; NaN where refused."""
    try:
        oracle = build_oracle(key, epsilon, d, structure=structure)
        moments = exact_moments(oracle, counts)
    except ValueError:  # e.g. ε too large for double precision at this d
        return math.nan, math.nan, math.nan
    if not hasattr(oracle, "approx_variance"):
        return moments.mse, moments.bias_sq, math.nan
    return moments.mse, moments.bias_sq, float(oracle.approx_variance(int(counts.sum())))


def privacy_utility_curves(keys, epsilons, d, n, *, structure=None) -> PrivacyUtilityCurves:
    """Exact MSE (bias² + variance) and Wang's approximation of each oracle against ε, crossovers.

    Parameters
    ----------
    keys : list of str
        Frequency oracles of the registry (:func:`oracle_keys`), each built afresh at every ε by
        :func:`build_oracle` with ``structure`` (seed 0: a sketch keeps its hashes along the curve).
    epsilons : array_like of float
        A strictly increasing grid of 2 to :data:`MAX_CURVE_POINTS` budgets.
    d, n : int
        The population: the flattest split of n users over [0, d)
        (:func:`~ldp_helpers.simulate.populations.flat_counts`).
    structure : dict, optional
        Structural parameters, as :func:`build_oracle` takes them.

    Returns
    -------
    PrivacyUtilityCurves
        Per key: the exact MSE of the count estimates (:func:`exact_moments`, mean over values of
        bias² + Var[ĉ(x)]; NaN where the oracle refuses ε), its bias² part and, for the oracles
        that define it, Wang's approximate variance n·q*(1−q*)/(p*−q*)² (Eq. 2, the f_x terms
        dropped); and the :func:`crossovers` of the keys on the grid.

    References
    ----------
    [wang2017] Eq. (2), Theorem 2, §4 (DE/OUE/OLH comparison); [grr_vs_oue] §3.6, Fig. 3.7.
    """
    keys, grid = _check_keys(keys), _check_grid(epsilons, MAX_CURVE_POINTS)
    d, n = check_int("d", d, low=2, high=2**20), check_int("n", n, low=1, high=10**12)
    structure = _check_structure(structure)
    for key in keys:  # a structure the class refuses is named here, never a curve of NaN
        build_oracle(key, float(grid[0]), d, structure=structure)
    counts = flat_counts(n, d)
    points = {
        key: np.array([_curve_point(key, float(e), d, counts, structure) for e in grid])
        for key in keys
    }
    exact = {key: points[key][:, 0] for key in keys}
    approx = {key: points[key][:, 2] for key in keys if not np.all(np.isnan(points[key][:, 2]))}
    return PrivacyUtilityCurves(
        grid,
        exact,
        {key: points[key][:, 1] for key in keys},
        approx,
        {key: REGISTRY[key].label for key in keys},
        crossovers(keys, grid, exact),
    )


def crossovers(keys, epsilons, exact) -> tuple:
    """``(ε, best below, best above)`` wherever the lowest of these oracles' MSE curves changes.

    ``exact`` maps each key to its MSE on the grid ``epsilons`` (NaN where the oracle refuses ε,
    as :func:`privacy_utility_curves` gives it); the best at a budget is :func:`lowest_index`'s
    (ties within :data:`TIE_RTOL` go to the key listed first: a tie, e.g. ADP = GRR, is no
    crossover).  Between two neighbouring budgets where the best changes from a to b, the
    crossover is placed where ln MSE_a − ln MSE_b, taken linear in ε, is 0.

    References
    ----------
    [wang2017] §4.4; [grr_vs_oue] §3.6 (the exact GRR–OUE crossover).
    """
    keys, grid = _check_keys(keys), _check_grid(epsilons, MAX_CURVE_POINTS)
    if not isinstance(exact, dict) or any(
        k not in exact
        or np.shape(exact[k]) != grid.shape
        or np.asarray(exact[k]).dtype.kind not in "iuf"
        or np.any(np.asarray(exact[k]) < 0)
        for k in keys
    ):
        fail(
            "exact",
            exact,
            f"a dict giving each of {list(keys)} its MSE (≥ 0, NaN where refused) on the "
            f"{grid.size} budgets",
        )
    table = np.array([np.asarray(exact[key], dtype=float) for key in keys])
    best = lowest_index(np.where(np.isnan(table), np.inf, table))
    found = []
    for j in range(grid.size - 1):
        a, b = best[j], best[j + 1]
        if a != b and a >= 0 and b >= 0:
            diff = np.log(table[a, j : j + 2]) - np.log(table[b, j : j + 2])
            t = (
                diff[0] / (diff[0] - diff[1])
                if np.all(np.isfinite(diff)) and diff[0] != diff[1]
                else 0.5
            )
            found.append((float(grid[j] + t * (grid[j + 1] - grid[j])), keys[a], keys[b]))
    return tuple(found)


def report_bits_table(keys, epsilon: float, ds) -> np.ndarray:
    """Bits per report (each oracle's ``report_bits``) of each oracle (rows) at each d (columns); ∞ where refused.

    As each oracle states it: unary encodings d bits, local hashing the hash seed (a, b) and ⌈log2 g⌉,
    SS ⌈log2 C(d, k)⌉, HR ⌈log2 K⌉, GRR ⌈log2 d⌉, SHE/THE d doubles, a sketch its index and bits.

    References
    ----------
    [wang2017] §4; [acharya2019] (HR: at most log2 d + 2 bits); [apple2017] Algorithm 1.
    """
    keys, epsilon = _check_keys(keys), check_epsilon(epsilon)
    ds = check_int_array("ds", ds, low=2, high=2**20).ravel()
    out = np.full((len(keys), ds.size), math.inf)
    for i, key in enumerate(keys):
        for j, d in enumerate(ds):
            with contextlib.suppress(ValueError):
                out[i, j] = build_oracle(key, epsilon, int(d)).report_bits
    return out


#: ceiling on n·d in :func:`server_seconds`: the per-user reports it holds at once (SHE's: n·d doubles, 256 MiB)
MAX_SERVER_CELLS = 2**25


def server_seconds(
    keys, epsilon: float, d: int, n: int, *, rng: np.random.Generator, repeats: int = 3
) -> np.ndarray:
    """Measured server time (seconds) of each oracle: its ``aggregate`` and ``estimate`` of all d counts from n reports.

    The n users hold a flat population over [0, d); their reports come from each oracle's per-user client
    (``perturb``), drawn once, and the server's two steps are timed ``repeats`` times (the best is kept,
    :func:`time.perf_counter`).  Unlike everything else in this module the numbers depend on the machine
    and the load: they rank the servers, they are not a result (the notebook prints them and saves no figure).
    The orders they follow: unary encodings and local hashing touch every (report, value) pair, n·d
    ([wang2017] §4.4 for OLH; [acharya2019] §1 for RAPPOR), SS counts the k members of each report's
    subset, GRR and HR count n symbols and decode in O(d) and O(d log d) (a fast Walsh–Hadamard
    transform, [acharya2019]), the fixed-hash sketches count n reports into a small table and query it
    d times ([cormode2021] §4).

    References
    ----------
    [wang2017] §4.4; [acharya2019] §1 (running times); [cormode2021] §4 (the sketches' server).
    """
    keys, epsilon = _check_keys(keys), check_epsilon(epsilon)
    # n ≥ d and n·d ≤ MAX_SERVER_CELLS
    d = check_int("d", d, low=2, high=math.isqrt(MAX_SERVER_CELLS))
    n = check_int("n", n, low=d, high=min(10**7, MAX_SERVER_CELLS // d))
    repeats = check_int("repeats", repeats, low=1, high=100)
    rng = check_rng(rng)
    values = np.repeat(np.arange(d), flat_counts(n, d))
    out = np.empty(len(keys))
    for i, key in enumerate(keys):
        oracle = build_oracle(key, epsilon, d)
        reports = oracle.perturb(values, rng=rng)
        best = math.inf
        for _ in range(repeats):
            start = time.perf_counter()
            oracle.estimate(oracle.aggregate(reports), n)
            best = min(best, time.perf_counter() - start)
        out[i] = best
        del reports  # one oracle's reports held at a time
    return out
