"""m-shot reporting: channel, estimator, exact privacy, the contract's two paths (per-user and exact sampler) and the drivers."""

import math

import numpy as np
import pytest
from scipy import stats
from stat_checks import assert_mean_close, assert_variance_close, two_sample_pvalue

from ldp_helpers.bounds.extremes import max_abs_normal, rate_guide
from ldp_helpers.experiments import m_shot as runs
from ldp_helpers.experiments.m_shot import (
    _f_measures,
    _tied_with_best,
    _unbiasedness_check,
    data_model_gap,
    f_measure_vs_m,
    f_measure_vs_rounds,
    log_correction_residual,
    max_error_vs_rounds,
    peak_window,
    ramp_data,
)
from ldp_helpers.mechanisms.m_shot import (
    MShotReporting,
    detection_scores,
    round_channel_probabilities,
)
from ldp_helpers.mechanisms.privacy import max_privacy_loss, privacy_losses
from ldp_helpers.mechanisms.pure import support_count_pmf
from ldp_helpers.mechanisms.randomized_response import q_bin_probabilities
from ldp_helpers.simulate.populations import Population, RandomActiveSets, linear_ramp_counts

# ---------------------------------------------------------------- exact


@pytest.mark.parametrize(
    "epsilon, T, m, r", [(1.0, 10, 1, 0.0), (10.0, 100, 6, 0.0), (3.0, 7, 3, 0.4), (2.0, 5, 5, 0.9)]
)
def test_round_channel_is_section_4_1(epsilon, T, m, r):
    """p and q are (m/T)·Q_Bin(ε/m) + (1 − m/T)·r, written out as in §4.1."""
    mech = MShotReporting(epsilon, T, m, r)
    e = math.exp(epsilon / m)
    assert mech.round_channel.p == pytest.approx(m / T * e / (e + 1) + (1 - m / T) * r, rel=1e-14)
    assert mech.round_channel.q == pytest.approx(m / T / (e + 1) + (1 - m / T) * r, rel=1e-14)
    assert mech.q_bin_probs == q_bin_probabilities(epsilon / m)  # the one shared Q_Bin derivation


def test_large_budget_per_round_is_supported():
    """ε/m = 200 (the paper's ε = 200, m = 1): Q_Bin keeps the bit w.p. 1 in double, q stays positive."""
    mech = MShotReporting(200.0, 100, 1)
    p_rr, q_rr = mech.q_bin_probs
    assert p_rr == 1.0 and q_rr == pytest.approx(math.exp(-200), rel=1e-12)
    assert mech.round_channel.p == pytest.approx(0.01, rel=1e-12)
    assert mech.estimate(np.full(100, 100), 10_000) == pytest.approx(np.ones(100), rel=1e-12)


def test_special_cases():
    """T-shot (m = T) spends ε/T in every round; 1-shot (m = 1) spends ε in one round."""
    t_shot, one_shot = MShotReporting(5.0, 10, 10), MShotReporting(5.0, 10, 1)
    assert t_shot.randomizer.epsilon == pytest.approx(
        0.5
    ) and one_shot.randomizer.epsilon == pytest.approx(5.0)
    assert t_shot.round_channel == t_shot.randomizer  # m = T: no dummies, the channel is Q_Bin(ε/T)


@pytest.mark.parametrize("r", [0.0, 0.3])
def test_estimator_is_exactly_unbiased_theorem_3(r):
    """E[Φ(Y_{:,t})] = Φ0 and Var matches variance(truth), over the exact law of X_t = Σ_n y_{n,t}."""
    mech = MShotReporting(4.0, 8, 3, r)
    n, k = 30, 11
    ch = mech.round_channel
    pmf = support_count_pmf(k, n, ch.p, ch.q)
    est = mech.estimate(np.repeat(np.arange(n + 1)[:, None], 8, axis=1), n)[
        :, 0
    ]  # X_t = x in every round
    mean = np.sum(pmf * est)
    assert mean == pytest.approx(k / n, abs=1e-12)
    truth = Population.nested(np.full(8, k), n)
    assert np.sum(pmf * (est - mean) ** 2) == pytest.approx(mech.variance(truth)[0], rel=1e-10)
    assert (
        mech.expected_estimate(truth) == pytest.approx(mech.estimand(truth))
        and MShotReporting.unbiased
    )


def test_round_channel_probabilities_is_vectorized_and_matches_the_mechanism():
    """The public (p, q, p − q) broadcasts over (ε/m, m/T, r), equals round_channel, and keeps p − q accurate at tiny ε/m."""
    u, share, r = np.array([0.5, 2.0, 200.0]), np.array([[0.1], [1.0]]), 0.3
    p, q, gap = round_channel_probabilities(u, share, r)
    assert p.shape == q.shape == gap.shape == (2, 3)
    mech = MShotReporting(4.0, 8, 2, 0.3)
    assert round_channel_probabilities(2.0, 0.25, 0.3)[:2] == (
        mech.round_channel.p,
        mech.round_channel.q,
    )
    assert round_channel_probabilities(1e-12, 0.5, 0.0)[2] == pytest.approx(
        0.5 * 0.5e-12, rel=1e-12
    )  # p − q would cancel
    assert np.allclose(gap, p - q, atol=1e-15)


