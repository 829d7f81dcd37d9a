"""The shuffle model's per-user reference: the law of n k-RR reports' count vector, built user by user, and
views of ShuffledGRRClient drawn user by user.

Shared by tests/bounds/test_shuffle.py (the exact profile against it), tests/explore/test_explore_shuffle.py
(a bound the panel flags is refuted by it) and tests/audit/test_shuffle_audit.py (the client's sampler
against :func:`sample_per_user`).
"""

import math

import numpy as np

from ldp_helpers.mechanisms.grr import GRR


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


def sample_per_user(client, value: int, n: int, *, rng: np.random.Generator) -> np.ndarray:
    """``n`` views of ``client`` (a ShuffledGRRClient) for x₁ = ``value``, as the protocol reads: each of the
    client's n users randomizes, the shuffler permutes (unless the order leaks), the server counts."""
    mechanism, views = GRR(client.epsilon0, client.k), []
    data = np.array([value] + [client.others] * (client.n - 1))
    for _ in range(n):
        reports = mechanism.perturb(data, rng=rng)
        shuffled = reports if client.leak_order else rng.permutation(reports)
        counts = np.bincount(shuffled, minlength=client.k)
        views.append(np.concatenate([[shuffled[0]], counts]) if client.leak_order else counts)
    return np.array(views)
