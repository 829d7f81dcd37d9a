"""Binary randomized response: exact tables, estimator, variance and the two simulation paths."""

import math

import numpy as np
import pytest
from scipy import stats
from stat_checks import (
    assert_mean_close,
    assert_variance_close,
    chisquare_pvalue,
    two_sample_pvalue,
)

from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.randomized_response import (
    Q_BIN_MAX_EPSILON,
    BinaryRR,
    q_bin_probabilities,
    two_coin_response,
)

# ---------------------------------------------------------------- exact


@pytest.mark.parametrize("epsilon", [1e-3, 0.1, 0.5, 1.0, math.log(3), 2.0, 8.0, 12.0])
def test_q_bin_table_is_exactly_epsilon_ldp(epsilon):
    """The output table of Q_Bin(·; ε) has privacy loss exactly ε."""
    rr = BinaryRR.from_epsilon(epsilon)
    assert rr.p == pytest.approx(math.exp(epsilon) / (math.exp(epsilon) + 1), rel=1e-14)
    assert rr.p + rr.q == pytest.approx(1.0, abs=1e-15)
    assert max_privacy_loss(rr.output_table()) == pytest.approx(epsilon, rel=1e-9)
    assert rr.epsilon == pytest.approx(epsilon, rel=1e-9)


def test_two_coin_is_q_bin_at_ln3():
    """Warner's two coins give p = 3/4, q = 1/4, i.e. Q_Bin at ε = ln 3."""
    two_coin = BinaryRR.warner_two_coin()
    assert (two_coin.p, two_coin.q) == (0.75, 0.25)
    assert two_coin.privacy_loss() == pytest.approx(math.log(3), abs=1e-15)
    assert np.allclose(
        two_coin.output_table(), BinaryRR.from_epsilon(math.log(3)).output_table(), atol=1e-15
    )


def test_two_coin_estimator_is_2_x_minus_quarter():
    """The general estimator (X − q)/(p − q) reduces to the tutorial's 2(X − 0.25)."""
    x = np.linspace(0, 1, 11)
    assert np.allclose(
        BinaryRR.warner_two_coin().estimate_fraction(x * 100, 100), 2 * (x - 0.25), atol=1e-14
    )


def test_estimator_is_exactly_unbiased():
    """E[π̂] = π, computed exactly over the distribution of the reported count."""
    rr = BinaryRR.from_epsilon(0.7)
    n, n_ones = 40, 13
    support = np.arange(n + 1)
    pmf = np.convolve(
        stats.binom.pmf(np.arange(n_ones + 1), n_ones, rr.p),
        stats.binom.pmf(np.arange(n - n_ones + 1), n - n_ones, rr.q),
    )
    estimates = rr.estimate_fraction(support, n)
    mean = np.sum(pmf * estimates)
    assert mean == pytest.approx(n_ones / n, abs=1e-12)
    assert np.sum(pmf * (estimates - mean) ** 2) == pytest.approx(
        rr.fraction_variance(n_ones / n, n), rel=1e-10
    )


@pytest.mark.parametrize("epsilon", [0, -1, math.inf, math.nan, 40.0, 800.0])
def test_from_epsilon_rejects_bad_epsilon(epsilon):
    """ε ≤ 0, non-finite, or so large that 1/(e^ε+1) underflows: a clear error."""
    with pytest.raises(ValueError, match="epsilon"):
        BinaryRR.from_epsilon(epsilon)


def test_q_bin_ceiling_is_the_last_budget_whose_keep_probability_is_below_1():
    """Q_BIN_MAX_EPSILON: keep < 1 there and 1.0 at the next double; BinaryRR.from_epsilon (and every client
    checked against the ceiling) accepts it and refuses the next double naming epsilon and the exact range."""
    above = math.nextafter(Q_BIN_MAX_EPSILON, math.inf)
    assert q_bin_probabilities(Q_BIN_MAX_EPSILON)[0] < 1.0 == q_bin_probabilities(above)[0]
    assert BinaryRR.from_epsilon(Q_BIN_MAX_EPSILON).p < 1.0
    with pytest.raises(
        ValueError, match=r"^epsilon must be in \[1e-12, 36\.7368\]; got 36\.7368005696771"
    ):
        BinaryRR.from_epsilon(above)


