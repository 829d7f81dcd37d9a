"""RAPPOR's client, step by step: Bloom filter, permanent and instantaneous randomized response.

1. A string is hashed by h cohort-specific functions into k bits: the SHA-256 of [rappor] Fig. 3, keyed by
   a secret drawn from the injected ``rng`` (the same secret gives the design of [rappor] Fig. 3), or the MD5 of
   the reference client of [erlingsson2014] (google/rappor, :func:`md5_bloom_filters`), which needs no secret
   and gives the map file google's tools write (:mod:`ldp_helpers.interop.google_rappor`).
2. PRR: ``B'_i = 1`` w.p. f/2, 0 w.p. f/2, ``B_i`` w.p. 1 − f (memoized per user).
3. IRR, in RAPPOR's letters: ``Pr[S_i = 1 | B'_i = 1] = q``, ``Pr[S_i = 1 | B'_i = 0] = p``, q > p.

:class:`~ldp_helpers.mechanisms.rappor.Rappor` composes them; :func:`all_bloom_filters` lists
every filter h hashes can produce (the inputs of its exact output table).

References
----------
[erlingsson2014] §2 steps 1–3; [rappor] Eq. (1); [rappor] Fig. 3.
"""

from __future__ import annotations

import hashlib
import itertools
import struct

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_above,
    check_allocation,
    check_binary_array,
    check_instance,
    check_int,
    check_probabilities,
    check_probability,
    check_rng,
    check_trailing_shape,
    fail,
    fail_shape,
    fail_type,
)
from ldp_helpers.mechanisms.privacy import _independent_bits_table


def draw_secret(*, rng: np.random.Generator) -> str:
    """The hashing secret, drawn from ``rng`` like the ``str(np.random.random()) + "secret"`` of [rappor]."""
    return f"{check_rng(rng).random()!r}secret"


def hash_index(secret: str, cohort: int, candidate: int, hash_number: int, k: int) -> int:
    """The hash of [rappor] Fig. 3: ``int(sha256(f"{secret}_{c:02d}_{j:03d}_{i:02d}"), 16) mod k``.

    ``cohort`` is 0-based as in [rappor]; ``candidate`` and ``hash_number`` are 0-based here and
    printed 1-based (``j + 1``, ``i + 1``) as the loops of [rappor] Fig. 3 do, so a secret gives the same design.

    References
    ----------
    [rappor] Fig. 3.
    """
    check_instance("secret", secret, str, "a string")
    k = check_int("k", k, low=1)
    for name, value in (("cohort", cohort), ("candidate", candidate), ("hash_number", hash_number)):
        check_int(name, value, low=0)
    return int(_hash_indices(secret, _suffixes([cohort], [candidate], [hash_number]), k)[0])


def _suffixes(cohorts, candidates, hash_numbers) -> list[bytes]:
    """What [rappor] Fig. 3 appends to the secret, ``_{c:02d}_{j:03d}_{i:02d}`` (candidate and hash printed 1-based),
    for every (cohort, candidate, hash number) of the three ranges, in that nesting order."""
    parts = (
        [f"_{c:02d}".encode() for c in cohorts],
        [f"_{w + 1:03d}".encode() for w in candidates],
        [f"_{i + 1:02d}".encode() for i in hash_numbers],
    )
    return [c + w + i for c in parts[0] for w in parts[1] for i in parts[2]]


def _hash_indices(secret: str, suffixes, k: int) -> np.ndarray:
    """``int(sha256(secret + suffix).hexdigest(), 16) mod k`` for every suffix, an int64 array (object if k ≥ 2^54).

    The secret is hashed once and its state copied per suffix; the 256-bit digests are reduced mod k in numpy
    by Horner's rule over their 32 big-endian bytes (exact: every partial value stays below 256·k).
    """
    keyed = hashlib.sha256(secret.encode("utf-8"))

    def digest(suffix: bytes) -> bytes:
        state = keyed.copy()
        state.update(suffix)
        return state.digest()

    digests = np.frombuffer(b"".join(map(digest, suffixes)), dtype=np.uint8).reshape(-1, 32)
    remainder = np.zeros(len(digests), dtype=np.int64 if k < 2**54 else object)
    for byte in digests.T:
        remainder = (remainder * 256 + byte) % k
    return remainder


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
    check_allocation(
        "m, n_candidates and k",
        (m, n_candidates, k),
        m * n_candidates * k,
        itemsize=9,
        what=f"Bloom filters (int8) and design matrix (float64) of {m} cohorts × {k} bits per candidate",
    )
    suffixes = _suffixes(range(m), range(n_candidates), range(h))
    blooms = np.zeros((m, n_candidates, k), dtype=np.int8)
    cohort, candidate = np.divmod(np.arange(m * n_candidates), n_candidates)
    blooms[np.repeat(cohort, h), np.repeat(candidate, h), _hash_indices(secret, suffixes, k)] = 1
    return blooms


def md5_bloom_bits(word: str, cohort: int, h: int, k: int) -> list[int]:
    """The h Bloom bits of ``word`` in ``cohort`` as google/rappor's client hashes them: byte i of
    ``MD5(cohort as 4 big-endian bytes + word in UTF-8)`` mod k, for i < h (so h ≤ 16; bits ≥ 256 are never set).

    Bit ``b`` is google's bit b (the least significant bit of a report is bit 0).

    References
    ----------
    [erlingsson2014] §2 step 1 (its reference client: google/rappor ``client/python/rappor.py``, ``get_bloom_bits``).
    """
    check_instance("word", word, str, "a candidate string")
    h, k = check_int("h", h, low=1, high=16), check_int("k", k, low=1)
    cohort = check_int("cohort", cohort, low=0, high=2**32 - 1)
    digest = hashlib.md5(struct.pack(">L", cohort) + word.encode("utf-8")).digest()
    return [digest[i] % k for i in range(h)]


