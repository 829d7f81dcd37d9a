"""The private count sketch (PCS): a count sketch whose one revealed cell carries a signed randomized bit.

k hashes h_j: [d] → [m] and signs g_j: [d] → {±1} (universal); a user picks row j, sends a vector
of m fair random signs except v[h_j(x)] = g_j(x), kept w.p. p = e^ε/(e^ε+1).  The server sums the
vectors per row; the estimate c_ε·Σ_j g_j(x)·S[j, h_j(x)] is the signed-bit sketch's
(:mod:`ldp_helpers.mechanisms.signed_sketch`): collisions cancel in mean over random signs.  This is
pure-ldp's ``PCSClient``; its server omits c_ε (its estimates are shrunk by tanh(ε/2)) and takes the
median of the rows by default.

References
----------
[cormode2021] (the private count sketch of pure-ldp); [charikar2002] (the count sketch).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ldp_helpers.mechanisms.count_mean_sketch import _hash_values
from ldp_helpers.mechanisms.local_hashing import _check_coefficients
from ldp_helpers.mechanisms.signed_sketch import MAX_TABLE_CELLS, _check_vectors, _SignedSketch


class PcsReports(NamedTuple):
    """Private-count-sketch reports: the ±1 vectors (n × m, int8) and the hash indices j (n,).

    References
    ----------
    [cormode2021] (the private count sketch).
    """

    vectors: np.ndarray
    rows: np.ndarray


@dataclass(frozen=True)
class PrivateCountSketch(_SignedSketch):
    """The private count sketch: k hashes h_j: [d] → [m] and signs g_j: [d] → {±1} (universal), one signed cell revealed.

    Build it with :meth:`create`.  The aggregate is the k × m sum of the reported ±1 vectors, the
    estimate c_ε·Σ_j g_j(x)·S[j, h_j(x)] (pure-ldp's server omits c_ε and takes the median by default).

    References
    ----------
    [cormode2021] (PCS); [charikar2002] (count sketch).
    """

    k: int  # number of hash pairs (h_j, g_j), rows of the sketch
    m: int  # sketch width
    hash_a: tuple = field(repr=False)
    hash_b: tuple = field(repr=False)
    sign_a: tuple = field(repr=False)
    sign_b: tuple = field(repr=False)

    _names = ("k", "m")

    def __post_init__(self):
        super().__post_init__()
        _check_coefficients("sign_a", self.sign_a, "sign_b", self.sign_b, self.k)

    @classmethod
    def create(
        cls, epsilon: float, d: int, k: int, m: int, *, rng: np.random.Generator
    ) -> PrivateCountSketch:
        """A private count sketch whose k hash and sign functions are drawn from ``rng``."""
        return cls._drawn(epsilon, d, k, m, pairs=2, what="k × m sketch", rng=rng)

    @property
    def report_bits(self) -> int:
        """Bits sent: the hash index ⌈log2 k⌉ and the m-sign vector."""
        return math.ceil(math.log2(self.k)) + self.m

    def hash_table(self) -> np.ndarray:
        """H[j, x] = h_j(x) = ((a_j x + b_j) mod P) mod m, shape (k, d)."""
        return _hash_values(self.hash_a, self.hash_b, self.d, self.m)

    def _signs(self) -> np.ndarray:
        return 1 - 2 * _hash_values(self.sign_a, self.sign_b, self.d, 2)

    def perturb(self, values, *, rng: np.random.Generator) -> PcsReports:
        """Per-user reference client: row j, fair signs everywhere but v[h_j(x)] = g_j(x), kept w.p. p.

        References
        ----------
        [cormode2021] (pure-ldp's ``PCSClient``: the Duchi et al. / Bassily–Smith randomizer of one signed cell).
        """
        values, rng, rows, vectors = self._fair_signs(values, rng, "n × m vectors")
        hashes, signs = self._table
        keep = np.where(rng.random(values.size) < self.keep_probability, 1, -1)
        vectors[np.arange(values.size), hashes[rows, values]] = signs[rows, values] * keep
        return PcsReports(vectors, rows)

    def aggregate(self, reports: PcsReports) -> np.ndarray:
        """S[j, t] = Σ of the vectors of the users in row j (k × m integers)."""
        vectors, rows = _check_vectors(reports, PcsReports, self.k, self.m)
        sums = np.zeros(self._shape, dtype=np.int64)
        np.add.at(sums, rows, vectors)
        return sums

    def output_table(self) -> np.ndarray:
        """P[x, (j, v)] over all k·2^m vectors: (1/k)·2^{−(m−1)}·(p if v[h_j(x)] = g_j(x) else 1 − p)."""
        if self.m > 12 or self.d * self.k * 2**self.m > MAX_TABLE_CELLS:
            self._refuse_table("m", "d·k·2^m", MAX_TABLE_CELLS)
        vectors = np.array(list(itertools.product((-1, 1), repeat=self.m)))
        table = self._cell_table(2**self.m, lambda cell, sign: vectors[:, cell] == sign)
        return table / (self.k * 2 ** (self.m - 1))