@pytest.mark.parametrize(
    "T, m, r",
    [(1, 1, 0.0), (4, 1, 0.0), (4, 2, 0.5), (5, 3, 0.0), (6, 2, 0.2), (6, 6, 0.0), (7, 4, 1.0)],
)
def test_whole_sequence_is_exactly_epsilon_ldp_theorem_4(T, m, r):
    """The 2^T × 2^T table of a user's report sequence has privacy loss exactly ε (tight)."""
    epsilon = 2.5
    mech = MShotReporting(epsilon, T, m, r)
    table = mech.output_table()
    assert np.allclose(table.sum(axis=1), 1.0, atol=1e-12)
    assert max_privacy_loss(table) == pytest.approx(
        epsilon, rel=1e-9
    ) and mech.privacy_loss() == pytest.approx(max_privacy_loss(table), rel=1e-13)
    assert (
        MShotReporting.tight
    )  # the mixture over subsets does not lower the loss (all-ones vs all-zeros)


def test_sequence_table_marginals_are_the_round_channel():
    """Marginalizing the sequence table onto one round gives Pr[y_t = 1 | v_t] = p or q."""
    mech = MShotReporting(3.0, 5, 2, 0.25)
    table = mech.output_table()
    bits = (np.arange(32)[:, None] >> np.arange(5)) & 1
    for t in range(5):
        pr_one = table[:, bits[:, t] == 1].sum(axis=1)
        expected = np.where(bits[:, t] == 1, mech.round_channel.p, mech.round_channel.q)
        assert np.allclose(pr_one, expected, atol=1e-12)


def test_detection_scores_by_hand():
    """Precision, recall and F on a hand-worked case; F = 2PR/(P + R) when P + R > 0."""
    truth = np.array([0.9, 0.85, 0.1, 0.5])  # heavy hitters at θ = 0.8: rounds 0, 1
    est = np.array([[0.95, 0.7, 0.81, 0.2], [0.1, 0.1, 0.1, 0.1], [0.9, 0.9, 0.0, 0.0]])
    s = detection_scores(truth, est, 0.8)
    assert np.allclose(s.precision, [0.5, 0.0, 1.0]) and np.allclose(s.recall, [0.5, 0.0, 1.0])
    assert np.allclose(s.f_measure, [0.5, 0.0, 1.0])
    ok = s.precision + s.recall > 0
    assert np.allclose(
        s.f_measure[ok], 2 * s.precision[ok] * s.recall[ok] / (s.precision[ok] + s.recall[ok])
    )


@pytest.mark.parametrize("data_kind", ["fixed", "random"])
def test_fast_simulator_counts_are_in_range_and_deterministic(data_kind):
    """X_t lies in [0, N]; the same seed gives the same draws; r = 0 and m = T report only truth."""
    k = np.array([0, 3, 10, 10, 7])
    data = Population.nested(k, 10) if data_kind == "fixed" else RandomActiveSets(k, 10)
    mech = MShotReporting(2.0, 5, 2, 0.3)
    a = mech.sample_aggregate(data, rng=np.random.default_rng(4), n_draws=200)
    b = mech.sample_aggregate(data, rng=np.random.default_rng(4), n_draws=200)
    assert a.shape == (200, 5) and np.array_equal(a, b) and a.min() >= 0 and a.max() <= 10
    exact = MShotReporting(175.0, 5, 5).sample_aggregate(
        data, rng=np.random.default_rng(1), n_draws=50
    )
    assert np.array_equal(
        exact, np.broadcast_to(k, (50, 5))
    )  # ε/m = 35: a flip has probability 6e-16


@pytest.mark.parametrize("data_kind", ["fixed", "random"])
def test_sampler_is_who_reports_then_what_they_send(data_kind):
    """sample_aggregate = sample_who_reports, then sample_given_reporters on the same Generator; who
    reports does not depend on ε, and each reporter count and active count is in range."""
    k = np.array([0, 3, 10, 10, 7])
    data = Population.nested(k, 10) if data_kind == "fixed" else RandomActiveSets(k, 10)
    mech = MShotReporting(2.0, 5, 2, 0.3)
    whole = mech.sample_aggregate(data, rng=np.random.default_rng(4), n_draws=30)
    rng = np.random.default_rng(4)
    reporters, active = mech.sample_who_reports(data, rng=rng, n_draws=30)
    assert np.array_equal(whole, mech.sample_given_reporters(data, reporters, active, rng=rng))
    assert np.all(reporters.sum(axis=1) == 2 * 10) and np.all(
        (0 <= active) & (active <= np.minimum(reporters, k))
    )
    other_eps = MShotReporting(7.0, 5, 2, 0.3).sample_who_reports(
        data, rng=np.random.default_rng(4), n_draws=30
    )
    assert np.array_equal(other_eps[0], reporters) and np.array_equal(other_eps[1], active)
    with pytest.raises(ValueError, match="active"):
        mech.sample_given_reporters(data, reporters, reporters + 1, rng=rng)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(epsilon=1.0, n_rounds=5, m=0), r"m must be an integer in \[1, 5\]"),
        (dict(epsilon=1.0, n_rounds=5, m=6), r"m must be an integer in \[1, 5\]"),
        (
            dict(epsilon=1.0, n_rounds=5, m=2, dummy_prob=1.5),
            r"dummy_prob \(r\) must be in \[0, 1\]",
        ),
        (
            dict(epsilon=1.0, n_rounds=5, m=2, dummy_prob=-0.1),
            r"dummy_prob \(r\) must be in \[0, 1\]",
        ),
        (dict(epsilon=0.0, n_rounds=5, m=2), "epsilon must be"),
        (dict(epsilon=math.nan, n_rounds=5, m=2), "epsilon must be"),
        (
            dict(epsilon=200.0, n_rounds=5, m=5),
            "epsilon must be such that the averaged report stays random",
        ),
        (
            dict(epsilon=200.0, n_rounds=5, m=1, dummy_prob=1.0),
            "epsilon must be such that the averaged report stays random",
        ),
    ],
)
def test_mechanism_validates_parameters(kwargs, message):
    """m ∉ [1, T], r ∉ [0, 1], bad ε: a ValueError naming the parameter and range."""
    with pytest.raises(ValueError, match=message):
        MShotReporting(**kwargs)


