"""The shuffle model's per-user reference: the law of n k-RR reports' count vector, built user by user.

Shared by tests/bounds/test_shuffle.py (the exact profile against it) and tests/explore/test_explore_shuffle.py
(a bound the panel flags is refuted by it).
"""

import math


def count_law(values, k, eps0):
    """The per-user reference: the law of the count vector of n k-RR reports, user by user (a dict)."""
    p, q = math.exp(eps0) / (math.exp(eps0) + k - 1), 1 / (math.exp(eps0) + k - 1)
    law = {(0,) * k: 1.0}
    for v in values:
        new = {}
        for c, w in law.items():
            for j in range(k):
                cc = c[:j] + (c[j] + 1,) + c[j + 1 :]
                new[cc] = new.get(cc, 0.0) + w * (p if j == v else q)
        law = new
    return law


def shuffle_delta(values_rest, k, eps0, eps):
    """max of both hockey-stick divergences between x₁ = 0 and x₁ = 1, others ``values_rest``."""
    P, Q = count_law([0, *values_rest], k, eps0), count_law([1, *values_rest], k, eps0)
    h = lambda a, b: sum(max(0.0, a[c] - math.exp(eps) * b.get(c, 0.0)) for c in a)  # noqa: E731
    return max(h(P, Q), h(Q, P))
