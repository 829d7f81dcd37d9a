"""GRR (direct encoding): exact table, estimator, variance, and the two simulation paths."""

import math

import numpy as np
import pytest
from stat_checks import (
    assert_mean_close,
    assert_support_counts_match,
    assert_variance_close,
    binomial_sum_pmf,
    sample_both_paths,
    support_count_variance,
    two_sample_pvalue,
)

from ldp_helpers.mechanisms import grr as grr_module
from ldp_helpers.mechanisms import hadamard
from ldp_helpers.mechanisms.grr import GRR, grr_probabilities
from ldp_helpers.mechanisms.privacy import max_privacy_loss

# ---------------------------------------------------------------- exact


@pytest.mark.parametrize("epsilon", [1e-3, 0.5, 1.0, 2.0, 5.0, 20.0])
@pytest.mark.parametrize("d", [2, 3, 43, 1024])
def test_table_is_exactly_epsilon_ldp(epsilon, d):
    """The d×d output table has rows summing to 1 and privacy loss exactly ε."""
    grr = GRR(epsilon, d)
    table = grr.output_table()
    assert table.shape == (d, d)
    assert np.allclose(table.sum(axis=1), 1.0, atol=1e-12)
    assert max_privacy_loss(table) == pytest.approx(epsilon, rel=1e-9)


def test_p_and_q_match_the_paper_formulas():
    """p = e^ε/(e^ε+d−1), q = 1/(e^ε+d−1); at ε=2, d=3: p ≈ 0.787 (thesis 004 §2.2.1 prints 0.737), q ≈ 0.107."""
    grr = GRR(2.0, 3)
    assert grr.p == pytest.approx(math.exp(2) / (math.exp(2) + 2), rel=1e-14)
    assert grr.q == pytest.approx(1 / (math.exp(2) + 2), rel=1e-14)
    assert (round(grr.p, 3), round(grr.q, 3)) == (0.787, 0.107)
    assert grr.p + 2 * grr.q == pytest.approx(
        1.0, abs=1e-15
    )  # 0.737 + 2·0.107 = 0.951: the thesis' p is a slip


@pytest.mark.parametrize("d", [2, 7, 100])
def test_mixture_identity_behind_the_sampler(d):
    """1 − p + q = d·q: the row 'p on v, q elsewhere' is 'keep w.p. p − q, else uniform over d'."""
    grr = GRR(1.3, d)
    assert 1 - grr.p + grr.q == pytest.approx(d * grr.q, rel=1e-12)
    mixture = (grr.p - grr.q) * np.eye(d) + grr.q * d * np.full((d, d), 1 / d)
    assert np.allclose(mixture, grr.output_table(), atol=1e-15)


def test_estimator_is_exactly_unbiased_with_exact_variance():
    """E[ĉ(i)] = f_i and Var[ĉ(i)] = count_variance, summed over the exact pmf of C(i)."""
    grr = GRR(0.8, 4)
    true_counts = np.array([13, 0, 5, 22])
    n = int(true_counts.sum())
    variances = grr.variance(true_counts)
    for i, f in enumerate(true_counts):
        pmf = binomial_sum_pmf(int(f), n, grr.p, grr.q)
        support = np.arange(n + 1)
        estimates = np.array(
            [grr.estimate([c, 0, 0, 0], n)[0] for c in support]
        )  # ĉ depends on C(i), n only
        mean = np.sum(pmf * estimates)
        assert mean == pytest.approx(f, abs=1e-9)
        assert np.sum(pmf * (estimates - mean) ** 2) == pytest.approx(variances[i], rel=1e-9)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 4.0])
@pytest.mark.parametrize("d", [2, 43, 1024])
def test_approx_variance_is_wangs_closed_form(epsilon, d):
    """approx_variance(n) = n(e^ε+d−2)/(e^ε−1)² (Wang et al.), the exact variance at f = 0."""
    grr = GRR(epsilon, d)
    n = 49_742
    e = math.exp(epsilon)
    assert grr.approx_variance(n) == pytest.approx(n * (e + d - 2) / (e - 1) ** 2, rel=1e-10)
    counts = np.r_[0, n, np.zeros(d - 2, int)]
    assert grr.variance(counts)[0] == pytest.approx(grr.approx_variance(n), rel=1e-12)
    if (
        d > 2
    ):  # a frequent value has a larger variance than the approximation (equal when d = 2: p(1−p) = q(1−q))
        assert grr.variance(counts)[1] > grr.approx_variance(n) * (1 + 1e-9)