def test_inputs_are_validated(rng):
    """θ ∉ (0, 1], non-binary V, mismatched rounds, a non-data truth, no true heavy hitter, big tables: clear errors."""
    mech = MShotReporting(1.0, 3, 1)
    for theta in (0.0, 1.2, math.nan):
        with pytest.raises(ValueError, match=r"theta must be .*\(0, 1\]"):
            mech.detect([1, 2, 3], 3, theta)
    with pytest.raises(ValueError, match="values must be an array of 0/1 values"):
        mech.perturb(np.array([[0, 1, 2]]), rng=rng)
    with pytest.raises(ValueError, match="truth must be data with T = 3 rounds"):
        mech.sample_aggregate(RandomActiveSets(np.array([1, 2]), 5), rng=rng)
    with pytest.raises(ValueError, match="truth must be a Population or a RandomActiveSets"):
        mech.sample_aggregate(np.ones((4, 3)), rng=rng)
    with pytest.raises(ValueError, match="truth must be a Population"):
        mech.expand(RandomActiveSets(np.array([1, 2, 3]), 5))  # random active sets have no fixed V
    with pytest.raises(
        ValueError, match=r"aggregate must be a 1-D or 2-D array whose last axis has length 3"
    ):
        mech.estimate(np.array([1, 2]), 5)
    with pytest.raises(ValueError, match="ones_per_round must be"):
        RandomActiveSets(np.array([1, 6]), 5)
    with pytest.raises(ValueError, match="at least one true heavy hitter"):
        detection_scores([0.1, 0.2], [[0.9, 0.9]], 0.8)
    with pytest.raises(
        ValueError, match=r"n_rounds \(for an exact output table\) must be an integer in \[1, 8\]"
    ):
        MShotReporting(1.0, 9, 2).output_table()
    with pytest.raises(ValueError, match="ones_per_round must be a 1-D array"):
        RandomActiveSets(np.array([[1, 2], [3, 4]]), 5)
    with pytest.raises(ValueError, match="ones_per_round must be an array of integers"):
        RandomActiveSets(np.array([1.5, 2.0]), 5)


def test_random_active_sets_beyond_numpys_hypergeometric_are_refused_naming_truth(rng):
    """10^9 users holding a 1 (or a 0) in a round: the project's refusal naming truth, not numpy's
    "both ngood and nbad must be less than 1000000000"; just below, counts."""
    mech = MShotReporting(1.0, 2, 1)
    for ones, n_users in (([10**9, 1], 2 * 10**9), ([0, 5], 10**9)):
        with pytest.raises(ValueError, match=r"truth must be fewer than 10\^9 users holding a 1"):
            mech.sample_aggregate(RandomActiveSets(np.array(ones), n_users), rng=rng)
    edge = RandomActiveSets(np.array([10**9 - 1, 10**9 - 1]), 2 * 10**9 - 2)
    assert mech.sample_aggregate(edge, rng=rng, n_draws=2).shape == (2, 2)


@pytest.mark.parametrize("ones", [50, -1, [3, 11], [2.5, 3]])
def test_estimate_refuses_counts_outside_0_n(ones):
    """Σ_n y_{n,t} is an integer in [0, N]: 50 reported 1s from 10 users is an error, not Φ = 31.9."""
    with pytest.raises(ValueError, match="aggregate must be"):
        MShotReporting(2.0, 5, 2).estimate(ones, 10)


def test_detection_scores_refuse_non_finite_or_out_of_range_inputs():
    """A NaN true fraction is not silently 'not heavy'; NaN estimates and fractions > 1 are refused."""
    with pytest.raises(
        ValueError,
        match=r"true_fractions must be finite values in \[0, 1\]; got an array containing nan",
    ):
        detection_scores([0.9, math.nan], [[0.9, 0.9]], 0.8)
    with pytest.raises(ValueError, match=r"true_fractions must be finite values in \[0, 1\]"):
        detection_scores([0.9, 1.5], [[0.9, 0.9]], 0.8)
    with pytest.raises(ValueError, match="estimates must be finite"):
        detection_scores([0.9, 0.1], [[math.nan, 0.9]], 0.8)
    with pytest.raises(ValueError, match="true_fractions must be a 1-D array"):
        detection_scores([[0.9, 0.1]], [[0.9, 0.9]], 0.8)


