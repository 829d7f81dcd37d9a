"""The field's oracles (issue 29, part A) beyond the conformance suite: exact tables and closed forms in other
settings than the registry examples, the Hadamard helpers, each exact sampler against its per-user client where
its special cases live (HR with one block, HM with t = 1 and 3, SS with k = 1 and k = d − 1, both hypergeometric
paths), the parameter rules (B, t, k), Duchi et al.'s mean mechanism, and the conformance suite's power on the new
entries (independent subset counts, a variance 15 % too large: both caught).

Statistical tests use fixed seeds and tolerances of 5 standard errors from the exact variances.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pytest
import test_conformance as conformance
from scipy import stats

from ldp_helpers.experiments.field_oracles import build_oracle, oracle_keys
from ldp_helpers.mechanisms import hadamard, subset_selection
from ldp_helpers.mechanisms.base import PureFrequencyOracle
from ldp_helpers.mechanisms.duchi_mean import DuchiMean
from ldp_helpers.mechanisms.fast_local_hashing import FastLocalHashing, fixed_hash_moments
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.hadamard import (
    _fair_binomial,
    _uniform_on_sign_sets,
    hadamard_entries,
    walsh_hadamard_transform,
)
from ldp_helpers.mechanisms.hadamard_mechanism import (
    HadamardMechanism,
    HadamardReports,
    coefficient_variance_factor,
    optimal_coefficients,
)
from ldp_helpers.mechanisms.hadamard_response import HadamardResponse, hr_blocks
from ldp_helpers.mechanisms.local_hashing import HASH_PRIME
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.mechanisms.subset_selection import (
    SubsetSelection,
    _total_variance,
    _tree_counts,
    optimal_subset_size,
)

COUNTS = np.array([30, 10, 5, 0, 15, 7, 3, 9, 12, 4, 0, 6, 8], dtype=np.int64)
N_SE = 5.0


def _same_law(a: np.ndarray, b: np.ndarray, what: str, alpha: float = 1e-3):
    """Two samples of one vector law: means within 5 SE and KS on every coordinate, the total and a projection."""
    a, b = a.reshape(a.shape[0], -1).astype(float), b.reshape(b.shape[0], -1).astype(float)
    direction = np.random.default_rng(99).standard_normal(a.shape[1])
    columns = {
        **{f"coordinate {j}": (a[:, j], b[:, j]) for j in range(a.shape[1])},
        "total": (a.sum(1), b.sum(1)),
        "projection": (a @ direction, b @ direction),
    }
    pvalues = {}
    for name, (x, y) in columns.items():
        if np.ptp(x) == 0 and np.ptp(y) == 0:
            assert x[0] == pytest.approx(y[0]), f"{what}: constant {name} differs"
            continue
        se = math.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
        assert abs(x.mean() - y.mean()) < N_SE * se, (
            f"{what}: {name} means differ by {abs(x.mean() - y.mean()) / se:.1f} SE"
        )
        pvalues[name] = stats.ks_2samp(x, y).pvalue
    assert min(pvalues.values()) * len(pvalues) > alpha, (
        f"{what}: KS rejects ({min(pvalues, key=pvalues.get)})"
    )


def _per_user(mechanism, truth, rng, runs: int) -> np.ndarray:
    values = mechanism.expand(truth)
    return np.stack(
        [np.asarray(mechanism.aggregate(mechanism.perturb(values, rng=rng))) for _ in range(runs)]
    )


def _moments_match(samples: np.ndarray, mean: np.ndarray, variance: np.ndarray, what: str):
    """Sample mean within 5 SE (from the exact variance) and sample variance within 5 SE (from the sample's m4)."""
    runs = samples.shape[0]
    gap = np.abs(samples.mean(axis=0) - mean) / np.sqrt(variance / runs)
    assert np.all(gap < N_SE), f"{what}: mean off by {gap.max():.1f} SE"
    s2 = samples.var(axis=0, ddof=1)
    m4 = np.mean((samples - samples.mean(axis=0)) ** 4, axis=0)
    off = np.abs(s2 - variance) / np.sqrt((m4 - s2**2) / runs)
    assert np.all(off < N_SE), f"{what}: variance off by {off.max():.1f} SE ({s2} vs {variance})"


# ------------------------------------------------------------------------------------------- Hadamard helpers


def test_hadamard_entries_are_sylvesters_matrix_and_the_fast_transform_multiplies_by_it():
    """H_{2m} = [[H_m, H_m], [H_m, −H_m]] entry by entry; walsh_hadamard_transform(x) = H x, batched, integers exact."""
    h = np.array([[1]])
    for _ in range(4):
        h = np.block([[h, h], [h, -h]])
    np.testing.assert_array_equal(hadamard_entries(np.arange(16)[:, None], np.arange(16)[None]), h)
    x = np.random.default_rng(0).integers(-50, 50, size=(3, 16))
    np.testing.assert_array_equal(walsh_hadamard_transform(x), x @ h.T)
    assert walsh_hadamard_transform(x).dtype == np.int64
    np.testing.assert_allclose(walsh_hadamard_transform(x / 7), x @ h.T / 7, rtol=1e-12)
    y, before = x / 7, x / 7  # the butterflies run in place on a copy: the input is left as it was
    walsh_hadamard_transform(y)
    walsh_hadamard_transform(x)
    np.testing.assert_array_equal(y, before)
    np.testing.assert_array_equal(x @ h.T, walsh_hadamard_transform(x))
    with pytest.raises(ValueError, match="power of 2"):
        walsh_hadamard_transform(np.ones(6))


@pytest.mark.parametrize("m", [1, 2, 8, 64, 512, hadamard.KRONECKER_MAX_LENGTH, 2048])
def test_integer_transform_is_exact_by_matrix_products_and_by_butterflies(m):
    """Integers transform exactly at every length: by two matrix products up to KRONECKER_MAX_LENGTH
    (float sums below 2^53), by butterflies beyond and for entries whose sums could pass 2^53."""
    h = hadamard_entries(np.arange(m)[:, None], np.arange(m)[None]).astype(np.int64)
    x = np.random.default_rng(m).integers(-1000, 1000, size=(2, 3, m))
    np.testing.assert_array_equal(walsh_hadamard_transform(x), x @ h)
    huge = np.zeros(m, dtype=np.int64)
    huge[0], huge[-1] = (
        2**60 + 1,
        -3,
    )  # 2^60 + 1 is no float64: only the integer butterflies keep it
    np.testing.assert_array_equal(walsh_hadamard_transform(huge), huge @ h)


def test_integer_transform_refuses_sums_that_int64_cannot_hold():
    """Integer rows whose |entries| sum past 2^63 − 1 are refused (the butterflies wrapped: H [2^62, 2^62]
    gave [−2^63, 0]), so are uint64 entries above int64 (2^64 − 1 read as −1); up to the bound, exact."""
    for wrapping in (np.array([2**62, 2**62]), np.full(4, 2**61), np.array([-(2**63), 1])):
        with pytest.raises(ValueError, match="values must be integers whose absolute values sum"):
            walsh_hadamard_transform(wrapping)
    with pytest.raises(ValueError, match="values must be integers in"):
        walsh_hadamard_transform(np.array([2**64 - 1, 0], dtype=np.uint64))
    edge = np.array([[2**62, 2**62 - 1], [-(2**62), -(2**62) + 1]])  # sums 2^63 − 1: exact
    expected = [[2**63 - 1, 1], [-(2**63) + 1, -1]]
    assert walsh_hadamard_transform(edge).tolist() == expected


@pytest.mark.statistical
def test_sign_set_sampler_has_the_exact_multinomial_moments():
    """Draws uniform on S(u, ±): each type contributes a multinomial; the sampler's mean and covariance are theirs."""
    m = 8
    h = hadamard_entries(np.arange(m)[:, None], np.arange(m)[None])
    counts = np.zeros((m, 2), dtype=np.int64)
    counts[0, 0], counts[3], counts[4], counts[7, 1] = 3, (5, 2), (4, 1), 6
    mean, cov = np.zeros(m), np.zeros((m, m))
    for u, s in zip(*np.nonzero(counts)):
        member = ((1 - 2 * s) * h[u]) == 1
        share = member / member.sum()
        mean += counts[u, s] * share
        cov += counts[u, s] * (np.diag(share) - np.outer(share, share))
    runs = 100_000
    draws = _uniform_on_sign_sets(
        np.broadcast_to(counts, (runs, m, 2)).copy(), np.random.default_rng(1)
    )
    assert np.all(draws.sum(axis=1) == counts.sum())
    se_mean = np.sqrt(np.diag(cov) / runs)
    assert np.all(np.abs(draws.mean(axis=0) - mean) < N_SE * se_mean)
    sample_cov = np.cov(draws.T)
    se_cov = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / runs)  # normal approximation
    assert np.all(np.abs(sample_cov - cov) < N_SE * se_cov + 1e-12)


