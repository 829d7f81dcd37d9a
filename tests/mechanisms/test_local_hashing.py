"""BLH and OLH: exact whole-report tables, p*/q*, the hash family, and the two simulation paths."""

import math

import numpy as np
import pytest
from stat_checks import (
    assert_mean_close,
    assert_support_counts_match,
    assert_variance_close,
    chisquare_pvalue,
    sample_both_paths,
)

from ldp_helpers.mechanisms.local_hashing import (
    BLH,
    HASH_PRIME,
    MAX_HASH_RANGE,
    OLH,
    LocalHashing,
    approx_variance_for_hash_range,
    continuous_optimal_hash_range,
    olh_hash_range,
    universal_hash,
)
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.randomized_response import q_bin_probabilities
from ldp_helpers.mechanisms.unary_encoding import OUE

# ---------------------------------------------------------------- exact


@pytest.mark.parametrize("epsilon", [0.1, 1.0, math.log(3), 2.0])
@pytest.mark.parametrize("cls, d", [(BLH, 3), (BLH, 6), (OLH, 3), (OLH, 4)])
def test_whole_report_table_is_exactly_epsilon_ldp(cls, d, epsilon):
    """Over all hash functions [d] → [g], the (H, y) table sums to 1 per value and has loss exactly ε."""
    table = cls(epsilon, d).output_table()
    assert np.allclose(table.sum(axis=1), 1.0, atol=1e-12)
    assert max_privacy_loss(table) == pytest.approx(epsilon, rel=1e-9)


@pytest.mark.parametrize("epsilon, g", [(0.1, 2), (1.0, 4), (math.log(3), 4), (2.0, 8), (5.0, 149)])
def test_olh_hash_range_and_support_probabilities(epsilon, g):
    """g = round(e^ε) + 1, p* = e^ε/(e^ε+g−1), q* = 1/g; BLH has g = 2, p* = e^ε/(e^ε+1), q* = 1/2."""
    olh = OLH(epsilon, 10)
    assert olh_hash_range(epsilon) == g == olh.g
    assert olh.p == pytest.approx(math.exp(epsilon) / (math.exp(epsilon) + g - 1), rel=1e-13)
    assert olh.q == 1 / g
    blh = BLH(epsilon, 10)
    assert (blh.g, blh.q) == (2, 0.5) and blh.p == pytest.approx(
        math.exp(epsilon) / (math.exp(epsilon) + 1), rel=1e-13
    )


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_blh_is_q_bin_and_the_real_g_optimum_is_e_eps_plus_one(epsilon):
    """BLH's p* is Q_Bin's keep probability; the variance over real g is minimized at g = e^ε + 1."""
    assert BLH(epsilon, 5).p == q_bin_probabilities(epsilon)[0]
    assert approx_variance_for_hash_range(epsilon, 4) == pytest.approx(
        LocalHashing(epsilon, 5, g=4).approx_variance(1), rel=1e-14
    )
    assert continuous_optimal_hash_range(epsilon) == pytest.approx(math.exp(epsilon) + 1, rel=1e-6)


def test_per_user_path_refuses_domains_and_ranges_beyond_the_hash():
    """d > P would overflow a·x and merge values; g > 2^16 makes h mod g non-uniform (g > P: wrong reports)."""
    with pytest.raises(ValueError, match=r"d must be an integer in \[2, 2147483647\]"):
        LocalHashing(1.0, 2**33, g=3)
    olh = OLH(30.0, 5)
    assert olh.g > MAX_HASH_RANGE
    with pytest.raises(ValueError, match="g must be at most 65536 for the per-user path"):
        olh.perturb([1, 2], rng=np.random.default_rng(0))
    assert olh.sample_aggregate([3, 0, 0, 0, 1], rng=np.random.default_rng(0)).shape == (5,)


