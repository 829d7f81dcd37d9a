"""RAPPOR and Basic One-time RAPPOR as one :class:`~ldp_helpers.mechanisms.base.Mechanism`.

A user in cohort j holding candidate string w sends one report: her Bloom filter B, its
memoized permanent randomization B' (PRR) and an instantaneous one S (IRR), the steps of
:mod:`ldp_helpers.mechanisms.rappor_client` ([erlingsson2014] §2).

**Naming trap.**  [erlingsson2014] (and [rappor]) write *q* for the 1-bit side and *p* for the 0-bit side,
so ``q > p``: the opposite of every other binary channel of the collection (``p = Pr[1 | 1] > q``).
:class:`RapporParams` keeps the paper's letters; :attr:`RapporParams.bit_channel` is the one place
they are converted.  Composing PRR and IRR, each reported bit depends only on its own Bloom bit::

    q* = Pr[S_i = 1 | B_i = 1] = ½f(p + q) + (1 − f) q      p* = Pr[S_i = 1 | B_i = 0] = ½f(p + q) + (1 − f) p

The *Basic One-time RAPPOR* of [rappor] is IRR only (``f = 0``); the *one-time RAPPOR* of [erlingsson2014] is PRR
only (``p = 0, q = 1``).  The PRR is memoized: one report is ε₁-private, all reports of a user
together ε∞-private (:attr:`RapporParams.epsilon_permanent`).

References
----------
[erlingsson2014] §2; [erlingsson2014] Theorem 1; [erlingsson2014] Theorem 2; [rappor] Eq. (1); [rappor] Eq. (2);
[rappor] Eq. (3); [rappor] Fig. 3; [tutorial] "RAPPOR".
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar, NamedTuple

import numpy as np

from ldp_helpers._validation import (
    check_above,
    check_binary_array,
    check_epsilon,
    check_instance,
    check_int,
    check_int_array,
    check_ndim,
    check_probability,
    check_real,
    check_rng,
    check_total,
    check_trailing_shape,
    fail,
)
from ldp_helpers.mechanisms.base import Mechanism, _draw_support_counts, batch_shape
from ldp_helpers.mechanisms.privacy import _independent_bits_log_table, _max_log_ratio
from ldp_helpers.mechanisms.pure import count_variance, unbiased_count
from ldp_helpers.mechanisms.rappor_client import (
    all_bloom_filters,
    bloom_filters,
    design_blooms,
    draw_secret,
    instantaneous_randomized_response,
    permanent_randomized_response,
    report_table,
)


class _BitChannelFields(NamedTuple):
    p: float  # Pr[S_i = 1 | B_i = 1]: RAPPOR's q*
    q: float  # Pr[S_i = 1 | B_i = 0]: RAPPOR's p*


class BitChannel(_BitChannelFields):
    """One reported bit as a binary channel in the collection's convention (p > q, both probabilities)."""

    __slots__ = ()

    def __new__(cls, p: float, q: float):
        p, q = check_probability(p, "p"), check_probability(q, "q")
        if not p > q:
            fail("p", p, f"greater than q = {q!r} (p = Pr[S=1 | B=1] > q = Pr[S=1 | B=0])")
        return super().__new__(cls, p, q)


