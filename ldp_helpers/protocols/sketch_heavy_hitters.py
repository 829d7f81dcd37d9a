"""Heavy hitters from sketches: Apple's SFP search, and the worst-case error that compares every protocol.

:func:`sfp` runs :class:`~ldp_helpers.protocols.sfp.SequenceFragmentPuzzle` end to end: each
position's most frequent fragment records, the records that share a puzzle hash assembled into
candidate words, the word sketch ranking them.  The survey is drawn by the mechanism's exact sampler
over the values present (never a per-user loop), or by the per-user clients (``per_user=True``).

:func:`linf_error` is the error Bun, Nelson and Stemmer bound: max_x |f̂(x) − f(x)| with f̂ = 0 for a
value not returned, so a missed heavy hitter costs its whole count.

References
----------
[apple2017] (SFP); [bun2018] (the worst-case error of a heavy-hitters protocol).
"""

from __future__ import annotations

import itertools

import numpy as np

from ldp_helpers._validation import (
    Described,
    as_array,
    check_bool,
    check_int,
    check_int_array,
    check_real_array,
    check_total,
    fail,
)
from ldp_helpers.protocols.heavy_hitters import HeavyHitters, _check, _distinct
from ldp_helpers.protocols.sfp import SequenceFragmentPuzzle


def sfp(
    values,
    bits: int,
    epsilon: float,
    k: int,
    *,
    fragment_bits: int = 4,
    sketch_rows: int = 64,
    sketch_width: int = 1024,
    puzzle_bits: int = 8,
    fragments_kept: int | None = None,
    max_candidates: int = 4096,
    rng: np.random.Generator,
    per_user: bool = False,
) -> HeavyHitters:
    """Apple's SFP: the top ``fragments_kept`` records per position, assembled by puzzle hash, ranked by the word sketch.

    ``fragments_kept`` defaults to 4k (pure-ldp keeps k); the HCMS defaults (k = 64 rows of width m = 1024, ours)
    keep a record that shares a cell with the top word's record in one row from outranking the k-th heavy hitter.  A candidate word must hash to its puzzle
    value (the server knows h); at most ``max_candidates`` candidates are ranked (a refusal names it
    if the puzzles would assemble more).  The k best candidates are returned with their word-sketch
    estimates.

    References
    ----------
    [apple2017] (SFP: fragments at every position, the puzzle hash that links them, the word sketch).
    """
    values, bits, epsilon, rng = _check(values, bits, epsilon, rng)
    k = check_int("k", k, low=1, high=2**bits)
    kept = check_int(
        "fragments_kept", 4 * k if fragments_kept is None else fragments_kept, low=1, high=2**16
    )
    max_candidates = check_int("max_candidates", max_candidates, low=1, high=2**20)
    per_user = check_bool("per_user", per_user)
    fragment_bits = check_int("fragment_bits", fragment_bits, low=1, high=max(bits - 1, 1))
    if bits % fragment_bits or fragment_bits == bits:
        fail("fragment_bits", fragment_bits, f"a divisor of bits = {bits} smaller than it")
    sketch_rows = check_int("sketch_rows", sketch_rows, low=1, high=2**16)
    sketch_width = check_int("sketch_width", sketch_width, low=2, high=2**14)
    if sketch_width & (sketch_width - 1):
        fail("sketch_width", sketch_width, "a power of two (HCMS's Hadamard matrix)")
    puzzle_bits = check_int("puzzle_bits", puzzle_bits, low=0, high=16)
    mechanism = SequenceFragmentPuzzle.create(
        epsilon, bits, fragment_bits, sketch_rows, sketch_width, puzzle_bits=puzzle_bits, rng=rng
    )
    if per_user:
        sketches = mechanism.aggregate(mechanism.perturb(values, rng=rng))
    else:
        present, counts = _distinct(values, bits)
        sketches = mechanism._sample(present, counts[None, :], rng)[0]
    return _search(mechanism, sketches, values.size, k, kept, max_candidates)[0]