def test_grr_probabilities_take_a_domain_size():
    """grr_probabilities(ε, d) is GRR's (p, q) at an integer d ≥ 2; a real d such as 2.5 is refused (issue 39 item 11:
    local hashing's real g writes its p* itself, see approx_variance_for_hash_range)."""
    assert grr_probabilities(1.0, 7) == (GRR(1.0, 7).p, GRR(1.0, 7).q)
    with pytest.raises(ValueError, match=r"^d must be an integer; got 2.5"):
        grr_probabilities(1.0, 2.5)
    with pytest.raises(ValueError, match=r"^d must be an integer in \[2, inf\]; got 1"):
        grr_probabilities(1.0, 1)


def test_output_table_refuses_huge_domains():
    """A d × d table for d = 10^6 (7 TiB) is refused with a ValueError, not a MemoryError."""
    with pytest.raises(ValueError, match=r"d must be an integer in \[2, 4096\]; got 1000000"):
        GRR(1.0, 10**6).output_table()


def test_support_counts_counts_reports():
    """C(i) is the number of reports naming i."""
    assert np.array_equal(GRR(1.0, 4).aggregate([0, 3, 3, 1, 3]), [1, 1, 0, 3])


def test_same_seed_same_reports_and_counts():
    """Determinism: equal seeds give equal reports and equal aggregate draws."""
    grr = GRR(1.0, 5)
    values = np.arange(100) % 5
    assert np.array_equal(
        grr.perturb(values, rng=np.random.default_rng(3)),
        grr.perturb(values, rng=np.random.default_rng(3)),
    )
    f = np.bincount(values)
    assert np.array_equal(
        grr.sample_aggregate(f, rng=np.random.default_rng(3)),
        grr.sample_aggregate(f, rng=np.random.default_rng(3)),
    )


@pytest.mark.parametrize("epsilon", [0, -1.0, math.inf, math.nan, "1", 800.0])
def test_rejects_bad_epsilon(epsilon):
    """ε ≤ 0, non-finite, not a number, or so large that q underflows: ValueError naming epsilon."""
    with pytest.raises(ValueError, match="epsilon"):
        GRR(epsilon, 4)


@pytest.mark.parametrize("d", [1, 0, -3, 2.0, True])
def test_rejects_bad_domain_size(d):
    """d must be an integer ≥ 2."""
    with pytest.raises(ValueError, match=r"d must be an integer"):
        GRR(1.0, d)


def test_rejects_malformed_inputs(rng):
    """Out-of-domain or empty values, wrong-length or all-zero counts, counts above n: clear errors."""
    grr = GRR(1.0, 4)
    with pytest.raises(ValueError, match=r"values must be integers in \[0, 4\)"):
        grr.perturb([0, 4], rng=rng)
    with pytest.raises(ValueError, match=r"values must be integers in \[0, 4\)"):
        grr.perturb([-1, 2], rng=rng)
    with pytest.raises(ValueError, match="values must be a non-empty array"):
        grr.perturb([], rng=rng)
    with pytest.raises(ValueError, match="values must be an array of integers"):
        grr.perturb([0.5, 1.0], rng=rng)
    with pytest.raises(ValueError, match="reports must be"):
        grr.aggregate([5])
    with pytest.raises(ValueError, match="true_counts must be a 1-D array of length 4"):
        grr.sample_aggregate([1, 2, 3], rng=rng)
    with pytest.raises(ValueError, match="true_counts must describe at least one user"):
        grr.sample_aggregate([0, 0, 0, 0], rng=rng)
    with pytest.raises(ValueError, match="true_counts must be a 1-D array of non-negative"):
        grr.variance([1, -1, 0, 0])
    with pytest.raises(ValueError, match=r"aggregate must be integers in \[0, 3\]"):
        grr.estimate([4, 0, 0, 0], 3)
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, inf\]"):
        grr.estimate([0, 0, 0, 0], 0)
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        grr.sample_aggregate([1, 0, 0, 0], rng=0)


