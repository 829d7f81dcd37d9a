"""ADP and multidimensional collection (SPL, SMP, RS+FD): exact whole-report privacy, estimators, exact variances."""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from ldp_helpers.bounds.wang2017 import de_threshold
from ldp_helpers.mechanisms.adaptive import ADP
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.multidimensional import SPL
from ldp_helpers.mechanisms.rs_fd import RSFD
from ldp_helpers.mechanisms.smp import SMP, _inverse_binomial_moment, _sampling_factor
from ldp_helpers.mechanisms.unary_encoding import OUE

TRUTH = np.array([[12, 3], [0, 7], [5, 9]])


# ------------------------------------------------------------------------------------------- ADP


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 2.0, 4.0])
def test_adp_chooses_grr_below_wangs_threshold(epsilon):
    """ADP runs GRR exactly for d − 2 ≤ 3e^ε (d < 3e^ε + 2, up to the comparison's rounding) and OUE beyond."""
    threshold = de_threshold(epsilon)
    for d in range(2, int(threshold) + 40):
        chosen = ADP(epsilon, d).chosen
        if d < threshold - 1e-6:
            assert isinstance(chosen, GRR), (epsilon, d)
        elif d > threshold + 1e-6:
            assert isinstance(chosen, OUE), (epsilon, d)


def test_adp_is_the_chosen_oracle():
    for epsilon, d in ((1.0, 5), (1.0, 40)):
        adp, chosen = ADP(epsilon, d), ADP(epsilon, d).chosen
        assert (adp.p, adp.q) == (chosen.p, chosen.q)
        assert (
            adp.privacy_loss() == pytest.approx(epsilon, rel=1e-9)
            if d <= 12 or isinstance(chosen, GRR)
            else True
        )
        counts = np.arange(d) + 1
        np.testing.assert_array_equal(adp.variance(counts), chosen.variance(counts))
    assert ADP(1.0, 40).report_bits == 40 and ADP(1.0, 5).report_bits == 3


@pytest.mark.statistical
def test_adp_oue_branch_sampler_matches_its_client():
    adp, truth = ADP(0.5, 9), np.array([30, 10, 5, 0, 15, 3, 0, 9, 2])
    assert isinstance(adp.chosen, OUE)
    rng = np.random.default_rng(2)
    fast = adp.estimate(adp.sample_aggregate(truth, rng=rng, n_draws=20_000), truth.sum())
    slow = np.array(
        [
            adp.estimate(adp.aggregate(adp.perturb(adp.expand(truth), rng=rng)), truth.sum())
            for _ in range(3000)
        ]
    )
    for sample in (fast, slow):
        assert np.all(
            np.abs(sample.mean(0) - truth) < 5 * np.sqrt(adp.variance(truth) / sample.shape[0])
        )


# ------------------------------------------------------------------------------------------- privacy of the tuples


@pytest.mark.parametrize(
    "mech",
    [
        SPL(1.2, (3, 2), "grr"),
        SPL(0.9, (2, 2, 3), "oue"),
        SMP(1.2, (3, 2), "adp"),
        SMP(0.7, (2, 3), "sue"),
    ],
    ids=repr,
)
def test_spl_and_smp_cost_epsilon_for_the_whole_tuple(mech):
    assert mech.privacy_loss() == pytest.approx(mech.epsilon, rel=1e-9)


@pytest.mark.parametrize("oracle", ["grr", "oue_z", "oue_r"])
@pytest.mark.parametrize("sizes", [(2, 2), (3, 3), (2, 2, 2)])
def test_rs_fd_costs_epsilon_prime_for_the_tuple_and_the_papers_epsilon_per_attribute_on_equal_domains(
    oracle, sizes
):
    """Whole tuple: ε' = ln(d(e^ε − 1) + 1), the oracle's budget.  Tuples differing in one attribute: the paper's ε
    for GRR and OUE-z on equal domains; more than ε for OUE-r once k ≥ 3 (its fake bits can outweigh the real one)."""
    mech = RSFD.from_attribute_epsilon(1.0, sizes, oracle)
    d = len(sizes)
    assert mech.epsilon == pytest.approx(math.log(d * (math.e - 1) + 1), rel=1e-12)
    assert mech.privacy_loss() == pytest.approx(mech.epsilon, rel=1e-9)
    assert mech.epsilon_attribute == pytest.approx(1.0, rel=1e-12)
    if oracle == "oue_r" and max(sizes) >= 3:
        assert 1.0 + 1e-6 < mech.attribute_privacy_loss() < mech.epsilon
    else:
        assert mech.attribute_privacy_loss() == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("oracle, above", [("grr", True), ("oue_r", True), ("oue_z", False)])
