"""Hadamard Response (HR) of Acharya, Sun and Zhang: one output symbol of ⌈log2 K⌉ bits, an O(n + K log K) decoder.

Construction (the general scheme, every ε).  The output alphabet [K] is cut into B blocks of b
symbols, K = B·b, with

    B = 2^⌊log2 min(e^ε, 2d)⌋   (at most e^ε blocks; B = 1 for ε < ln 2),
    b = the smallest power of 2 with B(b − 1) ≥ d   (b > d/B).

Input x sits in block β(x) = ⌊x/(b − 1)⌋ at row r(x) = (x mod (b − 1)) + 1 of H_b (row 0, all +1,
is never used), and its set C_x = {β b + y : H_b[r(x), y] = +1} holds b/2 symbols.  The client reports

    Pr[y | x] = 2e^ε/(b E)  for y ∈ C_x,   2/(b E)  otherwise,   E = e^ε + 2B − 1,

so Pr[y ∈ C_x] = e^ε/E and every ratio is 1 or e^ε: exactly ε-LDP (the K-column table is checked).
Equivalently (the exact sampler uses it) the report is uniform on [K] with probability 2B/E, else
uniform on C_x.

Server.  With N_β the reports in block β and C(x) those in C_x, 2C(x) − N_β = (H_b h_β)[r(x)] for the
block's histogram h_β, so one Walsh–Hadamard transform per block gives every

    ĉ(x) = E/(e^ε − 1) · (2C(x) − N_β(x)),

unbiased: a report of x adds (e^ε − 1)/E in expectation, one of another value of its block or of
another block adds 0.  Its exact variance (users independent, each adding −1, 0 or +1):

    Var[ĉ(x)] = E/(e^ε − 1)² · ((e^ε + 1) n_β(x) + 2 (n − n_β(x))) − f_x,

n_β(x) the users whose value lies in x's block.  With B = 1 HR is a pure protocol with p* = e^ε/(e^ε+1),
q* = 1/2 (BLH's), as for ε < ln 2.

Notes for notebook 07: the construction above is the one of the authors' code (``Hadamard_Rand_general``
in their ``k2k_hadamard.py``, which pure-ldp 1.2.0 vendors); pure-ldp uses B = 1 for every ε ≤ 1, where
this rule gives B = 2 for ε ∈ [ln 2, 1], and permutes the inputs at random (a relabelling: same
ε, same law up to which values share a block).  ``n_blocks`` fixes B to compare with it.

References
----------
[acharya2019] (HR in the high-privacy regime, and its general-ε form with blocks of Hadamard matrices).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ldp_helpers._numeric import majority_probability
from ldp_helpers._validation import (
    Described,
    check_count_array,
    check_domain_values,
    check_epsilon,
    check_int,
    check_ndim,
    check_trailing_shape,
    fail,
)
from ldp_helpers.mechanisms.base import FrequencyOracle, batch_shape
from ldp_helpers.mechanisms.hadamard import (
    _uniform_on_sign_sets,
    hadamard_entries,
    walsh_hadamard_transform,
)

MAX_TABLE_CELLS = 2**23  # largest d·K for output_table


def hr_blocks(epsilon: float, d: int) -> int:
    """B = 2^⌊log2 min(e^ε, 2d)⌋: the number of blocks of Hadamard Response at budget ε over d values.

    References
    ----------
    [acharya2019] (the general-ε construction; the authors' code computes the same B).
    """
    epsilon, d = check_epsilon(epsilon), check_int("d", d, low=2)
    # e^ε is not formed beyond 2d: no overflow
    return 1 << math.floor(math.log2(2 * d if epsilon >= math.log(2 * d) else math.exp(epsilon)))


@dataclass(frozen=True)
class HadamardResponse(FrequencyOracle):
    """Hadamard Response over [0, d) with budget ε; ``n_blocks`` = 0 takes B from :func:`hr_blocks`.

    ``n_blocks`` (a power of 2 up to 2d) fixes B instead, e.g. B = 1 for pure-ldp's ε ≤ 1 regime.
    Derived once: ``B``, the block size ``b``, the output size ``K = B·b``.  A report is one symbol of
    [K]; the aggregate is the histogram of the K symbols; the estimate the d unbiased counts.

    References
    ----------
    [acharya2019].
    """

    n_blocks: int = 0  # B; 0: the paper's rule (hr_blocks)
    B: int = field(init=False)  # blocks
    b: int = field(init=False)  # symbols per block (a power of 2)
    K: int = field(init=False)  # output alphabet size B·b

    def __post_init__(self):
        super().__post_init__()
        blocks = check_int("n_blocks", self.n_blocks, low=0, high=2 * self.d)
        if blocks & (blocks - 1):
            fail(
                "n_blocks",
                blocks,
                f"0 (the paper's rule) or a power of 2 in [1, 2d = {2 * self.d}]",
            )
        if self.epsilon > 700.0:
            fail(
                "epsilon", self.epsilon, "at most 700 for Hadamard Response (e^ε must stay finite)"
            )
        B = blocks or hr_blocks(self.epsilon, self.d)
        b = 1 << (-(-self.d // B)).bit_length()  # smallest power of 2 above ⌈d/B⌉: B(b − 1) ≥ d
        object.__setattr__(self, "B", B)
        object.__setattr__(self, "b", b)
        object.__setattr__(self, "K", B * b)
        if not math.exp(self.epsilon) / self._e < 1.0:  # the client would never leave C_x: loss ∞
            fail(
                "epsilon",
                self.epsilon,
                f"small enough that e^ε/(e^ε + 2B − 1) < 1 in double precision (B = {B}: ε below "
                f"about {math.log((2 * B - 1) * 2.0**54):.4g})",
            )

    # ------------------------------------------------------------------ the channel
    @property
    def report_bits(self) -> int:
        """Bits sent per report: one symbol of [K], ⌈log2 K⌉ (≤ log2 d + 2)."""
        return (self.K - 1).bit_length()

    @property
    def _e(self) -> float:
        """E = e^ε + 2B − 1, the normalizer of the channel."""
        return math.exp(self.epsilon) + 2 * self.B - 1

    @cached_property
    def _layout(self) -> tuple[np.ndarray, np.ndarray]:
        """(β(x), r(x)) = (⌊x/(b − 1)⌋, (x mod (b − 1)) + 1) for every x < d: its block and its row of H_b."""
        values = np.arange(self.d)
        return values // (self.b - 1), values % (self.b - 1) + 1

    def output_table(self) -> np.ndarray:
        """``P[x, y]`` over the K symbols: 2e^ε/(bE) on C_x, 2/(bE) elsewhere (d·K ≤ 2^23)."""
        if self.d * self.K > MAX_TABLE_CELLS:
            self._refuse_table("d", "d·K", MAX_TABLE_CELLS, f" (K = {self.K})")
        blocks, rows = self._layout
        y = np.arange(self.K)
        inside = (y[None] // self.b == blocks[:, None]) & (
            hadamard_entries(rows[:, None], y[None] % self.b) == 1
        )
        return np.where(inside, math.exp(self.epsilon), 1.0) * (2.0 / (self.b * self._e))

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference client: y ∈ C_x with probability e^ε/E (uniform there), else uniform on [K] ∖ C_x.

        Uniform on C_x: a uniform y of the block, moved to y ⊕ ℓ when H_b[r, y] = −1, ℓ the lowest set
        bit of r (flipping that bit flips the sign, a bijection of the two halves); the complement is
        the other K − b symbols or the b/2 symbols of the block with H_b[r, y] = −1, in proportion.

        Returns
        -------
        numpy.ndarray of int64
            One symbol of [K] per user.

        References
        ----------
        [acharya2019] (the channel Q(y | x)).
        """
        values, rng = self._client_inputs(values, rng)
        blocks, rows = self._layout[0][values], self._layout[1][values]
        # y ∈ C_x w.p. e^ε/E; C_x left w.p. at least (2B − 1)/E as realized
        inside = majority_probability(math.exp(self.epsilon) / self._e, (2 * self.B - 1) / self._e)
        in_set = rng.random(blocks.size) < inside
        outside_block = ~in_set & (
            rng.random(blocks.size) < (self.K - self.b) / (self.K - self.b / 2)
        )
        y = rng.integers(0, self.b, size=blocks.size)
        wanted = np.where(in_set, 1, -1)  # the sign H_b[r, y] the report needs inside its block
        y = np.where(hadamard_entries(rows, y) == wanted, y, y ^ (rows & -rows))
        # a symbol of another block (if B > 1)
        other = rng.integers(0, max(self.K - self.b, 1), size=blocks.size)
        other += self.b * (other >= blocks * self.b)
        return np.where(outside_block, other, blocks * self.b + y)

    def aggregate(self, reports) -> np.ndarray:
        """The histogram of the reported symbols (length K)."""
        reports = check_domain_values(
            "reports", check_ndim("reports", reports, 1, what="of symbols"), self.K
        )
        return np.bincount(reports, minlength=self.K)

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler of the K-symbol histogram (cost O(d + K log b), independent of n).

        Each of the f_x users of x is uniform on C_x with probability (e^ε − 1)/E, else uniform on
        [K] (a uniform block, then uniform in it); the block histograms are drawn by
        :func:`~ldp_helpers.mechanisms.hadamard._uniform_on_sign_sets`.  With ``n_draws`` the result
        has shape (n_draws, K).
        """
        counts, n, rng, shape = self._sampler_inputs(truth, rng, n_draws, (self.B, self.b, 2))
        on_set = rng.binomial(  # (e^ε − 1)/E, its complement at least 2B/E as numpy realizes it
            counts,
            majority_probability(math.expm1(self.epsilon) / self._e, 2 * self.B / self._e),
            size=shape[:-3] + (self.d,),
        )
        # a uniform report's block: 1/B each
        uniform = rng.multinomial(n - on_set.sum(axis=-1), np.full(self.B, 1.0 / self.B))
        table = np.zeros(shape, dtype=np.int64)
        blocks, rows = self._layout
        table[..., blocks, rows, 0] = on_set
        table[..., :, 0, 0] = uniform
        return _uniform_on_sign_sets(table, rng).reshape(batch_shape(n_draws, (self.K,)))

    def estimate(self, aggregate, n) -> np.ndarray:
        """ĉ(x) = E/(e^ε − 1)·(2C(x) − N_β(x)) from the histogram (shape (K,) or (n_draws, K)).

        References
        ----------
        [acharya2019] (the estimator, computed by the fast Walsh–Hadamard transform per block).
        """
        n = check_int("n", n, low=1)
        hist = check_count_array(
            "aggregate", check_trailing_shape("aggregate", aggregate, (self.K,)), self.K, high=n
        )
        total = hist.sum(axis=-1, dtype=np.float64)  # n reports name n symbols (float: no wrap)
        if np.any(total > n * (1 + 1e-9)):
            fail(
                "aggregate",
                Described(f"a histogram of {np.max(total):.6g} symbols"),
                f"a histogram of the n = {n} reports' symbols (summing to n)",
            )
        transform = walsh_hadamard_transform(hist.reshape(*hist.shape[:-1], self.B, self.b))
        blocks, rows = self._layout
        return (1.0 + 2 * self.B / math.expm1(self.epsilon)) * transform[..., blocks, rows]

    def variance(self, truth) -> np.ndarray:
        """Exact Var[ĉ(x)] = E/(e^ε − 1)²·((e^ε + 1) n_β + 2(n − n_β)) − f_x (module docstring)."""
        counts, n = self._counts_and_n(truth)
        blocks = self._layout[0]
        in_block = np.bincount(blocks, weights=counts, minlength=self.B)[blocks]
        # E/(e^ε − 1) = 1 + 2B/(e^ε − 1), (e^ε + 1)/(e^ε − 1) = 1 + 2/(e^ε − 1): no overflow
        gap = math.expm1(self.epsilon)
        return (1 + 2 * self.B / gap) * (
            (1 + 2 / gap) * in_block + 2 / gap * (n - in_block)
        ) - counts
