"""m-shot reporting (Algorithm 1 of the m-shot seed 002) and its exact simulators.

Every user n picks a uniform m-subset τ_n of the T rounds.  In a round t ∈ τ_n she sends
``Q_Bin(v_{n,t}; ε/m)``; in the other rounds a dummy bit, 1 with probability r.  Averaged over
τ_n, one report is a binary channel with (§4.1)::

    p = Pr[y=1 | v=1] = (m/T)·e^{ε/m}/(e^{ε/m}+1) + (1 − m/T)·r
    q = Pr[y=1 | v=0] = (m/T)·1/(e^{ε/m}+1)     + (1 − m/T)·r

and the aggregator's ``Φ(Y_{:,t}) = (Σ_n y_{n,t} − N q)/(N (p − q))`` is the pure-LDP estimator
of :mod:`ldp_helpers.estimation.pure` applied to that channel.  ``m = T`` is T-shot reporting (ε/T in every
round, Basic One-time RAPPOR's budget split); ``m = 1`` is 1-shot reporting.

Data models
-----------
The paper fixes only each round's fraction of active users Φ0(V_{:,t}), not *which* users are
active, and the joint law of the reports across rounds (hence the F-measure's law) depends on it.
Two models are offered, both simulated exactly:

* :class:`~ldp_helpers.simulate.streams.Population` — a fixed V (e.g. ``Population.nested``: round t's
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

from ldp_helpers._validation import (Described, check_binary_array, check_epsilon, check_int, check_int_array, check_probability,
                          check_real_array, check_rng, fail)
from ldp_helpers.mechanisms.randomized_response import BinaryRR, q_bin_gap, q_bin_probabilities
from ldp_helpers.simulate.streams import Population, randomized_ones, reference_report_rounds, sample_reporter_counts, sample_stream_counts

MAX_TABLE_ROUNDS = 8  # the sequence output table has 4^T entries


def round_channel_probabilities(epsilon_per_round, share, dummy_prob):
    """p, q and p − q of §4.1's averaged report: Q_Bin(·; ε/m) w.p. m/T, a Bernoulli(r) dummy otherwise.

    ``p = (m/T)·e^{ε/m}/(e^{ε/m}+1) + (1 − m/T)·r`` and ``q = (m/T)·1/(e^{ε/m}+1) + (1 − m/T)·r``.
    Vectorized over its arguments (numpy broadcasting).  Built on Q_Bin's one derivation
    (:func:`~ldp_helpers.mechanisms.randomized_response.q_bin_probabilities`, overflow-free at
    large ε/m) and its gap ``tanh(ε/(2m))`` (:func:`~ldp_helpers.mechanisms.randomized_response.q_bin_gap`,
    no cancellation at small ε/m), so ``p − q = (m/T)·tanh(ε/(2m))`` is returned directly.

    Parameters
    ----------
    epsilon_per_round : float or array_like
        ε/m, the budget of one chosen round.
    share : float or array_like
        m/T, the probability that a given round is one of the user's m chosen rounds.
    dummy_prob : float or array_like
        r, the probability that a dummy report is 1.

    Returns
    -------
    p, q, gap
        ``Pr[y=1 | v=1]``, ``Pr[y=1 | v=0]`` and ``p − q``.

    References
    ----------
    [m_shot] §4.1 (p and q of the averaged report), Algorithm 1.
    """
    keep, flip = q_bin_probabilities(epsilon_per_round)
    dummy = (1.0 - np.asarray(share)) * np.asarray(dummy_prob)
    if np.ndim(dummy) == 0:
        dummy = float(dummy)
    return share * keep + dummy, share * flip + dummy, share * q_bin_gap(epsilon_per_round)


@dataclass(frozen=True)
class RandomActiveSets:
    """Data model: round t has ``ones_per_round[t]`` active users, a fresh uniform subset per trial."""

    ones_per_round: np.ndarray  # k_t = N·Φ0(V_{:,t})
    n_users: int  # N

    def __post_init__(self):
        n = check_int("n_users", self.n_users, low=1)
        k = check_int_array("ones_per_round", self.ones_per_round, low=0, high=n)
        if k.ndim != 1:
            fail("ones_per_round", Described(f"an array of shape {k.shape}"), "a 1-D array (one count per round)")
        object.__setattr__(self, "ones_per_round", k)
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
        """(Pr[1 | v=1], Pr[1 | v=0]) of ``Q_Bin(·; ε/m)``, by :func:`~ldp_helpers.mechanisms.randomized_response.q_bin_probabilities`.

        For ε/m > 36.7 the first rounds to 1 (the paper's ε = 200 with small m) while the second
        stays positive, so the averaged channel and the estimator remain well defined.
        """
        return q_bin_probabilities(self.epsilon / self.m)

    @property
    def randomizer(self) -> BinaryRR:
        """``Q_Bin(·; ε/m)`` as a :class:`BinaryRR` (only for ε/m below about 36.7, else ValueError)."""
        return BinaryRR.from_epsilon(self.epsilon / self.m)

    @property
    def round_channel(self) -> BinaryRR:
        """One report averaged over τ_n: the binary channel with the p, q of §4.1."""
        p, q, _ = round_channel_probabilities(self.epsilon / self.m, self.m / self.n_rounds, self.dummy_prob)
        return BinaryRR(p=p, q=q)

    def estimate(self, reported_ones, n_users):
        """Φ(Y_{:,t}) = (Σ_n y_{n,t} − N q)/(N (p − q)) for each round's count of reported 1s (in [0, N])."""
        n_users = check_int("n_users", n_users, low=1)
        ones = check_int_array("reported_ones", reported_ones, low=0, high=n_users)
        return self.round_channel.estimate_fraction(ones, n_users)

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
        Needs ε/m below about 36.7 (:attr:`randomizer`): beyond it Q_Bin's table rounds to 0/1.

        References
        ----------
        m-shot seed (002), Theorem 4 (the whole sequence is ε-LDP).
        """
        T = self.n_rounds
        if T > MAX_TABLE_ROUNDS:
            fail("n_rounds", T, f"at most {MAX_TABLE_ROUNDS} for the exact 2^T × 2^T sequence table")
        bits = (np.arange(2**T)[:, None] >> np.arange(T)) & 1  # (2^T, T)
        rr_table = self.randomizer.output_table()  # [v, y]
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
        """Per-user reference: Algorithm 1 line by line, the N×T report matrix Y (tests only; ε/m < 36.7)."""
        V = check_binary_array("V", V)
        if V.ndim != 2 or V.shape[1] != self.n_rounds:
            fail("V", Described(f"an array of shape {V.shape}"), f"a 2-D 0/1 array with {self.n_rounds} columns (rounds)")
        rng = check_rng(rng)
        chosen = reference_report_rounds(V.shape[0], self.n_rounds, self.m, rng=rng)  # τ_n
        randomized = self.randomizer.perturb(V, rng=rng)
        dummies = (rng.random(V.shape) < self.dummy_prob).astype(np.int8)
        return np.where(chosen, randomized, dummies)

    def sample_reported_ones(self, data, *, rng: np.random.Generator, n_trials: int = 1) -> np.ndarray:
        """Exact fast simulator: Σ_n y_{n,t} for every round, shape (n_trials, T).

        ``data`` is a :class:`~ldp_helpers.simulate.streams.Population` (fixed V) or a
        :class:`RandomActiveSets`.  A fixed V goes through
        :func:`~ldp_helpers.simulate.streams.sample_stream_counts` (chain of binomials per distinct row);
        random active sets draw the reporter counts K_t with
        :func:`~ldp_helpers.simulate.streams.sample_reporter_counts`, the active reporters A_t ~
        Hypergeometric(N, k_t, K_t), and the randomized 1s with
        :func:`~ldp_helpers.simulate.streams.randomized_ones`.  The non-reporters add ``Bin(N − K_t, r)``
        dummy 1s.  No N×T matrix is built; the joint law across rounds is exact.
        """
        rng = check_rng(rng)
        n_trials = check_int("n_trials", n_trials, low=1)
        p_rr, q_rr = self.q_bin_probs
        if isinstance(data, Population):
            self._check_rounds(data.n_rounds)
            reporters, _, ones = sample_stream_counts(data, self.m, p_rr, q_rr, rng=rng, n_trials=n_trials)
        elif isinstance(data, RandomActiveSets):
            self._check_rounds(data.n_rounds)
            reporters = sample_reporter_counts([data.n_users], self.n_rounds, self.m, rng=rng, n_trials=n_trials)[:, 0, :]
            k = np.broadcast_to(data.ones_per_round, reporters.shape)
            active = rng.hypergeometric(k, data.n_users - k, reporters)
            ones = randomized_ones(reporters, active, p_rr, q_rr, rng=rng)
        else:
            raise ValueError(f"data must be a Population (fixed V) or a RandomActiveSets; got {type(data).__name__}")
        if self.dummy_prob > 0:
            ones += rng.binomial(data.n_users - reporters, self.dummy_prob)
        return ones

    def _check_rounds(self, n_rounds: int) -> None:
        if n_rounds != self.n_rounds:
            fail("data", Described(f"data with {n_rounds} rounds"), f"data with T = {self.n_rounds} rounds (the mechanism's n_rounds)")


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
    fractions = check_real_array("true_fractions", true_fractions, low=0.0, high=1.0, low_open=False, high_open=False)
    if fractions.ndim != 1:
        fail("true_fractions", Described(f"an array of shape {fractions.shape}"), "a 1-D array (one fraction per round)")
    truth = fractions >= theta
    if not truth.any():
        fail("true_fractions", Described(f"no round with fraction >= theta={theta:g}"), "a 1-D array with at least one true heavy hitter (recall is undefined otherwise)")
    est = np.atleast_2d(check_real_array("estimates", estimates))
    if est.ndim != 2 or est.shape[1] != truth.size:
        fail("estimates", Described(f"an array of shape {est.shape}"), f"an array of shape (n_trials, {truth.size}) or ({truth.size},)")
    detected = est >= theta
    tp = (detected & truth).sum(axis=1)
    n_detected = detected.sum(axis=1)
    precision = np.divide(tp, n_detected, out=np.zeros(tp.shape), where=n_detected > 0)
    recall = tp / truth.sum()
    f = 2 * tp / (n_detected + truth.sum())  # 2TP/(2TP + FP + FN)
    return DetectionScores(precision, recall, f)
