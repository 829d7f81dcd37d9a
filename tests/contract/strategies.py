"""Hypothesis strategies per parameter kind: the bad values each kind must refuse, and valid values.

A parameter's kind comes from its name (``epsilon`` is a budget, ``d`` a domain size, ``p`` a
probability, ``rng`` the injected Generator, …) and from the type of its valid example (a float,
an int, an array, a mechanism object, a string choice).  ``bad_values(name, valid, default)``
returns the strategy of values that parameter must refuse; ``valid_values(name, valid)`` other valid
values near the example (for the valid-input properties).
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

BUDGETS = {"epsilon", "epsilon_per_round"}
PROBABILITIES = {
    "p",
    "q",
    "f",
    "beta",
    "power",
    "share",
    "dummy_prob",
    "true_fraction",
    "probability",
}
#: integer parameters that must be ≥ 1 (domain sizes, user counts, rounds, repetitions)
SIZES = {
    "d",
    "k",
    "h",
    "m",
    "n_users",
    "n_rounds",
    "n_candidates",
    "n_reports",
    "users_per_value",
    "reports",
    "n_tests",
    "max_d",
    "surveys_per_experiment",
    "n_draws",
    "max_size",
    "n_active",
    "n",
    "levels",
}
#: integers huge enough to need terabytes or to run for ever: refused by the ceilings
HUGE_INTS = [10**12, 2**63]
#: integer arrays that are counts (of users, reports, bits): each entry may be valid while their total wraps int64
COUNTS = {"counts", "true_counts", "truth", "cohort_sizes"}
#: text parameters that name a file or folder under a base folder: a traversal must not leave it (issue 39)
PATH_NAMES = {"stem", "name", "profile", "profile_name", "notebook", "path_name", "folder"}
TRAVERSALS = [
    "../../etc/passwd",
    "/etc/passwd",
    "..",
    "00_tutorial/../../../x",
    "00_tutorial/../..",
]


#: nested lists numpy cannot make an array of ("inhomogeneous shape"): refused naming the parameter, not by numpy
RAGGED_INTS = [[0, 1], [0]]
RAGGED_REALS = [[0.5, 0.5], [0.5]]
#: parameters that hold one set (a list) per user: a ragged nested list is their normal form
SET_VALUED = {"sets", "itemsets", "baskets"}


class _Opaque:
    """An object of no expected class (a wrong mechanism / population / params object)."""

    def __repr__(self):
        return "<opaque>"


def kind_of(name: str, valid) -> str:
    """The kind of a parameter from its name and its valid example."""
    if name == "rng":
        return "rng"
    if isinstance(valid, bool) or isinstance(valid, np.bool_):
        return "bool"
    if isinstance(valid, str):
        return "choice"
    if isinstance(valid, (int, np.integer)):
        return "size" if name in SIZES else "int"
    if isinstance(valid, (float, np.floating)):
        if name in BUDGETS:
            return "budget"
        if name in PROBABILITIES:
            return "probability"
        return "real"
    if isinstance(valid, (list, tuple, np.ndarray)):
        arr = np.asarray(valid)
        if arr.dtype.kind in "iu":
            return "int_array"
        if arr.dtype.kind == "f":
            return "real_array"
        return "other"
    if valid is None:
        return "other"
    return "object"


def _first_masked(arr: np.ndarray) -> np.ma.MaskedArray:
    """``arr`` with its first entry masked: np.asarray would read the hidden value as data."""
    mask = np.zeros(arr.shape, dtype=bool)
    mask.flat[0] = True
    return np.ma.masked_array(arr, mask=mask)


def _floats(*special):
    return st.sampled_from([math.nan, math.inf, -math.inf, *special])


def bad_values(name: str, valid, *, none_ok: bool = False, huge: bool = False) -> st.SearchStrategy:
    """Values parameter ``name`` (valid example ``valid``) must refuse with a ValueError/TypeError naming it.

    ``none_ok``: the parameter accepts ``None`` (its default), so ``None`` is not a bad value.
    ``huge``: the parameter sizes an allocation or a loop, so 10¹² and 2⁶³ must hit the ceilings
    (elsewhere a huge integer is legal: a closed form with 10¹² users is fine).
    """
    kind = kind_of(name, valid)
    types = st.sampled_from(["x", object(), {"a": 1}, *([] if none_ok else [None])])
    if kind == "rng":
        return st.sampled_from([None, 0, "x", np.random.SeedSequence(0)])
    if kind == "bool":
        return st.sampled_from(["x", 2, 0.5])
    if kind == "choice":
        return st.sampled_from(
            [
                "no-such-choice",
                3,
                *([] if none_ok else [None]),
                *(TRAVERSALS if name in PATH_NAMES else []),
            ]
        )
    if kind == "budget":
        return st.one_of(_floats(0.0, -1.0), st.floats(max_value=0.0, allow_nan=False), types)
    if kind == "probability":
        return st.one_of(_floats(-0.1, 1.5), st.floats(min_value=1.0001, max_value=1e6), types)
    if kind == "real":
        return st.one_of(_floats(), types)
    if kind == "size":
        huge_values = HUGE_INTS if huge or name == "n_draws" else []
        return st.one_of(
            st.sampled_from([0, -1, *huge_values, 2.5, math.nan, True]),
            st.integers(max_value=0),
            types,
        )
    if kind == "int":
        return st.one_of(st.sampled_from([2.5, math.nan, *(HUGE_INTS if huge else [])]), types)
    if kind == "int_array":
        arr = np.asarray(valid)
        wrapping = (
            [np.full(arr.shape, 2**62, dtype=np.int64)] if name in COUNTS and arr.size >= 2 else []
        )  # Σ > 2^63
        return st.one_of(
            st.sampled_from(
                [
                    np.array([], dtype=np.int64),
                    np.full(arr.shape, -1),
                    np.full(arr.shape, 0.5),
                    np.full(arr.shape, math.nan),
                    np.array(["a"] * max(arr.size, 1)),
                    arr.astype("timedelta64[s]"),  # numpy files timedelta under the integers
                    *([_first_masked(arr)] if arr.size else []),
                    *([] if name in SET_VALUED else [RAGGED_INTS]),
                    *wrapping,
                ]
            ),
            types,
        )
    if kind == "real_array":
        arr = np.asarray(valid)
        return st.one_of(
            st.sampled_from(
                [
                    np.array([], dtype=float),
                    np.full(arr.shape, math.nan),
                    np.full(arr.shape, math.inf),
                    np.array(["a"] * max(arr.size, 1)),
                    np.full(arr.shape, 1, dtype="timedelta64[s]"),
                    *([_first_masked(arr)] if arr.size else []),
                    *([] if name in SET_VALUED else [RAGGED_REALS]),
                ]
            ),
            types,
        )
    if kind == "object":
        return st.sampled_from(["x", 3, _Opaque(), *([] if none_ok else [None])])
    return st.sampled_from(
        [3, object(), *([] if none_ok else [None])]
    )  # sequences of names / objects


def special_values(strategy: st.SearchStrategy) -> list:
    """Every fixed value a ``bad_values`` strategy samples from (checked exhaustively, not by chance)."""
    found = []

    def walk(strat):
        strat = getattr(strat, "wrapped_strategy", strat)
        for attr in ("original_strategies", "element_strategies"):
            for inner in getattr(strat, attr, ()) or ():
                walk(inner)
        elements = getattr(strat, "elements", None)
        if isinstance(elements, (list, tuple)):
            found.extend(e for e in elements if not any(e is f for f in found))

    walk(strategy)
    return found


def seeds() -> st.SearchStrategy[int]:
    """Seeds for the valid-input properties (results must be reproducible per seed)."""
    return st.integers(min_value=0, max_value=2**32 - 1)


#: sizes that can grow without breaking a coupling to another argument (an array's length, a domain)
GROWABLE = {
    "n_users",
    "n_draws",
    "n_reports",
    "n",
    "n_trials",
    "reports",
    "surveys_per_experiment",
    "users_per_value",
    "n_tests",
    "max_d",
    "n_pilot",
    "n_candidates",
}


def valid_values(name: str, valid) -> st.SearchStrategy | None:
    """Other valid values of parameter ``name`` near its example ``valid`` (small, so the suite stays fast).

    Budgets anywhere in [0.25, 4]; probabilities within ±0.05 of the example; growable sizes up to
    1.5× (+2); seeds anywhere; positive reals within [0.8, 1.25]×; 1-D arrays permuted; populations
    redrawn (same rounds and users, random nested active sets).  ``None``: the kind is not varied.
    """
    kind = kind_of(name, valid)
    if kind == "budget":
        return st.floats(min_value=0.25, max_value=4.0)
    if kind == "probability" and 0.0 < valid < 1.0:
        return st.floats(min_value=max(0.01, valid - 0.05), max_value=min(0.99, valid + 0.05))
    if kind == "size" and name in GROWABLE and valid >= 1:
        return st.integers(min_value=int(valid), max_value=int(valid) + int(valid) // 2 + 2)
    if kind == "int" and name in ("seed", "matrix_seed", "hash_seed"):
        return st.integers(min_value=0, max_value=2**31 - 1)
    if kind == "real" and math.isfinite(valid) and valid > 0:
        return st.floats(min_value=0.8 * valid, max_value=1.25 * valid)
    if kind in ("int_array", "real_array") and np.ndim(valid) == 1 and np.size(valid) > 1:
        if isinstance(valid, (tuple, list)):
            return st.permutations(list(valid)).map(type(valid))
        dtype = np.asarray(valid).dtype
        return st.permutations(list(np.asarray(valid))).map(lambda v: np.array(v, dtype=dtype))
    if type(valid).__name__ == "Population":
        ones = st.lists(
            st.integers(0, valid.n_users), min_size=valid.n_rounds, max_size=valid.n_rounds
        )
        return ones.map(lambda v: type(valid).nested(np.array(v), valid.n_users))
    return None
