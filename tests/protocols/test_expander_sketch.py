"""Our PrivateExpanderSketch: the Reed–Solomon code over GF(16), the Möbius-ladder expander, the exact ε of a user's
whole report, decoding several heavy hitters that share a bucket (what Bitstogram cannot), and the simulation
against the per-user clients."""

import itertools

import numpy as np
import pytest
from report_tables import level_report_table

from ldp_helpers.mechanisms.hashtogram import Hashtogram
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.protocols.expander_code import (
    code_length,
    decode_message,
    encode,
    expander_edges,
    multiplication_table,
    nibbles,
)
from ldp_helpers.protocols.expander_sketch import (
    _heavy,
    _median_estimate,
    private_expander_sketch,
)
from ldp_helpers.protocols.heavy_hitters import _distinct, bitstogram, bucket_of, recall


def test_gf16_is_a_field():
    """The multiplication table is commutative, associative, distributes over XOR and every non-zero has an inverse."""
    mul = multiplication_table()
    a, b, c = np.meshgrid(np.arange(16), np.arange(16), np.arange(16), indexing="ij")
    np.testing.assert_array_equal(mul, mul.T)
    np.testing.assert_array_equal(mul[mul[a, b], c], mul[a, mul[b, c]])
    np.testing.assert_array_equal(mul[a, b ^ c], mul[a, b] ^ mul[a, c])
    assert all(1 in mul[x, 1:] for x in range(1, 16))


@pytest.mark.parametrize("bits", [8, 12, 16])
def test_the_code_is_systematic_with_distance_m0_plus_one(bits):
    """Codewords start with the value's nibbles; two values' codewords differ in at least M₀ + 1 of the M = 2·M₀ symbols."""
    information, length = code_length(bits)
    values = np.random.default_rng(bits).choice(2**bits, size=200, replace=False)
    words = encode(values, bits)
    assert words.shape == (200, length)
    np.testing.assert_array_equal(words[:, :information], nibbles(values, bits))
    np.testing.assert_array_equal(decode_message(words[:, :information], bits), values)
    distance = (words[:, None, :] != words[None, :, :]).sum(axis=-1)
    assert distance[~np.eye(200, dtype=bool)].min() >= information + 1


def test_every_m0_symbols_determine_the_value():
    """Exhaustively at bits = 8 (M₀ = 2, M = 4): any two positions of a codeword identify the value."""
    words = encode(np.arange(256), 8)
    for positions in itertools.combinations(range(4), 2):
        assert np.unique(words[:, positions], axis=0).shape[0] == 256


@pytest.mark.parametrize("length", [4, 6, 8, 12, 16])
def test_the_graph_is_a_connected_three_regular_ladder(length):
    """3M/2 edges, every vertex of degree 3 (K₄ at M = 4), connected (spectral gap > 0)."""
    edges = expander_edges(length)
    assert len(edges) == 3 * length // 2
    np.testing.assert_array_equal(np.bincount(edges.ravel(), minlength=length), 3)
    adjacency = np.zeros((length, length))
    adjacency[edges[:, 0], edges[:, 1]] = adjacency[edges[:, 1], edges[:, 0]] = 1
    eigenvalues = np.sort(np.linalg.eigvalsh(adjacency))
    assert (
        eigenvalues[-1] - eigenvalues[-2] > 0.5
    )  # the spectral gap: degree minus the second eigenvalue


@pytest.mark.parametrize("epsilon", [0.8, 2.0])
def test_one_users_whole_report_is_exactly_epsilon(epsilon):
    """bits = 8 (6 edge groups + the last), one bucket, Hashtogram R = 1, T = 2: the (group, report) table loses ε."""
    records = Hashtogram.create(epsilon, 256, 1, 2, rng=np.random.default_rng(1))
    final = Hashtogram.create(epsilon, 256, 1, 2, rng=np.random.default_rng(2))
    x = np.arange(256)
    codewords, bucket = encode(x, 8), bucket_of(x, 1, 1)
    # an edge (m, m') group's user reports her record h(x)·256 + 16·c_m(x) + c_m'(x)
    tables = [
        records.output_table()[bucket * 256 + 16 * codewords[:, m] + codewords[:, m_other]]
        for m, m_other in expander_edges(4)
    ]
    tables.append(final.output_table())
    assert max_privacy_loss(level_report_table(tables, np.full(7, 1 / 7))) == pytest.approx(
        epsilon, rel=1e-9
    )


