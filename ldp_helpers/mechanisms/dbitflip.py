"""Microsoft's dBitFlip histogram oracle and its permanent memoization (dBitFlipPM) ([ding2017] "dBitFlip", "memoization").

Notation.  [ding2017] has k buckets and d reported bits; here the buckets are the domain [0, d) of
every frequency oracle of the collection and the reported bits are ``n_bits`` (the paper's d).

Client.  Each user draws ``n_bits`` distinct buckets j₁, …, j_s uniformly without replacement (once:
they are kept across collections) and sends, for each j_p, the bit

    b_p = 1 with probability e^{ε/2}/(e^{ε/2} + 1) if her bucket v is j_p, 1/(e^{ε/2} + 1) otherwise.

Two values change the law of at most two sent bits (each by e^{ε/2}), so a report is ε-LDP, and only
ε/2-LDP when n_bits = 1 (one bit never sees both values): the class is not ``tight``.

Server.  With N_v users who sampled bucket v and B_v of them sending 1 for it, a = e^{ε/2},

    ĉ(v) = (d/n_bits)·((a + 1)B_v − N_v)/(a − 1)                               ([ding2017] "dBitFlip", ĥ_t(v) · n),

unbiased: a user samples v with probability n_bits/d and her debiased bit (b(a + 1) − 1)/(a − 1)
has mean 1 if v is her bucket, 0 otherwise.  The aggregate is the pair (N_v, B_v) for every v.

Exact aggregate sampler.  A uniform s-subset is drawn bucket by bucket (selection sampling: include
bucket v with probability r/K, r picks still to make, K buckets left).  Users whose bucket is still
ahead are exchangeable given how many of them need r more picks, so the users of bucket v are a
multivariate-hypergeometric share of them; this walks the d buckets with O(d · n_bits) binomial and
hypergeometric draws, whatever n (:meth:`DBitFlip.sample_aggregate`).

Memoization (dBitFlipPM).  A user memoizes one response per *state* of her value: each sampled bucket
j_p, and "none of them" (every unsampled bucket gives bits of the same law, so one response serves
them all: our reading of [ding2017] "memoization").  A user whose bucket never changes resends one response:
ε for any number of collections; :meth:`DBitFlip.memoized_history_table` gives the exact loss of
value histories that change.

References
----------
[ding2017] "dBitFlip"; [ding2017] Theorem 2; [ding2017] "memoization".
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_allocation,
    check_domain_values,
    check_epsilon,
    check_instance,
    check_int,
    check_int_array,
    check_ndim,
    check_rng,
    fail,
)
from ldp_helpers.mechanisms.base import FrequencyOracle, _check_int_aggregate, batch_shape
from ldp_helpers.mechanisms.longitudinal import _flip_bits
from ldp_helpers.mechanisms.pure import count_variance
from ldp_helpers.mechanisms.randomized_response import Q_BIN_MAX_EPSILON, q_bin_probabilities
from ldp_helpers.mechanisms.subset_selection import _log2_comb

#: largest number of whole-report columns C(d, n_bits)·2^n_bits of output_table
MAX_TABLE_COLUMNS = 2**16
#: largest number of rounds of a history table
MAX_HISTORY_ROUNDS = 6
#: users of the exact sampler: below numpy's limit for the hypergeometric draws
MAX_USERS = 10**9


class DBitFlipReports(NamedTuple):
    """One report per user: the sampled buckets j₁, …, j_s (n × s) and the bit sent for each (n × s)."""

    buckets: np.ndarray
    bits: np.ndarray


@dataclass(frozen=True)
class DBitFlip(FrequencyOracle):
    """dBitFlip over d buckets with budget ε, each user sending ``n_bits`` bits ([ding2017] "dBitFlip").

    References
    ----------
    [ding2017] "dBitFlip"; [ding2017] Theorem 2.
    """

    n_bits: int = 1  # the paper's d: buckets sampled (and bits sent) per user, 1 ≤ n_bits ≤ d

    tight: ClassVar[bool] = False  # ε exactly when n_bits ≥ 2, ε/2 when n_bits = 1

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "n_bits", check_int("n_bits", self.n_bits, low=1, high=self.d))
        # each bit is Q_Bin(·; ε/2): ε/2 ≤ its ceiling (ε/2 is exact, so this is ε ≤ 2·ceiling)
        check_epsilon(self.epsilon, high=2 * Q_BIN_MAX_EPSILON)

    @property
    def bit_probabilities(self) -> tuple[float, float]:
        """(Pr[b = 1 | sampled bucket is hers], Pr[b = 1 | it is not]) = (e^{ε/2}, 1)/(e^{ε/2} + 1)."""
        return q_bin_probabilities(self.epsilon / 2)

    @property
    def report_bits(self) -> int:
        """Bits per report: n_bits bucket indices of ⌈log2 d⌉ bits and their n_bits bits."""
        return self.n_bits * (math.ceil(math.log2(self.d)) + 1)

    # ---------------------------------------------------------------- client

    def sample_buckets(self, n_users: int, *, rng: np.random.Generator) -> np.ndarray:
        """Each user's n_bits distinct buckets, uniform without replacement (n_users × n_bits), drawn once."""
        n_users, rng = check_int("n_users", n_users, low=1), check_rng(rng)
        check_allocation(
            "n_users", n_users, n_users * self.d, what="one random key per user and bucket"
        )
        keys = rng.random((n_users, self.d))
        return np.argpartition(keys, self.n_bits - 1, axis=1)[:, : self.n_bits].astype(np.int64)

    def _response_probabilities(self, own: np.ndarray, bits: np.ndarray) -> np.ndarray:
        """Pr[b] of every bit vector b (a row of ``bits``) given which sampled buckets are the value (``own``)."""
        p, q = self.bit_probabilities
        ones = np.where(own, p, q)
        return np.prod(np.where(bits == 1, ones, 1 - ones), axis=1)

    def perturb(self, values, *, rng: np.random.Generator) -> DBitFlipReports:
        """Per-user client: sample n_bits buckets, send a bit for each ([ding2017] "dBitFlip")."""
        values, rng = self._client_inputs(values, rng)
        buckets = self.sample_buckets(values.size, rng=rng)
        true_bits = buckets == values[:, None]  # before the flip: 1 iff j_p is her bucket v
        return DBitFlipReports(buckets, _flip_bits(true_bits, *self.bit_probabilities, rng))

    def perturb_rounds(self, values, *, rng: np.random.Generator) -> DBitFlipReports:
        """dBitFlipPM over τ collections: ``values`` (users × τ) → buckets (users × n_bits), bits (users × τ × n_bits).

        Buckets are drawn once; one response is memoized per state of the value (which sampled bucket
        it is, or none) and resent whenever the user is in that state again.
        """
        values = check_domain_values(
            "values", check_ndim("values", values, 2, what="(users × rounds)"), self.d
        )
        rng = check_rng(rng)
        n_users = values.shape[0]
        buckets = self.sample_buckets(n_users, rng=rng)
        # state s: bucket j_s, or "none"
        states = np.concatenate([buckets, np.full((n_users, 1), -1)], axis=1)
        true_bits = states[:, :, None] == buckets[:, None, :]  # state s before the flip: 1 at j_s
        memo = _flip_bits(true_bits, *self.bit_probabilities, rng)
        hit = values[:, :, None] == buckets[:, None, :]  # (users, rounds, n_bits)
        state = np.where(hit.any(axis=2), hit.argmax(axis=2), self.n_bits)
        return DBitFlipReports(buckets, memo[np.arange(n_users)[:, None], state])

    def aggregate(self, reports: DBitFlipReports) -> np.ndarray:
        """(N_v, B_v) for every bucket v: users who sampled v, and those of them who sent 1 (shape (2, d))."""
        buckets, bits = check_instance("reports", reports, DBitFlipReports)
        buckets = check_domain_values(
            "reports.buckets", check_ndim("reports.buckets", buckets, 2, last=self.n_bits), self.d
        )
        bits = check_int_array(
            "reports.bits", check_ndim("reports.bits", bits, 2, last=self.n_bits), low=0, high=1
        )
        check_int("len(reports.bits)", bits.shape[0], low=buckets.shape[0], high=buckets.shape[0])
        sampled = np.bincount(buckets.ravel(), minlength=self.d)  # N_v
        ones = np.bincount(buckets.ravel(), weights=bits.ravel(), minlength=self.d)  # B_v
        return np.stack([sampled, ones.astype(np.int64)])

    # ---------------------------------------------------------------- server

    def estimate(self, aggregate, n) -> np.ndarray:
        """``ĉ(v) = (d/n_bits)((a + 1)B_v − N_v)/(a − 1)``, a = e^{ε/2}, shape (d,) or (n_draws, d)."""
        n = check_int("n", n, low=1)
        agg = _check_int_aggregate(aggregate, (2, self.d), low=0, high=n)
        sampled, ones = agg[..., 0, :], agg[..., 1, :]
        if np.any(ones > sampled):
            fail(
                "aggregate",
                Described("an array with B_v > N_v somewhere"),
                "B_v ≤ N_v (ones among the users who sampled v)",
            )
        p, q = self.bit_probabilities  # (a + 1)/(a − 1) = 1/(p − q), 1/(a − 1) = q/(p − q)
        return (self.d / self.n_bits) * (ones - q * sampled) / (p - q)

    def variance(self, truth) -> np.ndarray:
        """Exact Var[ĉ(v)] = (1/s²)[f_v(s E₁[Y²] − s²) + (n − f_v) s E₀[Y²]], s = n_bits/d.

        Y = (b − q)/(p − q) is a user's debiased bit (p, q: :attr:`bit_probabilities`), with mean 1 on
        her own bucket and 0 on another, and the pure variances: E₁[Y²] = 1 + p(1 − p)/(p − q)² =
        (a² − a + 1)/(a − 1)², E₀[Y²] = q(1 − q)/(p − q)² = a/(a − 1)², a = e^{ε/2}; users are independent.
        """
        counts, n = self._counts_and_n(truth)
        (p, q), s = self.bit_probabilities, self.n_bits / self.d
        own, other = 1 + count_variance(1, 1, p, q), count_variance(0, 1, p, q)
        return (counts * (s * own - s * s) + (n - counts) * s * other) / s**2

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler of (N_v, B_v): selection sampling bucket by bucket (see the module docstring).

        ``unresolved[r]`` counts users whose bucket is still ahead and who need r more picks,
        ``resolved[r]`` the others; at bucket v the f_v users of v are a hypergeometric share of the
        unresolved ones, every group includes v with probability r/K, and B_v adds the bits.
        Shape (2, d), or (n_draws, 2, d).
        """
        counts, n = self._counts_and_n(truth)
        if n >= MAX_USERS:
            fail(
                "true_counts",
                Described(f"counts totalling {n}"),
                f"fewer than {MAX_USERS} users (numpy's hypergeometric)",
            )
        rng = check_rng(rng)
        draws = 1 if n_draws is None else batch_shape(n_draws, (2, self.d))[0]
        p, q = self.bit_probabilities
        groups = np.arange(self.n_bits + 1)  # r = picks still to make
        unresolved = np.zeros((draws, self.n_bits + 1), dtype=np.int64)
        unresolved[:, -1] = n
        resolved = np.zeros_like(unresolved)
        out = np.empty((draws, 2, self.d), dtype=np.int64)
        for v in range(self.d):
            # bucket-v users per group
            share = _multivariate_hypergeometric(unresolved, int(counts[v]), rng)
            include = np.minimum(groups / (self.d - v), 1.0)  # r > K never holds users
            own = rng.binomial(share, include)
            ahead = rng.binomial(unresolved - share, include)
            behind = rng.binomial(resolved, include)
            mine, sampled = own.sum(axis=1), (own + ahead + behind).sum(axis=1)
            out[:, 0, v] = sampled
            out[:, 1, v] = rng.binomial(mine, p) + rng.binomial(sampled - mine, q)
            resolved += share - own - behind
            resolved[:, :-1] += (own + behind)[:, 1:]
            unresolved -= share + ahead
            unresolved[:, :-1] += ahead[:, 1:]
        return out[0] if n_draws is None else out

    # ---------------------------------------------------------------- privacy

    def output_table(self) -> np.ndarray:
        """``P[v, (J, b)]`` over every bucket set J and its bits (C(d, n_bits)·2^n_bits columns, at most 2^16)."""
        # the ceiling first, in log space: listing the C(d, n_bits) subsets at d = 10¹² is a MemoryError
        if (
            _log2_comb(self.d, self.n_bits) + self.n_bits > math.log2(MAX_TABLE_COLUMNS) + 1
            or math.comb(self.d, self.n_bits) * 2**self.n_bits > MAX_TABLE_COLUMNS
        ):
            fail(
                "d",
                self.d,
                f"such that C(d, n_bits)·2^n_bits ≤ {MAX_TABLE_COLUMNS} for output_table (n_bits = {self.n_bits})",
            )
        subsets = list(itertools.combinations(range(self.d), self.n_bits))
        bits = np.array(list(itertools.product((0, 1), repeat=self.n_bits)))
        rows = []
        for v in range(self.d):  # column (J, b): Π_p Pr[b_p | v] / C(d, n_bits)
            blocks = [self._response_probabilities(np.array(J) == v, bits) for J in subsets]
            rows.append(np.concatenate(blocks) / len(subsets))
        return np.array(rows)

    def memoized_history_table(self, histories) -> np.ndarray:
        """Exact ``P[h, (J, y₁, …, y_T)]`` of dBitFlipPM for value histories h (rows, T ≤ 6 rounds, small d).

        Given J, the memoized response of each state is drawn once; a report sequence has positive
        probability only if it repeats a state's response whenever the state recurs.
        """
        h = check_domain_values(
            "histories", check_ndim("histories", histories, 2, what="(histories × rounds)"), self.d
        )
        rounds = check_int(
            "histories.shape[1] (rounds)", h.shape[1], low=1, high=MAX_HISTORY_ROUNDS
        )
        subsets = list(itertools.combinations(range(self.d), self.n_bits))
        bits = np.array(list(itertools.product((0, 1), repeat=self.n_bits)))
        if len(subsets) * len(bits) ** rounds > MAX_TABLE_COLUMNS:
            fail(
                "histories",
                Described(f"{rounds} rounds"),
                f"fewer rounds: C(d, n_bits)·2^(n_bits·T) ≤ {MAX_TABLE_COLUMNS}",
            )
        # index of y_t per round
        sequences = np.array(list(itertools.product(range(len(bits)), repeat=rounds)))
        table = np.zeros((h.shape[0], len(subsets) * sequences.shape[0]))
        for s, subset in enumerate(subsets):
            j = np.array(subset)
            block = slice(s * sequences.shape[0], (s + 1) * sequences.shape[0])
            for row, history in enumerate(h):
                state = [int(np.flatnonzero(j == x)[0]) if x in subset else -1 for x in history]
                prob = np.ones(sequences.shape[0])
                for st in set(state):
                    times = [t for t in range(rounds) if state[t] == st]
                    same = np.all(sequences[:, times] == sequences[:, times[:1]], axis=1)
                    response = self._response_probabilities(np.arange(self.n_bits) == st, bits)
                    prob *= np.where(same, response[sequences[:, times[0]]], 0.0)
                table[row, block] = prob / len(subsets)
        return table


def _multivariate_hypergeometric(
    colors: np.ndarray, n_sample: int, rng: np.random.Generator
) -> np.ndarray:
    """Per row of ``colors`` (draws × groups): how many of ``n_sample`` items drawn without replacement fall in each group."""
    out = np.zeros_like(colors)
    left = np.full(colors.shape[0], n_sample, dtype=np.int64)
    rest = colors.sum(axis=1)
    for g in range(colors.shape[1] - 1):
        rest = rest - colors[:, g]
        out[:, g] = rng.hypergeometric(colors[:, g], rest, left) if n_sample else 0
        left -= out[:, g]
    out[:, -1] = left
    return out
