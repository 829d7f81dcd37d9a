"""Exact per-round reporter counts when every user reports in a uniform m-subset of the T rounds.

Both the m-shot paper and the Glance paper study a population ``V ∈ {0,1}^{N×T}``
(:class:`~ldp_helpers.simulate.populations.Population`) in which every user reports in a
uniformly random subset of ``m`` of the ``T`` rounds (``m = 1``: Glance/Harmony's single round;
``m = T``: every round).  For a group of ``n`` interchangeable users the per-round reporter counts
``K_1..K_T`` are drawn exactly, round by round, by a **chain of binomials**: a user with ``j``
picks left among the ``R`` remaining rounds includes the current round w.p. ``j/R`` (sequential
sampling of a uniform subset), so the number of such users reporting now is ``Binomial(n_j, j/R)``.
No N×T matrix is ever built; the cost is ``O(T·min(m, T−m))`` binomial draws per group and draw
(the complement subset is sampled when ``m > T/2``).

Given who reports, the reports themselves are drawn by the one support-count sampler
:func:`~ldp_helpers.mechanisms.base.sample_support_counts` (in the mechanisms' ``sample_aggregate``).

References
----------
[m_shot] Algorithm 1, line 1 (uniform m-subset per user); [glance] Algorithm 1 (m = 1).
"""

from __future__ import annotations

import numpy as np

from ldp_helpers._validation import (
    MAX_N_ROUNDS,
    check_allocation,
    check_int,
    check_int_array,
    check_n_draws,
    check_rng,
)
from ldp_helpers.simulate.populations import Population, check_stream_truth


def sample_reporter_counts(
    group_sizes, n_rounds: int, m: int, *, rng: np.random.Generator, n_draws: int = 1
) -> np.ndarray:
    """Exact per-round reporter counts when every user reports in a uniform m-subset of rounds.

    Parameters
    ----------
    group_sizes : array_like of int, shape (G,)
        Number of users in each group (users of a group are interchangeable).
    n_rounds : int
        T ≥ 1.
    m : int
        Rounds per user, 1 ≤ m ≤ T.
    rng : numpy.random.Generator
    n_draws : int
        Independent repetitions, drawn in one vectorized pass.

    Returns
    -------
    ndarray, shape (n_draws, G, T), int64
        ``K[r, g, t]``: users of group g that report in round t in draw r.  Each user reports in
        exactly m rounds, so ``K.sum(axis=2) == m · group_sizes``.

    References
    ----------
    [m_shot] Algorithm 1, line 1; [glance] Algorithm 1 (m = 1, one uniform round τ_n).
    """
    sizes = check_int_array("group_sizes", group_sizes, low=0, ndim=1, what="(one size per group)")
    n_rounds = check_int("n_rounds", n_rounds, low=1, high=MAX_N_ROUNDS)
    m = check_int("m", m, low=1, high=n_rounds)
    n_draws = check_n_draws(n_draws)
    check_allocation(
        "n_draws",
        n_draws,
        3 * n_draws * np.size(group_sizes) * n_rounds,
        what="reporter counts (n_draws × G × T)",
    )
    rng = check_rng(rng)
    if m == n_rounds:  # everyone reports every round
        return np.broadcast_to(sizes[None, :, None], (n_draws, sizes.size, n_rounds)).copy()
    complement = m > n_rounds - m  # draw the T − m rounds *not* reported: fewer picks to track
    picks = n_rounds - m if complement else m
    # left[r, g, j-1] = users of group g (draw r) with j picks left, j = 1..picks
    left = np.zeros((n_draws, sizes.size, picks), dtype=np.int64)
    left[:, :, picks - 1] = sizes
    j = np.arange(1, picks + 1)
    counts = np.empty((n_draws, sizes.size, n_rounds), dtype=np.int64)
    # Only the window [lo, hi) of j − 1 holds users (a few standard deviations of the hypergeometric
    # picks left): outside it the counts are 0, and Binomial(0, p) is 0 without drawing a number, so
    # the window gives the very draws of the whole array at a fraction of the cost.
    lo, hi = picks - 1, picks
    for t in range(n_rounds):
        window = left[:, :, lo:hi]
        taken = rng.binomial(window, np.minimum(j[lo:hi] / (n_rounds - t), 1.0))
        counts[:, :, t] = taken.sum(axis=2)
        window -= taken
        if lo:  # a user with j picks left who picks now has j − 1 left
            left[:, :, lo - 1 : hi - 1] += taken
            lo -= 1
        else:
            left[:, :, : hi - 1] += taken[:, :, 1:]
        while lo < hi and not left[:, :, lo].any():
            lo += 1
        while hi > lo and not left[:, :, hi - 1].any():
            hi -= 1
    return sizes[None, :, None] - counts if complement else counts


def sample_reporters(population: Population, m: int, *, rng: np.random.Generator, n_draws: int = 1):
    """Per-round reporters ``K_t`` and reporters holding a 1 ``K1_t`` for a fixed population.

    Every user reports in a uniform m-subset of the T rounds (:func:`sample_reporter_counts` per
    distinct row); ``K1_t`` is not seen by the server but defines the reporters' true fraction
    (Glance's μ̃_t) and, with ``K_t``, the law of the reported 1s.

    Returns
    -------
    reporters, reporters_with_one : ndarray, each shape (n_draws, T), int64
        O(G·T·min(m, T−m)) work per draw, independent of N; the joint law across rounds is exact.
    """
    population = check_stream_truth(population, name="population")
    per_group = sample_reporter_counts(
        population.counts, population.n_rounds, m, rng=rng, n_draws=n_draws
    )
    return per_group.sum(axis=1), np.einsum(
        "rgt,gt->rt", per_group, population.rows.astype(np.int64)
    )


def reference_report_rounds(
    n_users: int, n_rounds: int, m: int, *, rng: np.random.Generator
) -> np.ndarray:
    """Per-user reference: an N×T boolean matrix, row n marks user n's uniform m-subset of rounds.

    Only for the per-user clients (``perturb``) and tests: it materializes the N×T matrix that
    :func:`sample_reporter_counts` avoids.
    """
    n_users = check_int("n_users", n_users, low=1)
    n_rounds = check_int("n_rounds", n_rounds, low=1)
    m = check_int("m", m, low=1, high=n_rounds)
    rng = check_rng(rng)
    check_allocation(
        "n_users",
        n_users,
        3 * n_users * n_rounds,
        what="uniforms, their ranks and the mask (n_users × n_rounds)",
    )
    chosen = np.argsort(rng.random((n_users, n_rounds)), axis=1)[:, :m]
    mask = np.zeros((n_users, n_rounds), dtype=bool)
    np.put_along_axis(mask, chosen, True, axis=1)
    return mask
