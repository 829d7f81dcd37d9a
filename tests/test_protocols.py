"""The tutorial's illustrations still to be replaced: prefix-extension heavy hitters, personalized ε."""

import math

import numpy as np
import pytest

from ldp_helpers.protocols.heavy_hitters import prefix_extension_heavy_hitters, prefix_lengths
from ldp_helpers.protocols.personalized import grouped_frequency_estimate, oracle_for


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
