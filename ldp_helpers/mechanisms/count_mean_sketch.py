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

Note: the tutorial calls the sketch "m × k"; it has k rows (one per hash) and m columns.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ldp_helpers._validation import check_count_vector, check_domain_values, check_epsilon, check_int, check_int_array, check_real_array, check_rng, check_true_counts
from ldp_helpers.mechanisms.local_hashing import HASH_PRIME
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.randomized_response import q_bin_probabilities

MAX_M_TABLE = 10  # largest m for output_table's enumeration of the 2^m vectors
MAX_TABLE_CELLS = 2**24  # largest d·k·2^m for output_table


@dataclass(frozen=True)
class CountMeanSketch:
    """A CMS configuration with its k public hash functions h_j(x) = ((a_j x + b_j) mod P) mod m.

    Build it with :meth:`create` (hash parameters drawn from the injected Generator).

    References
    ----------
    Apple Differential Privacy Team (2017), "Learning with Privacy at Scale", Algorithms 1–3;
    tutorial seed (003), "Apple's implementation of LDP".
    """

    epsilon: float
    d: int  # domain size
    k: int  # number of hash functions (rows of the sketch)
    m: int  # sketch width (length of the ±1 vector)
    hash_a: tuple = field(repr=False)
    hash_b: tuple = field(repr=False)

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        check_int("d", self.d, low=2, high=HASH_PRIME)  # h_j separates values only below P
        check_int("k", self.k, low=1)
        check_int("m", self.m, low=2)
        if len(self.hash_a) != self.k or len(self.hash_b) != self.k:
            raise ValueError(f"hash_a and hash_b must hold k = {self.k} parameters each")
        check_int_array("hash_a", self.hash_a, low=1, high=HASH_PRIME - 1)
        check_int_array("hash_b", self.hash_b, low=0, high=HASH_PRIME - 1)
        if q_bin_probabilities(self.epsilon / 2)[0] == 1.0:
            raise ValueError(f"epsilon must be below about 73 for CMS (1 − r rounds to 1 in double precision); got {self.epsilon!r}")

    @classmethod
    def create(cls, epsilon: float, d: int, k: int, m: int, *, rng: np.random.Generator) -> "CountMeanSketch":
        """A sketch whose k hash functions are drawn from ``rng``."""
        rng = check_rng(rng)
        k = check_int("k", k, low=1)
        a = rng.integers(1, HASH_PRIME, size=k)
        b = rng.integers(0, HASH_PRIME, size=k)
        return cls(epsilon, d, k, m, tuple(int(x) for x in a), tuple(int(x) for x in b))

    @property
    def flip_probability(self) -> float:
        """r = 1/(1 + e^{ε/2}): Q_Bin's flip probability at ε/2 (each entry is ε/2-LDP)."""
        return q_bin_probabilities(self.epsilon / 2)[1]

    @property
    def c_epsilon(self) -> float:
        """c_ε = (e^{ε/2}+1)/(e^{ε/2}−1) = 1/(1 − 2r), which makes x̃ unbiased."""
        return 1.0 / (1.0 - 2.0 * self.flip_probability)

    def hash_table(self) -> np.ndarray:
        """H[j, x] = h_j(x) for all j < k and x < d (shape (k, d), read-only, computed once)."""
        return self._hash_table

    @cached_property
    def _hash_table(self) -> np.ndarray:
        a = np.array(self.hash_a, dtype=np.int64)[:, None]
        b = np.array(self.hash_b, dtype=np.int64)[:, None]
        table = ((a * np.arange(self.d) + b) % HASH_PRIME) % self.m
        table.setflags(write=False)
        return table

    @cached_property
    def _sketch_cells(self) -> np.ndarray:
        """Flat sketch cell j·m + h_j(x) of every (j, x), shape (k·d,): A = one weighted bincount."""
        cells = (np.arange(self.k)[:, None] * self.m + self._hash_table).ravel()
        cells.setflags(write=False)
        return cells

    def perturb(self, values, *, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Per-user reference client: returns (ṽ of shape (n, m) in {−1, +1}, j of shape (n,))."""
        values = check_domain_values("values", values, self.d).ravel()
        rng = check_rng(rng)
        rows = rng.integers(0, self.k, size=values.size)
        encoded = -np.ones((values.size, self.m), dtype=np.int8)
        encoded[np.arange(values.size), self.hash_table()[rows, values]] = 1
        flips = rng.random((values.size, self.m)) < self.flip_probability
        return np.where(flips, -encoded, encoded).astype(np.int8), rows

    def sketch(self, vectors, rows) -> np.ndarray:
        """Server sketch M (k × m): row j accumulates k·x̃ over the reports that chose hash j."""
        vectors, rows = np.asarray(vectors), np.asarray(rows)
        if vectors.ndim != 2 or vectors.shape[1] != self.m or vectors.shape[0] == 0 or not np.all(np.abs(vectors) == 1):
            raise ValueError(f"vectors must be a non-empty (n, {self.m}) array of ±1 entries; got shape {vectors.shape}")
        rows = check_domain_values("rows", rows, self.k)
        if rows.shape != (vectors.shape[0],):
            raise ValueError(f"rows must hold one hash index per vector; got shape {rows.shape}")
        plus = np.zeros((self.k, self.m), dtype=np.int64)
        np.add.at(plus, rows, (vectors == 1).astype(np.int64))
        return self._debias(plus, np.bincount(rows, minlength=self.k))

    def _debias(self, plus_counts, users_per_row) -> np.ndarray:
        # Σ x̃ over a row's users = (c/2)(#(+1) − #(−1)) + n_j/2, with #(−1) = n_j − #(+1)
        n_j = users_per_row[:, None]
        return self.k * (self.c_epsilon / 2 * (2 * plus_counts - n_j) + n_j / 2)

    def sample_sketch(self, true_counts, *, rng: np.random.Generator) -> np.ndarray:
        """Exact aggregate sampler of :meth:`sketch` given the true counts (cost independent of n)."""
        counts, _ = check_true_counts(true_counts, self.d)
        rng = check_rng(rng)
        per_row = rng.multinomial(counts, np.full(self.k, 1.0 / self.k))  # (d, k): users of x in row j
        # A[j, l] = Σ_{x : h_j(x) = l} per_row[x, j]  (float weights: exact below 2^53 users)
        hits = np.bincount(self._sketch_cells, weights=per_row.T.ravel(), minlength=self.k * self.m)
        hits = hits.astype(np.int64).reshape(self.k, self.m)
        n_j = per_row.sum(axis=0)
        r = self.flip_probability
        plus = rng.binomial(hits, 1 - r) + rng.binomial(n_j[:, None] - hits, r)
        return self._debias(plus, n_j)

    def estimate_counts(self, sketch, n) -> np.ndarray:
        """f̂(x) = m/(m−1)·((1/k)Σ_j M[j, h_j(x)] − n/m) for every x in [0, d)."""
        n = check_int("n", n, low=1)
        shape = np.shape(sketch)
        if shape != (self.k, self.m):
            raise ValueError(f"sketch must have shape (k, m) = ({self.k}, {self.m}); got {shape}")
        sketch = check_real_array("sketch", sketch)
        mean_hit = sketch[np.arange(self.k)[:, None], self.hash_table()].mean(axis=0)
        return self.m / (self.m - 1) * (mean_hit - n / self.m)

    def collision_rates(self) -> np.ndarray:
        """S[v, x] = (1/k)·#{j : h_j(v) = h_j(x)}, the fraction of hashes on which v and x collide."""
        hashes = self.hash_table()
        return (hashes[:, :, None] == hashes[:, None, :]).mean(axis=0)

    def expected_counts(self, true_counts) -> np.ndarray:
        """E[f̂(x)] for these fixed hashes: m/(m−1)·Σ_v f_v (S[v, x] − 1/m) (= f_x without collisions).

        Over random hash draws E[S[v, x]] = 1/m for v ≠ x, which makes f̂ unbiased.
        """
        counts = check_count_vector("true_counts", true_counts, self.d)
        return self.m / (self.m - 1) * (counts @ (self.collision_rates() - 1 / self.m))

    def count_variance(self, true_counts) -> np.ndarray:
        """Exact Var[f̂(x)] for fixed hashes: (m/(m−1))²·Σ_v f_v (c_ε² r(1−r) + S[v,x](1 − S[v,x])).

        f̂(x) = m/(m−1)·Σ_u (x̃_u[h_{j_u}(x)] − 1/m) is a sum of independent user terms; given
        j a debiased entry has variance c_ε²·r(1−r), and the random row adds S(1 − S).
        """
        counts = check_count_vector("true_counts", true_counts, self.d)
        r, rates = self.flip_probability, self.collision_rates()
        per_user = self.c_epsilon**2 * r * (1 - r) + rates * (1 - rates)
        return (self.m / (self.m - 1)) ** 2 * (counts @ per_user)

    def output_table(self) -> np.ndarray:
        """P[x, (j, ṽ)] over all k·2^m reports (small m): its privacy loss is ε when hashes separate inputs."""
        check_int("m", self.m, low=2, high=MAX_M_TABLE)
        if self.d * self.k * 2**self.m > MAX_TABLE_CELLS:
            raise ValueError(f"d·k·2^m must be at most {MAX_TABLE_CELLS} for output_table; got {self.d}·{self.k}·2^{self.m}")
        signs = np.array(list(itertools.product((-1, 1), repeat=self.m)))  # (2^m, m)
        r, hashes = self.flip_probability, self.hash_table()
        table = np.empty((self.d, self.k, signs.shape[0]))
        for x, j in itertools.product(range(self.d), range(self.k)):
            encoded = -np.ones(self.m)
            encoded[hashes[j, x]] = 1
            table[x, j] = np.prod(np.where(signs == encoded, 1 - r, r), axis=1) / self.k
        return table.reshape(self.d, -1)

    def privacy_loss(self) -> float:
        """ε computed exactly from :meth:`output_table`."""
        return max_privacy_loss(self.output_table())
