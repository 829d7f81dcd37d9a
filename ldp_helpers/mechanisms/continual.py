"""Locally private continual counting (LPCC): Glance and Basic One-time RAPPOR (T-shot); Harmony is in :mod:`~ldp_helpers.mechanisms.harmony`.

N users hold bits ``v_{n,t}`` over T rounds (the truth: a
:class:`~ldp_helpers.simulate.populations.Population`); the aggregator releases ``μ̂_t`` before
round t+1.  All three send ``Q_Bin`` reports in an m-subset of rounds (m = 1: one uniform round
τ_n; m = T: every round), so a survey's statistic is, per round, ``K_t = |η_t|`` (the reporters)
and ``X_t`` (the reported 1s; given that ``K1_t`` reporters hold a 1, ``X_t ~ Bin(K1_t, p) +
Bin(K_t − K1_t, q)``), stacked as ``aggregate[..., 0, :] = K``, ``aggregate[..., 1, :] = X``.
``sample_aggregate`` draws (K, K1) by the chain of binomials of
:func:`~ldp_helpers.simulate.streams.sample_reporters` (independent of N) and X by
:func:`~ldp_helpers.mechanisms.base.sample_support_counts`.

With p = e^ε/(e^ε+1), q = 1/(e^ε+1), c = 1/(p − q): Glance releases ``(X_t/K_t − q)/(p − q)``
(1/2 in an empty round, probability ``(1 − 1/T)^N``: a small bias);
T-shot spends ε/T in every round.  All three are tight: the whole-stream loss is exactly ε.

References
----------
[glance] §3; [glance] Algorithm 1; [glance] §4.1; [glance] Theorem 3; [nguyen2016] (Harmony);
[erlingsson2014] (Basic One-time RAPPOR).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_aggregate,
    check_binary_array,
    check_epsilon,
    check_int,
    check_int_array,
    check_n_draws,
    check_ndim,
    check_rng,
    fail,
)
from ldp_helpers.mechanisms.base import Mechanism, sample_support_counts
from ldp_helpers.mechanisms.randomized_response import BinaryRR, q_bin_gap
from ldp_helpers.mechanisms.smp import _inverse_binomial_moment, _sampling_factor
from ldp_helpers.simulate.populations import Population, check_stream_truth
from ldp_helpers.simulate.streams import sample_reporters

NULL = -1  # Glance's report in the rounds a user does not report (perturb's encoding of NULL)
EMPTY_ROUND_ESTIMATE = 0.5  # μ̂_t (and μ̃_t) released by Glance when no user reports in round t
MAX_TABLE_ROUNDS = 10  # stream output tables have 2^T rows


def _check_reporters(reporters, reporters_with_one) -> tuple[np.ndarray, np.ndarray]:
    """Reporter counts K and reporters holding a 1, K1: integer arrays of one shape with 0 ≤ K1 ≤ K."""
    K = check_int_array("reporters", reporters, low=0)
    K1 = check_int_array("reporters_with_one", reporters_with_one, low=0, shape=K.shape)
    if np.any(K1 > K):
        fail(
            "reporters_with_one",
            Described("an array with an entry above reporters"),
            "counts in [0, reporters] (K1 ≤ K)",
        )
    return K, K1


def _rounds_matrix(name: str, checked: np.ndarray, n_rounds: int) -> np.ndarray:
    """An N×T matrix of users × rounds, its entries ``checked`` already: two axes, T = n_rounds."""
    return check_ndim(name, checked, 2, last=n_rounds, what="(users × rounds)")


@dataclass(frozen=True)
class StreamMechanism(Mechanism):
    """The streaming contract (abstract): ε over the whole stream, T rounds, the truth, the [K; X] statistic
    and its exact sampler; :class:`Glance`, :class:`BasicOneTimeRappor` and Harmony build on it."""

    epsilon: float  # ε, one user's budget for her whole stream
    n_rounds: int  # T

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "n_rounds", check_int("n_rounds", self.n_rounds, low=1))
        _ = self.randomizer  # validates ε (e.g. a per-round budget too large to randomize)

    @property
    def rounds_per_user(self) -> int:
        """m: the rounds in which a user reports (1 for the 1-shot mechanisms)."""
        return 1

    @cached_property
    def randomizer(self) -> BinaryRR:
        """``Q_Bin`` used in each reported round."""
        return BinaryRR.from_epsilon(self.epsilon)

    # ---------------------------------------------------------------- truth

    def _population(self, truth) -> Population:
        return check_stream_truth(truth, self.n_rounds)

    def expand(self, truth) -> np.ndarray:
        """The N×T 0/1 matrix V of the population."""
        return self._population(truth).to_matrix()

    def estimand(self, truth) -> np.ndarray:
        """μ_t = (1/N) Σ_n v_{n,t} for every round."""
        return self._population(truth).fractions()

    def n_reports(self, truth) -> int:
        """N, the number of users."""
        return self._population(truth).n_users

    def _streams_matrix(self, values) -> np.ndarray:
        """The clients' input: an N×T 0/1 matrix."""
        return _rounds_matrix("values", check_binary_array("values", values), self.n_rounds)

    def _one_round(self, values, rng, fill: int = NULL) -> np.ndarray:
        """The 1-shot clients: an N×T int8 array, ``Q_Bin(v_{n,τ_n})`` in round τ_n ~ U[T], ``fill`` elsewhere."""
        V, rng = self._streams_matrix(values), check_rng(rng)
        users = np.arange(V.shape[0])
        tau = rng.integers(self.n_rounds, size=V.shape[0])  # τ_n, uniform over the T rounds
        reports = np.full(V.shape, fill, dtype=np.int8)  # fill in every round ...
        reports[users, tau] = self.randomizer.perturb(V[users, tau], rng=rng)  # ... but τ_n
        return reports

    # ---------------------------------------------------------------- server

    def randomize_reporters(
        self, reporters, reporters_with_one, *, rng: np.random.Generator
    ) -> np.ndarray:
        """The statistic ``[K; X]`` given who reports: ``X ~ Bin(K1, p) + Bin(K − K1, q)`` per round.

        ``reporters`` (K) and ``reporters_with_one`` (K1 ≤ K) are integer arrays of shape (..., T).
        """
        K, K1 = _check_reporters(reporters, reporters_with_one)
        return self._randomize(K, K1, check_rng(rng))

    def _randomize(self, K, K1, rng) -> np.ndarray:
        """``[K; X]`` with ``X ~ Bin(K1, p) + Bin(K − K1, q)`` (inputs already validated)."""
        rr = self.randomizer
        return np.stack([K, sample_support_counts(K1, K, rr.p, rr.q, rng=rng)], axis=-2)

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler of ``[K; X]``, shape (2, T) or (n_draws, 2, T): chain of binomials, then the reports."""
        population = self._population(truth)
        draws = 1 if n_draws is None else check_n_draws(n_draws)
        K, K1 = sample_reporters(
            population, self.rounds_per_user, rng=check_rng(rng), n_draws=draws
        )
        aggregate = self._randomize(K, K1, rng)
        return aggregate[0] if n_draws is None else aggregate

    def _statistic(self, aggregate, n) -> tuple[int, np.ndarray, np.ndarray]:
        """Validate ``[K; X]`` of shape (..., 2, T) for n users; return n, K, X."""
        n = check_int("n", n, low=1)
        agg = check_aggregate(
            aggregate, (2, self.n_rounds), low=0, high=n, what=f"[K; X] counts of n = {n} users"
        )
        K, X = agg[..., 0, :], agg[..., 1, :]
        if np.any(X > K):
            fail(
                "aggregate",
                Described("an array with X > K in some round"),
                "reported 1s X_t at most the reporters K_t",
            )
        return n, K, X

    def _table_rounds(self) -> int:
        """T, if small enough for an exact table over the 2^T streams."""
        return check_int(
            "n_rounds (for an exact output table)", self.n_rounds, low=1, high=MAX_TABLE_ROUNDS
        )

    def output_table(self) -> np.ndarray:
        """``P[v, z]`` over a user's whole stream v ∈ {0,1}^T (1-shot: z = (τ, y), 2T outputs).

        ``Pr[τ = s, y | v] = (1/T)·Q_Bin(y | v_s)``; Glance's NULLs and Harmony's zeros in the
        other rounds are fixed by τ, so (τ, y) is the whole output.  Its loss is exactly ε
        (all-zeros vs all-ones stream, any (τ, y)).

        References
        ----------
        [glance] Theorem 3.
        """
        T, Q = self._table_rounds(), self.randomizer.output_table()
        # all 2^T streams, row index = the stream in binary
        V = (np.arange(2**T)[:, None] >> np.arange(T - 1, -1, -1)) & 1
        return np.concatenate([Q[V[:, s]] / self.n_rounds for s in range(self.n_rounds)], axis=1)


@dataclass(frozen=True)
class Glance(StreamMechanism):
    """Glance: one uniform round τ_n, ``Q_Bin(v; ε)`` there, NULL elsewhere.

    Biased only through the empty-round convention (``unbiased = False``): see
    :meth:`expected_estimate`.

    References
    ----------
    [glance] Algorithm 1; [glance] §4.1 (the estimator); [glance] Theorem 3 (ε-LDP).
    """

    unbiased: ClassVar[bool] = False

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Algorithm 1 per user: an N×T array, ``Q_Bin(v_{n,τ_n}; ε)`` in round τ_n ~ U[T], :data:`NULL` (−1) elsewhere."""
        return self._one_round(values, rng)

    def aggregate(self, reports) -> np.ndarray:
        """``[K; X]``: per round, the non-NULL reports and the reported 1s."""
        Y = _rounds_matrix(
            "reports", check_int_array("reports", reports, low=NULL, high=1), self.n_rounds
        )
        if np.any((Y != NULL).sum(axis=1) != 1):
            fail(
                "reports",
                Described("a row without exactly one non-NULL entry"),
                f"one 0/1 report per user, NULL ({NULL}) in every other round",
            )
        return np.stack([(Y != NULL).sum(axis=0), (Y == 1).sum(axis=0)])

    def estimate(self, aggregate, n) -> np.ndarray:
        """``μ̂_t = (X_t/K_t − q)/(p − q)``; rounds without reporters get :data:`EMPTY_ROUND_ESTIMATE`.

        References
        ----------
        [glance] §4.1 (the pure estimator over the reporters η_t).
        """
        _, K, X = self._statistic(aggregate, n)
        est = self.randomizer.estimate_fraction(X, np.maximum(K, 1))
        return np.where(K > 0, est, EMPTY_ROUND_ESTIMATE)

    @staticmethod
    def sampled_fraction(reporters, reporters_with_one) -> np.ndarray:
        """``μ̃_t = (1/|η_t|) Σ_{n∈η_t} v_{n,t} = K1_t/K_t``: the reporters' true fraction (same empty-round convention)."""
        K, K1 = _check_reporters(reporters, reporters_with_one)
        return np.where(K > 0, K1 / np.maximum(K, 1), EMPTY_ROUND_ESTIMATE)

    def rr_variance(self, n_reporters):
        """Exact ``Var[μ̂_t | K_t, K1_t] = pq/(K (p − q)²) = e^ε/(K (e^ε − 1)²)`` for ``K_t ≥ 1``.

        Q_Bin is symmetric (q = 1 − p), so it does not depend on the reporters' true fraction; p − q
        is :func:`q_bin_gap` (tanh(ε/2)) and pq takes no 1 − p, so no digit is lost at small or large ε
        (the generic p(1 − p) + q(1 − q) over (p − q)² was 2e-8 off at ε = 20).
        """
        K = check_int_array("n_reporters", n_reporters, low=1).astype(float)
        rr = self.randomizer
        return rr.p * rr.q / q_bin_gap(self.epsilon) ** 2 / K

    def empty_round_probability(self, n_users: int) -> float:
        """``Pr[K_t = 0] = (1 − 1/T)^N``: no user picked round t (as exp(N log1p(−1/T)); the power of the
        rounded 1 − 1/T was 3e-8 off at T = N = 1e9)."""
        return math.exp(self._log_empty_round(check_int("n_users", n_users, low=1)))

    def _log_empty_round(self, n_users: int) -> float:
        """ln π0 = N·log1p(−1/T) (−∞ at T = 1); 1 − π0 is −expm1 of it (no digit lost where π0 is near 1)."""
        return -math.inf if self.n_rounds == 1 else n_users * math.log1p(-1.0 / self.n_rounds)

    def expected_estimate(self, truth) -> np.ndarray:
        """Exact ``E[μ̂_t] = (1 − π0) μ_t + π0/2`` with π0 = ``(1 − 1/T)^N`` (unbiased given K_t ≥ 1)."""
        mu, log_empty = self.estimand(truth), self._log_empty_round(self.n_reports(truth))
        return -math.expm1(log_empty) * mu + math.exp(log_empty) * EMPTY_ROUND_ESTIMATE

    def variance(self, truth) -> np.ndarray:
        """Exact unconditional ``Var[μ̂_t]``, summed over ``K_t ~ Bin(N, 1/T)``.

        Given ``K_t = k ≥ 1`` the reporters are a uniform k-subset, so μ̃_t is a hypergeometric
        mean and ``Var[μ̂_t | k] = pq/(k (p−q)²) + μ(1−μ)(N−k)/(k(N−1))`` around ``E[μ̂_t | k] = μ``;
        an empty round releases 1/2.  By the law of total variance::

            Var[μ̂_t] = Σ_{k≥1} Pr[K_t = k] Var[μ̂_t | k] + π0 (1 − π0) (μ − 1/2)².

        Both sums over k are moments ``E[1/K; K ≥ 1]`` of binomials, taken from
        :func:`~ldp_helpers.mechanisms.smp._inverse_binomial_moment` at every N (the sum over every k
        up to 2·10⁶ users, a short sum or an integral beyond).

        References
        ----------
        [glance] Claim 1 (the RR part of the error); [glance] Claim 2 (the sampling part).
        """
        mu, N, prob = self.estimand(truth), self.n_reports(truth), 1.0 / self.n_rounds
        log_empty = self._log_empty_round(N)
        empty = math.exp(log_empty)  # π0
        filled = -math.expm1(log_empty)  # 1 − π0
        # E[pq/(K(p − q)²); K ≥ 1], and μ(1 − μ) Σ_{k≥1} Pr[K_t = k](N − k)/(k(N − 1))
        rr_part = self.rr_variance(1) * _inverse_binomial_moment(N, prob)
        sampling = mu * (1 - mu) * _sampling_factor(N, prob)
        return rr_part + sampling + empty * filled * (mu - EMPTY_ROUND_ESTIMATE) ** 2


