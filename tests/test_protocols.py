"""The tutorial's illustrations: prefix-extension heavy hitters, padding-and-sampling, personalized ε."""

import math

import numpy as np
import pytest

from ldp_helpers.protocols.heavy_hitters import prefix_extension_heavy_hitters, prefix_lengths
from ldp_helpers.protocols.personalized import grouped_frequency_estimate, oracle_for
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.protocols.set_valued import (amplified_grr_epsilon, grr_preferred, grr_threshold, pad_and_sample, psfo_count_variance,
                                    psfo_estimate, psfo_output_table)
from stat_checks import assert_mean_close, assert_variance_close


@pytest.mark.parametrize("ell", [1, 2, 3])
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_padding_and_sampling_amplifies_grr_exactly(ell, epsilon):
    """Pad-and-sample + GRR at ε' = ln(ℓ(e^ε−1)+1) has privacy loss exactly ε over all sets (d = 4)."""
    assert max_privacy_loss(psfo_output_table(4, ell, amplified_grr_epsilon(epsilon, ell))) == pytest.approx(epsilon, rel=1e-9)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("ell", [1, 2, 4, 8])
def test_grr_preferred_below_the_threshold(epsilon, ell):
    """GRR beats OLH for |I| just below (4ℓ²−ℓ)e^ε + 1 and loses just above it (the tutorial says '>')."""
    threshold = grr_threshold(epsilon, ell)
    assert grr_preferred(math.ceil(threshold) - 1, epsilon, ell)
    assert not grr_preferred(math.floor(threshold) + 1, epsilon, ell)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_grr_threshold_at_one_item_is_the_de_rule(epsilon):
    """At ℓ = 1, |I| plus the one dummy item < de_threshold(ε): the set-valued rule reduces to d < 3e^ε + 2."""
    from ldp_helpers.bounds.wang2017 import de_threshold

    assert grr_threshold(epsilon, 1) + 1 == pytest.approx(de_threshold(epsilon), rel=1e-14)


def test_pad_and_sample_draws_from_padded_sets(rng):
    """Samples are own items or dummies d..d+ℓ−1; bad items are refused."""
    sets = [[0, 2], [], [1, 2, 3, 4, 5]]
    samples = np.array([pad_and_sample(sets, 6, 3, rng=rng) for _ in range(300)])
    assert set(samples[:, 0]) == {0, 2, 6}
    assert set(samples[:, 1]) == {6, 7, 8}
    assert set(samples[:, 2]) <= {1, 2, 3, 4, 5}
    with pytest.raises(ValueError, match=r"sets\[0\] must be integers in \[0, 6\)"):
        pad_and_sample([[6]], 6, 3, rng=rng)


@pytest.mark.statistical
def test_psfo_estimates_item_counts_with_the_exact_variance(rng):
    """ℓ·ĉ(i) averages the number of holders with the exact sampling-plus-GRR variance (400 surveys)."""
    d, ell, n = 5, 2, 1000
    sets = [[0, 1] if u % 2 else [0] for u in range(n)]
    holders = np.array([n, n / 2, 0, 0, 0])
    draws = np.array([psfo_estimate(pad_and_sample(sets, d, ell, rng=rng), d, ell, 1.0, "GRR", rng=rng) for _ in range(400)])
    variances = psfo_count_variance(holders, n, d, ell, 1.0)
    for i in (0, 1, 4):
        assert_mean_close(draws[:, i], holders[i], variances[i])
        assert_variance_close(draws[:, i], variances[i])


def test_psfo_variance_formula():
    """At ℓ = 1 there is no sampling noise: PSFO's variance is GRR's over d + 1 values at ε' = ε."""
    grr = GRR(1.0, 6)
    assert np.allclose(psfo_count_variance([30, 0], 100, 5, 1, 1.0), grr.variance(np.r_[30, 0, 70, 0, 0, 0])[:2], rtol=1e-12)


def test_set_valued_inputs_are_validated(rng):
    """Fractional items, empty populations and huge ε are handled with clear errors or exact values."""
    with pytest.raises(ValueError, match=r"sets\[0\] must be an array of integers in \[0, 4\)"):
        pad_and_sample([[0.5, 1]], 4, 2, rng=rng)
    with pytest.raises(ValueError, match="sets must be at least one user's set; got no sets"):
        pad_and_sample([], 4, 2, rng=rng)
    assert amplified_grr_epsilon(800.0, 2) == pytest.approx(800 + math.log(2), rel=1e-15)
    assert amplified_grr_epsilon(1.0, 3) == pytest.approx(math.log(3 * (math.e - 1) + 1), rel=1e-14)
    assert grr_threshold(800.0, 2) == math.inf


def test_prefix_lengths_and_validation():
    """Rounds cover start..bits in equal steps; a mismatched step is refused."""
    assert prefix_lengths(12, 4, 4) == [4, 8, 12]
    with pytest.raises(ValueError, match=r"step_bits must be a divisor of bits - start_bits"):
        prefix_lengths(12, 4, 5)


@pytest.mark.statistical
def test_prefix_extension_finds_planted_heavy_hitters(rng):
    """Five planted values holding 20,000 of 50,000 users are the top five found at ε = 2."""
    heavy = np.array([123, 3000, 777, 4001, 2048])
    values = np.r_[np.repeat(heavy, [6000, 5000, 4000, 3000, 2000]), rng.integers(0, 2**12, 30_000)]
    found, _ = prefix_extension_heavy_hitters(values, 12, 2.0, top_k=8, start_bits=4, step_bits=4, rng=rng)
    assert set(found[:5]) == set(heavy)


@pytest.mark.statistical
def test_grouped_personalized_estimate(rng):
    """Each group uses DE/OUE by the tutorial's rule; weights sum to 1 and favour the large-ε group."""
    assert type(oracle_for(4.0, 10)).__name__ == "GRR" and type(oracle_for(0.5, 10)).__name__ == "OUE"
    values = rng.integers(0, 10, 30_000)
    eps = rng.choice([0.5, 1.0, 4.0], 30_000)
    combined, groups, weights = grouped_frequency_estimate(values, eps, 10, rng=rng)
    assert sum(weights.values()) == pytest.approx(1.0) and max(weights, key=weights.get) == 4.0
    truth = np.bincount(values, minlength=10) / values.size
    # exact variance of the combination: Σ_g w_g² Var[ĉ_g]/n_g² (the groups are independent)
    variance = sum(weights[level] ** 2 * oracle_for(level, 10).variance(np.bincount(values[eps == level], minlength=10))
                   / np.sum(eps == level) ** 2 for level in weights)
    assert np.all(np.abs(combined - truth) < 5 * np.sqrt(variance))
    with pytest.raises(ValueError, match=r"user_epsilons must be one budget per user"):
        grouped_frequency_estimate(values, eps[:5], 10, rng=rng)
    with pytest.raises(ValueError, match="user_epsilons must be finite values"):
        grouped_frequency_estimate(values[:2], [np.nan, 1.0], 10, rng=rng)


def test_prefix_extension_needs_a_user_per_round(rng):
    """Fewer users than rounds is refused up front (not as an empty-array error deep in OLH)."""
    with pytest.raises(ValueError, match="at least one user per round"):
        prefix_extension_heavy_hitters([1, 2], 8, 1.0, top_k=2, start_bits=4, step_bits=2, rng=rng)
