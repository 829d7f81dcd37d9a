"""Binary populations over T rounds and exact per-round reporter counts (m-shot / 1-shot sampling).

Both the m-shot paper (seed 002) and the Glance paper (seed 000) study a population
``V ∈ {0,1}^{N×T}`` in which every user reports in a uniformly random subset of ``m`` of the
``T`` rounds (``m = 1``: Glance/Harmony's single round; ``m = T``: every round).  Two facts make
exact simulation cheap:

* Users with identical rows are interchangeable, so ``V`` is stored as its **distinct rows with
  multiplicities** (:class:`Population`); a population built from "fractions per round" with the
  nested construction has at most ``T + 1`` distinct rows, whatever ``N``.
* For a group of ``n`` users each choosing a uniform m-subset of rounds, the per-round reporter
  counts ``K_1..K_T`` are drawn exactly, round by round, by a **chain of binomials**: a user with
  ``j`` picks left among the ``R`` remaining rounds includes the current round w.p. ``j/R``
  (this is sequential sampling of a uniform subset), so the number of such users reporting now is
  ``Binomial(n_j, j/R)``.  No N×T matrix is ever built; the cost is ``O(T·min(m, T−m))`` binomial
  draws per group and trial (the complement subset is sampled when ``m > T/2``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import check_binary_array, check_int, check_rng


@dataclass(frozen=True, eq=False)
class Population:
    """A binary population ``V ∈ {0,1}^{N×T}`` as distinct rows with multiplicities.

    Attributes
    ----------
    rows : ndarray, shape (G, T), int8
        The distinct user rows (``rows[g, t]`` is the bit of every user of group g in round t).
    counts : ndarray, shape (G,), int64
        Number of users with each row (all ≥ 1); ``N = counts.sum()``.
    """

    rows: np.ndarray
    counts: np.ndarray

    def __post_init__(self):
        rows = check_binary_array("rows", self.rows)
        if rows.ndim != 2:
            raise ValueError(f"rows must be a 2-D array (groups × rounds); got shape {rows.shape}")
        counts = np.asarray(self.counts)
        if counts.shape != (rows.shape[0],) or not np.issubdtype(counts.dtype, np.integer) or np.any(counts < 1):
            raise ValueError(f"counts must be {rows.shape[0]} integers ≥ 1 (one per row); got {counts!r}")
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "counts", counts.astype(np.int64))

    @classmethod
    def from_matrix(cls, V) -> "Population":
        """Compress a user × round 0/1 matrix into distinct rows (for small, explicit populations)."""
        V = check_binary_array("V", V)
        if V.ndim != 2:
            raise ValueError(f"V must be a 2-D array (users × rounds); got shape {V.shape}")
        rows, counts = np.unique(V, axis=0, return_counts=True)
        return cls(rows, counts)

    @classmethod
    def nested(cls, ones_per_round, n_users: int) -> "Population":
        """The population in which round t's 1-users are the first ``ones_per_round[t]`` users.

        Every round's count of ones is met exactly and the sets are nested, so there are at most
        ``T + 1`` distinct rows (user ranks between consecutive sorted counts share a row).
        """
        n_users = check_int("n_users", n_users, low=1)
        k = np.asarray(ones_per_round)
        if k.ndim != 1 or k.size == 0 or not np.issubdtype(k.dtype, np.integer) or k.min() < 0 or k.max() > n_users:
            raise ValueError(f"ones_per_round must be a non-empty 1-D array of integers in [0, {n_users}]; got {k!r}")
        cuts = np.unique(np.r_[0, k, n_users])  # user-rank boundaries
        lo, hi = cuts[:-1], cuts[1:]  # group g holds users with rank in [lo_g, hi_g)
        rows = (lo[:, None] < k[None, :]).astype(np.int8)  # rank r is 1 in round t iff r < k_t
        return cls(rows, (hi - lo).astype(np.int64))

    @property
    def n_users(self) -> int:
        """N, the number of users."""
        return int(self.counts.sum())

    @property
    def n_rounds(self) -> int:
        """T, the number of rounds."""
        return self.rows.shape[1]

    @property
    def n_groups(self) -> int:
        """G, the number of distinct rows."""
        return self.rows.shape[0]

    def ones_per_round(self) -> np.ndarray:
        """True count of 1s in each round, ``N·μ_t``."""
        return self.counts @ self.rows.astype(np.int64)

    def fractions(self) -> np.ndarray:
        """True fraction of 1s in each round, ``μ_t``."""
        return self.ones_per_round() / self.n_users

    def to_matrix(self) -> np.ndarray:
        """The explicit N×T matrix (for reference simulations on small populations only)."""
        return np.repeat(self.rows, self.counts, axis=0)


def sample_reporter_counts(group_sizes, n_rounds: int, m: int, *, rng: np.random.Generator, n_trials: int = 1) -> np.ndarray:
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
    n_trials : int
        Independent repetitions, drawn in one vectorized pass.

    Returns
    -------
    ndarray, shape (n_trials, G, T), int64
        ``K[r, g, t]``: users of group g that report in round t in trial r.  Each user reports in
        exactly m rounds, so ``K.sum(axis=2) == m · group_sizes``.

    References
    ----------
    m-shot seed (002), Algorithm 1, line 1 (uniform m-subset per user); Glance seed (000),
    Algorithm 1 (m = 1, one uniform round τ_n).  Chain of binomials: see the module docstring.
    """
    sizes = np.asarray(group_sizes)
    if sizes.ndim != 1 or sizes.size == 0 or not np.issubdtype(sizes.dtype, np.integer) or sizes.min() < 0:
        raise ValueError(f"group_sizes must be a non-empty 1-D array of non-negative integers; got {group_sizes!r}")
    n_rounds = check_int("n_rounds", n_rounds, low=1)
    m = check_int("m", m, low=1, high=n_rounds)
    n_trials = check_int("n_trials", n_trials, low=1)
    rng = check_rng(rng)
    sizes = sizes.astype(np.int64)
    if m == n_rounds:  # everyone reports every round
        return np.broadcast_to(sizes[None, :, None], (n_trials, sizes.size, n_rounds)).copy()
    complement = m > n_rounds - m  # draw the T − m rounds *not* reported: fewer picks to track
    picks = n_rounds - m if complement else m
    # left[r, g, j-1] = users of group g (trial r) with j picks left, j = 1..picks
    left = np.zeros((n_trials, sizes.size, picks), dtype=np.int64)
    left[:, :, picks - 1] = sizes
    j = np.arange(1, picks + 1)
    counts = np.empty((n_trials, sizes.size, n_rounds), dtype=np.int64)
    for t in range(n_rounds):
        remaining = n_rounds - t
        taken = rng.binomial(left, np.minimum(j / remaining, 1.0))
        counts[:, :, t] = taken.sum(axis=2)
        left -= taken
        left[:, :, :-1] += taken[:, :, 1:]  # a user with j picks left who picks now has j − 1 left
    return sizes[None, :, None] - counts if complement else counts


