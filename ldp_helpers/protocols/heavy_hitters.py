"""Heavy hitters over a domain of ``bits``-bit values: PEM, TreeHist and Bitstogram over OLH.

All three split the users into disjoint groups; a user reports ONCE, with OLH at ε, something about
her value (a prefix, or a hashed bucket and one bit), so one user's whole report — (her group, her
OLH report) — is ε-LDP (tests/report_tables.py builds that table exactly for the tests).  The
server never enumerates the 2^bits domain: it scores only candidates.

**PEM** ([wang2021pem]): group j reports the first L_j bits, L_1 = ⌈log₂ k⌉ + η, L_{j+1} = L_j + η,
the last L = bits; round j scores the 2^η extensions of the k best prefixes of round j − 1 and keeps
the k best.  **TreeHist** ([bassily2017]): one level per bit of a binary prefix tree (from
``start_bits``); a prefix survives when its estimate exceeds ``z`` standard deviations of an empty
prefix's estimate (the paper's threshold is of that order; the number kept is capped at
``max_candidates``), then a last group estimates the surviving leaves' counts.  **Bitstogram**
([bassily2017]): a public hash sends values to T buckets; group j (one per bit) reports
(bucket, bit j) as one of 2T symbols; each bucket's heavy value is read off bit by bit
(ĉ(t, 1) > ĉ(t, 0)), and a last group estimates the k best reconstructed values.  Bun, Nelson and
Stemmer's PrivateExpanderSketch ([bun2018]) replaces Bitstogram's bit-by-bit reading with a
list-recoverable code over an expander graph: :mod:`ldp_helpers.protocols.expander_sketch`, with a
code, graph and decoder of our choosing (:mod:`ldp_helpers.protocols.expander_code`).

Simulation: the users are split into groups by :func:`split_counts` — the exact law of each group's
users per value under a uniformly random split (multivariate hypergeometric), drawn from the counts
of the distinct values, never user by user — and each group's OLH support counts of the scored
candidates are drawn as ``Bin(f_c, p) + Bin(n_j − f_c, q)``: OLH's exact marginal law with an
idealized hash, the one documented idealization of
:class:`~ldp_helpers.mechanisms.local_hashing.OLH`'s sampler.  The per-user path
(``per_user=True``) permutes the users and runs the real clients instead (tests compare the two).

References
----------
[wang2021pem] (PEM); [bassily2017] (TreeHist; Bitstogram); [bun2018]; [tutorial] "Heavy Hitter Identification".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_allocation,
    check_bool,
    check_domain_values,
    check_epsilon,
    check_int,
    check_int_array,
    check_real,
    check_rng,
    check_total,
    fail,
)
from ldp_helpers.mechanisms.local_hashing import HASH_PRIME, OLH, universal_hash
from ldp_helpers.mechanisms.pure import unbiased_count

MAX_BITS = 30
_BYTES_PER_CANDIDATE = 48  # a scored candidate's arrays in one round: value, true count, support, estimate, order, kept


@dataclass(frozen=True)
class HeavyHitters:
    """Identified values (best first), their estimated counts (all n users) and the prefix lengths used."""

    values: np.ndarray
    estimates: np.ndarray
    lengths: tuple


def _check(values, bits, epsilon, rng):
    bits = check_int("bits", bits, low=1, high=MAX_BITS)
    values = check_domain_values("values", values, 2**bits).ravel()
    return values, bits, check_epsilon(epsilon), check_rng(rng)


def _groups(n: int, n_groups: int, rng) -> list[np.ndarray]:
    _group_sizes(n, n_groups)  # refuses fewer users than groups
    return np.array_split(rng.permutation(n), n_groups)


def split_counts(counts, sizes, *, rng: np.random.Generator) -> np.ndarray:
    """Users per value in each group when the users behind ``counts`` are split uniformly at random into
    groups of ``sizes``: shape (len(sizes), len(counts)), each row summing to its size.

    The first half of the groups holds a uniform random subset of the users, whose counts are
    multivariate hypergeometric; each half is split again the same way (exact; the law of a random
    permutation cut into consecutive groups, as the per-user path does).

    References
    ----------
    [wang2021pem], [bassily2017] (users split uniformly at random into disjoint groups).
    """
    counts = check_int_array("counts", counts, low=0).ravel()
    sizes = check_int_array("sizes", sizes, low=0).ravel()
    if sizes.size == 0 or sizes.sum() != counts.sum():
        fail(
            "sizes",
            Described(f"group sizes summing to {int(sizes.sum())}"),
            f"at least one group size, summing to the {int(counts.sum())} users of counts",
        )
    check_allocation(
        "sizes", sizes.size, sizes.size * counts.size, what="users per value in each group"
    )
    rng = check_rng(rng)

    out = np.zeros((sizes.size, counts.size), dtype=np.int64)
    _split_into(out, 0, sizes, np.arange(counts.size), counts, rng)
    return out


def _split_into(out, first_group, sizes, columns, counts, rng) -> None:
    """Write into rows first_group… of ``out`` (at ``columns``) the split of ``counts`` over ``sizes``:
    the first half of the groups draws its users per value, then each half is split the same way."""
    held = np.flatnonzero(counts)  # a value no user holds stays empty in every group
    columns, counts = columns[held], counts[held]
    if sizes.size == 1:
        out[first_group, columns] = counts
        return
    half = sizes.size // 2
    first = rng.multivariate_hypergeometric(counts, int(sizes[:half].sum()))
    _split_into(out, first_group, sizes[:half], columns, first, rng)
    _split_into(out, first_group + half, sizes[half:], columns, counts - first, rng)


def _group_sizes(n: int, n_groups: int) -> np.ndarray:
    """The sizes of :func:`_groups`' groups (numpy's array_split of n users)."""
    if n < n_groups:
        fail("values", Described(f"{n} users"), f"at least one user per group ({n_groups} groups)")
    return np.full(n_groups, n // n_groups) + (np.arange(n_groups) < n % n_groups)


def _split_users(
    values: np.ndarray, bits: int, n_groups: int, rng, per_user: bool
) -> tuple[list, np.ndarray]:
    """The groups and their sizes: per user, each group's values (a permutation cut in groups); else the
    distinct values (sorted) and each group's users per value, drawn by :func:`split_counts`."""
    sizes = _group_sizes(values.size, n_groups)
    if per_user:
        return [values[m] for m in _groups(values.size, n_groups, rng)], sizes
    distinct, counts = _distinct(values, bits)
    return [(distinct, row) for row in split_counts(counts, sizes, rng=rng)], sizes


