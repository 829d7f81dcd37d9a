"""LPCC mechanisms: exact stream privacy, estimators, and the fast simulator against the per-user reference."""

import math
import warnings

import numpy as np
import pytest

from ldp_helpers.mechanisms.continual import (
    EMPTY_ROUND_ESTIMATE,
    BasicOneTimeRappor,
    Glance,
    Harmony,
    StreamReports,
    max_error,
    reference_user_reports,
    simulate_reports,
)
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.randomized_response import BinaryRR
from ldp_helpers.simulate.streams import Population
from stat_checks import assert_mean_close, assert_variance_close, two_sample_pvalue

MECHANISMS = (Glance, Harmony, BasicOneTimeRappor)
# A small population with distinct, non-nested rows (T = 4).
SMALL_V = np.array([[1, 0, 1, 1]] * 5 + [[0, 0, 1, 0]] * 4 + [[1, 1, 0, 0]] * 3 + [[0, 1, 1, 1]] * 2)

# ---------------------------------------------------------------- exact


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("epsilon, n_rounds", [(0.3, 1), (1.0, 3), (2.5, 5), (8.0, 6)])
def test_whole_stream_output_table_is_exactly_epsilon_ldp(mechanism, epsilon, n_rounds):
    """Over a user's whole stream (all 2^T inputs) the privacy loss is exactly ε (Theorem 3)."""
    table = mechanism(epsilon, n_rounds).stream_output_table()
    assert table.shape[0] == 2**n_rounds
    assert max_privacy_loss(table) == pytest.approx(epsilon, rel=1e-9)


def test_one_shot_table_is_uniform_round_times_q_bin():
    """Glance's Pr[τ = s, y | v] is (1/T)·Q_Bin(y | v_s) (stream 0b101 = v = (1, 0, 1))."""
    g = Glance(1.0, 3)
    Q = g.randomizer.output_table()
    row = g.stream_output_table()[0b101]
    assert np.allclose(row, np.r_[Q[1], Q[0], Q[1]] / 3, atol=1e-15)


def test_harmony_sufficient_statistics_estimate_equals_per_user_average(rng):
    """Harmony's μ̂ from (K, X) equals (1 + mean_n z_{n,t})/2 computed from the users' reports."""
    pop = Population.from_matrix(SMALL_V)
    h = Harmony(1.3, 4)
    mask, reports, V = reference_user_reports(pop, 1, h.randomizer, rng=rng)
    per_user = h.estimate_from_user_reports(h.user_reports(mask, reports))
    assert np.allclose(h.estimate(StreamReports.from_user_reports(mask, reports, V))[0], per_user, atol=1e-12)


def test_glance_estimate_is_pure_estimator_over_reporters(rng):
    """Glance's μ̂_t is ((mean report over η_t) − q)/(p − q), computed per user."""
    pop = Population.from_matrix(SMALL_V)
    g = Glance(0.9, 4)
    mask, reports, V = reference_user_reports(pop, 1, g.randomizer, rng=rng)
    est = g.estimate(StreamReports.from_user_reports(mask, reports, V))[0]
    rr = g.randomizer
    for t in range(4):
        if mask[:, t].any():
            assert est[t] == pytest.approx((reports[mask[:, t], t].mean() - rr.q) / (rr.p - rr.q), abs=1e-12)


