"""Fast local hashing (FLH) of pure-ldp: OLH with a small public family of k hash functions.

Client.  The k hash functions h_j(x) = ((a_j x + b_j) mod P) mod g (the collection's universal hash,
drawn once by :meth:`FastLocalHashing.create` and public) replace OLH's fresh per-user hash: a user
with value v picks j uniformly in [k], hashes x = h_j(v) and reports (j, y) with y = GRR_g(x) (keep w.p.
p* = e^ε/(e^ε + g − 1), else one of the g − 1 others, q' = 1/(e^ε + g − 1) each).  The hash index
does not depend on v and y is GRR: the whole report is ε-LDP, exactly ε as soon as some h_j
separates two values (the k·g-column table is checked).  g = OLH's round(e^ε) + 1 unless given.

Server.  It keeps the k × g table M[j, y] of reports (pure-ldp's ``hash_counts``), counts the
support C(x) = Σ_j M[j, h_j(x)] and debiases it as OLH does, ĉ(x) = (C(x) − n/g)/(p* − 1/g).  That
is unbiased only on average over the hash draws; for the fixed hashes a user of value v supports x
with probability π(v, x) = S[v, x] p* + (1 − S[v, x]) q', S[v, x] = (1/k)·#{j : h_j(v) = h_j(x)} (the
collision rates, as for Apple's sketch), so exactly

    E[ĉ(x)] = (Σ_v f_v π(v, x) − n/g)/(p* − 1/g),   Var[ĉ(x)] = Σ_v f_v π(v, x)(1 − π(v, x))/(p* − 1/g)²

(:func:`fixed_hash_moments`; ``unbiased = False``; O(k² d log d) or O(k d²) work, whichever is smaller).  This is the heuristic's price: FLH trades
OLH's O(n d) decoding for O(k d + n) at a collision bias that shrinks as k grows.

Exact aggregate sampler: the users of each value split over the k hashes multinomially; row j's
users with hash value y are A[j, y]; GRR over g then spreads each row (GRR's own sampler):
O(k d + k g).

References
----------
[cormode2021] (FLH: OLH restricted to k hash functions; pure-ldp calls it "a heuristic variant of OLH"); [wang2017] §4.4 (OLH);
[apple2017] Algorithm 1 (the same fixed-hash collision analysis for the count-mean sketch).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np

from ldp_helpers._validation import (
    check_allocation,
    check_epsilon,
    check_int,
    check_int_array,
    check_ndim,
    check_rng,
    check_true_counts,
    fail,
)
from ldp_helpers.mechanisms.base import FrequencyOracle, _check_int_aggregate
from ldp_helpers.mechanisms.count_mean_sketch import _hash_values
from ldp_helpers.mechanisms.grr import GRR, MAX_D_TABLE
from ldp_helpers.mechanisms.hadamard import _cell_sums, _equal_multinomial
from ldp_helpers.mechanisms.local_hashing import (
    HASH_PRIME,
    _check_coefficients,
    _collision_counts,
    _draw_coefficients,
    _PublicHashes,
    olh_hash_range,
)
from ldp_helpers.mechanisms.pure import unbiased_count

MAX_TABLE_CELLS = 2**22  # largest d·k·g for output_table


def fixed_hash_moments(
    hash_table, true_counts, epsilon: float, g: int
) -> tuple[np.ndarray, np.ndarray]:
    """Exact (E[ĉ(x)], Var[ĉ(x)]) of local hashing whose users pick one of the k rows of ``hash_table`` uniformly.

    ``hash_table[j, x] = h_j(x)`` ∈ [0, g) (shape (k, d)), ``true_counts`` the d counts f_v, GRR over g
    at budget ε (the module docstring's formulas).  Any fixed family: ours, or pure-ldp's xxhash family
    (the peer-parity test uses it).

    References
    ----------
    [cormode2021] (FLH); [wang2017] §4.4 (OLH's estimator).
    """
    epsilon, g = check_epsilon(epsilon), check_int("g", g, low=2)
    table = check_int_array(
        "hash_table",
        check_ndim("hash_table", hash_table, 2, what="(k hashes × d values)"),
        low=0,
        high=g - 1,
    )
    counts, n = check_true_counts(true_counts, table.shape[1])
    return _moments(table, counts, n, GRR(epsilon, g))


def _collision_sums(table: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(f·S, f·S²) with S[v, x] = (1/k)·#{j : h_j(v) = h_j(x)}, without the d × d matrix when k is small.

    f·S[x] = (1/k) Σ_j F_j[h_j(x)] with F_j the counts per hash value; f·S²[x] = (1/k²) Σ_{j, j'} of the
    counts of the values sharing x's pair (h_j, h_j'): O(k² d log d) by grouping, else O(k d²) by the matrix.
    """
    k, d = table.shape
    weights = counts.astype(float)
    if k * max(1, d.bit_length()) > d:  # many hashes: the d × d collision rates are cheaper
        check_allocation("hash_table", table.shape, d * d, what="the d × d collision rates")
        rates = _collision_counts(table) / k
        return weights @ rates, weights @ rates**2
    linear, square = np.zeros(d), np.zeros(d)
    cells, pairs = _collision_groups(table.tobytes(), table.dtype.str, table.shape)
    for cell in cells:
        linear += np.bincount(cell, weights=weights)[cell]
    for twice, groups in pairs:
        square += (2 if twice else 1) * np.bincount(groups, weights=weights)[groups]
    return linear / k, square / k**2


@lru_cache(maxsize=32)
def _collision_groups(table: bytes, dtype: str, shape: tuple) -> tuple[tuple, tuple]:
    """Which values share a cell of h_j (per j) and a pair of cells (h_j, h_j') (per j ≤ j'): group labels, read-only.

    They depend on the hash table only, so a new population reuses them.  Grouped by the values present,
    never by the g cells (g = e^ε + 1 may be 10⁸): :func:`_pair_groups`.
    """
    rows = np.frombuffer(table, dtype=dtype).reshape(shape)
    k = shape[0]
    found = [np.unique(rows[j], return_inverse=True, return_counts=True) for j in range(k)]
    cells = tuple(inverse for _, inverse, _ in found)
    shared = [sizes[inverse] > 1 for _, inverse, sizes in found]  # values not alone in their cell
    pairs = []  # (twice, groups) per j ≤ j': (h_j, h_j) is h_j's cells, counted once
    for j in range(k):
        pairs.append((False, cells[j]))
        for jj in range(j + 1, k):
            pairs.append(
                (True, _pair_groups(cells[j], cells[jj], found[jj][0].size, shared[j] & shared[jj]))
            )
    for labels in (*cells, *(groups for _, groups in pairs)):
        labels.setflags(write=False)
    return cells, tuple(pairs)


def _pair_groups(cell, other, n_other: int, shared: np.ndarray) -> np.ndarray:
    """Labels of the values' pairs of cells (cell, other) (dense cell indices, ``other`` < n_other).

    Few pairs (at most 4d): the pair's index itself.  Otherwise a value alone in its cell of either
    hash is alone in its pair and keeps a label of its own; only the ``shared`` ones are grouped.
    The partition, hence every group's sum in value order (``np.bincount``), is the same either way.
    """
    d = cell.size
    if (int(cell.max()) + 1) * n_other <= 4 * d:
        return cell * n_other + other
    labels = np.arange(d)
    both = np.flatnonzero(shared)
    if both.size:
        labels[both] = d + np.unique(cell[both] * n_other + other[both], return_inverse=True)[1]
    return labels


@lru_cache(maxsize=256)
def _cached_collision_sums(
    table: bytes, table_dtype: str, shape: tuple, counts: bytes, dtype: str
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_collision_sums` per (hash table, population): independent of ε, so the grid of ε that keeps one g
    (a curve over ε, a moved slider) reuses it."""
    sums = _collision_sums(
        np.frombuffer(table, dtype=table_dtype).reshape(shape), np.frombuffer(counts, dtype=dtype)
    )
    for part in sums:
        part.setflags(write=False)
    return sums


def _moments(table, counts, n: int, grr: GRR) -> tuple[np.ndarray, np.ndarray]:
    """The exact mean and variance of ĉ for the hash table (validated input).

    π = q' + (p* − q') S, so Σ_v f_v π = n q' + (p* − q') f·S and
    Σ_v f_v π(1 − π) = n q'(1 − q') + (p* − q')(1 − 2q') f·S − (p* − q')² f·S².
    """
    p, q, g = grr.p, grr.q, grr.d
    f_rates, f_squares = _cached_collision_sums(
        table.tobytes(), table.dtype.str, table.shape, counts.tobytes(), counts.dtype.str
    )
    support = n * q + (p - q) * f_rates
    spread_sum = n * q * (1 - q) + (p - q) * (1 - 2 * q) * f_rates - (p - q) ** 2 * f_squares
    return unbiased_count(support, n, p, 1 / g), spread_sum / (p - 1 / g) ** 2


@dataclass(frozen=True)
class FastLocalHashing(_PublicHashes, FrequencyOracle):
    """FLH over [0, d) with k public hashes h_j(x) = ((a_j x + b_j) mod P) mod g; ``g`` = 0: OLH's range.

    Build it with :meth:`create` (hash coefficients drawn from the injected Generator).  Derived once:
    ``hash_range`` (the g used) and the GRR over it.  A report is (j, y); the aggregate the k × g
    table M; the estimate OLH's ĉ from the support counts.

    References
    ----------
    [cormode2021]; [wang2017] §4.4.
    """

    k: int  # number of hash functions
    hash_a: tuple = field(repr=False)
    hash_b: tuple = field(repr=False)
    g: int = 0  # hash range; 0: olh_hash_range(epsilon)
    hash_range: int = field(init=False)

    unbiased = False

    def __post_init__(self):
        super().__post_init__()
        check_int("d", self.d, low=2, high=HASH_PRIME)  # h_j separates values only below P
        check_int("k", self.k, low=1)
        _check_coefficients("hash_a", self.hash_a, "hash_b", self.hash_b, self.k)
        g = check_int("g", self.g, low=0, high=HASH_PRIME)
        if g == 1:
            fail("g", g, "0 (OLH's round(e^ε) + 1) or an integer in [2, P]")
        object.__setattr__(self, "hash_range", g or olh_hash_range(min(self.epsilon, 40.0)))
        self._grr  # refuses an ε whose keep probability rounds to 1

    @classmethod
    def create(
        cls, epsilon: float, d: int, k: int, g: int = 0, *, rng: np.random.Generator
    ) -> FastLocalHashing:
        """FLH whose k hash functions are drawn from ``rng`` (a_j ∈ [1, P), b_j ∈ [0, P))."""
        rng = check_rng(rng)
        k = check_int("k", k, low=1)
        check_allocation("k", k, 2 * k, what="hash coefficients")
        return cls(epsilon, d, k, *_draw_coefficients(rng, k), g)

    @cached_property
    def _grr(self) -> GRR:
        return GRR(self.epsilon, self.hash_range)

    @property
    def report_bits(self) -> int:
        """Bits sent per report: the hash index ⌈log2 k⌉ and the value ⌈log2 g⌉."""
        return (self.k - 1).bit_length() + (self.hash_range - 1).bit_length()

    def hash_table(self) -> np.ndarray:
        """H[j, x] = h_j(x) for j < k, x < d (shape (k, d), read-only, computed once)."""
        return self._hash_table

    @cached_property
    def _hash_table(self) -> np.ndarray:
        check_allocation("d", self.d, self.k * self.d, what="the k × d hash table")
        table = _hash_values(self.hash_a, self.hash_b, self.d, self.hash_range)
        table.setflags(write=False)
        return table

    @cached_property
    def _cells(self) -> np.ndarray:
        """The aggregate's cell j·g + h_j(x) of each (value x, row j), flat in (x, j) order."""
        return (np.arange(self.k) * self.hash_range + self.hash_table().T).ravel()

    def output_table(self) -> np.ndarray:
        """``P[v, (j, y)]`` = GRR_g(h_j(v) → y)/k over the k·g reports (d·k·g ≤ 2^22)."""
        if self.d * self.k * self.hash_range > MAX_TABLE_CELLS:
            self._refuse_table(
                "d", "d·k·g", MAX_TABLE_CELLS, f" (k = {self.k}, g = {self.hash_range})"
            )
        if self.hash_range > MAX_D_TABLE:  # GRR's own check would name its d (here g)
            fail(
                "g",
                self.hash_range,
                f"at most {MAX_D_TABLE} for output_table (g = 0 takes round(e^ε) + 1 at "
                f"ε = {self.epsilon:g}: pass a smaller g)",
            )
        grr = self._grr.output_table()  # (g, g)
        return grr[self.hash_table().T].reshape(self.d, -1) / self.k

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference client: pick j uniformly, hash, GRR over [g]; one report (j, y) per user, shape (n, 2).

        References
        ----------
        [cormode2021] (FLH's client); [wang2017] §4.4.
        """
        values, rng = self._client_inputs(values, rng)
        j = rng.integers(0, self.k, size=values.size)
        return np.column_stack([j, self._grr.perturb(self.hash_table()[j, values], rng=rng)])

    def aggregate(self, reports) -> np.ndarray:
        """M[j, y]: how many reports chose hash j and reported y (shape (k, g))."""
        reports = check_int_array(
            "reports", check_ndim("reports", reports, 2, last=2, what="of (j, y) rows")
        )
        check_int_array("reports[:, 0] (j)", reports[:, 0], low=0, high=self.k - 1)
        check_int_array("reports[:, 1] (y)", reports[:, 1], low=0, high=self.hash_range - 1)
        cells = reports[:, 0] * self.hash_range + reports[:, 1]
        return np.bincount(cells, minlength=self.k * self.hash_range).reshape(
            self.k, self.hash_range
        )

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler of M (module docstring); shape (k, g) or (n_draws, k, g)."""
        counts, _, rng, shape = self._sampler_inputs(truth, rng, n_draws, (self.k, self.hash_range))
        draws = 1 if n_draws is None else shape[0]
        check_allocation(
            "epsilon",
            self.epsilon,
            2 * draws * self.k * self.hash_range,
            what=f"the k × g aggregate (g = {self.hash_range} cells per hash)",
        )
        # (R, d, k)
        per_row = _equal_multinomial(np.broadcast_to(counts, (draws, self.d)), self.k, rng)
        cells = self._cells  # (d·k,): value x, row j -> j·g + h_j(x)
        if draws > 1:
            cells = (np.arange(draws)[:, None] * (self.k * self.hash_range) + cells).ravel()
        hashed = _cell_sums(cells, per_row.reshape(-1), draws * self.k * self.hash_range)
        hashed = hashed.reshape(draws, self.k, self.hash_range)  # A[j, y]
        return self._grr._draw_support(hashed, per_row.sum(axis=1), rng=rng).reshape(shape)

    def estimate(self, aggregate, n) -> np.ndarray:
        """ĉ(x) = (Σ_j M[j, h_j(x)] − n/g)/(p* − 1/g) (M of shape (k, g) or (n_draws, k, g)).

        References
        ----------
        [wang2017] §4.4 (OLH's estimator); [cormode2021].
        """
        n = check_int("n", n, low=1)
        table = _check_int_aggregate(aggregate, (self.k, self.hash_range), low=0, high=n)
        support = table[..., np.arange(self.k)[:, None], self.hash_table()].sum(
            axis=-2, dtype=np.float64
        )  # k cells of up to n each could wrap in int64
        return unbiased_count(support, n, self._grr.p, 1 / self.hash_range)  # q* = 1/g

    def expected_estimate(self, truth) -> np.ndarray:
        """Exact E[ĉ(x)] for these fixed hashes (biased by their collisions; module docstring)."""
        return self._fixed_moments(truth)[0]

    def variance(self, truth) -> np.ndarray:
        """Exact Var[ĉ(x)] for these fixed hashes (module docstring)."""
        return self._fixed_moments(truth)[1]

    def _fixed_moments(self, truth):
        """(E[ĉ], Var[ĉ]) for the truth, the last one kept (expected_estimate and variance of one truth: one pass)."""
        counts, n = self._counts_and_n(truth)
        key = counts.tobytes()
        last = self.__dict__.get("_last_moments")
        if last is None or last[0] != key:
            last = self.__dict__["_last_moments"] = (
                key,
                _moments(self.hash_table(), counts, n, self._grr),
            )
        return last[1][0].copy(), last[1][1].copy()