@dataclass(frozen=True)
class BasicOneTimeRappor(StreamMechanism):
    """Basic One-time RAPPOR / T-shot: ``Q_Bin(v_{n,t}; ε/T)`` in every round.

    References
    ----------
    [glance] §1.1; [glance] Theorem 1 (sequential composition); [m_shot] §4.1 (m = T);
    [erlingsson2014] (Basic One-time RAPPOR).
    """

    @property
    def rounds_per_user(self) -> int:
        """m = T: every user reports every round."""
        return self.n_rounds

    @cached_property
    def randomizer(self) -> BinaryRR:
        """``Q_Bin(·; ε/T)``: the per-round share of the budget."""
        return BinaryRR.from_epsilon(self.epsilon / self.n_rounds)

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per user and round: ``y_{n,t} = Q_Bin(v_{n,t}; ε/T)`` (an N×T 0/1 array)."""
        return self.randomizer.perturb(self._streams_matrix(values), rng=check_rng(rng))

    def aggregate(self, reports) -> np.ndarray:
        """``[K; X]`` with ``K_t = N`` (everyone reports) and X_t the reported 1s."""
        Y = _rounds_matrix("reports", check_binary_array("reports", reports), self.n_rounds)
        return np.stack([np.full(self.n_rounds, Y.shape[0]), Y.sum(axis=0, dtype=np.int64)])

    def estimate(self, aggregate, n) -> np.ndarray:
        """``μ̂_t = (X_t/N − q')/(p' − q')`` over all N users."""
        n, _, X = self._statistic(aggregate, n)
        return self.randomizer.estimate_fraction(X, n)

    def variance(self, truth) -> np.ndarray:
        """Exact ``Var[μ̂_t]``: the RR variance at ε/T over all N users."""
        population = self._population(truth)
        return self.randomizer.fraction_variance(population.fractions(), population.n_users)

    def output_table(self) -> np.ndarray:
        """``P[v, y] = Π_t Q_Bin(y_t | v_t; ε/T)`` over all 2^T streams and 2^T report vectors (loss T·ε/T = ε)."""
        table, Q = np.ones((1, 1)), self.randomizer.output_table()
        for _ in range(self._table_rounds()):
            # rows/columns ordered as binary numbers, round 1 the leading bit
            table = np.kron(table, Q)
        return table
