"""Apple's count-mean sketch (CMS): client, server sketch, debiasing and the mean frequency query.

Client (ε): pick one of k hash functions h_j: [d] → [m] uniformly, build v ∈ {−1, 1}^m with
+1 only at h_j(value), flip each entry independently with probability r = 1/(1 + e^{ε/2}),
send (ṽ, j).  Two inputs change at most two entries (for the same j), each an ε/2-LDP flip,
so the whole report is ε-LDP (checked exactly from the (j, ṽ) table for small m).

Server: x̃ = (c_ε/2)·ṽ + ½·1 with c_ε = (e^{ε/2}+1)/(e^{ε/2}−1), so E[x̃] is the one-hot
vector of h_j(value); add k·x̃ to row j of the k × m sketch M.  Query:
f̂(x) = m/(m−1) · ((1/k)·Σ_j M[j, h_j(x)] − n/m), unbiased over clients and hash draws.

Exact aggregate sampler: the users of each value split over the k rows multinomially; then,
with A[j, l] the users in row j whose hash is l and n_j the users in row j, the number of +1
entries at (j, l) is Binomial(A, 1−r) + Binomial(n_j − A, r), independently over (j, l).

Hash families ([apple2017] Algorithm 1 takes a set of k hash functions h_j: [d] → [m]):
``"universal"`` (the default), h_j(x) = ((a_j x + b_j) mod P) mod m with (a_j, b_j) drawn from
the Generator, P = 2^31 − 1; ``"sha256"``, after Apple's deployment ("the data is encoded using
variations of a SHA-256 hash", Apple's Differential Privacy Overview; the exact variant is not
published): h_j(x) = int(SHA-256(j ‖ x)) mod m, j and x each as 8-byte big-endian integers and the
256-bit digest read big-endian — a fixed family (nothing drawn), as close to uniform as SHA-256 is.
At d = 43, m = 256 a universal draw can send the 43 consecutive values into 10–24 cells in some
rows; SHA-256 spreads them like a uniform hash.

Note: the tutorial calls the sketch "m × k"; it has k rows (one per hash) and m columns.

References
----------
[apple2017] Algorithms 1–3; [tutorial] "Apple's implementation of LDP".
"""

from __future__ import annotations

import functools
import hashlib
import itertools
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import (
    check_aggregate,
    check_allocation,
    check_choice,
    check_domain_values,
    check_int,
    check_int_array,
    check_ndim,
    check_real,
    check_rng,
)
from ldp_helpers.mechanisms.base import FrequencyOracle
from ldp_helpers.mechanisms.hadamard import _cell_sums, _equal_multinomial
from ldp_helpers.mechanisms.local_hashing import (
    HASH_PRIME,
    _check_coefficients,
    _collision_counts,
    _draw_coefficients,
    _PublicHashes,
    universal_hash,
)
from ldp_helpers.mechanisms.randomized_response import q_bin_gap, q_bin_probabilities
from ldp_helpers.mechanisms.signed_sketch import _check_vectors, _key

MAX_M_TABLE = 10  # largest m for output_table's enumeration of the 2^m vectors
MAX_TABLE_CELLS = 2**24  # largest d·k·2^m for output_table
#: the sketch's hash families (module docstring): the universal draw, or Apple's SHA-256 of (j, x)
HASH_FAMILIES = ("universal", "sha256")
#: most SHA-256 evaluations k·d of a sketch's hash table (about a second per million, computed once)
MAX_SHA256_HASHES = 2**21
#: a SHA-256 index j and a value x are hashed as 8-byte big-endian integers
_SHA256_INT = 2**63 - 1


class CmsReports(NamedTuple):
    """What the CMS clients send: the flipped ±1 vectors ṽ (n × m, int8) and the chosen hash indices j (n,).

    References
    ----------
    [apple2017] Algorithm 1 (the client's output (ṽ, j)).
    """

    vectors: np.ndarray
    rows: np.ndarray


