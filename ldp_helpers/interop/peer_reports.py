"""The peers' local-hashing reports, estimated by our OLH: pure-LDP's ``LHClient`` and multi-freq-ldpy's ``LH_Client``.

Both peers send a report as a pair ``(y, seed)``: the user draws ``seed`` (below 2**63), hashes her value x to
``H_seed(x) = xxh32(str(x), seed) mod g`` and sends y, the GRR of ``H_seed(x)`` over [g] (keep w.p.
e^ε/(e^ε + g − 1)); g = round(e^ε) + 1 for OLH (both peers' formula, and :func:`olh_hash_range`'s), 2 for BLH.
pure-LDP's values are 1-based by default (its ``index_mapper`` is v − 1 and it hashes ``str(v − 1)``), so its
value v is our x = v − 1; multi-freq-ldpy's are 0-based.  The server's sufficient statistic is the support
count ``C(x) = #{reports with H_seed(x) = y}``, what our :meth:`LocalHashing.estimate` takes with n.

The hash is the peers' (:mod:`~ldp_helpers.interop.xxhash32`), evaluated here on their reports; it is
independent of the hash our own OLH client draws.  GRR and unary-encoding reports of both peers are already
our format (0-based values; 0/1 vectors) and go into our ``aggregate`` unchanged.

References
----------
[wang2017] §4.4 (local hashing, the support and the estimator); [arcolezi2024] (multi-freq-ldpy).
"""

from __future__ import annotations

import numpy as np

from ldp_helpers._validation import (
    check_allocation,
    check_instance,
    check_int,
    check_int_array,
    fail_type,
)
from ldp_helpers.interop.xxhash32 import _check_seeds, xxh32_decimal
from ldp_helpers.mechanisms.local_hashing import LocalHashing

#: (reports × values) hashes computed per block of the support count
_BLOCK_ELEMENTS = 2**22


def check_olh_reports(reports, g: int) -> tuple[np.ndarray, np.ndarray]:
    """The peers' reports as arrays ``(y (n,) int64 in [0, g), seeds (n,) uint32 = seed mod 2**32)``.

    ``reports`` is a sequence of ``(y, seed)`` pairs (as both peers return them) or an (n, 2) integer array.
    """
    g = check_int("g", g, low=2)
    if isinstance(reports, np.ndarray) and reports.dtype != object:
        array = check_int_array("reports", reports)
        if array.ndim != 2 or array.shape[1] != 2 or array.shape[0] == 0:
            fail_type("reports", reports, "a non-empty (n, 2) array of (y, seed) rows")
        y, seeds = array[:, 0], array[:, 1]
    else:
        if (
            not hasattr(reports, "__len__")
            or len(reports) == 0
            or not all(isinstance(r, (tuple, list, np.ndarray)) and len(r) == 2 for r in reports)
        ):
            fail_type(
                "reports",
                reports,
                "a non-empty sequence of (y, seed) pairs, as LHClient.privatise and "
                "LH_Client return them",
            )
        y, seeds = [r[0] for r in reports], np.array([r[1] for r in reports], dtype=object)
    y = check_int_array("reports[:, 0] (y)", np.asarray(y), low=0, high=g - 1).ravel()
    return y, _check_seeds(seeds, "reports[:, 1] (seed)")


def _hash_mod(values: np.ndarray, seeds: np.ndarray, g: int) -> np.ndarray:
    """``xxh32(str(x), seed) mod g`` (seeds × values): the hash itself for g ≥ 2^32 (OLH's g = round(e^ε) + 1
    from ε ≈ 22.2 on), where every 32-bit hash is below g and ``np.uint32(g)`` would overflow."""
    hashes = xxh32_decimal(values, seeds)
    return hashes % np.uint32(g) if g < 2**32 else hashes


def olh_support(reports, d: int, g: int) -> np.ndarray:
    """The 0/1 matrix (n, d): report r supports x iff ``xxh32(str(x), seed_r) mod g == y_r`` (a post-processing)."""
    d = check_int("d", d, low=2)
    y, seeds = check_olh_reports(reports, g)
    check_allocation("d", d, y.size * d, itemsize=13, what="the hashes and the support matrix")
    return (_hash_mod(np.arange(d), seeds, g) == y[:, None]).astype(np.int8)


def olh_support_counts(reports, d: int, g: int) -> np.ndarray:
    """``C(x) = #{reports (y, seed) with xxh32(str(x), seed) mod g = y}`` for x in [0, d), int64 (blocks of reports)."""
    d = check_int("d", d, low=2)
    y, seeds = check_olh_reports(reports, g)
    check_allocation("d", d, 2 * d, what="the values and their counts")
    values, counts = np.arange(d), np.zeros(d, dtype=np.int64)
    step = max(1, _BLOCK_ELEMENTS // d)
    for start in range(0, y.size, step):
        block = slice(start, start + step)
        counts += (_hash_mod(values, seeds[block], g) == y[block, None]).sum(axis=0)
    return counts


def estimate_olh_reports(reports, mechanism: LocalHashing) -> np.ndarray:
    """Our unbiased estimate of the d counts from the peers' reports: ``mechanism.estimate(C, n)``.

    ``mechanism`` is the :class:`OLH` (or :class:`BLH`) the peers ran: same ε, d and hash range g.
    """
    mechanism = check_instance(
        "mechanism", mechanism, LocalHashing, "a local-hashing mechanism (OLH, BLH)"
    )
    counts = olh_support_counts(reports, mechanism.d, mechanism.g)
    return mechanism.estimate(counts, len(reports))
