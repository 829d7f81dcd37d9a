"""Apple's count-mean sketch: exact privacy table, debiasing, query mean/variance, simulation paths."""

import math

import numpy as np
import pytest
from scipy import stats
from stat_checks import assert_mean_close, assert_variance_close

from ldp_helpers.mechanisms.count_mean_sketch import CmsReports, CountMeanSketch


def make(epsilon=2.0, d=6, k=3, m=8, seed=0):
    return CountMeanSketch.create(epsilon, d, k, m, rng=np.random.default_rng(seed))


# ---------------------------------------------------------------- exact


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 6.0])
def test_report_table_is_exactly_epsilon_ldp(epsilon):
    """The (j, ṽ) table sums to 1 per input and loses exactly ε (two entries flip at ε/2 each)."""
    cms = make(epsilon, d=5, k=2, m=6)
    table = cms.output_table()
    assert np.allclose(table.sum(axis=1), 1.0, atol=1e-12)
    assert cms.privacy_loss() == pytest.approx(epsilon, rel=1e-9)


def test_flip_probability_and_debiasing_constant():
    """r = 1/(1+e^{ε/2}) and c_ε(1−2r) = 1, so the debiased entry has mean equal to the one-hot bit."""
    cms = make(epsilon=1.3)
    assert cms.flip_probability == pytest.approx(1 / (1 + math.exp(0.65)), rel=1e-14)
    assert cms.c_epsilon == pytest.approx((math.exp(0.65) + 1) / (math.exp(0.65) - 1), rel=1e-12)
    r, c = cms.flip_probability, cms.c_epsilon
    for bit in (0, 1):  # E[x̃] = c/2·E[ṽ] + 1/2 with E[ṽ] = ±(1−2r)
        mean_v = (1 - 2 * r) * (1 if bit else -1)
        assert c / 2 * mean_v + 0.5 == pytest.approx(bit, abs=1e-12)


def test_sketch_of_a_hand_made_report():
    """One report ṽ with hash row j adds k·((c/2)ṽ + 1/2) to row j only."""
    cms = make(k=2, m=4)
    vector = np.array([[1, -1, -1, 1]])
    sketch = cms.aggregate(CmsReports(vector, np.array([1])))
    assert np.allclose(sketch[0], 0)
    assert np.allclose(sketch[1], 2 * (cms.c_epsilon / 2 * vector[0] + 0.5))


def test_batched_sketches_and_batched_estimates():
    """n_draws=R gives R sketches of shape (k, m); estimating the batch equals estimating each sketch."""
    cms = make()
    f = np.array([30, 20, 10, 5, 0, 35])
    batch = cms.sample_aggregate(f, rng=np.random.default_rng(1), n_draws=5)
    assert batch.shape == (5, cms.k, cms.m)
    estimates = cms.estimate(batch, 100)
    assert estimates.shape == (5, cms.d)
    assert np.allclose(
        estimates, [cms.estimate(sketch, 100) for sketch in batch], rtol=0, atol=1e-9
    )
    assert not np.allclose(batch[0], batch[1])


def test_query_mean_for_fixed_collision_free_hashes():
    """Fixed hashes without collisions: E[f̂(x)] = m/(m−1)(f_x − n/m); the query is unbiased only over hash draws."""
    cms = CountMeanSketch(
        1.0, 4, 2, 16, (1, 3), (0, 5)
    )  # h_j(x) = (a_j x + b_j) mod 16, injective on [0, 4)
    assert np.all(np.diff(np.sort(cms.hash_table(), axis=1), axis=1) > 0)
    f = np.array([10, 0, 5, 7])
    assert np.allclose(cms.expected_estimate(f), 16 / 15 * (f - f.sum() / 16), atol=1e-12)


