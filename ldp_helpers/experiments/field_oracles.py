"""Which frequency oracle for which setting (notebook 07): every registered oracle's exact MSE, report size and rank.

Every frequency oracle is taken from :data:`~ldp_helpers.mechanisms.registry.REGISTRY` (the entries whose
example is a :class:`~ldp_helpers.mechanisms.base.FrequencyOracle`) and rebuilt at the chosen ε and d with
:func:`dataclasses.replace`; nothing here names a mechanism.  The oracles fall in three groups, read from
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

References
----------
[wang2017] §3–§4 (pure protocols, their variances and communication); [ye2018] (SS); [acharya2019] (HR);
[cormode2021] (the sketches); [arcolezi2022] (the longitudinal oracles).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import (check_choice, check_epsilon, check_epsilons, check_int, check_int_array, check_rng,
                                     fail, fail_type)
from ldp_helpers.mechanisms.base import FrequencyOracle
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.histogram_encoding import SHE, THE
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.simulate.populations import flat_counts

#: bits of one real number in a report (an IEEE-754 double), how SHE/THE reports are counted
FLOAT_BITS = 64
#: users per value of the flat population on which the one-shot oracles are ranked (the ranking does not depend on it)
USERS_PER_VALUE = 1000
#: exact risks this close (relative) are one tie: the oracle registered first is named best
TIE_RTOL = 1e-9
#: the groups of :func:`oracle_groups`
GROUPS = ("one-shot", "sketch", "longitudinal")


@functools.lru_cache(maxsize=1)
def oracle_keys() -> tuple[str, ...]:
    """The registry keys whose mechanism is a frequency oracle over a d-value domain (registry order; cached)."""
    return tuple(key for key, entry in REGISTRY.items() if isinstance(entry.example(), FrequencyOracle))


def _checked_key(mechanism_key, epsilon, d) -> tuple[str, float, int]:
    """Validate before any cache lookup (an unhashable argument gets the library's message, not lru_cache's)."""
    return (check_choice("mechanism_key", mechanism_key, oracle_keys()), check_epsilon(epsilon), check_int("d", d, low=2))


def build_oracle(mechanism_key: str, epsilon: float, d: int) -> FrequencyOracle:
    """The registered oracle ``mechanism_key`` built for budget ε over [0, d) by its own class.

    ``cls(epsilon=ε, d=d)`` with the class's defaults (which follow ε and d: OLH's g, THE's θ, SS's k), the
    example's required fields kept (a longitudinal oracle's ε∞); a sketch through ``cls.create`` with the
    example's hash counts and widths and its hash functions drawn for d (seeded, fixed).

    Raises the library's ``ValueError`` for an unknown key, ε ≤ 0 or d < 2 (and whatever the oracle refuses
    at that (ε, d), e.g. a longitudinal oracle's ε₁ ≥ ε∞); cached per (key, ε, d).
    """
    return _build_oracle(*_checked_key(mechanism_key, epsilon, d))


@functools.lru_cache(maxsize=512)
def _build_oracle(mechanism_key: str, epsilon: float, d: int) -> FrequencyOracle:
    example = REGISTRY[mechanism_key].example()
    cls = type(example)
    if isinstance(inspect.getattr_static(cls, "create", None), classmethod):  # a sketch: its hashes drawn for d
        names = [name for name, p in inspect.signature(cls.create).parameters.items()
                 if name not in ("epsilon", "d", "rng") and p.kind is p.POSITIONAL_OR_KEYWORD]
        return cls.create(epsilon, d, **{name: getattr(example, name) for name in names},
                          rng=np.random.default_rng([1, 0]))
    # the class's own defaults follow ε and d (OLH's g, THE's θ, SS's k …); only required fields are kept
    required = {f.name: getattr(example, f.name) for f in dataclasses.fields(cls)
                if f.init and f.name not in ("epsilon", "d") and f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING}
    return cls(epsilon=epsilon, d=d, **required)


@functools.lru_cache(maxsize=1)
def oracle_groups() -> dict:
    """``{"one-shot": keys, "sketch": keys, "longitudinal": keys}``: the frequency oracles by what their class says.

    Longitudinal: the class has ``epsilon_after`` (a memoized oracle); sketch: not ``unbiased`` (fixed hashes);
    one-shot: the others.  Registry order within each group.
    """
    groups = {group: [] for group in GROUPS}
    for key in oracle_keys():
        oracle = REGISTRY[key].example()
        group = "longitudinal" if hasattr(oracle, "epsilon_after") else "one-shot" if oracle.unbiased else "sketch"
        groups[group].append(key)
    return {group: tuple(keys) for group, keys in groups.items()}


def _mse_parts(oracle, counts) -> tuple[float, float]:
    """(mean Var, mean bias²) of the count estimates: the bias is 0 for an unbiased oracle, the collisions of the
    fixed hashes for the sketches, where it grows as n² while the variance grows as n."""
    variance = float(np.mean(oracle.variance(counts)))
    if oracle.unbiased:
        return variance, 0.0
    return variance, float(np.mean((np.asarray(oracle.expected_estimate(counts), dtype=float) - counts) ** 2))


class ReportSize(NamedTuple):
    """Bits of one user's report and how they are counted."""

    bits: int | str  # or "—" when the oracle does not state it
    how: str