def test_aggregate_sampler_handles_1e8_users(rng):
    """n = 10^8 users are aggregated exactly; the counts sum to n and the estimate is accurate."""
    grr = GRR(1.0, 10)
    f = np.full(10, 10**7)
    counts = grr.sample_aggregate(f, rng=rng)
    assert counts.sum() == 10**8
    assert np.all(np.abs(grr.estimate(counts, 10**8) - f) < 6 * np.sqrt(grr.variance(f)))


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
def test_aggregate_sampler_matches_per_user_reference(rng):
    """sample_aggregate has the law of aggregate(perturb(·)): marginals, GOF, and a joint contrast."""
    grr = GRR(1.0, 5)
    true_counts = np.array([120, 60, 0, 15, 105])
    values = np.repeat(np.arange(5), true_counts)
    n_draws = 3000
    per_user = np.array([grr.aggregate(grr.perturb(values, rng=rng)) for _ in range(n_draws)])
    aggregate = np.array([grr.sample_aggregate(true_counts, rng=rng) for _ in range(n_draws)])
    assert np.all(per_user.sum(axis=1) == 300) and np.all(aggregate.sum(axis=1) == 300)
    assert_support_counts_match(grr, per_user, aggregate, true_counts, coordinates=(0, 2, 3))
    # joint law: the contrast C_0 − C_4 (sensitive to the negative covariance of GRR counts)
    assert (
        two_sample_pvalue(
            per_user[:, 0] - per_user[:, 4] + 300, aggregate[:, 0] - aggregate[:, 4] + 300
        )
        > 1e-3
    )
    # each user's two indicators are mutually exclusive: Cov = −Σ_u Pr_u[0] Pr_u[4]
    f0, f4, n = true_counts[0], true_counts[4], 300
    cov = -((f0 + f4) * grr.p * grr.q + (n - f0 - f4) * grr.q**2)
    var0, var4 = (support_count_variance(f, n, grr.p, grr.q) for f in (f0, f4))
    contrast_var = var0 + var4 - 2 * cov
    for sample in (per_user, aggregate):
        assert_variance_close(sample[:, 0] - sample[:, 4], contrast_var)


def _assert_spread_matches_per_user(grr, true_counts, per_user, aggregate):
    """Marginals of cells 0, 1, 5 and the variance of C_0 − C_1 (siblings of the first halving)."""
    n = int(true_counts.sum())
    assert np.all(aggregate.sum(axis=1) == n)
    assert_support_counts_match(grr, per_user, aggregate, true_counts, coordinates=(0, 1, 5))
    f0, f1 = true_counts[0], true_counts[1]
    cov = -((f0 + f1) * grr.p * grr.q + (n - f0 - f1) * grr.q**2)
    var0, var1 = (support_count_variance(f, n, grr.p, grr.q) for f in (f0, f1))
    assert_variance_close(aggregate[:, 0] - aggregate[:, 1], var0 + var1 - 2 * cov)


@pytest.mark.statistical
def test_spread_by_fair_halvings_matches_per_user_reference(monkeypatch):
    """d = 256, 3,000 surveys of 2,400 users (9.4 per cell): the users who do not keep their value spread
    by fair halvings (hadamard._equal_multinomial), with the per-user law; a coin of ½ − 0.03 is caught."""
    grr, true_counts = GRR(1.0, 256), np.arange(256) % 20
    n_draws = 3000
    assert true_counts.sum() <= grr_module.SPREAD_HALVINGS_MAX_MEAN * 256
    assert n_draws * 256 >= hadamard.EQUAL_SPLIT_MIN_CELLS  # the halvings' path is the one tested
    per_user, aggregate = sample_both_paths(grr, true_counts, n_draws, np.random.default_rng(31))
    _assert_spread_matches_per_user(grr, true_counts, per_user, aggregate)
    monkeypatch.setattr(hadamard, "_fair_binomial", lambda c, rng: rng.binomial(c, 0.47))
    wrong = grr.sample_aggregate(true_counts, rng=np.random.default_rng(32), n_draws=n_draws)
    with pytest.raises(AssertionError):
        _assert_spread_matches_per_user(grr, true_counts, per_user, wrong)


@pytest.mark.statistical
def test_estimates_are_unbiased_with_exact_variance(rng):
    """Over 20,000 aggregate draws (n = 49,742, d = 43) the estimates average f with the exact variance."""
    grr = GRR(2.0, 43)
    true_counts = rng.multinomial(49_742, np.linspace(1, 3, 43) / np.linspace(1, 3, 43).sum())
    draws = grr.estimate(grr.sample_aggregate(true_counts, rng=rng, n_draws=20_000), 49_742)
    variances = grr.variance(true_counts)
    for i in (0, 21, 42):
        assert_mean_close(draws[:, i], true_counts[i], variances[i])
        assert_variance_close(draws[:, i], variances[i])


@pytest.mark.parametrize(
    "epsilon, ell", [(1e-12, 10), (1e-6, 3), (1.0, 5), (10.0, 100), (700.0, 2)]
)
def test_amplified_grr_epsilon_is_within_1e_15_of_mpmath(epsilon, ell):
    """ε' = ln(ℓ(e^ε − 1) + 1): written ε + ln(ℓ − (ℓ − 1)e^{−ε}) it lost 1e-4 at ε = 1e-12 (a log of a number
    near 1); as ε + log1p(−(ℓ − 1)·expm1(−ε)) it is accurate at both ends."""
    import mpmath

    with mpmath.workdps(50):
        exact = float(mpmath.log(ell * mpmath.expm1(mpmath.mpf(epsilon)) + 1))
    assert grr_module.amplified_grr_epsilon(epsilon, ell) == pytest.approx(
        exact, rel=1e-15, abs=0.0
    )
