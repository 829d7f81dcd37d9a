"""Experiment drivers of the GRR/OUE notebook: exact MSEs, crossovers, pmfs and simulated MSEs."""

import itertools
import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from stat_checks import assert_mean_close

from ldp_helpers.bounds.grr_vs_oue import (
    PROTOCOLS,
    approx_mse,
    crossover_epsilon_exact,
    crossover_epsilon_numeric,
    crossover_epsilon_wang,
    mse_ratio,
    section_2_2_estimate,
    section_2_2_expectation,
    theoretical_mse,
)
from ldp_helpers.estimation.postprocessing import clip_and_renormalize
from ldp_helpers.experiments.grr_vs_oue import (
    ReversalReadings,
    _reversal_frequencies,
    _squared_errors,
    mse_curves,
    per_user_estimates,
    perturbed_example,
    perturbed_examples,
    reversal_readings,
    support_tails,
    total_variation,
    worked_examples,
)
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.pure import expected_support_count, support_count_pmf, unbiased_count
from ldp_helpers.mechanisms.unary_encoding import OUE
from ldp_helpers.simulate.datasets import CategoryCounts
from ldp_helpers.simulate.populations import flat_counts
from ldp_helpers.simulate.survey import tea_survey_standin
from ldp_tools.pipeline.plots.grr_vs_oue import (
    dataset1_figure,
    dataset2_figure,
    mse_figure,
    perturbed_figure,
)

SKEWED = np.array([60, 5, 0, 3, 2])  # n = 70, d = 5
FLAT = np.array([14, 14, 14, 14, 14])


# ---------------------------------------------------------------- exact


@pytest.mark.parametrize("cls", [GRR, OUE])
def test_mle_is_exactly_unbiased(cls):
    """L[f_i] applied to E[f'_i] = f_i p* + (n − f_i) q* returns f_i (the MLE derivation)."""
    protocol = cls(2.0, 5)
    expected = expected_support_count(SKEWED, 70, protocol.p, protocol.q)
    assert np.allclose(unbiased_count(expected, 70, protocol.p, protocol.q), SKEWED, atol=1e-12)


@pytest.mark.parametrize("cls", [GRR, OUE])
def test_support_count_pmf_moments(cls):
    """The pmf of f'_i sums to 1 and has mean E[f'_i] and variance Var[ĉ(i)]·(p* − q*)²."""
    protocol = cls(1.3, 5)
    support = np.arange(71)
    for i, f in enumerate(SKEWED):
        pmf = support_count_pmf(int(f), 70, protocol.p, protocol.q)
        assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
        mean = pmf @ support
        assert mean == pytest.approx(
            expected_support_count(SKEWED, 70, protocol.p, protocol.q)[i], rel=1e-12
        )
        var = pmf @ (support - mean) ** 2
        assert var == pytest.approx(
            protocol.variance(SKEWED)[i] * (protocol.p - protocol.q) ** 2, rel=1e-10
        )


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_exact_mse_does_not_depend_on_the_distribution(epsilon):
    """Σ_i Var[ĉ(i)] depends on n and d only, and equals the closed forms of the module docstring."""
    x, n, d = math.exp(epsilon), 70, 5
    closed = {
        "GRR": n * (d - 1) * (2 * x + d - 2) / (x - 1) ** 2,
        "OUE": n * ((x + 1) ** 2 + 4 * (d - 1) * x) / (x - 1) ** 2,
    }
    for name, cls in PROTOCOLS.items():
        protocol = cls(epsilon, d)
        assert theoretical_mse(protocol, SKEWED) == pytest.approx(
            theoretical_mse(protocol, FLAT), rel=1e-12
        )
        assert theoretical_mse(protocol, SKEWED) == pytest.approx(
            closed[name] / (d * n**2), rel=1e-12
        )


@pytest.mark.parametrize("d", [6, 10, 43, 200])
def test_exact_crossover_equalizes_the_exact_mses(d):
    """At ε* the exact MSEs of GRR and OUE are equal; OUE wins below it, GRR above."""
    counts = np.bincount(np.arange(1000) % d, minlength=d)
    eps = crossover_epsilon_exact(d)
    assert eps > 0
    assert theoretical_mse(GRR(eps, d), counts) == pytest.approx(
        theoretical_mse(OUE(eps, d), counts), rel=1e-10
    )
    assert theoretical_mse(GRR(eps * 0.9, d), counts) > theoretical_mse(OUE(eps * 0.9, d), counts)
    assert theoretical_mse(GRR(eps * 1.1, d), counts) < theoretical_mse(OUE(eps * 1.1, d), counts)