def test_rejects_p_not_above_q():
    """A randomizer with p ≤ q is not randomized response."""
    with pytest.raises(ValueError, match=r"p must be greater than q = 0\.3"):
        BinaryRR(p=0.3, q=0.3)
    with pytest.raises(ValueError, match=r"p must be in \(0, 1\)"):
        BinaryRR(p=1.0, q=0.3)


def test_perturb_and_sample_aggregate_validate_inputs(rng):
    """Non-binary values, malformed counts [n_zeros, n_ones], aggregates above n and non-Generator rngs are refused."""
    rr = BinaryRR.from_epsilon(1.0)
    with pytest.raises(ValueError, match="values must be an array of 0/1 values"):
        rr.perturb([0, 1, 2], rng=rng)
    with pytest.raises(ValueError, match=r"true_counts must be a 1-D array of length 2"):
        rr.sample_aggregate([1, 2, 3], rng=rng)
    with pytest.raises(ValueError, match="true_counts must describe at least one user"):
        rr.sample_aggregate([0, 0], rng=rng)
    with pytest.raises(ValueError, match=r"aggregate must be integers in \[0, 10\]"):
        rr.estimate(11, 10)
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        rr.perturb([0, 1], rng=1)


def test_same_seed_same_reports():
    """Determinism: equal seeds give equal reports."""
    values = np.tile([0, 1], 50)
    a = BinaryRR.from_epsilon(1.0).perturb(values, rng=np.random.default_rng(5))
    b = BinaryRR.from_epsilon(1.0).perturb(values, rng=np.random.default_rng(5))
    assert np.array_equal(a, b)


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
def test_literal_two_coin_client_matches_its_table(rng):
    """The coin-flipping client reports Yes w.p. 3/4 given Yes and 1/4 given No."""
    n = 200_000
    for v, p_yes in ((1, 0.75), (0, 0.25)):
        reports = two_coin_response(np.full(n, v), rng=rng)
        assert_mean_close(reports, p_yes, p_yes * (1 - p_yes))


@pytest.mark.statistical
def test_aggregate_sampler_matches_per_user_reference(rng):
    """sample_aggregate has the law of aggregate(perturb(·)), the number of reported 1s (mean, variance, GOF)."""
    rr = BinaryRR.from_epsilon(1.0)
    n, n_ones, n_draws = 300, 90, 4000
    truth = np.array([n - n_ones, n_ones])
    values = np.r_[np.ones(n_ones, int), np.zeros(n - n_ones, int)]
    per_user = np.array([rr.aggregate(rr.perturb(values, rng=rng)) for _ in range(n_draws)])
    aggregate = rr.sample_aggregate(truth, rng=rng, n_draws=n_draws)
    assert aggregate.shape == (n_draws,)
    mean = n_ones * rr.p + (n - n_ones) * rr.q
    var = n_ones * rr.p * (1 - rr.p) + (n - n_ones) * rr.q * (1 - rr.q)
    pmf = np.convolve(
        stats.binom.pmf(np.arange(n_ones + 1), n_ones, rr.p),
        stats.binom.pmf(np.arange(n - n_ones + 1), n - n_ones, rr.q),
    )
    for counts in (per_user, aggregate):
        assert_mean_close(counts, mean, var)
        assert_variance_close(counts, var)
        assert chisquare_pvalue(counts, pmf) > 1e-3
    assert two_sample_pvalue(per_user, aggregate) > 1e-3


