"""LPCC mechanisms (Glance, Harmony, T-shot): exact stream privacy, estimators, the contract's paths, and the drivers."""

import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from scipy import stats
from stat_checks import assert_mean_close, assert_variance_close, two_sample_pvalue

from ldp_helpers.bounds.extremes import rate_guide
from ldp_helpers.experiments.common import fitted_slope, max_error, mean_and_se
from ldp_helpers.experiments.m_shot import log_correction_residual
from ldp_helpers.mechanisms.continual import EMPTY_ROUND_ESTIMATE, NULL, BasicOneTimeRappor, Glance
from ldp_helpers.mechanisms.harmony import Harmony, HarmonyNguyen
from ldp_helpers.mechanisms.privacy import privacy_losses
from ldp_helpers.simulate.populations import Population, constant_population
from ldp_helpers.simulate.streams import sample_reporters

MECHANISMS = (Glance, Harmony, HarmonyNguyen, BasicOneTimeRappor)
# A small population with distinct, non-nested rows (T = 4).
SMALL_V = np.array(
    [[1, 0, 1, 1]] * 5 + [[0, 0, 1, 0]] * 4 + [[1, 1, 0, 0]] * 3 + [[0, 1, 1, 1]] * 2
)

# ---------------------------------------------------------------- exact


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("epsilon, n_rounds", [(0.3, 1), (1.0, 3), (2.5, 5), (8.0, 6)])
def test_whole_stream_output_table_is_exactly_epsilon_ldp(mechanism, epsilon, n_rounds):
    """Over a user's whole stream (all 2^T inputs) the privacy loss is exactly ε (Theorem 3): tight."""
    mech = mechanism(epsilon, n_rounds)
    assert mech.output_table().shape[0] == 2**n_rounds
    assert mech.privacy_loss() == pytest.approx(epsilon, rel=1e-9) and type(mech).tight


def test_privacy_losses_sweep_over_mechanisms():
    """privacy_losses over a grid of (mechanism, T, ε) gives ε everywhere (the notebook's Theorem 3 check)."""
    grid = [(cls, T, e) for cls in (Glance, BasicOneTimeRappor) for T, e in ((1, 0.5), (3, 2.0))]
    losses = privacy_losses(cls(e, T) for cls, T, e in grid)
    assert losses.shape == (4,) and np.allclose(losses, [e for _, _, e in grid], rtol=1e-9)


def test_one_shot_table_is_uniform_round_times_q_bin():
    """Glance's Pr[τ = s, y | v] is (1/T)·Q_Bin(y | v_s) (stream 0b101 = v = (1, 0, 1))."""
    g = Glance(1.0, 3)
    Q = g.randomizer.output_table()
    row = g.output_table()[0b101]
    assert np.allclose(row, np.r_[Q[1], Q[0], Q[1]] / 3, atol=1e-15)


def test_glance_perturb_reports_once_with_null_elsewhere(rng):
    """Algorithm 1: each user has exactly one non-NULL report, a bit; aggregate counts them as [K; X]."""
    g = Glance(0.9, 4)
    reports = g.perturb(SMALL_V, rng=rng)
    assert reports.shape == SMALL_V.shape and set(np.unique(reports)) <= {NULL, 0, 1}
    assert np.all((reports != NULL).sum(axis=1) == 1)
    K, X = g.aggregate(reports)
    assert K.sum() == SMALL_V.shape[0] and np.array_equal(X, (reports == 1).sum(axis=0))


def test_harmony_nguyen_estimate_from_aggregate_equals_per_user_average(rng):
    """Nguyen's Harmony: μ̂ from [K; X] equals (1 + mean_n z_{n,t})/2 computed from the users' z = ±T·c or 0."""
    h = HarmonyNguyen(1.3, 4)
    z = h.perturb(SMALL_V, rng=rng)
    assert np.all((z != 0).sum(axis=1) == 1) and np.allclose(np.abs(z[z != 0]), 4 * h.scale)
    assert np.allclose(
        h.estimate(h.aggregate(z), SMALL_V.shape[0]), 0.5 * (1 + z.mean(axis=0)), atol=1e-12
    )


def test_glance_estimate_is_pure_estimator_over_reporters(rng):
    """Glance's μ̂_t is ((mean report over η_t) − q)/(p − q), computed per user."""
    g = Glance(0.9, 4)
    reports = g.perturb(SMALL_V, rng=rng)
    est = g.estimate(g.aggregate(reports), SMALL_V.shape[0])
    rr = g.randomizer
    for t in range(4):
        said = reports[reports[:, t] != NULL, t]
        expected = (said.mean() - rr.q) / (rr.p - rr.q) if said.size else EMPTY_ROUND_ESTIMATE
        assert est[t] == pytest.approx(expected, abs=1e-12)


