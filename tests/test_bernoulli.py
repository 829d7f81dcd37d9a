"""Exact Bernoulli bits, eight per 16-bit cell: the partition is exact, the sampler follows it."""

from fractions import Fraction

import numpy as np
import pytest

from ldp_helpers.mechanisms.bernoulli import (
    CELLS,
    PATTERN_BYTES,
    bernoulli_bits,
    cell_layout,
    count_points_at_or_below,
    pattern_probabilities,
    random_bytes,
    residual_patterns,
)
from stat_checks import assert_mean_close, chisquare_pvalue

PROBS = [0.0, 1.0, 0.5, 0.25, 1 / 3, 1 / (np.e + 1), 1e-5, 0.05, 0.999, 3 / 2**10, 5e-324, 1 - 2**-53]


def patterns_of(bits: np.ndarray) -> np.ndarray:
    """Pattern index Σ_i bit_i 2^i of each consecutive group of eight bits."""
    return bits.reshape(-1, 8).astype(np.int64) @ (1 << np.arange(8))


def test_pattern_bytes_spell_each_pattern():
    """Byte i of PATTERN_BYTES[b] is bit i of b (so a table lookup writes the pattern's eight bits)."""
    assert np.array_equal(patterns_of(PATTERN_BYTES.view(np.uint8).view(bool)), np.arange(256))


@pytest.mark.parametrize("prob", PROBS)
def test_layout_gives_every_pattern_its_exact_probability(prob):
    """clean cells/65536 + residual piece = prob^k (1−prob)^(8−k) exactly, for all 256 patterns."""
    layout = cell_layout(prob)
    exact = pattern_probabilities(prob)
    assert sum(exact) == 1
    assert CELLS - 256 < layout.clean_cells <= CELLS
    clean = layout.clean_table[: layout.clean_cells]
    clean_counts = [int(np.count_nonzero(clean == PATTERN_BYTES[b])) for b in range(256)]
    for b in range(256):
        assert min(layout.residual_masses[b], 1 - layout.residual_masses[b]) >= 0
        assert Fraction(clean_counts[b], CELLS) + layout.residual_masses[b] / CELLS == exact[b]
    ends = np.cumsum(np.array(layout.residual_masses, dtype=object))
    assert list(layout.points) == list(ends[:-1]) and ends[-1] == CELLS - layout.clean_cells


@pytest.mark.parametrize("prob", [1 / (np.e + 1), 1e-5, 0.999])
def test_padded_boundaries_match_the_exact_points(prob):
    """Per residual cell h: the padded 64-bit fractions, exactness flags and counts before h."""
    layout = cell_layout(prob)
    for h in range(CELLS - layout.clean_cells):
        inside = [s for s in layout.points if int(s) == h]
        k = len(inside)
        assert layout.padded_valid[h].sum() == k and layout.padded_valid[h, :k].all()
        assert [int(x) for x in layout.padded_low[h, :k]] == [int((s - h) * 2**64) for s in inside]
        assert list(layout.padded_exact[h, :k]) == [((s - h) * 2**64).denominator == 1 for s in inside]
        assert layout.points_before[h] == sum(int(s) < h for s in layout.points)


@pytest.mark.statistical
def test_residual_cells_draw_patterns_in_proportion_to_their_residual_mass(rng):
    """Conditional on a residual cell, pattern b has probability r_b / Σ r (chi-square, 10^6 draws)."""
    layout = cell_layout(1 / (np.e + 1))
    n_residual = CELLS - layout.clean_cells
    cells = rng.integers(0, n_residual, size=1_000_000)
    drawn = residual_patterns(layout, cells, rng=rng)
    pmf = np.array([float(r / n_residual) for r in layout.residual_masses])
    assert chisquare_pvalue(drawn, pmf) > 1e-3


class ScriptedWords:
    """A stand-in Generator whose ``integers`` returns scripted uint64 words: first the batch, then one by one."""

    def __init__(self, batch, following):
        self.batch, self.following = list(batch), list(following)

    def integers(self, low, high, size=None, dtype=None):
        if size is None:
            return np.uint64(self.following.pop(0))
        words, self.batch = self.batch[:size], self.batch[size:]
        return np.array(words, dtype=np.uint64)


def exact_pattern(points, cell: int, words) -> int:
    """Reference: the number of boundaries ≤ X, X = cell + Σ_k words[k] 2^(−64(k+1)), refined until none is inside."""
    low, width, words = Fraction(cell), Fraction(1), iter(words)
    while any(low < s < low + width for s in points):
        width /= 2**64
        low += next(words) * width
    return sum(s <= low for s in points)


@pytest.mark.parametrize("prob", [3 / 2**10, 1e-5, 1e-300])
def test_residual_search_is_exact_at_every_boundary_word(prob):
    """Words just below, at and above each boundary's 64-bit floor, with tie continuations: no 2^−64 slack.

    A wrong tie rule (ties always or never counted, an exact boundary missed or counted twice)
    errs with probability ~2^−64 per draw, invisible to sampling: here the words are scripted.
    3/2^10 puts boundaries exactly on 64-bit words; 1e-300 needs many refinement rounds.
    """
    layout = cell_layout(prob)
    cases = 0
    for cell in range(CELLS - layout.clean_cells):
        inside = [s for s in layout.points if int(s) == cell]
        floors = {int((s - cell) * 2**64) for s in inside}
        for word in sorted({0, 2**64 - 1} | {w + k for w in floors for k in (-1, 0, 1) if 0 <= w + k < 2**64}):
            tied = [(s - cell) * 2**64 - word for s in inside if int((s - cell) * 2**64) == word]
            continuations = [[0] * 400, [2**64 - 1] * 400] + [[int(t * 2**64)] + [0] * 400 for t in tied if t != 0]
            for following in continuations:
                drawn = residual_patterns(layout, np.array([cell]), rng=ScriptedWords([word], following))
                assert int(drawn[0]) == exact_pattern(layout.points, cell, [word, *following]), (cell, word)
                cases += 1
    assert cases > 100