def report_size(mechanism_key, epsilon, d) -> ReportSize:
    """Bits one user sends under the registered oracle at (ε, d), and how they are counted.

    An oracle that states its size (``report_bits``: unary encodings d bits, local hashing the
    hash seed (a, b) and ⌈log2 g⌉, SS ⌈log2 C(d, k)⌉, HR ⌈log2 K⌉) is taken at its word.  Otherwise: a value of
    [0, d) is ⌈log2 d⌉ bits (GRR); a vector of d reals is d IEEE-754 doubles, 64·d bits (SHE; THE reports
    the same noisy vector, the threshold is the server's); a sketch report is the hash index
    j ∈ [0, k) and the m-bit ±1 vector, ⌈log2 k⌉ + m bits (CMS).

    References
    ----------
    [wang2017] §4 (communication cost of DE, UE, HE, LH); [tutorial] "Count Mean Sketch".
    """
    oracle = build_oracle(mechanism_key, epsilon, d)
    bits = getattr(oracle, "report_bits", None)
    if bits is not None:
        return ReportSize(int(bits), "as the oracle states it (report_bits)")
    if hasattr(oracle, "k") and hasattr(oracle, "m"):
        return ReportSize(math.ceil(math.log2(oracle.k)) + oracle.m,
                          f"hash index ⌈log2 k⌉ = {math.ceil(math.log2(oracle.k))} bits + m = {oracle.m} sign bits")
    if isinstance(oracle, (SHE, THE)):
        return ReportSize(FLOAT_BITS * oracle.d, f"d = {oracle.d} reals as {FLOAT_BITS}-bit doubles")
    if isinstance(oracle, GRR):
        return ReportSize(math.ceil(math.log2(oracle.d)), f"one value of [0, d): ⌈log2 {oracle.d}⌉ bits")
    return ReportSize("—", "not stated by the oracle")


def _check_keys(keys) -> tuple[str, ...]:
    if isinstance(keys, str) or not isinstance(keys, (list, tuple)) or not keys \
            or any(k not in oracle_keys() for k in keys) or len(set(keys)) != len(keys):
        fail_type("keys", keys, f"a non-empty list of distinct frequency-oracle keys of the registry {oracle_keys()}")
    return tuple(keys)


def _check_grid(epsilons) -> np.ndarray:
    grid = check_epsilons(epsilons)
    if grid.ndim != 1 or grid.size < 1 or np.any(np.diff(grid) <= 0):
        fail("epsilons", epsilons, "a strictly increasing 1-d grid of budgets ε")
    return grid


