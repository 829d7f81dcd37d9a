"""Bassily, Nissim, Stemmer and Thakurta's Hashtogram: R hashes into T buckets, a public random sign matrix.

A public random matrix Z ∈ {±1}^{n×T} (public coins: each user's row is drawn with her report here
and shipped with it); user i in group r sends y_i = ±Z[i, h_r(v_i)] (kept w.p. p = e^ε/(e^ε+1)); the
server sums ŝ_r(t) = Σ_{i in r} y_i·Z[i, t].  For t ≠ h_r(v_i) the term y_i Z[i, t] is a fair sign,
independent across t, so this is the signed-bit sketch of :mod:`ldp_helpers.mechanisms.signed_sketch`
with g ≡ 1.  The estimate c_ε·Σ_r ŝ_r(h_r(x)) is the mean over the R repetitions of R·ŝ_r (unbiased
for the counts up to hash collisions, which add ≈ n/T); the paper's median over the repetitions is
:meth:`Hashtogram.estimate_median`.  The paper partitions the users into the R groups; here each
user picks her group uniformly (as Apple's CMS picks its row), so group sizes are binomial (our
choice, stated).

References
----------
[bassily2017] (Hashtogram).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_instance,
    check_int_array,
    check_ndim,
    fail,
)
from ldp_helpers.mechanisms.count_mean_sketch import _hash_values, _hashes_of
from ldp_helpers.mechanisms.signed_sketch import MAX_TABLE_CELLS, _check_signs, _SignedSketch


class HashtogramReports(NamedTuple):
    """Hashtogram reports: group r (n,), sign y ∈ {±1} (n,), and each user's public row Z[i] (n × T, int8).

    References
    ----------
    [bassily2017] (Hashtogram: y_i = R(Z[i, h_r(v_i)]) with public Z).
    """

    rows: np.ndarray
    bits: np.ndarray
    public: np.ndarray


@dataclass(frozen=True)
class Hashtogram(_SignedSketch):
    """Hashtogram: R public hashes h_r: [d] → [T] (universal), a public random ±1 row per user, one randomized sign.

    Build it with :meth:`create`.  The truth is the vector of d true counts, the aggregate the R × T
    sums ŝ_r(t) = Σ_{i in r} y_i Z[i, t], the estimate c_ε·Σ_r ŝ_r(h_r(x)) (biased by collisions
    for fixed hashes: :meth:`expected_estimate`).

    References
    ----------
    [bassily2017] (Hashtogram, the frequency oracle of TreeHist and Bitstogram's analysis).
    """

    n_hashes: int  # R: repetitions (one hash each; a user reports in one)
    n_buckets: int  # T: the range of each hash
    hash_a: tuple = field(repr=False)
    hash_b: tuple = field(repr=False)

    _names = ("n_hashes", "n_buckets")

    @classmethod
    def create(
        cls, epsilon: float, d: int, n_hashes: int, n_buckets: int, *, rng: np.random.Generator
    ) -> Hashtogram:
        """A Hashtogram whose R hashes are drawn from ``rng``."""
        return cls._drawn(epsilon, d, n_hashes, n_buckets, pairs=1, what="R × T sums", rng=rng)

    @property
    def report_bits(self) -> int:
        """Bits sent: the group index ⌈log2 R⌉ and one sign (the public row Z[i] is shared randomness, not sent)."""
        return math.ceil(math.log2(self.n_hashes)) + 1

    def hash_table(self) -> np.ndarray:
        """H[r, x] = h_r(x) = ((a_r x + b_r) mod P) mod T, shape (R, d)."""
        return _hash_values(self.hash_a, self.hash_b, self.d, self.n_buckets)

    def _hashes_of(self, values) -> np.ndarray:
        """h_r(x) for validated values (any subset of [0, d)), shape (R, len(values)): no (R, d) table."""
        return _hashes_of("universal", self.hash_a, self.hash_b, values, self.n_buckets)

    def perturb(self, values, *, rng: np.random.Generator) -> HashtogramReports:
        """Per-user reference client: group r, public row Z[i], and y = Z[i, h_r(v)] kept w.p. p (else flipped).

        References
        ----------
        [bassily2017] (Hashtogram's local randomizer).
        """
        values, rng, rows, public = self._fair_signs(values, rng, "each user's public row of Z")
        sign = public[np.arange(values.size), self._hashes_of(values)[rows, np.arange(values.size)]]
        flip = rng.random(values.size) >= self.keep_probability
        return HashtogramReports(rows, np.where(flip, -sign, sign).astype(np.int8), public)

    def aggregate(self, reports: HashtogramReports) -> np.ndarray:
        """ŝ_r(t) = Σ_{i in group r} y_i·Z[i, t] (R × T integers)."""
        rows, bits, public = check_instance("reports", reports, HashtogramReports)
        bits = _check_signs("reports.bits", check_ndim("reports.bits", bits, 1))
        rows = check_int_array(
            "reports.rows", rows, low=0, high=self.n_hashes - 1, shape=bits.shape
        )
        public = _check_signs(
            "reports.public", check_ndim("reports.public", public, 2, last=self.n_buckets)
        )
        if public.shape[0] != bits.size:
            fail(
                "reports.public",
                Described(f"{public.shape[0]} rows"),
                f"one row per report ({bits.size})",
            )
        sums = np.zeros(self._shape, dtype=np.int64)
        np.add.at(sums, rows, bits[:, None] * public)
        return sums

    def estimate_median(self, aggregate, n) -> np.ndarray:
        """The paper's estimate: c_ε·R·median_r ŝ_r(h_r(x)) (robust to a collision in a minority of repetitions).

        References
        ----------
        [bassily2017] (Hashtogram: the median over the R repetitions).
        """
        sums = self._check_sums(aggregate, n)
        cells = sums[..., np.arange(self.n_hashes)[:, None], self._table[0]]
        return self.c_epsilon * self.n_hashes * np.median(cells, axis=-2)

    def output_table(self) -> np.ndarray:
        """P[x, (r, Z[i], y)] over all R·2^T·2 whole reports (public row included): loss ε when a hash separates."""
        n_reports = 2**self.n_buckets * 2
        if self.n_buckets > 12 or self.d * self.n_hashes * n_reports > MAX_TABLE_CELLS:
            self._refuse_table("n_buckets", "d·R·2^(T+1)", MAX_TABLE_CELLS)
        rows = np.array(list(itertools.product((-1, 1), repeat=self.n_buckets)))
        outcomes = [(z, y) for z in rows for y in (-1, 1)]
        table = self._cell_table(
            n_reports, lambda cell, sign: np.array([y == z[cell] for z, y in outcomes])
        )
        return table / (self.n_hashes * 2**self.n_buckets)
