"""Our PrivateExpanderSketch over Hashtogram: Bitstogram's buckets, a Reed–Solomon code on an expander, list recovery.

Bun, Nelson and Stemmer ([bun2018]) replace Bitstogram's bit-by-bit reading of a bucket's value by
a code whose symbols sit on the vertices of an expander, so that several heavy hitters sharing a
bucket can still be decoded.  The concrete code, graph and decoder are **ours**
(:mod:`ldp_helpers.protocols.expander_code`): a systematic Reed–Solomon code over GF(16) of length
M = 2·⌈bits/4⌉ on a Möbius ladder.  The protocol:

* **Groups.**  The users are split at random into one group per edge (m, m') of the graph and a
  last group.  A user reports ONCE, with Hashtogram at ε: an edge group's user reports her record
  (bucket h(x), symbol c_m(x), symbol c_m'(x)) — a value of [Y·256] — and the last group's user
  her value.  Her whole report (group, Hashtogram report) is ε-LDP (checked exactly for a small
  setting in ``tests/protocols/test_expander_sketch.py``).
* **Heavy pairs.**  Per edge, every record whose Hashtogram estimate (the paper's median over the
  R repetitions, scaled to all n users) exceeds n/T + z·√(π/2)·c_ε·n/√n_group (an empty record's
  mean plus z standard deviations of a median of R normal repetitions) is a heavy pair of its bucket.
* **Clusters.**  In each bucket the heavy pairs are edges between vertices (m, symbol); a heavy
  hitter's vertices form one connected cluster, since the graph is connected (our stand-in for the
  paper's cluster-preserving clustering).
* **List recovery** (our decoder).  Per cluster, every information symbol is taken from the
  cluster's symbols at its position (all 16 where it has none, at most ``max_erasures`` such
  positions), best-connected first, the longest lists cut until at most ``max_candidates``
  combinations remain; each combination is re-encoded and kept when at least ``min_agreement`` of
  the graph's edges carry its pair, and its bucket is the bucket's.
* **Estimates.**  The last group's Hashtogram (median) estimates the candidates; the k best are returned.

Simulation: a group's Hashtogram sums are drawn by its exact sampler over the records present
(:class:`~ldp_helpers.mechanisms.hashtogram.Hashtogram`), never by n client calls; ``per_user=True``
runs the real clients (tests compare the two).

References
----------
[bun2018] (PrivateExpanderSketch); [bassily2017] (Hashtogram, Bitstogram's buckets); [larsen2016].
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from ldp_helpers._validation import check_bool, check_int, check_real
from ldp_helpers.mechanisms.hashtogram import Hashtogram
from ldp_helpers.protocols.expander_code import (
    FIELD,
    _encode_nibbles,
    code_length,
    decode_message,
    encode,
    expander_edges,
)
from ldp_helpers.protocols.heavy_hitters import (
    HeavyHitters,
    _check,
    _check_candidates,
    _distinct,
    _groups,
    bucket_of,
)

PAIRS = FIELD * FIELD  # a record's two symbols
_BATCH = 2**16  # candidate messages scored at once by the list recovery (about)


def private_expander_sketch(
    values,
    bits: int,
    epsilon: float,
    k: int,
    *,
    n_buckets: int | None = None,
    oracle_hashes: int = 5,
    oracle_buckets: int = 1024,
    z: float = 2.0,
    min_agreement: float = 0.5,
    max_erasures: int = 2,
    max_candidates: int = 4096,
    hash_seed: int = 1,
    rng: np.random.Generator,
    per_user: bool = False,
) -> HeavyHitters:
    """PrivateExpanderSketch (our constructions; see the module docstring) over Hashtogram with R hashes into T buckets.

    ``n_buckets`` (Y) defaults to 16k (at most 4096), as Bitstogram's.  A cluster enumerates at most ``max_candidates``
    codewords (its least-connected symbols are dropped first).  Returns the k best decoded values with the last
    group's estimates; ``lengths`` holds the code's length M once per edge group.

    References
    ----------
    [bun2018] (PrivateExpanderSketch); [bassily2017] (Hashtogram).
    """
    information, length = code_length(bits)  # bits first: the code needs 8 to 32
    values, bits, epsilon, rng = _check(values, bits, epsilon, rng)
    k = check_int("k", k, low=1, high=2**bits)
    n_buckets = check_int(
        "n_buckets", min(16 * k, 2**12) if n_buckets is None else n_buckets, low=1, high=2**12
    )
    z = check_real("z", z, low=0.0, low_open=False)
    min_agreement = check_real("min_agreement", min_agreement, low=0.0, high=1.0, high_open=False)
    max_erasures = check_int("max_erasures", max_erasures, low=0, high=information)
    max_candidates = check_int("max_candidates", max_candidates, low=1, high=2**20)
    oracle_hashes = check_int("oracle_hashes", oracle_hashes, low=1, high=2**10)
    oracle_buckets = check_int("oracle_buckets", oracle_buckets, low=2, high=2**20)
    _check_candidates(
        "n_buckets", n_buckets, 2 * n_buckets * PAIRS, "two scores per record of Y·256"
    )
    hash_seed, per_user = check_int("hash_seed", hash_seed, low=0), check_bool("per_user", per_user)
    edges = expander_edges(length)
    records = Hashtogram.create(epsilon, n_buckets * PAIRS, oracle_hashes, oracle_buckets, rng=rng)
    final = Hashtogram.create(epsilon, 2**bits, oracle_hashes, oracle_buckets, rng=rng)
    groups = _groups(values.size, len(edges) + 1, rng)
    heavy = np.zeros((n_buckets, len(edges), FIELD, FIELD), dtype=bool)  # heavy[y, e, c, c']
    every_record = records._hashes_of(np.arange(records.d))
    present, which = _distinct(values, bits, inverse=True)  # encode each value held once
    codewords, buckets = encode(present, bits), bucket_of(present, n_buckets, hash_seed) * PAIRS
    for e, (edge, members) in enumerate(zip(edges, groups)):
        mine = which[members]
        # the records the group's users report: h(x)·256 + 16·c_m(x) + c_m'(x) for the edge (m, m')
        held = buckets[mine] + codewords[mine, edge[0]] * FIELD + codewords[mine, edge[1]]
        sums = _survey(records, held, rng, per_user)
        threshold = _threshold(records, values.size, members.size, z)
        heavy[:, e] = _heavy(
            records, sums, every_record, values.size / members.size, threshold
        ).reshape(n_buckets, FIELD, FIELD)
    candidates = _list_recover(
        heavy, edges, bits, min_agreement, max_erasures, max_candidates, n_buckets, hash_seed
    )
    lengths = (length,) * len(edges)
    if candidates.size == 0:
        return HeavyHitters(candidates, np.empty(0), lengths)
    last = groups[-1]
    sums = _survey(final, values[last], rng, per_user)
    estimates = _median_estimate(final, sums, final._hashes_of(candidates)) * (
        values.size / last.size
    )
    order = np.argsort(-estimates, kind="stable")[:k]
    return HeavyHitters(candidates[order], estimates[order], lengths)


def _heavy(oracle: Hashtogram, sums, hashes, scale: float, threshold: float) -> np.ndarray:
    """Whether scale·(median estimate) > threshold, per column of ``hashes``.

    For odd R without the median: x ↦ c_ε·R·x·scale is monotone in floats (positive factors), so the
    median passes exactly when at least R//2 + 1 of the R cells pass."""
    if oracle.n_hashes % 2 == 0:
        return _median_estimate(oracle, sums, hashes) * scale > threshold
    passing = oracle.c_epsilon * oracle.n_hashes * _cells(sums, hashes) * scale > threshold
    return np.count_nonzero(passing, axis=0) > oracle.n_hashes // 2