def test_glance_empty_round_convention_without_warnings():
    """A round with no reporter releases 1/2 (μ̂ and μ̃), with no division warning."""
    reports = StreamReports(10, np.array([[0, 10]]), np.array([[0, 4]]), np.array([[0, 5]]))
    g = Glance(1.0, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est, tilde = g.estimate(reports), g.sampled_fraction(reports)
    assert est[0, 0] == EMPTY_ROUND_ESTIMATE and tilde[0, 0] == EMPTY_ROUND_ESTIMATE
    assert tilde[0, 1] == 0.4 and np.all(np.isfinite(est))


def test_every_user_reports_m_times_and_counts_are_consistent(rng):
    """K sums to m·N per trial; K1 ≤ K; X ≤ K; T-shot reporters are all N users."""
    pop = Population.from_matrix(SMALL_V)
    for m in (1, 4):
        r = simulate_reports(pop, m, BinaryRR.from_epsilon(1.0), rng=rng, n_trials=200)
        assert np.all(r.reporters.sum(axis=1) == m * pop.n_users)
        assert np.all((r.reporters_with_one <= r.reporters) & (r.reported_ones <= r.reporters))
    assert np.all(r.reporters == pop.n_users) and np.all(r.reporters_with_one == pop.ones_per_round())


def test_max_error_is_max_over_rounds():
    """Err = max_t |μ̂_t − μ_t| per trial."""
    pop = Population.from_matrix(np.array([[1, 0], [0, 0]]))  # μ = (0.5, 0)
    assert max_error(np.array([[0.5, 0.1], [0.2, -0.05]]), pop).tolist() == pytest.approx([0.1, 0.3])


def test_same_seed_same_estimates():
    """Determinism: equal seeds give equal estimates."""
    pop = Population.nested(np.array([3, 7, 5]), 10)
    a = Glance(1.0, 3).simulate(pop, rng=np.random.default_rng(4), n_trials=5)
    b = Glance(1.0, 3).simulate(pop, rng=np.random.default_rng(4), n_trials=5)
    assert np.array_equal(a.reported_ones, b.reported_ones) and np.array_equal(a.reporters, b.reporters)


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("epsilon", [0, -1.0, math.inf, math.nan])
def test_rejects_bad_epsilon(mechanism, epsilon):
    """ε ≤ 0 or non-finite: a clear error naming epsilon."""
    with pytest.raises(ValueError, match="epsilon must be"):
        mechanism(epsilon, 3)


def test_rejects_bad_rounds_and_populations(rng):
    """T < 1, a population with the wrong T, a non-Population and a too-large exact table are refused."""
    with pytest.raises(ValueError, match=r"n_rounds must be an integer in \[1, inf\]"):
        Glance(1.0, 0)
    with pytest.raises(ValueError, match="population must have n_rounds=3"):
        Glance(1.0, 3).simulate(Population.from_matrix(SMALL_V), rng=rng)
    with pytest.raises(ValueError, match="population must be a ldp_helpers.simulate.streams.Population"):
        Harmony(1.0, 4).simulate(SMALL_V, rng=rng)
    with pytest.raises(ValueError, match=r"n_rounds \(for an exact output table\) must be an integer in \[1, 10\]"):
        BasicOneTimeRappor(1.0, 11).stream_output_table()


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
@pytest.mark.parametrize("m", [1, 4])
def test_fast_simulator_matches_per_user_reference(rng, m):
    """(K_t, K1_t, X_t) from the fast simulator and the per-user reference agree in distribution."""
    pop = Population.from_matrix(SMALL_V)
    rr, trials = BinaryRR.from_epsilon(0.8), 3000
    fast = simulate_reports(pop, m, rr, rng=rng, n_trials=trials)
    refs = [StreamReports.from_user_reports(*reference_user_reports(pop, m, rr, rng=rng)) for _ in range(trials)]
    ref = StreamReports(pop.n_users, *(np.concatenate([getattr(r, f) for r in refs]) for f in ("reporters", "reporters_with_one", "reported_ones")))
    n1 = pop.n_users + 1
    for t in range(4):
        def joint(r):
            return (r.reporters[:, t] * n1 + r.reporters_with_one[:, t]) * n1 + r.reported_ones[:, t]
        assert two_sample_pvalue(joint(fast), joint(ref)) > 1e-3
    assert two_sample_pvalue(fast.reported_ones[:, 0] + fast.reported_ones[:, 2], ref.reported_ones[:, 0] + ref.reported_ones[:, 2]) > 1e-3
    # X_t is a sum of independent Bernoulli((m/T)·r_n) over users, r_n = p for a 1-holder, q otherwise.
    pi = m / 4 * np.where(SMALL_V == 1, rr.p, rr.q)  # (N, T)
    for r in (fast, ref):
        for t in range(4):
            assert_mean_close(r.reported_ones[:, t], pi[:, t].sum(), np.sum(pi[:, t] * (1 - pi[:, t])))


@pytest.mark.statistical
def test_harmony_is_unbiased_with_exact_variance(rng):
    """Harmony's μ̂_t has mean μ_t and variance (T c² − 1)/(4N) in every round."""
    pop = Population.nested(np.array([0, 250, 900, 1000, 600]), 1000)
    h = Harmony(1.5, 5)
    est = h.estimate(h.simulate(pop, rng=rng, n_trials=20_000))
    for t, mu in enumerate(pop.fractions()):
        assert_mean_close(est[:, t], mu, h.variance(pop.n_users))
        assert_variance_close(est[:, t], h.variance(pop.n_users))


@pytest.mark.statistical
def test_glance_rr_error_has_exact_conditional_variance(rng):
    """(μ̂_t − μ̃_t)/sqrt(e^ε/(K(e^ε−1)²)) has mean 0 and variance 1 (the RR part of the error)."""
    pop = Population.nested(np.array([100, 700, 2000]), 2000)
    g = Glance(1.2, 3)
    r = g.simulate(pop, rng=rng, n_trials=20_000)
    z = (g.estimate(r) - g.sampled_fraction(r)) / np.sqrt(g.rr_variance(r.reporters))
    assert_mean_close(z.ravel(), 0.0, 1.0)
    assert_variance_close(z.ravel(), 1.0)


@pytest.mark.statistical
def test_glance_sampling_error_is_hypergeometric(rng):
    """Given K_t, μ̃_t − μ_t has mean 0 and variance μ(1−μ)(N−K)/(K(N−1)) (reporters: a uniform subset)."""
    pop = Population.nested(np.array([300, 1500]), 2000)
    r = Glance(1.0, 2).simulate(pop, rng=rng, n_trials=20_000)
    mu, N, K = pop.fractions(), pop.n_users, r.reporters
    z = (Glance.sampled_fraction(r) - mu) / np.sqrt(mu * (1 - mu) * (N - K) / (K * (N - 1)))
    assert_mean_close(z.ravel(), 0.0, 1.0)
    assert_variance_close(z.ravel(), 1.0)


@pytest.mark.statistical
def test_basic_one_time_rappor_is_unbiased_with_exact_variance(rng):
    """T-shot μ̂_t is unbiased with the RR variance at ε/T over all N users."""
    pop = Population.nested(np.array([10, 500, 990]), 1000)
    b = BasicOneTimeRappor(3.0, 3)
    est = b.estimate(b.simulate(pop, rng=rng, n_trials=20_000))
    for t, mu in enumerate(pop.fractions()):
        assert_mean_close(est[:, t], mu, b.variance(mu, pop.n_users))
        assert_variance_close(est[:, t], b.variance(mu, pop.n_users))


# ---------------------------------------------------------------- experiment drivers


def test_constant_population_and_error_curve_rows():
    """The §6 stream has round(μN) ones every round; error_curve's row i is max_error of a run at ε_i (same seed)."""
    from ldp_helpers.experiments.glance import constant_population, error_curve

    pop = constant_population(0.9995, 10_000, 50)
    assert pop.n_groups == 2 and np.all(pop.ones_per_round() == 9995)
    errs = error_curve(Glance, pop, [1.0, 4.0], rng=np.random.default_rng(5), n_trials=7)
    same_seed = np.random.default_rng(5)
    direct = [max_error(g.estimate(g.simulate(pop, rng=same_seed, n_trials=7)), pop) for g in (Glance(1.0, 50), Glance(4.0, 50))]
    assert errs.shape == (2, 7) and np.array_equal(errs, np.array(direct))


def test_error_parts_exact_values_on_hand_made_reports():
    """rr = max|μ̂−μ̃|, sampling = max|μ̃−μ| and total = max|μ̂−μ| on reports worked out by hand (p = 3/4)."""
    from ldp_helpers.experiments.glance import error_parts

    pop = Population.nested(np.array([4, 2]), 8)  # μ = (0.5, 0.25)
    g = Glance(math.log(3), 2)  # p = 3/4, q = 1/4: μ̂ = 2·X/K − 1/2
    # trial 0: K = (4, 4), K1 = (3, 1), X = (3, 1) → μ̂ = (1, 0), μ̃ = (3/4, 1/4)
    # trial 1: K = (2, 6), K1 = (1, 2), X = (2, 3) → μ̂ = (3/2, 1/2), μ̃ = (1/2, 1/3)
    reports = StreamReports(8, np.array([[4, 4], [2, 6]]), np.array([[3, 1], [1, 2]]), np.array([[3, 1], [2, 3]]))
    parts = error_parts(g, reports, pop)
    assert parts["rr"] == pytest.approx([0.25, 1.0], abs=1e-12)
    assert parts["sampling"] == pytest.approx([0.25, 1 / 12], abs=1e-12)
    assert parts["total"] == pytest.approx([0.5, 1.0], abs=1e-12)


def test_glance_error_parts_is_error_parts_of_a_simulated_run():
    """glance_error_parts equals error_parts of glance.simulate with the same seed; the triangle inequality holds."""
    from ldp_helpers.experiments.glance import constant_population, error_parts, glance_error_parts

    g, pop = Glance(2.0, 20), constant_population(0.3, 2000, 20)
    parts = glance_error_parts(g, pop, rng=np.random.default_rng(9), n_trials=200)
    direct = error_parts(g, g.simulate(pop, rng=np.random.default_rng(9), n_trials=200), pop)
    assert all(np.array_equal(parts[k], direct[k]) for k in ("total", "rr", "sampling"))
    assert np.all(parts["total"] <= parts["rr"] + parts["sampling"] + 1e-12)


def test_fitted_slope_recovers_power_and_exponential_laws():
    """ln y vs ln x gives the power; ln y vs x gives the exponential rate; bad lengths are refused."""
    from ldp_helpers.experiments.glance import fitted_slope

    x = np.array([0.1, 0.2, 0.4])
    assert fitted_slope(x, 3 / x) == pytest.approx(-1.0)
    assert fitted_slope(x, np.exp(-0.5 * x), log_x=False) == pytest.approx(-0.5)
    with pytest.raises(ValueError, match="same length"):
        fitted_slope(x, x[:2])


def test_fitted_slope_log_correction_leaves_the_documented_bias_for_gaussian_maxima():
    """For the max of T |N(0,1)| errors (β = 0.05, T = 100…1600) the corrected slope is e + 0.013 (quantile), e + 0.041 (mean)."""
    from scipy import integrate, stats

    from ldp_helpers.experiments.glance import fitted_slope

    t, beta = 100.0 * 2 ** np.arange(5), 0.05
    mean_max = np.array([integrate.quad(lambda x, n=n: 1 - (2 * stats.norm.cdf(x) - 1) ** n, 0, np.inf)[0] for n in t])
    quantile_max = stats.norm.isf((1 - (1 - beta) ** (1 / t)) / 2)  # P(max_t |Z_t| > q) = beta exactly
    bias_mean = fitted_slope(t, t**0.5 * mean_max, log_correction_beta=beta) - 0.5
    bias_quantile = fitted_slope(t, t**0.5 * quantile_max, log_correction_beta=beta) - 0.5
    assert bias_mean == pytest.approx(0.041, abs=0.001)
    assert bias_quantile == pytest.approx(0.013, abs=0.001)
    assert fitted_slope(t, t**0.5 * mean_max) - 0.5 > bias_mean + 0.04  # the correction does remove most of it


def test_fitted_slope_log_correction_removes_the_union_bound_factor():
    """With β given, y = T^e·√ln(2T/β) fits slope e exactly; without it the slope is biased; bad β/x refused."""
    from ldp_helpers.experiments.glance import fitted_slope

    t = 100.0 * 2 ** np.arange(5)
    y = t ** 0.5 * np.sqrt(np.log(2 * t / 0.05))
    assert fitted_slope(t, y, log_correction_beta=0.05) == pytest.approx(0.5, abs=1e-12)
    assert fitted_slope(t, y) > 0.5 + 0.01
    with pytest.raises(ValueError, match="log_correction_beta"):
        fitted_slope(t, y, log_correction_beta=1.0)
    with pytest.raises(ValueError, match="x must be"):
        fitted_slope([0.01, 1.0], [1.0, 2.0], log_correction_beta=0.05)


def _exact_err_pmf(mechanism, mu, n_users):
    """At T = 1 everyone reports (K = N): Err takes the value |μ̂(x) − μ| w.p. pmf(x), x = 0..N."""
    from ldp_helpers.estimation.pure import support_count_pmf

    k1 = round(mu * n_users)
    pmf = support_count_pmf(k1, n_users, mechanism.randomizer.p, mechanism.randomizer.q)
    x = np.arange(n_users + 1)
    reports = StreamReports(n_users, np.full((x.size, 1), n_users), np.full((x.size, 1), k1), x[:, None])
    return np.abs(mechanism.estimate(reports)[:, 0] - k1 / n_users), pmf


@pytest.mark.statistical
def test_harmony_mean_error_at_one_round_matches_exact_law(rng):
    """error_curve's Harmony Err at T = 1 has the exact mean Σ pmf(x)|μ̂(x) − μ| (≈ σ√(2/π), σ² = (c² − 1)/(4N))."""
    from ldp_helpers.experiments.glance import constant_population, error_curve

    pop, trials = constant_population(0.3, 400, 1), 20_000
    errs = error_curve(Harmony, pop, [0.7, 2.0], rng=rng, n_trials=trials)
    for e, row in zip((0.7, 2.0), errs):
        values, pmf = _exact_err_pmf(Harmony(e, 1), 0.3, 400)
        mean, second = pmf @ values, pmf @ values**2
        assert mean == pytest.approx(math.sqrt(Harmony(e, 1).variance(400) * 2 / math.pi), rel=0.02)
        assert_mean_close(row, mean, second - mean**2)


@pytest.mark.statistical
def test_exceedance_probabilities_match_exact_tail(rng):
    """Pr[Err > b] from exceedance_probabilities agrees with the exact tail Σ_{|μ̂(x)−μ|>b} pmf(x) (Glance, T = 1)."""
    from ldp_helpers.experiments.glance import constant_population, exceedance_probabilities

    pop, trials, eps = constant_population(0.6, 300, 1), 20_000, np.array([0.5, 1.5])
    bounds = np.array([0.15, 0.05])
    probs = exceedance_probabilities(Glance, pop, eps, bounds, rng=rng, n_trials=trials)
    for e, b, prob in zip(eps, bounds, probs):
        values, pmf = _exact_err_pmf(Glance(float(e), 1), 0.6, 300)
        exact = pmf[values > b].sum()
        assert 0.05 < exact < 0.95
        assert_mean_close([prob], exact, exact * (1 - exact) / trials)
    with pytest.raises(ValueError, match="bounds must be a scalar or have one value per epsilon"):
        exceedance_probabilities(Glance, pop, eps, [0.1, 0.2, 0.3], rng=rng, n_trials=5)


def test_mean_error_grid_is_the_mean_of_error_samples_per_setting():
    """mean_error_grid broadcasts (N, T) and returns mean Err of error_samples in that order (same seed)."""
    from ldp_helpers.experiments.glance import constant_population, error_samples, mean_error_grid

    got = mean_error_grid(Harmony, 2.0, 0.5, 1000, [5, 10], rng=np.random.default_rng(3), n_trials=20)
    same = np.random.default_rng(3)
    want = [error_samples(Harmony(2.0, T), constant_population(0.5, 1000, T), rng=same, n_trials=20).mean() for T in (5, 10)]
    assert got.tolist() == want
    with pytest.raises(ValueError, match="n_rounds must be integers in"):
        mean_error_grid(Harmony, 2.0, 0.5, 1000, [0, 10], rng=same, n_trials=2)


def test_whole_stream_losses_are_epsilon():
    """whole_stream_losses keys (name, T, ε) to the exact stream loss, which equals ε (Theorem 3)."""
    from ldp_helpers.experiments.glance import whole_stream_losses

    losses = whole_stream_losses((Glance, BasicOneTimeRappor), ((1, 0.5), (3, 2.0)))
    assert set(losses) == {(n, T, e) for n in ("Glance", "BasicOneTimeRappor") for T, e in ((1, 0.5), (3, 2.0))}
    assert all(v == pytest.approx(k[2], rel=1e-9) for k, v in losses.items())


def test_simulate_reports_is_the_shared_stream_sampler():
    """simulate_reports returns streams.sample_stream_counts' (K, K1, X) for the randomizer's p, q (same seed)."""
    from ldp_helpers.simulate.streams import sample_stream_counts

    pop, rr = Population.from_matrix(SMALL_V), BinaryRR.from_epsilon(0.8)
    r = simulate_reports(pop, 2, rr, rng=np.random.default_rng(1), n_trials=6)
    K, K1, X = sample_stream_counts(pop, 2, rr.p, rr.q, rng=np.random.default_rng(1), n_trials=6)
    assert r.n_users == 14 and np.array_equal(r.reporters, K) and np.array_equal(r.reporters_with_one, K1) and np.array_equal(r.reported_ones, X)


def test_rr_variance_formula_and_rejects_fewer_than_one_reporter():
    """rr_variance(K) = e^ε/(K(e^ε−1)²) for K ≥ 1; K = 0, K < 0 or non-integer K is a ValueError naming n_reporters."""
    g = Glance(1.3, 4)
    K = np.array([[1, 7], [30, 200]])
    assert g.rr_variance(K) == pytest.approx(math.exp(1.3) / (K * math.expm1(1.3) ** 2), rel=1e-12)
    for bad in (0, -1, [3, 0], 2.5):
        with pytest.raises(ValueError, match="n_reporters must be"):
            g.rr_variance(bad)


def test_max_error_rejects_estimates_of_the_wrong_shape():
    """Estimates whose last axis is not T (or NaN estimates) give a ValueError naming estimates, not a broadcast error."""
    pop = Population.from_matrix(np.array([[1, 0], [0, 0]]))  # T = 2
    for bad in (np.zeros((3, 3)), np.zeros(3), 0.5, [[0.1, math.nan]]):
        with pytest.raises(ValueError, match="estimates must be"):
            max_error(bad, pop)
    assert max_error(np.zeros((4, 3, 2)), pop).shape == (4, 3)
