"""Populations as distinct rows (simulate.populations), and the exact chain-of-binomials reporter-count sampler (simulate.streams)."""

from itertools import combinations
from math import comb

import numpy as np
import pytest
from stat_checks import assert_mean_close, chisquare_pvalue, two_sample_pvalue

from ldp_helpers.mechanisms.base import sample_support_counts
from ldp_helpers.simulate.populations import (
    Population,
    RandomActiveSets,
    check_stream_truth,
    constant_population,
    linear_ramp_counts,
)
from ldp_helpers.simulate.streams import (
    reference_report_rounds,
    sample_reporter_counts,
    sample_reporters,
)

# ---------------------------------------------------------------- exact


def test_distinct_rows_round_trip():
    """Compressing a matrix into distinct rows and expanding it keeps every row and the per-round counts."""
    V = np.array([[1, 0, 1], [0, 0, 0], [1, 0, 1], [1, 1, 1]])
    pop = Population(*np.unique(V, axis=0, return_counts=True))
    assert (pop.n_users, pop.n_rounds, pop.n_groups) == (4, 3, 3)
    assert sorted(map(tuple, pop.to_matrix())) == sorted(map(tuple, V))
    assert pop.ones_per_round().tolist() == [3, 1, 3]


def test_nested_population_meets_every_round_count_with_few_rows():
    """The nested construction has the requested ones per round and at most T + 1 distinct rows."""
    k = np.array([5, 0, 10, 3, 3, 7])
    pop = Population.nested(k, 10)
    assert pop.ones_per_round().tolist() == k.tolist()
    assert pop.n_users == 10 and pop.n_groups <= k.size + 1
    assert len(np.unique(pop.to_matrix(), axis=0)) == pop.n_groups


@pytest.mark.parametrize("m", [1, 3, 5, 7, 8])
def test_every_user_reports_exactly_m_times(rng, m):
    """Summed over rounds, each group has m reports per user, in every trial."""
    sizes = np.array([0, 1, 7, 100])
    K = sample_reporter_counts(sizes, 8, m, rng=rng, n_draws=50)
    assert K.shape == (50, 4, 8) and K.min() >= 0
    assert np.array_equal(K.sum(axis=2), np.broadcast_to(m * sizes, (50, 4)))
    assert np.all(K <= sizes[None, :, None])


def test_same_seed_same_counts():
    """Determinism: equal seeds give equal draws."""
    a = sample_reporter_counts([10, 20], 6, 2, rng=np.random.default_rng(3), n_draws=4)
    b = sample_reporter_counts([10, 20], 6, 2, rng=np.random.default_rng(3), n_draws=4)
    assert np.array_equal(a, b)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(group_sizes=[3], n_rounds=4, m=0), r"m must be an integer in \[1, 4\]"),
        (dict(group_sizes=[3], n_rounds=4, m=5), r"m must be an integer in \[1, 4\]"),
        (dict(group_sizes=[-1], n_rounds=4, m=1), r"group_sizes must be integers in \[0, inf\]"),
        (
            dict(group_sizes=[[3]], n_rounds=4, m=1),
            r"group_sizes must be a 1-D array \(one size per group\)",
        ),
        (dict(group_sizes=[3], n_rounds=0, m=1), "n_rounds must be an integer"),
        (
            dict(group_sizes=[3], n_rounds=4, m=1, n_draws=0),
            r"n_draws must be an integer in \[1, 10000000\]",
        ),
    ],
)
def test_sampler_validates_inputs(rng, kwargs, message):
    """m outside [1, T] and other bad sizes are clear errors."""
    with pytest.raises(ValueError, match=message):
        sample_reporter_counts(rng=rng, **kwargs)