def test_rs_fd_attribute_loss_on_unequal_domains(oracle, above):
    """With k = (3, 2) the attribute-level loss exceeds the paper's ε for GRR and OUE-r fake data, not for OUE-z.

    GRR: tuples differing in the 3-valued attribute reach (3p₁ + 2q₂)/(3q₁ + 2q₂) > e^ε, since the fake data
    of the 2-valued attribute weighs 1/2 against 1/3 (exact tables; found here, see the module docstring).
    """
    mech = RSFD.from_attribute_epsilon(1.0, (3, 2), oracle)
    loss = mech.attribute_privacy_loss()
    assert (loss > 1.0 + 1e-6) if above else loss == pytest.approx(1.0, rel=1e-9)
    if oracle == "grr":
        (o1, o2), e = mech.oracles, math.exp(mech.epsilon)
        assert o1.p / o1.q == pytest.approx(e) and loss == pytest.approx(
            math.log((3 * o1.p + 2 * o2.q) / (3 * o1.q + 2 * o2.q))
        )


def test_attribute_loss_of_spl_and_smp():
    """SPL's attribute-level loss is ε/d (one attribute's report), SMP's ε."""
    assert SPL(1.2, (3, 2), "grr").attribute_privacy_loss() == pytest.approx(0.6, rel=1e-9)
    assert SMP(1.2, (3, 2), "grr").attribute_privacy_loss() == pytest.approx(1.2, rel=1e-9)


# ------------------------------------------------------------------------------------------- estimators, variances


@pytest.mark.parametrize("prob", [0.5, 0.01, 1e-4])
def test_inverse_binomial_moment_beyond_the_full_sum_matches_it(prob):
    """E[1/M; M ≥ 1] above 2·10⁶ users (a short sum for n·prob < 1000, else the integral) equals the sum
    over every m to 1e-13; at 2^62 users it is 1/(n p)·(1 + (1 − p)/(n p) + …), in microseconds (before:
    the quantile window held half of the n terms — 97 s at n = 10⁹ — then a MemoryError or scipy's NaN)."""
    n = 3 * 10**6
    m = np.arange(1, n + 1)
    assert _inverse_binomial_moment(n, prob) == pytest.approx(
        float(np.sum(stats.binom.pmf(m, n, prob) / m)), rel=1e-13
    )
    huge = 2**62
    mean = huge * prob
    assert _inverse_binomial_moment(huge, prob) == pytest.approx(
        (1 + (1 - prob) / mean) / mean, rel=1e-13
    )


def test_smp_variance_at_a_huge_population_is_finite_and_near_its_large_n_form():
    """n = 2^60 users, d = 2 attributes: n_j ≈ n/2, so Var[ĉ(v)] ≈ 2n·channel + n·share(1 − share) to O(1/n)
    (before: a MemoryError from the m-window of the moment)."""
    smp, n = SMP(1.0, (2, 3), "grr"), 2**60
    counts = np.zeros((2, 3), dtype=np.int64)
    counts[0, 0], counts[1, 2] = n // 2, n // 2
    o = smp.oracles[0]  # value 0 of attribute 0: share 1/2
    channel = (0.5 * o.p * (1 - o.p) + 0.5 * o.q * (1 - o.q)) / (o.p - o.q) ** 2
    variance = smp.variance(counts)
    assert np.all(np.isfinite(variance))
    assert variance[0] == pytest.approx(2 * n * channel + n / 4, rel=1e-9)


def test_smp_variance_matches_the_exact_enumeration_for_a_tiny_population():
    """SMP's closed form (E[1/n_j], hypergeometric sampling) against the exact law enumerated over every pick."""
    mech, truth = SMP(1.0, (2, 2), "grr"), np.array([[2, 1], [0, 1]])
    rows = mech.expand(truth)
    n, grr = rows.shape[0], mech.oracles
    moments = np.zeros((2, 4))
    for picks in itertools.product(
        range(2), repeat=n
    ):  # every user's sampled attribute, probability 2^-n
        mean, second = [], []
        for j in range(2):
            users = [u for u in range(n) if picks[u] == j]
            if not users:
                mean.append(np.zeros(2)), second.append(np.zeros(2))
                continue
            f = np.bincount(rows[users, j], minlength=2)
            scale = n / len(
                users
            )  # ĉ = (n/n_j)(C − n_j q)/(p − q): its mean and variance given the pick
            mean.append(scale * f)
            second.append(scale**2 * grr[j].variance(f) + (scale * f) ** 2)
        moments[0] += np.concatenate(mean) / 2**n
        moments[1] += np.concatenate(second) / 2**n
    np.testing.assert_allclose(mech.expected_estimate(truth), moments[0], rtol=1e-12)
    np.testing.assert_allclose(mech.variance(truth), moments[1] - moments[0] ** 2, rtol=1e-10)