def test_olh_has_oue_variance_when_e_eps_is_an_integer():
    """With g = e^ε + 1 exactly (ε = ln 3), OLH's approximate variance equals OUE's 4e^ε/(e^ε−1)²."""
    eps = math.log(3)
    assert OLH(eps, 50).approx_variance(1000) == pytest.approx(
        OUE(eps, 50).approx_variance(1000), rel=1e-12
    )


@pytest.mark.parametrize("epsilon", [0.5, 1.2, 2.7, 4.0])
def test_rounded_g_costs_little_variance(epsilon):
    """With the integer g = round(e^ε)+1, OLH's approximate variance is within 10% of OUE's (and never below it)."""
    ratio = OLH(epsilon, 50).approx_variance(1000) / OUE(epsilon, 50).approx_variance(1000)
    assert 1 - 1e-12 <= ratio < 1.1


def _splitmix64(seed: int, k: int) -> int:
    """The k-th output of SplitMix64 seeded with ``seed`` (Steele, Lea, Flood 2014), in Python integers."""
    mask = 2**64 - 1
    z = (seed + k * 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def test_support_counts_apply_each_users_hash():
    """A report (a, b, y) supports exactly the values i with H(i) = SplitMix64_{i+1}(a·P + b) mod g = y."""
    olh = LocalHashing(1.0, 5, g=3)
    a, b = 12345, 678
    hashes = np.array([_splitmix64(a * HASH_PRIME + b, i + 1) % 3 for i in range(5)])
    assert np.array_equal(olh.hash_values(a, b, np.arange(5)), hashes)
    counts = olh.aggregate([[a, b, hashes[0]]])
    assert np.array_equal(counts, (hashes == hashes[0]).astype(int))


def test_same_seed_same_reports():
    """Determinism: equal seeds give equal (a, b, y) reports."""
    olh = OLH(1.0, 7)
    values = np.arange(50) % 7
    assert np.array_equal(
        olh.perturb(values, rng=np.random.default_rng(2)),
        olh.perturb(values, rng=np.random.default_rng(2)),
    )


def test_rejects_malformed_inputs(rng):
    """Bad ε, d, g, values and reports give clear errors."""
    with pytest.raises(ValueError, match="epsilon"):
        OLH(0.0, 5)
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, 40\]; got 50"):
        OLH(50.0, 5)
    with pytest.raises(ValueError, match=r"d must be an integer in \[2, 2147483647\]; got 1"):
        OLH(1.0, 1)
    with pytest.raises(ValueError, match=r"g must be an integer in \[2, inf\]"):
        LocalHashing(1.0, 5, g=1)
    with pytest.raises(ValueError, match=r"g must be an integer in \[2, 2\]; got 3"):
        BLH(1.0, 5, g=3)
    olh = OLH(1.0, 5)
    with pytest.raises(ValueError, match=r"values must be integers in \[0, 5\)"):
        olh.perturb([5], rng=rng)
    with pytest.raises(
        ValueError,
        match=r"reports must be a 2-D array of \(a, b, y\) rows whose last axis has length 3",
    ):
        olh.aggregate([[1, 2]])
    with pytest.raises(
        ValueError, match=r"reports\[:, 0\] \(a\) must be integers in \[1, 2147483646\]"
    ):
        olh.aggregate([[0, 2, 1]])
    with pytest.raises(ValueError, match=r"reports\[:, 2\] \(y\) must be integers in \[0, 3\]"):
        olh.aggregate([[1, 2, 4]])
    with pytest.raises(ValueError, match=r"d must be such that g\*\*d <= 4096 for output_table"):
        OLH(1.0, 40).output_table()


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
def test_hash_values_are_uniform(rng):
    """H_{a,b}(i) for random seeds (a, b) is uniform on [g] (chi-square GOF)."""
    olh = LocalHashing(1.0, 5, g=7)
    a = rng.integers(1, HASH_PRIME, size=50_000)
    b = rng.integers(0, HASH_PRIME, size=50_000)
    assert chisquare_pvalue(olh.hash_values(a, b, 3), np.full(7, 1 / 7)) > 1e-3