def test_count_points_settles_points_outside_the_interval_without_drawing():
    """Points below (or at) low count, points at or beyond low + width do not: no randomness used."""
    rng, twin = np.random.default_rng(1), np.random.default_rng(1)
    points = [Fraction(1, 8), Fraction(1, 4), Fraction(3, 4), Fraction(1)]
    assert count_points_at_or_below(points, Fraction(1, 4), Fraction(1, 2), rng=rng) == 2
    assert rng.integers(0, 2**62) == twin.integers(0, 2**62)


@pytest.mark.statistical
def test_count_points_refines_a_tie_with_the_right_probability(rng):
    """X uniform on [⌊2^64/3⌋/2^64, +2^−64) lies above 1/3 with probability 2/3 (3,000 refinements)."""
    low = Fraction(2**64 // 3, 2**64)
    counted = [count_points_at_or_below([Fraction(1, 3)], low, Fraction(1, 2**64), rng=rng) for _ in range(3_000)]
    assert_mean_close(counted, 2 / 3, 2 / 9)


def test_zero_and_one_are_deterministic(rng):
    """prob = 0 never yields a 1 and prob = 1 always does."""
    assert not bernoulli_bits(10_001, 0.0, rng=rng).any()
    assert bernoulli_bits(10_001, 1.0, rng=rng).all()


@pytest.mark.statistical
@pytest.mark.parametrize("prob", [0.5, 1 / (np.e + 1), 0.00390625 + 1e-6, 0.9, 2.0**-17])
def test_mean_matches_prob(prob, rng):
    """Over 4·10^6 draws the mean is prob within 5 SE (including probabilities with most mass residual)."""
    bits = bernoulli_bits(4_000_000, prob, rng=rng)
    assert_mean_close(bits, prob, prob * (1 - prob))


@pytest.mark.statistical
@pytest.mark.parametrize("prob", [1 / (np.e + 1), 0.02])
def test_groups_of_eight_are_independent_bits(prob, rng):
    """The 8-bit patterns follow the product law prob^k (1−prob)^(8−k) (chi-square over 256 patterns)."""
    bits = bernoulli_bits(8 * 1_000_000, prob, rng=rng)
    pmf = np.array([float(p) for p in pattern_probabilities(prob)])
    assert chisquare_pvalue(patterns_of(bits), pmf) > 1e-3


def test_out_buffer_and_sizes_and_determinism():
    """Writes into out (aligned, unaligned, size not a multiple of 8); same seed gives same bits."""
    reference = bernoulli_bits(1_003, 0.3, rng=np.random.default_rng(5))
    assert reference.shape == (1_003,) and reference.dtype == bool
    for offset in (0, 1):
        buffer = np.zeros(1_003 + offset, dtype=bool)
        out = buffer[offset:]
        assert bernoulli_bits(1_003, 0.3, rng=np.random.default_rng(5), out=out) is out
        assert np.array_equal(out, reference)
    whole_groups = bernoulli_bits(1_000, 0.3, rng=np.random.default_rng(5))
    strided = np.zeros(2_006, dtype=bool)[::2]  # not contiguous: written through a copy
    assert np.array_equal(bernoulli_bits(1_003, 0.3, rng=np.random.default_rng(5), out=strided), reference)
    for offset in (0, 1):  # written in place through a uint64 view, aligned or not
        out = np.zeros(1_000 + offset, dtype=bool)[offset:]
        bernoulli_bits(1_000, 0.3, rng=np.random.default_rng(5), out=out)
        assert np.array_equal(out, whole_groups)
    assert bernoulli_bits(0, 0.3, rng=np.random.default_rng(5)).shape == (0,)


def test_rejects_bad_arguments(rng):
    """prob outside [0, 1], a negative size or a wrong out buffer are refused."""
    with pytest.raises(ValueError, match=r"prob must be in \[0, 1\]"):
        bernoulli_bits(3, 1.5, rng=rng)
    with pytest.raises(ValueError, match=r"prob must be"):
        bernoulli_bits(3, float("nan"), rng=rng)
    with pytest.raises(ValueError, match=r"size must be an integer in \[0, inf\]"):
        bernoulli_bits(-1, 0.5, rng=rng)
    with pytest.raises(ValueError, match="out must be a bool numpy array of shape"):
        bernoulli_bits(3, 0.5, rng=rng, out=np.empty(4, dtype=bool))
    with pytest.raises(ValueError, match=r"out must be a bool numpy array of shape \(3,\); got list"):
        bernoulli_bits(3, 0.5, rng=rng, out=[False] * 3)
    read_only = np.zeros(8, dtype=bool)
    read_only.setflags(write=False)
    with pytest.raises(ValueError, match="out must be a writeable array"):
        bernoulli_bits(8, 0.5, rng=rng, out=read_only)
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        bernoulli_bits(8, 0.5, rng=np.random.RandomState(0))


def test_cached_layout_cannot_be_altered():
    """The cached tables are read-only: no caller can silently change later draws."""
    layout = cell_layout(0.3)
    with pytest.raises(ValueError, match="read-only"):
        layout.clean_table[0] = 0


@pytest.mark.parametrize("size", [0, 1, 3, 4, 1001])
def test_random_bytes_are_generator_bytes(size):
    """The fast byte source reproduces Generator.bytes exactly (same stream, same state afterwards)."""
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    assert random_bytes(a, size).tobytes() == b.bytes(size)
    assert a.integers(0, 2**62) == b.integers(0, 2**62)