def test_glance_empty_round_convention_without_warnings():
    """A round with no reporter releases 1/2 (μ̂ and μ̃), with no division warning."""
    g = Glance(1.0, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = g.estimate(np.array([[0, 10], [0, 5]]), 10)
        tilde = g.sampled_fraction(np.array([0, 10]), np.array([0, 4]))
    assert est[0] == EMPTY_ROUND_ESTIMATE and tilde[0] == EMPTY_ROUND_ESTIMATE
    assert tilde[1] == 0.4 and np.all(np.isfinite(est))


def test_glance_exact_mean_and_variance_by_enumeration():
    """expected_estimate and variance equal the sums over the exact law of (K, K1, X) (N = 5, T = 3)."""
    from scipy import stats

    g, pop = Glance(0.8, 3), Population.nested(np.array([2, 5, 0]), 5)
    rr, N = g.randomizer, 5
    for t, ones in enumerate(pop.ones_per_round()):
        mean = second = 0.0
        for k in range(N + 1):
            pk = stats.binom.pmf(k, N, 1 / 3)
            for k1 in range(k + 1):
                pk1 = stats.hypergeom.pmf(k1, N, ones, k)
                for x in range(k + 1):
                    px = sum(
                        stats.binom.pmf(a, k1, rr.p) * stats.binom.pmf(x - a, k - k1, rr.q)
                        for a in range(x + 1)
                    )
                    est = g.estimate(np.array([[k] * 3, [x] * 3]), N)[t]
                    mean += pk * pk1 * px * est
                    second += pk * pk1 * px * est**2
        assert mean == pytest.approx(g.expected_estimate(pop)[t], rel=1e-10, abs=1e-12)
        assert second - mean**2 == pytest.approx(g.variance(pop)[t], rel=1e-9)
    assert (
        not Glance.unbiased and g.expected_estimate(pop)[2] > 0
    )  # the empty-round 1/2 biases a round with μ = 0


def test_sample_aggregate_shapes_and_consistency(rng):
    """[K; X] with K summing to m·N per survey and X ≤ K; T-shot reporters are all N users."""
    pop = Population(*np.unique(SMALL_V, axis=0, return_counts=True))
    for mech, m in ((Glance(1.0, 4), 1), (BasicOneTimeRappor(1.0, 4), 4)):
        agg = mech.sample_aggregate(pop, rng=rng, n_draws=200)
        assert agg.shape == (200, 2, 4) and mech.sample_aggregate(pop, rng=rng).shape == (2, 4)
        K, X = agg[:, 0], agg[:, 1]
        assert np.all(K.sum(axis=1) == m * pop.n_users) and np.all(X <= K)
    assert np.all(K == pop.n_users)


def test_glance_sample_aggregate_is_reporters_then_randomized_reports():
    """sample_aggregate = randomize_reporters(sample_reporters(...)) on the same stream (the drivers' two-step path)."""
    pop, g = Population(*np.unique(SMALL_V, axis=0, return_counts=True)), Glance(0.8, 4)
    direct = g.sample_aggregate(pop, rng=np.random.default_rng(1), n_draws=6)
    same = np.random.default_rng(1)
    K, K1 = sample_reporters(pop, 1, rng=same, n_draws=6)
    assert np.array_equal(direct, g.randomize_reporters(K, K1, rng=same))


def test_max_error_is_max_over_rounds():
    """Err = max_t |μ̂_t − μ_t| per survey."""
    assert max_error(np.array([[0.5, 0.1], [0.2, -0.05]]), [0.5, 0.0]).tolist() == pytest.approx(
        [0.1, 0.3]
    )


def test_same_seed_same_aggregates():
    """Determinism: equal seeds give equal draws."""
    pop = Population.nested(np.array([3, 7, 5]), 10)
    a = Glance(1.0, 3).sample_aggregate(pop, rng=np.random.default_rng(4), n_draws=5)
    b = Glance(1.0, 3).sample_aggregate(pop, rng=np.random.default_rng(4), n_draws=5)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("epsilon", [0, -1.0, math.inf, math.nan])
def test_rejects_bad_epsilon(mechanism, epsilon):
    """ε ≤ 0 or non-finite: a clear error naming epsilon."""
    with pytest.raises(ValueError, match="epsilon must be"):
        mechanism(epsilon, 3)


def test_rejects_bad_rounds_populations_and_aggregates(rng):
    """T < 1, a population with the wrong T, a non-Population, bad [K; X] and a too-large exact table are refused."""
    with pytest.raises(ValueError, match=r"n_rounds must be an integer in \[1, inf\]"):
        Glance(1.0, 0)
    with pytest.raises(ValueError, match="truth must be data with T = 3 rounds"):
        Glance(1.0, 3).sample_aggregate(
            Population(*np.unique(SMALL_V, axis=0, return_counts=True)), rng=rng
        )
    with pytest.raises(ValueError, match="truth must be a Population"):
        Harmony(1.0, 4).sample_aggregate(SMALL_V, rng=rng)
    with pytest.raises(
        ValueError, match=r"aggregate must be an array of shape \(2, 2\) or \(n_draws, 2, 2\)"
    ):
        Glance(1.0, 2).estimate(np.array([1, 2]), 5)
    with pytest.raises(
        ValueError, match="aggregate must be reported 1s X_t at most the reporters K_t"
    ):
        Harmony(1.0, 2).estimate(np.array([[1, 2], [2, 2]]), 5)
    with pytest.raises(ValueError, match=r"aggregate must be integers in \[0, 5\]"):
        BasicOneTimeRappor(1.0, 2).estimate(np.array([[5, 5], [6, 2]]), 5)
    with pytest.raises(
        ValueError,
        match=r"values must be a 2-D array \(users × rounds\) whose last axis has length 4",
    ):
        Glance(1.0, 4).perturb(SMALL_V[:, :3], rng=rng)
    with pytest.raises(ValueError, match=r"reports must be integers in \[-1, 1\]"):
        Glance(1.0, 4).aggregate(SMALL_V * 2)
    with pytest.raises(
        ValueError, match=r"n_rounds \(for an exact output table\) must be an integer in \[1, 10\]"
    ):
        BasicOneTimeRappor(1.0, 11).output_table()


def test_rr_variance_formula_and_rejects_fewer_than_one_reporter():
    """rr_variance(K) = e^ε/(K(e^ε−1)²) for K ≥ 1; K = 0, K < 0 or non-integer K is a ValueError naming n_reporters."""
    g = Glance(1.3, 4)
    K = np.array([[1, 7], [30, 200]])
    assert g.rr_variance(K) == pytest.approx(math.exp(1.3) / (K * math.expm1(1.3) ** 2), rel=1e-12)
    for bad in (0, -1, [3, 0], 2.5):
        with pytest.raises(ValueError, match="n_reporters must be"):
            g.rr_variance(bad)


@pytest.mark.parametrize("epsilon", [1e-6, 0.01, 8.0, 20.0])
def test_rr_variance_keeps_every_digit_at_small_and_large_epsilon(epsilon):
    """e^ε/(K expm1(ε)²) to 1e-14: the generic p(1 − p) + q(1 − q) over (p − q)² was 2e-8 off at ε = 20
    (1 − p rounds) and 4e-10 at ε = 1e-6 (p − q cancels); Glance's variance takes its RR part from here."""
    g = Glance(epsilon, 10)
    assert g.rr_variance(3) == pytest.approx(
        math.exp(epsilon) / (3 * math.expm1(epsilon) ** 2), rel=1e-14
    )


def test_max_error_rejects_estimates_of_the_wrong_shape():
    """Estimates whose last axis is not T (or NaN estimates) give a ValueError naming estimates, not a broadcast error."""
    for bad in (np.zeros((3, 3)), np.zeros(3), 0.5, [[0.1, math.nan]]):
        with pytest.raises(ValueError, match="estimates must be"):
            max_error(bad, [0.5, 0.0])
    assert max_error(np.zeros((4, 3, 2)), [0.5, 0.0]).shape == (4, 3)


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_sample_aggregate_matches_per_user_path(rng, mechanism):
    """[K_t; X_t] from sample_aggregate and from aggregate(perturb(V)) agree jointly per round and across rounds."""
    pop, n_draws = Population(*np.unique(SMALL_V, axis=0, return_counts=True)), 3000
    mech = mechanism(0.8 * (4 if mechanism is BasicOneTimeRappor else 1), 4)
    fast = mech.sample_aggregate(pop, rng=rng, n_draws=n_draws)
    ref = np.array([mech.aggregate(mech.perturb(SMALL_V, rng=rng)) for _ in range(n_draws)])
    n1 = pop.n_users + 1
    for t in range(4):
        assert (
            two_sample_pvalue(fast[:, 0, t] * n1 + fast[:, 1, t], ref[:, 0, t] * n1 + ref[:, 1, t])
            > 1e-3
        )
    assert two_sample_pvalue(fast[:, 1, 0] + fast[:, 1, 2], ref[:, 1, 0] + ref[:, 1, 2]) > 1e-3
    # X_t is a sum of independent Bernoulli((m/T)·r_n) over users, r_n = p for a 1-holder, q otherwise.
    rr, share = mech.randomizer, mech.rounds_per_user / 4
    pi = share * np.where(SMALL_V == 1, rr.p, rr.q)  # (N, T)
    for sample in (fast, ref):
        for t in range(4):
            assert_mean_close(sample[:, 1, t], pi[:, t].sum(), np.sum(pi[:, t] * (1 - pi[:, t])))


@pytest.mark.statistical
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_estimate_has_the_exact_mean_and_variance(rng, mechanism):
    """μ̂_t averages expected_estimate (μ_t unless Glance's empty rounds) with the exact variance, every round."""
    pop = Population.nested(np.array([0, 250, 900, 1000, 600]), 1000)
    mech = mechanism(1.5 * (5 if mechanism is BasicOneTimeRappor else 1), 5)
    est = mech.estimate(mech.sample_aggregate(pop, rng=rng, n_draws=20_000), pop.n_users)
    for t, (mean, var) in enumerate(zip(mech.expected_estimate(pop), mech.variance(pop))):
        assert_mean_close(est[:, t], mean, var)
        assert_variance_close(est[:, t], var)


@pytest.mark.statistical
def test_glance_variance_includes_empty_rounds(rng):
    """With N = 8, T = 4 a round is empty w.p. 0.1: the exact bias and variance still hold."""
    pop = Population.nested(np.array([0, 2, 8, 5]), 8)
    g = Glance(2.0, 4)
    assert 0.09 < g.empty_round_probability(8) < 0.11
    est = g.estimate(g.sample_aggregate(pop, rng=rng, n_draws=40_000), 8)
    for t, (mean, var) in enumerate(zip(g.expected_estimate(pop), g.variance(pop))):
        assert_mean_close(est[:, t], mean, var)
    assert abs(g.expected_estimate(pop)[0] - 0.0) > 0.04  # the empty-round bias is visible at μ = 0


@pytest.mark.statistical
def test_glance_rr_error_has_exact_conditional_variance(rng):
    """(μ̂_t − μ̃_t)/sqrt(e^ε/(K(e^ε−1)²)) has mean 0 and variance 1 (the RR part of the error)."""
    pop = Population.nested(np.array([100, 700, 2000]), 2000)
    g = Glance(1.2, 3)
    K, K1 = sample_reporters(pop, 1, rng=rng, n_draws=20_000)
    z = (
        g.estimate(g.randomize_reporters(K, K1, rng=rng), 2000) - g.sampled_fraction(K, K1)
    ) / np.sqrt(g.rr_variance(K))
    assert_mean_close(z.ravel(), 0.0, 1.0)
    assert_variance_close(z.ravel(), 1.0)


@pytest.mark.statistical
def test_glance_sampling_error_is_hypergeometric(rng):
    """Given K_t, μ̃_t − μ_t has mean 0 and variance μ(1−μ)(N−K)/(K(N−1)) (reporters: a uniform subset)."""
    pop = Population.nested(np.array([300, 1500]), 2000)
    K, K1 = sample_reporters(pop, 1, rng=rng, n_draws=20_000)
    mu, N = pop.fractions(), pop.n_users
    z = (Glance.sampled_fraction(K, K1) - mu) / np.sqrt(mu * (1 - mu) * (N - K) / (K * (N - 1)))
    assert_mean_close(z.ravel(), 0.0, 1.0)
    assert_variance_close(z.ravel(), 1.0)


# ---------------------------------------------------------------- experiment drivers


def test_error_curve_rows_are_max_errors_of_surveys():
    """error_curve's row i is max_error of sample_aggregate's surveys at ε_i (same seed)."""
    from ldp_helpers.experiments.glance import error_curve

    pop = constant_population(0.9995, 10_000, 50)
    errs = error_curve(Glance, pop, [1.0, 4.0], rng=np.random.default_rng(5), n_draws=7)
    same_seed = np.random.default_rng(5)
    direct = [
        max_error(
            g.estimate(g.sample_aggregate(pop, rng=same_seed, n_draws=7), pop.n_users),
            pop.fractions(),
        )
        for g in (Glance(1.0, 50), Glance(4.0, 50))
    ]
    assert errs.shape == (2, 7) and np.array_equal(errs, np.array(direct))


def test_error_parts_exact_values_on_hand_made_surveys():
    """rr = max|μ̂−μ̃|, sampling = max|μ̃−μ| and total = max|μ̂−μ| on surveys worked out by hand (p = 3/4)."""
    from ldp_helpers.experiments.glance import _error_parts

    g, mu = Glance(math.log(3), 2), np.array([0.5, 0.25])  # p = 3/4, q = 1/4: μ̂ = 2·X/K − 1/2
    # survey 0: K = (4, 4), K1 = (3, 1), X = (3, 1) → μ̂ = (1, 0), μ̃ = (3/4, 1/4)
    # survey 1: K = (2, 6), K1 = (1, 2), X = (2, 3) → μ̂ = (3/2, 1/2), μ̃ = (1/2, 1/3)
    K, K1, X = np.array([[4, 4], [2, 6]]), np.array([[3, 1], [1, 2]]), np.array([[3, 1], [2, 3]])
    parts = _error_parts(g.estimate(np.stack([K, X], axis=1), 8), g.sampled_fraction(K, K1), mu)
    assert parts["rr"] == pytest.approx([0.25, 1.0], abs=1e-12)
    assert parts["sampling"] == pytest.approx([0.25, 1 / 12], abs=1e-12)
    assert parts["total"] == pytest.approx([0.5, 1.0], abs=1e-12)


def test_glance_error_parts_total_is_the_error_of_sample_aggregate():
    """_glance_error_parts' total equals error_curve's Err of the same seed; the triangle inequality holds."""
    from ldp_helpers.experiments.glance import _glance_error_parts, error_curve

    g, pop = Glance(2.0, 20), constant_population(0.3, 2000, 20)
    parts = _glance_error_parts(g, pop, rng=np.random.default_rng(9), n_draws=200)
    assert np.array_equal(
        parts["total"],
        error_curve(Glance, pop, [2.0], rng=np.random.default_rng(9), n_draws=200)[0],
    )
    assert np.all(parts["total"] <= parts["rr"] + parts["sampling"] + 1e-12)


def test_fitted_slope_recovers_power_and_exponential_laws():
    """ln y vs ln x gives the power; ln y vs x gives the exponential rate; bad lengths are refused."""
    x = np.array([0.1, 0.2, 0.4])
    assert fitted_slope(x, 3 / x) == pytest.approx(-1.0)
    assert fitted_slope(x, np.exp(-0.5 * x), log_x=False) == pytest.approx(-0.5)
    with pytest.raises(ValueError, match="same length"):
        fitted_slope(x, x[:2])


def test_fitted_slope_log_correction_leaves_the_documented_bias_for_gaussian_maxima():
    """For the max of T |N(0,1)| errors (β = 0.05, T = 100…1600) the corrected slope is e + 0.013 (quantile), e + 0.041 (mean)."""
    from scipy import integrate, stats

    t, beta = 100.0 * 2 ** np.arange(5), 0.05
    mean_max = np.array(
        [
            integrate.quad(lambda x, n=n: 1 - (2 * stats.norm.cdf(x) - 1) ** n, 0, np.inf)[0]
            for n in t
        ]
    )
    quantile_max = stats.norm.isf(
        (1 - (1 - beta) ** (1 / t)) / 2
    )  # P(max_t |Z_t| > q) = beta exactly
    bias_mean = fitted_slope(t, t**0.5 * mean_max, log_correction_beta=beta) - 0.5
    bias_quantile = fitted_slope(t, t**0.5 * quantile_max, log_correction_beta=beta) - 0.5
    assert bias_mean == pytest.approx(0.041, abs=0.001)
    assert bias_quantile == pytest.approx(0.013, abs=0.001)
    assert (
        fitted_slope(t, t**0.5 * mean_max) - 0.5 > bias_mean + 0.04
    )  # the correction does remove most of it


def test_fitted_slope_log_correction_removes_the_union_bound_factor():
    """With β given, y = T^e·√ln(2T/β) fits slope e exactly; without it the slope is biased; bad β/x refused."""
    t = 100.0 * 2 ** np.arange(5)
    y = t**0.5 * np.sqrt(np.log(2 * t / 0.05))
    assert fitted_slope(t, y, log_correction_beta=0.05) == pytest.approx(0.5, abs=1e-12)
    assert fitted_slope(t, y) > 0.5 + 0.01
    with pytest.raises(ValueError, match="log_correction_beta"):
        fitted_slope(t, y, log_correction_beta=1.0)
    with pytest.raises(ValueError, match="x must be"):
        fitted_slope([0.01, 1.0], [1.0, 2.0], log_correction_beta=0.05)


def _exact_err_pmf(mechanism, mu, n_users):
    """At T = 1 everyone reports (K = N): Err takes the value |μ̂(x) − μ| w.p. pmf(x), x = 0..N."""
    from ldp_helpers.mechanisms.pure import support_count_pmf

    k1 = round(mu * n_users)
    pmf = support_count_pmf(k1, n_users, mechanism.randomizer.p, mechanism.randomizer.q)
    x = np.arange(n_users + 1)
    aggregates = np.stack([np.full((x.size, 1), n_users), x[:, None]], axis=1)  # [K = N; X = x]
    return np.abs(mechanism.estimate(aggregates, n_users)[:, 0] - k1 / n_users), pmf


@pytest.mark.statistical
def test_harmony_mean_error_at_one_round_matches_exact_law(rng):
    """error_curve's Harmony Err at T = 1 has the exact mean Σ pmf(x)|μ̂(x) − μ| (≈ σ√(2/π), σ² = (c² − 1)/(4N))."""
    from ldp_helpers.experiments.glance import error_curve

    pop, n_draws = constant_population(0.3, 400, 1), 20_000
    errs = error_curve(HarmonyNguyen, pop, [0.7, 2.0], rng=rng, n_draws=n_draws)
    for e, row in zip((0.7, 2.0), errs):
        values, pmf = _exact_err_pmf(HarmonyNguyen(e, 1), 0.3, 400)
        mean, second = pmf @ values, pmf @ values**2
        assert mean == pytest.approx(
            math.sqrt(HarmonyNguyen(e, 1).variance(pop)[0] * 2 / math.pi), rel=0.02
        )
        assert_mean_close(row, mean, second - mean**2)


@pytest.mark.statistical
def test_exceedance_probabilities_match_exact_tail(rng):
    """Pr[Err > b] from exceedance_probabilities agrees with the exact tail Σ_{|μ̂(x)−μ|>b} pmf(x) (Glance, T = 1)."""
    from ldp_helpers.experiments.glance import exceedance_probabilities

    pop, n_draws, eps = constant_population(0.6, 300, 1), 20_000, np.array([0.5, 1.5])
    bounds = np.array([0.15, 0.05])
    probs = exceedance_probabilities(Glance, pop, eps, bounds, rng=rng, n_draws=n_draws)
    for e, b, prob in zip(eps, bounds, probs):
        values, pmf = _exact_err_pmf(Glance(float(e), 1), 0.6, 300)
        exact = pmf[values > b].sum()
        assert 0.05 < exact < 0.95
        assert_mean_close([prob], exact, exact * (1 - exact) / n_draws)
    with pytest.raises(
        ValueError,
        match=r"bounds must be a scalar or one value per epsilon \(2\); got an array of shape \(3,\)",
    ):
        exceedance_probabilities(Glance, pop, eps, [0.1, 0.2, 0.3], rng=rng, n_draws=5)


def test_mean_error_grid_is_the_mean_of_error_curve_per_setting():
    """mean_error_grid broadcasts (N, T) and returns mean Err of error_curve in that order (same seed)."""
    from ldp_helpers.experiments.glance import error_curve, mean_error_grid

    got = mean_error_grid(
        Harmony, 2.0, 0.5, 1000, [5, 10], rng=np.random.default_rng(3), n_draws=20
    )
    same = np.random.default_rng(3)
    want = [
        error_curve(Harmony, constant_population(0.5, 1000, T), [2.0], rng=same, n_draws=20)[
            0
        ].mean()
        for T in (5, 10)
    ]
    assert got.tolist() == want
    with pytest.raises(ValueError, match="n_rounds must be integers in"):
        mean_error_grid(Harmony, 2.0, 0.5, 1000, [0, 10], rng=same, n_draws=2)


def test_paper_harmony_sends_its_bit_in_one_round_and_zero_elsewhere(rng):
    """[glance] §4.1 line 9: a 0/1 array with at most one 1 per user; μ̂ = (T·mean_n y − q)/(p − q) per round."""
    h = Harmony(1.3, 4)
    y = h.perturb(SMALL_V, rng=rng)
    assert set(np.unique(y)) <= {0, 1} and np.all(y.sum(axis=1) <= 1)
    rr = h.randomizer
    assert np.allclose(
        h.estimate(h.aggregate(y), SMALL_V.shape[0]),
        (4 * y.mean(axis=0) - rr.q) / (rr.p - rr.q),
        atol=1e-12,
    )


def test_paper_harmony_output_table_merges_the_zero_vectors():
    """T + 1 outputs (all-zero vector, e_s); rows sum to 1; the loss is exactly ε."""
    h = Harmony(0.8, 3)
    table = h.output_table()
    assert table.shape == (8, 4) and np.allclose(table.sum(axis=1), 1.0, atol=1e-15)
    assert h.privacy_loss() == pytest.approx(0.8, abs=1e-12)


@pytest.mark.parametrize("eps, T", [(0.5, 10), (3.0, 10), (8.0, 50)])
def test_paper_harmony_variance_at_mu_one_is_theorem_4s_term(eps, T):
    """Var[μ̂_t] at μ = 1 equals (T/N)·e^ε(e^ε+1)/(e^ε−1)²·(1 − e^ε/(T(e^ε+1))) ([glance] Theorem 4)."""
    N = 1000
    e = math.exp(eps)
    want = T / N * e * (e + 1) / (e - 1) ** 2 * (1 - e / (T * (e + 1)))
    assert Harmony(eps, T).variance(constant_population(1.0, N, T))[0] == pytest.approx(
        want, rel=1e-12
    )
    # Nguyen's ±c variant is not that mechanism: its variance is smaller by a factor → 4 as ε grows
    ratio = want / HarmonyNguyen(eps, T).variance(constant_population(1.0, N, T))[0]
    assert ratio > 1.0


@pytest.mark.statistical
def test_paper_harmony_simulated_mean_and_variance_match_exact():
    """Fast sampler: mean within 5 SE of μ and variance within 5 SE (χ² based) of the exact formula."""
    h, pop = Harmony(2.0, 5), constant_population(0.3, 2000, 5)
    est = h.estimate(
        h.sample_aggregate(pop, rng=np.random.default_rng(11), n_draws=4000), pop.n_users
    )
    var = h.variance(pop)
    se_mean = np.sqrt(var / est.shape[0])
    assert np.all(np.abs(est.mean(axis=0) - 0.3) < 5 * se_mean)
    se_var = var * math.sqrt(2 / (est.shape[0] - 1))
    assert np.all(np.abs(est.var(axis=0, ddof=1) - var) < 5 * se_var)


@pytest.mark.statistical
def test_fitted_slope_se_is_the_spread_of_fitted_slopes():
    """fitted_slope_se matches the standard deviation of slopes fitted to independent simulated means.

    Each y_i is the mean of R = 400 exponential draws with mean x_i^{-1/2} (SE y_i/20).  Over 2000
    replicates the sample SD has relative SE 1/√(2·1999) ≈ 1.6 %; the delta method's bias at R = 400
    is far below that, so 5 × 1.6 % = 8 % is the tolerance.
    """
    from ldp_helpers.experiments.common import fitted_slope_se

    rng = np.random.default_rng(2026)
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    truth, runs = x**-0.5, 400
    means = rng.exponential(truth, size=(2000, runs, x.size)).mean(axis=1)
    slopes = np.array([fitted_slope(x, m) for m in means])
    predicted = fitted_slope_se(x, truth, truth / np.sqrt(runs))
    assert slopes.std(ddof=1) == pytest.approx(predicted, rel=0.08)
    assert (
        abs(slopes.mean() + 0.5) < 5 * predicted / np.sqrt(2000) + 1e-3
    )  # unbiased up to the delta method's O(1/R)
    with pytest.raises(ValueError, match="y_se"):
        fitted_slope_se(x, truth, truth[:3])


def test_a_slope_needs_two_distinct_abscissae():
    """Equal x (or rounds) have no slope: polyfit returned 0.396 for fitted_slope([2, 2], [1, 3]) and 0.023 for
    log_correction_residual([5, 5]) (with a RankWarning); both are refused naming the abscissae."""
    with pytest.raises(
        ValueError, match="x must be at least two distinct x; got all abscissae equal"
    ):
        fitted_slope([2, 2], [1, 3])
    with pytest.raises(ValueError, match="x must be at least two distinct x"):
        fitted_slope([2.0, 2.0, 2.0], [1, 3, 9], log_x=False)
    with pytest.raises(ValueError, match="rounds must be at least two distinct T"):
        log_correction_residual([5, 5], 0.1, quantile=True)


def test_log_corrected_fits_at_tiny_beta_stay_finite():
    """β = 1e-300 over T = 1e9 rounds: 2T/β overflows and log ∞ made the corrected slope and the rate guide NaN; the
    correction is log 2T − log β there (y ∝ T·√log(2T/β) is fitted with slope exactly 1)."""
    t, beta = np.array([1e9, 2e9, 4e9]), 1e-300
    log_term = np.log(2 * t) - math.log(beta)
    assert fitted_slope(t, t * np.sqrt(log_term), log_correction_beta=beta) == pytest.approx(1.0)
    guide = rate_guide(t, 1.0, 1.0, beta)
    assert guide == pytest.approx(t / t[0] * np.sqrt(log_term / log_term[0]))
    assert math.isfinite(log_correction_residual([10**8, 10**9], beta, quantile=False))


def test_rate_guide_takes_one_axis_of_rounds_and_refuses_an_overflowing_exponent():
    """rounds must be 1-D (a scalar raised IndexError, a 2-D array was divided by its own first row: all 1s);
    T^e beyond double range gave 0/0 or ∞/∞ = NaN, first point included, where the guide is 2, 0; a guide
    beyond the largest double (2·10^1000) is no number: refused naming exponent, with its allowed range."""
    assert rate_guide([10, 100], 2.0, -1000.0, 0.1).tolist() == [2.0, 0.0]
    with pytest.raises(ValueError, match=r"^exponent must be a real at most 307\.875"):
        rate_guide([10, 100], 2.0, 1000.0, 0.1)
    for rounds in (10, [[10, 100]]):
        with pytest.raises(ValueError, match="rounds must be a 1-D array"):
            rate_guide(rounds, 2.0, 0.5, 0.1)


def test_fitted_slope_takes_one_axis():
    """2-D x or y raised numpy.polyfit's "expected 1D vector for x" (a TypeError from inside numpy)."""
    with pytest.raises(ValueError, match="x must be a 1-D array"):
        fitted_slope([[1, 2], [3, 4]], [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="y must be a 1-D array"):
        fitted_slope([1, 2, 3, 4], [[1, 2], [3, 4]])


def test_mean_and_se_of_samples_near_the_double_limit_are_finite():
    """Samples near 1e308 (or beyond 1e154, whose squares overflow): the sum or the squared deviations gave
    mean or SE ∞ where both are finite; taken over the samples scaled by their largest."""
    mean, se = mean_and_se([1e308, 1e308])
    assert mean == 1e308 and se == 0.0
    mean, se = mean_and_se([[1e200, 3e200], [1.0, 3.0]])
    assert mean.tolist() == pytest.approx([2e200, 2.0]) and se.tolist() == pytest.approx(
        [1e200, 1.0]
    )


def test_glance_variance_of_a_huge_population_needs_no_term_per_user():
    """Above 2·10⁶ users Var[μ̂_t] uses E[1/K_t; K_t ≥ 1] (the SMP moment) instead of N terms: equal to the
    N-term sum at N = 3·10⁶, and finite at once at N = 10¹⁰ (before: a MemoryError of 74.5 GiB; 21 s at 10⁸)."""
    glance = Glance(1.0, 4)
    N = 3 * 10**6
    population = Population.nested([N // 2, N // 4, 0, N], N)
    k = np.arange(1, N + 1)
    pmf = stats.binom.pmf(k, N, 1 / 4)
    rr, mu, empty = glance.randomizer, population.fractions(), glance.empty_round_probability(N)
    by_terms = (
        rr.p * rr.q / (rr.p - rr.q) ** 2 * (pmf @ (1.0 / k))
        + mu * (1 - mu) * (pmf @ ((N - k) / (k * (N - 1.0))))
        + empty * (1 - empty) * (mu - EMPTY_ROUND_ESTIMATE) ** 2
    )
    np.testing.assert_allclose(glance.variance(population), by_terms, rtol=1e-12)
    huge = glance.variance(Population.nested([5 * 10**9] * 4, 10**10))
    assert np.all(np.isfinite(huge)) and huge == pytest.approx(
        4 * rr.p * rr.q / (rr.p - rr.q) ** 2 / 1e10 + 0.25 * 3 / 1e10, rel=1e-6
    )


def _mp_glance_variance(glance, population):
    """Var[μ̂_t] as the [glance] Claims 1–2 sum over every k, in 50 digits: pmf(k)(pq/(k(p−q)²) +
    μ(1−μ)(N−k)/(k(N−1))) plus the empty round's π0(1 − π0)(μ − 1/2)²."""
    with mp.workdps(50):
        N, prob = population.n_users, mp.mpf(1) / glance.n_rounds
        p = 1 / (1 + mp.exp(-mp.mpf(glance.epsilon)))
        rr = p * (1 - p) / (2 * p - 1) ** 2
        pmf = [mp.binomial(N, k) * prob**k * (1 - prob) ** (N - k) for k in range(N + 1)]
        out = []
        for mu in population.fractions():
            mu = mp.mpf(mu)
            sampling = [
                mu * (1 - mu) * (N - k) / (k * (N - 1)) if N > 1 else 0 for k in range(1, N + 1)
            ]
            total = mp.fsum(pmf[k] * (rr / k + sampling[k - 1]) for k in range(1, N + 1))
            out.append(float(total + pmf[0] * (1 - pmf[0]) * (mu - mp.mpf(1) / 2) ** 2))
        return np.array(out)


@pytest.mark.parametrize("epsilon", [1.0, 20.0])
@pytest.mark.parametrize("n_rounds", [1, 2, 7])
@pytest.mark.parametrize("n_users", [1, 2, 5, 200])
def test_glance_variance_is_one_form_equal_to_the_sum_over_every_k(n_users, n_rounds, epsilon):
    """Var[μ̂_t] from E[1/K; K ≥ 1] of Bin(N, 1/T) and of Bin(N − 1, 1/T) (the sampling part as (1 − 1/T)
    N/(N − 1) E[1/K']) at every N equals the 50-digit sum over every k to 1e-12 (Glance kept its own N-term
    sum below 2·10⁶ users beside the moment above)."""
    glance = Glance(epsilon, n_rounds)
    ones = [n_users, n_users // 2, 0, (2 * n_users) // 3][:n_rounds] + [1] * max(0, n_rounds - 4)
    population = Population.nested(ones, n_users)
    np.testing.assert_allclose(
        glance.variance(population), _mp_glance_variance(glance, population), rtol=1e-12, atol=0
    )


def test_glance_variance_of_one_round_above_the_full_sum_has_no_sampling_part():
    """T = 1: every user reports, K = N, the sampling part is 0 and Var = e^ε/(N(e^ε − 1)²).  Above 2·10⁶ users
    the moment's quadrature raised "math domain error" (log1p(−1)); the sampling part as (N E[1/K] − 1)/(N − 1)
    would leave up to 1e-16/N, 1.2e-8 relative at ε = 20, where (1 − 1/T) = 0 makes it exactly 0."""
    glance, N = Glance(20.0, 1), 3 * 10**6
    population = Population.nested([N // 3], N)
    assert glance.variance(population)[0] == pytest.approx(
        math.exp(20.0) / (N * math.expm1(20.0) ** 2), rel=1e-12, abs=0
    )


@pytest.mark.parametrize("n_rounds, n_users", [(10**9, 10**9), (10**12, 10**9), (10, 50), (3, 1)])
def test_the_empty_round_probability_and_its_complement_keep_their_digits(n_rounds, n_users):
    """π0 = (1 − 1/T)^N was the power of the rounded 1 − 1/T (3e-8 off at T = N = 1e9): as exp of N log1p(−1/T)
    within 1e-14 of mpmath; E[μ̂_t] (with 1 − π0 as −expm1 of the same) too, on populations of a few rounds."""
    g = Glance(1.0, n_rounds)
    with mp.workdps(50):
        empty = (1 - 1 / mp.mpf(n_rounds)) ** n_users
    assert g.empty_round_probability(n_users) == pytest.approx(float(empty), rel=1e-14, abs=0.0)
    if n_rounds <= 10:  # μ = 0 in every round: E[μ̂_t] = π0/2; μ = 1: 1 − π0/2
        for mu, exact in ((0.0, empty / 2), (1.0, 1 - empty / 2)):
            expected = g.expected_estimate(constant_population(mu, n_users, n_rounds))
            assert float(expected[0]) == pytest.approx(float(exact), rel=1e-14, abs=0.0)