def md5_bloom_filters(candidates, m: int, h: int, k: int) -> np.ndarray:
    """Every candidate's Bloom filter in every cohort under google/rappor's MD5 hash, shape (m, M, k).

    The design ``hash_candidates.py`` writes as a map file; colliding hashes set fewer than h bits.

    References
    ----------
    [erlingsson2014] §2 step 1 (google/rappor ``bin/hash_candidates.py``).
    """
    if (
        isinstance(candidates, str)
        or not isinstance(candidates, (list, tuple))
        or not candidates
        or not all(isinstance(c, str) for c in candidates)
    ):
        fail_type("candidates", candidates, "a non-empty list or tuple of candidate strings")
    m, k = check_int("m", m, low=1), check_int("k", k, low=1)
    h = check_int("h", h, low=1, high=min(16, k))
    check_allocation(
        "m",
        m,
        m * len(candidates) * k,
        itemsize=9,
        what=f"Bloom filters of {len(candidates)} candidates",
    )
    blooms = np.zeros((m, len(candidates), k), dtype=np.int8)
    for j, (w, word) in itertools.product(range(m), enumerate(candidates)):
        blooms[j, w, md5_bloom_bits(word, j, h, k)] = 1
    return blooms


def design_blooms(design, m: int, h: int, k: int) -> np.ndarray:
    """A hash design as Bloom filters (m, M, k), each with 1 to h ones: given as such, or as a cohort-major design
    matrix (k·m, M) whose row ``j·k + i`` is bit i of cohort j (:attr:`Rappor.design_matrix`).

    References
    ----------
    [rappor] §2 (the design matrix X).
    """
    m, k = check_int("m", m, low=1), check_int("k", k, low=1)
    h = check_int("h", h, low=1, high=k)
    design = check_binary_array("design", design)
    if design.ndim == 2 and design.shape[0] == m * k:
        design = np.ascontiguousarray(design.reshape(m, k, design.shape[1]).transpose(0, 2, 1))
    if design.ndim != 3 or design.shape[0] != m or design.shape[2] != k or design.shape[1] == 0:
        fail_shape(
            "design",
            design.shape,
            f"Bloom filters (m={m}, M ≥ 1, k={k}) or a design matrix (k·m={k * m}, M ≥ 1)",
        )
    ones = design.sum(axis=2)
    if ones.min() < 1 or ones.max() > h:
        fail(
            "design",
            Described(f"Bloom filters with {ones.min()} to {ones.max()} ones"),
            f"Bloom filters with 1 to h={h} ones in every cohort",
        )
    return design


def all_bloom_filters(k: int, h: int) -> np.ndarray:
    """Every k-bit vector with 1 to h ones: all Bloom filters h hashes can produce (k ≤ 16)."""
    k = check_int("k", k, low=1, high=16)
    h = check_int("h", h, low=1, high=k)
    rows = [
        np.isin(np.arange(k), ones)
        for n in range(1, h + 1)
        for ones in itertools.combinations(range(k), n)
    ]
    return np.array(rows, dtype=np.int8)


def permanent_randomized_response(bits, f: float, *, rng: np.random.Generator) -> np.ndarray:
    """PRR: each bit becomes 1 w.p. f/2, 0 w.p. f/2, and stays w.p. 1 − f (``f = 0``: the identity).

    References
    ----------
    [erlingsson2014] §2 step 2.
    """
    bits = check_binary_array("bits", bits)
    f = check_probability(f, "f", open_high=True)
    rng = check_rng(rng)
    if f == 0.0:
        return bits.copy()
    u = rng.random(bits.shape)
    return np.where(u < 0.5 * f, 1, np.where(u < f, 0, bits)).astype(np.int8)


def instantaneous_randomized_response(
    bits, p: float, q: float, *, rng: np.random.Generator
) -> np.ndarray:
    """IRR in RAPPOR's letters: report 1 w.p. q on a 1 bit and w.p. p on a 0 bit (q > p).

    References
    ----------
    [erlingsson2014] §2 step 3; [rappor] Eq. (1).
    """
    bits = check_binary_array("bits", bits)
    q = check_above("q", check_probability(q, "q"), check_probability(p, "p"), what="p")
    rng = check_rng(rng)
    return (rng.random(bits.shape) < np.where(bits == 1, q, p)).astype(np.int8)


def report_table(blooms, bit_table) -> np.ndarray:
    """Exact ``P[x, y] = Pr[report bits y | Bloom filter x]`` over all 2^k outputs y (k ≤ 16; y's bit 0 first).

    Bits are randomized independently given the filter: each entry is a product of k one-bit
    probabilities ``bit_table[x_i, y_i]``.

    References
    ----------
    [tutorial] Eq. (2) (the table whose column ratios define ε-LDP).
    """
    bits = check_binary_array("blooms", blooms, ndim=2, what="(filters × k bits)")
    check_int("k", bits.shape[1], low=1, high=16)
    table = check_trailing_shape(
        "bit_table",
        check_probabilities("bit_table", bit_table),
        (2, 2),
        leading=0,
    )
    return _independent_bits_table(table[bits, 0], table[bits, 1])