def _search(
    mechanism: SequenceFragmentPuzzle, sketches, n: int, k: int, kept: int, max_candidates: int
):
    """The server's search on the G + 1 sketches of n users: (the k best, every candidate word assembled)."""
    fragment, word = mechanism.fragment_sketch, mechanism.word_sketch
    lists = []  # per position: puzzle value -> fragments kept
    for l in range(mechanism.n_positions):
        score = fragment._query(sketches[l], fragment.hash_table(), 0)
        top = np.argsort(-score, kind="stable")[:kept]  # the records kept, a record's id its index
        found: dict[int, list[int]] = {}
        for record in top.tolist():
            puzzle, piece = divmod(record, 2**mechanism.fragment_bits)
            found.setdefault(puzzle, []).append(piece)
        lists.append(found)
    candidates = _assemble(mechanism, lists, max_candidates)
    lengths = (mechanism.fragment_bits,) * mechanism.n_positions
    if candidates.size == 0:
        return HeavyHitters(candidates, np.empty(0), lengths), candidates
    estimates = word._query(sketches[-1], word._hashes_of(candidates), n)
    order = np.argsort(-estimates, kind="stable")[:k]
    return HeavyHitters(candidates[order], estimates[order], lengths), candidates


def _assemble(
    mechanism: SequenceFragmentPuzzle, lists: list[dict], max_candidates: int
) -> np.ndarray:
    """Every word whose fragments were all kept under one puzzle value t, and which hashes to t."""
    shifts = mechanism.bits - mechanism.fragment_bits * (np.arange(mechanism.n_positions) + 1)
    words = []
    for puzzle in sorted(set.intersection(*(set(found) for found in lists))):
        pieces = [found[puzzle] for found in lists]
        size = int(np.prod([len(p) for p in pieces]))
        if len(words) + size > max_candidates:
            fail(
                "max_candidates",
                max_candidates,
                f"at least {len(words) + size} (the puzzles assemble that many words)",
            )
        combos = np.array(list(itertools.product(*pieces)), dtype=np.int64).reshape(
            -1, mechanism.n_positions
        )
        assembled = (combos << shifts[None, :]).sum(axis=1)
        words.extend(assembled[mechanism.puzzle_hash(assembled) == puzzle].tolist())
    return np.array(sorted(set(words)), dtype=np.int64)


def linf_error(found, estimates, values, *, counts=None) -> float:
    """max_x |f̂(x) − f(x)| / n over the users' ``values``, f̂(x) = the estimate of a returned value, 0 otherwise.

    A value returned but held by nobody counts |f̂(x)|; a heavy hitter missed counts its whole f(x).
    With ``counts``, ``values`` are the distinct values held (increasing, as ``np.unique`` returns
    them) and ``counts`` the users holding each: a population counted once serves every protocol.

    References
    ----------
    [bun2018] (the worst-case error of a heavy-hitters protocol).
    """
    if counts is None:
        held, counts = np.unique(check_int_array("values", values, low=0), return_counts=True)
    else:
        held = check_int_array("values", values, low=0).ravel()
        counts = check_int_array("counts", counts, low=1, shape=np.shape(values)).ravel()
        check_total("counts", counts)  # the population's size stays exact in int64
        if np.any(np.diff(held) <= 0):
            fail(
                "values", Described("values not increasing"), "distinct values in increasing order"
            )
    found = as_array("found", found, "an array of non-negative integers")
    found = (
        check_int_array("found", found, low=0).ravel()
        if found.size
        else np.empty(0, dtype=np.int64)
    )
    estimates = as_array("estimates", estimates, "an array of real numbers")
    estimates = check_real_array("estimates", estimates).ravel() if estimates.size else np.empty(0)
    if estimates.size != found.size or np.unique(found).size != found.size:
        fail(
            "estimates",
            Described(f"{estimates.size} estimates for {found.size} distinct values of found"),
            "one estimate per value of found (its values distinct)",
        )
    truth = np.zeros(found.size)
    where = np.searchsorted(held, found)
    hit = (where < held.size) & (held[np.minimum(where, held.size - 1)] == found)
    truth[hit] = counts[where[hit]]
    missed = np.isin(held, found, invert=True)
    worst_missed = float(counts[missed].max()) if missed.any() else 0.0
    worst_found = float(np.max(np.abs(estimates - truth))) if found.size else 0.0
    return max(worst_missed, worst_found) / int(counts.sum())
