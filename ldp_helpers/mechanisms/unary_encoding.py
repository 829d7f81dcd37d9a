"""Unary encoding: symmetric (SUE, basic RAPPOR's one-time IRR) and optimized (OUE).

A user with value v encodes it as the one-hot vector B ∈ {0,1}^d (B[v] = 1) and reports each
bit independently: a 1 stays 1 with probability p, a 0 becomes 1 with probability q.  A report
supports value i iff its bit i is 1, so p* = p and q* = q.

Privacy.  For two inputs v ≠ v' only bits v and v' have different distributions, so the
worst ratio over whole vectors is attained at B'[v] = 1, B'[v'] = 0:

    Pr[B' | v] / Pr[B' | v'] = (p/q) · ((1−q)/(1−p))  ⇒  ε = ln(p(1−q) / (q(1−p))).

One bit on its own leaks only max(ln(p/q), ln((1−q)/(1−p))); the whole vector leaks the *sum*
of the two log ratios because changing v changes the law of two bits at once, which is why
:meth:`UnaryEncoding.output_table` is the table of whole vectors.  SUE splits ε evenly
(p = e^{ε/2}/(e^{ε/2}+1), q = 1 − p); OUE takes p = 1/2, q = 1/(e^ε+1), which minimizes the
variance.

Aggregate: the d bit counts are independent across i (bits are independent within a user and
users are independent), C_i ~ Binomial(f_i, p) + Binomial(n − f_i, q): the pure oracles'
sampler of :mod:`~ldp_helpers.mechanisms.base`.

References
----------
[wang2017] §4.2; [tutorial] "Unary Encoding".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import check_binary_array, check_int, check_ndim, check_probability
from ldp_helpers.mechanisms.base import PureFrequencyOracle, _check_user_arrays
from ldp_helpers.mechanisms.privacy import (
    _independent_bits_log_table,
    _independent_bits_table,
    _max_log_ratio,
)
from ldp_helpers.mechanisms.randomized_response import q_bin_probabilities

#: largest d for which :func:`unary_output_table` builds the 2^d-column table
MAX_D_TABLE = 12
#: users perturbed per block in :meth:`UnaryEncoding.perturb` (bounds the n × d temporaries)
_ROWS_PER_BLOCK = 4096
_BLOCK_BYTES = 64 * 1024**2  #: and at most this many bytes of temporaries per block (large d)


def unary_output_table(p: float, q: float, d: int) -> np.ndarray:
    """The whole-vector table ``P[v, y]`` of a unary encoding over all 2^d reports y (d ≤ 12).

    Column y is the report with bit i = (y >> i) & 1; the row of value v is the product of d
    independent bits, bit v being 1 w.p. p and every other bit 1 w.p. q.  Its privacy loss is
    :func:`unary_loss` ``(p, q)`` when p ≥ q.

    References
    ----------
    [wang2017] §4.2 (the privacy of unary encoding).
    """
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    d = check_int("d", d, low=2, high=MAX_D_TABLE)
    prob_one = np.where(np.eye(d, dtype=bool), p, q)
    return _independent_bits_table(1 - prob_one, prob_one)


def unary_loss(p: float, q: float) -> float:
    """``ln(p(1 − q)/(q(1 − p)))``: the privacy loss of a unary-encoded report (its ε when p ≥ q).

    The true value's bit is 1 w.p. ``p``, every other bit w.p. ``q``: two reports that swap two bits
    differ by a factor p/q on one and (1 − q)/(1 − p) on the other.  Written as logs of p, q, 1 − q
    and 1 − p (no ratio underflows); 0 when p = q, ±∞ when one side is certain (p = 1 or q = 0: +∞).

    References
    ----------
    [wang2017] §4.2 (the privacy of unary encoding); [erlingsson2014] Theorem 2 (RAPPOR's ε₁, h
    times this loss).
    """
    p, q = check_probability(p, "p"), check_probability(q, "q")
    if p == q:
        return 0.0
    if p == 1.0 or q == 0.0:
        return math.inf
    if p == 0.0 or q == 1.0:
        return -math.inf
    gap = p - q
    # near p = q: log1p's of the gap (a difference of four logs loses digits there)
    if abs(gap) < 0.5 * min(q, 1 - p):
        return math.log1p(gap / q) + math.log1p(gap / (1 - p))
    return math.log(p) - math.log(q) + math.log1p(-q) - math.log1p(-p)


@dataclass(frozen=True)
class UnaryEncoding(PureFrequencyOracle):
    """Shared client and aggregator of SUE and OUE (subclasses fix p and q).

    References
    ----------
    [wang2017] §4.2; [tutorial] "Unary Encoding".
    """

    @property
    def report_bits(self) -> int:
        """Bits sent per report: one per domain value (O(d))."""
        return self.d

    def output_table(self) -> np.ndarray:
        """The whole-report table ``P[v, y]`` over all 2^d bit vectors y (d ≤ 12); its loss is exactly ε."""
        return unary_output_table(self.p, self.q, self.d)

    def privacy_loss(self) -> float:
        """The exact whole-report ε from the same table in log space (d ≤ 12): at large ε an entry such as
        q*^(d−1) underflows in the table itself, and the ratio of two underflowed entries would read ∞."""
        return _max_log_ratio(self._log_output_table())

    def _log_output_table(self) -> np.ndarray:
        """``log P[v, y]`` of :meth:`output_table`, summed in log space (d ≤ 12; every entry finite)."""
        check_int("d", self.d, low=2, high=MAX_D_TABLE)
        prob_one = np.where(np.eye(self.d, dtype=bool), self.p, self.q)
        return _independent_bits_log_table(np.log1p(-prob_one), np.log(prob_one))

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference client: one-hot encode v, then report bit i as 1 w.p. p (i = v) or q (i ≠ v).

        Users are processed in blocks of 4096 only to bound the temporaries.

        Returns
        -------
        numpy.ndarray of int8, shape (n, d)
            One perturbed bit vector per user.

        References
        ----------
        [wang2017] §4.2; [grr_vs_oue] Algorithm 3.
        """
        values, rng = self._client_inputs(values, rng)
        _check_user_arrays(values.size, self.d, "reports", "bits", itemsize=1)
        # temporaries: 17 bytes per bit
        rows = max(1, min(_ROWS_PER_BLOCK, _BLOCK_BYTES // (17 * self.d)))
        reports = np.empty((values.size, self.d), dtype=np.int8)
        for start in range(0, values.size, rows):
            block = values[start : start + rows]
            one_hot = np.arange(self.d) == block[:, None]  # B: B[v] = 1
            prob_one = np.where(one_hot, self.p, self.q)  # Pr[B'[i] = 1] = p if B[i] = 1 else q
            reports[start : start + block.size] = rng.random(prob_one.shape) < prob_one
        return reports

    def aggregate(self, reports) -> np.ndarray:
        """C(i): how many reported vectors have bit i set (length d; [grr_vs_oue] Algorithm 4, line 7)."""
        bits = check_binary_array(
            "reports", check_ndim("reports", reports, 2, last=self.d, what="(users × d bits)")
        )
        return bits.sum(axis=0, dtype=np.int64)


@dataclass(frozen=True)
class SUE(UnaryEncoding):
    """Symmetric unary encoding: p = e^{ε/2}/(e^{ε/2}+1), q = 1 − p (each bit is Q_Bin at ε/2).

    References
    ----------
    [wang2017] §4.2 (basic one-time RAPPOR); [tutorial] "Unary Encoding".
    """

    def _support_probabilities(self) -> tuple[float, float]:
        return q_bin_probabilities(self.epsilon / 2)  # each bit is Q_Bin at ε/2


@dataclass(frozen=True)
class OUE(UnaryEncoding):
    """Optimized unary encoding: p = 1/2, q = 1/(e^ε+1).

    References
    ----------
    [wang2017] §4.2; [wang2017] Eq. (5); [grr_vs_oue] §2.3; [grr_vs_oue] Algorithm 3; [tutorial] "Unary Encoding"
    (where it is misspelled "OEU").
    """

    def _support_probabilities(self) -> tuple[float, float]:
        return 0.5, q_bin_probabilities(self.epsilon)[1]  # q = 1/(e^ε+1), Q_Bin's flip probability
