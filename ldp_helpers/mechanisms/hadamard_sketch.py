"""Apple's Hadamard count-mean sketch (HCMS): one privatized sign of a Hadamard coefficient per user.

Client (ε): pick one of k hash functions h_j: [d] → [m] uniformly (m a power of two), one row
index l ∈ [m] uniformly, read the coefficient w_l = H[l, h_j(value)] of the Sylvester–Hadamard
matrix H (±1 entries; the column of H at h_j(value) is the Hadamard transform of the one-hot
vector), flip its sign with probability r = 1/(1 + e^ε) and send (w̃, j, l): one bit plus the two
indices.  Two inputs change the bit's law by e^ε at most, so the report is ε-LDP (checked exactly
from the (j, l, w̃) table).

Server: add k·c_ε·w̃ to cell (j, l) of the k × m matrix M_H, c_ε = (e^ε+1)/(e^ε−1), and transform
M = M_H·Hᵀ (Algorithm 5).  Since c_ε(1 − 2r) = 1 and (1/m)Σ_l H[l, a]H[l, b] = 1[a = b], E[M[j, ·]]
is k times the histogram of row j's hashes, as for the CMS; the frequency query is the CMS's.

Per user the query term c_ε·w̃·H[l, h_j(x)] is ±c_ε with mean S[v, x] (the fraction of hashes on
which v and x collide), so Var f̂(x) = (m/(m−1))²·Σ_v f_v (c_ε² − S[v, x]²) exactly.

Exact aggregate sampler: the users of each value split over the k rows multinomially; the A[j, c]
users of row j with hash c split over the m Hadamard rows l multinomially; at (j, l) those with
H[l, c] = +1 send +1 w.p. 1 − r, the others w.p. r.  Cost O(s·k + k·m·log m) per survey, independent
of n; when the users are fewer than that (and at most 2^15, while their arrays stay in cache),
they are drawn one by one as the clients do (O(n), same law).

References
----------
[apple2017] Algorithms 4–5 (HCMS client and server), Algorithm 3 (the frequency query).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import (
    check_instance,
    check_int_array,
    check_ndim,
    check_real,
    fail,
)
from ldp_helpers.mechanisms.count_mean_sketch import (
    CountMeanSketch,
    _hashes_of,
    _row_hits,
    _sketch_cells,
)
from ldp_helpers.mechanisms.hadamard import (
    _integer_transform,
    _split_over_hadamard_rows,
    hadamard_entries,
)
from ldp_helpers.mechanisms.signed_sketch import _check_signs

#: largest ε for which the keep probability e^ε/(e^ε+1) stays below 1 in double precision
MAX_EPSILON = 36.0
MAX_TABLE_CELLS = 2**24  # largest d·k·m·2 for output_table
#: more users: the per-user path's arrays leave the cache and cost 1.4–1.8x per user (measured at d = 1024:
#: cells win beyond)
PER_USER_MAX_USERS = 2**15


class HcmsReports(NamedTuple):
    """What the HCMS clients send: the privatized coefficients w̃ ∈ {−1, +1} (n,), hash indices j (n,), rows l (n,).

    References
    ----------
    [apple2017] Algorithm 4 (the client's output (w̃, j, l)).
    """

    bits: np.ndarray
    rows: np.ndarray
    columns: np.ndarray


@functools.lru_cache(maxsize=8)
def _sylvester(m: int) -> np.ndarray:
    """The m × m Sylvester–Hadamard matrix, H[l, c] = (−1)^{popcount(l AND c)}, for a validated power of two m
    (cached, read-only, int8): symmetric with H·H = m·I ([apple2017] Algorithm 4's H_m)."""
    table = hadamard_entries(np.arange(m)[:, None], np.arange(m)[None, :])
    table.setflags(write=False)
    return table


@dataclass(frozen=True)
class HadamardCountMeanSketch(CountMeanSketch):
    """HCMS: the CMS's k hashes (universal or Apple's SHA-256), but one privatized Hadamard sign per report.

    Build it with :meth:`create` (hashes drawn from the injected Generator); ``m`` must be a power
    of two.  The truth is the vector of d true counts, the aggregate the transformed k × m sketch M,
    the estimate the CMS's mean frequency query; for fixed hashes it is biased by their collisions
    exactly as the CMS's (:meth:`expected_estimate`, inherited).

    References
    ----------
    [apple2017] Algorithms 4–5; [tutorial] "Apple's implementation of LDP".
    """

    def __post_init__(self):
        # e^ε/(e^ε+1) rounds to 1 beyond
        check_real("epsilon", self.epsilon, low=0.0, high=MAX_EPSILON)
        super().__post_init__()
        if self.m & (self.m - 1):
            fail(
                "m",
                self.m,
                "a power of two (HCMS transforms with the Sylvester–Hadamard matrix H_m)",
            )

    @property
    def _bit_epsilon(self) -> float:
        """The budget of the one sign sent: ε (flipped w.p. r = 1/(1 + e^ε), c_ε = 1/tanh(ε/2))."""
        return self.epsilon

    @property
    def report_bits(self) -> int:
        """Bits sent per report (w̃, j, l): one sign bit, ⌈log2 k⌉ for j and log2 m for l."""
        return 1 + math.ceil(math.log2(self.k)) + int(math.log2(self.m))

    def perturb(self, values, *, rng: np.random.Generator) -> HcmsReports:
        """Per-user reference client (Algorithm 4): pick j and l, read w_l = H[l, h_j(value)], flip its sign w.p. r.

        References
        ----------
        [apple2017] Algorithm 4 (client-side HCMS).
        """
        values, rng, rows = self._client_rows(values, rng)
        columns = rng.integers(0, self.m, size=values.size)
        coefficient = _sylvester(self.m)[columns, self.hash_table()[rows, values]]
        flip = rng.random(values.size) < self.flip_probability
        return HcmsReports(np.where(flip, -coefficient, coefficient).astype(np.int8), rows, columns)

    def aggregate(self, reports: HcmsReports) -> np.ndarray:
        """Server sketch (Algorithm 5): M_H[j, l] += k·c_ε·w̃ per report, then M = M_H·Hᵀ (k × m)."""
        bits, rows, columns = check_instance("reports", reports, HcmsReports)
        bits = _check_signs("reports.bits", check_ndim("reports.bits", bits, 1))
        rows = check_int_array("reports.rows", rows, low=0, high=self.k - 1, shape=bits.shape)
        columns = check_int_array(
            "reports.columns", columns, low=0, high=self.m - 1, shape=bits.shape
        )
        signed = np.zeros((self.k, self.m), dtype=np.int64)
        np.add.at(signed, (rows, columns), bits)
        return self._transform(signed)

    def _sketch_range(self, n: int) -> tuple[float, float]:
        """|M[j, l]| = k·c_ε·|Σ_c S[j, c]·H[l, c]| ≤ k·c_ε·n for the signed sums S of n users."""
        return -self.k * self.c_epsilon * n, self.k * self.c_epsilon * n

    def _transform(self, signed_sums) -> np.ndarray:
        """M = k·c_ε·(Σ w̃ per cell)·Hᵀ, for one sketch or a batch (…, k, m): the fast transform of the integer sums."""
        transformed = _integer_transform(np.asarray(signed_sums, dtype=np.int64))
        return self.k * self.c_epsilon * transformed.astype(float, copy=False)

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler of :meth:`aggregate` given the true counts (cost O(d·k + k·m·log m) per survey).

        Row j's A[j, c] users of hash c keep their sign w.p. 1 − r and choose their Hadamard row l
        uniformly (:func:`_split_over_hadamard_rows`), reporting their sign times H[l, c].  With
        ``n_draws`` the result has shape (n_draws, k, m).
        """
        counts, _, rng, shape = self._sampler_inputs(truth, rng, n_draws, (self.k, self.m))
        draws = 1 if n_draws is None else shape[0]
        sketch = self._transform(
            self._sample_signed(np.broadcast_to(counts, (draws, self.d)), self.hash_table(), rng)
        )
        return sketch[0] if n_draws is None else sketch

    def _sample_signed(self, counts, hashes, rng) -> np.ndarray:
        """Σ w̃ per cell, shape (draws, k, m), of surveys whose users hold values with hash columns ``hashes``
        (k × s) in the counts ``counts`` (draws × s): any subset of the domain (the protocols pass the values present).

        User by user (:meth:`_signed_per_user`) when the users are fewer than the aggregate draw's
        multinomial cells and halvings and at most :data:`PER_USER_MAX_USERS`, else by cells
        (:meth:`_signed_by_cells`): the same law."""
        halvings = counts.shape[0] * self.k * self.m * math.log2(self.m)
        users = sum(int(n) for n in counts.sum(axis=-1))  # each draw's ≤ 2^62: no int64 wrap
        if users <= min(counts.size * self.k + halvings, PER_USER_MAX_USERS):
            return self._signed_per_user(counts, hashes, rng)
        return self._signed_by_cells(counts, hashes, rng)

    def _signed_by_cells(self, counts, hashes, rng) -> np.ndarray:
        """:meth:`_sample_signed` by cells: each value's users split over the k rows multinomially;
        Bin(A[j, c], r) of the A[j, c] users of a cell flip their sign (the flip does not depend on
        l; drawn with r itself, whose complement 1 − fl(1 − r) can fall below r at large ε), the
        others keep it; then all spread over the Hadamard rows (:func:`_split_over_hadamard_rows`),
        sign times H[l, c] at (j, l).  Cost O(s·k + k·m·log m)."""
        hits, _ = _row_hits(counts, _sketch_cells(hashes, self.m), self.k, self.m, rng)
        kept = np.zeros_like(hits)  # w̃ = w; the others flip it (a cell of no user draws nothing)
        held = np.flatnonzero(hits)
        kept.ravel()[held] = hits.ravel()[held] - rng.binomial(
            hits.ravel()[held], self.flip_probability
        )
        plus, minus = _split_over_hadamard_rows(np.stack([kept, hits - kept], axis=-2), rng)
        return plus - minus

    def _signed_per_user(self, counts, hashes, rng) -> np.ndarray:
        """:meth:`_sample_signed` user by user, as Algorithm 4's clients: hash j and row l uniform,
        w = H[l, h_j(x)] = (−1)^popcount(l AND h_j(x)), its sign flipped w.p. r.  Cost O(n)."""
        draws, s = counts.shape
        user = np.repeat(np.arange(counts.size), counts.reshape(-1))  # (draw, value) of each user
        j = rng.integers(0, self.k, size=user.size)
        row = rng.integers(0, self.m, size=user.size)
        positive = np.bitwise_count(row & hashes[j, user % s]) % 2 == 0
        plus = positive != (rng.random(user.size) < self.flip_probability)  # w̃ = +1
        at = ((user // s) * self.k + j) * self.m + row
        size = draws * self.k * self.m
        signed = 2 * np.bincount(at[plus], minlength=size) - np.bincount(at, minlength=size)
        return signed.reshape(draws, self.k, self.m)

    def _hashes_of(self, values) -> np.ndarray:
        """h_j(x) for validated values of any domain size below P, shape (k, len(values))."""
        return _hashes_of(self.hash_family, self.hash_a, self.hash_b, values, self.m)

    def variance(self, truth) -> np.ndarray:
        """Exact Var[f̂(x)] for fixed hashes: (m/(m−1))²·(n c_ε² − Σ_v f_v S[v, x]²).

        Each user adds c_ε·w̃·H[l, h_j(x)] = ±c_ε to the query, with mean S[v, x] over her row, column and flip.

        References
        ----------
        [apple2017] Algorithm 3 (the query), Algorithm 5 (the sketch).
        """
        counts, n = self._counts_and_n(truth)
        squares = self._collisions(counts, "squares")
        return (self.m / (self.m - 1)) ** 2 * (n * self.c_epsilon**2 - squares)

    def output_table(self) -> np.ndarray:
        """P[x, (j, l, w̃)] over all 2·k·m reports: (1 − r)/(k m) if w̃ = H[l, h_j(x)], else r/(k m)."""
        if self.d * self.k * self.m * 2 > MAX_TABLE_CELLS:
            self._refuse_table("m", "2·d·k·m", MAX_TABLE_CELLS, f" (d = {self.d}, k = {self.k})")
        coefficient = _sylvester(self.m)[:, self.hash_table()]  # (l, j, x)
        r = self.flip_probability
        # Pr[(j, l, ±1) | x], each formed directly (1/(k m) − r/(k m) cancelled at large ε)
        plus = np.where(coefficient == 1, 1 - r, r) / (self.k * self.m)
        minus = np.where(coefficient == 1, r, 1 - r) / (self.k * self.m)
        table = np.stack([minus, plus], axis=-1)  # (l, j, x, sign)
        return np.transpose(table, (2, 1, 0, 3)).reshape(self.d, -1)
