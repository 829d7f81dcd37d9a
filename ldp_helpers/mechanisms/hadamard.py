"""The Sylvester–Hadamard matrix shared by Hadamard Response, the Hadamard mechanism and the HCMS.

``H_m[u, y] = (−1)^{popcount(u & y)}`` for m a power of 2 (rows and columns 0-based): the rows are
orthogonal, row 0 is all +1 and every other row has m/2 entries +1 and m/2 entries −1.  This module
holds the entries (:func:`hadamard_entries`), the fast transform ``H_m x`` (:func:`walsh_hadamard_transform`,
O(m log m)) and the two exact samplers the Hadamard oracles' aggregate samplers call: draws uniform on
sign sets (HR) and signs reported at a uniform Hadamard row (:func:`_split_over_hadamard_rows`: the
Hadamard mechanism and the HCMS).

The sign-set sampler.  Write ``S(u, σ) = {y ∈ [m] : σ·H_m[u, y] = +1}`` (σ = ±1; S(0, +) = [m], S(0, −) = ∅).
Given how many independent draws are uniform on each S(u, σ), :func:`_uniform_on_sign_sets` draws
the histogram of all of them over [m] exactly, by halving: H_{2h} = [[H_h, H_h], [H_h, −H_h]], so
with u = a·h + u' (a ∈ {0, 1}) the left half of S(u, σ) is S_h(u', σ) and its right half is
S_h(u', (−1)^a σ).  For u' ≠ 0 each half holds h/2 of the m/2 points, so a draw goes left with
probability 1/2 (one binomial per (u, σ)); u = h (u' = 0) puts S(h, +) entirely left and S(h, −)
entirely right; S(0, +) splits 1/2–1/2.  After log2 m halvings every block is one point: 2m log2 m
binomials in all, whatever the number of draws.  The same fair coins split counts equally over 2^a
cells (:func:`_equal_multinomial`: the sketches' per-value split over their rows).

References
----------
[acharya2019] (Hadamard matrices; the fast Walsh–Hadamard transform); [cormode2021] (the
Hadamard mechanism); [apple2017] (the HCMS).
"""

from __future__ import annotations

import functools

import numpy as np

from ldp_helpers._validation import (
    INT64_MAX,
    Described,
    check_int_array,
    check_real_array,
    fail,
    fail_shape,
)

FAIR_BITS_LIMIT = 2**10  # larger counts of fair coins are drawn by numpy's binomial (O(1) each)
FAIR_BITS_MIN_SIZE = 256  # smaller arrays of counts are drawn by numpy's binomial (one call)
#: at most one count in this many ≥ 64: one word per small count, numpy for the rest
FAIR_BITS_FEW_BIG = 16
#: longest axis transformed by two matrix products (:func:`_kronecker_transform`); longer ones by
#: the butterflies
KRONECKER_MAX_LENGTH = 1024
EQUAL_SPLIT_MIN_CELLS = 4096  # fewer output cells: _equal_multinomial calls numpy's multinomial
#: the r low bits, r < 64
_LOW_BITS = (np.uint64(1) << np.arange(64, dtype=np.uint64)) - np.uint64(1)


def hadamard_entries(rows, columns) -> np.ndarray:
    """``H[u, y] = (−1)^{popcount(u & y)}``, the Sylvester–Hadamard entries (int8 ±1, broadcast over rows, columns).

    Parameters
    ----------
    rows, columns : array_like of int
        Row indices u and column indices y (non-negative, below 2^62).

    References
    ----------
    [acharya2019] (the Hadamard matrix H_K); [cormode2021] (Hadamard coefficients).
    """
    u = check_int_array("rows", rows, low=0, high=2**62)
    y = check_int_array("columns", columns, low=0, high=2**62)
    try:
        np.broadcast_shapes(u.shape, y.shape)
    except ValueError:
        fail_shape("columns", y.shape, f"an array broadcastable with rows {u.shape}")
    return (1 - 2 * (np.bitwise_count(np.bitwise_and(u, y)) & 1)).astype(np.int8)


def walsh_hadamard_transform(values) -> np.ndarray:
    """``H_m x`` along the last axis (m, the length of that axis, a power of 2).

    Integer input stays integer and exact (two small matrix products while m ≤ 1024 and every sum
    stays below 2^53, else the fast transform's butterflies); real input is float64, by butterflies.

    References
    ----------
    [acharya2019] (the fast Walsh–Hadamard transform behind HR's O(n + k log k) decoder).
    """
    arr = check_real_array("values", values)
    if arr.ndim == 0:
        fail("values", Described("a scalar"), "an array with at least one axis")
    m = arr.shape[-1]
    if m < 1 or m & (m - 1):
        fail(
            "values",
            Described(f"an array whose last axis has length {m}"),
            "a last axis whose length is a power of 2",
        )
    if np.asarray(values).dtype.kind in "iu":
        integers = check_int_array("values", values)  # uint64 above int64's range is refused
        _check_row_sums(integers)
        return _integer_transform(integers).astype(np.int64, copy=False)
    return _butterflies(np.array(arr, dtype=float))


