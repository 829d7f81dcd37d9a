"""Exact Bernoulli bits, eight at a time from 16 random bits (a quarter of a random byte per bit).

Eight independent Bernoulli(prob) bits form a pattern b ∈ {0, …, 255} whose probability
``P(b) = prob^|b| (1 − prob)^(8−|b|)`` (|b| = number of ones) is an exact rational, because a
double ``prob`` is one.  Sampling the pattern by inversion of a uniform U ∈ [0, 1) is therefore
exact for any partition of [0, 1) into one piece of length P(b) per pattern.  We use the
partition that makes almost every draw a table lookup: write U = (w + V)/65536 with w its first
16 bits, and

* give pattern b ``a_b = ⌊65536·P(b)⌋`` whole *clean* cells w, laid out first (cells
  0 … A−1, A = Σ a_b), so a clean w decides all eight bits at once;
* lay the leftover masses ``r_b = P(b) − a_b/65536`` end to end over the last 65536 − A < 256
  *residual* cells.

Then ``Pr[pattern b] = a_b/65536 + r_b = P(b)`` exactly.  A draw lands in a residual cell with
probability ``(65536 − A)/65536 < 1/256``; there U is located among the residual boundaries
with 64 more random bits, and, only if it ties with a boundary on all of them (probability
2^−64 per boundary), with further words until it is decided (:func:`count_points_at_or_below`).
The per-user unary-encoding client draws n·d bits through :func:`bernoulli_bits`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from ldp_helpers._validation import check_int, check_probability, check_rng

GROUP_BITS = 8  # bits decided per 16-bit cell
CELLS = 1 << 16  # cells of the first 16 bits of U
_WORD = 1 << 64  # resolution gained per extra uint64 of U
#: byte i of entry b is bit i of pattern b, as a little-endian uint64 (eight 0/1 bytes)
PATTERN_BYTES = np.array(
    [sum(((b >> i) & 1) << (8 * i) for i in range(GROUP_BITS)) for b in range(1 << GROUP_BITS)], dtype="<u8"
)


def pattern_probabilities(prob: float) -> list[Fraction]:
    """Exact ``P(b) = prob^|b| (1 − prob)^(8−|b|)`` of the 256 patterns of eight Bernoulli(prob) bits."""
    one = Fraction(check_probability(prob, "prob"))
    by_ones = [one**k * (1 - one) ** (GROUP_BITS - k) for k in range(GROUP_BITS + 1)]
    return [by_ones[b.bit_count()] for b in range(1 << GROUP_BITS)]


@dataclass(frozen=True)
class CellLayout:
    """The partition of [0, 1) described in the module docstring, for one ``prob``.

    ``clean_table[w]`` is the pattern bytes of clean cell w (w < ``clean_cells``).  The residual
    boundaries ``points`` (pattern b's residual piece is [points[b−1], points[b]), in cells from
    the start of the residual region) are also kept split as integer cell ``point_cell``,
    64-bit fraction ``point_low`` and ``point_exact`` (no further bits), then padded per
    residual cell for vectorized search: ``padded_low[h]``, ``padded_valid[h]``,
    ``padded_exact[h]``, with ``points_before[h]`` = the boundaries in earlier cells.
    """

    clean_cells: int
    clean_table: np.ndarray
    residual_masses: tuple[Fraction, ...]  # r_b, in cells
    points: tuple[Fraction, ...]  # boundaries between consecutive residual pieces (255 of them)
    points_before: np.ndarray
    padded_low: np.ndarray
    padded_valid: np.ndarray
    padded_exact: np.ndarray


@lru_cache(maxsize=64)
def cell_layout(prob: float) -> CellLayout:
    """Build (and cache) the :class:`CellLayout` of ``prob`` from the exact pattern probabilities."""
    masses = [p * CELLS for p in pattern_probabilities(prob)]
    whole = [int(m) for m in masses]  # a_b = ⌊65536 P(b)⌋
    residual = tuple(m - a for m, a in zip(masses, whole))
    clean_cells = sum(whole)
    clean_table = np.zeros(CELLS, dtype="<u8")  # residual cells are overwritten after lookup
    clean_table[:clean_cells] = np.repeat(PATTERN_BYTES, whole)
    points, total = [], Fraction(0)
    for r in residual[:-1]:
        total += r
        points.append(total)
    cells = [int(s) for s in points]
    scaled = [(s - c) * _WORD for s, c in zip(points, cells)]
    n_residual = CELLS - clean_cells
    per_cell = [[j for j, c in enumerate(cells) if c == h] for h in range(n_residual)]
    width = max((len(js) for js in per_cell), default=0) or 1
    padded_low = np.zeros((n_residual, width), dtype=np.uint64)
    padded_valid = np.zeros((n_residual, width), dtype=bool)
    padded_exact = np.zeros((n_residual, width), dtype=bool)
    for h, js in enumerate(per_cell):
        for k, j in enumerate(js):
            padded_low[h, k] = int(scaled[j])
            padded_valid[h, k] = True
            padded_exact[h, k] = scaled[j].denominator == 1
    points_before = np.array([sum(c < h for c in cells) for h in range(n_residual)], dtype=np.int64)
    for array in (clean_table, points_before, padded_low, padded_valid, padded_exact):
        array.setflags(write=False)  # cached and shared by every later call with this prob
    return CellLayout(clean_cells, clean_table, residual, tuple(points), points_before, padded_low, padded_valid, padded_exact)


def count_points_at_or_below(points, low: Fraction, width: Fraction, *, rng: np.random.Generator) -> int:
    """How many ``points`` are ≤ X, for X uniform on [low, low + width), refining X 64 bits at a time.

    Only points inside (low, low + width) are undecided; each round draws one uint64, narrows
    the interval 2^64-fold, and settles every point it no longer contains.  Ends with
    probability 1 (a point stays undecided for k rounds with probability 2^−64k).
    """
    counted = sum(s <= low for s in points)
    undecided = [s for s in points if low < s < low + width]
    while undecided:
        width /= _WORD
        low += int(rng.integers(0, _WORD, dtype=np.uint64)) * width
        counted += sum(s <= low for s in undecided)
        undecided = [s for s in undecided if low < s < low + width]
    return counted


def residual_patterns(layout: CellLayout, cells: np.ndarray, *, rng: np.random.Generator) -> np.ndarray:
    """The pattern indices of draws that landed in residual cells ``cells`` (0-based in the region).

    X = cell + W/2^64 + … with W a fresh uint64; the pattern is the number of boundaries ≤ X.
    A boundary whose 64-bit fraction equals W (and has more bits) is settled by
    :func:`count_points_at_or_below`.
    """
    draws = rng.integers(0, _WORD, size=cells.size, dtype=np.uint64)
    low, valid, exact = layout.padded_low[cells], layout.padded_valid[cells], layout.padded_exact[cells]
    column = draws[:, None]
    at_or_below = valid & ((low < column) | ((low == column) & exact))
    patterns = layout.points_before[cells] + at_or_below.sum(axis=1)
    for i in np.flatnonzero((valid & (low == column) & ~exact).any(axis=1)):
        cell, word = int(cells[i]), int(draws[i])
        offsets = [(s, (s - cell) * _WORD) for s in layout.points if int(s) == cell]
        tied = [s for s, offset in offsets if int(offset) == word and offset != word]  # exact ones are counted
        patterns[i] += count_points_at_or_below(tied, cell + Fraction(word, _WORD), Fraction(1, _WORD), rng=rng)
    return patterns


def random_bytes(rng: np.random.Generator, size: int) -> np.ndarray:
    """``rng.bytes(size)`` as a uint8 array, byte for byte, without its two copies.

    ``Generator.bytes`` is defined as the little-endian bytes of
    ``integers(0, 2**32, size=ceil(size/4), dtype=uint32)``, truncated (tested): drawing those
    words and viewing them keeps every stream identical and is about 4x faster.
    """
    if size == 0:  # Generator.bytes(0) still advances the state its own way: defer to it
        return np.frombuffer(rng.bytes(0), dtype=np.uint8)
    words = rng.integers(0, 2**32, size=-(-size // 4), dtype=np.uint32).astype("<u4", copy=False)
    return words.view(np.uint8)[:size]


def bernoulli_bits(size: int, prob: float, *, rng: np.random.Generator, out=None) -> np.ndarray:
    """``size`` independent Bernoulli(``prob``) draws as a bool array (written into ``out`` if given).

    Exact for every double ``prob`` in [0, 1] (see the module docstring); the random cost is
    16 bits per group of eight draws, plus 64 bits for the < 1/256 of groups that land in a
    residual cell.
    """
    size = check_int("size", size, low=0)
    rng = check_rng(rng)
    layout = cell_layout(check_probability(prob, "prob"))
    if out is not None and (not isinstance(out, np.ndarray) or out.dtype != bool or out.shape != (size,)):
        raise ValueError(f"out must be a bool numpy array of shape ({size},); got {type(out).__name__} {np.shape(out)}")
    if out is not None and not out.flags.writeable:
        raise ValueError("out must be a writeable array; got a read-only one")
    n_groups = -(-size // GROUP_BITS)
    cells = random_bytes(rng, 2 * n_groups).view("<u2")
    direct = out is not None and size % GROUP_BITS == 0 and out.flags.c_contiguous
    groups = out.view("<u8") if direct else np.empty(n_groups, dtype="<u8")
    np.take(layout.clean_table, cells, out=groups, mode="wrap")  # 16-bit cells never wrap; no temporary
    residual = np.flatnonzero(cells >= layout.clean_cells) if layout.clean_cells < CELLS else ()
    if len(residual):
        groups[residual] = PATTERN_BYTES[residual_patterns(layout, cells[residual] - layout.clean_cells, rng=rng)]
    if direct:
        return out
    bits = groups.view(np.uint8)[:size].view(bool)
    if out is None:
        return bits
    out[...] = bits
    return out
