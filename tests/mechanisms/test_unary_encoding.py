"""SUE and OUE: exact whole-vector tables, estimator, variance, per-user client and sampler."""

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
)

from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.randomized_response import q_bin_probabilities
from ldp_helpers.mechanisms.unary_encoding import OUE, SUE, unary_loss, unary_output_table

EPSILONS = [1e-3, 0.5, 1.0, 2.0, 5.0, 20.0]

# ---------------------------------------------------------------- exact


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("d", [2, 3, 6])
@pytest.mark.parametrize("cls", [SUE, OUE])
def test_whole_vector_table_is_exactly_epsilon_ldp(cls, epsilon, d):
    """The d × 2^d table of whole reports is a distribution per value with privacy loss exactly ε."""
    table = cls(epsilon, d).output_table()
    assert table.shape == (d, 2**d)
    assert np.allclose(table.sum(axis=1), 1.0, atol=1e-12)
    assert max_privacy_loss(table) == pytest.approx(epsilon, rel=1e-8)


def test_sue_whole_report_loss_is_epsilon():
    """SUE(epsilon=1, d=8): the privacy loss of its whole-report (2^8-column) table is exactly 1, not the per-bit 1/2."""
    assert SUE(epsilon=1, d=8).privacy_loss() == pytest.approx(
        1, rel=1e-12
    )  # exact table; rounding only


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("cls", [SUE, OUE])
def test_privacy_loss_is_the_sum_of_the_two_bit_ratios(cls, epsilon):
    """privacy_loss() is the whole-vector ε = ln(p/q) + ln((1−q)/(1−p)), for SUE and OUE alike."""
    oracle = cls(epsilon, 4)
    assert oracle.privacy_loss() == pytest.approx(
        math.log(oracle.p / oracle.q) + math.log((1 - oracle.q) / (1 - oracle.p)), rel=1e-9
    )
    assert oracle.privacy_loss() == pytest.approx(epsilon, rel=1e-8)


@pytest.mark.parametrize(
    ("p", "q"),
    [(0.5, 1 / 21), (0.7, 0.3), (0.9, 0.6), (0.5 + 0.5 / (math.e + 1), 1 / (math.e + 1))],
)
def test_unary_loss_is_the_loss_of_the_whole_report_table(p, q):
    """unary_loss(p, q) is the largest log-ratio of the 2^3-column table (the broken pure-ldp client's
    p' = p + (1 − p)q included), and swapping p and q negates it: a sign, not an absolute value."""
    assert unary_loss(p, q) == pytest.approx(
        max_privacy_loss(unary_output_table(p, q, 3)), rel=1e-12
    )
    assert unary_loss(q, p) == pytest.approx(-unary_loss(p, q), rel=1e-15) and unary_loss(q, p) < 0


def test_unary_loss_at_certain_bits():
    """p = q carries nothing (0); a certain bit (p = 1 or q = 0) is unbounded, also against the table."""
    assert unary_loss(0.4, 0.4) == 0.0 and unary_loss(1.0, 1.0) == 0.0
    assert unary_loss(1.0, 0.3) == unary_loss(0.7, 0.0) == math.inf
    assert unary_loss(0.0, 0.3) == unary_loss(0.7, 1.0) == -math.inf
    assert max_privacy_loss(unary_output_table(0.7, 0.0, 3)) == math.inf


def test_vector_table_matches_a_hand_computed_entry():
    """For d = 3, value 0, report (1, 0, 1) has probability p·(1−q)·q."""
    oue = OUE(1.0, 3)
    assert oue.output_table()[0, 0b101] == pytest.approx(oue.p * (1 - oue.q) * oue.q, rel=1e-14)


def test_p_and_q_match_the_paper_formulas():
    """OUE: p = 1/2, q = 1/(e^ε+1) (thesis: 0.119 at ε = 2); SUE: p = e^{ε/2}/(e^{ε/2}+1) = 1 − q."""
    oue, sue = OUE(2.0, 3), SUE(2.0, 3)
    assert oue.p == 0.5 and oue.q == pytest.approx(1 / (math.exp(2) + 1), rel=1e-14)
    assert round(oue.q, 3) == 0.119
    assert sue.p == pytest.approx(
        math.e / (math.e + 1), rel=1e-14
    ) and sue.p + sue.q == pytest.approx(1, abs=1e-15)


@pytest.mark.parametrize("epsilon", [1e-3, 1.0, 30.0])
def test_bits_are_q_bin(epsilon):
    """SUE's (p, q) is Q_Bin at ε/2 and OUE's q is Q_Bin's flip probability at ε (one derivation)."""
    assert (SUE(epsilon, 4).p, SUE(epsilon, 4).q) == q_bin_probabilities(epsilon / 2)
    assert OUE(epsilon, 4).q == q_bin_probabilities(epsilon)[1]