def test_the_exact_table_needs_a_randomizing_q_bin_the_client_does_not():
    """ε/m > 36.7: Q_Bin's table rounds to 0/1, so the exact sequence table refuses it; the per-user client
    draws Q_Bin's flips with the flip probability itself, as the sampler does, so it accepts the paper's
    ε = 200 with m = 1 and keeps every true bit (flip probability 1.4e-87; 2⁻⁵³ as numpy draws it, which
    is more private).  Before, it refused the setting whose surveys the sampler draws."""
    mech = MShotReporting(200.0, 4, 1)
    with pytest.raises(ValueError, match=r"^epsilon must be in \[1e-12, 36\.7368\]; got 200\.0"):
        mech.output_table()
    values = np.tile(np.array([[1, 0, 1, 1]], dtype=np.int8), (1000, 1))
    reports = mech.perturb(values, rng=np.random.default_rng(0))
    chosen = reports == 1  # r = 0: the one chosen round's bit, kept; every other round reports 0
    assert np.all(chosen.sum(axis=1) <= 1) and np.all(values[chosen] == 1)
    # the chosen round holds a 1 w.p. 3/4: within 5 sd of 750
    assert abs(chosen.sum() - 750) < 5 * math.sqrt(1000 * 0.75 * 0.25)


def test_the_loss_and_sampler_at_an_epsilon_whose_keep_probability_rounds_to_1():
    """ε/m = 200/2 (the paper's ε with small m): the loss is ε from the table in log space.  ε/m = 37: Q_Bin's
    keep probability is 1.0 in double precision, and the sampler's reporters lie with its flip probability
    f = e^−37/(1 + e^−37) ≈ 8.5e-17 (before: Bin(A, 1.0), a mechanism that never lies, loss ∞).  100 surveys
    of 4 rounds of 10^15 active reporters: Poisson(λ = 4·10^17·f ≈ 34) lies, within 5 sd of λ (0 before)."""
    assert MShotReporting(200.0, 4, 2, 0.3).privacy_loss() == pytest.approx(200.0, rel=1e-12)
    mech = MShotReporting(37.0, 4, 1, 0.0)
    population = Population.nested(np.full(4, 10**15), 10**15)
    reporters = np.full((100, 4), 10**15)
    ones = mech.sample_given_reporters(
        population, reporters, reporters, rng=np.random.default_rng(3)
    )
    expected = reporters.sum() * q_bin_probabilities(37.0)[1]
    assert q_bin_probabilities(37.0)[0] == 1.0
    assert abs(int((reporters - ones).sum()) - expected) < 5 * math.sqrt(expected)


# ---------------------------------------------------------------- statistical

N_SMALL, T_SMALL, THETA = 40, 6, 0.6
K_SMALL = np.array([10, 20, 25, 28, 31, 36])  # fractions 0.25 .. 0.9: several rounds near θ


def _cross_round_covariance(mech, rows, counts, s, t):
    """Exact Cov(Σ_n y_{n,s}, Σ_n y_{n,t}) for a fixed V (users independent, τ_n couples rounds)."""
    T, m, r = mech.n_rounds, mech.m, mech.dummy_prob
    p_rr, q_rr = mech.q_bin_probs
    a = np.where(rows == 1, p_rr, q_rr)  # Pr[y=1 | in τ] per (group, round)
    both, one = m * (m - 1) / (T * (T - 1)), m * (T - m) / (T * (T - 1))
    none = (T - m) * (T - m - 1) / (T * (T - 1))
    e_st = both * a[:, s] * a[:, t] + one * (a[:, s] * r + r * a[:, t]) + none * r * r
    mean = lambda u: m / T * a[:, u] + (1 - m / T) * r  # noqa: E731
    return float(np.sum(counts * (e_st - mean(s) * mean(t))))


def _compare(fast, ref, mech, truth, rows, counts):
    """Marginal, cross-round and detection-level (joint) agreement of two samples of Σ_n y."""
    n = N_SMALL
    for t in (0, 4):
        assert two_sample_pvalue(fast[:, t], ref[:, t]) > 1e-3
    assert two_sample_pvalue(fast[:, 1] + fast[:, 2], ref[:, 1] + ref[:, 2]) > 1e-3
    for sample in (fast, ref):
        if rows is not None:
            centred = sample - sample.mean(axis=0)
            prod = centred[:, 1] * centred[:, 2]
            assert_mean_close(prod, _cross_round_covariance(mech, rows, counts, 1, 2), prod.var())
    detected_fast = mech.detect(fast, n, THETA).sum(axis=1)
    detected_ref = mech.detect(ref, n, THETA).sum(axis=1)
    assert two_sample_pvalue(detected_fast, detected_ref) > 1e-3
    f_fast = detection_scores(truth, mech.estimate(fast, n), THETA).f_measure
    f_ref = detection_scores(truth, mech.estimate(ref, n), THETA).f_measure
    _, codes = np.unique(np.r_[f_fast, f_ref], return_inverse=True)
    assert two_sample_pvalue(codes[: f_fast.size], codes[f_fast.size :]) > 1e-3


