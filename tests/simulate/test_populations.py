"""RAPPOR's candidate distributions (simulate.populations)."""

from __future__ import annotations

import numpy as np
import pytest

from ldp_helpers.simulate.populations import candidate_weights


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