FAIR_COUNTS = (1, 5, 63, 64, 65, 130, hadamard.FAIR_BITS_LIMIT, hadamard.FAIR_BITS_LIMIT + 1)


def _assert_fair_binomial_law(draw, runs: int = 200_000, fair_counts=FAIR_COUNTS):
    """Every count n of ``fair_counts`` (interleaved with zeros and threes, as in a halving): Bin(n, ½) by chi-square."""
    counts = np.tile(np.array([*fair_counts, 0, 3], dtype=np.int64), runs)
    sample = draw(counts, np.random.default_rng(17)).reshape(runs, -1)
    assert np.all(sample[:, -2] == 0)
    for column, n in enumerate((*fair_counts, 3)):
        x = sample[:, column if column < len(fair_counts) else -1]
        expected = stats.binom.pmf(np.arange(n + 1), n, 0.5) * runs
        kept = expected > 5
        assert 0 <= x.min() and x.max() <= n, f"n = {n}: tails (a draw outside [0, n])"
        observed = np.bincount(x, minlength=n + 1)
        assert observed[~kept].sum() < max(expected[~kept].sum() * 10, 30), f"n = {n}: tails"
        chi2 = np.sum((observed[kept] - expected[kept]) ** 2 / expected[kept])
        assert stats.chi2.sf(chi2, kept.sum() - 1) > 1e-4, (
            f"n = {n}: chi-square rejects Bin(n, 1/2)"
        )