@pytest.mark.parametrize("d", [6, 10, 43, 200])
def test_wang_crossover_equalizes_the_approximate_mses(d):
    """At ln((d−2)/3) Wang et al.'s approximate variances of GRR and OUE are equal."""
    eps = crossover_epsilon_wang(d)
    assert approx_mse(GRR(eps, d), 1000) == pytest.approx(approx_mse(OUE(eps, d), 1000), rel=1e-10)
    assert eps < crossover_epsilon_exact(d)  # the approximation favours GRR too early


def test_crossover_values_for_the_thesis_datasets():
    """d = 43: ln(41/3) ≈ 2.615 (thesis) vs exact 2.818; d = 5: both 0 (GRR always better)."""
    assert crossover_epsilon_wang(43) == pytest.approx(math.log(41 / 3), rel=1e-15)
    assert crossover_epsilon_wang(43) == pytest.approx(2.615, abs=5e-4)
    assert crossover_epsilon_exact(43) == pytest.approx(
        math.log(math.sqrt(85 * 42) - 43), rel=1e-15
    )
    assert crossover_epsilon_exact(43) == pytest.approx(2.818, abs=5e-4)
    assert crossover_epsilon_wang(5) == 0.0 and crossover_epsilon_exact(5) == 0.0
    for eps in (0.01, 0.5, 2.0, 5.0):
        assert theoretical_mse(GRR(eps, 5), SKEWED) < theoretical_mse(OUE(eps, 5), SKEWED)


def test_crossover_rejects_small_domains():
    """d < 3 has no meaningful crossover: a ValueError naming d."""
    with pytest.raises(ValueError, match=r"d must be an integer in \[3, inf\]; got 2"):
        crossover_epsilon_exact(2)
    with pytest.raises(ValueError, match="d must be"):
        crossover_epsilon_wang(2.5)


def test_grr_example_estimates_sum_to_n(rng):
    """GRR's f' sums to n and so do its estimates (Σ ĉ = n(1 − dq)/(p − q) = n)."""
    example = perturbed_example(GRR(math.log(20), 5), SKEWED, rng=rng)
    assert example.protocol == "GRR"
    assert example.perturbed_counts.sum() == 70
    assert example.estimated_counts.sum() == pytest.approx(70, rel=1e-12)
    assert np.array_equal(example.true_counts, SKEWED)


def test_mse_curves_are_deterministic_and_stream_separated():
    """Same seed → same curves; appending an ε leaves the earlier points unchanged."""
    a = mse_curves(SKEWED, [0.5, 1.0], n_draws=20, seed=7)
    b = mse_curves(SKEWED, [0.5, 1.0, 2.0], n_draws=20, seed=7)
    for name in PROTOCOLS:
        assert np.array_equal(a[name]["simulated"], b[name]["simulated"][:2])
        assert np.array_equal(a[name]["exact"], b[name]["exact"][:2])
        assert np.all(a[name]["simulated"] > 0)
    assert not np.array_equal(a["GRR"]["simulated"], a["OUE"]["simulated"])


def test_squared_errors_validate_n_draws(rng):
    """n_draws < 1 is refused with a message naming it."""
    with pytest.raises(ValueError, match=r"n_draws must be an integer in \[1, 10000000\]; got 0"):
        _squared_errors(GRR(1.0, 5), SKEWED, n_draws=0, rng=rng)


def test_perturbed_examples_run_both_protocols_on_one_stream():
    """perturbed_examples = perturbed_example for GRR then OUE on the same generator."""
    together = perturbed_examples(SKEWED, 1.5, rng=np.random.default_rng(3))
    one_by_one = np.random.default_rng(3)
    for name, cls in PROTOCOLS.items():
        alone = perturbed_example(cls(1.5, 5), SKEWED, rng=one_by_one)
        assert together[name].protocol == name
        assert np.array_equal(together[name].perturbed_counts, alone.perturbed_counts)