def _distinct(values: np.ndarray, bits: int, *, inverse: bool = False):
    """``np.unique(values, return_counts=True)`` of checked ``bits``-bit values, or with
    ``inverse`` ``np.unique(values, return_inverse=True)``: a table over a small domain, else
    the sort (and a search for the inverse)."""
    if 2**bits <= 4 * values.size + 2**16:
        held = np.bincount(values, minlength=2**bits)
        distinct = np.flatnonzero(held)
        return (
            (distinct, (np.cumsum(held > 0) - 1)[values]) if inverse else (distinct, held[distinct])
        )
    if inverse:
        distinct = np.unique(values)
        return distinct, np.searchsorted(distinct, values)
    return np.unique(values, return_counts=True)


def _check_candidates(name: str, value, n_candidates: int, how: str) -> None:
    """Refuse, before scoring, a round with more candidates than MAX_BYTES can hold."""
    check_allocation(
        name,
        value,
        n_candidates,
        itemsize=_BYTES_PER_CANDIDATE,
        what=f"{how} = {n_candidates:,} candidates in one round",
    )


def _estimate(olh: OLH, support, n_group: int, n_all: int) -> np.ndarray:
    """The group's unbiased counts scaled to all n users (each group is a 1/g sample of them)."""
    return unbiased_count(support, n_group, olh.p, olh.q) * (n_all / n_group)


class _Survey(NamedTuple):
    """One run's users: ε of every report, the values' bits, their number n, the Generator, and ``per_user``
    (simulate each user's report, else draw the counts)."""

    epsilon: float
    bits: int
    n: int
    rng: np.random.Generator
    per_user: bool

    def oracle(self, length: int) -> OLH:
        """OLH over the length-bit prefixes: the oracle of a level of the prefix tree."""
        return OLH(self.epsilon, max(2**length, 2))

    def estimates(self, length: int, group, size: int, candidates) -> np.ndarray:
        """A group of :func:`_split_users` (``size`` users) estimates the ``candidates`` (length-bit
        prefixes), scaled to all n users: the OLH support counts of its users' reports, or drawn."""
        olh, shift = self.oracle(length), self.bits - length
        if self.per_user:
            support = olh.aggregate(
                olh.perturb(group >> shift, rng=self.rng), candidates=candidates
            )
        else:
            distinct, users = group
            prefixes = distinct >> shift  # sorted, as the distinct values are
            below = np.concatenate([[0], np.cumsum(users)])
            f = (
                below[np.searchsorted(prefixes, candidates, side="right")]
                - below[np.searchsorted(prefixes, candidates)]
            )
            support = olh._draw_support(f, int(below[-1]), rng=self.rng)
        return _estimate(olh, support, size, self.n)


