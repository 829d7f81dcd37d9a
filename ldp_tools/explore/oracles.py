"""What the frequency-oracle playground shows, from the science of :mod:`~ldp_helpers.experiments.field_oracles`.

The oracles, their construction at the panel's ε and d, their report size, exact moments and MSE are
:mod:`~ldp_helpers.experiments.field_oracles`'s (the one copy notebook 07 also calls); this module holds
what the panels add: which oracles they list (:func:`_panel_keys`: every frequency oracle but the
longitudinal ones), the ranges of their controls (:data:`STRUCTURE`, the work ceilings of
:func:`check_structure`), the populations, and one survey's state (:func:`playground_state`: one exact
draw of ``sample_aggregate``, never a per-user simulation, so a recompute costs O(d) whatever n).

References
----------
[wang2017] §3–§4 (pure frequency oracles, their variances); [apple2017] Algorithms 1–3 (the sketch);
[grr_vs_oue] §3.6; [tutorial] "Frequency Oracles".
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import (
    check_choice,
    check_instance,
    check_int,
    check_real,
    fail,
)
from ldp_helpers.experiments import field_oracles as fo
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.simulate.datasets import load_trouser_counts
from ldp_helpers.simulate.populations import flat_counts, power_law_counts
from ldp_tools.explore.outputs import UNAVAILABLE, _whole_report_epsilon  # noqa: F401 (re-exported)

#: the populations of the playground
POPULATIONS = ("uniform", "zipf", "clickstream")
#: the panels' domain sizes: d ≤ D_MAX keeps every oracle's exact quantities (a sketch's d × d collision
#: table, k passes) within about a second
D_MAX = 2048
#: the panels' numbers of users (a survey costs O(d) whatever n; counts stay exact in int64)
N_MAX = 10**12


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
STRUCTURE = {
    "k": Structure(16, 1, 64, "k (hashes)"),
    "m": Structure(256, 2, 4096, "m (sketch width)"),
    "g": Structure(0, 0, 1024, "g (0: e^ε+1)"),
    "n_hashes": Structure(16, 1, 64, "R (hashes)"),
    "n_buckets": Structure(256, 2, 4096, "T (buckets)"),
    "n_bits": Structure(1, 1, 64, "dBitFlip's d (bits)"),
}
#: the largest value of a structural parameter that :data:`STRUCTURE` does not list
STRUCTURE_HIGH = 4096


@functools.lru_cache(maxsize=1)
def _panel_keys() -> tuple[str, ...]:
    """The frequency oracles the panels list: :func:`~ldp_helpers.experiments.field_oracles.oracle_groups`'s one-shot
    oracles and sketches, in registry order (the longitudinal ones, whose ε is one report's, are compared in 07)."""
    groups = fo.oracle_groups()
    return tuple(key for key in fo.oracle_keys() if key not in groups["longitudinal"])


def _oracle_parameters(mechanism_key) -> dict[str, Structure]:
    """The structural parameters of ``mechanism_key``'s constructor (besides ε, d and rng), with defaults and ranges.

    Empty for an oracle that is fully determined by ε and d.  A name listed in :data:`STRUCTURE`
    takes its default and range from there; another takes the registry example's value as default.

    References
    ----------
    [apple2017] Algorithms 1–3 (k hash functions, sketch width m).
    """
    return {
        name: STRUCTURE[name] if name in STRUCTURE else _unlisted(name, default)
        for name, default in fo.oracle_structure(mechanism_key).items()
    }


@functools.lru_cache(maxsize=1)
def _structure_specs() -> dict[str, Structure]:
    """Every structural parameter a listed oracle takes (:func:`_oracle_parameters`), in their order."""
    return {name: spec for key in _panel_keys() for name, spec in _oracle_parameters(key).items()}


def _unlisted(name: str, default: int) -> Structure:
    return Structure(default, min(1, default), max(STRUCTURE_HIGH, default), name)


#: work ceilings of the structured oracles (an update, its ranking of every oracle included, within a few seconds):
#: d × (hash functions) ≤ WORK_DK and (hash functions) × (sketch width or buckets) ≤ WORK_KM
WORK_DK, WORK_KM = 2**15, 2**16
#: (hash functions, width) pairs the ceilings bound
_WORK_PAIRS = (("k", "m"), ("n_hashes", "n_buckets"))


def check_structure(structure=None, d=None) -> dict[str, int]:
    """Every structural parameter any listed oracle takes, validated (missing ones at their defaults).

    ``structure`` maps a name of :func:`_oracle_parameters` to an integer in its range; ``None`` means
    all defaults.  With ``d``, the work ceilings apply too: at most ``WORK_DK // d`` hash functions
    (k, R) and ``WORK_KM // k`` sketch columns (m, T).  Returns the full mapping (name → int), in a
    fixed order.
    """
    names = dict(sorted(_structure_specs().items()))
    structure = {} if structure is None else structure
    check_instance(
        "structure", structure, dict, "a dict of structural parameters (e.g. {'k': 16, 'm': 256})"
    )
    if set(structure) - set(names):
        fail("structure", structure, f"a dict with keys among {sorted(names)}")
    shape = {
        name: check_int(
            f"structure[{name!r}]", structure.get(name, spec.default), low=spec.low, high=spec.high
        )
        for name, spec in names.items()
    }
    if d is not None:
        d = check_int("d", d, low=2, high=D_MAX)
        for rows, cols in _WORK_PAIRS:
            if rows in shape:
                _ceiling(
                    rows,
                    shape[rows],
                    names[rows].low,
                    max(1, min(names[rows].high, WORK_DK // d)),
                    f"at d = {d} (d × {rows} ≤ {WORK_DK} keeps an update within seconds)",
                )
            if rows in shape and cols in shape:
                _ceiling(
                    cols,
                    shape[cols],
                    names[cols].low,
                    max(names[cols].low, min(names[cols].high, WORK_KM // shape[rows])),
                    f"at {rows} = {shape[rows]} ({rows} × {cols} ≤ {WORK_KM} keeps an update within seconds)",
                )
    return shape


def _ceiling(name: str, value: int, low: int, high: int, why: str) -> None:
    if value > high:
        fail(f"structure[{name!r}]", value, f"an integer in [{low}, {high}] {why}")


def _oracle(mechanism_key, epsilon, d, structure, seed, hash_family="universal"):
    """The one factory (:func:`~ldp_helpers.experiments.field_oracles.build_oracle`) within the panels' ranges."""
    key = check_choice("mechanism_key", mechanism_key, _panel_keys())
    shape = check_structure(structure, check_int("d", d, low=2, high=D_MAX))
    return fo.build_oracle(key, epsilon, d, structure=shape, seed=seed, hash_family=hash_family)


def population_counts(population, n, d, *, zipf_s=1.1) -> np.ndarray:
    """True counts of exactly n users over [0, d): ``"uniform"``, ``"zipf"`` (exponent ``zipf_s``) or ``"clickstream"``.

    ``"uniform"`` is the flattest split (:func:`~ldp_helpers.simulate.populations.flat_counts`);
    ``"zipf"`` gives value i a share ∝ (i+1)^−s, rounded by largest remainders (exactly n users,
    value 0 the most frequent: :func:`~ldp_helpers.simulate.populations.power_law_counts` with ``exact_total``).  ``"clickstream"`` is the
    committed trousers dataset ([grr_vs_oue] Dataset 2): it fixes d = 43 and n = 49,742 (a different d
    is refused, n is ignored).
    """
    population = check_choice("population", population, POPULATIONS)
    d = check_int("d", d, low=2, high=D_MAX)
    n = check_int("n", n, low=1, high=N_MAX)
    zipf_s = check_real("zipf_s", zipf_s, low=0.0, high=10.0, low_open=False, high_open=False)
    if population == "clickstream":
        counts = load_trouser_counts().counts.astype(np.int64)
        if d != counts.size:
            fail(
                "d",
                d,
                f"{counts.size} for the clickstream population (its number of trouser models)",
            )
        return counts
    if population == "uniform":
        return flat_counts(n, d)
    return power_law_counts(n, d, zipf_s, exact_total=True)


class PlaygroundState(NamedTuple):
    """What the playground shows for one setting (arrays have length d)."""

    label: str
    true_counts: np.ndarray
    estimate: np.ndarray  # one exact survey's count estimates ĉ(i)
    expected: np.ndarray  # exact E[ĉ(i)] (= the true counts for an unbiased oracle)
    sigma: np.ndarray  # exact standard deviation of each estimate
    mse_per_value: np.ndarray  # exact bias² + variance of each estimate (Moments.mse_per_value)
    whole_report_epsilon: float | str  # from the output table, or UNAVAILABLE
    report_bits: int  # bits per report (the oracle's report_bits)
    mse: float  # exact mean over values of bias² + variance
    bias_sq: float  # exact mean over values of bias² (0 for an unbiased oracle)
    uniform_bias_sq: float | None  # a CMS's mean bias² under uniform hashes (None: no yardstick)


def playground_state(
    mechanism_key,
    epsilon,
    d,
    n,
    population="uniform",
    *,
    zipf_s=1.1,
    seed=0,
    structure=None,
    hash_family="universal",
) -> PlaygroundState:
    """One exact survey of the registered oracle on the chosen population, with its exact bias, σ, MSE and ε.

    ``estimate`` is ``oracle.estimate(oracle.sample_aggregate(truth, rng=default_rng(seed)), n)``,
    ``sigma = sqrt(variance(truth))``, ``mse_per_value`` each value's bias² + variance and ``mse``
    their mean (:class:`~ldp_helpers.experiments.field_oracles.Moments`).  The oracle
    is :func:`~ldp_helpers.experiments.field_oracles.build_oracle` with the same ``seed`` (its hashes, if any,
    from a stream of their own) and the panels' structure (missing names at :data:`STRUCTURE`'s defaults);
    ``hash_family`` picks a CMS's (or HCMS's) hashes: ``"universal"`` or Apple's ``"sha256"``, whose
    bias is then compared with ``uniform_hash_bias_sq`` (the mean bias² of uniformly random hashes).

    References
    ----------
    [wang2017] Eq. (1), Theorem 2 (exact variance before the approximation); [tutorial] "Frequency Oracles".
    """
    oracle = _oracle(mechanism_key, epsilon, d, structure, seed, hash_family)
    # FLH's survey fills k × g cells, g ≈ e^ε
    cells = getattr(oracle, "k", 1) * getattr(oracle, "hash_range", 1)
    if cells > WORK_KM:
        fail(
            "epsilon",
            epsilon,
            f"a budget at which {REGISTRY[mechanism_key].label}'s survey fills at most "
            f"{WORK_KM:,} cells (k × g = {oracle.k} × {oracle.hash_range} here: g = round(e^ε) + 1 "
            "follows ε; set g, or a smaller ε)",
        )
    truth = population_counts(population, n, oracle.d, zipf_s=zipf_s)
    n_users = int(truth.sum())
    rng = np.random.default_rng(int(seed))
    estimate = np.asarray(
        oracle.estimate(oracle.sample_aggregate(truth, rng=rng), n_users), dtype=float
    )
    moments = fo.exact_moments(oracle, truth)
    return PlaygroundState(
        REGISTRY[mechanism_key].label,
        truth,
        estimate,
        moments.expected,
        np.sqrt(moments.variance),
        moments.mse_per_value,
        _whole_report_epsilon(oracle),
        oracle.report_bits,
        moments.mse,
        moments.bias_sq,
        oracle.uniform_hash_bias_sq(truth) if hasattr(oracle, "uniform_hash_bias_sq") else None,
    )
