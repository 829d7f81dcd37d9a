"""Locally private continual counting (LPCC): Glance, Harmony and Basic One-time RAPPOR (T-shot).

N users hold bits ``v_{n,t}`` over T rounds; the aggregator releases ``μ̂_t`` before round t+1
and its error is ``Err = max_t |μ̂_t − μ_t|`` (Glance seed 000, §3).  All three mechanisms send
``Q_Bin`` reports in an m-subset of rounds, so one trial is summarized per round by

* ``K_t = |η_t|``: the users reporting in round t (``m = 1``: one uniform round τ_n; ``m = T``: all),
* ``K1_t``: how many of them hold a 1 (not seen by the aggregator; it defines μ̃_t),
* ``X_t``: how many reported 1s, ``X_t ~ Bin(K1_t, p) + Bin(K_t − K1_t, q)``.

:func:`simulate_reports` wraps :func:`ldp_helpers.simulate.streams.sample_stream_counts`, which draws
``(K, K1, X)`` exactly from a :class:`~ldp_helpers.simulate.streams.Population` (chain of binomials for K
per group, then two binomials per round): O(G·T) work per trial, independent of N, vectorized
over trials.  :func:`reference_user_reports` is the per-user
reference (N×T matrices, tests only).  Every estimator is a function of ``(K, X)``.

Estimators (p = e^ε/(e^ε+1), q = 1/(e^ε+1), c = (e^ε+1)/(e^ε−1) = 1/(p−q)):

* **Glance** (Algorithm 1): ``μ̂_t = (X_t/K_t − q)/(p − q)``, the pure-LDP estimator over the
  reporters.  *Convention for an empty round* (``K_t = 0``, probability ``(1 − 1/T)^N``):
  ``μ̂_t = μ̃_t = 1/2``, the data-free release that minimizes the worst-case error on [0, 1].
* **Harmony** (Nguyen et al. 2016, one coordinate per user): a user maps her bit to
  ``x = 2v − 1 ∈ {−1, 1}``, sends ``z = T·c·s`` in round τ_n with ``s = ±1`` the Q_Bin report, and
  ``z = 0`` elsewhere.  ``E[z_{n,t}] = (1/T)·T·c·x(p − q) = x``, so ``x̂_t = (1/N) Σ_n z_{n,t}`` is
  unbiased for ``2μ_t − 1`` and ``μ̂_t = (1 + x̂_t)/2 = 1/2 + T c (2X_t − K_t)/(2N)``.  Each user
  contributes variance ``(T c² − x²)/(4N²)`` with ``x² = 1``: ``Var[μ̂_t] = (T c² − 1)/(4N)``
  for every binary stream — it tends to ``(T − 1)/(4N) > 0`` as ε → ∞ (Harmony's Θ(1)).
* **Basic One-time RAPPOR / T-shot**: every user reports every round with ``Q_Bin(·; ε/T)``;
  ``μ̂_t = (X_t/N − q')/(p' − q')`` (sequential composition: ε/T per round, ε in total).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import Described, check_epsilon, check_int, check_int_array, check_real_array, fail
from ldp_helpers.mechanisms.randomized_response import BinaryRR
from ldp_helpers.simulate.streams import Population, reference_report_rounds, sample_stream_counts

EMPTY_ROUND_ESTIMATE = 0.5  # μ̂_t (and μ̃_t) released by Glance when no user reports in round t
MAX_TABLE_ROUNDS = 10  # stream output tables have 2^T rows


@dataclass(frozen=True)
class StreamReports:
    """Per-round sufficient statistics of ``n_trials`` runs (arrays of shape (n_trials, T))."""

    n_users: int
    reporters: np.ndarray  # K_t = |η_t|
    reporters_with_one: np.ndarray  # K1_t, reporters whose true bit is 1
    reported_ones: np.ndarray  # X_t, reports equal to 1

    @classmethod
    def from_user_reports(cls, report_mask, reports, V) -> "StreamReports":
        """Sufficient statistics of one trial from per-user N×T matrices (mask, reported bits, true bits)."""
        mask = np.asarray(report_mask, dtype=bool)
        return cls(
            n_users=mask.shape[0],
            reporters=mask.sum(axis=0)[None, :],
            reporters_with_one=(mask & (np.asarray(V) == 1)).sum(axis=0)[None, :],
            reported_ones=(mask & (np.asarray(reports) == 1)).sum(axis=0)[None, :],
        )


def _check_population(population) -> Population:
    if not isinstance(population, Population):
        raise ValueError(f"population must be a ldp_helpers.simulate.streams.Population; got {type(population).__name__}")
    return population


def simulate_reports(population: Population, m: int, rr: BinaryRR, *, rng: np.random.Generator, n_trials: int = 1) -> StreamReports:
    """Exact fast simulator: ``(K, K1, X)`` for ``n_trials`` runs of an m-shot Q_Bin mechanism.

    Same distribution as :func:`reference_user_reports` (tested), O(G·T) work per trial.
    """
    population = _check_population(population)
    return StreamReports(population.n_users, *sample_stream_counts(population, m, rr.p, rr.q, rng=rng, n_trials=n_trials))


def reference_user_reports(population: Population, m: int, rr: BinaryRR, *, rng: np.random.Generator):
    """Per-user reference run: ``(report_mask, reports, V)``, three N×T matrices (tests only).

    Each user picks a uniform m-subset of rounds and sends ``Q_Bin(v_{n,t})`` in those rounds.
    """
    population = _check_population(population)
    V = population.to_matrix()
    mask = reference_report_rounds(population.n_users, population.n_rounds, m, rng=rng)
    reports = np.where(mask, rr.perturb(V, rng=rng), 0).astype(np.int8)
    return mask, reports, V


def max_error(estimates, population: Population) -> np.ndarray:
    """``Err = max_t |μ̂_t − μ_t|`` for each trial (rows of ``estimates``, last axis of length T)."""
    mu = _check_population(population).fractions()
    est = check_real_array("estimates", estimates)
    if est.ndim == 0 or est.shape[-1] != mu.size:
        fail("estimates", Described(f"an array of shape {est.shape}"), f"an array whose last axis has length T = {mu.size}")
    return np.max(np.abs(est - mu), axis=-1)


@dataclass(frozen=True)
class _StreamMechanism:
    """Shared parts: ε over the whole stream, T rounds, simulators, exact stream privacy."""

    epsilon: float
    n_rounds: int

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "n_rounds", check_int("n_rounds", self.n_rounds, low=1))
        _ = self.randomizer  # validates ε (e.g. a per-round budget too large to randomize)

    rounds_per_user = 1  # m

    @property
    def randomizer(self) -> BinaryRR:
        """``Q_Bin`` used in each reported round."""
        return BinaryRR.from_epsilon(self.epsilon)

    def _check_rounds(self, population: Population) -> Population:
        population = _check_population(population)
        if population.n_rounds != self.n_rounds:
            raise ValueError(f"population must have n_rounds={self.n_rounds} rounds (T); got {population.n_rounds}")
        return population

    def simulate(self, population: Population, *, rng: np.random.Generator, n_trials: int = 1) -> StreamReports:
        """Exact fast simulation of ``n_trials`` runs (see :func:`simulate_reports`)."""
        return simulate_reports(self._check_rounds(population), self.rounds_per_user, self.randomizer, rng=rng, n_trials=n_trials)

    def reference(self, population: Population, *, rng: np.random.Generator) -> StreamReports:
        """One run of the per-user reference, summarized (see :func:`reference_user_reports`)."""
        mask, reports, V = reference_user_reports(self._check_rounds(population), self.rounds_per_user, self.randomizer, rng=rng)
        return StreamReports.from_user_reports(mask, reports, V)

    def _streams(self) -> np.ndarray:
        """All 2^T binary streams, one per row (row index = the stream read as a binary number)."""
        T = check_int("n_rounds (for an exact output table)", self.n_rounds, low=1, high=MAX_TABLE_ROUNDS)
        return (np.arange(2**T)[:, None] >> np.arange(T - 1, -1, -1)) & 1

    def stream_output_table(self) -> np.ndarray:
        """``P[v, z]`` over a user's whole stream v ∈ {0,1}^T (1-shot: z = (τ, y), 2T outputs).

        ``Pr[τ = s, y | v] = (1/T)·Q_Bin(y | v_s)``; Glance's NULLs and Harmony's zeros in the
        other rounds are fixed by τ, so (τ, y) is the whole output.
        """
        Q = self.randomizer.output_table()
        V = self._streams()
        return np.concatenate([Q[V[:, s]] / self.n_rounds for s in range(self.n_rounds)], axis=1)


@dataclass(frozen=True)
class Glance(_StreamMechanism):
    """Glance (Algorithm 1): one uniform round τ_n, ``Q_Bin(v; ε)`` there, NULL elsewhere.

    References
    ----------
    Glance seed (000), Algorithm 1 and the estimator of §4.1; Theorem 3 (ε-LDP).
    """

    def estimate(self, reports: StreamReports) -> np.ndarray:
        """``μ̂_t = (X_t/K_t − q)/(p − q)``; rounds without reporters get :data:`EMPTY_ROUND_ESTIMATE`."""
        K = reports.reporters
        est = self.randomizer.estimate_fraction(reports.reported_ones, np.maximum(K, 1))
        return np.where(K > 0, est, EMPTY_ROUND_ESTIMATE)

    @staticmethod
    def sampled_fraction(reports: StreamReports) -> np.ndarray:
        """``μ̃_t = (1/|η_t|) Σ_{n∈η_t} v_{n,t}``: the reporters' true fraction (same empty-round convention)."""
        K = reports.reporters
        return np.where(K > 0, reports.reporters_with_one / np.maximum(K, 1), EMPTY_ROUND_ESTIMATE)

    def rr_variance(self, n_reporters):
        """Exact ``Var[μ̂_t | K_t]`` = ``pq/(K (p − q)²)`` = ``e^ε/(K (e^ε − 1)²)`` for ``K_t ≥ 1`` (whatever K1_t).

        Q_Bin is symmetric (q = 1 − p), so the RR variance of the pure estimator over the K reporters
        does not depend on their true fraction: it is ``fraction_variance(·, K)`` of the randomizer.
        """
        K = check_int_array("n_reporters", n_reporters, low=1)
        return self.randomizer.fraction_variance(0.5, K)


