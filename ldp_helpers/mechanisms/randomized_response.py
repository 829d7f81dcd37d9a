"""Binary randomized response: ``Q_Bin(v; ε)`` and Warner's two-coin variant.

One value object, :class:`BinaryRR`, holds the two probabilities that define any binary
randomized response::

    p = Pr[report 1 | v = 1],    q = Pr[report 1 | v = 0],    p > q.

``Q_Bin(v; ε)`` keeps the true bit with probability e^ε/(e^ε+1), i.e. p = e^ε/(e^ε+1) and
q = 1/(e^ε+1).  Warner's two-coin procedure ([tutorial] "Randomized response") answers
truthfully on heads and otherwise answers the second coin: p = 1/2 + 1/4 = 3/4, q = 1/4, so
it is Q_Bin at ε = ln 3 and its estimator 2(X − 0.25) is the general (X − q)/(p − q).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldp_helpers._numeric import majority_probability
from ldp_helpers._validation import (
    check_binary_array,
    check_epsilon,
    check_int,
    check_int_array,
    check_probabilities,
    check_probability,
    check_real,
    check_real_array,
    check_rng,
    check_true_counts,
    fail,
)
from ldp_helpers.mechanisms.base import Mechanism, _draw_support_counts
from ldp_helpers.mechanisms.pure import count_variance, unbiased_count

#: the largest ε at which ``Q_Bin(·; ε)`` still randomizes: from the next double on (ε ≈ ln 2⁵³) its keep
#: probability e^ε/(e^ε+1) rounds to 1 (:func:`q_bin_probabilities`), a reporter who never lies
Q_BIN_MAX_EPSILON = 36.7368005696771


@dataclass(frozen=True)
class BinaryRR(Mechanism):
    """Binary randomized response with ``p = Pr[1 | v=1] > q = Pr[1 | v=0]``.

    Build it with :meth:`from_epsilon` (``Q_Bin``) or :meth:`warner_two_coin`.  Its truth is the
    pair of counts ``[n_zeros, n_ones]``; the aggregate is the number of reported 1s and the
    estimate the unbiased count of true 1s.  :meth:`estimate_fraction` and
    :meth:`fraction_variance` give the same on the scale of fractions (the stream mechanisms'
    per-round channel).

    References
    ----------
    [tutorial] "Randomized response"; [warner1965]; [m_shot] §4.1; [glance] Algorithm 1 (both use
    Q_Bin(v; ε) with keep probability e^ε/(e^ε+1)).
    """

    p: float  # Pr[report 1 | true bit 1]
    q: float  # Pr[report 1 | true bit 0]

    def __post_init__(self):
        p = check_probability(self.p, "p", open_low=True, open_high=True)
        q = check_probability(self.q, "q", open_low=True, open_high=True)
        if not p > q:
            fail("p", p, f"greater than q = {q!r} (p = Pr[1|1], q = Pr[1|0])")
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "q", q)

    @classmethod
    def from_epsilon(cls, epsilon: float) -> BinaryRR:
        """``Q_Bin(·; ε)``: keep the bit w.p. e^ε/(e^ε+1), flip it otherwise (ε ≤ :data:`Q_BIN_MAX_EPSILON`).

        Beyond that ceiling the keep probability rounds to 1 in double precision and the randomizer
        stops randomizing, so such ε are refused.

        References
        ----------
        [m_shot] §4.1; [glance] Algorithm 1.
        """
        keep, flip = q_bin_probabilities(check_epsilon(epsilon, high=Q_BIN_MAX_EPSILON))
        return cls(p=keep, q=flip)

    @classmethod
    def warner_two_coin(cls) -> BinaryRR:
        """Warner's two-coin randomized response: p = 3/4, q = 1/4 (ε = ln 3).

        References
        ----------
        [tutorial] "Randomized response"; [warner1965].
        """
        return cls(p=0.75, q=0.25)

    @property
    def epsilon(self) -> float:
        """The exact ε of the mechanism, ``max(ln(p/q), ln((1−q)/(1−p)))``."""
        gap = self.p - self.q
        # near p = q: log1p's of the gap keep every digit (log(p/q) lost 1e-4 at ε = 1e-12)
        if gap < 0.5 * min(self.q, 1 - self.p):
            return max(math.log1p(gap / self.q), math.log1p(gap / (1 - self.p)))
        return max(math.log(self.p / self.q), math.log((1 - self.q) / (1 - self.p)))

    def output_table(self) -> np.ndarray:
        """``P[v, y] = Pr[report y | true bit v]`` for v, y ∈ {0, 1} (the whole report is one bit)."""
        return np.array([[1 - self.q, self.q], [1 - self.p, self.p]])

    # ---------------------------------------------------------------- truth

    def _counts_and_n(self, truth) -> tuple[np.ndarray, int]:
        """Validate the counts ``[n_zeros, n_ones]`` (at least one user); return them and n."""
        return check_true_counts(truth, 2)

    def expand(self, truth) -> np.ndarray:
        """The users' bits: n_zeros 0s then n_ones 1s (int8)."""
        counts, _ = self._counts_and_n(truth)
        return np.repeat(np.array([0, 1], dtype=np.int8), counts)

    def estimand(self, truth) -> float:
        """The number of true 1s."""
        return float(self._counts_and_n(truth)[0][1])

    # ---------------------------------------------------------------- client and server

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference client: report 1 w.p. p if the true bit is 1, w.p. q if it is 0."""
        bits = check_binary_array("values", values)
        rng = check_rng(rng)
        return (rng.random(bits.shape) < np.where(bits == 1, self.p, self.q)).astype(np.int8)

    def aggregate(self, reports) -> int:
        """X: the number of reported 1s."""
        return int(check_binary_array("reports", reports).sum(dtype=np.int64))

    def sample_aggregate(self, truth, *, rng: np.random.Generator, n_draws: int | None = None):
        """Exact aggregate sampler: ``X ~ Binomial(n_ones, p) + Binomial(n_zeros, q)`` (shape (n_draws,) if given).

        The same law as ``aggregate(perturb(expand(truth)))``, at a cost independent of n.
        """
        counts, n, rng, shape = self._sampler_inputs(truth, rng, n_draws, ())
        size = None if n_draws is None else shape
        return _draw_support_counts(counts[1], n, self.p, self.q, rng=rng, size=size)

    def estimate(self, aggregate, n):
        """Unbiased count of true 1s, ``(X − n q)/(p − q)`` (float, or an array for a batch of X).

        References
        ----------
        [tutorial] "Randomized response"; [wang2017] Eq. (1) with d = 2.
        """
        n = check_int("n", n, low=1)
        ones = check_int_array("aggregate", aggregate, low=0, high=n)
        if ones.ndim > 1:
            raise ValueError(
                f"aggregate must be a count or a 1-D array of n_draws counts; got an array of shape {ones.shape}"
            )
        estimate = unbiased_count(ones, n, self.p, self.q)
        return float(estimate) if estimate.ndim == 0 else estimate

    def variance(self, truth) -> float:
        """Exact Var of :meth:`estimate`: ``(n_ones p(1−p) + n_zeros q(1−q))/(p − q)²``."""
        counts, n = self._counts_and_n(truth)
        return float(count_variance(counts[1], n, self.p, self.q))

    # ---------------------------------------------------------------- fractions

    def estimate_fraction(self, count_of_ones, n):
        """Unbiased estimate of the true fraction of 1s: ``(X − q)/(p − q)``, X = count/n (broadcasts).

        For the two-coin variant this is the tutorial's ``2(X − 0.25)``.

        References
        ----------
        [tutorial] "Randomized response" (the estimator 2(X − 0.25)).
        """
        ones = check_real_array("count_of_ones", count_of_ones, low=0.0, low_open=False)
        n = check_int_array("n", n, low=1).astype(float)
        if np.any(ones > n):
            fail("count_of_ones", count_of_ones, "counts in [0, n] (at most n reports are 1s)")
        return unbiased_count(ones, n, self.p, self.q) / n

    def fraction_variance(self, true_fraction, n):
        """Exact variance of :meth:`estimate_fraction` for a fixed population of ``n`` users (broadcasts)."""
        pi = check_probabilities("true_fraction", true_fraction)
        n = check_int_array("n", n, low=1).astype(float)
        return count_variance(pi * n, n, self.p, self.q) / n**2


def _check_budget(epsilon, name="epsilon"):
    """A budget > 0 (a number or an array): Q_Bin is also run at a mechanism's derived per-bit or per-round
    budget (ε/2, ε/m), which lies below ``MIN_EPSILON`` when the mechanism's own ε is near it."""
    if np.ndim(epsilon) == 0:
        return check_real(name, epsilon, low=0.0, low_open=True)
    return check_real_array(name, epsilon, low=0.0, low_open=True)


