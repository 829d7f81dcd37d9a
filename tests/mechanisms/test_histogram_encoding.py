"""SHE and THE: Laplace privacy bound, optimal threshold, estimators and the two simulation paths."""

import math

import numpy as np
import pytest
from scipy import stats
from stat_checks import (
    assert_mean_close,
    assert_support_counts_match,
    assert_variance_close,
    sample_both_paths,
    two_sample_pvalue,
)

from ldp_helpers.mechanisms.histogram_encoding import (
    SHE,
    THE,
    laplace_report_privacy_loss,
    laplace_scale,
    optimal_threshold,
)
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.unary_encoding import unary_output_table

# ---------------------------------------------------------------- exact


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
def test_she_density_ratio_is_at_most_epsilon_and_attained(epsilon):
    """ln f(y|v) − ln f(y|v') ≤ ε on a grid of reports, with equality when y_v ≥ 1 and y_v' ≤ 0."""
    she = SHE(epsilon, 3)
    grid = np.stack(np.meshgrid(*[np.linspace(-2, 3, 26)] * 3), axis=-1).reshape(-1, 3)
    ratios = she.log_density_ratio(grid, 0, 1)
    assert ratios.max() == pytest.approx(epsilon, rel=1e-12)
    assert np.all(ratios <= epsilon + 1e-12)
    assert she.privacy_loss() == pytest.approx(
        ratios.max(), rel=1e-12
    )  # the sup, taken at its maximizer


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0, 8.0])
def test_optimal_threshold_is_a_minimum_in_half_one(epsilon):
    """The numerical θ lies in (1/2, 1) and beats θ ± 0.01 and θ = 1/2."""
    the = THE(epsilon, 4)
    assert 0.5 < the.theta < 1
    for other in (the.theta - 0.01, min(the.theta + 0.01, 0.999), 0.5):
        assert the.approx_variance(1000) < THE(epsilon, 4, theta=other).approx_variance(1000)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0])
def test_the_probabilities_and_post_processing_privacy(epsilon):
    """p* = 1 − ½e^{−(1−θ)ε/2}, q* = ½e^{−θε/2}; the thresholded bits alone lose at most ε (post-processing)."""
    the = THE(epsilon, 3, theta=0.7)
    assert the.p == pytest.approx(1 - 0.5 * math.exp(-0.3 * epsilon / 2), rel=1e-14)
    assert the.q == pytest.approx(0.5 * math.exp(-0.7 * epsilon / 2), rel=1e-14)
    assert the.p == pytest.approx(
        stats.laplace.sf(0.7, loc=1, scale=laplace_scale(epsilon)), rel=1e-12
    )
    assert max_privacy_loss(unary_output_table(the.p, the.q, 3)) <= epsilon


@pytest.mark.parametrize("cls", [SHE, THE])
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_continuous_reports_have_no_table_and_lose_exactly_epsilon(cls, epsilon):
    """SHE and THE send the Laplace report: output_table() raises NotImplementedError, privacy_loss() = ε from the densities."""
    mechanism = cls(epsilon, 4)
    with pytest.raises(NotImplementedError, match="report is continuous"):
        mechanism.output_table()
    assert mechanism.privacy_loss() == pytest.approx(epsilon, rel=1e-12)
    assert mechanism.privacy_loss() == laplace_report_privacy_loss(epsilon, 4)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0])
def test_the_has_smaller_variance_than_she(epsilon):
    """The tutorial's claim: THE's variance (optimal θ) is below SHE's 8n/ε²."""
    counts = np.full(10, 1_000, dtype=np.int64)
    n = int(counts.sum())
    she_variance = SHE(epsilon, 10).variance(counts)
    assert np.all(THE(epsilon, 10).approx_variance(n) < she_variance)
    assert np.allclose(she_variance, 8 * n / epsilon**2, rtol=1e-14)


def test_rejects_malformed_inputs(rng):
    """Bad ε, θ, values, reports and counts give clear errors."""
    with pytest.raises(ValueError, match="epsilon"):
        optimal_threshold(-1.0)
    with pytest.raises(ValueError, match=r"theta must be in \(0, 1\)"):
        THE(1.0, 4, theta=1.5)
    with pytest.raises(ValueError, match=r"d must be an integer"):
        SHE(1.0, 1)
    she = SHE(1.0, 3)
    with pytest.raises(ValueError, match=r"values must be integers in \[0, 3\)"):
        she.perturb([3], rng=rng)
    with pytest.raises(
        ValueError,
        match=r"reports must be finite values in \[-1491, 1491\]; got an array containing nan",
    ):
        she.aggregate([[0.0, np.nan, 1.0]])
    with pytest.raises(ValueError, match="true_counts must describe at least one user"):
        she.sample_aggregate([0, 0, 0], rng=rng)
    with pytest.raises(ValueError, match=r"v must be an integer in \[0, 2\]; got 5"):
        she.log_density_ratio([[0.0, 0.0, 0.0]], 5, 0)
    with pytest.raises(
        ValueError,
        match=r"y must be a 2-D array \(users × d\) whose last axis has length 3; got an array of shape \(1, 2\)",
    ):
        she.log_density_ratio([[0.0, 0.0]], 1, 0)
    with pytest.raises(
        ValueError,
        match=r"aggregate must be an array of shape \(3,\) or \(n_draws, 3\); got an array of shape \(2,\)",
    ):
        she.estimate([0.0, 1.0], 10)


def test_the_refuses_nan_reports():
    """A NaN coordinate is not silently counted as 'below θ'."""
    with pytest.raises(ValueError, match="reports must be finite values"):
        THE(1.0, 3).aggregate([[np.nan, 2.0, 0.0]])
    assert np.array_equal(
        THE(1.0, 3, theta=0.5).aggregate([[0.6, 2.0, 0.0], [0.4, 0.7, -1.0]]), [1, 2, 0]
    )


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
def test_she_aggregate_matches_per_user(rng):
    """SHE sums: per-user and Gamma-difference paths have mean f_i and variance 8n/ε² (and agree)."""
    she = SHE(1.0, 3)
    true_counts = np.array([60, 30, 10])
    per_user, aggregate = sample_both_paths(she, true_counts, 4000, rng)
    for sample in (per_user, aggregate):
        assert_mean_close(sample[:, 0], 60, she.variance(true_counts)[0])
        assert_variance_close(sample[:, 0], she.variance(true_counts)[0])
    assert stats.ks_2samp(per_user[:, 0], aggregate[:, 0]).pvalue > 1e-3


@pytest.mark.statistical
def test_the_aggregate_matches_per_user(rng):
    """THE counts: per-user thresholding and the binomial sampler agree (mean, variance, GOF)."""
    the = THE(1.0, 3)
    true_counts = np.array([150, 100, 50])
    per_user, aggregate = sample_both_paths(the, true_counts, 3000, rng)
    assert_support_counts_match(the, per_user, aggregate, true_counts, coordinates=(0, 2))
    assert two_sample_pvalue(per_user[:, 1], aggregate[:, 1]) > 1e-3
