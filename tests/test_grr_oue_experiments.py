"""Experiment drivers of the GRR/OUE notebook: exact MSEs, crossovers, pmfs and simulated MSEs."""

import math

import numpy as np
import pytest

from ldp_helpers.grr import GRR
from ldp_helpers.grr_oue_experiments import (
    PROTOCOLS,
    approx_mse,
    crossover_epsilon_exact,
    crossover_epsilon_wang,
    empirical_mse,
    expected_support_counts,
    mse_curves,
    perturbed_example,
    support_count_pmf,
    theoretical_mse,
)
from ldp_helpers.pure import unbiased_count
from ldp_helpers.unary_encoding import OUE
from stat_checks import assert_mean_close

SKEWED = np.array([60, 5, 0, 3, 2])  # n = 70, d = 5
FLAT = np.array([14, 14, 14, 14, 14])


# ---------------------------------------------------------------- exact


@pytest.mark.parametrize("cls", [GRR, OUE])
def test_mle_is_exactly_unbiased(cls):
    """L[f_i] applied to E[f'_i] = f_i p* + (n − f_i) q* returns f_i (the MLE derivation)."""
    protocol = cls(2.0, 5)
    expected = expected_support_counts(protocol, SKEWED)
    assert np.allclose(unbiased_count(expected, 70, protocol.p, protocol.q), SKEWED, atol=1e-12)


@pytest.mark.parametrize("cls", [GRR, OUE])
def test_support_count_pmf_moments(cls):
    """The pmf of f'_i sums to 1 and has mean E[f'_i] and variance Var[ĉ(i)]·(p* − q*)²."""
    protocol = cls(1.3, 5)
    support = np.arange(71)
    for i, f in enumerate(SKEWED):
        pmf = support_count_pmf(protocol, int(f), 70)
        assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
        mean = pmf @ support
        assert mean == pytest.approx(expected_support_counts(protocol, SKEWED)[i], rel=1e-12)
        var = pmf @ (support - mean) ** 2
        assert var == pytest.approx(protocol.count_variance(SKEWED)[i] * (protocol.p - protocol.q) ** 2, rel=1e-10)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_exact_mse_does_not_depend_on_the_distribution(epsilon):
    """Σ_i Var[ĉ(i)] depends on n and d only, and equals the closed forms of the module docstring."""
    x, n, d = math.exp(epsilon), 70, 5
    closed = {"GRR": n * (d - 1) * (2 * x + d - 2) / (x - 1) ** 2, "OUE": n * ((x + 1) ** 2 + 4 * (d - 1) * x) / (x - 1) ** 2}
    for name, cls in PROTOCOLS.items():
        protocol = cls(epsilon, d)
        assert theoretical_mse(protocol, SKEWED) == pytest.approx(theoretical_mse(protocol, FLAT), rel=1e-12)
        assert theoretical_mse(protocol, SKEWED) == pytest.approx(closed[name] / (d * n**2), rel=1e-12)


@pytest.mark.parametrize("d", [6, 10, 43, 200])
def test_exact_crossover_equalizes_the_exact_mses(d):
    """At ε* the exact MSEs of GRR and OUE are equal; OUE wins below it, GRR above."""
    counts = np.bincount(np.arange(1000) % d, minlength=d)
    eps = crossover_epsilon_exact(d)
    assert eps > 0
    assert theoretical_mse(GRR(eps, d), counts) == pytest.approx(theoretical_mse(OUE(eps, d), counts), rel=1e-10)
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
    assert crossover_epsilon_exact(43) == pytest.approx(math.log(math.sqrt(85 * 42) - 43), rel=1e-15)
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
    assert example.support_counts.sum() == 70
    assert example.estimated_counts.sum() == pytest.approx(70, rel=1e-12)
    assert np.array_equal(example.true_counts, SKEWED)


def test_mse_curves_are_deterministic_and_stream_separated():
    """Same seed → same curves; appending an ε leaves the earlier points unchanged."""
    a = mse_curves(SKEWED, [0.5, 1.0], repetitions=20, seed=7)
    b = mse_curves(SKEWED, [0.5, 1.0, 2.0], repetitions=20, seed=7)
    for name in PROTOCOLS:
        assert np.array_equal(a[name]["simulated"], b[name]["simulated"][:2])
        assert np.array_equal(a[name]["exact"], b[name]["exact"][:2])
        assert np.all(a[name]["simulated"] > 0)
    assert not np.array_equal(a["GRR"]["simulated"], a["OUE"]["simulated"])


def test_empirical_mse_validates_repetitions(rng):
    """repetitions < 1 is refused with a message naming it."""
    with pytest.raises(ValueError, match=r"repetitions must be an integer in \[1, inf\]; got 0"):
        empirical_mse(GRR(1.0, 5), SKEWED, repetitions=0, rng=rng)


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
@pytest.mark.parametrize("cls", [GRR, OUE])
def test_empirical_mse_matches_exact_mse(cls, rng):
    """Per-run MSEs average to the exact MSE (SE bounded from the exact pmfs, Minkowski)."""
    protocol, n, runs = cls(0.8, 5), 70, 20_000
    samples = [empirical_mse(protocol, SKEWED, repetitions=1, rng=rng) for _ in range(runs)]
    # per-run MSE = Σ_i e_i² /(d n²); sd(Σ_i e_i²) ≤ Σ_i sd(e_i²), each from the exact pmf of f'_i
    sd_bound = 0.0
    for f in SKEWED:
        pmf = support_count_pmf(protocol, int(f), n)
        sq_err = (unbiased_count(np.arange(n + 1), n, protocol.p, protocol.q) - f) ** 2
        sd_bound += math.sqrt(pmf @ sq_err**2 - (pmf @ sq_err) ** 2)
    assert_mean_close(samples, theoretical_mse(protocol, SKEWED), (sd_bound / (5 * n**2)) ** 2)


@pytest.mark.statistical
@pytest.mark.parametrize("cls", [GRR, OUE])
def test_example_estimates_are_unbiased(cls, rng):
    """Over many perturbed examples each L[f_i] averages f_i within 5 exact SEs."""
    protocol = cls(math.log(20), 5)
    estimates = np.array([perturbed_example(protocol, SKEWED, rng=rng).estimated_counts for _ in range(5000)])
    variances = protocol.count_variance(SKEWED)
    for i in range(5):
        assert_mean_close(estimates[:, i], SKEWED[i], variances[i])