def reference_report_rounds(n_users: int, n_rounds: int, m: int, *, rng: np.random.Generator) -> np.ndarray:
    """Per-user reference: an N×T boolean matrix, row n marks user n's uniform m-subset of rounds.

    Only for tests and small reference simulations: it materializes the N×T matrix that
    :func:`sample_reporter_counts` avoids.
    """
    n_users = check_int("n_users", n_users, low=1)
    n_rounds = check_int("n_rounds", n_rounds, low=1)
    m = check_int("m", m, low=1, high=n_rounds)
    rng = check_rng(rng)
    chosen = np.argsort(rng.random((n_users, n_rounds)), axis=1)[:, :m]
    mask = np.zeros((n_users, n_rounds), dtype=bool)
    np.put_along_axis(mask, chosen, True, axis=1)
    return mask


def randomized_ones(reporters, reporters_with_one, p: float, q: float, *, rng: np.random.Generator) -> np.ndarray:
    """Reported 1s among the reporters of each round: ``X ~ Bin(K1, p) + Bin(K − K1, q)``.

    Reporters randomize independently given who reports: a 1-holder says 1 w.p. p, a 0-holder
    w.p. q.  ``reporters`` (K) and ``reporters_with_one`` (K1) are integer arrays of one shape.
    """
    return rng.binomial(reporters_with_one, p) + rng.binomial(np.asarray(reporters) - reporters_with_one, q)


def sample_stream_counts(population: Population, m: int, p: float, q: float, *, rng: np.random.Generator, n_trials: int = 1):
    """Exact per-round sufficient statistics of an m-subset binary randomized-response mechanism.

    Every user reports in a uniform m-subset of the T rounds; a report is 1 w.p. p if her bit
    that round is 1 and w.p. q otherwise.

    Returns
    -------
    reporters, reporters_with_one, reported_ones : ndarray, each shape (n_trials, T)
        ``K_t`` (users reporting in round t), ``K1_t`` (those holding a 1) and ``X_t`` (1s reported).
        O(G·T·min(m, T−m)) work per trial, independent of N; the joint law across rounds is exact.

    References
    ----------
    m-shot seed (002), Algorithm 1 (without dummies); Glance seed (000), Algorithm 1 (m = 1).
    """
    if not isinstance(population, Population):
        raise ValueError(f"population must be a ldp_helpers.simulate.streams.Population; got {type(population).__name__}")
    per_group = sample_reporter_counts(population.counts, population.n_rounds, m, rng=rng, n_trials=n_trials)
    reporters = per_group.sum(axis=1)
    with_one = np.einsum("rgt,gt->rt", per_group, population.rows.astype(np.int64))
    return reporters, with_one, randomized_ones(reporters, with_one, p, q, rng=rng)
