"""The shared law of the signed-bit sketches (Hashtogram, the private count sketch).

Both give each user a random row j of a rows × width sketch and let her reveal ONE randomized sign
about the cell h_j(value), by Q_Bin at ε (kept w.p. p = e^ε/(e^ε+1)); every other cell of her
contribution is a fair random sign, independent of her value.  So a report is ε-LDP (checked
exactly from each class's whole-report table) and the server's cell sums are integers in [−n, n].
The estimate is c_ε·Σ_j g_j(x)·S[j, h_j(x)] with c_ε = (e^ε+1)/(e^ε−1) (g ≡ 1 for Hashtogram).

Exact for fixed hashes: a user of value v adds ±c_ε to the query of x with mean
K[v, x] = (1/rows)·Σ_j 1[h_j(v) = h_j(x)]·g_j(v) g_j(x), so E f̂(x) = Σ_v f_v K[v, x] and
Var f̂(x) = Σ_v f_v (c_ε² − K[v, x]²).

Exact aggregate sampler: users split over rows multinomially; in cell (j, t) the +1 count is
Bin(#{hash t, g = +1}, p) + Bin(#{hash t, g = −1}, 1 − p) + Bin(#{other hash}, 1/2).

References
----------
[bassily2017] (Hashtogram); [cormode2021] (the private count sketch); [charikar2002] (the count sketch).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_aggregate,
    check_allocation,
    check_instance,
    check_int,
    check_int_array,
    check_ndim,
    check_real,
    check_rng,
    fail,
)
from ldp_helpers.mechanisms.base import FrequencyOracle, _draw_support_counts
from ldp_helpers.mechanisms.hadamard import _cell_sums
from ldp_helpers.mechanisms.local_hashing import (
    HASH_PRIME,
    _check_coefficients,
    _collision_counts,
    _draw_coefficients,
)
from ldp_helpers.mechanisms.randomized_response import q_bin_gap, q_bin_probabilities

MAX_EPSILON = 36.0  # e^ε/(e^ε+1) rounds to 1 beyond
MAX_TABLE_CELLS = 2**24  # largest d × (number of whole reports) for output_table


@functools.lru_cache(maxsize=4)
def _kernel(hashes: bytes, signs: bytes, rows: int, d: int) -> np.ndarray:
    """K[v, x] = (1/rows)·Σ_j 1[h_j(v) = h_j(x)] g_j(v) g_j(x) (d × d, read-only), cached per design."""
    check_allocation(
        "d", d, d * d, what="the d × d collision kernel of the exact mean and variance"
    )
    h = np.frombuffer(hashes, dtype=np.int64).reshape(rows, d)
    g = np.frombuffer(signs, dtype=np.int64).reshape(rows, d)
    kernel = _collision_counts(h, g) / rows  # one d × d comparison per row
    kernel.setflags(write=False)
    return kernel


def _key(counts: np.ndarray) -> tuple[bytes, str]:
    """A population as a cache key: its counts' bytes and dtype."""
    return counts.tobytes(), counts.dtype.str


