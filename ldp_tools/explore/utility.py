"""The playground's oracle ranking and phase diagram: the panels' policy over the science.

Every number is a registered oracle's exact MSE (mean over values of bias² + variance,
:func:`~ldp_helpers.experiments.field_oracles.exact_mse`) for the oracle built afresh at that
(ε, d) by the one factory (:func:`~ldp_helpers.experiments.field_oracles.build_oracle`), and the
order is :func:`~ldp_helpers.experiments.field_oracles.ranking`'s (the best is
:func:`~ldp_helpers.experiments.field_oracles.lowest_index`'s) — the science notebook 07 calls.  Here is what the panels add: which oracles they rank
(:func:`~ldp_tools.explore.oracles._panel_keys`), their ceilings on d and the structure, the phase
diagram's oracles and its precomputed grid.  The privacy–utility curves are
:func:`~ldp_helpers.experiments.field_oracles.privacy_utility_curves`.

References
----------
[wang2017] §4 (DE/OUE/OLH comparison); [grr_vs_oue] §3.6, Fig. 3.7.
"""

from __future__ import annotations

import functools

import numpy as np

from ldp_helpers._validation import (
    check_choice,
    check_epsilon,
    check_int,
    check_int_array,
    check_real_array,
    fail,
)
from ldp_helpers.experiments import field_oracles as fo
from ldp_helpers.mechanisms.count_mean_sketch import HASH_FAMILIES
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_tools.explore.oracles import D_MAX, _panel_keys, check_structure, population_counts


def oracle_ranking(
    epsilon,
    d,
    n,
    population="uniform",
    *,
    zipf_s=1.1,
    structure=None,
    seed=0,
    hash_family="universal",
) -> tuple[tuple[str, float], ...]:
    """Every registered oracle's exact MSE (bias² + variance) at (ε, d) on this population, best first.

    Each oracle is built for this (ε, d) (a sketch with ``structure`` and hashes from ``seed``, the CMS
    and HCMS from ``hash_family``, as in the playground); oracles that refuse this ε at this d (e.g.
    double-precision underflow) are left out.

    References
    ----------
    [wang2017] §4 (DE vs OUE vs OLH by variance); [grr_vs_oue] §3.6 (exact crossover).
    """
    epsilon, d = check_epsilon(epsilon), check_int("d", d, low=2, high=D_MAX)
    seed = check_int("seed", seed, low=0)
    hash_family = check_choice("hash_family", hash_family, HASH_FAMILIES)
    truth = population_counts(population, n, d, zipf_s=zipf_s)
    shape = check_structure(structure, int(truth.size))
    ranking = []
    for key in _panel_keys():
        try:
            oracle = fo.build_oracle(
                key, epsilon, int(truth.size), structure=shape, seed=seed, hash_family=hash_family
            )
            ranking.append((key, fo.exact_mse(oracle, truth)))
        except ValueError:
            continue  # the oracle refuses this ε at this d, or its moments leave double precision
    if not ranking:
        fail(
            "epsilon",
            epsilon,
            f"a budget at which some oracle's exact moments are within double precision at d = {d}",
        )
    return tuple(ranking[i] for i in fo.ranking([mse for _, mse in ranking]))


# ------------------------------------------------------------------------------------ phase diagram


@functools.lru_cache(maxsize=1)
def _phase_keys() -> tuple[str, ...]:
    """The oracles of the phase diagram: every listed oracle that is unbiased and determined by ε and d alone.

    A sketch (biased for its fixed hashes, with a structure of its own) is left out: on a flat
    population the unbiased oracles' winner does not depend on n, a sketch's bias² grows with n².
    """
    return tuple(
        key
        for key in _panel_keys()
        if not fo.oracle_structure(key) and type(REGISTRY[key].example()).unbiased is True
    )


@functools.lru_cache(maxsize=4)
def _phase_table(epsilons: tuple, ds: tuple) -> np.ndarray:
    best = _stored_phase_table(epsilons, ds)
    if best is None:
        best = fo.best_oracle_map(list(_phase_keys()), list(epsilons), list(ds))
    best.setflags(write=False)
    return best


def _stored_phase_table(epsilons: tuple, ds: tuple):
    """The playground's own grid, precomputed (:mod:`~ldp_tools.explore._phase_map`, a test recomputes it);
    None for another grid or other oracles."""
    from ldp_tools.explore import _phase_map

    if _phase_map.KEYS != _phase_keys() or (epsilons, ds) != PHASE_GRID:
        return None
    return np.array(
        [[-1 if c == "." else int(c, 36) for c in row] for row in _phase_map.ROWS], dtype=np.int64
    )


#: the playground's phase grid (ε and d log-spaced over the controls' ranges), the one precomputed
PHASE_GRID = (
    tuple(float(e) for e in np.geomspace(0.05, 20.0, 60)),
    tuple(int(d) for d in np.unique(np.round(np.geomspace(2, D_MAX, 40)).astype(int))),
)


def phase_diagram(epsilons, ds) -> np.ndarray:
    """Which oracle of :func:`_phase_keys` has the lowest exact MSE at each (d, ε): indices, shape (len(ds), len(ε)).

    On a flat population every unbiased oracle's exact count variance is proportional to n, so the
    winner does not depend on n: :func:`~ldp_helpers.experiments.field_oracles.best_oracle_map` (07's map);
    −1 where all refuse.  Cached per grid.

    References
    ----------
    [wang2017] §4.4 (DE best for d < 3e^ε + 2, else OUE/OLH); [grr_vs_oue] §3.6.
    """
    grid = check_real_array("epsilons", epsilons, low=0.0)
    if grid.ndim != 1 or grid.size < 2 or grid.size > 200 or np.any(np.diff(grid) <= 0):
        fail("epsilons", epsilons, "a strictly increasing 1-d grid of 2 to 200 budgets ε > 0")
    ds = check_int_array("ds", ds, low=2, high=D_MAX)
    if ds.ndim != 1 or ds.size < 1 or ds.size > 200:
        fail("ds", ds, "a 1-d array of 1 to 200 domain sizes d in [2, 2048]")
    return _phase_table(tuple(float(e) for e in grid), tuple(int(d) for d in ds))