def test_population_validates_inputs():
    """Non-binary or non-2-D rows, bad multiplicities and bad nested counts are refused, naming the parameter."""
    with pytest.raises(ValueError, match="rows must be an array of 0/1 values"):
        Population(np.array([[0, 2]]), np.array([1]))
    with pytest.raises(
        ValueError,
        match=r"rows must be a 2-D array \(groups × rounds\); got an array of shape \(2,\)",
    ):
        Population(np.array([0, 1]), np.array([1]))
    with pytest.raises(ValueError, match=r"counts must be integers in \[1, inf\]"):
        Population(np.array([[0, 1]]), np.array([0]))
    with pytest.raises(ValueError, match=r"counts must be an array of shape \(1,\)"):
        Population(np.array([[0, 1]]), np.array([1, 2]))
    with pytest.raises(ValueError, match=r"ones_per_round must be integers in \[0, 5\]"):
        Population.nested([6, 1], 5)
    with pytest.raises(ValueError, match=r"ones_per_round must be a 1-D array"):
        RandomActiveSets(np.array([[1, 2], [3, 4]]), 5)
    with pytest.raises(ValueError, match="ones_per_round must be an array of integers"):
        RandomActiveSets(np.array([1.5, 2.0]), 5)


def test_check_stream_truth_names_the_allowed_data():
    """A matrix instead of a Population, or data with the wrong T, is refused naming truth and the allowed kinds."""
    pop = Population.nested(np.array([1, 2]), 3)
    assert check_stream_truth(pop, 2) is pop
    with pytest.raises(
        ValueError,
        match=r"truth must be a Population \(ldp_helpers.simulate.populations\); got an object of type ndarray",
    ):
        check_stream_truth(np.ones((3, 2)), 2)
    with pytest.raises(ValueError, match="truth must be a Population or a RandomActiveSets"):
        check_stream_truth(np.ones((3, 2)), 2, random_sets=True)
    with pytest.raises(ValueError, match="truth must be data with T = 3 rounds"):
        check_stream_truth(RandomActiveSets(np.array([1, 2]), 3), 3, random_sets=True)


def test_constant_population_and_linear_ramp():
    """The Glance §6 stream has round(μN) ones every round (two rows); the m-shot ramp is a shuffled t/T."""
    pop = constant_population(0.9995, 10_000, 50)
    assert pop.n_groups == 2 and np.all(pop.ones_per_round() == 9995)
    k = linear_ramp_counts(10_000, 100, rng=np.random.default_rng(0))
    assert sorted(k.tolist()) == [100 * t for t in range(1, 101)]
    assert not np.array_equal(k, np.sort(k))
    assert sorted(linear_ramp_counts(7, 3, rng=np.random.default_rng(0)).tolist()) == [2, 5, 7]


def test_constant_population_holds_round_mu_n_users_exactly_up_to_2_to_62():
    """round(μN) is exact for every accepted N: μ = 1 of 2^53 + 1 users left one user out (float(N) = 2^53);
    N above 2^62, a Population's largest total, is refused naming n_users (it overflowed np.full)."""
    assert constant_population(1.0, 2**53 + 1, 3).ones_per_round().tolist() == [2**53 + 1] * 3
    assert constant_population(0.25, 2**62, 1).ones_per_round().tolist() == [2**60]
    with pytest.raises(
        ValueError, match=r"n_users must be an integer in \[1, 4611686018427387904\]"
    ):
        constant_population(1.0, 2**63 - 1, 1)