@dataclass(frozen=True)
class RapporParams:
    """RAPPOR's parameters ``(k, h, m, f, p, q)`` in the paper's letters (see the module docstring).

    References
    ----------
    [erlingsson2014] §2 steps 1–3; [rappor] Eq. (1) (``q = 0.75, p = 0.5``).
    """

    k: int  # Bloom filter bits (k; [rappor]: B)
    h: int  # hash functions per string (h), 1 ≤ h ≤ k
    m: int  # cohorts (m), each with its own hash functions
    f: float  # PRR probability (f), 0 ≤ f < 1
    p: float  # RAPPOR's p = Pr[S_i = 1 | B'_i = 0]: the 0-bit side (reversed letters, see bit_channel)
    q: float  # RAPPOR's q = Pr[S_i = 1 | B'_i = 1]: the 1-bit side, q > p

    def __post_init__(self):
        k = check_int("k", self.k, low=1)
        check_int("h", self.h, low=1, high=k)
        check_int("m", self.m, low=1)
        check_probability(self.f, "f", open_high=True)
        check_above("q", check_probability(self.q, "q"), check_probability(self.p, "p"), what="p")

    @classmethod
    def basic_one_time(
        cls, k: int, h: int, m: int, p: float = 0.5, q: float = 0.75
    ) -> RapporParams:
        """The Basic One-time RAPPOR of [rappor]: no PRR (``f = 0``), one IRR (``p = 0.5, q = 0.75``: [rappor] Eq. (1))."""
        return cls(k=k, h=h, m=m, f=0.0, p=p, q=q)

    @classmethod
    def basic_one_time_at_epsilon(
        cls, epsilon: float, k: int, h: int, m: int, p: float = 0.5
    ) -> RapporParams:
        """IRR-only RAPPOR with ε-LDP reports: ``q = 1/(1 + e^{−ε/h}(1 − p)/p)`` ([erlingsson2014] Theorem 2).

        Needs 2h ≤ k (two disjoint filters exist, so the solved q gives exactly ε); ε/h so large
        that q would round to 1 (ε = ∞, not the ε asked for) is refused.
        """
        p = check_probability(p, "p", open_low=True, open_high=True)
        h = check_int("h", h, low=1)
        k = check_int("k", k, low=2 * h)
        # beyond it 1 + e^{−ε/h}(1−p)/p rounds to 1
        limit = h * (math.log((1 - p) / p) + 53 * math.log(2))
        if limit <= 0:  # (1 − p)/p ≤ 2⁻⁵³: q rounds to 1 at every ε > 0
            fail("p", p, "in (0, 1/(1 + 2⁻⁵³)) (above it q rounds to 1 at every epsilon > 0)")
        epsilon = check_real("epsilon", check_epsilon(epsilon), low=0.0, high=limit)
        return cls.basic_one_time(
            k, h, m, p=p, q=1.0 / (1.0 + math.exp(-epsilon / h) * (1 - p) / p)
        )

    def prr_only(self) -> RapporParams:
        """The memoized B' sent as the report: one-time RAPPOR (``p = 0, q = 1``; [erlingsson2014] §2).

        Its one-report ε is this RAPPOR's ε∞ (:attr:`epsilon_permanent`, [erlingsson2014] Theorem 1).
        """
        return RapporParams(k=self.k, h=self.h, m=self.m, f=self.f, p=0.0, q=1.0)

    @property
    def q_star(self) -> float:
        """``q* = Pr[S_i = 1 | B_i = 1] = ½f(p + q) + (1 − f)q`` ([erlingsson2014] §3.1)."""
        return 0.5 * self.f * (self.p + self.q) + (1 - self.f) * self.q

    @property
    def p_star(self) -> float:
        """``p* = Pr[S_i = 1 | B_i = 0] = ½f(p + q) + (1 − f)p`` ([erlingsson2014] §3.1)."""
        return 0.5 * self.f * (self.p + self.q) + (1 - self.f) * self.p

    @property
    def bit_channel(self) -> BitChannel:
        """PRR then IRR on one bit in the collection's convention: ``p = q*``, ``q = p*`` (the one conversion).

        ``q* − p* = (1 − f)(q − p)``: for f so close to 1 that q* and p* meet in double precision (the
        report no longer depends on the Bloom bit) a ValueError names f.
        """
        q_star, p_star = self.q_star, self.p_star
        # q > p is checked: only a PRR (f > 0) that forgets the bit gets here
        if not q_star > p_star:
            fail(
                "f",
                self.f,
                f"in [0, 1) far enough below 1 that q* = {q_star!r} > p* = {p_star!r} in double "
                f"precision (q* − p* = (1 − f)(q − p) with q = {self.q!r}, p = {self.p!r}; "
                "at f → 1 the report forgets the Bloom bit)",
            )
        return BitChannel(p=q_star, q=p_star)

    @property
    def epsilon_one_report(self) -> float:
        """Exact ε of one report over every Bloom filter with 1..h ones (``inf`` if p* = 0 or q* = 1).

        A bit set only in x costs at most ``a = ln(q*/p*)``, one set only in x' at most
        ``b = ln((1−p*)/(1−q*))``; filters with ≤ h ones differ in ≤ h bits each way and ≤ k in all.
        So ε = ``h(a + b) = h ln(q*(1−p*)/(p*(1−q*)))`` (RAPPOR's ε₁) when 2h ≤ k, and
        ``h·max(a, b) + (k − h)·min(a, b)`` when 2h > k (no two disjoint h-bit filters).

        References
        ----------
        [erlingsson2014] Theorem 2 (ε₁); [tutorial] "RAPPOR", ε₂.
        """
        if self.p_star == 0.0 or self.q_star == 1.0:
            return math.inf
        a, b = math.log(self.q_star / self.p_star), math.log((1 - self.p_star) / (1 - self.q_star))
        return self.h * max(a, b) + min(self.h, self.k - self.h) * min(a, b)

    @property
    def epsilon_permanent(self) -> float:
        """ε∞ = 2h ln((1 − f/2)/(f/2)) of the memoized B' (``inf`` if f = 0; [erlingsson2014] Theorem 1).

        Finite for every f > 0, down to f = 5e-324 (2h(ln 2 − ln f) there: :func:`prr_bit_loss`).
        """
        if self.f == 0.0:
            return math.inf
        return 2 * self.h * prr_bit_loss(self.f)

    def bit_table(self) -> np.ndarray:
        """One bit, PRR then IRR: ``P[b, s] = Pr[S_i = s | B_i = b]`` for b, s ∈ {0, 1}."""
        return np.array([[1 - self.p_star, self.p_star], [1 - self.q_star, self.q_star]])

    def prr_bit_table(self) -> np.ndarray:
        """One bit of the PRR alone: ``P[b, b'] = Pr[B'_i = b' | B_i = b]``."""
        half = 0.5 * self.f
        return np.array([[1 - half, half], [half, 1 - half]])


