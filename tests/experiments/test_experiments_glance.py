"""The Glance notebook's measurement helpers (experiments.glance) and its figure functions (pipeline.plots.glance)."""

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ldp_helpers.bounds import chernoff as ch
from ldp_helpers.bounds import glance as gb
from ldp_helpers.experiments import glance as runs
from ldp_helpers.experiments.common import (
    bonferroni_z,
    fitted_slope,
    fitted_slope_se,
    in_se,
    log_gap,
    mean_and_se,
    mean_gap,
    share_se,
    variance_ratio_se,
    versus_exact,
)
from ldp_helpers.mechanisms.continual import Glance
from ldp_helpers.mechanisms.harmony import Harmony
from ldp_helpers.simulate.populations import constant_population
from ldp_tools.pipeline.plots import glance as plots


def test_mean_and_se_is_the_mean_and_its_standard_error_per_row():
    """Row means and sd/√n (ddof = 1) over the surveys; fewer than two surveys is refused."""
    x = np.array([[1.0, 2.0, 4.0], [0.5, 0.5, 0.5]])
    mean, se = mean_and_se(x)
    assert mean.tolist() == [7 / 3, 0.5]
    assert se == pytest.approx([np.std([1, 2, 4], ddof=1) / math.sqrt(3), 0.0], abs=1e-15)
    with pytest.raises(ValueError, match="samples must be an array with at least two surveys"):
        mean_and_se(np.array([[1.0], [2.0]]))


def test_log_gap_se_is_the_spread_of_log_ratios_of_independent_means():
    """log_gap's delta-method SE matches the spread of ln(ā/b̄) over 2,000 simulated pairs (within 10 %).

    A wrong SE, e.g. one that forgets b's share or divides by n instead of √n, misses by far more; the gap
    itself is ln(ā/b̄) exactly, and a mean of 0 or samples over another grid are refused.
    """
    rng = np.random.default_rng(7)
    a, b = rng.exponential(0.2, (2000, 400)), rng.exponential(0.1, (2000, 300))
    gap, se = log_gap(a, b)
    assert gap == pytest.approx(np.log(a.mean(axis=1) / b.mean(axis=1)), rel=1e-12)
    assert np.median(se) == pytest.approx(np.std(gap, ddof=1), rel=0.1)
    assert np.std(gap, ddof=1) == pytest.approx(math.hypot(1 / 20, 1 / math.sqrt(300)), rel=0.1)
    with pytest.raises(ValueError, match="b must be samples over a's grid"):
        log_gap(a, b[:3])
    with pytest.raises(ValueError, match="b must be samples with positive means"):
        log_gap(a[:1], np.zeros((1, 5)))


def test_mean_gap_se_is_the_spread_of_differences_of_independent_means():
    """mean_gap's SE matches the spread of ā − b̄ over 2,000 simulated pairs (within 10 %); a wrong SE
    (one sample's share only, or sd without √n) misses by far more; samples over another grid are refused."""
    rng = np.random.default_rng(8)
    a, b = rng.uniform(0.0, 1.0, (2000, 100)), rng.uniform(0.0, 0.6, (2000, 50))
    gap, se = mean_gap(a, b)
    assert gap == pytest.approx(a.mean(axis=1) - b.mean(axis=1), rel=1e-12)
    assert np.median(se) == pytest.approx(np.std(gap, ddof=1), rel=0.1)
    sd_a, sd_b = 1 / math.sqrt(12), 0.6 / math.sqrt(12)  # the uniforms' standard deviations
    assert np.std(gap, ddof=1) == pytest.approx(
        math.hypot(sd_a / 10, sd_b / math.sqrt(50)), rel=0.1
    )
    with pytest.raises(ValueError, match="b must be samples over a's grid"):
        mean_gap(a, b[:3])


def test_in_se_is_the_gap_over_its_se_and_noise_free_gaps_are_zero_or_infinite():
    """in_se divides elementwise; where the SE is 0 (noise-free runs) a zero gap is 0 and any other ±inf,
    never NaN; a negative SE is refused."""
    z = in_se(np.array([0.3, -0.2, 0.0, 0.1, -0.1]), np.array([0.1, 0.1, 0.0, 0.0, 0.0]))
    assert z.tolist() == pytest.approx([3.0, -2.0, 0.0, math.inf, -math.inf], rel=1e-15)
    assert in_se(*mean_gap(np.array([[0.5, 0.5]]), np.array([[0.5, 0.5]]))).tolist() == [0.0]
    assert in_se(0.3, 0.03, 0.04) == pytest.approx(6.0, rel=1e-15)  # two means' SEs: hypot
    with pytest.raises(ValueError, match="se_b must be"):
        in_se(0.1, 0.1, -0.1)
    with pytest.raises(ValueError, match=r"se_a must be values over shape \(2,\)"):
        in_se(np.array([0.1, 0.2]), np.array([0.1, 0.2, 0.3]))