def test_total_variation_values_and_validation():
    """½ Σ|u − v|: 0 for equal vectors, 1 for disjoint supports, symmetric; a 2-D frequencies or a shape mismatch refused, naming the culprit."""
    u, v = np.array([0.2, 0.8, 0.0]), np.array([0.5, 0.25, 0.25])
    assert total_variation(u, u) == 0.0
    assert total_variation([1, 0], [0, 1]) == 1.0
    assert total_variation(u, v) == pytest.approx(0.55, abs=1e-15) and total_variation(
        v, u
    ) == total_variation(u, v)
    assert total_variation([-0.1, 1.1], [0.5, 0.5]) == pytest.approx(
        0.6, abs=1e-15
    )  # estimates may be negative
    with pytest.raises(
        ValueError, match=r"reference must be a 1-D array of the shape of frequencies \(3,\)"
    ):
        total_variation(u, [0.5, 0.5])
    with pytest.raises(
        ValueError, match=r"frequencies must be a 1-D array; got an array of shape \(1, 2\)"
    ):
        total_variation(
            [[0.5, 0.5]], [[0.5, 0.5]]
        )  # the 2-D argument is frequencies, not reference
    with pytest.raises(ValueError, match="frequencies must be finite"):
        total_variation([np.nan, 1.0], [0.5, 0.5])


def test_flat_counts():
    """n records over d values as evenly as possible; bad n or d refused."""
    counts = flat_counts(47, 5)
    assert counts.sum() == 47 and counts.max() - counts.min() == 1 and counts.size == 5
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, inf\]; got 0"):
        flat_counts(0, 5)


@pytest.mark.parametrize("d", [6, 10, 43, 200])
def test_numeric_crossover_equals_the_closed_form_for_any_histogram(d):
    """Root finding on skewed, flat, small and large histograms gives ln(√((2d−1)(d−1)) − d) every time."""
    for counts in (
        flat_counts(d, d),
        flat_counts(100_000, d),
        np.r_[10_000, np.ones(d - 1, dtype=int)],
    ):
        eps = crossover_epsilon_numeric(counts)
        assert eps == pytest.approx(crossover_epsilon_exact(d), abs=1e-10)
        assert mse_ratio(counts, [eps])[0] == pytest.approx(1.0, abs=1e-10)


def test_mse_ratio_and_missing_crossover():
    """mse_ratio is MSE_GRR/MSE_OUE; d = 5 has no crossover in ε > 0, which is a ValueError."""
    ratio = mse_ratio(SKEWED, [0.5, 2.0])
    expected = [
        theoretical_mse(GRR(e, 5), SKEWED) / theoretical_mse(OUE(e, 5), SKEWED) for e in (0.5, 2.0)
    ]
    assert np.allclose(ratio, expected, rtol=1e-14) and np.all(ratio < 1)
    with pytest.raises(
        ValueError,
        match=r"true_counts must be a histogram giving a GRR/OUE crossover .*; got a histogram over d = 5 values",
    ):
        crossover_epsilon_numeric(SKEWED)
    with pytest.raises(ValueError, match="epsilons must be finite values in"):
        mse_ratio(SKEWED, [0.0])


def test_clipped_squared_errors_are_those_of_the_clipped_estimates_of_the_same_surveys():
    """``clip=True`` clips and rescales each survey's estimates (same draws), which changes the MSE."""
    oue = OUE(0.5, 5)
    raw = _squared_errors(oue, SKEWED, n_draws=400, rng=np.random.default_rng(4))
    clipped = _squared_errors(oue, SKEWED, n_draws=400, rng=np.random.default_rng(4), clip=True)
    n = SKEWED.sum()
    estimates = oue.estimate(
        oue.sample_aggregate(SKEWED, rng=np.random.default_rng(4), n_draws=400), n
    )
    by_hand = [np.mean((clip_and_renormalize(e, n) - SKEWED) ** 2) / n**2 for e in estimates]
    assert np.allclose(clipped, by_hand, rtol=1e-12) and not np.allclose(clipped, raw)
    with pytest.raises(ValueError, match="clip must be"):
        _reversal_frequencies(SKEWED, [1.0], n_draws=3, rng=np.random.default_rng(1), clip=1)