#: 4 × the smallest normal double: below it (1 − f/2)/(f/2) ≈ 2/f nears overflow (inf from f ≈ 1.1e-308)
#: and f/2 loses digits (0 at f = 5e-324)
_TINY_F = 4 * sys.float_info.min


def prr_bit_loss(f: float) -> float:
    """``ln((1 − f/2)/(f/2))``: the loss of one memoized Bloom bit B' (PRR with probability f, 0 < f ≤ 1).

    For f < :data:`_TINY_F` the ratio overflows (f = 1e-310) or f/2 underflows to 0 (f = 5e-324);
    there ``ln(1 − f/2) = −f/2`` is below half an ulp of ``ln 2 − ln f`` (≥ 708), which is returned.

    References
    ----------
    [erlingsson2014] §3.1, Theorem 1 (ε∞ = 2h such losses).
    """
    f = check_probability(f, "f", open_low=True)
    if f < _TINY_F:
        return math.log(2.0) - math.log(f)
    # the ratio (2 − f)/f is 1 + near_1: as f → 1, log1p of near_1 loses no digit
    near_1 = 2 * (1 - f) / f
    return math.log1p(near_1) if near_1 < 1 else math.log((1 - 0.5 * f) / (0.5 * f))


class RapporReports(NamedTuple):
    """A batch of reports: each user's (public) cohort and her k reported bits S."""

    cohorts: np.ndarray  # (n,) in [0, m)
    bits: np.ndarray  # (n, k) of 0/1