@pytest.mark.parametrize("n_users, n_rounds", [(2**62, 2), (10**15, 10**4), (2**63 - 1, 10**6)])
def test_linear_ramp_is_exact_where_two_n_t_would_wrap_int64(n_users, n_rounds):
    """k_t = round(N t/T) exactly (Python integers) for N up to int64's top: 2·N·t in int64 wrapped to
    negative counts (N = 10^15, T = 10^4) or overflowed (N = 2^62)."""
    k = linear_ramp_counts(n_users, n_rounds, rng=np.random.default_rng(0))
    exact = [(2 * n_users * t + n_rounds) // (2 * n_rounds) for t in range(1, n_rounds + 1)]
    assert k.dtype == np.int64 and sorted(k.tolist()) == exact


# ---------------------------------------------------------------- statistical


def _subset_codes(K):
    """Encode a single user's 0/1 reporting vector over T rounds as an integer."""
    return (K * (1 << np.arange(K.shape[-1]))).sum(axis=-1)


@pytest.mark.statistical
@pytest.mark.parametrize("m", [1, 2, 4, 5])
def test_single_user_subset_is_uniform(rng, m):
    """For one user the reported rounds are a uniform m-subset of T = 6 (full joint law, GOF)."""
    T, n_draws = 6, 30_000
    codes = _subset_codes(sample_reporter_counts([1], T, m, rng=rng, n_draws=n_draws)[:, 0, :])
    pmf = np.zeros(1 << T)
    for subset in combinations(range(T), m):
        pmf[sum(1 << t for t in subset)] = 1 / comb(T, m)
    assert chisquare_pvalue(codes, pmf) > 1e-3


@pytest.mark.statistical
@pytest.mark.parametrize("m", [2, 5])
def test_group_counts_match_per_user_reference(rng, m):
    """Fast and per-user reference agree: marginals, cross-round covariance, and joint (K_0, K_1)."""
    n, T, n_draws = 25, 7, 6000
    fast = sample_reporter_counts([n], T, m, rng=rng, n_draws=n_draws)[:, 0, :]
    ref = np.array([reference_report_rounds(n, T, m, rng=rng).sum(axis=0) for _ in range(n_draws)])
    pi = m / T
    cov_theory = n * (m * (m - 1) / (T * (T - 1)) - pi**2)  # Cov(K_s, K_t), s ≠ t
    var_pair_theory = 2 * n * pi * (1 - pi) + 2 * cov_theory  # Var(K_0 + K_1)
    for K in (fast, ref):
        assert_mean_close(K[:, 3], n * pi, n * pi * (1 - pi))
        assert_mean_close(K[:, 0] + K[:, 1], 2 * n * pi, var_pair_theory)
        prod = (K[:, 0] - n * pi) * (K[:, 1] - n * pi)
        assert_mean_close(prod, cov_theory, prod.var())
    assert (
        two_sample_pvalue(fast[:, 0] * (n + 1) + fast[:, 1], ref[:, 0] * (n + 1) + ref[:, 1]) > 1e-3
    )
    assert two_sample_pvalue(fast[:, 2] + fast[:, 5], ref[:, 2] + ref[:, 5]) > 1e-3


@pytest.mark.statistical
def test_reporters_and_support_counts_match_per_user_reports(rng):
    """sample_reporters + sample_support_counts agree with per-user reporting + randomization (K, K1 exact sums; X's law)."""
    V = np.array([[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1]])
    pop = Population(V, np.array([5, 7, 4]))
    p, q, m, n_draws = 0.8, 0.3, 2, 5000
    K, K1 = sample_reporters(pop, m, rng=rng, n_draws=n_draws)
    X = sample_support_counts(K1, K, p, q, rng=rng)
    assert np.array_equal(K.sum(axis=1), np.full(n_draws, m * pop.n_users))
    assert np.all((K1 <= K) & (X <= K))
    Vfull = pop.to_matrix()
    ref_x = []
    for _ in range(n_draws):
        mask = reference_report_rounds(pop.n_users, pop.n_rounds, m, rng=rng)
        ref_x.append((mask & (rng.random(Vfull.shape) < np.where(Vfull == 1, p, q))).sum(axis=0))
    ref_x = np.array(ref_x)
    for t in range(pop.n_rounds):
        assert two_sample_pvalue(X[:, t], ref_x[:, t]) > 1e-3
    assert two_sample_pvalue(X[:, 0] * 17 + X[:, 2], ref_x[:, 0] * 17 + ref_x[:, 2]) > 1e-3