def test_rejects_malformed_inputs(rng):
    """Bad ε, sizes, values, vectors, rows and sketches give clear errors."""
    with pytest.raises(ValueError, match="epsilon"):
        CountMeanSketch.create(0.0, 4, 2, 8, rng=rng)
    with pytest.raises(ValueError, match=r"m must be an integer in \[2, inf\]"):
        CountMeanSketch.create(1.0, 4, 2, 1, rng=rng)
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, inf\]"):
        CountMeanSketch.create(1.0, 4, 0, 8, rng=rng)
    cms = make()
    with pytest.raises(ValueError, match=r"values must be integers in \[0, 6\)"):
        cms.perturb([6], rng=rng)
    with pytest.raises(
        ValueError,
        match=r"reports.vectors must be an array of ±1 entries; got an array containing 0",
    ):
        cms.aggregate(CmsReports(np.zeros((2, 8)), np.array([0, 1])))
    with pytest.raises(ValueError, match=r"reports.rows must be integers in \[0, 2\]"):
        cms.aggregate(CmsReports(np.ones((1, 8)), np.array([3])))
    with pytest.raises(
        ValueError, match=r"aggregate must be an array of shape \(3, 8\) or \(n_draws, 3, 8\)"
    ):
        cms.estimate(np.zeros((2, 2)), 10)
    with pytest.raises(ValueError, match=r"m must be an integer in \[2, 10\]"):
        make(m=16).output_table()
    with pytest.raises(ValueError, match="aggregate must be finite values"):
        cms.estimate(np.full((3, 8), np.nan), 10)
    with pytest.raises(ValueError, match=r"hash_a must be integers in \[1, 2147483646\]"):
        CountMeanSketch(1.0, 4, 1, 8, (0,), (5,))
    with pytest.raises(ValueError, match=r"hash_b must be integers in \[0, 2147483646\]"):
        CountMeanSketch(1.0, 4, 1, 8, (3,), (2**31,))
    with pytest.raises(ValueError, match=r"d must be an integer in \[2, 2147483647\]"):
        CountMeanSketch.create(1.0, 2**32, 2, 8, rng=rng)


def test_flip_probability_is_q_bin_at_half_epsilon():
    """r is Q_Bin's flip probability at ε/2 (one derivation of the per-entry randomizer)."""
    from ldp_helpers.mechanisms.randomized_response import q_bin_probabilities

    assert make(epsilon=3.0).flip_probability == q_bin_probabilities(1.5)[1]


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
def test_per_user_and_aggregate_sketches_match_the_exact_moments(rng):
    """Both paths give query estimates with the exact (fixed-hash) mean and variance, and the same law."""
    cms = make()
    f = np.array([300, 200, 100, 50, 0, 350])
    values = np.repeat(np.arange(6), f)
    per_user = np.array(
        [cms.estimate(cms.aggregate(cms.perturb(values, rng=rng)), 1000) for _ in range(2000)]
    )
    aggregate = cms.estimate(cms.sample_aggregate(f, rng=rng, n_draws=4000), 1000)
    mean, var = cms.expected_estimate(f), cms.variance(f)
    for sample in (per_user, aggregate):
        for x in (0, 3, 4):
            assert_mean_close(sample[:, x], mean[x], var[x])
            assert_variance_close(sample[:, x], var[x])
    for x in (
        0,
        3,
        4,
    ):  # beyond two moments: the whole law of each estimate (two-sample Kolmogorov–Smirnov)
        assert stats.ks_2samp(per_user[:, x], aggregate[:, x]).pvalue > 1e-3


@pytest.mark.statistical
def test_unbiased_over_hash_draws(rng):
    """Two values collide on a fresh hash w.p. 1/m, which makes E[f̂(x)] = f_x over hash draws."""
    k, m = 4, 8
    f = np.array([500, 300, 200, 0])
    sketches = [CountMeanSketch.create(2.0, 4, k, m, rng=rng) for _ in range(4000)]
    rates = np.array([cms.collision_rates()[0, 1] for cms in sketches])
    assert_mean_close(rates, 1 / m, (1 / m) * (1 - 1 / m) / k)
    # the fixed-hash query mean, averaged over hash draws, is f (its spread over draws estimated)
    means = np.array([cms.expected_estimate(f) for cms in sketches])
    for x in range(4):
        assert_mean_close(means[:, x], f[x], means[:, x].var(ddof=1))
    assert means[:, 3].std() > 0  # the fixed-hash mean does vary: unbiased only over draws


def test_output_table_matches_the_per_entry_product():
    """The vectorized table equals the direct product over entries: P[x, (j, ṽ)] = (1/k) Π_i (1−r if ṽ_i = e_i else r)."""
    import itertools

    cms = CountMeanSketch.create(1.5, 5, 3, 4, rng=np.random.default_rng(2))
    r, hashes = cms.flip_probability, cms.hash_table()
    signs = np.array(list(itertools.product((-1, 1), repeat=cms.m)))
    direct = np.empty((cms.d, cms.k, signs.shape[0]))
    for x, j in itertools.product(range(cms.d), range(cms.k)):
        encoded = -np.ones(cms.m)
        encoded[hashes[j, x]] = 1
        direct[x, j] = np.prod(np.where(signs == encoded, 1 - r, r), axis=1) / cms.k
    np.testing.assert_allclose(cms.output_table(), direct.reshape(cms.d, -1), rtol=1e-12, atol=0)
    rates = cms.collision_rates()
    np.testing.assert_allclose(rates, (hashes[:, :, None] == hashes[:, None, :]).mean(axis=0))