@pytest.mark.statistical
@pytest.mark.parametrize("m, r", [(2, 0.2), (1, 0.0)])
def test_fixed_population_fast_matches_reference(rng, m, r):
    """Fixed V: fast and per-user simulators agree per round, across rounds and in the F-measure law."""
    mech, n_draws = MShotReporting(8.0 if m == 2 else 3.0, T_SMALL, m, r), 4000
    pop = Population.nested(K_SMALL, N_SMALL)
    V = pop.to_matrix()
    fast = mech.sample_aggregate(pop, rng=rng, n_draws=n_draws)
    ref = np.array([mech.aggregate(mech.perturb(V, rng=rng)) for _ in range(n_draws)])
    _compare(fast, ref, mech, pop.fractions(), pop.rows, pop.counts)


@pytest.mark.statistical
def test_random_active_sets_fast_matches_reference(rng):
    """Random active sets: fast (hypergeometric) and per-user simulators agree, jointly across rounds."""
    mech, n_draws = MShotReporting(6.0, T_SMALL, 3, 0.1), 4000
    data = RandomActiveSets(K_SMALL, N_SMALL)
    fast = mech.sample_aggregate(data, rng=rng, n_draws=n_draws)
    ref = np.array(
        [mech.aggregate(mech.perturb(data.draw_matrix(rng=rng), rng=rng)) for _ in range(n_draws)]
    )
    _compare(fast, ref, mech, data.fractions(), None, None)


@pytest.mark.statistical
def test_cross_round_covariance_is_exact_and_detectable(rng):
    """The fast fixed-V sampler reproduces the negative covariance that τ_n induces between rounds."""
    mech = MShotReporting(12.0, 6, 2, 0.0)
    pop = Population.nested(np.full(6, 50), 50)  # everyone active: y_{n,t} ≈ 1{t ∈ τ_n}
    ones = mech.sample_aggregate(pop, rng=rng, n_draws=20_000).astype(float)
    cov = _cross_round_covariance(mech, pop.rows, pop.counts, 0, 1)
    var = (
        50 * mech.round_channel.p * (1 - mech.round_channel.p)
    )  # Var(Σ_n y_{n,t}), all users active
    assert cov / var < -0.15  # independent rounds (covariance 0) would fail the check below
    prod = (ones[:, 0] - ones[:, 0].mean()) * (ones[:, 1] - ones[:, 1].mean())
    assert_mean_close(prod, cov, prod.var())


@pytest.mark.statistical
@pytest.mark.parametrize("data_kind", ["fixed", "random"])
def test_unbiased_with_exact_variance_by_simulation(rng, data_kind):
    """Theorem 3 by simulation: Φ(Y_{:,t}) averages Φ0 with the exact variance, in every round."""
    k = np.array([0, 150, 400, 1000, 777])
    data = Population.nested(k, 1000) if data_kind == "fixed" else RandomActiveSets(k, 1000)
    mech = MShotReporting(3.0, 5, 2, 0.2)
    est = mech.estimate(mech.sample_aggregate(data, rng=rng, n_draws=20_000), 1000)
    for t, frac in enumerate(k / 1000):
        var = mech.variance(data)[t]
        assert_mean_close(est[:, t], frac, var)
        assert_variance_close(est[:, t], var)


# ---------------------------------------------------------------- experiment drivers


def test_noise_free_limit_detects_perfectly(rng):
    """With ε/m = 35 and m = T the estimates are exact: F = 1 and max error ≈ 0 in every run."""
    f = f_measure_vs_rounds(3500.0, [100], "T-shot", n_users=1000, theta=0.8, n_draws=5, rng=rng)
    assert f.shape == (1, 5) and np.all(f == 1.0)
    errors = max_error_vs_rounds(35.0, 1.0, [100], "T-shot", n_users=1000, n_draws=5, rng=rng)
    assert errors.shape == (1, 5) and np.all(errors < 1e-9)


def test_f_measure_vs_m_shape_and_range(rng):
    """One row of F-measures in [0, 1] per m; determinism for a fixed seed."""
    a = f_measure_vs_m(
        10.0, 20, [1, 5, 20], n_users=500, theta=0.8, n_draws=7, rng=np.random.default_rng(2)
    )
    b = f_measure_vs_m(
        10.0, 20, [1, 5, 20], n_users=500, theta=0.8, n_draws=7, rng=np.random.default_rng(2)
    )
    assert a.shape == (3, 7) and np.all((a >= 0) & (a <= 1)) and np.array_equal(a, b)


