"""m-shot reporting (Algorithm 1 of the m-shot seed 002) and its exact simulators.

Every user n picks a uniform m-subset τ_n of the T rounds.  In a round t ∈ τ_n she sends
``Q_Bin(v_{n,t}; ε/m)``; in the other rounds a dummy bit, 1 with probability r.  Averaged over
τ_n, one report is a binary channel with (§4.1)::

    p = Pr[y=1 | v=1] = (m/T)·e^{ε/m}/(e^{ε/m}+1) + (1 − m/T)·r
    q = Pr[y=1 | v=0] = (m/T)·1/(e^{ε/m}+1)     + (1 − m/T)·r

and the aggregator's ``Φ(Y_{:,t}) = (Σ_n y_{n,t} − N q)/(N (p − q))`` is the pure-LDP estimator
of :mod:`ldp_helpers.pure` applied to that channel.  ``m = T`` is T-shot reporting (ε/T in every
round, Basic One-time RAPPOR's budget split); ``m = 1`` is 1-shot reporting.

Data models
-----------
The paper fixes only each round's fraction of active users Φ0(V_{:,t}), not *which* users are
active, and the joint law of the reports across rounds (hence the F-measure's law) depends on it.
Two models are offered, both simulated exactly:

* :class:`~ldp_helpers.streams.Population` — a fixed V (e.g. ``Population.nested``: round t's
  active users are the first k_t users).  Cost grows with the number of distinct rows.
* :class:`RandomActiveSets` — in every trial, each round's active set is a fresh uniform
  k_t-subset of the N users, independent across rounds and of the reporting subsets.  Given the
  per-round reporter counts K_t, the active reporters are then Hypergeometric(N, k_t, K_t),
  independently across rounds, so one chain of binomials over N users suffices (cheap at any N).

Per-round marginals agree under both models (only k_t matters); the cross-round coupling through
each user's m-subset differs by O(1/N).  The notebook's experiments use :class:`RandomActiveSets`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ._validation import _Described, _fail, check_binary_array, check_epsilon, check_int, check_probability, check_rng
from .randomized_response import BinaryRR
from .streams import Population, reference_report_rounds, sample_reporter_counts

MAX_TABLE_ROUNDS = 8  # the sequence output table has 4^T entries


@dataclass(frozen=True)
class RandomActiveSets:
    """Data model: round t has ``ones_per_round[t]`` active users, a fresh uniform subset per trial."""

    ones_per_round: np.ndarray  # k_t = N·Φ0(V_{:,t})
    n_users: int  # N

    def __post_init__(self):
        n = check_int("n_users", self.n_users, low=1)
        k = np.asarray(self.ones_per_round)
        if k.ndim != 1 or k.size == 0 or not np.issubdtype(k.dtype, np.integer) or k.min() < 0 or k.max() > n:
            _fail("ones_per_round", _Described(f"{k!r}"), f"a non-empty 1-D array of integers in [0, {n}]")
        object.__setattr__(self, "ones_per_round", k.astype(np.int64))
        object.__setattr__(self, "n_users", n)

    @property
    def n_rounds(self) -> int:
        return self.ones_per_round.size

    def fractions(self) -> np.ndarray:
        """Φ0(V_{:,t}) for every round."""
        return self.ones_per_round / self.n_users

    def draw_matrix(self, *, rng: np.random.Generator) -> np.ndarray:
        """One explicit N×T matrix of the model (per-user reference simulations only)."""
        rng = check_rng(rng)
        ranks = np.argsort(rng.random((self.n_users, self.n_rounds)), axis=0)  # a random order per round
        return (ranks < self.ones_per_round[None, :]).astype(np.int8)


def linear_ramp_counts(n_users: int, n_rounds: int, *, rng: np.random.Generator) -> np.ndarray:
    """The experiments' data (§6.2): Φ0 = t/T for t = 1..T, rounds shuffled.

    k_t = round(N t/T) (exact whenever T divides N·t); the order of the rounds is a uniform
    permutation drawn from ``rng``.
    """
    n_users = check_int("n_users", n_users, low=1)
    n_rounds = check_int("n_rounds", n_rounds, low=1)
    rng = check_rng(rng)
    t = np.arange(1, n_rounds + 1)
    counts = (2 * n_users * t + n_rounds) // (2 * n_rounds)  # round(N t / T), halves up, in integers
    return rng.permutation(counts)


@dataclass(frozen=True)
class MShotReporting:
    """Algorithm 1: m-shot reporting with budget ε, T rounds and dummy probability r.

    References
    ----------
    m-shot seed (002), §4.1, Algorithm 1, and the p, q and Φ(Y_{:,t}) displayed there.
    """

    epsilon: float  # ε, the whole budget of one user over the T rounds
    n_rounds: int  # T
    m: int  # rounds in which a user spends ε/m
    dummy_prob: float = 0.0  # r

    def __post_init__(self):
        check_epsilon(self.epsilon)
        T = check_int("n_rounds", self.n_rounds, low=1)
        check_int("m", self.m, low=1, high=T)
        check_probability(self.dummy_prob, "dummy_prob (r)")
        try:
            self.round_channel
        except ValueError:
            raise ValueError(
                f"epsilon/m must leave the averaged report random (0 < q < p < 1 in double precision); got "
                f"epsilon={self.epsilon!r}, m={self.m}, r={self.dummy_prob!r}: epsilon/m must be below about 700, "
                f"and below about 36.7 when m = T or r = 1"
            ) from None

    @classmethod
    def t_shot(cls, epsilon: float, n_rounds: int) -> "MShotReporting":
        """T-shot reporting: ε/T in every round (the naive budget split)."""
        return cls(epsilon, n_rounds, n_rounds)

    @classmethod
    def one_shot(cls, epsilon: float, n_rounds: int, dummy_prob: float = 0.0) -> "MShotReporting":
        """1-shot reporting: the whole ε in one uniformly chosen round."""
        return cls(epsilon, n_rounds, 1, dummy_prob)

    @property
    def q_bin_probs(self) -> tuple[float, float]:
        """(Pr[1 | v=1], Pr[1 | v=0]) of ``Q_Bin(·; ε/m)``: e^u/(e^u+1) and 1/(e^u+1), u = ε/m.

        Computed without overflow; for u > 36.7 the first rounds to 1 (the paper's ε = 200 with
        small m), while the second stays positive, so the estimator remains well defined.
        """
        u = self.epsilon / self.m
        keep = 1.0 / (1.0 + math.exp(-u))
        return keep, math.exp(-u) * keep

    @property
    def randomizer(self) -> BinaryRR:
        """``Q_Bin(·; ε/m)`` as a :class:`BinaryRR` (only for ε/m below about 36.7)."""
        return BinaryRR.from_epsilon(self.epsilon / self.m)

    @property
    def round_channel(self) -> BinaryRR:
        """One report averaged over τ_n: the binary channel with the p, q of §4.1."""
        share, (p_rr, q_rr), r = self.m / self.n_rounds, self.q_bin_probs, self.dummy_prob
        return BinaryRR(p=share * p_rr + (1 - share) * r, q=share * q_rr + (1 - share) * r)

    def estimate(self, reported_ones, n_users):
        """Φ(Y_{:,t}) = (Σ_n y_{n,t} − N q)/(N (p − q)) for each round's count of reported 1s."""
        return self.round_channel.estimate_fraction(reported_ones, check_int("n_users", n_users, low=1))

    def estimate_variance(self, true_fraction, n_users):
        """Exact Var[Φ(Y_{:,t})] for a round with Φ0 = ``true_fraction`` (independent users)."""
        return self.round_channel.fraction_variance(true_fraction, check_int("n_users", n_users, low=1))

    def detect(self, reported_ones, n_users, theta: float) -> np.ndarray:
        """Algorithm 1, line 12: the rounds with Φ(Y_{:,t}) ≥ θ (θ ∈ (0, 1])."""
        theta = _check_theta(theta)
        return self.estimate(reported_ones, n_users) >= theta

    # ------------------------------------------------------------ exact privacy

    def sequence_output_table(self) -> np.ndarray:
        """``P[v, y] = Pr[Y_{n,:} = y | V_{n,:} = v]`` over all 2^T × 2^T bit sequences (T ≤ 8).

        Row/column index i encodes the sequence whose bit t is ``(i >> t) & 1``.  The average over
        the C(T, m) subsets τ is exact: Π_{t∈τ} Q_Bin(y_t | v_t) Π_{t∉τ} r^{y_t}(1−r)^{1−y_t}.

        References
        ----------
        m-shot seed (002), Theorem 4 (the whole sequence is ε-LDP).
        """
        T = self.n_rounds
        if T > MAX_TABLE_ROUNDS:
            _fail("n_rounds", T, f"at most {MAX_TABLE_ROUNDS} for the exact 2^T × 2^T sequence table")
        bits = (np.arange(2**T)[:, None] >> np.arange(T)) & 1  # (2^T, T)
        p_rr, q_rr = self.q_bin_probs
        rr_table = np.array([[1 - q_rr, q_rr], [1 - p_rr, p_rr]])  # [v, y]
        rr = rr_table[bits[:, None, :], bits[None, :, :]]  # (v, y, t): Q_Bin(y_t | v_t)
        dummy = np.where(bits == 1, self.dummy_prob, 1 - self.dummy_prob)[None, :, :]  # (1, y, t)
        table = np.zeros((2**T, 2**T))
        for subset in combinations(range(T), self.m):
            chosen = np.zeros(T, dtype=bool)
            chosen[list(subset)] = True
            table += np.prod(np.where(chosen, rr, dummy), axis=2)
        return table / math.comb(T, self.m)

    # ------------------------------------------------------------ simulators

    def reference_reports(self, V, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference: Algorithm 1 line by line, the N×T report matrix Y (tests only)."""
        V = check_binary_array("V", V)
        if V.ndim != 2 or V.shape[1] != self.n_rounds:
            _fail("V", _Described(f"an array of shape {V.shape}"), f"a 2-D 0/1 array with {self.n_rounds} columns (rounds)")
        rng = check_rng(rng)
        chosen = reference_report_rounds(V.shape[0], self.n_rounds, self.m, rng=rng)  # τ_n
        p_rr, q_rr = self.q_bin_probs
        randomized = (rng.random(V.shape) < np.where(V == 1, p_rr, q_rr)).astype(np.int8)
        dummies = (rng.random(V.shape) < self.dummy_prob).astype(np.int8)
        return np.where(chosen, randomized, dummies)

    def sample_reported_ones(self, data, *, rng: np.random.Generator, n_trials: int = 1) -> np.ndarray:
        """Exact fast simulator: Σ_n y_{n,t} for every round, shape (n_trials, T).

        ``data`` is a :class:`~ldp_helpers.streams.Population` (fixed V) or a
        :class:`RandomActiveSets`.  Per-round reporter counts come from the chain of binomials
        (:func:`~ldp_helpers.streams.sample_reporter_counts`); given them, the active reporters
        A_t are known (fixed V) or Hypergeometric (random sets), and the reported 1s are
        ``Bin(A_t, p') + Bin(K_t − A_t, q') + Bin(N − K_t, r)`` with p', q' of Q_Bin(ε/m).
        No N×T matrix is built; the joint law across rounds is exact.
        """
        rng = check_rng(rng)
        n_trials = check_int("n_trials", n_trials, low=1)
        if isinstance(data, Population):
            self._check_rounds(data.n_rounds)
            per_group = sample_reporter_counts(data.counts, self.n_rounds, self.m, rng=rng, n_trials=n_trials)
            reporters = per_group.sum(axis=1)  # K_t
            active = np.einsum("rgt,gt->rt", per_group, data.rows.astype(np.int64))  # A_t
        elif isinstance(data, RandomActiveSets):
            self._check_rounds(data.n_rounds)
            reporters = sample_reporter_counts([data.n_users], self.n_rounds, self.m, rng=rng, n_trials=n_trials)[:, 0, :]
            k = np.broadcast_to(data.ones_per_round, reporters.shape)
            active = rng.hypergeometric(k, data.n_users - k, reporters)
        else:
            raise ValueError(f"data must be a Population (fixed V) or a RandomActiveSets; got {type(data).__name__}")
        p_rr, q_rr = self.q_bin_probs
        ones = rng.binomial(active, p_rr) + rng.binomial(reporters - active, q_rr)
        if self.dummy_prob > 0:
            ones += rng.binomial(data.n_users - reporters, self.dummy_prob)
        return ones

    def _check_rounds(self, n_rounds: int) -> None:
        if n_rounds != self.n_rounds:
            _fail("data", _Described(f"data with {n_rounds} rounds"), f"data with T = {self.n_rounds} rounds (the mechanism's n_rounds)")


def _check_theta(theta) -> float:
    """The detection threshold θ ∈ (0, 1]."""
    return check_probability(theta, "theta", open_low=True)


@dataclass(frozen=True)
class DetectionScores:
    """Precision, recall and F-measure of every trial (arrays of shape (n_trials,))."""

    precision: np.ndarray
    recall: np.ndarray
    f_measure: np.ndarray


def detection_scores(true_fractions, estimates, theta: float) -> DetectionScores:
    """Precision, recall and F-measure of the detections ``estimates ≥ θ`` (§6.1, Eq. 11).

    Parameters
    ----------
    true_fractions : array_like, shape (T,)
        Φ0(V_{:,t}); the true heavy hitters are the rounds with Φ0 ≥ θ (there must be one).
    estimates : array_like, shape (n_trials, T) or (T,)
        Φ(Y_{:,t}) of each trial.
    theta : float
        θ ∈ (0, 1].

    Notes
    -----
    F = 2·TP/(2·TP + FP + FN), which equals 2PR/(P + R) whenever P + R > 0 and is 0 when no
    true heavy hitter is detected.  A trial that detects nothing has precision 0 (the ratio
    0/0 of the paper's definition is given the value 0, as it cannot reward missing everything).

    References
    ----------
    m-shot seed (002), §6.1, Eq. (11) and the definitions of 適合率 (precision), 再現率 (recall).
    """
    theta = _check_theta(theta)
    truth = np.asarray(true_fractions, dtype=float) >= theta
    if truth.ndim != 1 or not truth.any():
        _fail("true_fractions", _Described(f"no round with fraction >= theta={theta:g}"), "a 1-D array with at least one true heavy hitter (recall is undefined otherwise)")
    est = np.atleast_2d(np.asarray(estimates, dtype=float))
    if est.shape[1] != truth.size:
        _fail("estimates", _Described(f"an array of shape {est.shape}"), f"an array with {truth.size} rounds in its last axis")
    detected = est >= theta
    tp = (detected & truth).sum(axis=1)
    n_detected = detected.sum(axis=1)
    precision = np.divide(tp, n_detected, out=np.zeros(tp.shape), where=n_detected > 0)
    recall = tp / truth.sum()
    f = 2 * tp / (n_detected + truth.sum())  # 2TP/(2TP + FP + FN)
    return DetectionScores(precision, recall, f)