def test_reversal_frequencies_at_clear_cut_budgets():
    """OUE never beats GRR where GRR's exact MSE is far lower, always where it is far higher; deterministic."""
    d43 = flat_counts(2000, 43)
    assert mse_ratio(SKEWED, [4.0])[0] < 0.2 and mse_ratio(d43, [0.5])[0] > 5
    assert (
        _reversal_frequencies(
            SKEWED, [4.0], n_draws=30, surveys_per_experiment=20, rng=np.random.default_rng(1)
        )[0]
        == 0.0
    )
    assert (
        _reversal_frequencies(
            d43, [0.5], n_draws=30, surveys_per_experiment=20, rng=np.random.default_rng(1)
        )[0]
        == 1.0
    )
    a, b = (
        _reversal_frequencies(
            SKEWED, [0.05, 0.1], n_draws=10, surveys_per_experiment=5, rng=np.random.default_rng(2)
        )
        for _ in range(2)
    )
    assert np.array_equal(a, b) and a.shape == (2,)
    # 100 surveys per experiment (the default): n_draws ≤ 10^7 / 100
    with pytest.raises(ValueError, match=r"n_draws must be an integer in \[1, 100000\]; got 0"):
        _reversal_frequencies(SKEWED, [1.0], n_draws=0, rng=np.random.default_rng(1))
    with pytest.raises(
        ValueError, match=r"surveys_per_experiment must be an integer in \[1, 10000000\]; got 0"
    ):
        _reversal_frequencies(
            SKEWED, [1.0], n_draws=3, surveys_per_experiment=0, rng=np.random.default_rng(1)
        )


def test_reversal_readings_draw_each_reading_as_documented_and_pool_the_brands():
    """The unbiased reading is _reversal_frequencies on all answers (the rows summed) from the seed's own
    stream; the clipped ones clip, from the seed's children (the clipped reading's first, then one per
    brand, then one per brand ×3 for the scaled reading), the brands' shares averaged and their
    experiments pooled."""
    brands, eps = np.array([[3, 1, 0], [0, 2, 2], [1, 1, 1]]), np.array([0.3, 3.0])
    got = reversal_readings(brands, eps, n_draws=20, seed=11)
    seed = np.random.SeedSequence(11)
    clipped, *per_brand = seed.spawn(4)

    def shares(counts, s, clip):
        rng = np.random.default_rng(s)
        return _reversal_frequencies(counts, eps, n_draws=20, rng=rng, clip=clip)

    assert list(got.shares) == [
        "unbiased",
        "clipped",
        "clipped, per brand",
        "clipped, per brand scaled",
    ]
    assert np.array_equal(got.shares["unbiased"], shares(brands.sum(axis=0), seed, False))
    assert np.array_equal(got.shares["clipped"], shares(brands.sum(axis=0), clipped, True))
    pooled = np.mean([shares(row, s, True) for row, s in zip(brands, per_brand)], axis=0)
    assert np.array_equal(got.shares["clipped, per brand"], pooled)
    scaled = np.mean([shares(3 * row, s, True) for row, s in zip(brands, seed.spawn(3))], axis=0)
    assert np.array_equal(got.shares["clipped, per brand scaled"], scaled)
    assert got.experiments == {
        "unbiased": 20,
        "clipped": 20,
        "clipped, per brand": 60,
        "clipped, per brand scaled": 60,
    }
    assert np.array_equal(got.epsilons, eps)