def _cells(sums, hashes) -> np.ndarray:
    """sums[r, hashes[r]] for every repetition r: shape (R, values)."""
    return sums.reshape(-1)[sums.shape[1] * np.arange(sums.shape[0])[:, None] + hashes]


def _median_estimate(oracle: Hashtogram, sums, hashes) -> np.ndarray:
    """Hashtogram's median estimate c_ε·R·median_r ŝ_r(h_r(x)) for the values with hash columns ``hashes``.

    The median, as the paper's, keeps a value that shares one repetition's bucket with a heavy hitter
    from inheriting its count (the mean would add f/R).
    """
    cells = _cells(sums, hashes)
    half = oracle.n_hashes // 2  # np.median(cells, axis=0), bit for bit, by one partition
    if oracle.n_hashes % 2:
        median = np.partition(cells, half, axis=0)[half]
    else:
        middle = np.partition(cells, (half - 1, half), axis=0)
        median = (middle[half - 1] + middle[half]) / 2
    return oracle.c_epsilon * oracle.n_hashes * median


def _threshold(oracle: Hashtogram, n: int, n_group: int, z: float) -> float:
    """n/T + z·σ: an empty record's mean (a bucket's share, idealized hash) plus z standard deviations of the
    median estimate scaled to n users, σ ≈ √(π/2)·c_ε·n/√n_group (the median of R normal repetitions)."""
    return n / oracle.n_buckets + z * math.sqrt(math.pi / 2) * oracle.c_epsilon * n / math.sqrt(
        n_group
    )


