"""Sketch response: a count-mean sketch whose cells are reported through any pure frequency oracle.

Client (ε): pick one of k hash functions h_j: [d] → [m] uniformly and report the hashed value
h_j(value) ∈ [m] with a pure frequency oracle over [m] at ε (GRR, OUE or OLH here); send (j, report).
The report is ε-LDP because the oracle's is (checked exactly from the (j, report) table).

Server: per row j, the oracle's unbiased counts ĉ_j(c) of the m cells from the n_j users of that row;
the query is the count-mean sketch's, f̂(x) = m/(m−1)·(Σ_j ĉ_j(h_j(x)) − n/m) (pure-ldp's
``sketch_method`` "unbiased mean"; its default is the count-min of the rows, biased upwards).

Exact for fixed hashes: a user of value v adds T = (1[her report supports h_j(x)] − q*)/(p* − q*) to
Σ_j ĉ_j(h_j(x)); E T = S[v, x] (the collision rate of the CMS) and
E T² = S·(p*(1−p*)/(p*−q*)² + 1) + (1 − S)·q*(1−q*)/(p*−q*)², so
Var f̂(x) = (m/(m−1))²·Σ_v f_v (E T² − S[v, x]²).

Exact aggregate sampler: users split over the k rows multinomially; each row's support counts are
the inner oracle's exact sampler on that row's hashed counts.

References
----------
[cormode2021] (sketch response: the generic private sketch of pure-ldp); [apple2017] Algorithm 3 (the query).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import (
    check_aggregate,
    check_choice,
    check_instance,
    check_int,
    check_int_array,
    check_ndim,
    check_rng,
    fail,
    fail_shape,
)
from ldp_helpers.mechanisms.base import FrequencyOracle, PureFrequencyOracle
from ldp_helpers.mechanisms.count_mean_sketch import (
    _collision_product,
    _family_table,
    _row_hits,
    _sketch_cells,
)
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.local_hashing import (
    HASH_PRIME,
    OLH,
    _check_coefficients,
    _draw_coefficients,
    _PublicHashes,
)
from ldp_helpers.mechanisms.pure import count_variance
from ldp_helpers.mechanisms.signed_sketch import _key
from ldp_helpers.mechanisms.unary_encoding import OUE

#: the pure frequency oracles a sketch response may report its hashed value with
ORACLES = {"grr": GRR, "oue": OUE, "olh": OLH}
MAX_TABLE_CELLS = 2**24  # largest d × (k · outputs of the inner oracle) for output_table


class SketchResponseReports(NamedTuple):
    """Sketch-response reports: the hash indices j (n,) and the inner oracle's reports of h_j(value) (n, …).

    References
    ----------
    [cormode2021] (sketch response).
    """

    rows: np.ndarray
    reports: np.ndarray


@dataclass(frozen=True)
class SketchResponse(_PublicHashes, FrequencyOracle):
    """k hashes h_j(x) = ((a_j x + b_j) mod P) mod m; the hashed value is reported with ``oracle`` over [m] at ε.

    Build it with :meth:`create`.  The truth is the vector of d true counts; the aggregate is
    (k, m + 1): each row's m support counts and, last, its number of users n_j; the estimate is the
    count-mean query (biased by collisions for fixed hashes: :meth:`expected_estimate`).

    References
    ----------
    [cormode2021] (sketch response); [apple2017] Algorithm 3.
    """

    k: int  # number of hash functions (rows)
    m: int  # hash range = the inner oracle's domain
    hash_a: tuple = field(repr=False)
    hash_b: tuple = field(repr=False)
    oracle: str = "grr"  # "grr", "oue" or "olh": how a row reports its hashed value

    unbiased = False

    def __post_init__(self):
        super().__post_init__()
        check_int("d", self.d, low=2, high=HASH_PRIME)
        check_int("k", self.k, low=1)
        check_int("m", self.m, low=2, high=2**20)
        _check_coefficients("hash_a", self.hash_a, "hash_b", self.hash_b, self.k)
        check_choice("oracle", self.oracle, ORACLES)
        self.inner  # noqa: B018 - builds the inner oracle now: an ε it refuses is refused here

    @classmethod
    def create(
        cls,
        epsilon: float,
        d: int,
        k: int,
        m: int,
        *,
        oracle: str = "grr",
        rng: np.random.Generator,
    ) -> SketchResponse:
        """A sketch response whose k hash functions are drawn from ``rng``."""
        rng = check_rng(rng)
        k = check_int("k", k, low=1, high=2**20)
        return cls(epsilon, d, k, m, *_draw_coefficients(rng, k), oracle)

    @cached_property
    def inner(self) -> PureFrequencyOracle:
        """The pure frequency oracle over [m] at ε that reports the hashed value."""
        return ORACLES[self.oracle](self.epsilon, self.m)

    @property
    def report_bits(self) -> int:
        """Bits sent: ⌈log2 k⌉ for j plus the inner report (⌈log2 m⌉ for GRR, m for OUE, OLH's own)."""
        return math.ceil(math.log2(self.k)) + self.inner.report_bits

    def hash_table(self) -> np.ndarray:
        """H[j, x] = h_j(x), shape (k, d)."""
        return self._hashes

    @cached_property
    def _hashes(self) -> np.ndarray:
        return _family_table(("universal", self.hash_a, self.hash_b, self.d, self.m))

    @cached_property
    def _cells(self) -> np.ndarray:
        return _sketch_cells(self._hashes, self.m)

    def perturb(self, values, *, rng: np.random.Generator) -> SketchResponseReports:
        """Per-user reference client: pick j, report h_j(value) with the inner oracle.

        References
        ----------
        [cormode2021] (pure-ldp's ``SketchResponseClient``).
        """
        values, rng = self._client_inputs(values, rng)
        rows = rng.integers(0, self.k, size=values.size)
        return SketchResponseReports(
            rows, np.asarray(self.inner.perturb(self._hashes[rows, values], rng=rng))
        )

    def aggregate(self, reports: SketchResponseReports) -> np.ndarray:
        """Per row j: the inner oracle's support counts of its users' reports, then n_j (shape (k, m + 1))."""
        rows, inner_reports = check_instance("reports", reports, SketchResponseReports)
        inner_reports = np.asarray(inner_reports)
        rows = check_int_array(
            "reports.rows", check_ndim("reports.rows", rows, 1), low=0, high=self.k - 1
        )
        if inner_reports.ndim < 1 or inner_reports.shape[0] != rows.size:
            fail_shape(
                "reports.reports", inner_reports.shape, f"one report per row index ({rows.size})"
            )
        out = np.zeros((self.k, self.m + 1), dtype=np.int64)
        for j in np.unique(rows):
            out[j, :-1] = self.inner.aggregate(inner_reports[rows == j])
            out[j, -1] = np.count_nonzero(rows == j)
        return out

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler of :meth:`aggregate`: rows multinomially, then each row's inner exact sampler on its hashed counts."""
        counts, _, rng, shape = self._sampler_inputs(truth, rng, n_draws, (self.k, self.m + 1))
        draws = 1 if n_draws is None else shape[0]
        hashed, n_j = _row_hits(
            np.broadcast_to(counts, (draws, self.d)), self._cells, self.k, self.m, rng
        )
        hashed, n_j = hashed.reshape(-1, self.m), n_j.reshape(-1)  # (draw·row, cell), (draw·row,)
        # GRR's law spreads its non-kept users with one multinomial per row (n as a vector); the others are
        # independent binomials per cell (n as a column)
        support = self.inner._draw_support(
            hashed, n_j if self.oracle == "grr" else n_j[:, None], rng=rng
        )
        out = np.concatenate([support, n_j[:, None]], axis=1)
        return out.reshape(shape)

    def estimate(self, aggregate, n) -> np.ndarray:
        """f̂(x) = m/(m−1)·(Σ_j ĉ_j(h_j(x)) − n/m), ĉ_j = (C_j − n_j q*)/(p* − q*) (aggregate (k, m+1) or batched).

        References
        ----------
        [apple2017] Algorithm 3 (the count-mean query); [wang2017] Eq. (1) (each row's unbiased counts).
        """
        n = check_int("n", n, low=1)
        agg = check_aggregate(
            aggregate, (self.k, self.m + 1), low=0, high=n, what=f"counts of at most n = {n} users"
        )
        if np.any(agg[..., -1].sum(axis=-1) != n):
            fail("n", n, "the number of users the aggregate counts (the sum of its last column)")
        p, q = self.inner.p, self.inner.q
        rows = (agg[..., :-1] - agg[..., -1:] * q) / (p - q)  # ĉ_j(c)
        query = rows[..., np.arange(self.k)[:, None], self._hashes].sum(axis=-2)
        return self.m / (self.m - 1) * (query - n / self.m)

    def expected_estimate(self, truth) -> np.ndarray:
        """Exact E[f̂(x)] = m/(m−1)·Σ_v f_v (S[v, x] − 1/m) for these hashes (the CMS's)."""
        counts, _ = self._counts_and_n(truth)
        return self.m / (self.m - 1) * self._collisions(counts, "centred")

    def _collisions(self, counts: np.ndarray, part: str) -> np.ndarray:
        """The CMS's f·(S − 1/m), f·S or f·S(1 − S) (``part``) for these hashes, cached per design and population."""
        return _collision_product(self.hash_a, self.hash_b, self.d, self.m, _key(counts), part)

    def variance(self, truth) -> np.ndarray:
        """Exact Var[f̂(x)] = (m/(m−1))²·Σ_v f_v (S(a + 1) + (1 − S) b − S²), a = p*(1−p*)/(p*−q*)², b = q*(1−q*)/(p*−q*)²."""
        counts, n = self._counts_and_n(truth)
        # f·S and f·S(1 − S) do not depend on ε: cached per design and population
        rates, spread = (self._collisions(counts, part) for part in ("rates", "spread"))
        p, q = self.inner.p, self.inner.q
        a, b = count_variance(1, 1, p, q), count_variance(0, 1, p, q)  # one user, own value or not
        # Σ_v f_v (S a + (1 − S) b + S(1 − S)) = a f·S + b (n − f·S) + f·S(1 − S)
        return (self.m / (self.m - 1)) ** 2 * (a * rates + b * (n - rates) + spread)

    def output_table(self) -> np.ndarray:
        """P[x, (j, y)] = (1/k)·P_inner[h_j(x), y] over every row and inner report."""
        inner = self.inner.output_table()
        if self.d * self.k * inner.shape[1] > MAX_TABLE_CELLS:
            self._refuse_table("k", "d·k·(inner outputs)", MAX_TABLE_CELLS)
        return np.concatenate([inner[self._hashes[j]] for j in range(self.k)], axis=1) / self.k
