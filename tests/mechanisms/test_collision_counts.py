"""The fast collision tables of issue 36 item 2 give the very numbers of the plain loops they replace.

The privacy–utility panel at d = 2048 spends its time in the sketches' d × d collision tables and FLH's
pair groups; both were made faster without changing a bit: integer accumulation of the ±1 sums, and the
same partitions of the values found with fewer sorts.
"""

import numpy as np
import pytest

from ldp_helpers.mechanisms import fast_local_hashing as flh
from ldp_helpers.mechanisms.count_mean_sketch import _hash_values
from ldp_helpers.mechanisms.local_hashing import _collision_counts


def _float_loop(table, signs=None):
    """The loop it replaces: Σ_j 1[h_j(v) = h_j(x)]·s_j(v)s_j(x) accumulated in floats."""
    kernel = np.zeros((table.shape[1],) * 2)
    for j, row in enumerate(table):
        outer = 1.0 if signs is None else np.outer(signs[j], signs[j])
        kernel += (row[:, None] == row[None, :]) * outer
    return kernel


@pytest.mark.parametrize("rows, cells", [(3, 4), (16, 256), (130, 7)])
@pytest.mark.parametrize("signed", [False, True])
def test_collision_counts_are_the_float_loop_bit_for_bit(rows, cells, signed):
    """Unsigned and signed, k below and above the int8 range: C/k equals the float loop's /k exactly."""
    rng = np.random.default_rng(rows * cells)
    table = rng.integers(0, cells, size=(rows, 200))
    signs = rng.choice([-1, 1], size=table.shape) if signed else None
    counts = _collision_counts(table, signs)
    assert np.issubdtype(counts.dtype, np.signedinteger)
    assert counts.dtype.itemsize == (1 if rows < 127 else 2)
    fast, slow = counts / rows, _float_loop(table, signs) / rows
    assert fast.tobytes() == slow.tobytes()
    assert np.any(counts < 0) == signed  # the signs do enter


def _unique_groups(table):
    """The grouping it replaces: one np.unique per row and per pair of rows."""
    k = table.shape[0]
    cells = tuple(np.unique(table[j], return_inverse=True)[1] for j in range(k))
    pairs = tuple(
        (
            jj != j,
            np.unique(table[j] * (int(table[jj].max()) + 1) + table[jj], return_inverse=True)[1],
        )
        for j in range(k)
        for jj in range(j, k)
    )
    return cells, pairs


def _same_partition(a, b) -> bool:
    """Two labelings group the values alike: each label of one maps to exactly one of the other."""
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


@pytest.mark.parametrize("g", [2, 3, 40, 600, 5000, 10**8])
def test_flh_pair_groups_are_the_same_partitions_and_sums(g):
    """Every g regime (dense keys, shared values sorted, all alone): same groups, same f·S and f·S² bits."""
    rng = np.random.default_rng(g)
    k, d = 6, 700
    a, b = rng.integers(1, 2**31 - 1, size=k), rng.integers(0, 2**31 - 1, size=k)
    table = _hash_values(tuple(map(int, a)), tuple(map(int, b)), d, g)
    fast = flh._collision_groups.__wrapped__(table.tobytes(), table.dtype.str, table.shape)
    slow = _unique_groups(table)
    for x, y in zip(fast[0], slow[0]):
        assert _same_partition(x, y)
    for (twice_x, x), (twice_y, y) in zip(fast[1], slow[1]):
        assert twice_x == twice_y and _same_partition(x, y)
    counts = rng.integers(0, 1000, size=d)
    linear, square = flh._collision_sums(table, counts)
    weights, old_linear, old_square = counts.astype(float), np.zeros(d), np.zeros(d)
    for cell in slow[0]:
        old_linear += np.bincount(cell, weights=weights)[cell]
    for twice, groups in slow[1]:
        old_square += (2 if twice else 1) * np.bincount(groups, weights=weights)[groups]
    assert linear.tobytes() == (old_linear / k).tobytes()
    assert square.tobytes() == (old_square / k**2).tobytes()
    rates = _float_loop(table) / k
    np.testing.assert_allclose(linear, counts @ rates, rtol=1e-12)
    np.testing.assert_allclose(square, counts @ rates**2, rtol=1e-12)
