"""Exact Bernoulli bits from random bytes."""

import numpy as np
import pytest

from ldp_helpers.bernoulli import random_bytes, base256_digits, bernoulli_bits
from stat_checks import assert_mean_close


@pytest.mark.parametrize("prob", [0.5, 0.25, 1 / 3, 1 / (np.e + 1), 1e-5, 0.999])
def test_digits_reconstruct_the_double_exactly(prob):
    """Σ digit_k 256^−k equals prob exactly (the expansion of a double is finite)."""
    from fractions import Fraction

    digits = base256_digits(prob)
    assert all(0 <= x < 256 for x in digits)
    assert sum(Fraction(x, 256 ** (k + 1)) for k, x in enumerate(digits)) == Fraction(prob)


def test_zero_probability_gives_no_ones(rng):
    """prob = 0 never yields a 1."""
    assert not bernoulli_bits(10_000, 0.0, rng=rng).any()


@pytest.mark.statistical
@pytest.mark.parametrize("prob", [0.5, 1 / (np.e + 1), 0.00390625 + 1e-6, 0.9])
def test_mean_matches_prob(prob, rng):
    """Over 2·10^6 draws the mean is prob within 5 SE (including a prob just above a digit boundary)."""
    bits = bernoulli_bits(2_000_000, prob, rng=rng)
    assert_mean_close(bits, prob, prob * (1 - prob))


@pytest.mark.statistical
def test_tie_region_has_the_right_mass(rng):
    """prob = 2^−17, digits (0, 0, 128): a 1 needs two tying bytes and then a byte below 128."""
    prob = 2.0**-17
    assert base256_digits(prob) == [0, 0, 128]
    bits = bernoulli_bits(4_000_000, prob, rng=rng)
    assert_mean_close(bits, prob, prob * (1 - prob))


def test_rejects_bad_arguments(rng):
    """prob outside [0, 1) or a wrong out buffer are refused."""
    with pytest.raises(ValueError, match=r"prob must be in \[0, 1\)"):
        bernoulli_bits(3, 1.0, rng=rng)
    with pytest.raises(ValueError, match="out must be a bool numpy array of shape"):
        bernoulli_bits(3, 0.5, rng=rng, out=np.empty(4, dtype=bool))
    with pytest.raises(ValueError, match=r"out must be a bool numpy array of shape \(3,\); got list"):
        bernoulli_bits(3, 0.5, rng=rng, out=[False] * 3)


@pytest.mark.parametrize("size", [0, 1, 3, 4, 1001])
def test_random_bytes_are_generator_bytes(size):
    """The fast byte source reproduces Generator.bytes exactly (same stream, same state afterwards)."""
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    assert random_bytes(a, size).tobytes() == b.bytes(size)
    assert a.integers(0, 2**62) == b.integers(0, 2**62)
