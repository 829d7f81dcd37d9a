"""Longitudinal memoized frequency oracles: L-GRR, L-OUE, L-OSUE, L-SOUE and L-SUE of [arcolezi2022].

RAPPOR's two steps ([erlingsson2014] §2: PRR, then IRR) applied to GRR and unary encoding.  A user
randomizes her value once with the *permanent* randomizer (budget ε∞), memoizes the result, and
sanitizes the memoized value anew at every collection with the *instantaneous* randomizer, whose
parameters are solved so that one report costs exactly ε₁ < ε∞.

The two rounds are binary channels of the same "support" event: round 1 keeps the user's own value
(or her bit) with p₁ and supports another value with q₁, round 2 likewise with p₂, q₂.  Chained,

    p* = q₂ + (p₂ − q₂) p₁,        q* = q₂ + (p₂ − q₂) q₁,        p* − q* = (p₁ − q₁)(p₂ − q₂),

and one report is a pure oracle with (p*, q*) ([arcolezi2022] "longitudinal protocols").  For L-GRR the chained channel
is GRR over d at ε₁ itself (p* + (d − 1) q* = 1), so ε₁ fixes p* and the second round in closed
form.  For unary encodings each bit goes through both rounds on its own (bits stay independent),
one report costs ``ln(p*(1 − q*)/(q*(1 − p*)))`` and the budget ε₂ of the second round's family
(OUE: p₂ = 1/2; SUE: p₂ + q₂ = 1) is the root of a monotone equation.

Rounds:  L-OUE = OUE then OUE, L-OSUE = OUE then SUE, L-SOUE = SUE then OUE, L-SUE = SUE then SUE
(RAPPOR's PRR + IRR on a one-hot Bloom filter with a symmetric IRR), first round at ε∞.  A second round of the
OUE family cannot reach every ε₁ < ε∞: its ε₁ tops out at q₂ → 0 (:attr:`epsilon_ceiling`).

τ reports of a user whose value does not change cost ε_τ (:meth:`epsilon_after`, exact), which
grows with τ to ε∞ (the memoized value is eventually revealed); without memoization they would cost
τ·ε₁.

References
----------
[arcolezi2022] (L-GRR, L-OSUE and the chained parameters); [erlingsson2014] §2 (memoization);
[wang2017] §4.1–§4.2 (GRR, SUE, OUE).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple

import numpy as np

from ldp_helpers._numeric import majority_probability
from ldp_helpers._validation import (
    check_above,
    check_binary_array,
    check_domain_values,
    check_epsilon,
    check_int,
    check_ndim,
    check_probabilities,
    check_rng,
    fail,
    fail_shape,
)
from ldp_helpers.mechanisms.base import _check_user_arrays
from ldp_helpers.mechanisms.grr import GRR, _keep_or_other, grr_probabilities
from ldp_helpers.mechanisms.privacy import _independent_bits_table
from ldp_helpers.mechanisms.randomized_response import q_bin_probabilities
from ldp_helpers.mechanisms.unary_encoding import (
    MAX_D_TABLE,
    UnaryEncoding,
    unary_loss,
    unary_output_table,
)

#: largest τ for which :meth:`epsilon_after` is asked (beyond it ε_τ equals ε∞ in double precision anyway)
MAX_REPORTS = 10**6
#: largest number of columns of :func:`memoized_reports_table` (d^τ or 2^(dτ) whole-history reports)
MAX_TABLE_COLUMNS = 2**16


class Rounds(NamedTuple):
    """The two rounds' support probabilities: permanent (p₁, q₁) and instantaneous (p₂, q₂)."""

    p1: float
    q1: float
    p2: float
    q2: float

    @property
    def gap1(self) -> float:
        """p₁ − q₁ of the probabilities the client draws with: exact where p₁ ≤ 2q₁ (Sterbenz), so
        :meth:`_Memoized.epsilon_after` has no cancellation of ε-sized terms."""
        return self.p1 - self.q1

    @property
    def gap2(self) -> float:
        """p₂ − q₂, as :attr:`gap1`."""
        return self.p2 - self.q2


