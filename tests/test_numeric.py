"""The bottom module's numerics (ldp_helpers/_numeric.py): majority_probability."""

from __future__ import annotations

import math

import numpy as np

from ldp_helpers._numeric import majority_probability


def _pairs():
    """(p, q) as mechanisms form them: q = 1/(1 + e^ε) directly, p = e^ε/(1 + e^ε) on its own."""
    eps = np.concatenate([np.linspace(0.01, 36.7, 3000), [30.0, 33.0, 36.0, 36.5]])
    return 1.0 / (1.0 + np.exp(-eps)), 1.0 / (1.0 + np.exp(eps))


def test_the_large_probability_never_leaves_its_complement_short_and_is_the_largest_such():
    """1 − p' ≥ q (exact for p' ≥ 1/2: what numpy's binomial draws as the minority), p' ≤ p, and the next
    float up either exceeds p or leaves its complement short.  Unlowered, 1 − fl(p) < q from ε ≈ 20 on (at
    ε = 36: 2·2⁻⁵³ for q = 2.09·2⁻⁵³, a loss of ε + 0.044)."""
    p, q = _pairs()
    assert np.any(1.0 - p < q)  # the defect the function exists for
    lowered = majority_probability(p, q)
    up = np.nextafter(lowered, 1.0)
    assert np.all(1.0 - lowered >= q) and np.all(lowered <= p)
    assert np.all((up > p) | (1.0 - up < q))
    scalar = np.array([majority_probability(float(a), float(b)) for a, b in zip(p, q)])
    assert scalar.tobytes() == lowered.tobytes()
    assert np.max(np.abs(lowered - p) / np.spacing(p)) <= 4  # a few ulps at most


def test_a_minority_probability_and_an_underflowed_complement_are_left_alone():
    assert majority_probability(0.3, 0.2) == 0.3 and majority_probability(1.0, 1e-20) == 1.0
    assert majority_probability(0.75, 0.25) == 0.75
    assert majority_probability(np.array([0.3, 1.0]), np.array([0.2, 1e-20])).tolist() == [0.3, 1.0]
    assert math.isclose(majority_probability(1 - 2**-40, 2**-41), 1 - 2**-40)