@pytest.mark.statistical
def test_estimator_mean_and_variance_by_simulation(rng):
    """Over 20,000 simulated surveys the estimates average π and have the exact variance."""
    rr = BinaryRR.from_epsilon(0.5)
    n, pi, n_draws = 1000, 0.3, 20_000
    truth = np.array([n - round(pi * n), round(pi * n)])
    ones = rr.sample_aggregate(truth, rng=rng, n_draws=n_draws)
    estimates = rr.estimate_fraction(ones, n)
    var = rr.fraction_variance(pi, n)
    assert_mean_close(estimates, pi, var)
    assert_variance_close(estimates, var)
    counts = rr.estimate(ones, n)  # the contract's estimate: the count of 1s, n times the fraction
    assert np.allclose(counts, n * estimates, rtol=1e-12)
    assert_mean_close(counts, rr.estimand(truth), rr.variance(truth))
    assert rr.variance(truth) == pytest.approx(n**2 * var, rel=1e-12)


def test_q_bin_probabilities_vectorized_and_gap():
    """Arrays of ε give the same p, q as scalars; p − q = tanh(ε/2); bad arrays name epsilon."""
    from ldp_helpers.mechanisms.randomized_response import q_bin_gap, q_bin_probabilities

    eps = np.array([1e-6, 0.5, 3.0, 50.0, 800.0])
    p, q = q_bin_probabilities(eps)
    for i, e in enumerate(eps):
        assert (p[i], q[i]) == q_bin_probabilities(float(e))
    assert np.allclose(q_bin_gap(eps), np.tanh(eps / 2), rtol=1e-15)
    assert q_bin_gap(1e-6) == pytest.approx(5e-7, rel=1e-9)  # no cancellation
    with pytest.raises(ValueError, match="epsilon"):
        q_bin_probabilities(np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="epsilon"):
        q_bin_probabilities(np.array([1.0, np.nan]))


def test_mechanisms_at_the_smallest_budget_run_q_bin_at_their_derived_budget():
    """SUE and DBitFlip spend ε/2 per bit: at ε = MIN_EPSILON that is below MIN_EPSILON, and Q_Bin
    must still serve them (one derivation of p, q for every budget > 0), not refuse a legal ε."""
    from ldp_helpers._validation import MIN_EPSILON
    from ldp_helpers.mechanisms.dbitflip import DBitFlip
    from ldp_helpers.mechanisms.randomized_response import q_bin_gap, q_bin_probabilities
    from ldp_helpers.mechanisms.unary_encoding import SUE

    for mechanism in (SUE(epsilon=MIN_EPSILON, d=4), DBitFlip(epsilon=MIN_EPSILON, d=4)):
        # the table's log-ratio of probabilities near 1/2 carries ~1e-16/1e-12 relative rounding
        assert 0.0 < mechanism.privacy_loss() <= MIN_EPSILON * (1 + 1e-3)
    p, q = q_bin_probabilities(MIN_EPSILON / 2)
    assert p > q and q_bin_gap(MIN_EPSILON / 2) == pytest.approx(MIN_EPSILON / 4, rel=1e-9)
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, inf\); got 0.0"):
        q_bin_probabilities(0.0)


@pytest.mark.parametrize("epsilon", [1e-12, 1e-6, 1.0, 30.0])
def test_the_epsilon_of_q_bin_is_read_back_from_its_p_and_q_to_1e_15(epsilon):
    """BinaryRR.epsilon from the stored p and q (log1p's of p − q; ln(p/q) lost 1e-4 at ε = 1e-12)."""
    import mpmath

    rr = BinaryRR.from_epsilon(epsilon)
    with mpmath.workdps(50):
        P, Q = mpmath.mpf(rr.p), mpmath.mpf(rr.q)
        exact = float(max(mpmath.log(P / Q), mpmath.log((1 - Q) / (1 - P))))
    assert rr.epsilon == pytest.approx(exact, rel=1e-15, abs=0.0)
