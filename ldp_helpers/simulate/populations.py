"""Binary populations over T rounds: the *truth* of the stream mechanisms (data, no randomization).

N users hold bits ``v_{n,t}`` over T rounds (``V ∈ {0,1}^{N×T}``).  Two data models are offered:

* :class:`Population` — a fixed V, stored as its **distinct rows with multiplicities** (users
  with identical rows are interchangeable); the nested construction has at most ``T + 1``
  distinct rows whatever N.  This is the truth of every stream mechanism's contract.
* :class:`RandomActiveSets` — only each round's count of 1s k_t is fixed; which users hold them
  is a fresh uniform k_t-subset in every survey, independent across rounds.  The m-shot paper
  fixes only Φ0(V_{:,t}) = k_t/N, and its experiments use this model.

:func:`constant_population` and :func:`linear_ramp_counts` build the papers' §6 streams.

References
----------
[glance] §3 (LPCC); [glance] §6 (constant μ); [m_shot] §3; [m_shot] §6.2 (Φ0 = t/T, shuffled).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldp_helpers._numeric import share_count
from ldp_helpers._validation import (
    MAX_N_ROUNDS,
    Described,
    check_allocation,
    check_binary_array,
    check_bool,
    check_choice,
    check_int,
    check_int_array,
    check_ndim,
    check_probability,
    check_real,
    check_real_array,
    check_rng,
    check_total,
    check_weights,
    fail,
)


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
        rows = check_binary_array("rows", self.rows, ndim=2, what="(groups × rounds)")
        counts = check_int_array("counts", self.counts, low=1, shape=(rows.shape[0],))
        check_total("counts", counts)  # N = Σ counts must not wrap (each count alone may be valid)
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "counts", counts)

    @classmethod
    def nested(cls, ones_per_round, n_users: int) -> Population:
        """The population in which round t's 1-users are the first ``ones_per_round[t]`` users.

        Every round's count of ones is met exactly and the sets are nested, so there are at most
        ``T + 1`` distinct rows (user ranks between consecutive sorted counts share a row).
        """
        n_users = check_int("n_users", n_users, low=1)
        k = check_int_array(
            "ones_per_round",
            ones_per_round,
            low=0,
            high=n_users,
            ndim=1,
            what="(one count per round)",
        )
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
        """True fraction of 1s in each round, ``μ_t`` (the m-shot paper's Φ0(V_{:,t}))."""
        return self.ones_per_round() / self.n_users

    def to_matrix(self) -> np.ndarray:
        """The explicit N×T matrix (for reference simulations on small populations only)."""
        check_allocation(
            "counts",
            Described(f"{self.n_users:,} users"),
            self.n_users * self.n_rounds,
            itemsize=self.rows.itemsize,
            what=f"an N × T = {self.n_users:,} × {self.n_rounds:,} matrix",
        )
        return np.repeat(self.rows, self.counts, axis=0)


@dataclass(frozen=True)
class RandomActiveSets:
    """Data model: round t has ``ones_per_round[t]`` active users, a fresh uniform subset per survey."""

    ones_per_round: np.ndarray  # k_t = N·Φ0(V_{:,t})
    n_users: int  # N

    def __post_init__(self):
        n = check_int("n_users", self.n_users, low=1)
        k = check_int_array("ones_per_round", self.ones_per_round, low=0, high=n)
        object.__setattr__(
            self, "ones_per_round", check_ndim("ones_per_round", k, 1, what="(one count per round)")
        )
        object.__setattr__(self, "n_users", n)

    @property
    def n_rounds(self) -> int:
        """T, the number of rounds."""
        return self.ones_per_round.size

    def fractions(self) -> np.ndarray:
        """Φ0(V_{:,t}) for every round."""
        return self.ones_per_round / self.n_users

    def draw_matrix(self, *, rng: np.random.Generator) -> np.ndarray:
        """One explicit N×T matrix of the model (per-user reference simulations only)."""
        rng = check_rng(rng)
        check_allocation(
            "n_users",
            self.n_users,
            3 * self.n_users * self.n_rounds,
            what=f"an N × T = {self.n_users:,} × {self.n_rounds:,} draw and its ranks",
        )
        # a random order per round
        ranks = np.argsort(rng.random((self.n_users, self.n_rounds)), axis=0)
        return (ranks < self.ones_per_round[None, :]).astype(np.int8)


def check_stream_truth(
    truth, n_rounds: int | None = None, *, random_sets: bool = False, name: str = "truth"
):
    """A :class:`Population` (or, if ``random_sets``, a :class:`RandomActiveSets`) with T = ``n_rounds`` rounds if
    given; a refusal names ``name`` (the caller's parameter)."""
    kinds = (
        (Population, RandomActiveSets) if check_bool("random_sets", random_sets) else (Population,)
    )
    if not isinstance(truth, kinds):
        allowed = " or ".join(f"a {kind.__name__}" for kind in kinds)
        fail(
            name,
            Described(f"an object of type {type(truth).__name__}"),
            f"{allowed} (ldp_helpers.simulate.populations)",
        )
    if n_rounds is not None and truth.n_rounds != n_rounds:
        fail(
            name,
            Described(f"data with {truth.n_rounds} rounds"),
            f"data with T = {n_rounds} rounds (the mechanism's n_rounds)",
        )
    return truth


def constant_population(mu: float, n_users: int, n_rounds: int) -> Population:
    """The Glance paper's §6 stream: ``round(μN)`` active users in every round (two distinct rows).

    References
    ----------
    [glance] §6.
    """
    mu = check_probability(mu, "mu")
    n_users = check_int("n_users", n_users, low=1, high=2**62)  # a Population's N ≤ 2^62
    n_rounds = check_int("n_rounds", n_rounds, low=1, high=MAX_N_ROUNDS)
    return Population.nested(np.full(n_rounds, share_count(mu, n_users), dtype=np.int64), n_users)


def linear_ramp_counts(n_users: int, n_rounds: int, *, rng: np.random.Generator) -> np.ndarray:
    """The m-shot experiments' data: Φ0 = t/T for t = 1..T, rounds shuffled.

    k_t = round(N t/T) (exact whenever T divides N·t); the order of the rounds is a uniform
    permutation drawn from ``rng``.

    References
    ----------
    [m_shot] §6.2.
    """
    n_users = check_int("n_users", n_users, low=1)
    n_rounds = check_int("n_rounds", n_rounds, low=1, high=MAX_N_ROUNDS)
    rng = check_rng(rng)
    t = np.arange(1, n_rounds + 1)
    # round(N t / T), halves up, in integers: with N = qT + r it is q t + round(r t / T), so nothing
    # exceeds N (2 N t itself would wrap int64 once N t > 2^62)
    q, r = divmod(n_users, n_rounds)
    counts = q * t + (2 * r * t + n_rounds) // (2 * n_rounds)
    return rng.permutation(counts)


# ------------------------------------------------------------------ RAPPOR's candidate populations ([rappor])


def zipf_weights(n_candidates: int, n_active: int, exponent: float) -> np.ndarray:
    """The ``get_word_probs`` of [rappor]: the first ``n_active`` candidates ∝ 1/r^exponent, the rest 0.

    References
    ----------
    [rappor] §3; [rappor] Fig. 2.
    """
    n_candidates = check_int("n_candidates", n_candidates, low=1)
    n_active = check_int("n_active", n_active, low=1, high=n_candidates)
    check_allocation("n_candidates", n_candidates, n_candidates)
    exponent = check_real("exponent", exponent, low=0.0, low_open=False)
    w = np.zeros(n_candidates)
    w[:n_active] = np.arange(1, n_active + 1, dtype=float) ** -exponent
    return w / w.sum()


#: the decays of the held candidates' frequencies over their rank (google/rappor's Shiny simulator
#: offers the last three)
CANDIDATE_SHAPES = ("zipf", "exponential", "linear", "constant")


def candidate_weights(shape: str, n_candidates: int, n_active: int, s: float = 1.0) -> np.ndarray:
    """Frequencies π_w of M candidates: the first ``n_active`` held with this decay over rank r, the rest 0.

    ``"zipf"``: π_r ∝ r^−s (:func:`zipf_weights`); ``"exponential"``: π_r ∝ exp(−s (r − 1)/n_active)
    (s is the decay over the held ranks); ``"linear"``: π_r ∝ n_active + 1 − r; ``"constant"``:
    π_r = 1/n_active (the last two ignore s).

    Parameters
    ----------
    shape : {"zipf", "exponential", "linear", "constant"}
        The decay (:data:`CANDIDATE_SHAPES`).
    n_candidates, n_active : int
        M ≥ 1 candidates, of which the first ``n_active`` (1 ≤ n_active ≤ M) are held.
    s : float
        The decay's parameter, finite and ≥ 0.

    References
    ----------
    [rappor] §3 (the Zipf candidate distribution); google/rappor's Shiny simulator (the other decays).
    """
    shape = check_choice("shape", shape, CANDIDATE_SHAPES)
    n_candidates = check_int("n_candidates", n_candidates, low=1)
    n_active = check_int("n_active", n_active, low=1, high=n_candidates)
    check_allocation("n_candidates", n_candidates, n_candidates)
    s = check_real("s", s, low=0.0, low_open=False)
    if shape == "zipf":
        return zipf_weights(n_candidates, n_active, s)
    r = np.arange(1, n_active + 1, dtype=float)
    with np.errstate(over="ignore"):  # s(r − 1) beyond 1e308 (s = 1e308): e^−∞ = 0, no warning
        decay = np.exp(-s * (r - 1) / n_active)
    held = {"exponential": decay, "linear": n_active + 1 - r, "constant": np.ones(n_active)}[shape]
    weights = np.zeros(n_candidates)
    weights[:n_active] = held / held.sum()
    return weights


def cohort_sizes(n_reports: int, m: int) -> np.ndarray:
    """Near-equal cohort sizes N_j summing to N (``N // m`` each when m divides N, as in [rappor])."""
    n_reports = check_int("n_reports", n_reports, low=1)
    m = check_int("m", m, low=1, high=n_reports)
    return n_reports // m + (np.arange(m) < n_reports % m)


def cohort_counts(weights, n_reports: int, m: int, *, rng: np.random.Generator) -> np.ndarray:
    """The ``simulate_word_counts`` of [rappor]: cohort j draws Multinomial(N_j, weights); shape (m, M), RAPPOR's truth.

    References
    ----------
    [rappor] §3; [rappor] Fig. 2.
    """
    rng = check_rng(rng)
    weights = check_weights("weights", weights)
    if weights[:-1].sum() > 1.0:  # accepted (Σ = 1 to 1e-9) but beyond numpy's 1e-12: renormalized
        weights = weights / weights.sum()
    return np.stack([rng.multinomial(n_j, weights) for n_j in cohort_sizes(n_reports, m)])


# ---------------------------------------------------------------- histograms over [0, d) ([tutorial], [grr_vs_oue])


def flat_counts(n: int, d: int) -> np.ndarray:
    """The flattest histogram of n records over d values (counts ⌊n/d⌋ or ⌈n/d⌉).

    References
    ----------
    [grr_vs_oue] §3.6 (a flat histogram of the same n).
    """
    n, d = check_int("n", n, low=1), check_int("d", d, low=2)
    check_allocation("d", d, d)
    # = bincount(arange(n) % d) without the n-element array
    counts = np.full(d, n // d, dtype=np.int64)
    counts[: n % d] += 1
    return counts


def power_law_counts(n: int, d: int, exponent: float, *, exact_total: bool = False) -> np.ndarray:
    """Counts ≈ n·(i+1)^−exponent/Σ for i in [0, d), rounded (value 0 the most frequent; an emoji-like skew).

    Each ideal count is rounded, so the total may differ from n.  ``exact_total=True`` apportions them
    by largest remainders instead: the ideal counts are floored and the n − Σ⌊·⌋ (< d) records left go
    one each to the largest remainders (ties: the smaller value), so every count is within 1 of its
    ideal and the total is exactly n (n ≤ 2^53: every count and remainder exact in float64; else n ≤ 2^62).

    References
    ----------
    [tutorial] "Apple's implementation of LDP" (emoji frequencies); the largest-remainder method.
    """
    exact_total = check_bool("exact_total", exact_total)
    # n ≤ 2^62 (the largest total of a count vector): a rounded count near 2^63 would wrap int64
    n = check_int("n", n, low=1, high=2**53 if exact_total else 2**62)
    d = check_int("d", d, low=1)
    check_allocation("d", d, 4 * d, what="weights and counts over d values")
    weights = np.arange(1, d + 1, dtype=float) ** -check_real(
        "exponent", exponent, low=0.0, low_open=False
    )
    ideal = n * weights / weights.sum()
    if not exact_total:
        return np.round(ideal).astype(np.int64)
    counts = np.floor(ideal).astype(np.int64)
    extra = n - int(counts.sum())  # 0 ≤ extra < d records left
    counts[np.argsort(-(ideal - counts), kind="stable")[:extra]] += 1
    return counts


def random_baskets(
    n_users: int, d: int, max_size: int, item_weights, *, rng: np.random.Generator
) -> list:
    """``n_users`` item sets: each of uniform size in [1, max_size], items drawn without replacement ∝ weights.

    References
    ----------
    [tutorial] "Itemset mining" (set-valued data).
    """
    n_users, d = check_int("n_users", n_users, low=1), check_int("d", d, low=1)
    max_size = check_int("max_size", max_size, low=1, high=d)
    check_allocation(
        "n_users",
        n_users,
        4 * n_users * max_size,
        what="n_users baskets of up to max_size items (a Python list)",
    )
    weights = check_real_array("item_weights", item_weights, low=0.0).ravel()
    if weights.size != d:
        fail("item_weights", Described(f"{weights.size} weights"), f"d = {d} weights")
    rng = check_rng(rng)
    return [
        rng.choice(d, size=rng.integers(1, max_size + 1), replace=False, p=weights / weights.sum())
        for _ in range(n_users)
    ]
