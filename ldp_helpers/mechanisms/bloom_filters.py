"""Bloom filters of RAPPOR: seed 001's SHA-256 hashing and the enumeration of every possible filter.

A string is hashed by h cohort-specific functions into k bits (RAPPOR step 1).  The hashes are
keyed by a secret drawn from the injected ``rng``; the same secret gives the seed's design.

References
----------
[erlingsson2014] §2 step 1; [rappor] Fig. 3.
"""

from __future__ import annotations

import hashlib
import itertools

import numpy as np

from ldp_helpers._validation import check_int, check_rng


def draw_secret(*, rng: np.random.Generator) -> str:
    """The hashing secret, drawn from ``rng`` like seed 001's ``str(np.random.random()) + "secret"``."""
    return f"{check_rng(rng).random()!r}secret"


def hash_index(secret: str, cohort: int, candidate: int, hash_number: int, k: int) -> int:
    """Seed 001's hash: ``int(sha256(f"{secret}_{c:02d}_{j:03d}_{i:02d}"), 16) mod k``.

    ``cohort`` is 0-based as in the seed; ``candidate`` and ``hash_number`` are 0-based here and
    printed 1-based (``j + 1``, ``i + 1``) as the seed's loops do, so a secret gives the seed's design.

    References
    ----------
    [rappor] Fig. 3.
    """
    text = f"{secret}_{cohort:02d}_{candidate + 1:03d}_{hash_number + 1:02d}"
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16) % k


def bloom_filters(secret: str, m: int, n_candidates: int, h: int, k: int) -> np.ndarray:
    """Every candidate's Bloom filter in every cohort, shape (m, M, k): bit ``hash_index(…)`` set for each of h hashes.

    Colliding hashes set fewer than h bits.

    References
    ----------
    [rappor] Fig. 3 (``create_design_matrix``); [erlingsson2014] §2 step 1.
    """
    m, n_candidates = check_int("m", m, low=1), check_int("n_candidates", n_candidates, low=1)
    k = check_int("k", k, low=1)
    h = check_int("h", h, low=1, high=k)
    blooms = np.zeros((m, n_candidates, k), dtype=np.int8)
    for j, w, i in itertools.product(range(m), range(n_candidates), range(h)):
        blooms[j, w, hash_index(secret, j, w, i, k)] = 1
    return blooms


def all_bloom_filters(k: int, h: int) -> np.ndarray:
    """Every k-bit vector with 1 to h ones: all Bloom filters h hashes can produce (k ≤ 16)."""
    k = check_int("k", k, low=1, high=16)
    h = check_int("h", h, low=1, high=k)
    rows = [np.isin(np.arange(k), ones) for n in range(1, h + 1) for ones in itertools.combinations(range(k), n)]
    return np.array(rows, dtype=np.int8)
