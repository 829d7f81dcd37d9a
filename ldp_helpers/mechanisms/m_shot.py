"""m-shot reporting: Algorithm 1 of the m-shot paper, as a :class:`~ldp_helpers.mechanisms.base.Mechanism`.

Every user n picks a uniform m-subset τ_n of the T rounds.  In a round t ∈ τ_n she sends
``Q_Bin(v_{n,t}; ε/m)``; in the other rounds a dummy bit, 1 with probability r.  Averaged over
τ_n, one report is a binary channel with (§4.1)::

    p = Pr[y=1 | v=1] = (m/T)·e^{ε/m}/(e^{ε/m}+1) + (1 − m/T)·r
    q = Pr[y=1 | v=0] = (m/T)·1/(e^{ε/m}+1)     + (1 − m/T)·r

(:func:`round_channel_probabilities`), and the aggregator's ``Φ(Y_{:,t}) = (X_t − N q)/(N (p − q))``
with ``X_t = Σ_n y_{n,t}`` is the pure-LDP estimator applied to that channel.  Reports and dummies
are indistinguishable, so the server's statistic is X_t alone.  ``m = T`` is T-shot reporting
(ε/T every round, Basic One-time RAPPOR's split); ``m = 1`` is 1-shot reporting.

The truth is a fixed :class:`~ldp_helpers.simulate.populations.Population` or, for the
experiments, :class:`~ldp_helpers.simulate.populations.RandomActiveSets` (only the counts k_t are
fixed; each survey draws fresh active sets, so given the reporter counts K_t the active reporters
are Hypergeometric(N, k_t, K_t), independently across rounds).  Per-round marginals agree under
both models; the cross-round coupling through τ_n differs by O(1/N).

References
----------
[m_shot] §3; [m_shot] §4.1; [m_shot] Algorithm 1; [m_shot] Theorem 3; [m_shot] Theorem 4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_binary_array,
    check_epsilon,
    check_int,
    check_int_array,
    check_n_draws,
    check_ndim,
    check_probabilities,
    check_probability,
    check_real_array,
    check_rng,
    fail,
)
from ldp_helpers.mechanisms.base import _SMALLEST_NORMAL, Mechanism
from ldp_helpers.mechanisms.continual import _rounds_matrix
from ldp_helpers.mechanisms.privacy import _max_log_ratio
from ldp_helpers.mechanisms.pure import count_variance, unbiased_count
from ldp_helpers.mechanisms.randomized_response import (
    Q_BIN_MAX_EPSILON,
    BinaryRR,
    q_bin_gap,
    q_bin_probabilities,
)
from ldp_helpers.simulate.populations import Population, check_stream_truth
from ldp_helpers.simulate.streams import (
    reference_report_rounds,
    sample_reporter_counts,
    sample_reporters,
)

MAX_TABLE_ROUNDS = 8  # the sequence output table has 4^T entries
#: numpy's hypergeometric needs fewer good and fewer bad items than this (random active sets)
MAX_HYPERGEOMETRIC = 10**9


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
    [m_shot] §4.1 (p and q of the averaged report); [m_shot] Algorithm 1.
    """
    check_real_array("epsilon_per_round", epsilon_per_round, low=0.0, low_open=True)
    check_real_array("share", share, low=0.0, high=1.0, low_open=True, high_open=False)
    check_probabilities("dummy_prob", dummy_prob)
    keep, flip = q_bin_probabilities(epsilon_per_round)
    dummy = (1.0 - np.asarray(share)) * np.asarray(dummy_prob)
    if np.ndim(dummy) == 0:
        dummy = float(dummy)
    return share * keep + dummy, share * flip + dummy, share * q_bin_gap(epsilon_per_round)


