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