def test_reversal_readings_gap_se_and_refusals():
    """The SE of two independent shares' difference: √(a(1 − a)/n_a + b(1 − b)/n_b) per ε; bad brands,
    an unknown reading refused by name."""
    r = ReversalReadings(
        np.array([0.5, 1.0]),
        {"x": np.array([0.5, 0.1]), "y": np.array([0.2, 0.0])},
        {"x": 100, "y": 400},
    )
    expected = np.sqrt(np.array([0.25 / 100 + 0.16 / 400, 0.09 / 100 + 0.0]))
    assert np.allclose(r.gap_se("x", "y"), expected, rtol=1e-15, atol=0)
    with pytest.raises(ValueError, match=r"second must be one of \['x', 'y'\]; got 'z'"):
        r.gap_se("x", "z")
    for bad, why in (
        (
            np.array([3, 1]),
            r"brand_counts must be a 2-D array \(brands × values\); got an array of shape",
        ),
        ([[3, 1], [2]], "brand_counts must be a 2-D array .* got a ragged nested sequence"),
        (
            np.array([[3], [2]]),
            "brand_counts must be counts of at least one brand over d ≥ 2 values",
        ),
        (
            np.zeros((0, 3), int),
            r"at least one brand over d ≥ 2 values; got an array of shape \(0, 3\)",
        ),
        (
            np.array([[3, 1], [0, 0]]),
            "with an answer in every brand.*got counts totalling 4, 1 empty",
        ),
        (
            np.array([[3, -1], [0, 2]]),
            r"brand_counts must be integers in \[0, \d+\]; got .* \[-1, 3\]",
        ),
        (
            np.array([[2**61, 1], [0, 2]]),
            r"totalling at most 2\^62 / 2 \(each brand is also taken ×2\)",
        ),
    ):
        with pytest.raises(ValueError, match=why):
            reversal_readings(bad, [0.5], n_draws=3, seed=1)
    # every brand's experiments are drawn apart: n_draws ≤ 10^7 / (100 b), named as passed
    with pytest.raises(ValueError, match=r"n_draws must be an integer in \[1, 50000\]; got 50001"):
        reversal_readings(np.array([[3, 1], [1, 2]]), [0.5], n_draws=50_001, seed=1)
    with pytest.raises(ValueError, match=r"n_draws must be an integer in \[1, 2000\]; got 2001"):
        _reversal_frequencies(SKEWED, [0.5], n_draws=2001, surveys_per_experiment=5000, rng=None)


def test_per_user_estimates_shape_and_validation(rng):
    """One row of d estimates per survey, each summing to n for GRR; n_draws < 1 refused."""
    estimates = per_user_estimates(GRR(1.0, 3), [0, 0, 1, 2], n_draws=7, rng=rng)
    assert estimates.shape == (7, 3) and np.allclose(estimates.sum(axis=1), 4)
    with pytest.raises(ValueError, match=r"n_draws must be an integer in \[1, 10000000\]; got 0"):
        per_user_estimates(GRR(1.0, 3), [0, 1], n_draws=0, rng=rng)


@pytest.mark.parametrize("d, crossing", [(43, True), (5, False)])
def test_mse_figure_marks_the_crossovers(d, crossing):
    """Three curves per protocol; both crossover lines for d = 43, the 'GRR always better' note for d = 5."""
    counts = flat_counts(200, d)
    curves = mse_curves(counts, [1.0, 3.0], n_draws=2, seed=0)
    (ax,) = mse_figure([1.0, 3.0], curves, d, n_draws=2, title="t").axes
    labels = [line.get_label() for line in ax.get_lines()]
    assert len(labels) == 6 + 2 * crossing
    assert any(f"exact = {crossover_epsilon_exact(d):.3f}" in label for label in labels) == crossing
    assert (len(ax.texts) == 1) != crossing and ax.get_yscale() == "log"


def test_section_2_2_expectation_is_right_only_with_its_own_q():
    """§2.2's f p + (n − f) q/(d − 1) is E[f'] with q = 1 − p, and loses mass with Algorithm 1's q; d < 2 refused."""
    grr = GRR(2.0, 3)
    counts = np.array([3, 2, 5])
    correct = expected_support_count(counts, 10, grr.p, grr.q)
    assert np.allclose(section_2_2_expectation(counts, grr.p, 1 - grr.p), correct, rtol=1e-14)
    misread = section_2_2_expectation(counts, grr.p, grr.q)
    assert misread.sum() < 10 - 1 and misread[0] == pytest.approx(2.7337, abs=5e-5)
    with pytest.raises(ValueError, match=r"true_counts must be counts over d ≥ 2 values"):
        section_2_2_expectation([10], 0.7, 0.3)
    with pytest.raises(ValueError, match="q must be"):
        section_2_2_expectation(counts, 0.7, 1.3)