@pytest.mark.parametrize("cls", [SUE, OUE])
def test_estimator_is_exactly_unbiased_with_exact_variance(cls):
    """E[ĉ(i)] = f_i and Var[ĉ(i)] = count_variance under the exact pmf of C(i)."""
    oracle = cls(0.9, 3)
    true_counts = np.array([17, 4, 9])
    n = int(true_counts.sum())
    variances = oracle.variance(true_counts)
    estimates = np.array([oracle.estimate([c, 0, 0], n)[0] for c in range(n + 1)])
    for i, f in enumerate(true_counts):
        pmf = binomial_sum_pmf(int(f), n, oracle.p, oracle.q)
        mean = np.sum(pmf * estimates)
        assert mean == pytest.approx(f, abs=1e-9)
        assert np.sum(pmf * (estimates - mean) ** 2) == pytest.approx(variances[i], rel=1e-9)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 4.0])
def test_approx_variances_are_wangs_closed_forms(epsilon):
    """OUE ≈ 4n e^ε/(e^ε−1)², SUE ≈ n e^{ε/2}/(e^{ε/2}−1)² (Wang et al.'s f = 0 approximation)."""
    n, e = 10**6, math.exp(epsilon)
    assert OUE(epsilon, 8).approx_variance(n) == pytest.approx(4 * n * e / (e - 1) ** 2, rel=1e-10)
    assert SUE(epsilon, 8).approx_variance(n) == pytest.approx(
        n * math.sqrt(e) / (math.sqrt(e) - 1) ** 2, rel=1e-10
    )


def test_oue_approximation_is_off_for_frequent_values_at_large_epsilon():
    """With f/n = 1/2 the exact OUE variance is ≈ 1 + (f/n)(e^ε/4 − 1) times the approximation."""
    oue = OUE(8.0, 2)
    n = 1000
    ratio = oue.variance([n // 2, n // 2])[0] / oue.approx_variance(n)
    expected = 1 + 0.5 * (oue.p * (1 - oue.p) / (oue.q * (1 - oue.q)) - 1)
    assert ratio == pytest.approx(expected, rel=1e-12)
    assert ratio > 300  # e^8/8 ≈ 373


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, bool, np.int64, float])
def test_aggregate_sums_any_bit_dtype(dtype):
    """The column sums are exact whatever the dtype of the 0/1 reports (1,000 rows, 16 columns)."""
    bits = (np.random.default_rng(2).random((1_000, 16)) < 0.7).astype(dtype)
    bits[:, 3] = 1
    assert np.array_equal(OUE(1.0, 16).aggregate(bits), bits.astype(np.int64).sum(axis=0))


@pytest.mark.parametrize("bad", [2, -1])
def test_aggregate_refuses_values_other_than_bits(bad):
    """A 2 or a −1 anywhere in the reports is refused by name, not summed."""
    bits = np.zeros((300, 8), dtype=np.int8)
    bits[299, 5] = bad
    with pytest.raises(ValueError, match="reports must be an array of 0/1 values"):
        OUE(1.0, 8).aggregate(bits)


def test_aggregate_counts_bits():
    """C(i) is the number of reports with bit i set."""
    assert np.array_equal(OUE(1.0, 3).aggregate([[1, 0, 1], [0, 0, 1]]), [1, 0, 2])


def test_perturb_shape_and_determinism():
    """Reports are (n, d) 0/1 arrays; equal seeds give equal reports (also across the block size)."""
    oue = OUE(1.0, 3)
    values = np.arange(70_000) % 3
    a = oue.perturb(values, rng=np.random.default_rng(9))
    assert a.shape == (70_000, 3) and set(np.unique(a)) <= {0, 1}
    assert np.array_equal(a, oue.perturb(values, rng=np.random.default_rng(9)))


@pytest.mark.parametrize("cls", [SUE, OUE])
@pytest.mark.parametrize("epsilon", [0, -0.5, math.nan, math.inf, None])
def test_rejects_bad_epsilon(cls, epsilon):
    """ε ≤ 0 or non-finite: ValueError naming epsilon."""
    with pytest.raises(ValueError, match="epsilon"):
        cls(epsilon, 4)


def test_rejects_epsilon_beyond_double_precision():
    """SUE's p rounds to 1 beyond ε ≈ 74 and OUE's q underflows beyond ε ≈ 745: refused, not silently wrong."""
    with pytest.raises(
        ValueError, match=r"epsilon must be small enough for SUE .*use a smaller epsilon; got 80.0"
    ):
        SUE(80.0, 4)
    with pytest.raises(
        ValueError, match=r"epsilon must be small enough for OUE .*use a smaller epsilon; got 800.0"
    ):
        OUE(800.0, 4)
    with pytest.raises(ValueError, match=r"epsilon must be in \[1e-12, inf\); got 1e-17"):
        OUE(1e-17, 4)  # issue 27: this was blamed on a too large epsilon