def test_rs_fd_estimators_invert_the_mean_support():
    """ĉ = d(C − n a₀)/(p* − q*) returns the true marginals from the exact mean support counts, for every variant."""
    for oracle in ("grr", "oue_z", "oue_r"):
        mech = RSFD(1.5, (3, 2), oracle)
        n, d = TRUTH.sum(), 2
        marginals = [TRUTH.sum(axis=1), TRUTH.sum(axis=0)]
        mean = np.concatenate(
            [
                f * (o.p - o.q) / d + n * mech._support_other(j)
                for j, (o, f) in enumerate(zip(mech.oracles, marginals))
            ]
        )
        scale = 10**9  # the mean counts of 10⁹ copies of the population, rounded to integers
        np.testing.assert_allclose(
            mech.estimate(np.rint(mean * scale).astype(np.int64), n * scale) / scale,
            np.concatenate(marginals),
            atol=1e-6,
        )


def test_bad_multidimensional_input_is_refused():
    with pytest.raises(ValueError, match="domain_sizes"):
        SPL(1.0, (3,), "grr")
    with pytest.raises(ValueError, match="oracle"):
        RSFD(1.0, (3, 2), "oue")
    with pytest.raises(ValueError, match="truth"):
        SMP(1.0, (3, 2)).variance(np.zeros((3, 2), int))
    with pytest.raises(ValueError, match=r"values\[:, 1\]"):
        SPL(1.0, (3, 2)).perturb(np.array([[0, 2]]), rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="aggregate"):
        SMP(1.0, (3, 2)).estimate(np.array([1, 1, 0, 0, 0, 0, 0]), 3)


@pytest.mark.parametrize("prob", [1.0, 0.5, 1 / 7, 1e-3])
def test_inverse_binomial_moment_is_the_plain_sum_at_small_n_and_one_form_at_prob_one(prob):
    """E[1/M; M ≥ 1] equals the 50-digit Σ_m Pr[M = m]/m to 1e-12 at small n (what Glance's variance kept as
    its own N-term sum), and is 1/n at prob = 1 beyond 2·10⁶ users (Glance with T = 1), where the integral's
    log1p(−1) raised "math domain error"."""
    with mp.workdps(50):
        for n in (1, 2, 5, 37, 400):
            plain = mp.fsum(
                mp.binomial(n, m) * mp.mpf(prob) ** m * (1 - mp.mpf(prob)) ** (n - m) / m
                for m in range(1, n + 1)
            )
            assert _inverse_binomial_moment(n, prob) == pytest.approx(
                float(plain), rel=1e-12, abs=0
            )
    if prob == 1.0:
        assert _inverse_binomial_moment(3 * 10**6, 1.0) == pytest.approx(1 / 3e6, rel=1e-12, abs=0)


@pytest.mark.parametrize("prob", [1 - 1e-6, 0.5, 1 / 7, 1e-3])
def test_sampling_factor_is_the_plain_sum_without_cancellation(prob):
    """Σ_{m≥1} Pr[M = m](n − m)/(m(n − 1)), the share's sampling factor of SMP's and Glance's variances,
    equals its 50-digit sum to 1e-13 (SMP's old (n·E[1/M] − Pr[M ≥ 1])/(n − 1) was 2e-11 to 7e-11 off
    at prob = 1 − 10⁻⁶ by cancellation), and is 0 for one user."""
    with mp.workdps(50):
        for n in (2, 5, 37, 400):
            plain = mp.fsum(
                mp.binomial(n, m)
                * mp.mpf(prob) ** m
                * (1 - mp.mpf(prob)) ** (n - m)
                * (n - m)
                / (m * (n - 1))
                for m in range(1, n + 1)
            )
            assert _sampling_factor(n, prob) == pytest.approx(float(plain), rel=1e-13, abs=0)
    assert _sampling_factor(1, prob) == 0.0