def _survey(oracle: Hashtogram, inputs, rng, per_user: bool) -> np.ndarray:
    """One group's Hashtogram sums (R × T) over its users' inputs: the clients, or the exact sampler on the inputs present."""
    if per_user:
        return oracle.aggregate(oracle.perturb(inputs, rng=rng))
    present, counts = np.unique(inputs, return_counts=True)
    hashes = oracle._hashes_of(present)
    return oracle._sample_sums(counts[None, :], hashes, np.ones_like(hashes), rng)[0]


def _list_recover(
    heavy, edges, bits, min_agreement, max_erasures, max_candidates, n_buckets, hash_seed
) -> np.ndarray:
    """Every value decoded from some bucket's cluster (the module docstring's list recovery), sorted.

    The clusters of one shape (list sizes per information position) enumerate their candidate
    messages together; candidates are encoded and scored in batches of about :data:`_BATCH` rows.
    """
    information, length = code_length(bits)
    bucket, counts, ranked = _clusters(heavy, edges, length)
    counts, ranked = counts[:, :information], ranked[:, :information]
    erased = counts == 0
    ranked[erased] = np.arange(FIELD)  # a position without symbols takes all 16
    usable = np.flatnonzero(erased.sum(axis=1) <= max_erasures)
    sizes = _prune(np.where(erased, FIELD, counts)[usable], max_candidates)
    shapes, shape_of = np.unique(sizes, axis=0, return_inverse=True)
    decode = functools.partial(_decoded, heavy, edges, bits, min_agreement, n_buckets, hash_seed)
    found, batch, rows = [], [], 0
    for s, shape in enumerate(shapes):
        product = np.indices(shape).reshape(information, -1).T  # (P, M₀): the lists' product
        clusters = usable[shape_of.ravel() == s]
        step = max(1, _BATCH // len(product))
        for chunk in np.array_split(clusters, range(step, clusters.size, step)):
            message = ranked[chunk[:, None, None], np.arange(information), product[None]]
            batch.append((np.repeat(bucket[chunk], len(product)), message.reshape(-1, information)))
            rows += len(batch[-1][0])
            if rows >= _BATCH:
                found.append(decode(batch))
                batch, rows = [], 0
    found.append(decode(batch))
    return np.unique(np.concatenate(found)).astype(np.int64)


def _decoded(heavy, edges, bits, min_agreement, n_buckets, hash_seed, batch) -> np.ndarray:
    """The values of a batch of (buckets y, candidate messages N × M₀) whose codeword carries at least
    ``min_agreement`` of the graph's edges as heavy pairs of its bucket, and which hash to it."""
    if not batch:
        return np.empty(0, dtype=np.int64)
    information, length = code_length(bits)
    y = np.concatenate([b for b, _ in batch])
    message = np.concatenate([m for _, m in batch])
    codewords = _encode_nibbles(message.T, information, length)  # uint8, position-major
    table, first = heavy.reshape(-1), y.astype(np.int32) * (len(edges) * PAIRS)  # heavy[y, 0]
    agreement = np.zeros(y.size, dtype=np.uint8)  # edges carrying the codeword's pair (E < 256)
    for e, (m, m_other) in enumerate(edges.tolist()):
        pair = codewords[m] * np.uint8(FIELD) + codewords[m_other]  # c·16 + c' < 256
        agreement += table[first + (pair + np.int32(e * PAIRS))]
    keep = agreement / len(edges) >= min_agreement
    if not np.any(keep):
        return np.empty(0, dtype=np.int64)
    decoded, y = decode_message(message[keep].astype(np.int64), bits), y[keep]
    inside = decoded < 2**bits
    decoded, y = decoded[inside], y[inside]
    return decoded[bucket_of(decoded, n_buckets, hash_seed) == y]


def _prune(sizes: np.ndarray, max_candidates: int) -> np.ndarray:
    """Per cluster the sizes of its symbol lists: the longest list (the first of the longest) loses its
    least-connected symbol until the product of the sizes is at most ``max_candidates`` (a heavy
    hitter's vertex touches all its edges)."""
    sizes = sizes.copy()
    over = np.flatnonzero(np.prod(sizes, axis=1) > max_candidates)
    while over.size:
        sizes[over, np.argmax(sizes[over], axis=1)] -= 1
        over = over[np.prod(sizes[over], axis=1) > max_candidates]
    return sizes


def _clusters(heavy, edges, length: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Connected components of each bucket's vertices (m, symbol) under its heavy pairs ``heavy[y, e, c, c']``
    (one graph holds every bucket, vertex y·M·16 + m·16 + symbol: no edge joins two buckets).

    Per cluster: its bucket (C,), the number of its symbols at each position (C × M), and those
    symbols best-connected first (C × M × 16; a vertex's degree: how many heavy pairs touch it).
    """
    y, e, c, c_other = np.nonzero(heavy)
    if y.size == 0:
        return (
            np.empty(0, dtype=np.int64),
            np.empty((0, length), dtype=np.int64),
            np.empty((0, length, FIELD), dtype=np.uint8),
        )
    size = length * FIELD
    left, right = y * size + edges[e, 0] * FIELD + c, y * size + edges[e, 1] * FIELD + c_other
    vertices, ends = np.unique(np.concatenate([left, right]), return_inverse=True)
    graph = coo_matrix(
        (np.ones(y.size), (ends[: y.size], ends[y.size :])), shape=(vertices.size, vertices.size)
    )
    n_clusters, label = connected_components(graph, directed=False)
    degree = np.bincount(ends, minlength=vertices.size)
    position, symbol = vertices % size // FIELD, vertices % FIELD
    order = np.lexsort((symbol, -degree, position, label))
    label, position, symbol = label[order], position[order], symbol[order]
    group = label * length + position  # sorted
    rank = np.arange(group.size) - np.searchsorted(group, group)
    counts = np.bincount(group, minlength=n_clusters * length).reshape(n_clusters, length)
    ranked = np.zeros((n_clusters, length, FIELD), dtype=np.uint8)
    ranked[label, position, rank] = symbol
    bucket = np.zeros(n_clusters, dtype=np.int64)
    bucket[label] = vertices[order] // size
    return bucket, counts, ranked