def test_f_measure_vs_m_rows_are_runs_at_their_own_m():
    """Row i is exactly _f_measures at m = ms[i] on the one shuffled ramp, in order."""
    ms = [1, 5, 20]
    rows = f_measure_vs_m(
        3.0, 20, ms, n_users=500, theta=0.8, n_draws=6, rng=np.random.default_rng(3)
    )
    rng = np.random.default_rng(3)
    data = ramp_data(500, 20, rng=rng)
    for row, m in zip(rows, ms):
        assert np.array_equal(
            row, _f_measures(MShotReporting(3.0, 20, m), data, 0.8, rng=rng, n_draws=6)
        )


@pytest.mark.statistical
def test_f_measure_vs_m_orders_m_by_their_noise(rng):
    """At ε = 1, T = 20, N = 5000, 1-shot (Var Φ ≈ 0.02 at Φ0 = θ) beats T-shot (≈ 0.05) by many SE."""
    f = f_measure_vs_m(1.0, 20, [1, 20], n_users=5000, theta=0.8, n_draws=200, rng=rng)
    assert (
        MShotReporting(1.0, 20, 1).round_channel.fraction_variance(0.8, 5000)
        < MShotReporting(1.0, 20, 20).round_channel.fraction_variance(0.8, 5000) / 2
    )
    gap, se = f[0].mean() - f[1].mean(), math.hypot(*f.std(axis=1, ddof=1)) / math.sqrt(200)
    assert gap > 6 * se  # a driver that reused one m for both rows would give gap ≈ 0 ± se


class _WrongDummyEstimate(MShotReporting):
    """Samples with its own r but estimates as if r were 0.25: a mis-specified estimator (test stub)."""

    def estimate(self, aggregate, n):
        return MShotReporting(self.epsilon, self.n_rounds, self.m, 0.25).estimate(aggregate, n)


@pytest.mark.statistical
def test_unbiasedness_check_flags_a_biased_estimator(rng):
    """Correct estimator: z ≈ N(0, 1), variance ratio ≈ 1; an estimator with the wrong r is flagged by the same check."""
    data = RandomActiveSets(np.array([0, 150, 400, 1000, 777]), 1000)
    mech = MShotReporting(3.0, 5, 2, 0.2)
    check = _unbiasedness_check(mech, data, rng=rng, n_draws=4000)
    assert np.all(np.abs(check.z) < 4.5) and np.all(
        np.abs(check.variance_ratio - 1) < 5 * math.sqrt(2 / 4000)
    )
    biased = _unbiasedness_check(
        _WrongDummyEstimate(3.0, 5, 2, 0.2), data, rng=rng, n_draws=4000
    )  # shifted by a constant
    assert np.all(np.abs(biased.z) > 10)


def test_privacy_losses_cover_every_setting():
    """privacy_losses gives one exact loss per (T, m, r), m = 1..T, each equal to ε (Theorem 4)."""
    settings = [(T, m, r) for T in (2, 3) for m in range(1, T + 1) for r in (0.0, 0.5)]
    losses = privacy_losses(MShotReporting(1.5, T, m, r) for T, m, r in settings)
    assert losses.shape == (len(settings),) and np.allclose(losses, 1.5, rtol=1e-9)


def test_peak_window_locates_the_argmax_and_its_ties():
    """best_m is the argmax of the window's means; it is among the tied m; the clearly worse T-shot is not."""
    w = peak_window(
        1.0, 20, [1, 2, 20], n_users=5000, theta=0.8, n_draws=40, rng=np.random.default_rng(5)
    )
    assert w.best_m == w.ms[w.mean.argmax()] and w.best_m in w.tied and 20 not in w.tied
    assert np.array_equal(w.tied, _tied_with_best(w.ms, w.mean, w.se))


def test_tied_with_best_on_hand_built_means():
    """Ties are the means within 2√(se² + se_best²) of the best: 0.9 − 2√2·0.01 = 0.8717 keeps 0.88, drops 0.87."""
    ms, se = np.array([1, 2, 3, 4, 5]), np.full(5, 0.01)
    assert _tied_with_best(ms, np.array([0.5, 0.9, 0.88, 0.87, 0.872]), se).tolist() == [2, 3, 5]
    assert _tied_with_best(
        ms, np.array([0.5, 0.9, 0.88, 0.87, 0.872]), np.array([0.01, 0.0, 0.0, 0.0, 0.0])
    ).tolist() == [2]
    assert _tied_with_best(
        ms, np.array([0.5, 0.9, 0.88, 0.87, 0.872]), np.array([0.3, 0.01, 0.01, 0.01, 0.01])
    ).tolist() == [1, 2, 3, 5]


def test_drivers_refuse_bad_arguments():
    """n_draws < 2, an empty or out-of-range window of m, a non-finite guide value: ValueError naming the parameter."""
    kw = dict(n_users=100, theta=0.8, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"n_draws must be an integer in \[2, 10000000\]; got 1"):
        peak_window(1.0, 10, [1, 2], n_draws=1, **kw)
    with pytest.raises(
        ValueError, match="ms must be a non-empty array of integers; got an empty array"
    ):
        peak_window(1.0, 10, [], n_draws=5, **kw)
    with pytest.raises(ValueError, match=r"ms must be integers in \[1, 10\]"):
        peak_window(1.0, 10, [0, 2], n_draws=5, **kw)
    with pytest.raises(ValueError, match=r"ms must be integers in \[1, 10\]"):
        peak_window(1.0, 10, [2, 11], n_draws=5, **kw)
    with pytest.raises(ValueError, match="first_value must be finite"):
        rate_guide([100, 200], float("nan"), 0.5, 0.05)
    with pytest.raises(ValueError, match=r"first_value must be in \(0, inf\)"):
        rate_guide([100, 200], 0.0, 0.5, 0.05)