def _check_row_sums(values: np.ndarray) -> None:
    """Refuse int64 rows whose |entries| sum past 2^63 − 1: every partial sum of the butterflies (and
    every output) is at most that sum, so below it the transform is exact, above it int64 would wrap."""
    m = values.shape[-1]
    if max(int(values.max()), -int(values.min())) * m <= INT64_MAX:
        return
    rows = values.reshape(-1, m).tolist()
    largest = max(sum(abs(v) for v in row) for row in rows)
    if largest > INT64_MAX:
        fail(
            "values",
            Described(f"integers whose absolute values sum to {largest} in a row"),
            f"integers whose absolute values sum to at most 2^63 − 1 = {INT64_MAX} along the last "
            "axis (the transform's sums stay exact in int64)",
        )


def _integer_transform(values: np.ndarray) -> np.ndarray:
    """``H_m x`` of an int64 array, exact: as float64 by :func:`_kronecker_transform` when m ≤
    :data:`KRONECKER_MAX_LENGTH` and every sum stays below 2^53, else as int64 by butterflies."""
    m = values.shape[-1]
    if m <= KRONECKER_MAX_LENGTH and int(np.abs(values).max(initial=0)) * m < 2**53:
        return _kronecker_transform(values.astype(float))
    return _butterflies(values.copy())


