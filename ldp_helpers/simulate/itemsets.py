"""Synthetic set-valued data with a known ground truth: Zipf item popularity, long-tailed basket sizes.

References
----------
[wang2018svim] (their datasets are real: POS, Kosarak, Online; we generate baskets with the same
shape — power-law item frequencies, a few long baskets — so the truth is known exactly).
"""

from __future__ import annotations

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_allocation,
    check_domain_values,
    check_int,
    check_real,
    check_rng,
    check_unmasked,
    fail,
    fail_type,
)

_CHUNK = 8192  # users per block of Gumbel keys (bounds the memory at _CHUNK × d floats)


def zipf_baskets(
    n_users: int, d: int, exponent: float, mean_size: float, *, rng: np.random.Generator
) -> list:
    """``n_users`` baskets over items [0, d): size 1 + Poisson(mean_size − 1) (at most d), items without
    replacement with Pr ∝ 1/(rank+1)^exponent (item 0 the most popular).

    Sampling without replacement with weights w is the top-|S| of ``log w + Gumbel`` keys (exact).

    References
    ----------
    [wang2018svim] (power-law items, long-tailed set sizes).
    """
    n_users, d = check_int("n_users", n_users, low=1), check_int("d", d, low=1, high=1_000_000)
    exponent = check_real("exponent", exponent, low=0.0, low_open=False, high=10.0)
    mean_size = check_real("mean_size", mean_size, low=1.0, low_open=False, high=float(d))
    check_allocation(
        "n_users", n_users, n_users * min(d, 64), what="the baskets (a Python list of arrays)"
    )
    rng = check_rng(rng)
    log_w = -exponent * np.log(np.arange(1, d + 1))
    sizes = np.minimum(1 + rng.poisson(mean_size - 1.0, size=n_users), d)
    baskets = []
    for start in range(0, n_users, _CHUNK):
        block = sizes[start : start + _CHUNK]
        keys = log_w + rng.gumbel(size=(block.size, d))
        order = np.argsort(-keys, axis=1)
        baskets += [np.sort(order[i, :s]) for i, s in enumerate(block)]
    return baskets


def item_counts(baskets, d: int) -> np.ndarray:
    """How many baskets hold each item (the ground truth the miners estimate)."""
    d = check_int("d", d, low=1)
    if (
        isinstance(baskets, (str, bytes, dict))
        or not hasattr(baskets, "__iter__")
        or not hasattr(baskets, "__len__")
    ):
        fail_type("baskets", baskets, f"a sequence of baskets (arrays of items in [0, {d}))")
    if len(baskets) == 0:
        fail("baskets", Described("an empty list"), "at least one basket")
    expected = f"a sequence of flat arrays of items in [0, {d})"
    for i, b in enumerate(baskets):
        check_unmasked(f"baskets[{i}]", b, expected)
    try:
        flat = np.concatenate([np.asarray(b).ravel() for b in baskets])
    except (ValueError, TypeError):
        fail_type("baskets", baskets, expected)
    return np.bincount(check_domain_values("baskets", flat, d), minlength=d)
