"""RAPPOR's candidate distributions and the largest-remainder power-law counts (simulate.populations)."""

from __future__ import annotations

import numpy as np
import pytest

from ldp_helpers.simulate.populations import (
    candidate_weights,
    cohort_counts,
    power_law_counts,
)


@pytest.mark.parametrize(
    "shape, held",
    [
        ("zipf", [1.0, 2.0**-1.5, 3.0**-1.5, 4.0**-1.5]),  # π_r ∝ r^−s
        ("exponential", [1.0, np.exp(-1.5 / 4), np.exp(-3.0 / 4), np.exp(-4.5 / 4)]),
        ("linear", [4.0, 3.0, 2.0, 1.0]),  # π_r ∝ n_active + 1 − r
        ("constant", [1.0, 1.0, 1.0, 1.0]),
    ],
)
def test_candidate_weights_follow_each_decay_over_the_held_ranks(shape, held):
    """The first n_active candidates carry the decay, normalised to 1; the others carry nothing."""
    w = candidate_weights(shape, 7, 4, 1.5)
    expected = np.r_[np.array(held) / sum(held), np.zeros(3)]
    np.testing.assert_allclose(w, expected, rtol=1e-14, atol=0)


def test_power_law_counts_with_an_exact_total_apportion_by_largest_remainders():
    """Total exactly n, each count within 1 of n·(i+1)^−s/Σ, and the extra units on the largest remainders."""
    n, d, s = 100_003, 9, 1.1
    ideal = n * np.arange(1, d + 1.0) ** -s / np.sum(np.arange(1, d + 1.0) ** -s)
    counts = power_law_counts(n, d, s, exact_total=True)
    assert counts.dtype == np.int64 and counts.sum() == n
    assert np.all(np.abs(counts - ideal) < 1)
    up = counts > np.floor(ideal)  # the values that received an extra unit
    remainder = ideal - np.floor(ideal)
    assert up.any() and remainder[up].min() >= remainder[~up].max()


def test_exact_total_differs_from_rounding_where_rounding_loses_users():
    """At s = 0, 7 users over 3 values round to 2 + 2 + 2 = 6; the largest remainders give the tie to value 0."""
    assert power_law_counts(7, 3, 0.0).tolist() == [2, 2, 2]
    assert power_law_counts(7, 3, 0.0, exact_total=True).tolist() == [3, 2, 2]


def test_power_law_counts_refuse_an_n_whose_rounded_count_would_wrap_int64():
    """n = 2^63 − 1 over d = 1 rounded to 2^63 and wrapped to the count −2^63; n ≤ 2^62 is exact, above it refused."""
    assert power_law_counts(2**62, 1, 1.0).tolist() == [2**62]
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, 4611686018427387904\]"):
        power_law_counts(2**63 - 1, 1, 1.0)


@pytest.mark.parametrize("weights", [[1 + 5e-10, 0.0], [0.5, 0.5 + 5e-10, 0.0]])
def test_cohort_counts_draw_weights_accepted_to_1e_9(weights):
    """Weights summing to 1 within check_weights' 1e-9 but past numpy's 1e-12 raised numpy's own
    "sum(pvals[:-1]) > 1.0" (or "pvals > 1"); they are renormalized, every cohort still totals N_j."""
    counts = cohort_counts(weights, 10, 2, rng=np.random.default_rng(0))
    assert counts.shape == (2, len(weights)) and counts.sum(axis=1).tolist() == [5, 5]
    assert counts[:, -1].tolist() == [0, 0]


def test_exponential_weights_of_a_huge_decay_hold_the_first_candidate_without_a_warning():
    """s = 1e308: s(r − 1) overflowed with a RuntimeWarning (an error under the test suite's filters)."""
    assert candidate_weights("exponential", 5, 3, 1e308).tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