@pytest.mark.statistical
def test_fair_binomial_by_random_bits_is_binomial_one_half():
    """_fair_binomial (set bits of random words, numpy's binomial above the limit) has the law Bin(n, ½),
    also when every count is below 64 (one word each: the deep halvings' path)."""
    _assert_fair_binomial_law(_fair_binomial)
    _assert_fair_binomial_law(_fair_binomial, fair_counts=(1, 2, 5, 31, 62, 63))
    # 2 counts ≥ 64 in 43: one word per small count, numpy's for those
    few_big = (*range(1, 40), 64, 2000)
    _assert_fair_binomial_law(_fair_binomial, runs=50_000, fair_counts=few_big)
    mostly_huge = (1500, 3000, 5000, 70)  # 3 counts of 6 above the limit: numpy's binomial for all
    assert 2 * sum(n > hadamard.FAIR_BITS_LIMIT for n in mostly_huge) >= len(mostly_huge) + 2
    _assert_fair_binomial_law(_fair_binomial, runs=50_000, fair_counts=mostly_huge)


@pytest.mark.statistical
def test_fair_binomial_check_catches_one_bit_too_many():
    """The same check rejects a variant reading r + 1 low bits of the last word (the off-by-one to fear)."""

    def one_too_many(counts, rng):
        whole, low = np.divmod(counts, 64)
        words = rng.integers(0, 2**64, size=(counts.size, 2 + int(whole.max())), dtype=np.uint64)
        mask = (np.uint64(1) << np.minimum(low + 1, 63).astype(np.uint64)) - np.uint64(1)
        ones = np.bitwise_count(words[:, 0] & np.where(counts > 0, mask, 0)).astype(np.int64)
        full = np.arange(words.shape[1] - 1)[None] < whole[:, None]
        return ones + (np.bitwise_count(words[:, 1:]) * full).sum(axis=1).astype(np.int64)

    with pytest.raises(AssertionError, match="rejects|tails"):
        _assert_fair_binomial_law(one_too_many)
    with pytest.raises(AssertionError, match="rejects|tails"):
        _assert_fair_binomial_law(one_too_many, fair_counts=(1, 2, 5, 31, 62, 63))

    def small_one_too_many(counts, rng):  # the one-word path reading n + 1 bits of counts below 63
        out = _fair_binomial(counts, rng)
        extra = (counts > 0) & (counts < 63)
        return out + (extra & (rng.random(counts.shape) < 0.5))

    with pytest.raises(AssertionError, match="rejects|tails"):
        _assert_fair_binomial_law(
            small_one_too_many, runs=50_000, fair_counts=(*range(1, 40), 64, 2000)
        )


@pytest.mark.parametrize(
    "bit_generator",
    [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64, np.random.MT19937],
)
def test_random_words_are_numpys_uniform_words(bit_generator):
    """The fair coins' words (``random_raw`` for 64-bit bit generators) are the very words and stream
    position of ``integers(0, 2**64, dtype=np.uint64)``, for every bit generator numpy ships."""
    ours, numpys = (np.random.Generator(bit_generator(5)) for _ in range(2))
    words = hadamard._random_words(1000, ours)
    assert words.dtype == np.uint64
    np.testing.assert_array_equal(words, numpys.integers(0, 2**64, size=1000, dtype=np.uint64))
    assert ours.random() == numpys.random()


def _assert_equal_multinomial_law(split, runs: int = 20_000, n: int = 40, cells: int = 8):
    """Rows of Multinomial(n, 1/cells each): sums n, each cell Bin(n, 1/cells) by chi-square, the covariance
    of two cells −n/cells² within 5 SE."""
    sample = split(np.full(runs, n, dtype=np.int64), cells, np.random.default_rng(23))
    assert sample.shape == (runs, cells) and np.all(sample.sum(axis=1) == n)
    expected = stats.binom.pmf(np.arange(n + 1), n, 1 / cells) * runs
    kept = expected > 5
    for column in range(cells):
        observed = np.bincount(sample[:, column], minlength=n + 1)
        chi2 = np.sum((observed[kept] - expected[kept]) ** 2 / expected[kept])
        assert stats.chi2.sf(chi2, kept.sum() - 1) > 1e-4, f"cell {column}: chi-square rejects"
    p = 1 / cells
    centred = sample[:, :2] - n * p
    products = centred[:, 0] * centred[:, 1]
    assert abs(products.mean() + n * p * p) < N_SE * products.std() / np.sqrt(runs), "covariance"


@pytest.mark.statistical
def test_equal_multinomial_by_halvings_is_the_multinomial(monkeypatch):
    """_equal_multinomial (fair halvings when the output is large) has numpy's multinomial law; halvings
    with a coin of ½ − 0.03 are caught."""
    assert hadamard.EQUAL_SPLIT_MIN_CELLS <= 20_000 * 8  # the halvings' path is the one tested
    _assert_equal_multinomial_law(hadamard._equal_multinomial)
    monkeypatch.setattr(hadamard, "_fair_binomial", lambda c, rng: rng.binomial(c, 0.47))
    with pytest.raises(AssertionError, match="rejects|covariance"):
        _assert_equal_multinomial_law(hadamard._equal_multinomial)