#: largest ε for which 1 − r = e^{ε/2}/(e^{ε/2}+1) stays below 1 in double precision
MAX_EPSILON = 73.0


@dataclass(frozen=True)
class CountMeanSketch(_PublicHashes, FrequencyOracle):
    """A CMS configuration with its k public hash functions: ((a_j x + b_j) mod P) mod m, or SHA-256.

    Build it with :meth:`create` (``hash_family="universal"``: hash parameters drawn from the
    injected Generator; ``"sha256"``: Apple's fixed h_j(x) = int(SHA-256(j ‖ x)) mod m, whose
    indices j = 0, …, k − 1 are stored as ``hash_a`` and ``hash_b`` is k zeros).  The
    truth is the vector of d true counts, the aggregate the k × m sketch, the estimate the mean
    frequency query f̂ of every value.  For *fixed* hashes f̂ is biased by their collisions
    (:meth:`expected_estimate`), hence ``unbiased = False``; averaged over the hash draws it is
    unbiased.  The whole-report loss is exactly ε as soon as one hash separates two values
    (:attr:`tight`); it is 0 only for hashes that send every value to one cell.

    References
    ----------
    [apple2017] Algorithms 1–3; [tutorial] "Apple's implementation of LDP".
    """

    k: int  # number of hash functions (rows of the sketch)
    m: int  # sketch width (length of the ±1 vector)
    hash_a: tuple = field(repr=False)
    hash_b: tuple = field(repr=False)
    hash_family: str = "universal"

    unbiased = False

    @property
    def report_bits(self) -> int:
        """Bits sent per report (ṽ, j): the m-bit ±1 vector and the hash index j ∈ [0, k), ⌈log2 k⌉ bits."""
        return (self.k - 1).bit_length() + self.m

    def __post_init__(self):
        super().__post_init__()
        check_real("epsilon", self.epsilon, low=0.0, high=MAX_EPSILON)  # 1 − r rounds to 1 beyond
        check_choice("hash_family", self.hash_family, HASH_FAMILIES)
        check_int("k", self.k, low=1)
        if self.hash_family == "sha256":  # Horner's rule mod m in uint64 needs m < 2^32
            check_int("d", self.d, low=2, high=max(2, MAX_SHA256_HASHES // self.k))
            check_int("m", self.m, low=2, high=2**32 - 1)
            check_int_array("hash_a", self.hash_a, low=0, high=_SHA256_INT, shape=(self.k,))
            check_int_array("hash_b", self.hash_b, low=0, high=0, shape=(self.k,))
            return
        check_int("d", self.d, low=2, high=HASH_PRIME)  # h_j separates values only below P
        check_int("m", self.m, low=2)
        _check_coefficients("hash_a", self.hash_a, "hash_b", self.hash_b, self.k)

    @classmethod
    def create(
        cls,
        epsilon: float,
        d: int,
        k: int,
        m: int,
        *,
        rng: np.random.Generator,
        hash_family: str = "universal",
    ) -> CountMeanSketch:
        """A sketch whose k hash functions are drawn from ``rng`` (universal) or Apple's h_0 … h_{k−1} (sha256)."""
        rng = check_rng(rng)
        hash_family = check_choice("hash_family", hash_family, HASH_FAMILIES)
        k = check_int("k", k, low=1)
        check_allocation("k", k, 2 * k, what="hash coefficients")
        check_allocation("m", m, k * check_int("m", m, low=1), what="k × m sketch")
        if hash_family == "sha256":
            return cls(epsilon, d, k, m, tuple(range(k)), (0,) * k, "sha256")
        return cls(epsilon, d, k, m, *_draw_coefficients(rng, k))

    @property
    def _bit_epsilon(self) -> float:
        """The budget of each sent entry: ε/2 (two entries of ṽ differ between two values)."""
        return self.epsilon / 2

    @property
    def flip_probability(self) -> float:
        """r = 1/(1 + e^{ε/2}): Q_Bin's flip probability at ε/2 (each entry is ε/2-LDP)."""
        return q_bin_probabilities(self._bit_epsilon)[1]

    @property
    def c_epsilon(self) -> float:
        """c_ε = (e^{ε/2}+1)/(e^{ε/2}−1) = 1/(1 − 2r), which makes x̃ unbiased: 1/:func:`q_bin_gap` at
        the entry's budget (ε/2 here, ε for HCMS's one sign), with no cancellation at small ε."""
        return 1.0 / q_bin_gap(self._bit_epsilon)

    def hash_table(self) -> np.ndarray:
        """H[j, x] = h_j(x) for all j < k and x < d (shape (k, d), read-only, computed once)."""
        return self._hash_table

    @cached_property
    def _hash_table(self) -> np.ndarray:
        check_allocation(
            "d", self.d, 3 * self.k * self.d, what=f"the k × d = {self.k} × {self.d:,} hash table"
        )
        return _family_table((self.hash_family, self.hash_a, self.hash_b, self.d, self.m))

    def _collisions(self, counts: np.ndarray, part: str) -> np.ndarray:
        """:func:`_collision_product` of these hashes, the population ``counts`` and ``part`` (cached)."""
        return _collision_product(
            self.hash_a, self.hash_b, self.d, self.m, _key(counts), part, self.hash_family
        )

    @cached_property
    def _cells(self) -> np.ndarray:
        return _sketch_cells(self._hash_table, self.m)

    def perturb(self, values, *, rng: np.random.Generator) -> CmsReports:
        """Per-user reference client (Algorithm 1): pick j, encode ±1 at h_j(value), flip each entry w.p. r.

        Returns
        -------
        CmsReports
            ``vectors`` ṽ of shape (n, m) in {−1, +1} and ``rows`` j of shape (n,).

        References
        ----------
        [apple2017] Algorithm 1 (client-side CMS).
        """
        values, rng, rows = self._client_rows(values, rng)
        encoded = -np.ones((values.size, self.m), dtype=np.int8)
        encoded[np.arange(values.size), self.hash_table()[rows, values]] = 1
        flips = rng.random((values.size, self.m)) < self.flip_probability
        return CmsReports(np.where(flips, -encoded, encoded).astype(np.int8), rows)

    def _client_rows(self, values, rng) -> tuple:
        """A client's checked values (one per user), ``rng`` and each user's hash index j (uniform)."""
        values = check_domain_values(
            "values", check_ndim("values", values, 1, what="(one value per user)"), self.d
        )
        rng = check_rng(rng)
        return values, rng, rng.integers(0, self.k, size=values.size)

    def aggregate(self, reports: CmsReports) -> np.ndarray:
        """Server sketch M (k × m, Algorithm 2): row j accumulates k·x̃ over the reports that chose hash j."""
        vectors, rows = _check_vectors(reports, CmsReports, self.k, self.m)
        plus = np.zeros((self.k, self.m), dtype=np.int64)
        np.add.at(plus, rows, (vectors == 1).astype(np.int64))
        return self._debias(plus, np.bincount(rows, minlength=self.k))

    def _debias(self, plus_counts, users_per_row) -> np.ndarray:
        # Σ x̃ over a row's users = (c/2)(#(+1) − #(−1)) + n_j/2, with #(−1) = n_j − #(+1)
        n_j = users_per_row[..., None]
        return self.k * (self.c_epsilon / 2 * (2 * plus_counts - n_j) + n_j / 2)

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact aggregate sampler of :meth:`aggregate` given the true counts (cost independent of n).

        The users of each value split over the k rows multinomially; in row j the A[j, l] users
        whose hash is l have a +1 at l w.p. 1 − r, the n_j − A[j, l] others w.p. r
        (:func:`~ldp_helpers.mechanisms.base.sample_support_counts`).  With ``n_draws`` the
        result has shape (n_draws, k, m).
        """
        counts, _, rng, shape = self._sampler_inputs(truth, rng, n_draws, ())
        draws = 1 if n_draws is None else shape[0]
        hits, n_j = _row_hits(
            np.broadcast_to(counts, (draws, self.d)), self._cells, self.k, self.m, rng
        )
        # the hits keep their +1 unless flipped, the flips drawn with r itself: Bin(A, 1 − r) flipped
        # with 1 − fl(1 − r), below r from ε/2 ≈ 30 (ε + 0.04 at ε = 72)
        r = self.flip_probability
        plus = hits - rng.binomial(hits, r) + rng.binomial(n_j[..., None] - hits, r)
        sketch = self._debias(plus, n_j)
        return sketch[0] if n_draws is None else sketch

    def estimate(self, aggregate, n) -> np.ndarray:
        """f̂(x) = m/(m−1)·((1/k)Σ_j M[j, h_j(x)] − n/m) for every x in [0, d) (Algorithm 3).

        ``aggregate`` is the sketch, shape (k, m) or (n_draws, k, m).

        References
        ----------
        [apple2017] Algorithm 3 (mean frequency query).
        """
        n = check_int("n", n, low=1)
        return self._query(self._check_sketch(aggregate, n), self.hash_table(), n)

    def _query(self, sketch, hashes, n) -> np.ndarray:
        """Algorithm 3 for the values with hash columns ``hashes`` (k × c): m/(m−1)·((1/k)Σ_j M[j, h_j] − n/m)."""
        mean_hit = sketch[..., np.arange(self.k)[:, None], hashes].mean(axis=-2)
        return self.m / (self.m - 1) * (mean_hit - n / self.m)

    def _sketch_range(self, n: int) -> tuple[float, float]:
        """Each user adds k·x̃ with x̃ = (c_ε·(±1) + 1)/2 to one cell of her row: M ∈ k·n·[(1 − c_ε)/2, (1 + c_ε)/2]."""
        return self.k * n * (1 - self.c_epsilon) / 2, self.k * n * (1 + self.c_epsilon) / 2

    def _check_sketch(self, aggregate, n: int) -> np.ndarray:
        """A k × m sketch (or a batch of them) of n users, each cell within :meth:`_sketch_range` (1e-9 slack)."""
        low, high = self._sketch_range(n)
        slack = 1e-9 * max(abs(low), abs(high))
        return check_aggregate(
            aggregate,
            (self.k, self.m),
            low=low - slack,
            high=high + slack,
            integral=False,
            what=f"what n = {n} reports can sum to",
        )

    def collision_rates(self) -> np.ndarray:
        """S[v, x] = (1/k)·#{j : h_j(v) = h_j(x)}, the fraction of hashes on which v and x collide (read-only).

        It depends on the hashes, d and m but not on ε: sketches that differ only in ε (a sweep over
        ε) share one table, computed once (:func:`_collision_tables`).
        """
        return _collision_tables(self.hash_a, self.hash_b, self.d, self.m, self.hash_family)[0]

    def expected_estimate(self, truth) -> np.ndarray:
        """Exact E[f̂(x)] for these fixed hashes: m/(m−1)·Σ_v f_v (S[v, x] − 1/m) (= f_x without collisions).

        Over random hash draws E[S[v, x]] = 1/m for v ≠ x, which makes f̂ unbiased.
        """
        counts, _ = self._counts_and_n(truth)
        return self.m / (self.m - 1) * self._collisions(counts, "centred")

    def uniform_hash_bias_sq(self, true_counts) -> float:
        """Mean over x of E[bias²(x)] were the k hashes uniformly random: (d−1)/d · Σ_v f_v² / (k(m−1)).

        The bias of :meth:`expected_estimate` is m/(m−1)·Σ_{v≠x} f_v (S[v, x] − 1/m); for independent
        uniform hashes k·S[v, x] ~ Binomial(k, 1/m) independently over v, so E[bias²(x)] =
        (m/(m−1))²·Σ_{v≠x} f_v²·(m−1)/(m²k) = Σ_{v≠x} f_v²/(k(m−1)).  The yardstick of a family:
        a fixed draw's mean bias² far above it comes from that draw's structured collisions.
        """
        counts, _ = self._counts_and_n(true_counts)
        squares = float(np.sum(counts.astype(float) ** 2))
        return (self.d - 1) / self.d * squares / (self.k * (self.m - 1))

    def variance(self, truth) -> np.ndarray:
        """Exact Var[f̂(x)] for fixed hashes: (m/(m−1))²·Σ_v f_v (c_ε² r(1−r) + S[v,x](1 − S[v,x])).

        f̂(x) = m/(m−1)·Σ_u (x̃_u[h_{j_u}(x)] − 1/m) is a sum of independent user terms; given
        j a debiased entry has variance c_ε²·r(1−r), and the random row adds S(1 − S).
        """
        counts, n = self._counts_and_n(truth)
        r = self.flip_probability
        # Σ_v f_v c_ε² r(1−r) = n c_ε² r(1−r): only the collision term needs the d × d table
        spread = self._collisions(counts, "spread")
        return (self.m / (self.m - 1)) ** 2 * (n * self.c_epsilon**2 * r * (1 - r) + spread)

    def output_table(self) -> np.ndarray:
        """P[x, (j, ṽ)] over all k·2^m reports (small m): its privacy loss is ε when hashes separate inputs."""
        check_int("m", self.m, low=2, high=MAX_M_TABLE)
        if self.d * self.k * 2**self.m > MAX_TABLE_CELLS:
            self._refuse_table("m", "d·k·2^m", MAX_TABLE_CELLS, f" (d = {self.d}, k = {self.k})")
        signs = np.array(list(itertools.product((-1, 1), repeat=self.m)))  # (2^m, m)
        r, hashes = self.flip_probability, self.hash_table()
        # the encoding of x under h_j is −1 everywhere but +1 at h_j(x): a report ṽ differs from it in
        # (#(+1 in ṽ) − 1) entries if ṽ[h_j(x)] = +1, else in (#(+1 in ṽ) + 1); each entry flips w.p. r
        ones = (signs == 1).sum(axis=1)  # (2^m,)
        at_hash = signs[:, hashes] == 1  # (2^m, k, d)
        flips = ones[:, None, None] + np.where(at_hash, -1, 1)
        table = (r**flips * (1 - r) ** (self.m - flips)) / self.k  # (2^m, k, d)
        return np.transpose(table, (2, 1, 0)).reshape(self.d, -1)


@functools.lru_cache(maxsize=2)
def _collision_tables(
    hash_a: tuple, hash_b: tuple, d: int, m: int, family: str = "universal"
) -> tuple[np.ndarray, np.ndarray]:
    """(S, S(1 − S)) of the hashes h_j of ``family`` (:func:`_family_table`) over [0, d), both read-only.

    Two d × d tables; the cache keeps the last two hash designs, so a sweep over ε (or a sketch
    rebuilt with a new ε) reuses them while memory stays bounded however many sketches exist.
    """
    check_allocation("d", d, d * d, what="the d × d collision rates")
    # one d × d comparison per hash function (k passes, d² memory)
    rates = _collision_counts(_family_table((family, hash_a, hash_b, d, m))) / len(hash_a)
    spread = rates * (1 - rates)
    rates.setflags(write=False)
    spread.setflags(write=False)
    return rates, spread


@functools.lru_cache(maxsize=256)
def _collision_product(
    hash_a: tuple, hash_b: tuple, d: int, m: int, counts: tuple, part: str, family="universal"
) -> np.ndarray:
    """f·(S − 1/m), f·S, f·S(1 − S) or f·(S − S(1 − S)) for the population ``counts`` (:func:`_key`), read-only.

    None depends on ε: sketches rebuilt at another ε (a curve over ε, a moved slider) reuse them, one
    O(d²) product per population and design instead of one per ε.
    """
    rates, spread = _collision_tables(hash_a, hash_b, d, m, family)
    f = np.frombuffer(counts[0], dtype=counts[1])
    out = (
        f
        @ {
            "centred": lambda: rates - 1 / m,
            "rates": lambda: rates,
            "spread": lambda: spread,
            "squares": lambda: rates - spread,
        }[part]()
    )
    out.setflags(write=False)
    return out


def _sketch_cells(hashes, m: int) -> np.ndarray:
    """The flat sketch cell j·m + h_j(x) of every (value x, row j) of hash columns ``hashes`` (k × s): (s·k,), read-only."""
    cells = (np.arange(hashes.shape[0]) * m + hashes.T).ravel()
    cells.setflags(write=False)
    return cells


def _row_hits(
    counts, cells, k: int, m: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The users of surveys ``counts`` (draws × s) split over the k rows multinomially, summed per sketch cell
    (``cells``: :func:`_sketch_cells`): (A, n) with A[draw, j, l] = Σ_{x : h_j(x) = l} users of x in row j
    (in int64) and n[draw, j] the users of row j."""
    draws = counts.shape[0]
    per_row = _equal_multinomial(counts, k, rng)  # (draw, value, j)
    flat = cells if draws == 1 else (np.arange(draws)[:, None] * (k * m) + cells).ravel()
    hits = _cell_sums(flat, per_row.reshape(-1), draws * k * m)
    return hits.reshape(draws, k, m), per_row.sum(axis=1)


def _hash_values(hash_a: tuple, hash_b: tuple, d: int, m: int) -> np.ndarray:
    """H[j, x] = ((a_j x + b_j) mod P) mod m for j < k and x < d, shape (k, d) ([apple2017] Algorithm 1)."""
    return _hashes_of("universal", hash_a, hash_b, np.arange(d), m)


def _family_table(design: tuple) -> np.ndarray:
    """H[j, x] = h_j(x) of the design (family, hash_a, hash_b, d, m) over [0, d), shape (k, d), read-only."""
    family, hash_a, hash_b, d, m = design
    if family == "sha256":
        return _sha256_table(hash_a, d, m)
    table = _hash_values(hash_a, hash_b, d, m)
    table.setflags(write=False)
    return table


@functools.lru_cache(maxsize=8)
def _sha256_table(indices: tuple, d: int, m: int) -> np.ndarray:
    """:func:`_sha256_hashes` over [0, d), cached (sketches rebuilt at another ε hash once), read-only."""
    table = _sha256_hashes(indices, range(d), m)
    table.setflags(write=False)
    return table


def _sha256_hashes(indices: tuple, values, m: int) -> np.ndarray:
    """H[j, i] = int(SHA-256(a_j ‖ x_i)) mod m, a_j and x_i as 8-byte big-endian, shape (k, len(values)).

    One hashlib call per (j, x), then the 256-bit digests reduced mod m at once: Horner's rule on
    their four big-endian 64-bit words (m < 2^32: no product overflows uint64).
    """
    encoded = [int(x).to_bytes(8, "big") for x in values]
    digests = b"".join(
        hashlib.sha256(int(a).to_bytes(8, "big") + x).digest() for a in indices for x in encoded
    )
    words = np.frombuffer(digests, dtype=">u8").reshape(len(indices), len(encoded), 4)
    modulus, shift = np.uint64(m), np.uint64(2**64 % m)
    residue = np.zeros(words.shape[:2], dtype=np.uint64)
    for t in range(4):
        residue = (residue * shift + words[..., t].astype(np.uint64) % modulus) % modulus
    return residue.astype(np.int64)


def _hashes_of(family: str, hash_a: tuple, hash_b: tuple, values, m: int) -> np.ndarray:
    """h_j(x) of the family for validated values (any in the family's domain), shape (k, len(values))."""
    if family == "sha256":
        return _sha256_hashes(hash_a, values, m)
    a, b = (np.array(c, dtype=np.int64)[:, None] for c in (hash_a, hash_b))
    return universal_hash(a, b, np.asarray(values, dtype=np.int64)[None, :], m)
