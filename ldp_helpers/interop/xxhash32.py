"""xxh32, the 32-bit xxHash, in NumPy: the hash pure-LDP's and multi-freq-ldpy's local-hashing clients use.

Both peers hash a value x as ``xxhash.xxh32(str(x), seed=seed).intdigest() % g`` with a seed below 2**63; the
xxhash package (3.x, which they need) keeps the seed's low 32 bits.  :func:`xxh32_decimal` evaluates that hash
for many seeds and many values at once in uint32 arithmetic (wrap-around is the algorithm's own modular
arithmetic), so our server needs no xxhash package.

References
----------
Y. Collet, xxHash specification, "XXH32 algorithm description" (github.com/Cyan4973/xxHash, doc/xxhash_spec.md).
"""

from __future__ import annotations

import numpy as np

from ldp_helpers._validation import as_array, check_allocation, check_int_array, fail_type

PRIME1, PRIME2, PRIME3, PRIME4, PRIME5 = 0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0x27D4EB2F, 0x165667B1
_MASK = 0xFFFFFFFF


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def _lanes(data: np.ndarray, offset: int) -> np.ndarray:
    """Little-endian uint32 words at ``offset`` of each row of a uint8 matrix, as a (1, rows) array."""
    words = np.ascontiguousarray(data[:, offset : offset + 4]).view("<u4")
    return words[:, 0].astype(np.uint32)[None]


def _xxh32_rows(data: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """xxh32 of every row of ``data`` (uint8, all rows of one length) under every seed (uint32): (seeds, rows)."""
    n = data.shape[1]
    s = seeds[:, None]
    p1, p2, p3, p4, p5 = (np.uint32(v) for v in (PRIME1, PRIME2, PRIME3, PRIME4, PRIME5))
    offset = 0
    if n >= 16:
        acc = [s + p1 + p2, s + p2, s + np.uint32(0), s - p1]
        while offset + 16 <= n:
            acc = [_rotl(a + _lanes(data, offset + 4 * i) * p2, 13) * p1 for i, a in enumerate(acc)]
            offset += 16
        h = _rotl(acc[0], 1) + _rotl(acc[1], 7) + _rotl(acc[2], 12) + _rotl(acc[3], 18)
    else:
        h = s + p5
    h = np.broadcast_to(h + np.uint32(n), (seeds.size, data.shape[0])).copy()
    while offset + 4 <= n:
        h = _rotl(h + _lanes(data, offset) * p3, 17) * p4
        offset += 4
    while offset < n:
        h = _rotl(h + data[None, :, offset].astype(np.uint32) * p5, 11) * p1
        offset += 1
    h ^= h >> np.uint32(15)
    h *= p2
    h ^= h >> np.uint32(13)
    h *= p3
    return h ^ (h >> np.uint32(16))


def xxh32_decimal(values, seeds) -> np.ndarray:
    """``xxh32(str(x).encode(), seed)`` for every seed (rows) and every integer x ≥ 0 (columns), as uint32.

    ``seeds`` are taken mod 2**32 (Python ints or an integer array); this is the hash of the peers' local hashing.
    """
    values = check_int_array("values", values, low=0).ravel()
    seeds = _check_seeds(seeds)
    check_allocation(
        "values",
        values.size,
        seeds.size * values.size,
        itemsize=8,
        what="one uint32 hash per (seed, value)",
    )
    out = np.empty((seeds.size, values.size), dtype=np.uint32)
    text = np.char.mod("%d", values)
    lengths = np.char.str_len(text)
    for length in np.unique(lengths):
        columns = np.flatnonzero(lengths == length)
        data = np.frombuffer(
            "".join(text[columns].tolist()).encode("ascii"), dtype=np.uint8
        ).reshape(-1, int(length))
        out[:, columns] = _xxh32_rows(data, seeds)
    return out


def _check_seeds(seeds, name: str = "seeds") -> np.ndarray:
    """Seeds (non-negative integers, any size: Python ints or an integer array) reduced mod 2**32 to uint32."""
    array = as_array(name, seeds, "non-negative integer seeds")
    if array.dtype == object:
        if not all(
            isinstance(s, (int, np.integer))
            and not isinstance(s, (bool, np.timedelta64))
            and s >= 0
            for s in array.ravel()
        ):
            fail_type(name, seeds, "non-negative integer seeds")
        return np.array([int(s) & _MASK for s in array.ravel()], dtype=np.uint32)
    array = check_int_array(name, array, low=0).ravel()
    return (array.astype(np.uint64) & np.uint64(_MASK)).astype(np.uint32)
