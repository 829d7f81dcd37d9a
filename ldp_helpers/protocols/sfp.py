"""Apple's sequence fragment puzzle (SFP): heavy hitters of a huge domain from HCMS reports of fragments.

A value is a word of ``bits`` bits read as G = bits / fragment_bits fragments (Apple: a word of up
to 10 characters read as 2-character fragments).  Client: pick a fragment position l uniformly,
form the record r = (h(w), w[l]) — an 8-bit public hash of the whole word (``puzzle_bits``) and
the l-th fragment — and send (l, HCMS_{ε_f}(r), HCMS_{ε_w}(w)): both the fragment record and the
whole word, each through the Hadamard count-mean sketch.  The whole report is
(ε_f + ε_w)-LDP (l is independent of the word); Apple privatizes both parts with HCMS, how ε is
split is a parameter here (``fragment_share``, default ½: pure-ldp's split), so ``epsilon`` is
the budget of the whole report, checked exactly from the output table.

Server: for each position the most frequent fragment records; the records that share a puzzle
hash h(w) across all G positions are pieces of one puzzle; their fragments are assembled
(every combination) into candidate words, which the word sketch ranks.

As a mechanism: the aggregate is the G fragment sketches and the word sketch, shape (G + 1, k, m);
the estimate is the word counts (2^bits) followed by every position's fragment-record counts
(G × 2^(puzzle_bits + fragment_bits)), each position's estimate scaled by G with the known mean
n/G users in the debiasing (our choice: it needs only n, and Var = (m/(m−1))²·(G n c² − Σ_v f_v S²)).

References
----------
[apple2017] (the sequence fragment puzzle; Algorithms 4–5, the HCMS it privatizes with).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from ldp_helpers._validation import (
    MIN_EPSILON,
    check_aggregate,
    check_domain_values,
    check_instance,
    check_int,
    check_int_array,
    check_real,
    check_rng,
    check_true_counts,
    fail,
    fail_shape,
)
from ldp_helpers.mechanisms.base import Mechanism, batch_shape
from ldp_helpers.mechanisms.hadamard_sketch import MAX_EPSILON, HadamardCountMeanSketch, HcmsReports
from ldp_helpers.mechanisms.local_hashing import HASH_PRIME, universal_hash
from ldp_helpers.mechanisms.registry import RegistryEntry
from ldp_helpers.protocols.heavy_hitters import MAX_BITS

MAX_TABLE_CELLS = 2**24  # largest d × (whole reports) for output_table
#: record domains up to this size are hashed once per sketch (a table), larger ones record by record
#: unless a survey holds as many records (the same hashes either way)
HASH_TABLE_RECORDS = 2**20


class SfpReports(NamedTuple):
    """One SFP report per user: the fragment position l (n,), the HCMS report of the fragment record and of the word.

    References
    ----------
    [apple2017] (SFP: the client sends (l, the privatized record, the privatized word)).
    """

    positions: np.ndarray
    fragments: HcmsReports
    words: HcmsReports


@dataclass(frozen=True)
class SequenceFragmentPuzzle(Mechanism):
    """SFP over ``bits``-bit values: G = bits/fragment_bits positions, one k × m HCMS design for records and words.

    Build it with :meth:`create`.  ``epsilon`` is the whole report's budget, ``fragment_share`` of
    it for the fragment record, the rest for the word (``fragment_share`` in (0, 1) with both budgets
    fragment_share·ε and (1 − fragment_share)·ε at least 1e-12).  The puzzle hash is
    h(w) = ((a w + b) mod P) mod 2^puzzle_bits.

    References
    ----------
    [apple2017] (sequence fragment puzzle).
    """

    epsilon: float  # the whole report's budget ε = ε_f + ε_w
    bits: int  # a value (word) has this many bits
    fragment_bits: int  # bits per fragment; G = bits / fragment_bits positions
    k: int  # HCMS hash functions (both sketches)
    m: int  # HCMS width, a power of two (both sketches)
    hash_a: tuple = field(repr=False)
    hash_b: tuple = field(repr=False)
    # the puzzle hash h(w) = ((a w + b) mod P) mod 2^puzzle_bits
    puzzle_a: int = field(default=1, repr=False)
    puzzle_b: int = field(default=0, repr=False)
    puzzle_bits: int = 8  # Apple: an 8-bit hash of the word
    fragment_share: float = 0.5  # ε_f / ε

    unbiased = False

    def __post_init__(self):
        check_int("bits", self.bits, low=2, high=MAX_BITS)
        check_int("fragment_bits", self.fragment_bits, low=1, high=self.bits - 1)
        if self.bits % self.fragment_bits:
            fail(
                "fragment_bits",
                self.fragment_bits,
                f"a divisor of bits = {self.bits} smaller than it",
            )
        check_int("puzzle_bits", self.puzzle_bits, low=0, high=16)
        check_int("puzzle_a", self.puzzle_a, low=1, high=HASH_PRIME - 1)
        check_int("puzzle_b", self.puzzle_b, low=0, high=HASH_PRIME - 1)
        share = check_real("fragment_share", self.fragment_share, low=0.0, high=1.0)
        # ε checked once, here: each part's HCMS takes its share of ε up to MAX_EPSILON, so the ceiling
        # is named for the ε passed
        eps = check_real(
            "epsilon", self.epsilon, low=0.0, high=MAX_EPSILON / max(share, 1.0 - share)
        )
        # each part needs at least MIN_EPSILON: with ε ≥ 2·MIN_EPSILON a share in
        # [MIN_EPSILON/ε, 1 − MIN_EPSILON/ε] gives it, so a share outside is refused by its own name
        if eps < 2 * MIN_EPSILON:
            fail(
                "epsilon",
                eps,
                f"at least {2 * MIN_EPSILON:g} (each of its two parts needs {MIN_EPSILON:g})",
            )
        if min(share * eps, (1 - share) * eps) < MIN_EPSILON:
            fail(
                "fragment_share",
                share,
                f"in about [{MIN_EPSILON / eps:.3g}, 1 − {MIN_EPSILON / eps:.3g}] at epsilon={eps!r}, so that"
                f" both split budgets fragment_share·epsilon and (1 − fragment_share)·epsilon are"
                f" at least {MIN_EPSILON:g}",
            )
        self._sketches  # noqa: B018 - builds (and so validates) both HCMS designs now

    @classmethod
    def create(
        cls,
        epsilon: float,
        bits: int,
        fragment_bits: int,
        k: int,
        m: int,
        *,
        puzzle_bits: int = 8,
        fragment_share: float = 0.5,
        rng: np.random.Generator,
    ) -> SequenceFragmentPuzzle:
        """An SFP whose k HCMS hashes and puzzle hash are drawn from ``rng``."""
        rng = check_rng(rng)
        k = check_int("k", k, low=1, high=2**16)
        a, b = rng.integers(1, HASH_PRIME, size=k + 1), rng.integers(0, HASH_PRIME, size=k + 1)
        return cls(
            epsilon,
            bits,
            fragment_bits,
            k,
            m,
            tuple(a[:k].tolist()),
            tuple(b[:k].tolist()),
            int(a[k]),
            int(b[k]),
            puzzle_bits,
            fragment_share,
        )

    @cached_property
    def _sketches(self) -> tuple[HadamardCountMeanSketch, HadamardCountMeanSketch]:
        share = self.fragment_share
        parts = (2 ** (self.puzzle_bits + self.fragment_bits), 2**self.bits)
        return tuple(
            HadamardCountMeanSketch(e, d, self.k, self.m, self.hash_a, self.hash_b)
            for e, d in zip((share * self.epsilon, (1 - share) * self.epsilon), parts)
        )

    @property
    def fragment_sketch(self) -> HadamardCountMeanSketch:
        """The HCMS of the fragment records (h(w), w[l]) at ε_f = fragment_share·ε."""
        return self._sketches[0]

    @property
    def word_sketch(self) -> HadamardCountMeanSketch:
        """The HCMS of the whole words at ε_w = (1 − fragment_share)·ε."""
        return self._sketches[1]

    @property
    def n_positions(self) -> int:
        """G = bits / fragment_bits fragment positions."""
        return self.bits // self.fragment_bits

    @property
    def tight(self) -> bool:
        """Whether the loss is exactly ε: the hashes separate some two words, and some two words' records.

        Then some pair of words is separated by both (if w₁ is separated from w₀ only by its word
        hashes and w₂ only by its records, w₁ and w₂ are separated by both), which attains ε_f + ε_w.
        """
        words = np.arange(2**self.bits)
        signature = np.concatenate(
            [self.fragment_sketch._hashes_of(r) for r in self.records(words)]
        )
        return (
            np.unique(self.word_sketch.hash_table(), axis=1).shape[1] > 1
            and np.unique(signature, axis=1).shape[1] > 1
        )

    def puzzle_hash(self, values) -> np.ndarray:
        """h(w) = ((a w + b) mod P) mod 2^puzzle_bits."""
        values = check_domain_values("values", values, 2**self.bits)
        return universal_hash(self.puzzle_a, self.puzzle_b, values, 2**self.puzzle_bits)

    def records(self, values) -> np.ndarray:
        """r_l(w) = h(w)·2^fragment_bits + w[l] for every position l (rows), w[0] the most significant fragment."""
        values = check_domain_values("values", values, 2**self.bits).ravel()
        shifts = self.bits - self.fragment_bits * (np.arange(self.n_positions) + 1)
        fragments = (values[None, :] >> shifts[:, None]) & (2**self.fragment_bits - 1)
        return self.puzzle_hash(values)[None, :] * 2**self.fragment_bits + fragments

    # ------------------------------------------------------------------ truth
    def _counts_and_n(self, truth):
        return check_true_counts(truth, 2**self.bits)

    def expand(self, truth) -> np.ndarray:
        """The users' words: value w repeated f_w times."""
        counts, _ = self._counts_and_n(truth)
        return np.repeat(np.arange(2**self.bits), counts)

    def _record_counts(self, counts) -> np.ndarray:
        """How many users hold each record at each position, shape (G, 2^(puzzle_bits + fragment_bits))."""
        size = self.fragment_sketch.d
        return np.stack(
            [
                np.bincount(r, weights=counts, minlength=size)
                for r in self.records(np.arange(counts.size))
            ]
        )

    def estimand(self, truth) -> np.ndarray:
        """The word counts, then every position's fragment-record counts (flattened)."""
        counts, _ = self._counts_and_n(truth)
        return np.concatenate([counts.astype(float), self._record_counts(counts).ravel()])

    # ------------------------------------------------------------------ client and server
    def perturb(self, values, *, rng: np.random.Generator) -> SfpReports:
        """Per-user reference client: position l, the record (h(w), w[l]) and the word, each through HCMS.

        References
        ----------
        [apple2017] (SFP client; HCMS, Algorithm 4).
        """
        values = check_domain_values("values", values, 2**self.bits).ravel()
        rng = check_rng(rng)
        positions = rng.integers(0, self.n_positions, size=values.size)
        record = self.records(values)[positions, np.arange(values.size)]
        return SfpReports(
            positions,
            self.fragment_sketch.perturb(record, rng=rng),
            self.word_sketch.perturb(values, rng=rng),
        )

    def aggregate(self, reports: SfpReports) -> np.ndarray:
        """The G fragment sketches (position l's reports) and the word sketch, shape (G + 1, k, m)."""
        positions, fragments, words = check_instance("reports", reports, SfpReports)
        positions = check_int_array(
            "reports.positions", positions, low=0, high=self.n_positions - 1
        )
        check_instance("reports.fragments", fragments, HcmsReports)
        word_sketch = self.word_sketch.aggregate(
            check_instance("reports.words", words, HcmsReports)
        )
        if positions.ndim != 1 or {np.shape(part) for part in fragments} != {positions.shape}:
            fail_shape("reports.positions", positions.shape, "one position per fragment report")
        sketches = np.zeros((self.n_positions + 1, self.k, self.m))
        for l in np.unique(positions):
            mine = positions == l
            sketches[l] = self.fragment_sketch.aggregate(
                HcmsReports(*(part[mine] for part in fragments))
            )
        sketches[-1] = word_sketch
        return sketches

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler: positions split each word's users multinomially; each position's records and the words go
        through the HCMS sampler.  Shape (G + 1, k, m) or (n_draws, G + 1, k, m)."""
        counts, _ = self._counts_and_n(truth)
        rng = check_rng(rng)
        shape = batch_shape(n_draws, (self.n_positions + 1, self.k, self.m))
        draws = 1 if n_draws is None else shape[0]
        present = np.flatnonzero(counts)
        sketches = self._sample(
            present, np.broadcast_to(counts[present], (draws, present.size)), rng
        )
        return sketches.reshape(shape)

    def _sample(self, values, counts, rng) -> np.ndarray:
        """(draws, G + 1, k, m) sketches of surveys whose users hold ``values`` with ``counts`` (draws × s)."""
        fragment, word = self._sketches
        # (draw, s, l)
        per_position = rng.multinomial(counts, np.full(self.n_positions, 1.0 / self.n_positions))
        records = list(self.records(values))
        if fragment.d <= max(HASH_TABLE_RECORDS, sum(r.size for r in records)):
            hashes = [fragment.hash_table()[:, r] for r in records]  # computed once per sketch
        else:  # few users in a large record domain: hash only their records
            hashes = [fragment._hashes_of(r) for r in records]
        out = [
            fragment._transform(fragment._sample_signed(per_position[:, :, l], hashes[l], rng))
            for l in range(len(records))
        ]
        out.append(word._transform(word._sample_signed(counts, word._hashes_of(values), rng)))
        return np.stack(out, axis=1)

    def estimate(self, aggregate, n) -> np.ndarray:
        """Word estimates (Algorithm 3 on the word sketch), then G·f̂_l(r) − (m/(m−1))·n/m per position l and record r."""
        n = check_int("n", n, low=1)
        fragment, word = self._sketches
        # each holds ≤ n reports
        high = (1 + 1e-9) * max(sketch._sketch_range(n)[1] for sketch in self._sketches)
        sketches = check_aggregate(
            aggregate,
            (self.n_positions + 1, self.k, self.m),
            low=-high,
            high=high,
            integral=False,
            what=f"what n = {n} reports can sum to",
        )
        words = word._query(sketches[..., -1, :, :], word.hash_table(), n)
        scale = self.m / (self.m - 1)
        parts = [
            self.n_positions * fragment._query(sketches[..., l, :, :], fragment.hash_table(), 0)
            - scale * n / self.m
            for l in range(self.n_positions)
        ]
        return np.concatenate([words, *parts], axis=-1)

    def expected_estimate(self, truth) -> np.ndarray:
        """Exact mean: the word sketch's, and m/(m−1)·(Σ_v f_v S[r_l(v), r] − n/m) per position and record."""
        counts, n = self._counts_and_n(truth)
        rates = self.fragment_sketch.collision_rates()
        fragments = self.m / (self.m - 1) * (self._record_counts(counts) @ rates - n / self.m)
        return np.concatenate([self.word_sketch.expected_estimate(counts), fragments.ravel()])

    def variance(self, truth) -> np.ndarray:
        """Exact variance: the word sketch's, and (m/(m−1))²·(G n c_f² − Σ_v f_v S[r_l(v), r]²) per position and record."""
        counts, n = self._counts_and_n(truth)
        rates = self.fragment_sketch.collision_rates()
        spread = rates * (1 - rates)  # each cell's flip variance
        c = self.fragment_sketch.c_epsilon
        fragments = (self.m / (self.m - 1)) ** 2 * (
            self.n_positions * n * c**2 - self._record_counts(counts) @ (rates - spread)
        )
        return np.concatenate([self.word_sketch.variance(counts), fragments.ravel()])

    def output_table(self) -> np.ndarray:
        """P[w, (l, fragment report, word report)] = (1/G)·P_f[r_l(w), ·]·P_w[w, ·] (small settings only)."""
        fragment, word = self._sketches
        size = 2**self.bits * self.n_positions * (2 * self.k * self.m) ** 2
        if size > MAX_TABLE_CELLS:
            fail(
                "bits",
                self.bits,
                f"such that 2^bits·G·(2km)² <= {MAX_TABLE_CELLS} for output_table",
            )
        f_table, w_table = fragment.output_table(), word.output_table()
        records = self.records(np.arange(2**self.bits))
        parts = [
            (f_table[records[l]][:, :, None] * w_table[:, None, :]).reshape(2**self.bits, -1)
            for l in range(self.n_positions)
        ]
        return np.concatenate(parts, axis=1) / self.n_positions


def _example() -> SequenceFragmentPuzzle:
    """4-bit words of two 2-bit fragments, a 1-bit puzzle hash, HCMS with k = 2, m = 4 (a 16 × 512 table)."""
    return SequenceFragmentPuzzle.create(
        1.5, 4, 2, 2, 4, puzzle_bits=1, rng=np.random.default_rng(20261122)
    )


#: the protocol registry's entry (ldp_helpers.protocols.registry collects ENTRIES)
ENTRIES = [
    RegistryEntry(
        "sfp",
        "Sequence fragment puzzle (HCMS of a fragment and of the word)",
        "heavy hitters",
        "[apple2017] (SFP)",
        _example,
        lambda m: np.array([9, 0, 4, 0, 0, 12, 0, 0, 3, 0, 0, 7, 0, 0, 5, 0], dtype=np.int64),
    )
]