def _chain(rounds: Rounds) -> tuple[float, float]:
    """(p*, q*) of one report: ``p* = q₂ + (p₂ − q₂)p₁``, ``q* = q₂ + (p₂ − q₂)q₁`` ([arcolezi2022] "longitudinal protocols").

    p* is lowered by an ulp where 1 − p* fell below ``(1 − p₂) + (p₂ − q₂)(1 − p₁)``, its complement formed
    from the rounds (:func:`~ldp_helpers._numeric.majority_probability`): a p* rounded up to 1 − 2⁻⁵³
    lost up to ln 2 more than ε₁ where that complement is ~1e-16.
    """
    r = rounds
    complement = (1.0 - r.p2) + r.gap2 * (1.0 - r.p1)
    return majority_probability(r.q2 + r.gap2 * r.p1, complement), r.q2 + r.gap2 * r.q1


def _first_round(family: str, epsilon_permanent: float, d: int) -> tuple[float, float]:
    """(p₁, q₁) of the permanent randomizer at ε∞: GRR over d, OUE or SUE ([wang2017] §4.1–§4.2)."""
    if family == "grr":
        return grr_probabilities(epsilon_permanent, d)
    if family == "oue":
        return 0.5, q_bin_probabilities(epsilon_permanent)[1]
    return q_bin_probabilities(epsilon_permanent / 2)


def _second_round(family: str, q2: float, d: int) -> tuple[float, float]:
    """(p₂, q₂) of a second round of the given q₂ (the small probability, kept exact: 1/2 − gap lost it
    below 2⁻⁵⁴): OUE keeps p₂ = 1/2, SUE p₂ + q₂ = 1, GRR p₂ + (d − 1)q₂ = 1 (p₂ lowered by an ulp where
    its complement fell below the others' share, :func:`~ldp_helpers._numeric.majority_probability`)."""
    if family == "oue":
        return 0.5, q2
    others = (d - 1) * q2 if family == "grr" else q2
    return majority_probability(1.0 - others, others), q2


def _smallest_q2(loss, epsilon: float) -> float:
    """The smallest float q₂ in [0, 1/2] with ``loss(q₂) ≤ ε`` for a loss decreasing in q₂ with loss(1/2) = 0:
    bisection over the floats' bit patterns (ordered like the floats), so the chosen round never costs more
    than ε, and as close to ε as double precision allows."""
    low, high = -1, _float_bits(0.5)  # loss(q₂ of bits `low`) > ε (−1: below 0) ≥ loss(`high`)
    while high - low > 1:
        middle = (low + high) // 2
        if loss(_bits_float(middle)) > epsilon:
            low = middle
        else:
            high = middle
    return _bits_float(high)