@dataclass(frozen=True)
class MShotReporting(Mechanism):
    """Algorithm 1: m-shot reporting with budget ε, T rounds and dummy probability r.

    Tight (``privacy_loss() == epsilon``) for every m and r: the all-ones and all-zeros streams
    and the output y = 1…1 give every subset τ the same ratio (e^{ε/m})^m = e^ε, so the mixture
    over τ keeps it (:meth:`output_table`).

    References
    ----------
    [m_shot] §4.1 (the p, q and Φ(Y_{:,t}) displayed there); [m_shot] Algorithm 1; [m_shot] Theorem 4 (ε-LDP).
    """

    epsilon: float  # ε, the whole budget of one user over the T rounds
    n_rounds: int  # T
    m: int  # rounds in which a user spends ε/m
    dummy_prob: float = 0.0  # r

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        T = check_int("n_rounds", self.n_rounds, low=1)
        check_int("m", self.m, low=1, high=T)
        check_probability(self.dummy_prob, "dummy_prob (r)")
        p, q, _ = self._channel
        if not p > q:
            fail(
                "epsilon",
                self.epsilon,
                f"above about 2.2e-16 per round (m={self.m}) so that the report depends on v",
            )
        # a flip probability 0 (a reporter who never lies: loss ∞) or subnormal (digits lost: ε/m = 744.4
        # with r = 0.3 lost ε + 0.1) is refused
        if not 0.0 < q < p < 1.0 or self.q_bin_probs[1] < _SMALLEST_NORMAL:
            fail(
                "epsilon",
                self.epsilon,
                f"such that the averaged report stays random (0 < q < p < 1 in double precision) at m={self.m}, "
                f"r={self.dummy_prob!r}: epsilon/m below about 700, and at most {Q_BIN_MAX_EPSILON:.6g} when m = T or r = 1",
            )

    @property
    def q_bin_probs(self) -> tuple[float, float]:
        """(Pr[1 | v=1], Pr[1 | v=0]) of ``Q_Bin(·; ε/m)``: for ε/m > :data:`~ldp_helpers.mechanisms.randomized_response.Q_BIN_MAX_EPSILON` (36.74) the first rounds to 1 (the
        paper's ε = 200 with small m) while the second stays positive, so Φ stays well defined."""
        return q_bin_probabilities(self.epsilon / self.m)

    @property
    def randomizer(self) -> BinaryRR:
        """``Q_Bin(·; ε/m)`` as a :class:`BinaryRR` (only for ε/m ≤ :data:`~ldp_helpers.mechanisms.randomized_response.Q_BIN_MAX_EPSILON`, else ValueError)."""
        return BinaryRR.from_epsilon(self.epsilon / self.m)

    @cached_property
    def _channel(self) -> tuple[float, float, float]:
        """p, q and p − q of one report averaged over τ_n (§4.1)."""
        return round_channel_probabilities(
            self.epsilon / self.m, self.m / self.n_rounds, self.dummy_prob
        )

    @property
    def round_channel(self) -> BinaryRR:
        """One report averaged over τ_n: the binary channel with the p, q of §4.1."""
        p, q, _ = self._channel
        return BinaryRR(p=p, q=q)

    # ------------------------------------------------------------ truth

    def _truth(self, truth, *, random_sets: bool = True):
        return check_stream_truth(truth, self.n_rounds, random_sets=random_sets)

    def expand(self, truth) -> np.ndarray:
        """The N×T 0/1 matrix V of a fixed :class:`~ldp_helpers.simulate.populations.Population`."""
        return self._truth(truth, random_sets=False).to_matrix()

    def estimand(self, truth) -> np.ndarray:
        """Φ0(V_{:,t}) for every round."""
        return self._truth(truth).fractions()

    def n_reports(self, truth) -> int:
        """N, the number of users."""
        return self._truth(truth).n_users

    # ------------------------------------------------------------ client and server

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Algorithm 1 per user: the N×T report matrix Y, at every accepted ε.

        Q_Bin(v; ε/m) flips v w.p. 1/(e^{ε/m} + 1), drawn with that flip probability itself: beyond
        ε/m ≈ 36.74 (Q_Bin's ceiling) the keep probability is 1.0 in double precision, the flip probability is not (the
        paper's ε = 200 with small m; :meth:`sample_given_reporters` draws the same flips).
        """
        V = _rounds_matrix("values", check_binary_array("values", values), self.n_rounds)
        rng = check_rng(rng)
        # line 1: τ_n, a uniform m-subset
        chosen = reference_report_rounds(V.shape[0], self.n_rounds, self.m, rng=rng)
        flipped = rng.random(V.shape) < self.q_bin_probs[1]
        randomized = V ^ flipped  # t ∈ τ_n: Q_Bin(v_{n,t}; ε/m)
        # t ∉ τ_n: a dummy 1 w.p. r
        dummies = (rng.random(V.shape) < self.dummy_prob).astype(np.int8)
        return np.where(chosen, randomized, dummies)

    def aggregate(self, reports) -> np.ndarray:
        """``X_t = Σ_n y_{n,t}``: reported 1s per round (reports and dummies look alike)."""
        Y = _rounds_matrix("reports", check_binary_array("reports", reports), self.n_rounds)
        return Y.sum(axis=0, dtype=np.int64)

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler of X_t, shape (T,) or (n_draws, T); no N×T matrix is built.

        Who reports (:meth:`sample_who_reports`), then what they send (:meth:`sample_given_reporters`).
        """
        truth = self._truth(truth)
        rng = check_rng(rng)
        reporters, active = self.sample_who_reports(
            truth, rng=rng, n_draws=1 if n_draws is None else n_draws
        )
        ones = self.sample_given_reporters(truth, reporters, active, rng=rng)
        return ones[0] if n_draws is None else ones

    def sample_who_reports(
        self, truth, *, rng: np.random.Generator, n_draws: int = 1
    ) -> tuple[np.ndarray, np.ndarray]:
        """Reporters K_t and reporters holding a 1 A_t of ``n_draws`` surveys, each (n_draws, T): line 1 of Algorithm 1.

        K_t by the chain of binomials; A_t are the reporters holding a 1 (a fixed Population) or
        Hypergeometric(N, k_t, K_t) (random active sets).  Neither depends on ε: a sweep over ε
        may draw them once and pass them to :meth:`sample_given_reporters`.

        References
        ----------
        [m_shot] Algorithm 1, line 1 (a uniform m-subset τ_n per user).
        """
        truth = self._truth(truth)
        draws, rng = check_n_draws(n_draws), check_rng(rng)
        if isinstance(truth, Population):
            return sample_reporters(truth, self.m, rng=rng, n_draws=draws)
        k = truth.ones_per_round
        if max(int(k.max()), truth.n_users - int(k.min())) >= MAX_HYPERGEOMETRIC:
            fail(
                "truth",
                Described(
                    f"random active sets of {truth.n_users} users, k_t in [{k.min()}, {k.max()}]"
                ),
                "fewer than 10^9 users holding a 1, and fewer than 10^9 holding a 0, in every round "
                "(numpy's hypergeometric draws the active reporters)",
            )
        reporters = sample_reporter_counts(
            [truth.n_users], self.n_rounds, self.m, rng=rng, n_draws=draws
        )[:, 0, :]
        k = np.broadcast_to(k, reporters.shape)
        return reporters, rng.hypergeometric(k, truth.n_users - k, reporters)

    def sample_given_reporters(
        self, truth, reporters, active, *, rng: np.random.Generator
    ) -> np.ndarray:
        """X_t ~ Bin(A_t, p') + Bin(K_t − A_t, q') + Bin(N − K_t, r) given K_t and A_t, shape (n_draws, T).

        p', q' are Q_Bin(ε/m)'s; the reporters send Q_Bin of their bit, the N − K_t others a dummy.

        References
        ----------
        [m_shot] Algorithm 1, lines 2–5.
        """
        truth = self._truth(truth)
        reporters = check_int_array(
            "reporters",
            reporters,
            low=0,
            high=truth.n_users,
            ndim=2,
            last=self.n_rounds,
            what="(draws × rounds)",
        )
        active = check_int_array("active", active, low=0, shape=reporters.shape)
        if np.any(active > reporters):
            fail(
                "active",
                Described("an array with more active reporters than reporters"),
                "0 <= active <= reporters",
            )
        rng = check_rng(rng)
        flip = self.q_bin_probs[1]
        # both binomials drawn with Q_Bin's flip probability itself: Bin(A, p')
        # as A − Bin(A, 1 − p') read 1 − p' = 0 beyond ε/m ≈ 36.74 (no reporter ever lied: loss ∞)
        ones = active - rng.binomial(active, flip) + rng.binomial(reporters - active, flip)
        if self.dummy_prob > 0:
            # the non-reporters' dummies
            ones += rng.binomial(truth.n_users - reporters, self.dummy_prob)
        return ones

    def estimate(self, aggregate, n) -> np.ndarray:
        """``Φ(Y_{:,t}) = (X_t − N q)/(N (p − q))`` for X of shape (T,) or (n_draws, T), X_t in [0, N].

        References
        ----------
        [m_shot] §4.1 (Φ); [m_shot] Theorem 3 (unbiased).
        """
        n = check_int("n", n, low=1)
        ones = check_int_array(
            "aggregate", aggregate, low=0, high=n, ndim=(1, 2), last=self.n_rounds
        )
        p, q, _ = self._channel
        return unbiased_count(ones, n, p, q) / n

    def variance(self, truth) -> np.ndarray:
        """Exact ``Var[Φ(Y_{:,t})] = (Φ0 p(1−p) + (1−Φ0) q(1−q))/(N (p−q)²)`` (users independent)."""
        truth = self._truth(truth)
        N = truth.n_users
        p, q, _ = self._channel
        return count_variance(truth.fractions() * N, N, p, q) / N**2

    def detect(self, aggregate, n, theta: float) -> np.ndarray:
        """Algorithm 1, line 12: the rounds with Φ(Y_{:,t}) ≥ θ (θ ∈ (0, 1])."""
        theta = _check_theta(theta)
        return self.estimate(aggregate, n) >= theta

    def output_table(self) -> np.ndarray:
        """``P[v, y] = Pr[Y_{n,:} = y | V_{n,:} = v]`` over all 2^T × 2^T bit sequences (T ≤ 8).

        Row/column index i encodes the sequence whose bit t is ``(i >> t) & 1``.  The average over
        the C(T, m) subsets τ is exact: Π_{t∈τ} Q_Bin(y_t | v_t) Π_{t∉τ} r^{y_t}(1−r)^{1−y_t}.
        Needs ε/m at most Q_Bin's ceiling (:attr:`randomizer`): beyond it Q_Bin's table rounds to 0/1.

        References
        ----------
        [m_shot] Theorem 4 (the whole sequence is ε-LDP).
        """
        self.randomizer  # noqa: B018 - refuses an ε/m whose Q_Bin table rounds to 0/1
        return np.exp(self._log_output_table())

    def privacy_loss(self) -> float:
        """The exact whole-sequence ε from :meth:`output_table` in log space, at every accepted ε/m: beyond
        ε/m ≈ 36.74 (its ceiling) Q_Bin's keep probability is 1.0 in double precision, its logarithm log1p(−flip) is not
        (the sampler draws the flips with that flip probability, :meth:`sample_given_reporters`)."""
        return _max_log_ratio(self._log_output_table())

    def _log_output_table(self) -> np.ndarray:
        """``log P[v, y]`` of :meth:`output_table`: a log-sum-exp over the C(T, m) subsets τ (T ≤ 8)."""
        T = check_int(
            "n_rounds (for an exact output table)", self.n_rounds, low=1, high=MAX_TABLE_ROUNDS
        )
        bits = (np.arange(2**T)[:, None] >> np.arange(T)) & 1  # (2^T, T)
        flip = self.q_bin_probs[1]
        same = bits[:, None, :] == bits[None, :, :]
        log_rr = np.where(same, math.log1p(-flip), math.log(flip))  # (v, y, t): Q_Bin(y_t | v_t)
        with np.errstate(divide="ignore"):  # r = 0 or 1: a dummy that is never 1 (or 0), log −∞
            log_dummy = np.log(np.where(bits == 1, self.dummy_prob, 1 - self.dummy_prob))[None]
        terms = []
        for subset in combinations(range(T), self.m):
            chosen = np.isin(np.arange(T), subset)
            terms.append(np.where(chosen, log_rr, log_dummy).sum(axis=2))
        return np.logaddexp.reduce(terms, axis=0) - math.log(math.comb(T, self.m))


def _check_theta(theta) -> float:
    """The detection threshold θ ∈ (0, 1]."""
    return check_probability(theta, "theta", open_low=True)


@dataclass(frozen=True)
class DetectionScores:
    """Precision, recall and F-measure of every survey (arrays of shape (n_draws,))."""

    precision: np.ndarray
    recall: np.ndarray
    f_measure: np.ndarray


def detection_scores(true_fractions, estimates, theta: float) -> DetectionScores:
    """Precision, recall and F-measure of the detections ``estimates ≥ θ``.

    Parameters
    ----------
    true_fractions : array_like, shape (T,)
        Φ0(V_{:,t}); the true heavy hitters are the rounds with Φ0 ≥ θ (there must be one).
    estimates : array_like, shape (n_draws, T) or (T,)
        Φ(Y_{:,t}) of each survey.
    theta : float
        θ ∈ (0, 1].

    Notes
    -----
    F = 2·TP/(2·TP + FP + FN), which equals 2PR/(P + R) whenever P + R > 0 and is 0 when no
    true heavy hitter is detected.  A survey that detects nothing has precision 0 (the ratio
    0/0 of the paper's definition is given the value 0, as it cannot reward missing everything).

    References
    ----------
    [m_shot] §6.1 (the definitions of 適合率 (precision) and 再現率 (recall)); [m_shot] Eq. (11).
    """
    theta = _check_theta(theta)
    fractions = check_probabilities("true_fractions", true_fractions)
    truth = check_ndim("true_fractions", fractions, 1, what="(one fraction per round)") >= theta
    if not truth.any():
        fail(
            "true_fractions",
            Described(f"no round with fraction >= theta={theta:g}"),
            "a 1-D array with at least one true heavy hitter (recall is undefined otherwise)",
        )
    est = np.atleast_2d(check_real_array("estimates", estimates, ndim=(1, 2), last=truth.size))
    detected = est >= theta
    tp = (detected & truth).sum(axis=1)
    n_detected = detected.sum(axis=1)
    precision = np.divide(tp, n_detected, out=np.zeros(tp.shape), where=n_detected > 0)
    recall = tp / truth.sum()
    f = 2 * tp / (n_detected + truth.sum())  # 2TP/(2TP + FP + FN)
    return DetectionScores(precision, recall, f)