@dataclass(frozen=True, eq=False)
class Rappor(Mechanism):
    """RAPPOR over M candidate strings in m cohorts: a value is a pair (cohort j, candidate w).

    ``f = 0`` is the Basic One-time RAPPOR of [rappor].  The hash design is an input: :meth:`create` draws a keyed
    SHA-256 one, :meth:`from_design` takes any other (google/rappor's map: :mod:`ldp_helpers.interop`).  The truth is
    the array (m, M) of users per cohort and candidate; the aggregate is the reported bit counts c (m, k); the estimand is the
    true bit counts ``t[j, i]`` (cohort-j users whose Bloom bit i is set), estimated per cohort
    with n = the cohort sizes N_j.  The whole-report table's inputs are **every** Bloom filter
    with 1..h ones (:func:`all_bloom_filters`), not only the candidates': privacy must hold
    for any string a user may hold.  So ``privacy_loss() == epsilon`` exactly (``tight``).

    References
    ----------
    [erlingsson2014] §2; [erlingsson2014] §4; [rappor] Eq. (1); [rappor] Eq. (2); [rappor] Eq. (3).
    """

    params: RapporParams
    blooms: np.ndarray  # (m, M, k): blooms[j, w] is candidate w's Bloom filter B in cohort j
    secret: str = ""  # the hashing key that produced blooms (record only)
    epsilon: float = field(init=False)  # ε of one report (ε₁); ε∞ is epsilon_permanent

    tight: ClassVar[bool] = True

    def __post_init__(self):
        par = check_instance("params", self.params, RapporParams)
        blooms = check_binary_array("blooms", self.blooms, ndim=3, last=par.k, what="(m × M × k)")
        check_int("blooms.shape[0] (cohorts)", blooms.shape[0], low=par.m, high=par.m)
        check_int_array("ones per Bloom filter", blooms.sum(axis=2), low=1, high=par.h)
        blooms.setflags(write=False)
        object.__setattr__(self, "blooms", blooms)
        object.__setattr__(self, "epsilon", par.epsilon_one_report)

    @classmethod
    def create(cls, params: RapporParams, n_candidates: int, *, rng: np.random.Generator) -> Rappor:
        """Draw the hashing secret from ``rng`` and hash every candidate in every cohort (the design of [rappor] Fig. 3).

        References
        ----------
        [rappor] Fig. 3 (``create_design_matrix``); [erlingsson2014] §4.
        """
        check_instance("params", params, RapporParams)
        secret = draw_secret(rng=rng)
        blooms = bloom_filters(secret, params.m, n_candidates, params.h, params.k)
        return cls(params, blooms, secret)

    @classmethod
    def from_design(cls, params: RapporParams, design) -> Rappor:
        """RAPPOR on an external hash design: Bloom filters (m, M, k) or a cohort-major design matrix (k·m, M)
        (row j·k + i is bit i of cohort j; google/rappor's map file lists it 1-based).  [rappor] §2; [erlingsson2014] §4."""
        par = check_instance("params", params, RapporParams)
        return cls(par, design_blooms(design, par.m, par.h, par.k))

    @property
    def n_candidates(self) -> int:
        """M, the number of candidate strings."""
        return self.blooms.shape[1]

    @cached_property
    def design_matrix(self) -> np.ndarray:
        """X (k·m × M): ``X[j·k + i, w]`` is bit i of candidate w's filter in cohort j ([rappor] §2)."""
        matrix = self.blooms.transpose(0, 2, 1).reshape(
            self.params.m * self.params.k, self.n_candidates
        )
        matrix.setflags(write=False)
        return matrix

    @property
    def epsilon_permanent(self) -> float:
        """ε∞ of all reports of one user together (the memoized B'): :attr:`RapporParams.epsilon_permanent`."""
        return self.params.epsilon_permanent

    def output_table(self) -> np.ndarray:
        """``P[x, y]`` over every Bloom filter x with 1..h ones and all 2^k reports y (k ≤ 16)."""
        return report_table(
            all_bloom_filters(self.params.k, self.params.h), self.params.bit_table()
        )

    def privacy_loss(self) -> float:
        """The exact whole-report ε from the same table in log space: a product of k bit probabilities such
        as p*^k underflows at p* = 1e-300 (an accepted f, p), and the ratio of two underflowed entries read ∞."""
        bits = all_bloom_filters(self.params.k, self.params.h)
        with np.errstate(divide="ignore"):  # a probability 0 is a log −∞ (an impossible report)
            log_bits = np.log(self.params.bit_table())
        return _max_log_ratio(_independent_bits_log_table(log_bits[bits, 0], log_bits[bits, 1]))

    def check_truth(self, truth) -> tuple[np.ndarray, np.ndarray]:
        """Users per cohort and candidate, shape (m, M), at least one per cohort; returns it and N_j."""
        counts = check_int_array("truth", truth, low=0, shape=(self.params.m, self.n_candidates))
        check_total("truth", counts)  # N = Σ counts must not wrap (each count alone may be valid)
        return counts, check_int_array("cohort sizes truth.sum(axis=1)", counts.sum(axis=1), low=1)

    def expand(self, truth) -> np.ndarray:
        """The users' values, one (cohort, candidate) row each, sorted."""
        counts, _ = self.check_truth(truth)
        pairs = np.indices(counts.shape).reshape(2, -1).T
        return np.repeat(pairs, counts.ravel(), axis=0)

    def estimand(self, truth) -> np.ndarray:
        """True bit counts ``t[j, i] = Σ_w counts[j, w]·B_jw[i]``, shape (m, k) ([rappor] Eq. (2))."""
        return self._true_bit_counts(self.check_truth(truth)[0])

    def _true_bit_counts(self, counts: np.ndarray) -> np.ndarray:
        if int(counts.sum()) >= 2**53:  # sums float64 would round: numpy's int64 product
            return np.matmul(counts[:, None, :], self.blooms.astype(np.int64))[:, 0, :]
        # BLAS product in float64 (exact: every partial sum is an integer below 2^53), then int64
        return np.matmul(counts[:, None, :].astype(np.float64), self._float_blooms)[:, 0, :].astype(
            np.int64
        )

    @cached_property
    def _float_blooms(self) -> np.ndarray:
        blooms = self.blooms.astype(np.float64)
        blooms.setflags(write=False)
        return blooms

    def n_reports(self, truth) -> np.ndarray:
        """The cohort sizes N_j, shape (m,)."""
        return self.check_truth(truth)[1]

    # ---------------------------------------------------------------- client and server

    def perturb(self, values, *, rng: np.random.Generator) -> RapporReports:
        """One report per user: Bloom filter → PRR → IRR ([erlingsson2014] §2 steps 1–3).

        ``values`` has one (cohort, candidate) row per user.  Each user reports once, so her
        PRR is drawn here; a client that reports again must reuse it (memoization).
        """
        values = check_ndim("values", values, 2, last=2, what="of (cohort, candidate) rows")
        cohorts = check_int_array(
            "values[:, 0] (cohorts)", values[:, 0], low=0, high=self.params.m - 1
        )
        candidates = check_int_array(
            "values[:, 1] (candidates)", values[:, 1], low=0, high=self.n_candidates - 1
        )
        rng = check_rng(rng)
        bloom = self.blooms[cohorts, candidates]  # step 1: B
        memoized = permanent_randomized_response(bloom, self.params.f, rng=rng)  # step 2: B'
        return RapporReports(
            cohorts,
            instantaneous_randomized_response(memoized, self.params.p, self.params.q, rng=rng),
        )

    def aggregate(self, reports: RapporReports) -> np.ndarray:
        """Reported bit counts per cohort, ``c[j, i] = #{cohort-j reports with S_i = 1}``, shape (m, k)."""
        cohorts, bits = check_instance("reports", reports, RapporReports)
        cohorts = check_int_array("reports.cohorts", cohorts, low=0, high=self.params.m - 1)
        bits = check_binary_array("reports.bits", bits, ndim=2, last=self.params.k)
        check_int("len(reports.bits)", bits.shape[0], low=cohorts.size, high=cohorts.size)
        return np.stack(
            [bits[cohorts == j].sum(axis=0, dtype=np.int64) for j in range(self.params.m)]
        )

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler: ``c[j, i] ~ Bin(t_ji, q*) + Bin(N_j − t_ji, p*)``, independent over (j, i).

        Given its filter each reported bit is an independent Bernoulli(q* or p*), so the per-bit
        sums are independent binomials.  With ``n_draws`` the shape is (n_draws, m, k).

        References
        ----------
        [rappor] Eq. (2); [wang2017] proof of Theorem 2.
        """
        counts, sizes = self.check_truth(truth)
        t = self._true_bit_counts(counts)
        rng = check_rng(rng)
        size = None if n_draws is None else batch_shape(n_draws, t.shape)
        channel = self.params.bit_channel
        return _draw_support_counts(t, sizes[:, None], channel.p, channel.q, rng=rng, size=size)

    def estimate(self, aggregate, n) -> np.ndarray:
        """Unbiased ``t̂[j, i] = (c[j, i] − p* N_j)/(q* − p*)``, shape (m, k) or (n_draws, m, k).

        ``n`` is the cohort sizes N_j (shape (m,)); an empty cohort's estimate is 0, exactly (t = c = 0), but a
        decoder must leave its rows out (:func:`~ldp_helpers.estimation.rappor_decoding.decode_aggregate` does).

        References
        ----------
        [rappor] Eq. (3); [erlingsson2014] §4.
        """
        sizes = check_int_array("n (cohort sizes)", n, low=0, shape=(self.params.m,))
        c = check_int_array("aggregate", aggregate, low=0)
        c = check_trailing_shape("aggregate", c, (self.params.m, self.params.k))
        for j, n_j in enumerate(sizes):
            name = f"aggregate[..., {j}, :] (cohort {j}: at most n[{j}] reports)"
            check_int_array(name, c[..., j, :], low=0, high=int(n_j))
        channel = self.params.bit_channel
        out = np.zeros(c.shape)  # an empty cohort (N_j = 0, so c = 0): t̂ = 0
        seen = sizes > 0
        if seen.any():
            out[..., seen, :] = unbiased_count(c[..., seen, :], sizes[seen, None], *channel)
        return out

    def variance(self, truth) -> np.ndarray:
        """Exact ``Var[t̂] = (t q*(1−q*) + (N_j − t) p*(1−p*))/(q* − p*)²``, shape (m, k) ([rappor] Eq. (3))."""
        counts, sizes = self.check_truth(truth)
        channel = self.params.bit_channel
        return count_variance(self._true_bit_counts(counts), sizes[:, None], channel.p, channel.q)