def test_rejects_malformed_inputs(rng):
    """d < 2, out-of-domain values, wrong report shapes, non-bits, wrong-length counts: clear errors."""
    with pytest.raises(ValueError, match=r"d must be an integer in \[2, inf\]; got 1"):
        OUE(1.0, 1)
    oue = OUE(1.0, 3)
    with pytest.raises(ValueError, match=r"values must be integers in \[0, 3\)"):
        oue.perturb([3], rng=rng)
    with pytest.raises(ValueError, match="values must be a non-empty array"):
        oue.perturb(np.array([], dtype=int), rng=rng)
    with pytest.raises(
        ValueError,
        match=r"reports must be a 2-D array \(users × d bits\) whose last axis has length 3",
    ):
        oue.aggregate([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="reports must be an array of 0/1 values"):
        oue.aggregate([[1, 0, 2]])
    with pytest.raises(ValueError, match="true_counts must be a 1-D array of length 3"):
        oue.sample_aggregate([1, 2], rng=rng)
    with pytest.raises(ValueError, match=r"d must be an integer in \[2, 12\]"):
        OUE(1.0, 13).output_table()


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
@pytest.mark.parametrize("cls", [SUE, OUE])
def test_aggregate_sampler_matches_per_user_reference(cls, rng):
    """sample_aggregate has the law of aggregate(perturb(·)) (mean, variance, GOF, two-sample)."""
    oracle = cls(1.0, 4)
    true_counts = np.array([150, 0, 30, 120])
    per_user, aggregate = sample_both_paths(oracle, true_counts, 3000, rng)
    assert_support_counts_match(oracle, per_user, aggregate, true_counts, coordinates=(0, 1, 2))


@pytest.mark.statistical
def test_bits_are_independent_within_a_report(rng):
    """Two bits of one report are uncorrelated: Var(C_0 + C_2) = Var C_0 + Var C_2 (both paths)."""
    oue = OUE(1.0, 3)
    true_counts = np.array([100, 100, 100])
    per_user, aggregate = sample_both_paths(oue, true_counts, 3000, rng)
    var = 2 * support_count_variance(100, 300, oue.p, oue.q)
    for sample in (per_user, aggregate):
        assert_variance_close(sample[:, 0] + sample[:, 2], var)


@pytest.mark.statistical
def test_estimates_are_unbiased_with_exact_variance(rng):
    """Over 20,000 aggregate draws (n = 10^6, d = 1024) OUE estimates average f with the exact variance."""
    oue = OUE(1.0, 1024)
    true_counts = rng.multinomial(10**6, np.full(1024, 1 / 1024))
    draws = oue.estimate(oue.sample_aggregate(true_counts, rng=rng, n_draws=20_000), 10**6)[:, :3]
    variances = oue.variance(true_counts)[:3]
    for i in range(3):
        assert_mean_close(draws[:, i], true_counts[i], variances[i])
        assert_variance_close(draws[:, i], variances[i])


@pytest.mark.parametrize("cls", [SUE, OUE])
def test_privacy_loss_is_exact_in_log_space_also_at_large_epsilon(cls):
    """The whole-report loss equals the table's at moderate ε and stays exact where the table underflows
    (issue 27: OUE(700, 5).privacy_loss() read inf)."""
    from ldp_helpers.mechanisms.privacy import max_privacy_loss

    for epsilon in (0.5, 2.0, 8.0):
        mech = cls(epsilon, 6)
        assert mech.privacy_loss() == pytest.approx(
            max_privacy_loss(mech.output_table()), rel=1e-12
        )
    # OUE's q = 1/(e^ε + 1) is exact at any ε; SUE's p = e^{ε/2}/(e^{ε/2} + 1) keeps ~16 − ε/(2 ln 10) digits of 1 − p
    big, rel = (700.0, 1e-12) if cls is OUE else (30.0, 1e-9)
    assert cls(big, 5).privacy_loss() == pytest.approx(big, rel=rel)


@pytest.mark.parametrize(
    "p, q", [(0.900000000001, 0.9), (0.5 + 1e-12, 0.5), (0.75, 0.25), (0.9, 0.1), (0.3, 0.6)]
)
def test_unary_loss_keeps_its_digits_as_p_nears_q(p, q):
    """ln(p/q) + ln((1 − q)/(1 − p)) as log1p's of p − q: a difference of four logs lost 2e-5 at p − q = 1e-12."""
    import mpmath

    with mpmath.workdps(50):
        P, Q = mpmath.mpf(p), mpmath.mpf(q)
        exact = float(mpmath.log(P / Q) + mpmath.log((1 - Q) / (1 - P)))
    assert unary_loss(p, q) == pytest.approx(exact, rel=1e-15, abs=0.0)