# ------------------------------------------------------------------------------------------- Hadamard Response


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 0.7, 1.0, 1.5, 2.3, 3.0, 4.7, 8.0])
@pytest.mark.parametrize("d", [2, 3, 5, 8, 13, 40])
def test_hr_layout_follows_the_authors_rule_and_its_table_is_exactly_epsilon(epsilon, d):
    """B = 2^⌊log2 min(e^ε, 2d)⌋ (the authors' formula), b the least power of 2 with B(b − 1) ≥ d; table loss = ε."""
    hr = HadamardResponse(epsilon, d)
    assert (
        hr.B
        == hr_blocks(epsilon, d)
        == 2 ** int(math.floor(math.log(min(2 * d, math.exp(epsilon)), 2)))
    )
    assert (
        hr.B * (hr.b - 1) >= d and (hr.b == 2 or hr.B * (hr.b // 2 - 1) < d) and hr.K == hr.B * hr.b
    )
    assert hr.b == 2 ** math.ceil(math.log2(d / hr.B + 1))  # pure-ldp's (the authors') tailbit
    assert hr.privacy_loss() == pytest.approx(epsilon, rel=1e-9)
    assert hr.report_bits == math.ceil(math.log2(hr.K))


def test_hr_with_one_block_is_the_pure_protocol_of_blh():
    """B = 1: the exact variance is the pure one with p* = e^ε/(e^ε + 1), q* = 1/2."""
    hr, counts = HadamardResponse(0.8, 13, n_blocks=1), COUNTS
    p = math.exp(0.8) / (math.exp(0.8) + 1)
    n = counts.sum()
    pure = (counts * p * (1 - p) + (n - counts) / 4) / (p - 0.5) ** 2
    np.testing.assert_allclose(hr.variance(counts), pure, rtol=1e-12)


def test_hr_estimate_is_the_blockwise_count_difference():
    """ĉ(x) = E/(e^ε − 1)·(2C(x) − N_β) computed from its definition equals the fast-transform estimator."""
    hr = HadamardResponse(2.3, 13)
    hist = np.random.default_rng(2).integers(0, 40, size=(4, hr.K))
    table = hr.output_table() > hr.output_table().min(
        axis=1, keepdims=True
    )  # C_x: the large entries
    block = np.arange(hr.K)[None] // hr.b == (np.arange(13) // (hr.b - 1))[:, None]
    direct = (
        (2 * hist @ table.T - hist @ block.T) * (math.exp(2.3) + 2 * hr.B - 1) / math.expm1(2.3)
    )
    np.testing.assert_allclose(hr.estimate(hist, int(hist.sum(axis=1).max())), direct, rtol=1e-12)


@pytest.mark.statistical
@pytest.mark.parametrize(
    "epsilon, d, blocks", [(0.8, 5, 1), (0.8, 5, 2), (3.0, 3, 0), (2.3, 13, 0)]
)
def test_hr_client_follows_its_table_and_the_sampler_its_client(epsilon, d, blocks):
    """Per-user symbols have the table's row law (chi-square), and sample_aggregate the per-user histogram's law."""
    hr = HadamardResponse(epsilon, d, blocks)
    rng = np.random.default_rng(3)
    x = d - 1
    symbols = hr.perturb(np.full(200_000, x), rng=rng)
    observed = np.bincount(symbols, minlength=hr.K)
    assert stats.chisquare(observed, hr.output_table()[x] * symbols.size).pvalue > 1e-4
    truth = COUNTS[:d]
    _same_law(
        _per_user(hr, truth, rng, 3000),
        hr.sample_aggregate(truth, rng=rng, n_draws=20_000),
        f"HR{hr.B, hr.b}",
    )


# ------------------------------------------------------------------------------------------- Hadamard mechanism


def test_optimal_coefficients_minimize_the_rare_value_variance_and_pure_ldps_rule_differs():
    """t* = argmin (e^ε + 2^t − 1)²/t; pure-ldp's use_optimal_t = ⌈log2(e^ε + 1)⌉ has a larger variance where it differs."""
    differ = 0
    for epsilon in np.linspace(0.1, 8.0, 80):
        factors = {t: coefficient_variance_factor(epsilon, t) for t in range(1, 31)}
        best = optimal_coefficients(epsilon)
        assert factors[best] == min(factors.values())
        peer = math.ceil(math.log(math.e**epsilon + 1, 2))
        assert factors[peer] >= factors[best]
        differ += peer != best
    assert differ > 40  # most of the grid
    assert (optimal_coefficients(1.0), optimal_coefficients(3.0)) == (1, 3)
    assert coefficient_variance_factor(3.0, 5) / coefficient_variance_factor(3.0, 3) > 1.9


@pytest.mark.parametrize(
    "epsilon, d, t", [(0.5, 2, 1), (1.0, 5, 1), (2.0, 4, 3), (2.5, 6, 2), (4.0, 3, 4)]
)
def test_hm_table_is_exactly_epsilon(epsilon, d, t):
    """The (2D)^t-column table of (indices, signs) has loss ε; D is the least power of 2 ≥ d."""
    hm = HadamardMechanism(epsilon, d, t)
    assert hm.D == 2 ** math.ceil(math.log2(d)) and hm.coefficients == t
    assert hm.privacy_loss() == pytest.approx(epsilon, rel=1e-9)
    assert hm.report_bits == t * (math.ceil(math.log2(hm.D)) + 1)


@pytest.mark.statistical
@pytest.mark.parametrize("epsilon, d, t", [(1.0, 3, 1), (2.0, 6, 3)])
def test_hm_sampler_has_the_law_of_the_client_and_the_exact_variance(epsilon, d, t):
    """sample_aggregate vs perturb + aggregate; the estimates' mean and variance are the exact ones."""
    hm, truth = HadamardMechanism(epsilon, d, t), COUNTS[:d]
    rng = np.random.default_rng(4)
    per_user = _per_user(hm, truth, rng, 3000)
    fast = hm.sample_aggregate(truth, rng=rng, n_draws=20_000)
    _same_law(per_user, fast, f"HM t={t}")
    _moments_match(hm.estimate(fast, truth.sum()), truth, hm.variance(truth), f"HM t={t}")


@pytest.mark.parametrize("t", [3, 5, 30])
def test_hm_sums_of_t_signs_per_user_stay_in_int64(t):
    """t·n signs are summed in int64: a truth of t·n > 2^62 is refused naming true_counts (before: n < 0 from
    numpy at t = 3 and 30, a silent 0.2·f̂ at t = 5), and so is an n above 2^62/t; at t·n ≤ 2^62 it is exact."""
    hm = HadamardMechanism(20.0, 2, t)
    over = np.array([2**62 // t - 2**39, 2**39 + 1])
    for call in (
        lambda: hm.sample_aggregate(over, rng=np.random.default_rng(0)),
        lambda: hm.n_reports(over),
    ):
        with pytest.raises(
            ValueError, match=r"true_counts must be counts totalling at most 2\^62/t"
        ):
            call()
    with pytest.raises(ValueError, match="n must be an integer in"):
        hm.estimate(np.zeros(2, dtype=np.int64), 2**62 // t + 1)
    truth = over - np.array([1, 0])  # n = 2^62 // t
    estimate = hm.estimate(hm.sample_aggregate(truth, rng=np.random.default_rng(0)), truth.sum())
    assert np.all(np.abs(estimate - truth) < 6 * np.sqrt(hm.variance(truth)))


def test_hm_reports_are_checked():
    hm = HadamardMechanism(2.5, 5, 2)
    good = hm.perturb(np.array([0, 4, 2]), rng=np.random.default_rng(0))
    assert hm.aggregate(good).sum() == good.signs.sum()
    with pytest.raises(ValueError, match="reports.signs"):
        hm.aggregate(HadamardReports(good.indices, np.zeros_like(good.signs)))
    with pytest.raises(ValueError, match="reports.indices"):
        hm.aggregate(HadamardReports(good.indices + hm.D, good.signs))


def test_hr_estimate_refuses_a_histogram_of_more_than_n_symbols():
    """n reports name n symbols: a histogram summing past n is refused naming aggregate (before, every symbol at
    n = 2^62 wrapped the block transform's int64 sums; after the transform's own check it blamed 'values')."""
    hr = HadamardResponse(1.0, 5)
    with pytest.raises(ValueError, match="aggregate must be a histogram of the n = "):
        hr.estimate(np.full(hr.K, 2**62), 2**62)
    with pytest.raises(ValueError, match="aggregate must be a histogram"):
        hr.estimate(np.full(hr.K, 3), 10)
    honest = np.zeros(hr.K, dtype=np.int64)
    honest[0], honest[-1] = 2**62 - 5, 5
    assert np.all(np.isfinite(hr.estimate(honest, 2**62)))


# ------------------------------------------------------------------------------------------- Subset selection


def test_optimal_subset_size_is_the_full_argmin_and_lies_by_d_over_e_eps_plus_1():
    """optimal_subset_size = argmin over all k of the exact total variance; |k − d/(e^ε+1)| < 1 on the grid."""
    rounded_differs = 0
    for d in range(2, 41):
        for epsilon in (0.1, 0.3, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0):
            full = min(range(1, d), key=lambda k: _total_variance(epsilon, d, k))
            k = optimal_subset_size(epsilon, d)
            assert k == full
            assert abs(k - d / (math.exp(epsilon) + 1)) < 1 or k == 1
            rounded_differs += k != max(1, round(d / (math.exp(epsilon) + 1)))
    assert rounded_differs > 0  # multi-freq-ldpy's rounding is not always the variance-optimal k


def test_cell_sums_are_exact_int64_sums_beyond_float64():
    """The samplers' users per cell: exact sums where float64 rounds (2^61 + 1 + 2^61 + 3 = 2^62 + 4)."""
    sums = hadamard._cell_sums(np.array([0, 2, 0, 2]), np.array([2**61 + 1, 5, 2**61 + 3, 0]), 3)
    assert sums.dtype == np.int64 and sums.tolist() == [2**62 + 4, 0, 5]


def test_ss_sampler_counts_every_member_exactly_beyond_float64():
    """Each of n users reports k members: the sampled counts total k·n exactly, also for n = 2^61 + 7
    (summed in int64; float64 sums rounded them above 2^53)."""
    ss = SubsetSelection(1.0, 8, subset_size=2)
    truth = np.array([2**61, 0, 0, 0, 0, 0, 0, 7])
    for seed in range(3):
        counts = ss.sample_aggregate(truth, rng=np.random.default_rng(seed))
        assert counts.dtype == np.int64 and sum(int(c) for c in counts) == 2 * (2**61 + 7)


def test_ss_with_one_member_is_grr_bit_for_bit():
    ss, grr = SubsetSelection(1.3, 9, subset_size=1), GRR(1.3, 9)
    assert (ss.p, ss.q) == (grr.p, grr.q)
    np.testing.assert_array_equal(ss.variance(COUNTS[:9]), grr.variance(COUNTS[:9]))


@pytest.mark.parametrize("epsilon, d, k", [(1.0, 8, 2), (0.4, 6, 3), (2.0, 5, 4), (1.0, 7, 1)])
def test_ss_table_is_exactly_epsilon_and_p_q_are_its_support_probabilities(epsilon, d, k):
    ss = SubsetSelection(epsilon, d, k)
    table = ss.output_table()
    assert table.shape == (d, math.comb(d, k))
    assert ss.privacy_loss() == pytest.approx(epsilon, rel=1e-9)
    members = np.array([[i in s for s in itertools.combinations(range(d), k)] for i in range(d)])
    support = table @ members.T  # Pr[i ∈ Y | x]
    np.testing.assert_allclose(np.diag(support), ss.p, rtol=1e-12)
    np.testing.assert_allclose(support[~np.eye(d, dtype=bool)], ss.q, rtol=1e-12)
    assert ss.report_bits == math.ceil(math.log2(math.comb(d, k)))


@pytest.mark.statistical
def test_ss_client_follows_its_table():
    ss = SubsetSelection(0.7, 5, 2)
    reports = ss.perturb(np.full(100_000, 3), rng=np.random.default_rng(5))
    index = {s: j for j, s in enumerate(itertools.combinations(range(5), 2))}
    observed = np.bincount([index[tuple(r)] for r in reports], minlength=len(index))
    assert stats.chisquare(observed, ss.output_table()[3] * reports.shape[0]).pvalue > 1e-4


SS_SAMPLER_CASES = [
    (1.0, 6, 1, 20_000),
    (0.5, 6, 5, 20_000),
    (1.0, 9, 3, 20_000),
    (1.0, 9, 3, 1),
    (1.0, 40, 6, 20_000),
]


@pytest.mark.statistical
@pytest.mark.parametrize("epsilon, d, k, runs", SS_SAMPLER_CASES)
def test_ss_sampler_has_the_law_of_the_client(epsilon, d, k, runs):
    """The halving tree against perturb: k = 1 (no other picks) and k = d − 1, uneven halves (d = 9, 40:
    nodes of sizes 0 to 3 at the last levels), many surveys in one call and one survey a call."""
    ss, truth = SubsetSelection(epsilon, d, k), np.resize(COUNTS, d)
    rng = np.random.default_rng(6)
    per_user = _per_user(ss, truth, rng, 3000)
    if runs == 1:
        fast = np.stack([ss.sample_aggregate(truth, rng=rng) for _ in range(5000)])
    else:
        fast = ss.sample_aggregate(truth, rng=rng, n_draws=runs)
    assert np.all(fast.sum(axis=1) == k * truth.sum())
    _same_law(per_user, fast, f"SS k={k}")


def _unconditioned_ss(ss, truth, rng, runs: int) -> np.ndarray:
    """A wrong SS sampler: a V user's k − 1 other picks uniform among all d values (her own value may be
    picked again), drawn on the same tree as free picks; same totals as SS."""
    beta = (ss.p - ss.k / ss.d) / (1 - ss.k / ss.d)  # p* = β + (1 − β) k/d
    none = np.zeros((1, ss.d), dtype=np.int64)
    rows = []
    for _ in range(runs):
        own = rng.binomial(truth, beta)
        others = _tree_counts(none, int(own.sum()), ss.k - 1, rng)[0]
        rows.append(own + others + _tree_counts(none, int(truth.sum() - own.sum()), ss.k, rng)[0])
    return np.stack(rows)


@pytest.mark.statistical
@pytest.mark.parametrize("epsilon, d, k", [(1.0, 9, 3), (0.5, 6, 5)])
def test_the_ss_law_test_catches_a_sampler_ignoring_the_conditioning(epsilon, d, k):
    """The sampler above, the V users' other picks not conditioned to avoid their own value: rejected."""
    ss, truth = SubsetSelection(epsilon, d, k), np.resize(COUNTS, d)
    rng = np.random.default_rng(6)
    per_user = _per_user(ss, truth, rng, 3000)
    wrong = _unconditioned_ss(ss, truth, rng, 3000)
    assert np.all(wrong.sum(axis=1) == k * truth.sum())
    with pytest.raises(AssertionError, match="KS rejects|means differ"):
        _same_law(per_user, wrong, "unconditioned SS")


def test_ss_sampler_draws_the_same_numbers_with_its_laws_built_per_call(monkeypatch):
    """Laws cached per (d, k) or built per call for the rows held (large d): the very same draws."""
    ss, truth = SubsetSelection(1.0, 40, 11), np.resize(COUNTS, 40) * 100
    cached = ss.sample_aggregate(truth, rng=np.random.default_rng(3), n_draws=4)
    monkeypatch.setattr(subset_selection, "_CACHED_CELLS", 0)
    subset_selection._split_tables.cache_clear()
    try:
        fresh = ss.sample_aggregate(truth, rng=np.random.default_rng(3), n_draws=4)
    finally:
        subset_selection._split_tables.cache_clear()
    np.testing.assert_array_equal(cached, fresh)


def test_ss_sampler_refuses_a_domain_whose_classes_exceed_the_memory_ceiling():
    """d = 10⁶ (k ≈ 2.7·10⁵): a clear ValueError naming d, before any table is built."""
    with pytest.raises(ValueError, match="d=1000000 would allocate"):
        SubsetSelection(1.0, 10**6).sample_aggregate(
            np.ones(10**6, dtype=np.int64), rng=np.random.default_rng(0)
        )


def test_ss_sampler_takes_billions_of_users():
    """No hypergeometric draw: 1.6·10⁹ users are drawn (each report holds k values); reports must be sets."""
    ss = SubsetSelection(1.0, 8)
    counts = ss.sample_aggregate(np.full(8, 2 * 10**8), rng=np.random.default_rng(0))
    assert counts.sum() == ss.k * 16 * 10**8
    with pytest.raises(ValueError, match="repeated"):
        ss.aggregate(np.array([[1, 1], [0, 2]]))


# ------------------------------------------------------------------------------------------- fast local hashing


def test_flh_moments_are_those_of_its_table_and_unbiased_over_hash_draws():
    """fixed_hash_moments(table) = the mechanism's; averaged over hash draws E[ĉ] → f (collisions at rate ≈ 1/g)."""
    counts = COUNTS[:8]
    flh = FastLocalHashing.create(1.2, 8, 16, rng=np.random.default_rng(7))
    mean, variance = fixed_hash_moments(flh.hash_table(), counts, 1.2, flh.hash_range)
    np.testing.assert_allclose(mean, flh.expected_estimate(counts), rtol=1e-12)
    np.testing.assert_allclose(variance, flh.variance(counts), rtol=1e-12)
    rng = np.random.default_rng(8)
    draws = np.array(
        [FastLocalHashing.create(1.2, 8, 4, rng=rng).expected_estimate(counts) for _ in range(4000)]
    )
    g, grr = flh.hash_range, GRR(1.2, flh.hash_range)
    sizes = [
        HASH_PRIME // g + (c < HASH_PRIME % g) for c in range(g)
    ]  # residues r < P with r ≡ c (mod g)
    collide = sum(m * (m - 1) for m in sizes) / (
        HASH_PRIME * (HASH_PRIME - 1)
    )  # Pr[h(v) = h(x)], v ≠ x: ≈ 1/g
    exact = counts + (counts.sum() - counts) * (grr.p - grr.q) * (collide - 1 / g) / (grr.p - 1 / g)
    assert np.all(
        np.abs(draws.mean(axis=0) - exact)
        < N_SE * draws.std(axis=0, ddof=1) / math.sqrt(draws.shape[0])
    )
    assert np.max(np.abs(exact - counts)) < 1e-6


@pytest.mark.parametrize("k, d, g", [(4, 50, 5), (40, 8, 3), (8, 300, 30)])
def test_fixed_hash_moments_by_pairs_and_by_matrix_are_the_collision_formula(k, d, g):
    """Both routes of the collision sums (grouping by pairs of hashes, or the d × d rates) give f·S and f·S² exactly."""
    rng = np.random.default_rng(10)
    table, counts = rng.integers(0, g, size=(k, d)), rng.integers(0, 9, size=d)
    rates = sum(row[:, None] == row[None, :] for row in table) / k
    grr = GRR(1.1, g)
    pi = grr.q + (grr.p - grr.q) * rates  # Pr[a user of v supports x]
    mean, variance = fixed_hash_moments(table, counts, 1.1, g)
    np.testing.assert_allclose(
        mean, (counts @ pi - counts.sum() / g) / (grr.p - 1 / g), rtol=1e-10, atol=1e-9
    )
    np.testing.assert_allclose(
        variance, counts @ (pi * (1 - pi)) / (grr.p - 1 / g) ** 2, rtol=1e-10
    )


@pytest.mark.parametrize("k, g", [(1, 2), (3, 5), (8, 0)])
def test_flh_table_is_epsilon_when_a_hash_separates(k, g):
    flh = FastLocalHashing.create(1.5, 6, k, g, rng=np.random.default_rng(9))
    assert flh.tight
    assert flh.privacy_loss() == pytest.approx(1.5, rel=1e-9)
    assert flh.report_bits == math.ceil(math.log2(k)) + math.ceil(math.log2(flh.hash_range))
    assert flh.hash_range == (g or round(math.exp(1.5)) + 1)


# ------------------------------------------------------------------------------------------- Duchi et al.'s mean


@pytest.mark.parametrize("epsilon", [0.01, 0.5, 1.0, 4.0, 12.0, 30.0])
@pytest.mark.parametrize("radius", [1.0, 3.5])
def test_duchi_mean_is_exactly_epsilon_unbiased_with_b_equal_r_coth(epsilon, radius):
    mech = DuchiMean(epsilon, radius)
    assert mech.B == pytest.approx(
        radius * (math.exp(epsilon) + 1) / math.expm1(epsilon), rel=1e-12
    )
    assert mech.privacy_loss() == pytest.approx(epsilon, rel=1e-9)
    table = mech.output_table()
    np.testing.assert_allclose(
        table @ np.array([-mech.B, mech.B]), np.linspace(-radius, radius, 5), rtol=1e-9, atol=1e-9
    )


def test_duchi_variance_has_the_one_over_n_epsilon_squared_rate():
    """n·Var[μ̂] → 4r²/ε² − mean(x²) as ε → 0 (B ≈ 2r/ε): the minimax rate, with its constant for this mechanism."""
    values = np.linspace(-1, 1, 101)
    for epsilon in (1e-3, 1e-2):
        scaled = DuchiMean(epsilon).variance(values) * values.size * epsilon**2
        assert scaled == pytest.approx(4.0, rel=1e-3)


def test_duchi_radius_whose_variance_would_overflow_is_refused():
    """B = r/tanh(ε/2) ≤ 2^480 (n·B² finite): r = 1e200 is refused naming radius (before, variance raised
    Python's OverflowError from B²); r = 1e140 still gives a finite variance."""
    with pytest.raises(ValueError, match="radius must be at most 2\\^480"):
        DuchiMean(1.0, radius=1e200)
    mech = DuchiMean(1.0, radius=1e140)
    variance = mech.variance(np.array([1e140, 0.0, -3e139]))
    assert math.isfinite(variance) and variance == pytest.approx(
        (3 * mech.B**2 - 1e280 - 9e278) / 9, rel=1e-12
    )


def test_duchi_inputs_outside_the_interval_are_refused():
    mech = DuchiMean(1.0, 2.0)
    with pytest.raises(ValueError, match="values"):
        mech.perturb(np.array([2.5]), rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="truth"):
        mech.variance(np.array([0.0, -2.1]))
    with pytest.raises(ValueError, match="reports"):
        mech.aggregate(np.array([mech.B, 1.0]))


# ------------------------------------------------------------------------------------------- registry and explorer


def test_the_explorer_lists_the_new_frequency_oracles_and_their_report_sizes():
    assert {"ss", "hr", "hm", "flh"} <= set(oracle_keys()) and "duchi_mean" not in oracle_keys()
    assert REGISTRY["duchi_mean"].family == "mean"
    for key in ("ss", "hr", "hm", "flh"):
        assert 0 < build_oracle(key, 1.0, 1024).report_bits < 1024
    assert build_oracle("hr", 1.0, 1024).report_bits == 11  # K = 2·1024: ⌈log2 d⌉ + 1


# ------------------------------------------------------------------------------------------- the suite's power here


@dataclass(frozen=True)
class IndependentSupportSS(SubsetSelection):
    def sample_aggregate(
        self, truth, *, rng, n_draws=None
    ):  # the pure oracles' default: independent counts
        return PureFrequencyOracle.sample_aggregate(self, truth, rng=rng, n_draws=n_draws)


@pytest.mark.statistical
def test_the_conformance_suite_catches_independent_subset_counts():
    """Right marginals, wrong joint law (a report holds exactly k values): the suite's law test rejects it."""
    mechanism, truth = conformance._example("ss")
    wrong = IndependentSupportSS(mechanism.epsilon, mechanism.d)
    user_rng, fast_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(11).spawn(2))
    per_user = conformance._per_user_aggregates(mechanism, truth, user_rng)
    fast = wrong.sample_aggregate(truth, rng=fast_rng, n_draws=conformance.N_SAMPLER_DRAWS)
    with pytest.raises(AssertionError, match="KS rejects|means differ"):
        conformance._assert_same_law(per_user, fast, "independent counts")


@pytest.mark.statistical
@pytest.mark.parametrize("key", ["ss", "hr", "hm", "flh", "duchi_mean"])
def test_the_conformance_suite_catches_a_variance_fifteen_percent_too_large(key):
    mechanism, truth = conformance._example(key)
    batch = mechanism.sample_aggregate(
        truth, rng=np.random.default_rng(12), n_draws=conformance.N_SAMPLER_DRAWS
    )

    class Inflated:
        def __getattr__(self, name):
            return getattr(mechanism, name)

        def variance(self, truth):
            return 1.15 * np.asarray(mechanism.variance(truth))

    with pytest.raises(AssertionError, match="variance off"):
        conformance._assert_mean_and_variance(
            conformance._estimates(mechanism, truth, batch), Inflated(), truth, "inflated"
        )


def test_flh_table_beyond_its_size_names_g_not_grrs_d():
    """FLH's automatic g at ε = 10 is 22027: its table refuses naming g (GRR's own check named d with g's value)."""
    flh = FastLocalHashing.create(10.0, 4, 2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"g must be at most 4096 for output_table .*; got 22027"):
        flh.privacy_loss()
    assert FastLocalHashing.create(
        10.0, 4, 2, g=64, rng=np.random.default_rng(0)
    ).privacy_loss() == pytest.approx(10.0, rel=1e-12)