@pytest.mark.statistical
def test_heavy_hitters_sharing_one_bucket_are_all_decoded():
    """With a single bucket, three planted values are all recovered from their clusters; Bitstogram reads one value
    per bucket and so returns at most one of them."""
    rng = np.random.default_rng(11)
    heavy = np.array([0x1234, 0xA7C3, 0x3C0F])
    values = np.r_[np.repeat(heavy, 30_000), rng.integers(0, 2**16, 20_000)]
    truth = np.bincount(values, minlength=2**16)
    found = private_expander_sketch(values, 16, 6.0, 3, n_buckets=1, rng=rng)
    assert set(found.values.tolist()) == set(heavy.tolist())
    np.testing.assert_allclose(found.estimates, 30_000, rtol=0.15)
    assert recall(bitstogram(values, 16, 6.0, 3, n_buckets=1, rng=rng).values, truth, 3) <= 1 / 3


@pytest.mark.statistical
def test_fast_simulation_and_per_user_clients_agree():
    """Planted heavy hitters: the batched path and the real clients find them, with estimates of the same mean (5 SE)."""
    rng = np.random.default_rng(12)
    heavy = np.array([77, 1900, 3333])
    values = np.r_[np.repeat(heavy, [6000, 4000, 3000]), rng.integers(0, 2**12, 3000)]
    runs = [
        private_expander_sketch(values, 12, 4.0, 3, oracle_buckets=64, rng=rng, per_user=per_user)
        for per_user in (False, True)
        for _ in range(8)
    ]
    fast, slow = runs[:8], runs[8:]
    for found in runs:
        assert set(found.values.tolist()) == set(heavy.tolist())

    def by_value(results):
        return np.array([[r.estimates[r.values == h][0] for h in heavy] for r in results])

    a, b = by_value(fast), by_value(slow)
    se = np.sqrt(a.var(axis=0, ddof=1) / 8 + b.var(axis=0, ddof=1) / 8)
    assert np.all(np.abs(a.mean(axis=0) - b.mean(axis=0)) < 5 * se)
    np.testing.assert_allclose(a.mean(axis=0), [6000, 4000, 3000], rtol=0.1)


@pytest.mark.parametrize("n_hashes", [4, 5])
def test_the_median_estimate_is_numpys_median(n_hashes):
    """The partition's median of the R cells is np.median's, bit for bit, for odd and even R."""
    oracle = Hashtogram.create(1.0, 4096, n_hashes, 64, rng=np.random.default_rng(3))
    rng = np.random.default_rng(4)
    sums = rng.integers(-50, 50, size=(n_hashes, 64)).astype(float)
    hashes = oracle._hashes_of(np.arange(4096))
    expected = np.median(sums[np.arange(n_hashes)[:, None], hashes], axis=0)
    np.testing.assert_array_equal(
        _median_estimate(oracle, sums, hashes),
        oracle.c_epsilon * n_hashes * expected,
    )


@pytest.mark.parametrize("n_hashes", [4, 5])
def test_the_heavy_records_are_the_median_estimates_above_the_threshold(n_hashes):
    """Counting the passing cells (odd R) decides exactly as the median estimate, thresholds at the scores included."""
    oracle = Hashtogram.create(1.0, 4096, n_hashes, 64, rng=np.random.default_rng(5))
    sums = np.random.default_rng(6).integers(-50, 50, size=(n_hashes, 64)).astype(float)
    hashes = oracle._hashes_of(np.arange(4096))
    cells = sums[np.arange(n_hashes)[:, None], hashes]  # the reference: numpy's median, not ours
    scores = oracle.c_epsilon * n_hashes * np.median(cells, axis=0) * 1.7
    for threshold in [*np.quantile(scores, [0.1, 0.5, 0.9, 0.99]), *scores[:20], scores.max()]:
        heavy = _heavy(oracle, sums, hashes, 1.7, threshold)
        np.testing.assert_array_equal(heavy, scores > threshold)


@pytest.mark.parametrize("bits", [12, 28])  # a table over the domain; a search
def test_the_distinct_values_are_numpys_unique(bits):
    values = np.random.default_rng(bits).integers(0, 2**bits, size=5000) // 7
    present, which = _distinct(values, bits, inverse=True)
    expected, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(present, expected)
    np.testing.assert_array_equal(which, inverse)
    present, how_many = _distinct(values, bits)
    np.testing.assert_array_equal(present, expected)
    np.testing.assert_array_equal(how_many, counts)


def test_bad_input_is_refused():
    values = np.arange(16)
    with pytest.raises(ValueError, match="bits"):
        private_expander_sketch(values, 4, 1.0, 2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="min_agreement"):
        private_expander_sketch(values, 8, 1.0, 2, min_agreement=1.5, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="length"):
        expander_edges(5)