def test_max_abs_normal_closed_forms():
    """E max|Z| is √(2/π) for T = 1 and 2/√π for T = 2; the (1−β)-quantile solves Pr[max|Z| ≤ a] = 1 − β."""
    assert max_abs_normal(1) == pytest.approx(math.sqrt(2 / math.pi), rel=1e-9)
    assert max_abs_normal(2) == pytest.approx(2 / math.sqrt(math.pi), rel=1e-9)
    assert max_abs_normal(1, 0.05) == pytest.approx(stats.norm.isf(0.025), rel=1e-12)
    for T in (3, 100, 1600):
        a = max_abs_normal(T, 0.05)
        assert (1 - 2 * stats.norm.sf(a)) ** T == pytest.approx(0.95, rel=1e-12)


@pytest.mark.statistical
def test_max_abs_normal_by_simulation(rng):
    """Max of 100 |N(0,1)|: the mean matches the integral and the 0.95-quantile is exceeded 5% of the time."""
    maxima = np.abs(rng.standard_normal((20_000, 100))).max(axis=1)
    exceed = maxima >= max_abs_normal(100, 0.05)
    assert_mean_close(exceed, 0.05, 0.05 * 0.95)
    # Var(max|Z_t|) ≤ 1 by the Gaussian Poincaré inequality (the max of |z_t| is 1-Lipschitz): a conservative SE
    assert_mean_close(maxima, max_abs_normal(100), 1.0)


def test_log_correction_residual_is_small_and_positive():
    """Over T = 100..1600 (β = 0.05) √log(2T/β) leaves 0 < quantile residual < mean residual < 0.1 in the slope."""
    t = 100 * 2 ** np.arange(5)
    mean_res, quant_res = (
        log_correction_residual(t, 0.05, quantile=False),
        log_correction_residual(t, 0.05, quantile=True),
    )
    assert 0 < quant_res < mean_res < 0.1
    assert (
        log_correction_residual(10**6 * 2 ** np.arange(5), 0.05, quantile=True) < quant_res
    )  # vanishes slowly as T grows


def test_data_model_gap_is_zero_when_noise_free(rng):
    """With ε/m = 35 both data models give F = 1 in every run: equal means, a gap of 0 SE (no 0/0)."""
    counts = linear_ramp_counts(200, 10, rng=rng)
    assert data_model_gap(
        MShotReporting(350.0, 10, 10), counts, 200, theta=0.8, n_draws=20, rng=rng
    ) == (1.0, 1.0, 0.0)


@pytest.mark.statistical
def test_data_model_gap_is_small_in_se_for_the_same_counts(rng):
    """Fixed V vs random active sets differ only at O(1/N) in the F law: |gap| stays within a few SE."""
    counts = linear_ramp_counts(2000, 20, rng=rng)
    fixed, random, z = data_model_gap(
        MShotReporting(2.0, 20, 1), counts, 2000, theta=0.8, n_draws=400, rng=rng
    )
    assert 0 < fixed < 1 and 0 < random < 1 and abs(z) < 4


def test_rate_guide_is_the_theorem_9_shape():
    """The guide passes through the first value and scales as T^e √log(2T/β)."""
    t = np.array([100.0, 200.0, 400.0])
    guide = rate_guide(t, 0.3, 0.5, 0.05)
    assert guide[0] == pytest.approx(0.3)
    assert guide[2] / guide[1] == pytest.approx(
        math.sqrt(2) * math.sqrt(math.log(16000) / math.log(8000)), rel=1e-12
    )


# ---------------------------------------------------------------- the notebook's settings, drivers and figures


def test_paper_settings_are_named_once_and_consistent():
    """Every budget of the experiments has its reported peak and its window of m (inside [1, T])."""
    assert set(runs.PAPER_PEAKS) == set(runs.PEAK_WINDOWS) == set(runs.EPSILONS)
    assert all(1 <= w.min() and w.max() <= runs.N_ROUNDS for w in runs.PEAK_WINDOWS.values())
    assert all(m in runs.PEAK_WINDOWS[eps] for eps, (m, _) in runs.PAPER_PEAKS.items())
    assert runs.ROUNDS_EXP2[0] == runs.N_ROUNDS and runs.ROUNDS_EXP2[-1] == 1000