@pytest.mark.statistical
def test_blh_hashes_collide_at_rate_one_half(rng):
    """200,000 random seeds: H(3) = H(17) at rate 1/2 = 1/g within 5 SE (a random function; the tutorial asks ≤ 1/2)."""
    blh = BLH(1.0, 20)
    a = rng.integers(1, HASH_PRIME, size=200_000)
    b = rng.integers(0, HASH_PRIME, size=200_000)
    assert_mean_close(blh.hash_values(a, b, 3) == blh.hash_values(a, b, 17), 0.5, 0.25)


def _client_reports_by_function(oracle, value: int, n: int, rng) -> np.ndarray:
    """Column index (H(0..d−1) as a base-g number)·g + y of n client reports of ``value`` (the table's columns)."""
    reports = oracle.perturb(np.full(n, value), rng=rng)
    a, b, y = reports[:, 0:1], reports[:, 1:2], reports[:, 2]
    functions = oracle.hash_values(
        a, b, np.arange(oracle.d)[None, :]
    )  # (n, d): each user's H on the domain
    return (functions * oracle.g ** np.arange(oracle.d - 1, -1, -1)).sum(axis=1) * oracle.g + y


def _chi2_of_client_against_table(oracle, rng, n: int = 100_000) -> list[float]:
    from scipy import stats

    table = oracle.output_table()
    return [
        stats.chisquare(
            np.bincount(_client_reports_by_function(oracle, v, n, rng), minlength=table.shape[1]),
            table[v] * n,
        ).pvalue
        for v in range(oracle.d)
    ]


def _estimate_correlations(oracle, true_counts, n_surveys: int, rng) -> np.ndarray:
    """Correlations of every pair of estimated counts over ``n_surveys`` surveys of the per-user client."""
    values = np.repeat(np.arange(oracle.d), true_counts)
    reports = oracle.perturb(np.tile(values, n_surveys), rng=rng)
    support = (
        oracle.hash_values(reports[:, 0:1], reports[:, 1:2], np.arange(oracle.d)[None, :])
        == reports[:, 2:3]
    )
    estimates = oracle.estimate(
        support.reshape(n_surveys, values.size, oracle.d).sum(axis=1), values.size
    )
    corr = np.corrcoef(estimates.T)
    return corr[np.triu_indices(oracle.d, 1)]


@pytest.mark.statistical
def test_client_reports_follow_the_output_table(rng):
    """χ² of 100,000 client reports per input of the registry's OLH(0.9, 3) against its whole-report table
    (81 columns: every function [3] → [3] and y): the client draws a random function, as the table says."""
    assert min(_chi2_of_client_against_table(OLH(0.9, 3), rng)) > 1e-4


@pytest.mark.statistical
def test_client_estimates_are_uncorrelated_as_the_sampler_says(rng):
    """Over 20,000 client surveys of OLH(0.9, 3) on counts (30, 10, 5), every pair of estimated counts has
    correlation 0 within 4 SE (SE = 1/√R): the aggregate sampler's independent support counts (covariance
    exactly 0) are the client's law."""
    corr = _estimate_correlations(OLH(0.9, 3), np.array([30, 10, 5]), 20_000, rng)
    assert np.all(np.abs(corr) < 4 / math.sqrt(20_000)), corr


@pytest.mark.statistical
def test_the_universal_family_is_caught(rng, monkeypatch):
    """Power: with the universal family ((a·x + b) mod P) mod g as the client's hash (this module's old
    client), both tests above reject it at the same sizes."""
    from ldp_helpers.mechanisms import local_hashing

    monkeypatch.setattr(local_hashing, "_hash_function", local_hashing.universal_hash)
    assert max(_chi2_of_client_against_table(OLH(0.9, 3), rng)) < 1e-10
    assert np.max(
        np.abs(_estimate_correlations(OLH(0.9, 3), np.array([30, 10, 5]), 20_000, rng))
    ) > 6 / math.sqrt(20_000)


