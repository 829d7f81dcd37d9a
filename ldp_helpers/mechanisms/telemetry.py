"""Microsoft's telemetry collection: 1BitMean, its α-point rounding and memoization ([ding2017]).

Each user holds a counter x ∈ {0, 1, …, m} (e.g. seconds of app usage per day) and sends one bit

    Pr[b = 1 | x] = 1/(e^ε + 1) + (x/m)·(e^ε − 1)/(e^ε + 1)                    ([ding2017] "1BitMean"),

affine in x between 1/(e^ε + 1) and e^ε/(e^ε + 1), so one report is ε-LDP.  The server estimates the
mean σ = (1/n)Σx_i by ``σ̂ = (m/n) Σ_i (b_i(e^ε + 1) − 1)/(e^ε − 1)``, unbiased.

Repeated collection ([ding2017] "α-point rounding", "memoization").  *α-point rounding*: the range is cut into segments of width
``step`` (rounding points 0, step, 2·step, …, m); each user draws α ∈ {0, …, step − 1} once and
rounds x ∈ [L, L + step) up to L + step iff x + α ≥ L + step, down to L otherwise, so the rounded
value is x in expectation.  *Memoization*: the 1BitMean bit of each rounding point is drawn once per
user and resent whenever her rounded value is that point.  Because Pr[b = 1 | x] is affine, one
report after rounding has exactly 1BitMean's law (same ε, estimator and variance), while a user
whose counter does not change sends the same bit forever: ε for any number of collections
(:meth:`OneBitMean.memoized_history_table`).

The truth of :class:`OneBitMean` is the vector of m + 1 counts of users per counter value; the
aggregate is the number of 1 bits, whose exact law is ``Σ_x Binomial(f_x, Pr[1 | x])``.

References
----------
[ding2017] "1BitMean"; [ding2017] Theorem 1 (privacy, Hoeffding's bound); [ding2017] "α-point rounding"
and "memoization"; [hoeffding1963].
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ldp_helpers._numeric import majority_probability, union_log
from ldp_helpers._validation import (
    check_allocation,
    check_binary_array,
    check_epsilon,
    check_int,
    check_int_array,
    check_ndim,
    check_probability,
    check_rng,
    check_true_counts,
    fail,
    fail_shape,
)
from ldp_helpers.mechanisms.base import Mechanism
from ldp_helpers.mechanisms.randomized_response import (
    Q_BIN_MAX_EPSILON,
    q_bin_gap,
    q_bin_probabilities,
)

#: largest m for output_table (an (m + 1) × 2 table) and for the truth's m + 1 counts
MAX_M = 2**24
#: largest number of rounds of a history table (2^T report sequences)
MAX_HISTORY_ROUNDS = 12


@dataclass(frozen=True)
class OneBitMean(Mechanism):
    """1BitMean over counters in {0, …, m} with budget ε ([ding2017] "1BitMean").

    References
    ----------
    [ding2017] "1BitMean"; [ding2017] Theorem 1.
    """

    epsilon: float  # privacy budget ε of one report
    m: int  # the counters' range: x ∈ {0, 1, …, m}

    def __post_init__(self):
        # beyond Q_Bin's ceiling Pr[1 | m] = e^ε/(e^ε + 1) would round to 1
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon, high=Q_BIN_MAX_EPSILON))
        object.__setattr__(self, "m", check_int("m", self.m, low=1, high=MAX_M))

    def one_probability(self, x) -> np.ndarray:
        """``Pr[b = 1 | x] = 1/(e^ε + 1) + (x/m)(e^ε − 1)/(e^ε + 1)`` for counters x ∈ [0, m] ([ding2017] "1BitMean")."""
        x = check_int_array("x", x, low=0, high=self.m)
        low = q_bin_probabilities(self.epsilon)[1]  # 1/(e^ε + 1); (e^ε − 1)/(e^ε + 1) = tanh(ε/2)
        # Pr[0 | x] = 1 − Pr[1 | x] never below Pr[1 | 0] (Pr[0 | m] exactly): at most ε lost
        return majority_probability(low + (np.asarray(x) / self.m) * q_bin_gap(self.epsilon), low)

    # ---------------------------------------------------------------- truth

    def _counts_and_n(self, truth) -> tuple[np.ndarray, int]:
        return check_true_counts(truth, self.m + 1)

    def expand(self, truth) -> np.ndarray:
        """The users' counters: value x repeated f_x times (sorted)."""
        counts, _ = self._counts_and_n(truth)
        return np.repeat(np.arange(self.m + 1), counts)

    def estimand(self, truth) -> float:
        """The mean counter σ = Σ_x x f_x / n."""
        counts, n = self._counts_and_n(truth)
        return float(np.dot(np.arange(self.m + 1, dtype=float), counts) / n)

    # ---------------------------------------------------------------- client and server

    def output_table(self) -> np.ndarray:
        """``P[x, b]`` for x ∈ {0, …, m} and b ∈ {0, 1}: loss ln(Pr[1|m]/Pr[1|0]) = ε exactly."""
        ones = self.one_probability(np.arange(self.m + 1))
        return np.column_stack([1 - ones, ones])

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user client: send 1 with probability ``Pr[1 | x]`` ([ding2017] "1BitMean")."""
        x = check_int_array("values", values, low=0, high=self.m).ravel()
        rng = check_rng(rng)
        return (rng.random(x.shape) < self.one_probability(x)).astype(np.int8)

    def aggregate(self, reports) -> int:
        """The number of 1 bits."""
        return int(check_binary_array("reports", reports).sum(dtype=np.int64))

    def sample_aggregate(self, truth, *, rng: np.random.Generator, n_draws: int | None = None):
        """Exact sampler of the number of 1 bits: ``Σ_x Binomial(f_x, Pr[1 | x])`` (m + 1 binomials per survey)."""
        counts, _, rng, shape = self._sampler_inputs(truth, rng, n_draws, (self.m + 1,))
        size = None if n_draws is None else shape
        return rng.binomial(counts, self.one_probability(np.arange(self.m + 1)), size=size).sum(
            axis=-1
        )

    def estimate(self, aggregate, n):
        """``σ̂ = (m/n)((e^ε + 1)B − n)/(e^ε − 1)`` from B ones among n reports ([ding2017] "1BitMean").

        Written with tanh(ε/2) = (e^ε − 1)/(e^ε + 1): ``σ̂ = (m/n)(B − n/(e^ε + 1))/tanh(ε/2)``.
        """
        n = check_int("n", n, low=1)
        ones = check_int_array("aggregate", aggregate, low=0, high=n)
        if ones.ndim > 1:
            fail_shape("aggregate", ones.shape, "a count or a 1-D array of n_draws counts")
        estimate = (
            (self.m / n)
            * (ones - n * q_bin_probabilities(self.epsilon)[1])
            / q_bin_gap(self.epsilon)
        )
        return float(estimate) if estimate.ndim == 0 else estimate

    def variance(self, truth) -> float:
        """Exact ``Var[σ̂] = (m/(n tanh(ε/2)))² Σ_x f_x π_x(1 − π_x)``, π_x = Pr[1 | x]."""
        counts, n = self._counts_and_n(truth)
        pi = self.one_probability(np.arange(self.m + 1))
        return float((self.m / (n * q_bin_gap(self.epsilon))) ** 2 * np.dot(counts, pi * (1 - pi)))

    def error_bound(self, n: int, beta: float) -> float:
        """Hoeffding's bound: ``|σ̂ − σ| ≤ (m/√(2n))·(e^ε + 1)/(e^ε − 1)·√(ln(2/β))`` with probability ≥ 1 − β.

        Each user's term (m/(e^ε − 1))(b(e^ε + 1) − 1) ranges over an interval of width
        m(e^ε + 1)/(e^ε − 1); Hoeffding's inequality for the mean of n of them gives the bound.

        References
        ----------
        [ding2017] Theorem 1; [hoeffding1963].
        """
        n = check_int("n", n, low=1)
        beta = check_probability(beta, "beta", open_low=True, open_high=True)
        return self.m / math.sqrt(2 * n) / q_bin_gap(self.epsilon) * math.sqrt(union_log(2, beta))

    # ---------------------------------------------------------------- repeated collection ([ding2017] "α-point rounding", "memoization")

    def _check_step(self, step) -> int:
        step = check_int("step", step, low=1, high=self.m)
        if self.m % step:
            fail("step", step, f"a divisor of m = {self.m} (the rounding points 0, step, …, m)")
        return step

    def perturb_rounds(self, values, step: int, *, rng: np.random.Generator) -> np.ndarray:
        """Repeated collection with α-point rounding and memoization: ``values`` (users × rounds) → bits.

        Each user draws α ∈ {0, …, step − 1} once; at each round her counter x ∈ [L, L + step) is
        rounded to L + step iff x + α ≥ L + step (else to L), and she sends the memoized 1BitMean bit
        of that rounding point (drawn the first time she rounds to it).

        References
        ----------
        [ding2017] "α-point rounding", "memoization".
        """
        x = check_int_array(
            "values", check_ndim("values", values, 2, what="(users × rounds)"), low=0, high=self.m
        )
        step, rng = self._check_step(step), check_rng(rng)
        check_allocation(
            "values",
            f"an array of {x.shape[0]} users",
            x.shape[0] * (self.m // step + 1),
            what="one memoized bit per user and rounding point",
        )
        alpha = rng.integers(0, step, size=(x.shape[0], 1))  # α of each user, once
        # index of the rounding point: L/step, plus 1 iff x + α ≥ L + step
        point = (x + alpha) // step
        memo = rng.random((x.shape[0], self.m // step + 1)) < self.one_probability(
            np.arange(0, self.m + 1, step)
        )
        return memo[np.arange(x.shape[0])[:, None], point].astype(np.int8)

    def memoized_history_table(self, histories, step: int) -> np.ndarray:
        """Exact ``P[h, y]``: each value history h (a row of counters over T ≤ 12 rounds) → report sequences y.

        Over α (uniform on {0, …, step − 1}) the rounding points of h are fixed; the memoized bits of
        the distinct points are independent 1BitMean bits, so y has positive probability only if it
        repeats the same bit wherever h rounds to the same point.  ``max_privacy_loss`` of the table
        is the privacy of those histories taken together (a constant history costs ε whatever T).
        """
        h = check_int_array(
            "histories",
            check_ndim("histories", histories, 2, what="(histories × rounds)"),
            low=0,
            high=self.m,
        )
        check_int("histories.shape[1] (rounds)", h.shape[1], low=1, high=MAX_HISTORY_ROUNDS)
        step = self._check_step(step)
        sequences = np.array(list(itertools.product((0, 1), repeat=h.shape[1])), dtype=np.int8)
        table = np.zeros((h.shape[0], sequences.shape[0]))
        for alpha in range(step):
            points = (h + alpha) // step
            for row, pts in enumerate(points):
                table[row] += self._memoized_sequence_probabilities(pts * step, sequences) / step
        return table

    def _memoized_sequence_probabilities(
        self, points: np.ndarray, sequences: np.ndarray
    ) -> np.ndarray:
        """Pr[y] for every sequence y, given the rounding points of each round (memoized bit per point)."""
        prob = np.ones(sequences.shape[0])
        for point in np.unique(points):
            rounds = np.flatnonzero(points == point)
            bits = sequences[:, rounds]
            same = np.all(bits == bits[:, :1], axis=1)
            pi = float(self.one_probability(point))
            prob *= np.where(same, np.where(bits[:, 0] == 1, pi, 1 - pi), 0.0)
        return prob
