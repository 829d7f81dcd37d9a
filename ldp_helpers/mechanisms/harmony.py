"""Harmony as a continual counter: the papers' version (0/1 reports) and Nguyen et al.'s (±c).

Both pick one uniform round τ_n and randomize ``v_{n,τ_n}`` with ``Q_Bin(·; ε)``; they differ in
what is sent and how it is de-biased.

* :class:`Harmony` — [glance] §4.1, Algorithm 1 line 9 (as LPCC uses it): round τ_n carries the
  RR bit ``y ∈ {0, 1}``, every other round carries **0**, so the aggregator sees only
  ``X_t = Σ_n y_{n,t}`` and releases ``μ̂_t = (T·X_t/N − q)/(p − q)``.  With
  ``r_v = (q + (p − q)v)/T`` the users' bits are independent Bernoulli(r_{v_{n,t}}), hence
  ``E[μ̂_t] = μ_t`` and ``Var[μ̂_t] = T²/(N (p − q)²)·[μ r_1(1 − r_1) + (1 − μ) r_0(1 − r_0)]``;
  at μ = 1 this is ``(T/N)·e^ε(e^ε+1)/(e^ε−1)²·(1 − e^ε/(T(e^ε+1)))``, [glance] Theorem 4's term.
* :class:`HarmonyNguyen` — [nguyen2016]'s one-coordinate mean estimator: ``z = ±T·c`` (c = 1/(p − q))
  in round τ_n, 0 elsewhere, ``μ̂_t = (1 + Σ_n z_{n,t}/N)/2``; ``Var = (T c² − 1)/(4N)``, about 4×
  smaller than :class:`Harmony`'s at large ε.  A labelled variant: the papers do not analyse it.

The statistic is ``[K; X]`` per round like the other stream mechanisms; for :class:`Harmony` the
zeros of non-sampled rounds are indistinguishable from RR zeros, so its first row is ``K_t = N``
(everyone sends something every round).

References
----------
[glance] §4.1; [glance] Theorem 4; [nguyen2016].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import Described, check_real_array, fail
from ldp_helpers.mechanisms.continual import BasicOneTimeRappor, StreamMechanism, _rounds_matrix
from ldp_helpers.mechanisms.pure import count_variance
from ldp_helpers.mechanisms.randomized_response import q_bin_gap


@dataclass(frozen=True)
class Harmony(StreamMechanism):
    """The papers' Harmony: the RR bit in one uniform round, 0 in every other round.

    References
    ----------
    [glance] §4.1 (Algorithm 1, line 9: Harmony sends 0 where Glance sends NULL); [glance] Theorem 4.
    """

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per user: ``y_{n,τ_n} = Q_Bin(v_{n,τ_n}; ε)`` with τ_n ~ U[T], ``y = 0`` elsewhere (an N×T 0/1 array)."""
        return self._one_round(values, rng, 0)

    # [N; X]: every user sends a bit every round, as in T-shot; X_t is the number of 1s
    aggregate = BasicOneTimeRappor.aggregate

    def _randomize(self, K, K1, rng) -> np.ndarray:
        """``[N; X]`` from the reporters (K, K1): X as for Glance, and N = Σ_t K_t (one report per user)."""
        KX = super()._randomize(K, K1, rng)
        KX[..., 0, :] = K.sum(axis=-1, keepdims=True)
        return KX

    def estimate(self, aggregate, n) -> np.ndarray:
        """``μ̂_t = (T·X_t/N − q)/(p − q)``: unbiased since ``E[X_t] = N(q + (p − q)μ_t)/T``."""
        n, _, X = self._statistic(aggregate, n)
        rr = self.randomizer
        return (self.n_rounds * X / n - rr.q) / (rr.p - rr.q)

    def variance(self, truth) -> np.ndarray:
        """Exact ``Var[μ̂_t] = T²/(N(p−q)²)·[μ r₁(1−r₁) + (1−μ) r₀(1−r₀)]``, ``r_v = (q + (p−q)v)/T``:
        μ̂_t is the pure estimator of a fraction with support probabilities r₁ > r₀ (:func:`count_variance`
        of one user's share, over N)."""
        mu, N, rr, T = self.estimand(truth), self.n_reports(truth), self.randomizer, self.n_rounds
        return count_variance(mu, 1, rr.p / T, rr.q / T) / N

    def output_table(self) -> np.ndarray:
        """``P[v, y]`` over the 2^T streams and the T + 1 possible report vectors.

        Columns: the all-zero vector (``(1/T) Σ_s Q_Bin(0 | v_s)``), then ``e_s`` for s = 1..T
        (``(1/T) Q_Bin(1 | v_s)``).  Its loss is exactly ε (the ``e_s`` columns).
        """
        ones = super().output_table()[:, 1::2]  # Pr[y = e_s | v] = Pr[τ = s, y = 1 | v], (2^T, T)
        return np.concatenate([1.0 - ones.sum(axis=1, keepdims=True), ones], axis=1)


@dataclass(frozen=True)
class HarmonyNguyen(StreamMechanism):
    """Nguyen et al.'s Harmony (a labelled variant, not the papers'): ``z = ±T·c`` in one uniform round, 0 elsewhere.

    References
    ----------
    [glance] §4.1 (the difference to Glance); [nguyen2016] (Harmony's one-coordinate mean estimator, x = 2v − 1).
    """

    @property
    def scale(self) -> float:
        """``c = (e^ε+1)/(e^ε−1) = 1/(p − q) = 1/tanh(ε/2)``: magnitude of a de-biased ±1 report."""
        return 1.0 / q_bin_gap(self.epsilon)

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per user: ``z_{n,τ_n} = T·c·s`` with ``s = 2·Q_Bin(v_{n,τ_n}; ε) − 1``, τ_n ~ U[T]; ``z = 0`` elsewhere."""
        y = self._one_round(values, rng)  # the RR bit in round τ_n, NULL (−1) elsewhere
        return np.where(y < 0, 0.0, self.n_rounds * self.scale * (2.0 * y - 1.0))

    def aggregate(self, reports) -> np.ndarray:
        """``[K; X]``: per round, the non-zero reports and the positive ones (Σ_n z_{n,t} = T c (2X_t − K_t))."""
        z = _rounds_matrix("reports", check_real_array("reports", reports), self.n_rounds)
        size = self.n_rounds * self.scale
        sent = z != 0
        if np.any(sent & ~np.isclose(np.abs(z), size, rtol=1e-12, atol=0)) or np.any(
            sent.sum(axis=1) > 1
        ):
            fail(
                "reports",
                Described("an array with an entry other than 0 or ±T·c, or two in one row"),
                f"one entry ±T·c = ±{size:g} per user and 0 elsewhere",
            )
        return np.stack([sent.sum(axis=0), (z > 0).sum(axis=0)])

    def estimate(self, aggregate, n) -> np.ndarray:
        """``μ̂_t = (1 + (1/N) Σ_n z_{n,t})/2 = 1/2 + T c (2X_t − K_t)/(2N)``."""
        n, K, X = self._statistic(aggregate, n)
        return 0.5 + self.n_rounds * self.scale * (2.0 * X - K) / (2.0 * n)

    def variance(self, truth) -> np.ndarray:
        """Exact ``Var[μ̂_t] = (T c² − 1)/(4N)`` in every round, for any binary stream."""
        N = self.n_reports(truth)
        return np.full(self.n_rounds, (self.n_rounds * self.scale**2 - 1) / (4 * N))