def pem_lengths(bits: int, k: int, eta: int) -> list[int]:
    """PEM's prefix lengths: ⌈log₂ k⌉ + η, then + η each round, the last one ``bits``.

    References
    ----------
    [wang2021pem] (the segment lengths).
    """
    bits, k = check_int("bits", bits, low=1, high=MAX_BITS), check_int("k", k, low=1)
    # a round extends the prefixes by at most the domain's bits
    eta = check_int("eta", eta, low=1, high=bits)
    start = min(math.ceil(math.log2(k)) + eta, bits)
    return list(range(start, bits, eta)) + [bits]


def pem(
    values,
    bits: int,
    epsilon: float,
    k: int,
    *,
    eta: int = 2,
    rng: np.random.Generator,
    per_user: bool = False,
) -> HeavyHitters:
    """PEM over OLH: extend the k best prefixes by η bits per group; the last group's top k are the heavy hitters.

    References
    ----------
    [wang2021pem].
    """
    values, bits, epsilon, rng = _check(values, bits, epsilon, rng)
    lengths = pem_lengths(bits, check_int("k", k, low=1, high=2**bits), eta)
    per_user = check_bool("per_user", per_user)
    _check_candidates(
        "eta", eta, max(2 ** lengths[0], k * 2**eta), f"with k = {k}, max(2^L_1, k·2^eta)"
    )
    groups, sizes = _split_users(values, bits, len(lengths), rng, per_user)
    survey = _Survey(epsilon, bits, values.size, rng, per_user)
    candidates, previous = np.arange(2 ** lengths[0]), lengths[0]
    for j, (length, group, size) in enumerate(zip(lengths, groups, sizes)):
        if j:
            step = length - previous
            candidates = (candidates[:, None] * 2**step + np.arange(2**step)).ravel()
        est = survey.estimates(length, group, size, candidates)
        keep = np.argsort(-est, kind="stable")[:k]
        candidates, estimates, previous = candidates[keep], est[keep], length
    return HeavyHitters(candidates, estimates, tuple(lengths))


def treehist(
    values,
    bits: int,
    epsilon: float,
    *,
    start_bits: int = 1,
    z: float = 3.0,
    max_candidates: int = 64,
    rng: np.random.Generator,
    per_user: bool = False,
) -> HeavyHitters:
    """TreeHist over OLH: one group per level of the binary prefix tree, threshold pruning, a last estimation group.

    References
    ----------
    [bassily2017] (TreeHist: prefix tree, pruning by a noise threshold, final frequency oracle).
    """
    values, bits, epsilon, rng = _check(values, bits, epsilon, rng)
    start_bits = check_int("start_bits", start_bits, low=1, high=bits)
    z, max_candidates = (
        check_real("z", z, low=0.0, low_open=False),
        check_int("max_candidates", max_candidates, low=1),
    )
    per_user = check_bool("per_user", per_user)
    _check_candidates(
        "start_bits",
        start_bits,
        max(2**start_bits, 2 * min(max_candidates, 2**bits)),
        "max(2^start_bits, 2·max_candidates)",
    )
    lengths = list(range(start_bits, bits + 1))
    groups, sizes = _split_users(values, bits, len(lengths) + 1, rng, per_user)
    survey = _Survey(epsilon, bits, values.size, rng, per_user)
    candidates = np.arange(2**start_bits)
    for j, (length, group, size) in enumerate(zip(lengths, groups, sizes)):
        if j:
            candidates = (candidates[:, None] * 2 + np.arange(2)).ravel()
        est = survey.estimates(length, group, size, candidates)
        sd_empty = math.sqrt(survey.oracle(length).approx_variance(size)) * values.size / size
        order = np.argsort(-est, kind="stable")
        keep = order[est[order] > z * sd_empty][:max_candidates]
        candidates = candidates[keep]
        if candidates.size == 0:
            return HeavyHitters(candidates, np.empty(0), tuple(lengths))
    est = survey.estimates(bits, groups[-1], sizes[-1], candidates)
    order = np.argsort(-est, kind="stable")
    return HeavyHitters(candidates[order], est[order], tuple(lengths))