def test_section_2_2_first_form_equals_the_second_only_with_q_one_minus_p():
    """§2.2's (f'(d − 1) − nq)/(p(d − 1) − q) is Algorithm 2's (f'(d − 1) − n(1 − p))/(dp − 1) at q = 1 − p; with the
    worked example's printed q = 0.107 it gives L[f_A] = 3.361, not its printed 2.843; a zero denominator is refused."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        support, p = rng.integers(0, 50, size=rng.integers(2, 9)), rng.uniform(0.3, 0.99)
        d, n = support.size, support.sum()
        second = (support * (d - 1) - n * (1 - p)) / (d * p - 1)
        np.testing.assert_allclose(section_2_2_estimate(support, p, 1 - p), second, rtol=1e-12)
    grr = GRR(2.0, 3)
    first = section_2_2_estimate([3, 2, 5], grr.p, 0.107)
    assert first[0] == pytest.approx((6 - 1.07) / (2 * grr.p - 0.107), rel=1e-14)
    assert first[0] == pytest.approx(3.3607, abs=5e-5)
    with pytest.raises(ValueError, match=r"q must be below p\(d − 1\)"):
        section_2_2_estimate([3, 2, 5], 0.3, 0.6)


def test_worked_examples_recompute_the_thesis_tables():
    """GRR's f' counted from the printed output is (3, 2, 5); L[f] gives the thesis' 2.843, 1.374, 5.78 with the
    exact p and 2.783, 1.131, 6.086 with its printed 0.737; OUE's L[f_A] is 12.63 (12.62 with q = 0.119)."""
    worked = worked_examples()
    grr, oue = worked["GRR"], worked["OUE"]
    assert np.array_equal(grr.support, [3, 2, 5]) and np.array_equal(oue.support, [6, 4, 7])
    assert np.allclose(
        grr.estimates, [2.843, 1.374, 5.78], atol=5e-3
    ) and grr.estimates.sum() == pytest.approx(10)
    assert np.allclose(grr.printed_estimates, [2.783, 1.131, 6.086], atol=5e-4)
    assert oue.estimates[0] == pytest.approx(12.626, abs=5e-4)
    assert oue.printed_estimates[0] == pytest.approx(12.62, abs=5e-3)
    assert np.allclose(oue.errors, oue.estimates - [3, 2, 5])
    for example in worked.values():
        assert np.max(np.abs(example.bias_at_expectation)) < 1e-12
        ones_per_report = (
            1 if example is grr else 0.5 + 2 * example.protocol.q
        )  # GRR: one value; OUE: bits set
        assert example.expected_support.sum() == pytest.approx(10 * ones_per_report)


def test_support_tails_are_the_pmf_tails():
    """P(f'_i ≥ c_i) sums the exact pmf from c_i on; a support longer than d or above n is refused."""
    oue = OUE(2.0, 3)
    tails = support_tails(oue, [3, 2, 5], [6, 4, 7])
    for f, c, tail in zip((3, 2, 5), (6, 4, 7), tails):
        assert tail == pytest.approx(support_count_pmf(f, 10, oue.p, oue.q)[c:].sum(), rel=1e-15)
    assert np.prod(tails) == pytest.approx(4.04e-6, rel=1e-3)
    assert support_tails(oue, [3, 2, 5], [0, 0, 0]) == pytest.approx(np.ones(3))
    with pytest.raises(ValueError, match="support must be a 1-D array of length 3"):
        support_tails(oue, [3, 2, 5], [6, 4])
    with pytest.raises(ValueError, match=r"support must be counts in \[0, 10\]"):
        support_tails(oue, [3, 2, 5], [6, 4, 11])


def test_dataset_figures_draw_the_data():
    """Fig. 3.1 stacks the brands' answers per level (the bars add up to the histogram); Fig. 3.2 one bar per model."""
    survey = tea_survey_standin()
    ax = dataset1_figure(survey).axes[0]
    assert len(ax.patches) == len(survey.brands) * survey.levels
    tops = {}
    for patch in ax.patches:  # the top of each level's stack is that level's count
        level = round(patch.get_x() + patch.get_width() / 2)
        tops[level] = max(tops.get(level, 0), patch.get_y() + patch.get_height())
    assert [tops[k] for k in sorted(tops)] == list(
        survey.rating_counts().counts
    ) and "STAND-IN" in ax.get_title()
    data = CategoryCounts(("A1", "A2", "A3"), np.array([5, 1, 3]), "clicks")
    ax = dataset2_figure(data).axes[0]
    assert [p.get_height() for p in ax.patches] == [
        5,
        1,
        3,
    ] and "n = 9 views, d = 3" in ax.get_title()
    with pytest.raises(TypeError, match="survey must be a SurveyStandIn"):
        dataset1_figure(data)


