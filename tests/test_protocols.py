"""The tutorial's illustration still to be replaced: prefix-extension heavy hitters."""

import math

import numpy as np
import pytest

from ldp_helpers.protocols.heavy_hitters import prefix_extension_heavy_hitters, prefix_lengths


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


def test_prefix_extension_needs_a_user_per_round(rng):
    """Fewer users than rounds is refused up front (not as an empty-array error deep in OLH)."""
    with pytest.raises(ValueError, match="at least one user per round"):
        prefix_extension_heavy_hitters([1, 2], 8, 1.0, top_k=2, start_bits=4, step_bits=2, rng=rng)
