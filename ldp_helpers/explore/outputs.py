"""What one report of a frequency oracle costs and reveals, as the explorer shows it: its size in bits and the
whole-report ε from its output table (no widgets).

References
----------
[wang2017] §4 (communication cost); [apple2017] Algorithm 1; [tutorial] Eq. (2) (ε-LDP).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import check_instance
from ldp_helpers.mechanisms.base import FrequencyOracle
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.histogram_encoding import SHE, THE

#: shown for a quantity that cannot be computed at this size (e.g. an output table too large)
UNAVAILABLE = "—"

#: the largest output table (d × 2^report_bits cells) the panels enumerate for the whole-report ε (about 0.3 s)
TABLE_CELLS = 2**22


def whole_report_epsilon(oracle: FrequencyOracle) -> float | str:
    """The exact whole-report ε from the oracle's output table, or :data:`UNAVAILABLE` if the table is too large.

    Too large: the oracle refuses it (a ``ValueError`` naming the size), or the oracle states its
    ``report_bits`` and d × 2^report_bits exceeds :data:`TABLE_CELLS` (an interaction stays fast).

    References
    ----------
    [tutorial] Eq. (2) (ε-LDP); docs/reference.md, "The mechanism contract" (privacy_loss).
    """
    return _whole_report_epsilon(check_instance("oracle", oracle, FrequencyOracle))


@functools.lru_cache(maxsize=256)
def _whole_report_epsilon(oracle: FrequencyOracle) -> float | str:
    bits = getattr(oracle, "report_bits", None)
    if bits is not None and (int(bits) > 22 or oracle.d << int(bits) > TABLE_CELLS):
        return UNAVAILABLE
    try:
        return float(oracle.privacy_loss())
    except ValueError:
        return UNAVAILABLE


#: bits of one real number in a report (an IEEE-754 double), how SHE/THE reports are counted
FLOAT_BITS = 64


class ReportSize(NamedTuple):
    """Bits of one user's report and how they are counted."""

    bits: int | str  # or UNAVAILABLE
    how: str


def report_size(oracle: FrequencyOracle) -> ReportSize:
    """Bits one user sends under this oracle, and how they are counted.

    An oracle that states its size (``report_bits``: unary encodings d bits, local hashing the
    hash seed (a, b) and ⌈log2 g⌉) is taken at its word.  Otherwise: a sketch report is the hash
    index j ∈ [0, k) and the m-bit ±1 vector, ⌈log2 k⌉ + m bits (CMS); a report of d reals is d
    IEEE-754 doubles (SHE; THE reports the same noisy vector, the threshold is the server's); a value
    of [0, d) is ⌈log2 d⌉ bits (GRR, whose reports are values).

    References
    ----------
    [wang2017] §4 (communication cost of DE, UE, HE, LH); [apple2017] Algorithm 1 (the (ṽ, j) report).
    """
    oracle = check_instance("oracle", oracle, FrequencyOracle)
    bits = getattr(oracle, "report_bits", None)
    if bits is not None:
        return ReportSize(int(bits), "as the oracle states it (report_bits)")
    if isinstance(getattr(oracle, "k", None), int) and isinstance(getattr(oracle, "m", None), int):
        index = int(np.ceil(np.log2(oracle.k))) if oracle.k > 1 else 0
        return ReportSize(index + oracle.m, f"hash index ⌈log2 k⌉ = {index} bits + m = {oracle.m} sign bits")
    if isinstance(oracle, (SHE, THE)):
        return ReportSize(FLOAT_BITS * oracle.d, f"d = {oracle.d} reals as {FLOAT_BITS}-bit doubles")
    if isinstance(oracle, GRR):
        return ReportSize(int(np.ceil(np.log2(oracle.d))), f"one value of [0, d): ⌈log2 {oracle.d}⌉ bits")
    return ReportSize(UNAVAILABLE, "not stated by the oracle")