def test_perturbed_figure_shows_true_perturbed_and_estimated_counts(rng):
    """Three bar groups (f, f', L[f]) of d bars each, the category names as ticks; a wrong number of names refused."""
    example = perturbed_example(OUE(1.0, 5), SKEWED, rng=rng)
    ax = perturbed_figure(example, list("abcde"), xlabel="rating", title="Fig. 3.5").axes[0]
    heights = np.array([p.get_height() for p in ax.patches]).reshape(3, 5)
    assert np.array_equal(heights[0], SKEWED) and np.array_equal(
        heights[1], example.perturbed_counts
    )
    assert np.allclose(heights[2], example.estimated_counts)
    assert [t.get_text() for t in ax.get_xticklabels()] == list(
        "abcde"
    ) and ax.get_title() == "Fig. 3.5"
    with pytest.raises(ValueError, match="labels must be a list or tuple of d = 5 category names"):
        perturbed_figure(example, ["a"], xlabel="x", title="t")


def test_mse_figure_is_titled():
    """mse_figure draws the curves on one axes, then the title; bad curves are refused before a figure opens."""
    curves = mse_curves(flat_counts(200, 43), [1.0, 3.0], n_draws=2, seed=0)
    fig = mse_figure([1.0, 3.0], curves, 43, n_draws=2, title="Fig. 3.8")
    assert len(fig.axes) == 1 and fig.axes[0].get_title() == "Fig. 3.8"
    opened = len(plt.get_fignums())
    with pytest.raises(ValueError, match="curves must be"):
        mse_figure([1.0, 3.0], {}, 43, n_draws=2, title="t")
    assert len(plt.get_fignums()) == opened


def _report_covariance_and_norm_variance(protocol, v):
    """For one user holding v: Cov of the support vector s and Var ||s − E s||² (exact)."""
    pi = np.full(protocol.d, protocol.q)
    pi[v] = protocol.p
    if isinstance(protocol, GRR):  # s = e_r, r ~ pi (one-hot report)
        norms = 1 - 2 * pi + pi @ pi  # ||e_r − pi||² for each r
        return np.diag(pi) - np.outer(pi, pi), pi @ norms**2 - (pi @ norms) ** 2
    # OUE: independent bits, (s_i − pi_i)² is (1 − pi_i)² w.p. pi_i and pi_i² otherwise
    fourth = pi * (1 - pi) ** 4 + (1 - pi) * pi**4
    return np.diag(pi * (1 - pi)), float(np.sum(fourth - (pi * (1 - pi)) ** 2))


def _squared_error_variance(protocol, counts):
    """Exact Var ||C − E C||² of the support counts: users are independent, so with Y_u = s_u − E s_u,
    Var = Σ_u Var ||Y_u||² + 2 Σ_{u≠w} tr(Σ_u Σ_w) (all other covariances vanish)."""
    types = [_report_covariance_and_norm_variance(protocol, v) for v in range(protocol.d)]
    f = np.asarray(counts, dtype=float)
    cross = np.array([[np.trace(a @ b) for b, _ in types] for a, _ in types])
    own = np.array([var for _, var in types])
    return float(f @ own + 2 * (f @ cross @ f - f @ np.diag(cross)))