def bucket_of(values, n_buckets: int, seed: int = 1) -> np.ndarray:
    """The public hash of Bitstogram: ((a·x + b) mod P) mod T with (a, b) drawn from ``seed``.

    References
    ----------
    [bassily2017] (a public hash into T buckets).
    """
    n_buckets = check_int("n_buckets", n_buckets, low=1, high=HASH_PRIME - 1)
    a, b = np.random.default_rng(check_int("seed", seed, low=0)).integers(1, HASH_PRIME, size=2)
    return universal_hash(a, b, np.asarray(values, dtype=np.int64), n_buckets)


def bitstogram(
    values,
    bits: int,
    epsilon: float,
    k: int,
    *,
    n_buckets: int | None = None,
    rng: np.random.Generator,
    hash_seed: int = 1,
    per_user: bool = False,
) -> HeavyHitters:
    """Bitstogram over OLH: (bucket, bit j) reports per bit group, bit-by-bit reading per bucket, a last estimation group.

    ``n_buckets`` defaults to 16k: two of the k heavy hitters then share a bucket with probability about
    k/32 (a shared bucket loses one of them; Bassily et al. repeat the hashing to recover it, we do not).

    References
    ----------
    [bassily2017] (Bitstogram).
    """
    values, bits, epsilon, rng = _check(values, bits, epsilon, rng)
    k = check_int("k", k, low=1, high=2**bits)
    T = check_int("n_buckets", 16 * k if n_buckets is None else n_buckets, low=1, high=2**24)
    per_user = check_bool("per_user", per_user)
    check_allocation(
        "n_buckets", T, (bits + 4) * 2 * T, what="a bit reading and two counts per (bucket, bit)"
    )
    groups, sizes = _split_users(values, bits, bits + 1, rng, per_user)
    survey = _Survey(epsilon, bits, values.size, rng, per_user)
    hash_seed = check_int("hash_seed", hash_seed, low=0)
    olh = OLH(epsilon, max(2 * T, 2))  # symbols 2t + bit: (bucket t, bit j)
    reading = np.zeros((bits, T), dtype=np.int64)
    weight = np.zeros(T)
    for j, (group, size) in enumerate(zip(groups[:bits], sizes)):
        held = group if per_user else group[0]  # the users' values, or the distinct values
        coded = 2 * bucket_of(held, T, hash_seed) + ((held >> (bits - 1 - j)) & 1)
        if per_user:
            support = olh.aggregate(olh.perturb(coded, rng=rng))
        else:
            support = olh._draw_support(
                np.bincount(coded, weights=group[1], minlength=olh.d).astype(np.int64),
                size,
                rng=rng,
            )
        est = _estimate(olh, support, size, values.size)
        reading[j] = est[1::2] > est[0::2]
        weight += est[0::2] + est[1::2]
    recovered = (reading * (2 ** np.arange(bits - 1, -1, -1))[:, None]).sum(axis=0)
    candidates = np.unique(recovered[np.argsort(-weight, kind="stable")[: 2 * k]])
    est = survey.estimates(bits, groups[-1], sizes[-1], candidates)
    order = np.argsort(-est, kind="stable")[:k]
    return HeavyHitters(candidates[order], est[order], tuple([bits] * bits))


def recall(found, true_counts, k: int) -> float:
    """|found ∩ true top-k| / k.

    References
    ----------
    [wang2021pem] (recall of the top k).
    """
    top, k = _true_top_k(true_counts, k)
    return len(set(top.tolist()) & set(np.asarray(found).ravel().tolist())) / k


def _true_top_k(true_counts, k: int) -> tuple[np.ndarray, int]:
    """The k values of largest true count, largest first (ties by value), and k: checked."""
    truth = check_int_array("true_counts", true_counts, low=0).ravel()
    check_total("true_counts", truth)  # the counts' total must not wrap int64
    k = check_int("k", k, low=1, high=truth.size)
    return np.argsort(-truth, kind="stable")[:k], k
