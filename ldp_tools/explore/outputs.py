"""What one report of a frequency oracle reveals, as the explorer shows it: the whole-report ε from its output
table, when the table is small enough to enumerate within an interaction (no widgets).

References
----------
[wang2017] §4 (communication cost); [apple2017] Algorithm 1; [tutorial] Eq. (2) (ε-LDP).
"""

from __future__ import annotations

import functools

from ldp_helpers.mechanisms.base import FrequencyOracle
from ldp_helpers.mechanisms.histogram_encoding import SHE, THE

#: shown for a quantity that cannot be computed at this size (e.g. an output table too large)
UNAVAILABLE = "—"

#: the largest output table (d × 2^report_bits cells) the panels enumerate for the whole-report ε (about 0.3 s)
TABLE_CELLS = 2**22


@functools.lru_cache(maxsize=256)
def _whole_report_epsilon(oracle: FrequencyOracle) -> float | str:
    """The exact whole-report ε from the oracle's output table, or :data:`UNAVAILABLE` if the table is too large.

    Too large: the oracle refuses it (a ``ValueError`` naming the size), or its reports are discrete
    and d × 2^report_bits exceeds :data:`TABLE_CELLS` (an interaction stays fast).  A continuous
    report (SHE, THE) has no table: its loss comes from its densities.  A memo over the frozen, hashable
    oracles the panels build (their redraws ask again), trusting its caller for the oracle.

    References
    ----------
    [tutorial] Eq. (2) (ε-LDP); docs/reference.md, "The mechanism contract" (privacy_loss).
    """
    bits = int(oracle.report_bits)
    # the loss comes from the report's densities: no table
    continuous = isinstance(oracle, (SHE, THE))
    if not continuous and (bits > 22 or oracle.d << bits > TABLE_CELLS):
        return UNAVAILABLE
    try:
        return float(oracle.privacy_loss())
    except ValueError:
        return UNAVAILABLE