@pytest.mark.statistical
@pytest.mark.parametrize("cls", [BLH, OLH])
def test_aggregate_sampler_matches_per_user_reference(cls, rng):
    """Per-user support counts have the aggregate sampler's marginals (mean, variance, GOF, two-sample)."""
    oracle = cls(1.5, 6)
    true_counts = np.array([90, 0, 30, 60, 10, 10])
    per_user, aggregate = sample_both_paths(oracle, true_counts, 2000, rng)
    assert_support_counts_match(oracle, per_user, aggregate, true_counts, coordinates=(0, 1, 2))


@pytest.mark.statistical
def test_estimates_are_unbiased_with_exact_variance(rng):
    """Over 20,000 aggregate draws OLH estimates average f with the exact variance."""
    olh = OLH(2.0, 100)
    true_counts = rng.multinomial(50_000, np.full(100, 0.01))
    draws = np.array(
        [
            olh.estimate(olh.sample_aggregate(true_counts, rng=rng), 50_000)[:3]
            for _ in range(20_000)
        ]
    )
    variances = olh.variance(true_counts)[:3]
    for i in range(3):
        assert_mean_close(draws[:, i], true_counts[i], variances[i])
        assert_variance_close(draws[:, i], variances[i])


def test_universal_hash_takes_32_bit_words_and_no_words():
    """((a·x + b) mod P) mod m: values below 2^32 (no int64 overflow), an empty x gives no hashes,
    and x outside [0, 2^32) or not integers is refused naming x."""
    x = np.array([0, 1, 2**32 - 1])
    assert universal_hash(3, 5, x, 7).tolist() == [
        ((3 * v + 5) % HASH_PRIME) % 7 for v in x.tolist()
    ]
    assert universal_hash(3, 5, np.zeros(0, dtype=np.int64), 7).size == 0
    for bad in (np.array([-1]), np.array([2**32]), np.array([0.5]), np.array(["a"]), None):
        with pytest.raises(ValueError, match="^x must be"):
            universal_hash(3, 5, bad, 7)


@pytest.mark.parametrize(
    "epsilon, g",
    [(1.0, 1e300), (1.0, 1e151), (1e-12, 1e150), (30.0, 1e300), (700.0, 1e300)]
    + [(1e-12, 1.001), (1e-12, 3.0), (1e-6, 1 + 1e-9), (1e-3, 1 + 1e-12), (1.0, 1 + 1e-12)],
)
def test_approx_variance_is_within_an_ulp_or_so_of_mpmath_at_any_g(epsilon, g):
    """The variance (1 + (g−1)e^{−ε})²/((g−1)(1 − e^{−ε})²) ≈ g/(e^ε − 1)², within 1e-15 of 80-digit mpmath.
    Before, it was computed from p* − q*, which underflowed beyond g ≈ 1e150 (divide by zero at g = 1e300)
    and cancelled as g → 1 or ε → 0 (19 % off at ε = 1e-12, g = 1.001; 4e-4 at ε = 1e-12, g = 3)."""
    import warnings

    import mpmath

    with mpmath.workdps(80):
        e, G = mpmath.mpf(epsilon), mpmath.mpf(g)
        p, q = 1 / (1 + (G - 1) * mpmath.exp(-e)), 1 / G
        exact = float(q * (1 - q) / (p - q) ** 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert approx_variance_for_hash_range(epsilon, g) == pytest.approx(exact, rel=1e-15)


def test_approx_variance_beyond_double_range_refuses_g_with_its_range():
    """ε = 1e-12, g = 1e300: the variance ≈ 1e324 is no double; refused naming g and its largest value."""
    with pytest.raises(
        ValueError, match=r"^g must be a real in \(1, 1\.8e\+284\] at epsilon = 1e-12"
    ):
        approx_variance_for_hash_range(1e-12, 1e300)