@pytest.mark.parametrize("cls", [GRR, OUE])
def test_squared_error_variance_matches_enumeration(cls):
    """The exact Var ||C − E C||² used by the MSE test equals brute-force enumeration (n = 3, d = 3)."""
    protocol, values = cls(0.9, 3), [0, 0, 2]
    counts = np.bincount(values, minlength=3)
    mean = expected_support_count(counts, 3, protocol.p, protocol.q)
    table = protocol.output_table() if cls is GRR else protocol.output_table()
    support = (
        np.eye(3) if cls is GRR else np.array(list(itertools.product((0, 1), repeat=3)))[:, ::-1]
    )
    moments = np.zeros(2)
    for outputs in itertools.product(range(table.shape[1]), repeat=3):
        prob = np.prod([table[v, y] for v, y in zip(values, outputs)])
        sq = np.sum((support[list(outputs)].sum(axis=0) - mean) ** 2)
        moments += prob * np.array([sq, sq**2])
    assert moments[1] - moments[0] ** 2 == pytest.approx(
        _squared_error_variance(protocol, counts), rel=1e-12
    )


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
@pytest.mark.parametrize("cls", [GRR, OUE])
def test_empirical_mse_matches_exact_mse(cls, rng):
    """Per-run MSEs average to the exact MSE within 5 SEs of the exact per-run variance; a 5 % bias fails."""
    protocol, n, runs = cls(0.8, 5), 70, 20_000
    samples = _squared_errors(
        protocol, SKEWED, n_draws=runs, rng=rng
    )  # one MSE per survey, one batched call (mse_curves' simulated MSE is their mean)
    mse = theoretical_mse(protocol, SKEWED)
    variance = (
        _squared_error_variance(protocol, SKEWED) / (protocol.p - protocol.q) ** 4 / (5 * n**2) ** 2
    )
    assert_mean_close(samples, mse, variance)
    with pytest.raises(AssertionError):  # the tolerance is tight enough to catch a 5 % error
        assert_mean_close(1.05 * samples, mse, variance)


@pytest.mark.statistical
@pytest.mark.parametrize("cls", [GRR, OUE])
def test_example_estimates_are_unbiased(cls, rng):
    """Over many perturbed examples each L[f_i] averages f_i within 5 exact SEs."""
    protocol = cls(math.log(20), 5)
    estimates = np.array(
        [perturbed_example(protocol, SKEWED, rng=rng).estimated_counts for _ in range(5000)]
    )
    variances = protocol.variance(SKEWED)
    for i in range(5):
        assert_mean_close(estimates[:, i], SKEWED[i], variances[i])


@pytest.mark.statistical
@pytest.mark.parametrize("cls", [GRR, OUE])
def test_per_user_estimates_are_unbiased(cls, rng):
    """The per-user pipeline (client, aggregator) gives L[f_i] with mean f_i and the exact variance (5 SEs each)."""
    protocol, values, runs = cls(1.0, 3), np.repeat(np.arange(3), [3, 2, 5]), 4000
    estimates = per_user_estimates(protocol, values, n_draws=runs, rng=rng)
    variances = protocol.variance([3, 2, 5])
    for i, f in enumerate((3, 2, 5)):
        assert_mean_close(estimates[:, i], f, variances[i])
        # SE of the sample variance, sqrt((μ4 − σ⁴)/R), with μ4 from the exact pmf of the support count
        pmf = support_count_pmf(f, 10, protocol.p, protocol.q)
        deviation = (np.arange(11) - expected_support_count(f, 10, protocol.p, protocol.q)) / (
            protocol.p - protocol.q
        )
        se = math.sqrt((pmf @ deviation**4 - variances[i] ** 2) / runs)
        assert abs(estimates[:, i].var(ddof=1) - variances[i]) < 5 * se


def test_a_single_value_histogram_is_refused_naming_true_counts():
    """One value has no GRR/OUE comparison: GRR(ε, 1) refused "d must be an integer in [2, inf]", a parameter
    the caller of mse_ratio / crossover_epsilon_numeric never passed."""
    with pytest.raises(ValueError, match="true_counts must be counts over d ≥ 2 values"):
        mse_ratio([5], 1.0)
    with pytest.raises(ValueError, match="true_counts must be counts over d ≥ 2 values"):
        crossover_epsilon_numeric([5])


def test_the_experiments_refuse_a_single_value_histogram_naming_true_counts():
    """perturbed_examples, mse_curves and _reversal_frequencies refused d = 1 as "d must be …" (GRR's own)."""
    rng = np.random.default_rng(0)
    for call in (
        lambda: perturbed_examples([5], 1.0, rng=rng),
        lambda: mse_curves([5], [1.0], n_draws=2, seed=0),
        lambda: _reversal_frequencies([5], [1.0], n_draws=2, rng=rng),
    ):
        with pytest.raises(ValueError, match="true_counts must be counts over d ≥ 2 values"):
            call()