@functools.lru_cache(maxsize=256)
def _kernel_product(
    hashes: bytes, signs: bytes, rows: int, d: int, counts: tuple, power: int
) -> np.ndarray:
    """f·K or f·K² for the population ``counts`` (:func:`_key`), read-only."""
    kernel = _kernel(hashes, signs, rows, d)
    out = np.frombuffer(counts[0], dtype=counts[1]) @ (kernel if power == 1 else kernel**2)
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class _SignedSketch(FrequencyOracle):
    """The shared law of Hashtogram and the PCS (see the module docstring); subclasses give the shape and hashes."""

    unbiased = False
    #: the fields holding the number of rows and the width, first in each subclass after (ε, d)
    _names: ClassVar[tuple[str, str]]

    def __post_init__(self):
        check_real("epsilon", self.epsilon, low=0.0, high=MAX_EPSILON)
        super().__post_init__()
        check_int("d", self.d, low=2, high=HASH_PRIME)
        rows, width = self._names
        check_int(rows, getattr(self, rows), low=1)
        check_int(width, getattr(self, width), low=2, high=2**24)
        _check_coefficients("hash_a", self.hash_a, "hash_b", self.hash_b, self._shape[0])

    @classmethod
    def _drawn(cls, epsilon, d, rows, width, *, pairs: int, what: str, rng):
        """An instance whose ``pairs`` universal hashes per row are drawn from ``rng``, after the
        checks of the number of rows and the width (``_names``) and of the rows × width sums."""
        rng, names = check_rng(rng), cls._names
        rows = check_int(names[0], rows, low=1)
        check_allocation(names[0], rows, 2 * pairs * rows, what="hash coefficients")
        check_allocation(names[1], width, rows * check_int(names[1], width, low=2), what=what)
        drawn = _draw_coefficients(rng, rows, pairs)  # multipliers first, then offsets
        return cls(epsilon, d, rows, width, *itertools.chain(*zip(drawn[:pairs], drawn[pairs:])))

    @property
    def _shape(self) -> tuple[int, int]:
        """(rows, width) of the sketch."""
        return getattr(self, self._names[0]), getattr(self, self._names[1])

    def _fair_signs(self, values, rng, what: str) -> tuple:
        """What the per-user clients share: the checked values, ``rng``, each user's row j (uniform)
        and an n × width matrix of fair ±1 signs (int8); ``what`` names that matrix."""
        values, rng = self._client_inputs(values, rng)
        n, (n_rows, width) = values.size, self._shape
        check_allocation("values", Described(f"{n} users"), n * width, itemsize=1, what=what)
        rows = rng.integers(0, n_rows, size=n)
        return values, rng, rows, (1 - 2 * rng.integers(0, 2, size=(n, width))).astype(np.int8)

    def _signs(self) -> np.ndarray:
        """g_j(x) ∈ {±1}, shape (rows, d): all +1 unless the subclass signs its cells."""
        return np.ones((self._shape[0], self.d), dtype=np.int64)

    @cached_property
    def _table(self) -> tuple[np.ndarray, np.ndarray]:
        hashes, signs = self.hash_table(), self._signs()
        signs.setflags(write=False)
        return hashes, signs

    @property
    def keep_probability(self) -> float:
        """p = e^ε/(e^ε+1): the revealed sign is kept w.p. p (Q_Bin at ε)."""
        return q_bin_probabilities(self.epsilon)[0]

    @property
    def c_epsilon(self) -> float:
        """c_ε = (e^ε+1)/(e^ε−1) = 1/(2p − 1) = 1/tanh(ε/2) (:func:`q_bin_gap`, no cancellation at small
        ε): scales a kept-or-flipped sign to an unbiased ±1."""
        return 1.0 / q_bin_gap(self.epsilon)

    @property
    def tight(self) -> bool:
        """Whether the loss is exactly ε: some row's (cell, sign) differs between two values."""
        hashes, signs = self._table
        pairs = hashes * 2 + (signs > 0)
        return bool(np.any(pairs != pairs[:, :1]))

    def _kernel_product(self, counts: np.ndarray, power: int) -> np.ndarray:
        """f·K or f·K² (independent of ε: cached per design and population, so a sweep over ε reuses it)."""
        hashes, signs = self._table
        return _kernel_product(
            hashes.tobytes(), signs.tobytes(), self._shape[0], self.d, _key(counts), power
        )

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler of the cell sums (rows × width, or (n_draws, rows, width)); cost O(d·rows) per survey."""
        counts, _, rng, shape = self._sampler_inputs(truth, rng, n_draws, self._shape)
        draws = 1 if n_draws is None else shape[0]
        hashes, signs = self._table
        return self._sample_sums(
            np.broadcast_to(counts, (draws, self.d)), hashes, signs, rng
        ).reshape(shape)

    def _sample_sums(self, counts, hashes, signs, rng) -> np.ndarray:
        """Cell sums (draws, rows, width) of surveys whose users hold values with hash and sign columns
        ``hashes``, ``signs`` (rows × s) in the counts ``counts`` (draws × s): any subset of the domain."""
        rows, width = self._shape
        draws = counts.shape[0]
        per_row = rng.multinomial(counts, np.full(rows, 1.0 / rows))  # (draw, value, j)
        # (j, value): cell and sign class
        cells = (np.arange(rows)[:, None] * width + hashes) * 2 + (signs < 0)
        flat = (np.arange(draws)[:, None] * (rows * width * 2) + cells.ravel()).ravel()
        split = _cell_sums(flat, np.swapaxes(per_row, 1, 2).reshape(-1), draws * rows * width * 2)
        split = split.reshape(draws, rows, width, 2)
        n_j = per_row.sum(axis=1)[:, :, None]  # (draw, j, 1)
        p = self.keep_probability
        plus = _draw_support_counts(split[..., 0], split[..., 0] + split[..., 1], p, 1 - p, rng=rng)
        plus += rng.binomial(n_j - split.sum(axis=-1), 0.5)
        return 2 * plus - n_j

    def _query(self, sums, hashes, signs) -> np.ndarray:
        """c_ε·Σ_j g_j(x)·S[j, h_j(x)] for the values with hash and sign columns ``hashes``, ``signs`` (rows × c)."""
        picked = signs * sums[..., np.arange(self._shape[0])[:, None], hashes]
        # rows × n could wrap in int64
        return self.c_epsilon * picked.sum(axis=-2, dtype=np.float64)

    def estimate(self, aggregate, n) -> np.ndarray:
        """f̂(x) = c_ε·Σ_j g_j(x)·S[j, h_j(x)] for every x (aggregate (rows, width) or (n_draws, rows, width))."""
        return self._query(self._check_sums(aggregate, n), *self._table)

    def _check_sums(self, aggregate, n) -> np.ndarray:
        """The cell sums of n users' ±1 signs: integers in [−n, n], shape (rows, width) or (n_draws, rows, width)."""
        n = check_int("n", n, low=1)
        return check_aggregate(
            aggregate, self._shape, low=-n, high=n, what=f"a cell sums at most n = {n} signs ±1"
        )

    def expected_estimate(self, truth) -> np.ndarray:
        """Exact E[f̂(x)] = Σ_v f_v K[v, x] for these hashes (= f_x without collisions)."""
        counts, _ = self._counts_and_n(truth)
        return self._kernel_product(counts, 1)

    def variance(self, truth) -> np.ndarray:
        """Exact Var[f̂(x)] = n c_ε² − Σ_v f_v K[v, x]²: each user adds ±c_ε with mean K[v, x]."""
        counts, n = self._counts_and_n(truth)
        return n * self.c_epsilon**2 - self._kernel_product(counts, 2)

    def _cell_table(self, n_reports: int, revealed) -> np.ndarray:
        """Whole-report table from ``revealed(j, x) -> (mask over reports, sign)`` of the revealed cell."""
        p = self.keep_probability
        table = np.zeros((self.d, self._shape[0] * n_reports))
        hashes, signs = self._table
        for j, x in itertools.product(range(self._shape[0]), range(self.d)):
            agrees = revealed(int(hashes[j, x]), int(signs[j, x]))
            table[x, j * agrees.size : (j + 1) * agrees.size] = np.where(agrees, p, 1 - p)
        return table


def _check_vectors(reports, kind, rows: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The ±1 vectors (n × ``width``) and row indices (n, in [0, ``rows``)) of reports of type ``kind``, checked."""
    vectors, indices = check_instance("reports", reports, kind)
    vectors = _check_signs("reports.vectors", check_ndim("reports.vectors", vectors, 2, last=width))
    indices = check_int_array(
        "reports.rows", indices, low=0, high=rows - 1, shape=(vectors.shape[0],)
    )
    return vectors, indices


def _check_signs(name: str, values) -> np.ndarray:
    arr = check_int_array(name, values, low=-1, high=1)
    if np.any(arr == 0):
        fail(name, Described("an array containing 0"), "an array of ±1 entries")
    return arr