def _butterflies(out: np.ndarray) -> np.ndarray:
    """``out`` transformed in place along its last axis: butterflies (x, y) -> (x + y, x − y) on
    pairs h apart, h = 1, 2, 4, …"""
    lead, m, h = out.shape[:-1], out.shape[-1], 1
    while h < m:
        pairs = out.reshape(*lead, m // (2 * h), 2, h)
        x, y = pairs[..., 0, :], pairs[..., 1, :]
        difference = x - y
        x += y
        y[...] = difference
        h *= 2
    return out


def _kronecker_transform(values: np.ndarray) -> np.ndarray:
    """``H_m x`` along the last axis of a float64 array (m ≤ :data:`KRONECKER_MAX_LENGTH`, a power
    of 2) by two matrix products: H_m = H_a ⊗ H_b (a·b = m), so x read as an a × b matrix X maps to
    H_a X H_b.  Exact for integer entries whose sums stay below 2^53."""
    m = values.shape[-1]
    a = 1 << ((m.bit_length() - 1) // 2)
    rows = values.reshape(-1, a, m // a) @ _hadamard_matrix(m // a)  # X H_b
    return np.matmul(_hadamard_matrix(a), rows).reshape(values.shape)  # H_a (X H_b)


@functools.lru_cache(maxsize=16)
def _hadamard_matrix(m: int) -> np.ndarray:
    """H_m as float64 (read-only, cached)."""
    matrix = hadamard_entries(np.arange(m)[:, None], np.arange(m)[None, :]).astype(float)
    matrix.setflags(write=False)
    return matrix


def _uniform_on_sign_sets(counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Histogram over [m] of independent draws, ``counts[..., u, 0]`` of them uniform on S(u, +) and
    ``counts[..., u, 1]`` uniform on S(u, −) (the module docstring; ``counts[..., 0, 1]`` must be 0).

    ``counts`` has shape (..., m, 2), m a power of 2; the result has shape (..., m).  Exact.
    """
    lead, m = counts.shape[:-2], counts.shape[-2]
    table = counts.ravel()  # each survey's blocks in turn, a block (u, σ) of 2m counts: one layout
    while m > 1:
        h = m // 2
        table = _merge_halves(_fair_binomial(table, rng), table, h, sign_sets=True)
        m = h
    return table.reshape(*lead, -1, 2)[..., 0]


def _split_over_hadamard_rows(
    signed: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Users of column c (the HCMS's hash in a sketch row, the Hadamard mechanism's value),
    ``signed[…, 0, c]`` of sign +1 and ``signed[…, 1, c]`` of sign −1, each pick a Hadamard row l
    uniformly and report their sign times H[l, c]: (#reports +1, #reports −1) per l, for each leading
    index (a sketch row, a survey).

    Exact in O(m log m) per leading index instead of an m × m multinomial: l's bits are independent
    fair coins, and H[l, c] = Π_t (−1)^{l_t c_t}.  Bit by bit (most significant first) each
    population — the users whose l starts with a given prefix, grouped by their sign so far and the
    bits of c not yet read — splits binomially in two; reading bit t of c then merges its two halves,
    flipping the sign of the c_t = 1 half in the l_t = 1 branch.  Every level holds 2m counts per
    leading index.
    """
    lead, m = signed.shape[:-2], signed.shape[-1]
    state = signed.ravel()  # blocks (prefix …) of the counts (sign ±, remaining c), 2m a row
    while m > 1:
        half = m // 2
        low = _fair_binomial(state, rng)  # l_t = 0: the sign kept; l_t = 1: flipped if c_t = 1
        state = _merge_halves(low, state, half, sign_sets=False)
        m = half
    state = state.reshape(*lead, -1, 2)  # (…, l, sign)
    return state[..., 0], state[..., 1]


def _merge_halves(drawn: np.ndarray, table: np.ndarray, h: int, *, sign_sets: bool) -> np.ndarray:
    """The next table of a halving: of each count of ``table`` (flat, blocks of 2h values u × 2 signs
    σ), ``drawn`` go to branch l = 0 (the left half, l_t = 0), the rest to branch l = 1.

    With u = a·h + x (a, the bit read), branch l of block b becomes block (b, l) of the next table,
    (b, l, σ, x) = D_l(0, σ, x) + D_l(1, σ ⊕ l, x): the sign flips for a = 1 in branch 1.  A block is
    laid out (u, σ) for the ``sign_sets`` above, where S(h, +) lies wholly in the left half and
    S(h, −) in the right (their draws are ignored: D_l(1, σ', 0) = table(h, σ') if σ' is + for
    l = 0 or − for l = 1, else 0), else (σ, u) (:func:`_split_over_hadamard_rows`); the next table
    alike.  Two gathers of precomputed positions.
    """
    size = table.size
    parts = (drawn, table - drawn, table, _ZERO) if sign_sets else (drawn, table - drawn)
    halves = np.concatenate(parts)
    small = size <= _CACHED_GATHER_COUNTS
    first, second = (_cached_halving_gathers if small else _halving_gathers)(size, h, sign_sets)
    out = halves.take(first)
    out += halves.take(second)
    return out


def _halving_gathers(size: int, h: int, sign_sets: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_merge_halves`' positions of D_l(0, σ, x) and D_l(1, σ ⊕ l, x) in the draws of every
    block to each branch, [branch 0 | branch 1 | (sign sets) table | 0] (``size`` counts each), for
    each count (b, l, σ, x) of the next table (read-only)."""
    base = np.arange(size // (4 * h))[:, None, None, None] * (4 * h)
    branch = np.arange(2)[:, None, None]
    if sign_sets:  # (b, l, x, σ)
        x, sigma = np.arange(h)[:, None], np.arange(2)
        position = lambda a, s: size * branch + 2 * h * a + 2 * x + s  # noqa: E731
    else:  # (b, l, σ, x)
        sigma, x = np.arange(2)[:, None], np.arange(h)
        position = lambda a, s: size * branch + 2 * h * s + h * a + x  # noqa: E731
    first = base + position(0, sigma)
    second = base + position(1, sigma ^ branch)
    if sign_sets:  # x = 0: S(h, σ') wholly in branch σ', read from the table; else the 0
        whole = np.where(
            sigma ^ branch == branch, base + 2 * size + 2 * h + (sigma ^ branch), 3 * size
        )
        second = np.where(x == 0, whole, second)
    first, second = first.ravel(), second.ravel()
    first.setflags(write=False)
    second.setflags(write=False)
    return first, second


#: the count read where a sign set lies wholly in the other branch
_ZERO = np.zeros(1, dtype=np.int64)
#: the halvings' gathers are cached for tables of at most this many counts (16 bytes a count)
_CACHED_GATHER_COUNTS = 2**14
_cached_halving_gathers = functools.lru_cache(maxsize=64)(_halving_gathers)


def _fair_binomial(counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Bin(n, ½) for every n of ``counts`` (non-negative int64), exact: the ones among n fair random bits.

    n = 64q + r up to :data:`FAIR_BITS_LIMIT` counts the set bits of q random 64-bit words and of the r low
    bits of one more (every bit of the generator's words is a fair coin, independent of the others); larger
    counts go to numpy's binomial.  The halvings of the samplers above draw mostly small counts, where this
    is several times faster than a binomial draw with its per-element set-up.  When at most one count in
    :data:`FAIR_BITS_FEW_BIG` reaches 64 (the deep halvings; a uniform report's few large counts), each count
    below 64 reads one word and the others go to numpy's binomial: no segment sums.  Arrays of fewer than
    :data:`FAIR_BITS_MIN_SIZE` counts (a small domain's halvings) go to numpy's binomial whole: there the
    dozen array operations below cost more than the draws; so do arrays whose counts mostly exceed the
    limit (a large survey's first halvings).
    """
    if counts.size < FAIR_BITS_MIN_SIZE:
        return rng.binomial(counts, 0.5)
    flat, top, n_huge = counts.ravel(), counts.max(), 0
    if top > FAIR_BITS_LIMIT:
        huge = flat > FAIR_BITS_LIMIT
        n_huge = np.count_nonzero(huge)
        if 2 * n_huge >= flat.size:  # mostly numpy's draws: the fair bits cost more
            return rng.binomial(counts, 0.5)
    n_big = 0
    if top >= 64:
        big = counts >= 64
        n_big = np.count_nonzero(big)
    if n_big * FAIR_BITS_FEW_BIG <= counts.size:  # the n low bits of one word each
        words = _random_words(counts.size, rng).reshape(counts.shape)
        words &= _LOW_BITS.take(counts, mode="clip")  # (a count ≥ 64 is drawn below)
        out = np.bitwise_count(words, out=words).view(np.int64)
        if n_big:
            out[big] = rng.binomial(counts[big], 0.5)
        return out
    small = flat[~huge] if n_huge else flat
    ends = np.cumsum(small >> 6)  # count i: its whole words end at ends[i], start at ends[i − 1]
    words = _random_words(small.size + int(ends[-1]), rng)  # a low word per count, then the wholes
    ones = np.bitwise_count(words[: small.size] & _LOW_BITS.take(small & 63)).astype(np.int64)
    if ends[-1]:  # the whole words' set bits summed by segment, from their running sum
        running = np.zeros(words.size - small.size + 1, dtype=np.int64)
        np.cumsum(np.bitwise_count(words[small.size :]), out=running[1:])
        at_ends = running.take(ends)
        ones += at_ends
        ones[1:] -= at_ends[:-1]
    if not n_huge:
        return ones.reshape(counts.shape)
    out = np.empty(flat.shape, dtype=np.int64)
    out[~huge] = ones
    out[huge] = rng.binomial(flat[huge], 0.5)
    return out.reshape(counts.shape)


def _random_words(size: int, rng: np.random.Generator) -> np.ndarray:
    """``rng.integers(0, 2**64, size, dtype=np.uint64)``: ``size`` uniform 64-bit words.

    A bit generator whose raw output is a 64-bit word (:data:`_RAW_64_BITS`) gives the same words,
    from the same stream, by ``random_raw``, without ``integers``' per-call argument checks.
    """
    if type(rng.bit_generator) in _RAW_64_BITS:
        return rng.bit_generator.random_raw(size)
    return rng.integers(0, 2**64, size=size, dtype=np.uint64)


#: bit generators whose raw output is what ``integers(0, 2**64, dtype=np.uint64)`` draws (MT19937's
#: raw output is 32 bits)
_RAW_64_BITS = (np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64)


def _cell_sums(cells: np.ndarray, users: np.ndarray, size: int) -> np.ndarray:
    """Σ ``users`` per cell (``cells`` its flat indices in [0, size)), in int64: exact for every
    accepted population (≤ 2^62 users), where a float64 bincount rounds sums above 2^53."""
    sums = np.zeros(size, dtype=np.int64)
    np.add.at(sums, cells, users)
    return sums


def _equal_multinomial(counts: np.ndarray, cells: int, rng: np.random.Generator) -> np.ndarray:
    """Multinomial(n, (1/cells, …, 1/cells)) for every n of ``counts`` (a new last axis of ``cells``), exact.

    With ``cells`` a power of 2 and at least :data:`EQUAL_SPLIT_MIN_CELLS` output cells, by halvings:
    each group of n draws splits Bin(n, ½) / rest (:func:`_fair_binomial`), log2(cells) times — fair
    coins instead of numpy's ``cells`` sequential binomial draws per count; otherwise (few cells: one
    numpy call costs less than the halvings' calls) numpy's multinomial.
    """
    if cells & (cells - 1) or np.size(counts) * cells < EQUAL_SPLIT_MIN_CELLS:
        return rng.multinomial(counts, np.full(cells, 1.0 / cells))
    out = np.array(counts, dtype=np.int64).ravel()
    for _ in range(cells.bit_length() - 1):  # each count n -> (Bin(n, ½), the rest), side by side
        left, out = _fair_binomial(out, rng), np.repeat(out, 2)
        out[0::2] = left
        out[1::2] -= left
    return out.reshape(*np.shape(counts), cells)