def q_bin_probabilities(epsilon):
    """``(e^ε/(e^ε+1), 1/(e^ε+1))``: Pr[report 1 | v=1] and Pr[report 1 | v=0] of ``Q_Bin(·; ε)``.

    The one place these are derived from ε.  ``epsilon`` is a number (floats are returned) or an
    array of budgets (arrays are returned, elementwise).  Computed without overflow: for ε above
    :data:`Q_BIN_MAX_EPSILON` (36.74) the first rounds to 1.0 while the second stays positive (callers that average
    Q_Bin with other reports, like m-shot's round channel, may accept that;
    :meth:`BinaryRR.from_epsilon` refuses it).  ``p − q = tanh(ε/2)`` is
    :func:`q_bin_gap`, accurate also where p and q are both close to 1/2.  The first is lowered by an ulp
    where its complement 1 − p fell below the second
    (:func:`~ldp_helpers._numeric.majority_probability`): the implemented keep/flip pair never loses
    more than ε (at ε = 36 the rounded p lost ε + 0.044).

    References
    ----------
    [m_shot] §4.1; [glance] Algorithm 1.
    """
    shrink = (math.exp if np.ndim(epsilon) == 0 else np.exp)(-_check_budget(epsilon))
    keep = 1.0 / (1.0 + shrink)
    flip = shrink * keep  # 1/(e^ε+1) = e^{−ε} · e^ε/(e^ε+1)
    return majority_probability(keep, flip), flip


def q_bin_gap(epsilon):
    """``p − q = (e^ε − 1)/(e^ε + 1) = tanh(ε/2)`` of ``Q_Bin(·; ε)``, without cancellation at small ε.

    References
    ----------
    [m_shot] §4.1.
    """
    return (math.tanh if np.ndim(epsilon) == 0 else np.tanh)(_check_budget(epsilon) / 2.0)


def two_coin_response(values, *, rng: np.random.Generator) -> np.ndarray:
    """Warner's procedure, literally: a first coin decides truth, a second coin the answer.

    Heads (w.p. 1/2): report the true bit.  Tails: report 1 iff a second fair coin shows heads.
    Its output distribution is :meth:`BinaryRR.warner_two_coin`'s table (tested).

    References
    ----------
    [tutorial] "Randomized response"; [warner1965].
    """
    bits = check_binary_array("values", values)
    rng = check_rng(rng)
    truthful = rng.random(bits.shape) < 0.5
    second_coin = (rng.random(bits.shape) < 0.5).astype(np.int8)
    return np.where(truthful, bits, second_coin).astype(np.int8)