def test_theorem3_checks_are_unbiasedness_checks_on_one_ramp():
    """theorem3_checks = one shuffled ramp, then _unbiasedness_check per setting in order, on the same stream."""
    settings = ((3.0, 2, 0.0, "random sets"), (3.0, 5, 0.3, "fixed V"))
    checks = runs.theorem3_checks(
        settings, n_users=300, n_rounds=5, rng=np.random.default_rng(4), n_draws=20
    )
    rng = np.random.default_rng(4)
    ramp = linear_ramp_counts(300, 5, rng=rng)
    for (eps, m, r, model), data in zip(
        settings, (RandomActiveSets(ramp, 300), Population.nested(ramp, 300))
    ):
        expected = _unbiasedness_check(MShotReporting(eps, 5, m, r), data, rng=rng, n_draws=20)
        assert np.array_equal(checks[eps, m, r, model].z, expected.z)
    with pytest.raises(ValueError, match="settings must be a non-empty sequence of"):
        runs.theorem3_checks(
            ((3.0, 2, 0.0, "other model"),), n_users=300, n_rounds=5, rng=rng, n_draws=20
        )
    with pytest.raises(ValueError, match=r"n_draws must be an integer in \[2, 10000000\]; got 1"):
        runs.theorem3_checks(settings[:1], n_users=300, n_rounds=5, rng=rng, n_draws=1)


def test_gap_to_best_is_the_difference_and_two_se_of_it():
    """The best mean minus the mean at m, and 2√(se_m² + se_best²); m outside the window is refused."""
    w = runs.PeakWindow(
        np.array([1, 2, 3]),
        np.array([0.5, 0.6, 0.55]),
        np.array([0.03, 0.04, 0.0]),
        2,
        0.4,
        np.array([2, 3]),
    )
    assert runs.gap_to_best(w, 1) == (pytest.approx(0.1), pytest.approx(0.1))
    assert runs.gap_to_best(w, 2) == (0.0, pytest.approx(2 * math.sqrt(2) * 0.04))
    with pytest.raises(ValueError, match=r"m must be one of the window's m \(\[1, 2, 3\]\); got 7"):
        runs.gap_to_best(w, 7)


def test_fit_rates_recovers_a_known_exponent():
    """Errors ∝ T^0.3 √log(2T/β) (no noise across rounds) fit slope 0.3 after the log correction; the residuals are
    log_correction_residual's."""
    t, beta = 100 * 2 ** np.arange(4), 0.05
    base = t**0.3 * np.sqrt(np.log(2 * t / beta))
    errors = {(0.5, "1-shot"): base[:, None] * np.array([0.9, 1.1])}
    fit = runs.fit_rates(t, errors, beta)
    assert fit.slopes[0.5, "1-shot"] == pytest.approx(0.3, abs=1e-12) and fit.se[0.5, "1-shot"] > 0
    assert fit.residual_mean == log_correction_residual(t, beta, quantile=False)
    with pytest.raises(ValueError, match=r"errors must be arrays of shape \(4, n_draws ≥ 2\)"):
        runs.fit_rates(t, {(0.5, "1-shot"): base[:, None]}, beta)


def test_figure_functions_draw_without_printing(capsys):
    """Each figure of the notebook comes back as a Figure with one panel per setting, and prints nothing."""
    from ldp_helpers.bounds.chernoff import tail_check
    from ldp_tools.pipeline.plots import m_shot as plots

    rng = np.random.default_rng(0)
    ms, f = np.array([1, 2, 4]), {1.0: rng.random((3, 4)), 10.0: rng.random((3, 4))}
    figs = [
        plots.g_and_c_star(np.geomspace(0.05, 5, 20), 10.0, np.arange(1, 11), 6),
        plots.m_star_regimes(
            np.array([0.5, 5.0]), np.array([1, 10]), np.array([[1, 1], [1, 3]]), (1.0,), 10
        ),
        plots.f_measure_vs_m(
            ms, f, {1.0: (1, 0.7), 10.0: (2, 0.9)}, n_rounds=4, n_users=10_000, theta=0.8
        ),
        plots.f_measure_vs_rounds(
            ms,
            {(1.0, m): rng.random((3, 4)) for m in plots.EXPERIMENT_2_METHODS},
            n_users=100_000,
            theta=0.8,
        ),
    ]
    errors = {
        (b, m): 0.1 + rng.random((3, 4))
        for b in (0.0, 1.0)
        for m in ("1-shot", "m*-shot", "T-shot")
    }
    figs.append(
        plots.max_error_rates(
            np.array([10, 20, 40]),
            errors,
            {k: 0.5 for k in errors},
            ((0.0, 2.0), (1.0, 0.4)),
            0.05,
            n_users=1000,
        )
    )
    delta = np.linspace(0.05, 0.5, 10)
    tail = tail_check(("two_sided", "kl_two_sided"), 1000, 0.3, delta)
    figs.append(
        plots.chernoff_vs_exact_tail(
            delta, tail, 0.2, 0.05, epsilon=10.0, n_rounds=100, m=6, n_users=1000
        )
    )
    assert [len(fig.axes) for fig in figs] == [
        1,
        2,
        2,
        1,
        2,
        1,
    ]  # the regimes' colour bar is an axes too
    assert figs[2].axes[0].get_title() == r"(a) $\varepsilon = 1$, $T = 4$, $N = 10^4$"
    assert capsys.readouterr() == ("", "")
    with pytest.raises(ValueError, match=r"f must be a dict with the keys"):
        plots.f_measure_vs_rounds(ms, {(1.0, "T-shot"): rng.random((3, 4))}, n_users=10, theta=0.8)