def _float_bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _bits_float(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<q", bits))[0]


def _side_loss(gap1: float, rest1: float, gap2: float, rest2: float, tau: int) -> float:
    """``ln((aρ^τ + 1 − a)/(bρ^τ + 1 − b))`` of an event seen in all τ reports, ρ = 1 + gap2/rest2.

    The memoized state has the event with probability a = rest1 + gap1 under one value and
    b = rest1 under the other, and each report shows the event with probability rest2 + gap2 if
    the state has it, rest2 if not.  Divided by rest2^τ and by ρ^τ − 1 it has no cancellation:
    ``log1p(gap1 / (rest1 + 1/(ρ^τ − 1)))``, ``1/(ρ^τ − 1) = e^{−x}/(−expm1(−x))`` with
    x = τ log1p(gap2/rest2) (0 at x = ∞: a second round that keeps the state; ∞ at x = 0).
    """
    with np.errstate(divide="ignore", over="ignore"):
        x = tau * np.log1p(np.float64(gap2) / rest2)
        return float(np.log1p(gap1 / (rest1 + np.exp(-x) / -np.expm1(-x))))


def _unary_loss_after(rounds: Rounds, tau: int) -> float:
    """ε of τ unary-encoded reports of one memoized vector: two bits differ between two values, one is
    seen as 1 in all τ reports (the event "1": q₁, q₂), the other as 0 (the event "0": 1 − p₁,
    1 − p₂); at τ = 1 it is ``ln(p*(1 − q*)/(q*(1 − p*)))`` of the chained (p*, q*)."""
    r = rounds  # 1 − p of a unary round (p ≥ 1/2) is exact
    return _side_loss(r.gap1, r.q1, r.gap2, r.q2, tau) + _side_loss(
        r.gap1, 1.0 - r.p1, r.gap2, 1.0 - r.p2, tau
    )


def _rounds(first: str, second: str, epsilon: float, epsilon_permanent: float, d: int) -> Rounds:
    """Both rounds for validated budgets: the first at ε∞, the second's q₂ chosen so that one report,
    as its table reads it, costs ε₁ (closed form for GRR, the smallest such float for the unary families)."""
    p1, q1 = _first_round(first, epsilon_permanent, d)
    if not 0.0 < q1 < p1 < 1.0:  # a first round that no longer randomizes: its ε is not ε∞ any more
        fail(
            "epsilon_permanent",
            epsilon_permanent,
            f"small enough that the permanent {first.upper()} round stays random in double "
            f"precision (here p₁ = {p1!r}, q₁ = {q1!r}; d = {d})",
        )
    if second == "grr":
        # the chain is GRR(ε₁): p* − q* = (p₁ − q₁)(p₂ − q₂) and p₂ + (d − 1)q₂ = 1, so
        # q₂ = (1 − (p* − q*)/(p₁ − q₁))/d = p*(e^{−ε₁} − e^{−ε∞})/(1 − e^{−ε∞}), without cancellation
        shrink_gap = -math.exp(-epsilon) * math.expm1(epsilon - epsilon_permanent)  # e^−ε₁ − e^−ε∞
        q2 = grr_probabilities(epsilon, d)[0] * shrink_gap / -math.expm1(-epsilon_permanent)
        p2, q2 = _second_round(second, q2, d)
        # (d − 1)q₂ below 2⁻⁵⁴: p₂ is 1.0 and the client never moves a value, so one report costs ε∞
        if p2 == 1.0 and epsilon_permanent - epsilon > 1e-12 * max(1.0, epsilon):
            fail(
                "epsilon",
                epsilon,
                f"within rounding of epsilon_permanent={epsilon_permanent:g} or small enough that the "
                f"instantaneous GRR round still moves a value in double precision (here (d − 1)·q₂ = "
                f"{(d - 1) * q2:.3g} rounds away against 1, so one report would cost ε∞; d = {d})",
            )
        return Rounds(p1, q1, p2, q2)

    def loss(q2: float) -> float:
        return unary_loss(*_chain(Rounds(p1, q1, *_second_round(second, q2, d))))

    ceiling = loss(0.0)  # the family's most faithful round, q₂ = 0
    if not epsilon < ceiling:
        fail(
            "epsilon",
            epsilon,
            f"< {ceiling:.6g}, the largest ε₁ an {second.upper()} second round reaches after "
            f"a first round at epsilon_permanent={epsilon_permanent:g}",
        )
    return Rounds(p1, q1, *_second_round(second, _smallest_q2(loss, epsilon), d))


def _flip_bits(
    true_bits: np.ndarray, p_one: float, q_one: float, rng: np.random.Generator
) -> np.ndarray:
    """The bits after the flip: each of ``true_bits`` (0/1 or boolean, the bits before it) is reported 1
    w.p. ``p_one`` if it is 1 and ``q_one`` if it is 0, independently."""
    return (rng.random(true_bits.shape) < np.where(true_bits == 1, p_one, q_one)).astype(np.int8)


def memoized_reports_table(permanent, instantaneous, n_reports: int) -> np.ndarray:
    """``P[x, (y₁, …, y_τ)] = Σ_b permanent[x, b] Π_t instantaneous[b, y_t]``: τ reports of one memoized value.

    The whole-history table of a user whose value x does not change: her memoized state b is drawn
    once, every report from it afresh.  Columns enumerate the report sequences (y₁ the slowest);
    at most :data:`MAX_TABLE_COLUMNS` of them.

    References
    ----------
    [erlingsson2014] §2 (memoization); [tutorial] Eq. (2) (the table whose column ratios define ε).
    """
    first = check_probabilities("permanent", permanent, ndim=2)
    second = check_probabilities("instantaneous", instantaneous, ndim=2)
    if second.shape[0] != first.shape[1]:
        fail_shape("instantaneous", second.shape, f"{first.shape[1]} rows (one per memoized state)")
    longest = max(1, int(math.log(MAX_TABLE_COLUMNS) / math.log(max(second.shape[1], 2)) + 1e-9))
    # columns: reports per collection ** n_reports
    n_reports = check_int("n_reports", n_reports, low=1, high=longest)
    history = np.ones((second.shape[0], 1))
    for _ in range(n_reports):  # (states, sequences so far) ⊗ one more report
        history = (history[:, :, None] * second[:, None, :]).reshape(second.shape[0], -1)
    return first @ history


@dataclass(frozen=True)
class _Memoized:
    """What the five oracles share: ε∞, the two rounds, memoization and the privacy of τ reports."""

    epsilon_permanent: float  # ε∞: the permanent randomizer's budget, bound on all reports together
    rounds: Rounds = field(init=False, repr=False)

    first: ClassVar[str]  # the permanent randomizer's family: "grr", "oue" or "sue"
    second: ClassVar[str]  # the instantaneous randomizer's family

    def __post_init__(self):
        epsilon, d = check_epsilon(self.epsilon), check_int("d", self.d, low=2)
        eps_inf = check_above(
            "epsilon_permanent",
            check_epsilon(self.epsilon_permanent, "epsilon_permanent"),
            epsilon,
            what="epsilon (ε₁ < ε∞)",
        )
        object.__setattr__(self, "epsilon_permanent", eps_inf)
        object.__setattr__(self, "rounds", _rounds(self.first, self.second, epsilon, eps_inf, d))
        super().__post_init__()

    def _support_probabilities(self) -> tuple[float, float]:
        return _chain(self.rounds)

    @property
    def epsilon_ceiling(self) -> float:
        """The largest ε₁ the second round's family reaches after this first round (ε∞ for GRR and SUE)."""
        if self.second != "oue":
            return self.epsilon_permanent
        permanent = _first_round(self.first, self.epsilon_permanent, self.d)
        return unary_loss(*_chain(Rounds(*permanent, *_second_round("oue", 0.0, self.d))))

    # ---------------------------------------------------------------- the client, as the paper writes it

    def memoize(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Permanent randomization at ε∞ of each user's value: what she keeps and reuses ([arcolezi2022] "longitudinal protocols")."""
        values, rng = self._client_inputs(values, rng)
        if self.first == "grr":
            return _keep_or_other(values, self.rounds.p1, self.d, rng)
        _check_user_arrays(
            values.size, self.d, "memoized vectors", "bits and their temporaries", itemsize=17
        )
        return _flip_bits(np.arange(self.d) == values[:, None], self.rounds.p1, self.rounds.q1, rng)

    def report(self, memoized, *, rng: np.random.Generator) -> np.ndarray:
        """Instantaneous randomization of the memoized values: one collection's reports."""
        rng = check_rng(rng)
        if self.first == "grr":
            return _keep_or_other(
                check_domain_values("memoized", memoized, self.d).ravel(),
                self.rounds.p2,
                self.d,
                rng,
            )
        bits = check_binary_array(
            "memoized", check_ndim("memoized", memoized, 2, last=self.d, what="(users × d bits)")
        )
        return _flip_bits(bits, self.rounds.p2, self.rounds.q2, rng)

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """One collection from fresh users: memoize, then report (the first report of each user)."""
        return self.report(self.memoize(values, rng=rng), rng=rng)

    def perturb_rounds(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """τ collections of users whose values may change: ``values`` (users × τ) → reports (users × τ [× d]).

        A value is memoized the first time the user holds it and reused whenever she holds it again
        (RAPPOR's memoization is per value), every report is a fresh instantaneous randomization.
        """
        values = check_ndim("values", values, 2, what="(users × rounds)")
        values = check_domain_values("values", values, self.d)
        rng = check_rng(rng)
        # one key per (user, value)
        keys = (np.arange(values.shape[0])[:, None] * self.d + values).ravel()
        pairs, which = np.unique(keys, return_inverse=True)
        memo = self.memoize(pairs % self.d, rng=rng)  # one permanent state per (user, value) pair
        reports = self.report(memo[which.ravel()], rng=rng)
        return reports.reshape(*values.shape, *reports.shape[1:])

    # ---------------------------------------------------------------- privacy

    def permanent_table(self) -> np.ndarray:
        """``P[v, b]`` of the permanent randomizer alone (the memoized state); its loss is ε∞."""
        if self.first == "grr":
            return GRR(self.epsilon_permanent, self.d).output_table()
        return unary_output_table(self.rounds.p1, self.rounds.q1, self.d)

    def instantaneous_table(self) -> np.ndarray:
        """``P[b, y]`` of the instantaneous randomizer: memoized state → one report."""
        if self.first == "grr":
            check_int("d", self.d, low=2, high=MAX_D_TABLE)
            table = np.full((self.d, self.d), self.rounds.q2)
            np.fill_diagonal(table, self.rounds.p2)
            return table
        check_int("d", self.d, low=2, high=MAX_D_TABLE // 2)  # 2^d states × 2^d reports
        states = (np.arange(2**self.d)[:, None] >> np.arange(self.d)) & 1
        ones = np.where(states == 1, self.rounds.p2, self.rounds.q2)
        return _independent_bits_table(1 - ones, ones)

    def epsilon_after(self, n_reports: int) -> float:
        """Exact ε of τ reports of an unchanged value (ε₁ at τ = 1, increasing to ε∞).

        L-GRR: the worst report sequence repeats the user's value, so with ρ = p₂/q₂
        ``e^{ε_τ} = (p₁ρ^τ + (d − 1)q₁)/(q₁ρ^τ + p₁ + (d − 2)q₁)``, i.e.
        ``e^{ε_τ} − 1 = (p₁ − q₁)/(q₁ + 1/(ρ^τ − 1))``.  Unary encodings: two bits differ
        between two values; one is seen as 1 in all τ reports, the other as 0:
        ``ε_τ = ln((p₁p₂^τ + (1−p₁)q₂^τ)/(q₁p₂^τ + (1−q₁)q₂^τ)) + ln((q₁p̄₂^τ + (1−q₁)q̄₂^τ)/(p₁p̄₂^τ + (1−p₁)q̄₂^τ))``
        with p̄ = 1 − p, each term of the same form (:func:`_side_loss`, accurate down to ε near
        MIN_EPSILON).  Both are the exact loss of :func:`memoized_reports_table` (tested).

        References
        ----------
        [erlingsson2014] Theorem 1 (ε∞ bounds every number of reports); [arcolezi2022] "longitudinal protocols".
        """
        tau = check_int("n_reports", n_reports, low=1, high=MAX_REPORTS)
        r = self.rounds
        if self.first == "grr":
            return _side_loss(r.gap1, r.q1, r.gap2, r.q2, tau)
        return _unary_loss_after(r, tau)


@dataclass(frozen=True)
class LGRR(_Memoized, GRR):
    """Longitudinal GRR: GRR at ε∞ memoized, then GRR chained so that one report is GRR at ε₁.

    ``LGRR(epsilon=ε₁, d, epsilon_permanent=ε∞)``.  One report has exactly the law of ``GRR(ε₁, d)``;
    what memoization buys is the bound ε∞ on all reports of a user together.

    References
    ----------
    [arcolezi2022] "longitudinal protocols" (L-GRR).
    """

    first: ClassVar[str] = "grr"
    second: ClassVar[str] = "grr"


@dataclass(frozen=True)
class _LongitudinalUE(_Memoized, UnaryEncoding):
    """A memoized unary encoding: the one-hot vector through the permanent then the instantaneous round."""


@dataclass(frozen=True)
class LOUE(_LongitudinalUE):
    """L-OUE: OUE at ε∞ (memoized), then OUE (p₂ = 1/2) solved for ε₁ ([arcolezi2022] "longitudinal protocols")."""

    first: ClassVar[str] = "oue"
    second: ClassVar[str] = "oue"


@dataclass(frozen=True)
class LOSUE(_LongitudinalUE):
    """L-OSUE: OUE at ε∞ (memoized), then SUE (p₂ + q₂ = 1) solved for ε₁ ([arcolezi2022] "longitudinal protocols")."""

    first: ClassVar[str] = "oue"
    second: ClassVar[str] = "sue"


@dataclass(frozen=True)
class LSOUE(_LongitudinalUE):
    """L-SOUE: SUE at ε∞ (memoized), then OUE (p₂ = 1/2) solved for ε₁ ([arcolezi2022] "longitudinal protocols")."""

    first: ClassVar[str] = "sue"
    second: ClassVar[str] = "oue"


@dataclass(frozen=True)
class LSUE(_LongitudinalUE):
    """L-SUE: SUE at ε∞ (memoized), then SUE solved for ε₁: RAPPOR's PRR + a symmetric IRR (p + q = 1), one-hot filter.

    References
    ----------
    [arcolezi2022] "longitudinal protocols"; [erlingsson2014] §2 (one hash, k = d).
    """

    first: ClassVar[str] = "sue"
    second: ClassVar[str] = "sue"