@dataclass(frozen=True)
class Harmony(_StreamMechanism):
    """Harmony as a continual counter: one uniform round, RR there, 0 elsewhere (Nguyen et al. 2016).

    References
    ----------
    Glance seed (000), §4.1 (the difference to Glance) and [12]: Nguyen et al., arXiv:1606.05053,
    Harmony's one-coordinate mean estimator, with x = 2v − 1 (module docstring).
    """

    @property
    def scale(self) -> float:
        """``c = (e^ε+1)/(e^ε−1) = 1/(p − q)``: magnitude of a de-biased ±1 report."""
        return 1.0 / (self.randomizer.p - self.randomizer.q)

    def user_reports(self, report_mask, reports) -> np.ndarray:
        """Per-user outputs ``z_{n,t}``: ``T·c·(2y − 1)`` in the reported round, 0 elsewhere."""
        mask = np.asarray(report_mask, dtype=bool)
        return np.where(mask, self.n_rounds * self.scale * (2.0 * np.asarray(reports) - 1.0), 0.0)

    def estimate_from_user_reports(self, z) -> np.ndarray:
        """``μ̂_t = (1 + (1/N) Σ_n z_{n,t})/2`` from the per-user outputs (definition)."""
        return 0.5 * (1.0 + np.asarray(z, dtype=float).mean(axis=0))

    def estimate(self, reports: StreamReports) -> np.ndarray:
        """``μ̂_t = 1/2 + T c (2X_t − K_t)/(2N)``: the same value from the sufficient statistics."""
        signed_sum = 2.0 * reports.reported_ones - reports.reporters
        return 0.5 + self.n_rounds * self.scale * signed_sum / (2.0 * reports.n_users)

    def variance(self, n_users: int) -> float:
        """Exact ``Var[μ̂_t] = (T c² − 1)/(4N)`` for any binary stream."""
        n_users = check_int("n_users", n_users, low=1)
        return (self.n_rounds * self.scale**2 - 1) / (4 * n_users)


