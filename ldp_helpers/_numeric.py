"""Numerics shared across the science that stay exact or finite at the accepted edges.

A bottom module (like :mod:`ldp_helpers._validation`): its callers have checked the arguments.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


def union_log(events, beta: float):
    """``log(events/β)``, the logarithm of a union bound over ``events`` tail events at total failure probability
    β (``log(2T/β)`` of [m_shot] Eq. (2), ``log(4T/β)`` of [glance] Eq. (1)), for checked ``events`` ≥ 1 (a number
    or an array) and β in (0, 1): the quotient's log, or log(events) − log β where the quotient overflows
    (β = 1e-300 from T ≈ 5e7 on: log(∞) made Glance's domain ∞, m-shot's α ∞ and the fitted slopes NaN).

    References
    ----------
    [m_shot] Eq. (2); [glance] Eq. (1).
    """
    if np.ndim(events):
        with np.errstate(over="ignore"):
            ratio = events / beta
        return np.where(np.isfinite(ratio), np.log(ratio), np.log(events) - math.log(beta))
    ratio = events / beta
    return math.log(ratio) if ratio < math.inf else math.log(events) - math.log(beta)


def share_count(share: float, n: int) -> int:
    """round(share·n) of a checked share in [0, 1] and n ≥ 1: the float product while n ≤ 2^53 (n and
    the product exact to half a unit), the exact rational beyond (float(n) itself is rounded there:
    share 1 of 2^53 + 1 users gave 2^53, of 2^63 − 1 users 2^63)."""
    return round(share * n) if n <= 2**53 else round(Fraction(share) * n)


def majority_probability(p, q):
    """``p``, lowered to the largest float whose complement is at least q where ``1 − p < q`` (for 1/2 ≤ p < 1).

    A mechanism's small probability q (Pr[flip], Pr[a given other value]) is computed directly; its large
    one p is formed separately and rounds, so ``1 − fl(p)`` — exact for p ≥ 1/2, and what ``rng.random() < p``
    and numpy's binomial (which draws the minority with 1 − p) realize — can fall below q: at ε = 36
    Q_Bin's 1 − p is 2·2⁻⁵³ for q = 2.09·2⁻⁵³, a loss of ε + 0.044.  Lowering p to fl(1 − q), or the float
    below it when that rounded up, keeps the implemented loss within rounding of ε; at ordinary ε it moves
    p by a few ulps at most (where fl(p) or q had rounded).  p below 1/2 (drawn as itself, its complement exact in
    the law) and p = 1 (a complement that underflowed: the callers refuse it) are returned as they are.
    Takes numbers (returns a float) or arrays (returns an array).
    """
    if isinstance(p, float | int) and isinstance(q, float | int):  # numbers: no array temporaries
        p, q = float(p), float(q)
        if not (0.5 <= p < 1.0 and 1.0 - p < q):
            return p
        largest = 1.0 - q  # fl(1 − q), then one float lower where its complement fell short
        return min(p, math.nextafter(largest, 0.0) if 1.0 - largest < q else largest)
    largest = np.subtract(1.0, q)
    largest = np.where(1.0 - largest < q, np.nextafter(largest, 0.0), largest)
    return np.where((0.5 <= p) & (p < 1.0), np.minimum(p, largest), p)