def _risk(key: str, epsilon: float, d: int, counts: np.ndarray) -> float:
    try:
        oracle = _build_oracle(key, epsilon, d)
    except ValueError:  # the oracle refuses (ε, d): e.g. double-precision underflow, a longitudinal ε₁ ≥ ε∞
        return math.inf
    return d * sum(_mse_parts(oracle, counts)) / int(counts.sum())


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
    (:func:`report_size`) has at most ⌈log2 d⌉ + b bits at that point (the short reports).

    References
    ----------
    [wang2017] §4.4 (DE best for d < 3e^ε + 2, else OUE/OLH); [ye2018] (SS in between).
    """
    keys, grid = _check_keys(keys), _check_grid(epsilons)
    ds = check_int_array("ds", ds, low=2, high=2**20)
    if ds.ndim != 1 or ds.size < 1:
        fail("ds", ds, "a 1-d array of domain sizes d ≥ 2")
    if max_extra_bits is not None:
        max_extra_bits = check_int("max_extra_bits", max_extra_bits, low=0, high=2**20)
    best = np.full((ds.size, grid.size), -1, dtype=np.int64)
    for i, d in enumerate(ds):
        risk = scaled_risk(keys, grid, int(d))
        if max_extra_bits is not None:
            bits = np.array([report_bits_table(keys, float(e), [int(d)])[:, 0] for e in grid]).T
            risk[~(bits <= math.ceil(math.log2(d)) + max_extra_bits)] = math.inf
        lowest = risk.min(axis=0)
        best[i] = np.where(np.isinf(lowest), -1, np.argmax(risk <= lowest * (1 + TIE_RTOL), axis=0))
    return best


def mse_against_n(keys, epsilon: float, d: int, n_grid) -> np.ndarray:
    """Mean squared error of the **frequency** estimates, mean over x of E(ĉ(x)/n − f_x/n)², against n (columns).

    A flat population of n users over [0, d) (n a multiple of d keeps it exactly flat); ∞ where an oracle
    refuses.  Unbiased oracles fall as 1/n; a fixed-hash sketch levels off at its bias².

    References
    ----------
    [cormode2021] (the sketches' collisions); [wang2017] Theorem 2.
    """
    keys, epsilon, d = _check_keys(keys), check_epsilon(epsilon), check_int("d", d, low=2, high=2**20)
    n_grid = check_int_array("n_grid", n_grid, low=d, high=10**12).ravel()
    out = np.full((len(keys), n_grid.size), math.inf)
    for j, n in enumerate(n_grid):
        counts = flat_counts(int(n), d)
        for i, key in enumerate(keys):
            out[i, j] = _risk(key, epsilon, d, counts) / (d * int(n))
    return out


def report_bits_table(keys, epsilon: float, ds) -> np.ndarray:
    """Bits per report (:func:`report_size`) of each oracle (rows) at each d (columns); ∞ where not stated or refused.

    References
    ----------
    [wang2017] §4; [acharya2019] (HR: at most log2 d + 2 bits).
    """
    keys, epsilon = _check_keys(keys), check_epsilon(epsilon)
    ds = check_int_array("ds", ds, low=2, high=2**20).ravel()
    out = np.full((len(keys), ds.size), math.inf)
    for i, key in enumerate(keys):
        for j, d in enumerate(ds):
            try:
                bits = report_size(key, epsilon, int(d)).bits
            except ValueError:
                continue
            out[i, j] = bits if isinstance(bits, int) else math.inf
    return out


#: ceiling on n·d in :func:`server_seconds`: the per-user reports it holds at once (SHE's: n·d doubles, 256 MiB)
MAX_SERVER_CELLS = 2**25


def server_seconds(keys, epsilon: float, d: int, n: int, *, rng: np.random.Generator, repeats: int = 3) -> np.ndarray:
    """Measured server time (seconds) of each oracle: its ``aggregate`` and ``estimate`` of all d counts from n reports.

    The n users hold a flat population over [0, d); their reports come from each oracle's per-user client
    (``perturb``), drawn once, and the server's two steps are timed ``repeats`` times (the best is kept,
    :func:`time.perf_counter`).  Unlike everything else in this module the numbers depend on the machine
    and the load: they rank the servers, they are not a result (the notebook prints them and saves no figure).
    The orders they follow: unary encodings and local hashing touch every (report, value) pair, n·d
    ([wang2017] §4.4 for OLH; [acharya2019] §1 for RAPPOR), SS counts the k members of each report's subset, GRR and HR count n symbols and decode in
    O(d) and O(d log d) (a fast Walsh–Hadamard transform, [acharya2019]), the fixed-hash sketches count n
    reports into a small table and query it d times ([cormode2021] §4).

    References
    ----------
    [wang2017] §4.4; [acharya2019] §1 (running times); [cormode2021] §4 (the sketches' server).
    """
    import time

    keys, epsilon = _check_keys(keys), check_epsilon(epsilon)
    d = check_int("d", d, low=2, high=math.isqrt(MAX_SERVER_CELLS))  # n ≥ d and n·d ≤ MAX_SERVER_CELLS
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
