"""Unary encoding: symmetric (SUE, basic RAPPOR's one-time IRR) and optimized (OUE).

A user with value v encodes it as the one-hot vector B ∈ {0,1}^d (B[v] = 1) and reports each
bit independently: a 1 stays 1 with probability p, a 0 becomes 1 with probability q.  A report
supports value i iff its bit i is 1, so p* = p and q* = q.

Privacy.  For two inputs v ≠ v' only bits v and v' have different distributions, so the
worst ratio over whole vectors is attained at B'[v] = 1, B'[v'] = 0:

    Pr[B' | v] / Pr[B' | v'] = (p/q) · ((1−q)/(1−p))  ⇒  ε = ln(p(1−q) / (q(1−p))).

Each *bit* on its own, as a 2×2 table (rows: the bit of another value / of the true value),
leaks only max(ln(p/q), ln((1−q)/(1−p))); the whole vector leaks the *sum* of the two log
ratios because changing v flips the role of two bits at once.  SUE splits ε evenly
(p = e^{ε/2}/(e^{ε/2}+1), q = 1 − p: each bit is ε/2-LDP); OUE takes p = 1/2,
q = 1/(e^ε+1), which minimizes the variance; its two per-bit log ratios, ln((e^ε+1)/2) and
ln(2e^ε/(e^ε+1)), are unequal but still sum to ε.

Aggregate: the d bit-counts are independent across i (bits are independent within a user and
users are independent), C_i ~ Binomial(f_i, p) + Binomial(n − f_i, q).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import check_binary_array, check_domain_values, check_int, check_rng
from ldp_helpers.mechanisms.bernoulli import bernoulli_bits
from ldp_helpers.mechanisms.base import PureFrequencyOracle
from ldp_helpers.mechanisms.randomized_response import q_bin_probabilities

#: largest d for which :meth:`UnaryEncoding.vector_output_table` builds the 2^d-column table
MAX_D_VECTOR_TABLE = 12
#: users perturbed per block in :meth:`UnaryEncoding.perturb` (bounds the temporaries)
_ROWS_PER_BLOCK = 4096
_ROWS_PER_SUM = 4096  # rows summed in uint16 (< 65536) by support_counts


_HIGH_BITS_OF_LANES = 0xFEFE_FEFE_FEFE_FEFE  # any set bit here: some byte of the word is not 0/1
_ROWS_PER_LANE_SUM = 255  # 0/1 bytes added in the byte lanes of a uint64 cannot carry past 255


def _byte_column_sums(bits: np.ndarray) -> np.ndarray:
    """Column sums of a C-contiguous (n, d) uint8 array of 0/1, d a multiple of 8 (SWAR).

    Each uint64 word holds eight columns; summing at most 255 rows word-wise keeps every byte
    lane ≤ 255, so no carry crosses a lane and byte k of the sum is column k's partial count,
    whatever the byte order.  Eight columns per addition: about 8x fewer operations.
    """
    words = bits.view(np.uint64)
    if int(np.bitwise_or.reduce(words, axis=None)) & _HIGH_BITS_OF_LANES:
        raise ValueError("reports must be an array of 0/1 values")
    counts = np.zeros(bits.shape[1], dtype=np.int64)
    for start in range(0, words.shape[0], _ROWS_PER_LANE_SUM):
        counts += np.add.reduce(words[start : start + _ROWS_PER_LANE_SUM], axis=0).view(np.uint8)
    return counts


@dataclass(frozen=True)
class UnaryEncoding(PureFrequencyOracle):
    """Shared client and aggregator of SUE and OUE (subclasses fix p and q)."""

    @property
    def report_bits(self) -> int:
        """Bits sent per report: one per domain value (O(d))."""
        return self.d

    def output_table(self) -> np.ndarray:
        """The *per-bit* table: rows (bit of another value, bit of the true value), columns (0, 1).

        Its privacy loss is that of one bit, ``max(ln(p/q), ln((1−q)/(1−p)))``, which is *less*
        than ε: the whole report changes two bits when v changes (see the module docstring
        and :meth:`vector_output_table`, whose loss is exactly ε).
        """
        return np.array([[1 - self.q, self.q], [1 - self.p, self.p]])

    def vector_output_table(self) -> np.ndarray:
        """The whole-vector table ``P[v, y]`` over all 2^d reports y (small d only).

        Column y encodes the report with bit i = (y >> i) & 1.  Its privacy loss is exactly
        ``ln(p(1−q)/(q(1−p)))`` = ε.
        """
        check_int("d", self.d, low=2, high=MAX_D_VECTOR_TABLE)
        bits = np.array(list(itertools.product((0, 1), repeat=self.d)))[:, ::-1]  # row y: bit i of y
        table = np.empty((self.d, bits.shape[0]))
        for v in range(self.d):
            prob_one = np.full(self.d, self.q)
            prob_one[v] = self.p
            table[v] = np.prod(np.where(bits == 1, prob_one, 1 - prob_one), axis=1)
        return table

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference client: one-hot encode, then report bit i as 1 w.p. p (i = v) or q.

        The d − 1 "other" bits of every user are exact Bernoulli(q) draws, eight per 16 random bits
        (:func:`~ldp_helpers.mechanisms.bernoulli.bernoulli_bits`), then each user's own bit is redrawn as
        Bernoulli(p); users are processed in blocks so no n × d temporary is allocated.

        Returns
        -------
        numpy.ndarray of int8, shape (n, d)
            One perturbed bit vector per user.
        """
        values = check_domain_values("values", values, self.d).ravel()
        rng = check_rng(rng)
        reports = np.empty((values.size, self.d), dtype=np.int8)
        flat = reports.reshape(-1).view(bool)
        for start in range(0, values.size, _ROWS_PER_BLOCK):
            block = values[start : start + _ROWS_PER_BLOCK]
            cells = slice(start * self.d, (start + block.size) * self.d)
            bernoulli_bits(block.size * self.d, self.q, rng=rng, out=flat[cells])
            reports[start + np.arange(block.size), block] = bernoulli_bits(block.size, self.p, rng=rng)
        return reports

    def support_counts(self, reports) -> np.ndarray:
        """C(i): how many reported vectors have bit i set (length d)."""
        bits = np.asarray(reports)
        if bits.ndim != 2 or bits.shape[1] != self.d or bits.shape[0] == 0:
            raise ValueError(f"reports must be a non-empty (n, d) = (n, {self.d}) array of bits; got shape {bits.shape}")
        if bits.dtype not in (np.int8, np.uint8, np.bool_):  # general path (copies)
            bits = check_binary_array("reports", bits)
        if self.d % 8 == 0 and bits.itemsize == 1 and bits.flags.c_contiguous:
            return _byte_column_sums(bits.view(np.uint8))
        counts = np.zeros(self.d, dtype=np.int64)
        for start in range(0, bits.shape[0], _ROWS_PER_SUM):  # uint16 partial sums cannot overflow
            chunk = bits[start : start + _ROWS_PER_SUM].view(np.uint8)  # int8 −1 shows as 255
            if chunk.max() > 1:
                raise ValueError("reports must be an array of 0/1 values")
            counts += chunk.sum(axis=0, dtype=np.uint16)
        return counts


@dataclass(frozen=True)
class SUE(UnaryEncoding):
    """Symmetric unary encoding: p = e^{ε/2}/(e^{ε/2}+1), q = 1 − p (each bit ε/2-LDP).

    References
    ----------
    Wang et al. 2017, §4.2 (basic one-time RAPPOR); tutorial seed (003), "Unary Encoding".
    """

    def _support_probabilities(self) -> tuple[float, float]:
        return q_bin_probabilities(self.epsilon / 2)  # each bit is Q_Bin at ε/2


@dataclass(frozen=True)
class OUE(UnaryEncoding):
    """Optimized unary encoding: p = 1/2, q = 1/(e^ε+1).

    References
    ----------
    Wang et al. 2017, §4.2, Eq. (5); GRR/OUE thesis (004) §2.3, Algorithm 3; tutorial seed
    (003), "Unary Encoding" (where it is misspelled "OEU").
    """

    def _support_probabilities(self) -> tuple[float, float]:
        return 0.5, q_bin_probabilities(self.epsilon)[1]  # q = 1/(e^ε+1), Q_Bin's flip probability
