"""The Hadamard mechanism (HM) of pure-ldp: t Hadamard coefficients, perturbed together by GRR over 2^t patterns.

Client.  With D = 2^⌈log2 d⌉ and H = H_D (:mod:`~ldp_helpers.mechanisms.hadamard`), a user with
value v draws t indices j_1, …, j_t independently and uniformly from [D], reads her coefficients
c_l = H[v, j_l] ∈ {±1}, and perturbs the pattern (c_1, …, c_t) by generalized randomized response
over its 2^t values: kept with probability e^ε/(e^ε + 2^t − 1), else replaced by one of the
2^t − 1 others uniformly.  She sends (j_l, s_l) for l ≤ t.  The indices do not depend on v, and the
pattern is GRR: the whole report is exactly ε-LDP (its table over [D]^t × {±1}^t is checked).
With t = 1 a user sends one Hadamard coefficient through binary randomized response, as in Apple's
Hadamard count-mean sketch (there inside one row of a sketch).

Server.  A single coefficient is correct with probability p_c = (e^ε + 2^{t−1} − 1)/(e^ε + 2^t − 1),
so E[s_l] = c₀ H[v, j_l] with c₀ = 2p_c − 1 = (e^ε − 1)/(e^ε + 2^t − 1).  The aggregate is the
vector a[j] = Σ s over all reported pairs with index j; since E_J[H[x, J] H[v, J]] = 1[x = v] for J
uniform on [D],

    ĉ(x) = (H a)[x] / (t c₀)

is unbiased.  Its exact variance: a user adds Y = Σ_l H[x, j_l] s_l / (t c₀); for v ≠ x, E[Y²] =
1/(t c₀²) (cross terms vanish with E_J[H[x,J]H[v,J]] = 0); for v = x the t signs are correlated
through the pattern, E[ξ_l ξ_l'] = c₀ for l ≠ l', so

    Var[ĉ(x)] = f_x ((1 + (t − 1) c₀)/(t c₀²) − 1) + (n − f_x)/(t c₀²).

t.  The variance of a rare value, (e^ε + 2^t − 1)²/(t (e^ε − 1)²), is minimized by
:func:`optimal_coefficients` (our choice: the exact argmin over t).  pure-ldp's ``use_optimal_t``
takes t = ⌈log2(e^ε + 1)⌉ instead, which is larger (e.g. 2 instead of 1 at ε = 1, 5 instead of 3
at ε = 3) and has a larger variance by this formula (note for notebook 07); its indices are drawn from
[0, d), which is H_D's range only when d is a power of 2 (its fast transform needs that too).

Exact aggregate sampler.  A reported pair (j, s) has s = σ·H[v, j], σ = ±1 as its coordinate was kept
or flipped.  GRR's flips do not depend on the true pattern (the pattern is kept, or replaced by one of
the others uniformly, whatever it is), so the σs are independent of the indices; the t pairs of one
user share the pattern's σs but draw their indices independently.  So, given how many of the t f_v
pairs of value v have σ = +1 (Σ_k k × the users with k coordinates kept: a multinomial over k), every
pair is an independent draw "index uniform, sign σ·H[v, j]" = σ·H[j, v] (H is symmetric), whose sum
per index :func:`~ldp_helpers.mechanisms.hadamard._split_over_hadamard_rows` draws exactly (with v
for its column c and j for its Hadamard row l): O(t d + D log D).

References
----------
[cormode2021] (the Hadamard mechanism HM, its t-coefficient generalization); [apple2017] (the
Hadamard count-mean sketch: one coefficient per user).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_epsilon,
    check_instance,
    check_int,
    check_int_array,
    check_ndim,
    fail,
)
from ldp_helpers.mechanisms.base import FrequencyOracle, _check_int_aggregate
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.hadamard import (
    _split_over_hadamard_rows,
    hadamard_entries,
    walsh_hadamard_transform,
)

MAX_COEFFICIENTS = 30  # largest t (a report pattern is one of 2^t)
MAX_TABLE_COLUMNS = 2**16  # largest (2D)^t for output_table
_MAX_SIGNS = 2**62  # largest t·n: the signs of n users, t each, summed in int64


class HadamardReports(NamedTuple):
    """What HM clients send: t indices j (n × t, int64) and t signs s (n × t, int8) per user.

    References
    ----------
    [cormode2021] (the report (j_l, s_l), l ≤ t).
    """

    indices: np.ndarray
    signs: np.ndarray


def coefficient_variance_factor(epsilon: float, t: int) -> float:
    """1/(t c₀²) = (e^ε + 2^t − 1)²/(t (e^ε − 1)²): the variance one user of another value adds to ĉ(x).

    References
    ----------
    [cormode2021] (HM with t coefficients; the exact form is derived in this module's docstring).
    """
    epsilon = check_epsilon(epsilon)
    t = check_int("t", t, low=1, high=MAX_COEFFICIENTS)
    return 1.0 / (t * _c0(epsilon, t) ** 2)


def _c0(epsilon: float, t: int) -> float:
    """c₀ = (e^ε − 1)/(e^ε + 2^t − 1) = 2p_c − 1, written without overflow."""
    return -math.expm1(-epsilon) / (1.0 + (2**t - 1) * math.exp(-epsilon))


def optimal_coefficients(epsilon: float) -> int:
    """The t ≥ 1 minimizing (e^ε + 2^t − 1)²/t, the rare-value variance of HM (t ≤ 30).

    References
    ----------
    [cormode2021] (the choice of t; this exact argmin is ours).
    """
    epsilon = check_epsilon(epsilon)
    return min(
        range(1, MAX_COEFFICIENTS + 1), key=lambda t: coefficient_variance_factor(epsilon, t)
    )


@dataclass(frozen=True)
class HadamardMechanism(FrequencyOracle):
    """The Hadamard mechanism over [0, d) with t coefficients per user (``t`` = 0: :func:`optimal_coefficients`).

    Derived once: ``coefficients`` (the t used), ``D`` = 2^⌈log2 d⌉.  The aggregate is the
    length-D vector of summed signs per index; the estimate the d unbiased counts.

    References
    ----------
    [cormode2021].
    """

    t: int = 0  # coefficients per user; 0: optimal_coefficients(epsilon)
    coefficients: int = field(init=False)
    D: int = field(init=False)

    def __post_init__(self):
        super().__post_init__()
        t = check_int("t", self.t, low=0, high=MAX_COEFFICIENTS)
        object.__setattr__(self, "coefficients", t or optimal_coefficients(self.epsilon))
        object.__setattr__(self, "D", 1 << (self.d - 1).bit_length())
        self._grr  # GRR over the 2^t patterns refuses an ε whose keep probability rounds to 1

    def _counts_and_n(self, true_counts) -> tuple[np.ndarray, int]:
        """The true counts and n, with t·n ≤ 2^62: the t·n signs of n users are summed in int64."""
        counts, n = super()._counts_and_n(true_counts)
        if n > _MAX_SIGNS // self.coefficients:
            fail(
                "true_counts",
                Described(f"counts totalling {n}"),
                f"counts totalling at most 2^62/t = {_MAX_SIGNS // self.coefficients} for "
                f"t = {self.coefficients} (the t·n signs are summed in int64)",
            )
        return counts, n

    @cached_property
    def _grr(self) -> GRR:
        """GRR over the 2^t sign patterns (pattern bit l set ⇔ s_l = −1)."""
        return GRR(self.epsilon, 2**self.coefficients)

    @cached_property
    def _kept_probabilities(self) -> np.ndarray:
        """Pr[k of the t coordinates keep their sign], k = 0..t: the pattern kept, or k of another."""
        t = self.coefficients
        ones = np.array([math.comb(t, k) for k in range(t + 1)], dtype=float) * self._grr.q
        ones[t] = self._grr.p
        return ones / ones.sum()

    @property
    def report_bits(self) -> int:
        """Bits sent per report: t indices of ⌈log2 D⌉ bits and t sign bits."""
        return self.coefficients * ((self.D - 1).bit_length() + 1)

    def output_table(self) -> np.ndarray:
        """``P[v, (j_1..j_t, s_1..s_t)]`` over all (2D)^t reports (≤ 2^16): D^{−t} times GRR's pattern probability."""
        t = self.coefficients
        if (2 * self.D) ** t > MAX_TABLE_COLUMNS:
            self._refuse_table("d", "(2D)^t", MAX_TABLE_COLUMNS, f" (D = {self.D}, t = {t})")
        indices = np.array(np.unravel_index(np.arange(self.D**t), (self.D,) * t)).T  # (D^t, t)
        # true_pattern: (d, D^t)
        true_pattern = _pattern(hadamard_entries(np.arange(self.d)[:, None, None], indices[None]))
        patterns = np.arange(2**t)
        probability = np.where(true_pattern[..., None] == patterns, self._grr.p, self._grr.q)
        return probability.reshape(self.d, -1) / self.D**t

    def perturb(self, values, *, rng: np.random.Generator) -> HadamardReports:
        """Per-user reference client: t uniform indices, the coefficients H[v, j], the pattern through GRR over 2^t.

        References
        ----------
        [cormode2021].
        """
        values, rng = self._client_inputs(values, rng)
        indices = rng.integers(0, self.D, size=(values.size, self.coefficients))
        coefficients = hadamard_entries(values[:, None], indices)  # c_l = H[v, j_l]
        reported = self._grr.perturb(_pattern(coefficients), rng=rng)  # GRR over the 2^t patterns
        return HadamardReports(indices, _signs(reported, self.coefficients))

    def aggregate(self, reports: HadamardReports) -> np.ndarray:
        """a[j] = Σ of the signs reported with index j (length D, int64)."""
        indices, signs = check_instance("reports", reports, HadamardReports)
        t = self.coefficients
        indices = check_int_array(
            "reports.indices",
            check_ndim("reports.indices", indices, 2, last=t),
            low=0,
            high=self.D - 1,
        )
        signs = check_int_array("reports.signs", signs, low=-1, high=1, shape=indices.shape)
        if np.any(signs == 0):
            fail("reports.signs", Described("an array containing 0"), "an array of ±1 signs")
        return np.bincount(indices.ravel(), weights=signs.ravel(), minlength=self.D).astype(
            np.int64
        )

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler of the summed signs (module docstring); shape (D,) or (n_draws, D)."""
        counts, _, rng, shape = self._sampler_inputs(truth, rng, n_draws, (2, self.D))
        t, size, kept = self.coefficients, shape[:-2] + (self.d,), self._kept_probabilities
        # pairs reported with σ = +1: Σ_k k·(users of v with k kept); with t = 1 numpy's
        # multinomial over {0, 1} draws Bin(f_v, Pr[0 kept]) alone: that binomial, cheaper
        if t == 1:
            plus = counts - rng.binomial(counts, kept[0], size=size)
        else:
            plus = rng.multinomial(counts, kept, size=size) @ np.arange(t + 1)
        signed = np.zeros(shape, dtype=np.int64)  # (σ, v), v padded to D with no users
        signed[..., 0, : self.d], signed[..., 1, : self.d] = plus, t * counts - plus
        reported_plus, reported_minus = _split_over_hadamard_rows(signed, rng)
        return reported_plus - reported_minus

    def estimate(self, aggregate, n) -> np.ndarray:
        """ĉ(x) = (H a)[x]/(t c₀) for x < d (a of shape (D,) or (n_draws, D)).

        References
        ----------
        [cormode2021] (the inverse Hadamard transform of the debiased coefficients).
        """
        n = check_int("n", n, low=1, high=_MAX_SIGNS // self.coefficients)  # t·n signs in int64
        total = n * self.coefficients
        a = _check_int_aggregate(aggregate, (self.D,), low=-total, high=total)
        return walsh_hadamard_transform(a)[..., : self.d] / (
            self.coefficients * _c0(self.epsilon, self.coefficients)
        )

    def variance(self, truth) -> np.ndarray:
        """Exact Var[ĉ(x)] = f_x((1 + (t − 1)c₀)/(t c₀²) − 1) + (n − f_x)/(t c₀²) (module docstring)."""
        counts, n = self._counts_and_n(truth)
        t, c0 = self.coefficients, _c0(self.epsilon, self.coefficients)
        other = coefficient_variance_factor(self.epsilon, t)  # 1/(t c₀²)
        return counts * ((1 + (t - 1) * c0) * other - 1) + (n - counts) * other


def _pattern(coefficients: np.ndarray) -> np.ndarray:
    """The t signs along the last axis as one integer of [2^t]: bit l set ⇔ sign l is −1."""
    return ((coefficients < 0).astype(np.int64) << np.arange(coefficients.shape[-1])).sum(axis=-1)


def _signs(patterns: np.ndarray, t: int) -> np.ndarray:
    """The inverse of :func:`_pattern`: (n, t) int8 signs."""
    return (1 - 2 * ((patterns[:, None] >> np.arange(t)) & 1)).astype(np.int8)