def test_versus_exact_z_and_variance_ratios_follow_their_laws_and_catch_a_bias():
    """On 400 unbiased Gaussian estimates (50 draws each) the z's are N(0, 1) and the variance ratios
    have mean 1 and the SD of variance_ratio_se (both within 10 %); a bias of 0.5 SD per draw shows as
    z ≈ 0.5·√50; fewer than two draws are refused."""
    rng = np.random.default_rng(9)
    draws = rng.normal(2.0, 3.0, size=(50, 400))
    check = versus_exact(draws, 2.0, 9.0)
    assert check.z == pytest.approx((draws.mean(axis=0) - 2.0) / math.sqrt(9.0 / 50), rel=1e-12)
    assert abs(check.z.mean()) < 4 / math.sqrt(400) and np.std(check.z) == pytest.approx(1, rel=0.1)
    assert check.variance_ratio.mean() == pytest.approx(1, abs=4 * variance_ratio_se(50) / 20)
    assert np.std(check.variance_ratio) == pytest.approx(variance_ratio_se(50), rel=0.1)
    assert np.std(check.ratio_z) == pytest.approx(1, rel=0.1)
    assert check.variance_ratio == pytest.approx(draws.var(axis=0, ddof=1) / 9.0, rel=1e-12)
    assert variance_ratio_se(3) == 1.0  # sqrt(2/(R - 1)), not sqrt(2/R)
    assert versus_exact(draws + 1.5, 2.0, 9.0).z.mean() == pytest.approx(
        0.5 * math.sqrt(50), abs=0.3
    )
    with pytest.raises(ValueError, match="estimates must be an array with at least two draws"):
        versus_exact(draws[:1], 2.0, 9.0)
    with pytest.raises(ValueError, match=r"mean must be values over shape \(400,\)"):
        versus_exact(draws, np.zeros(3), 9.0)


def test_share_se_is_the_spread_of_simulated_shares():
    """share_se matches the spread of 4,000 simulated shares of 200 trials (within 10 %); it is 0 at
    p = 0 and 1; a probability above 1 is refused."""
    rng = np.random.default_rng(10)
    shares = rng.binomial(200, 0.3, size=4000) / 200
    assert np.std(shares, ddof=1) == pytest.approx(share_se(0.3, 200), rel=0.1)
    assert share_se(np.array([0.0, 1.0]), 7).tolist() == [0.0, 0.0]
    assert (
        share_se(0.5, 100) == 0.05 and share_se(0.5, 4 * 10**12) == 2.5e-7
    )  # /n, trials beyond 1e7
    with pytest.raises(ValueError, match="p must be"):
        share_se(1.5, 10)


def test_bonferroni_z_holds_the_tests_jointly_at_the_confidence():
    """k independent normal tests at bonferroni_z fail jointly with probability just below 1 − confidence
    (Bonferroni is conservative): 1 − (1 − 2Φ(−z))^k for two-sided tests; one test at 95 % is 1.645."""
    from scipy import stats

    assert bonferroni_z(1, confidence=0.95) == pytest.approx(1.6448536, abs=1e-6)
    for k, two_sided in ((6, True), (27, False)):
        z = bonferroni_z(k, confidence=0.99, two_sided=two_sided)
        tail = stats.norm.sf(z) * (2 if two_sided else 1)
        assert 0.0099 < 1 - (1 - tail) ** k <= 0.01
    with pytest.raises(ValueError, match="n_tests"):
        bonferroni_z(0)


def test_rate_fit_is_the_fitted_slope_and_its_se():
    """rate_fit = (fitted_slope, fitted_slope_se) in ln x or in x; an exact power law gives its exponent."""
    x = np.array([1.0, 2.0, 4.0, 8.0])
    y, se = 3 * x**-0.5, np.full(4, 0.01)
    assert runs.rate_fit(x, y, se) == (fitted_slope(x, y), fitted_slope_se(x, y, se))
    assert runs.rate_fit(x, y, se)[0] == pytest.approx(-0.5, abs=1e-12)
    assert runs.rate_fit(x, np.exp(-x / 2), se, log_x=False)[0] == pytest.approx(-0.5, abs=1e-12)


def test_sparse_round_tail_is_the_binomial_tail_of_the_rr_error():
    """X ~ Bin(K, q) at δ = s(e^ε − 1): Bernstein's bound is exp(−K·RHS(2)(s)), both bounds hold, the ratio is Bernstein's."""
    eps, K, s = 2.0, 200, np.linspace(0.01, 0.5, 50)
    tail = runs.sparse_round_tail(eps, K, s)
    q = 1 / (math.exp(eps) + 1)
    bound, exact, ratio = ch.tail_comparison("bernstein_upper", K, q, s * math.expm1(eps))
    np.testing.assert_array_equal(tail.values["bernstein_upper"], bound)
    np.testing.assert_array_equal(tail.exact, exact)
    np.testing.assert_array_equal(tail.ratio, ratio)
    np.testing.assert_allclose(bound, np.exp(-K * gb.rr_exponent(eps, s)), rtol=1e-12)
    assert tail.holds and set(tail.values) == {"bernstein_upper", "kl_upper"}
    with pytest.raises(ValueError, match="n_reporters"):
        runs.sparse_round_tail(eps, 0, s)


