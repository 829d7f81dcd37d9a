"""Data from other LDP implementations, read and written in their own formats, decoded by ours.

* :mod:`~ldp_helpers.interop.google_rappor`: google/rappor's files (parameters, per-cohort counts, the
  candidate map, per-report output), bit order and 1-based indexing handled; :func:`read_rappor_files`
  reads counts + map (+ params) into arrays and a :class:`~ldp_helpers.mechanisms.rappor.Rappor` on that design.
* :mod:`~ldp_helpers.interop.peer_reports`: local-hashing reports of pure-LDP and multi-freq-ldpy
  (``(y, seed)`` with their xxh32 hash), turned into support counts for our OLH estimator.
* :mod:`~ldp_helpers.interop.xxhash32`: the xxh32 hash those peers use, vectorized in NumPy (no xxhash package).
"""

from ldp_helpers.interop.google_rappor import read_rappor_files

__all__ = ["google_rappor", "peer_reports", "read_rappor_files", "xxhash32"]