@dataclass(frozen=True)
class BasicOneTimeRappor(_StreamMechanism):
    """Basic One-time RAPPOR / T-shot: ``Q_Bin(v_{n,t}; ε/T)`` in every round.

    References
    ----------
    Glance seed (000), §1.1 (BORAPPOR [8]); Theorem 1 (sequential composition).
    """

    @property
    def rounds_per_user(self) -> int:
        return self.n_rounds

    @property
    def randomizer(self) -> BinaryRR:
        """``Q_Bin(·; ε/T)``: the per-round share of the budget."""
        return BinaryRR.from_epsilon(self.epsilon / self.n_rounds)

    def estimate(self, reports: StreamReports) -> np.ndarray:
        """``μ̂_t = (X_t/N − q')/(p' − q')`` over all N users."""
        return self.randomizer.estimate_fraction(reports.reported_ones, reports.n_users)

    def variance(self, true_fraction, n_users: int):
        """Exact ``Var[μ̂_t]`` (every user reports: the RR variance with ε/T)."""
        return self.randomizer.fraction_variance(true_fraction, check_int("n_users", n_users, low=1))

    def stream_output_table(self) -> np.ndarray:
        """``P[v, y] = Π_t Q_Bin(y_t | v_t; ε/T)`` over all 2^T streams and 2^T report vectors."""
        self._streams()  # validates T for the table size
        Q = self.randomizer.output_table()
        table = np.ones((1, 1))
        for _ in range(self.n_rounds):
            table = np.kron(table, Q)  # rows/columns ordered as binary numbers, like _streams()
        return table