def test_public_drivers_equal_their_unchecked_cores():
    """error_parts_curve row i = _glance_error_parts at ε_i; exceedance = the share of error_curve's surveys above the bound."""
    pop, eps = constant_population(0.3, 2000, 20), np.array([1.0, 3.0])
    curve = runs.error_parts_curve(pop, eps, rng=np.random.default_rng(4), n_draws=30)
    same = np.random.default_rng(4)
    for i, e in enumerate(eps):
        one = runs._glance_error_parts(Glance(float(e), 20), pop, rng=same, n_draws=30)
        assert all(np.array_equal(curve[k][i], one[k]) for k in one)
    errs = runs.error_curve(Harmony, pop, eps, rng=np.random.default_rng(6), n_draws=40)
    probs = runs.exceedance_probabilities(
        Harmony, pop, eps, 0.1, rng=np.random.default_rng(6), n_draws=40
    )
    assert probs.tolist() == np.mean(errs > 0.1, axis=1).tolist()


# ---------------------------------------------------------------- the figure functions


def _labels(fig):
    return [line.get_label() for ax in fig.axes for line in ax.get_lines()]


def test_figures_draw_the_papers_curves_and_label_the_setting(capsys):
    """Each figure function returns a Figure with its curves and the setting in its labels, printing nothing."""
    eps, s6 = np.array([1.0, 3.0, 5.0]), gb.SEC6
    parts = {k: np.full((3, 4), v) for k, v in (("total", 0.1), ("rr", 0.05), ("sampling", 0.04))}
    fig = plots.error_decomposition(
        eps,
        parts,
        {"rr": np.full(3, 0.06), "sampling": np.full(3, 0.05)},
        gb.theta(eps, *s6),
        gb.sampling_bound(*s6),
        mu=0.5,
        setting=s6,
    )
    assert len(_labels(fig)) == 7 and "N=10,000" in fig.axes[0].get_title()
    mean = {
        (name, mu): np.array([0.1, 0.05, 0.02])
        for name in ("Glance", "Harmony")
        for mu in (0.9995, 0.5)
    }
    fig = plots.fig3_err_vs_epsilon(
        eps,
        mean,
        gb.glance_upper_bound(eps, *s6),
        np.full(3, 0.2),
        dense_mu=0.9995,
        general_fails_from=2.5,
        setting=s6,
        n_draws=10,
    )
    assert _labels(fig)[:2] == [r"Glance-DS ($\mu=0.9995$)", r"Glance-General ($\mu=0.5$)"]
    assert r"$\varepsilon=2.5$: (2) fails for $\mu=0.5$ beyond" in _labels(fig)
    fig = plots.three_mechanisms(
        eps, mean, {0.9995: np.full(3, 0.3), 0.5: np.full(3, 0.3)}, setting=s6
    )
    assert len(fig.axes) == 2 and len(_labels(fig)) == 6
    fig = plots.error_vs_t_and_n(
        np.array([5, 10]),
        {"Glance": np.array([0.1, 0.2])},
        np.array([1e3, 1e4]),
        {"Glance": np.array([0.1, 0.03])},
        n_users=10**5,
        n_rounds=50,
        epsilon=2.0,
        mu=0.5,
    )
    assert fig.axes[0].get_xlabel() == "number of rounds $T$ ($N=10^5$)"
    tail = runs.sparse_round_tail(2.0, 200, np.array([0.1, 0.2]))
    fig = plots.chernoff_vs_exact_tail(
        np.array([0.1, 0.2]), tail, 0.2, epsilon=2.0, n_reporters=200
    )
    assert len(_labels(fig)) == 5
    assert capsys.readouterr().out == ""
    plt.close("all")


def test_figure_functions_refuse_inconsistent_data():
    """Curves of the wrong length, missing keys and wrong settings are refused naming the parameter."""
    eps = np.array([1.0, 3.0])
    with pytest.raises(ValueError, match="parts"):
        plots.error_decomposition(
            eps,
            {"rr": np.ones((2, 3))},
            {"rr": eps, "sampling": eps},
            eps,
            0.1,
            mu=0.5,
            setting=gb.SEC6,
        )
    with pytest.raises(ValueError, match="mean_error"):
        plots.three_mechanisms(eps, {("Glance", 0.5): np.ones(3)}, {0.5: eps}, setting=gb.SEC6)
    with pytest.raises(ValueError, match="setting"):
        plots.three_mechanisms(
            eps, {("Glance", 0.5): eps, ("Harmony", 0.5): eps}, {0.5: eps}, setting=(1, 2, 0.1)
        )
    with pytest.raises(ValueError, match="regions"):
        plots.fig1_condition2_region(
            eps, np.array([0.0, 1.0]), {"caption": np.ones((3, 3))}, gb.FIG1
        )
