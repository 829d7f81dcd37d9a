"""Local hashing: binary (BLH, g = 2) and optimal (OLH, g = round(e^ε) + 1).

A user with value v draws a hash function H: [d] → [g] from a family, hashes x = H(v) and
reports ⟨H, y⟩ where y is x perturbed by GRR over [g] (keep w.p. e^ε/(e^ε+g−1)).  The report
supports every value i with H(i) = y, so

    p* = e^ε/(e^ε+g−1),      q* = 1/g   (H(i) is uniform on [g] whatever y is).

Hash family: a **random function**, as in the analysis of Wang et al.  Each user draws a 62-bit seed
(a, b) (a ∈ [1, P), b ∈ [0, P), P = 2^31 − 1; the report is three integers (a, b, y)) and her
function is ``H(x) = SplitMix64_{x+1}(a·P + b) mod g``: the (x+1)-th output of the SplitMix64
generator seeded with her seed (:func:`hash_function`).  Its values at distinct x are independent
uniform draws of a pseudo-random generator, exactly as every other random draw of the simulation is,
so one law describes the client, the output table and the aggregate sampler:

* the whole-report table is over *all* g^d functions, each with probability g^{−d} (:meth:`output_table`);
* for a user whose value is not i, H(i) = y is Bernoulli(1/g) independently of everything else, so
  C_i ~ Binomial(f_i, p*) + Binomial(n − f_i, 1/g) independently across i (the aggregate sampler).

The tests check the client against both: a χ² test of its reports against the table and the
covariance of its estimates against the sampler's, at sizes where the universal family
((a·x + b) mod P) mod g that this module used before is rejected (its values at three points lie on
an arithmetic progression mod P, far from independent).  Apple's sketch and Bitstogram keep public
universal hashes (:func:`universal_hash`), whose exact tables they compute from the hashes themselves.
"""

from __future__ import annotations

import itertools
import math
import sys
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.optimize import minimize_scalar

from ldp_helpers._validation import (
    check_domain_values,
    check_epsilon,
    check_int,
    check_int_array,
    check_ndim,
    check_real,
    fail,
    fail_shape,
)
from ldp_helpers.mechanisms.base import PureFrequencyOracle
from ldp_helpers.mechanisms.grr import GRR, grr_probabilities
from ldp_helpers.mechanisms.randomized_response import q_bin_probabilities

HASH_PRIME = 2**31 - 1  # P, a Mersenne prime > any domain size used here
MAX_HASH_RANGE = 2**16  # largest g for the per-user path
MAX_TABLE_FUNCTIONS = 4096  # g^d limit for output_table's enumeration of all hash functions
_VALUES_PER_BLOCK = 64  # values scored per block in aggregate (bounds an n × block array)


def universal_hash(a, b, x, m):
    """``h_{a,b}(x) = ((a·x + b) mod P) mod m`` with P = :data:`HASH_PRIME`, elementwise (broadcast):
    the one universal hash of Apple's sketch, Hashtogram, Bitstogram's buckets and SFP's puzzle.

    ``a`` and ``b`` are integers in [0, P), ``x`` in [0, 2^32) (may be empty: 32-bit words) and ``m``
    in [1, P]; then ``a·x + b`` stays below 2^63 (no int64 overflow).

    References
    ----------
    [apple2017] Algorithm 1; [bassily2017] (a public hash into T buckets).
    """
    m = check_int("m", m, low=1, high=HASH_PRIME)
    a, b, x = (
        check_int_array(name, v, low=0, high=high) if np.size(v) else np.asarray(v, dtype=np.int64)
        for name, v, high in (
            ("a", a, HASH_PRIME - 1),
            ("b", b, HASH_PRIME - 1),
            ("x", x, 2**32 - 1),
        )
    )
    return ((a * x + b) % HASH_PRIME) % m


def _draw_coefficients(rng: np.random.Generator, rows: int, pairs: int = 1) -> tuple:
    """``pairs`` universal hashes' coefficients for ``rows`` rows, as tuples of ints: the
    multipliers a ∈ [1, P)^rows drawn first, then the offsets b ∈ [0, P)^rows:
    ``(a₁, …, a_pairs, b₁, …, b_pairs)``."""
    lows = (1,) * pairs + (0,) * pairs
    return tuple(tuple(rng.integers(low, HASH_PRIME, size=rows).tolist()) for low in lows)


class _PublicHashes:
    """The oracles hashing every value with k public hashes h_j (``hash_table()``: shape (k, d))."""

    @property
    def tight(self) -> bool:
        """Whether the whole-report loss equals ε: some hash h_j separates two values."""
        table = self.hash_table()
        return bool(np.any(table != table[:, :1]))


def _check_coefficients(name_a: str, a, name_b: str, b, rows: int) -> None:
    """Universal-hash coefficients: ``rows`` multipliers in [1, P), ``rows`` offsets in [0, P)."""
    check_int_array(name_a, a, low=1, high=HASH_PRIME - 1, shape=(rows,))
    check_int_array(name_b, b, low=0, high=HASH_PRIME - 1, shape=(rows,))


def _collision_counts(table: np.ndarray, signs: np.ndarray | None = None) -> np.ndarray:
    """C[v, x] = Σ_j 1[h_j(v) = h_j(x)]·s_j(v)·s_j(x) for a (k, d) hash table and optional ±1 signs (d × d).

    The integer numerator of every sketch's collision rates (S = C/k, a signed kernel K = C/k):
    accumulated in the narrowest integer type that holds ±k, one byte-wide d × d comparison per
    hash, so it costs a quarter of float accumulation's memory traffic and gives the same rates
    bit for bit (sums of ±1 are exact either way).
    """
    rows, d = table.shape
    count = np.zeros((d, d), dtype=np.min_scalar_type(-rows - 1))
    for j, row in enumerate(table):
        same = row[:, None] == row[None, :]
        if signs is None:
            count += same
            continue
        agree = same & (signs[j][:, None] == signs[j][None, :])
        count += agree  # +1 where the cells and the signs agree, −1 where only the cells do
        count += agree
        count -= same
    return count


_SPLITMIX_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_SPLITMIX_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_SPLITMIX_MUL2 = np.uint64(0x94D049BB133111EB)


def _hash_function(a, b, x, g: int) -> np.ndarray:
    """``H_{a,b}(x) = SplitMix64_{x+1}(a·P + b) mod g`` for validated int64 arrays (broadcast).

    SplitMix64 (Steele, Lea, Flood 2014): the k-th output of the generator seeded with s is
    ``mix(s + k·γ)`` with the finalizer ``mix`` below (arithmetic mod 2^64); the reduction mod g is
    uniform up to g/2^64.
    """
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(x))
    # arrays: mod-2^64 arithmetic
    a, b, x = (np.atleast_1d(np.asarray(v)).astype(np.uint64) for v in (a, b, x))
    z = a * np.uint64(HASH_PRIME) + b + (x + np.uint64(1)) * _SPLITMIX_GAMMA
    z = (z ^ (z >> np.uint64(30))) * _SPLITMIX_MUL1
    z = (z ^ (z >> np.uint64(27))) * _SPLITMIX_MUL2
    z ^= z >> np.uint64(31)
    return (z % np.uint64(g)).astype(np.int64).reshape(shape)


def olh_hash_range(epsilon: float) -> int:
    """OLH's optimal hash range g = round(e^ε) + 1 (ε ≤ 40, so that g < 2^58).

    References
    ----------
    [wang2017] §4.4; [tutorial] "Optimal Local Hashing (OLH)".
    """
    epsilon = check_real("epsilon", epsilon, low=0.0, high=40.0, high_open=False)
    return int(round(math.exp(epsilon))) + 1


def approx_variance_for_hash_range(epsilon: float, g: float) -> float:
    """Wang et al.'s approximate per-user variance q*(1−q*)/(p*−q*)² of local hashing with a *real* g > 1.

    p* = e^ε/(e^ε+g−1) = 1/w with w = 1 + (g−1)e^{−ε} (GRR's over a real-valued [g], as in
    :func:`~ldp_helpers.mechanisms.grr.grr_probabilities`, which takes integer domains only) and q* = 1/g
    give p* − q* = (g−1)(1 − e^{−ε})/(g w), so the variance is w²/((g−1)(1 − e^{−ε})²) ≈ g/(e^ε − 1)² for
    large g; minimized at g = e^ε + 1 (see :func:`continuous_optimal_hash_range`).  Computed in that form,
    in steps that neither under- nor overflow where the value is a double (within 1e-15 of mpmath: p* − q*
    itself loses every digit as g → 1 or ε → 0, and underflows beyond g ≈ 1e150); a g whose variance
    exceeds double precision (g above about 1.8e308·(e^ε − 1)², so only at ε below ln 2) is refused.

    References
    ----------
    [wang2017] §4.4 (the variance of OLH before rounding g).
    """
    epsilon, g = check_epsilon(epsilon), check_real("g", g, low=1.0)
    w = 1.0 + (g - 1.0) * math.exp(-epsilon)  # 1/p*
    m = -math.expm1(-epsilon)  # 1 − e^{−ε}
    variance = w / (g - 1.0) * w / m / m
    if not math.isfinite(variance):  # ≈ g/(e^ε − 1)² beyond 1e308
        fail(
            "g",
            g,
            f"a real in (1, {sys.float_info.max * math.expm1(min(epsilon, 300.0)) ** 2:.3g}] at "
            f"epsilon = {epsilon:g} (beyond it the variance, about g/(e^ε − 1)², exceeds double precision)",
        )
    return variance


def continuous_optimal_hash_range(epsilon: float) -> float:
    """The real g > 1 minimizing :func:`approx_variance_for_hash_range`, found numerically (≈ e^ε + 1).

    References
    ----------
    [wang2017] §4.4; [tutorial] "Optimal Local Hashing (OLH)".
    """
    epsilon = check_epsilon(epsilon)
    upper = 4.0 * math.exp(min(epsilon, 30.0)) + 4.0
    result = minimize_scalar(
        lambda g: approx_variance_for_hash_range(epsilon, g),
        bounds=(1.0 + 1e-9, upper),
        method="bounded",
        options={"xatol": 1e-10 * upper},
    )
    return float(result.x)


@dataclass(frozen=True)
class LocalHashing(PureFrequencyOracle):
    """Local hashing with hash range ``g`` (use :class:`BLH` or :class:`OLH` for the standard g).

    References
    ----------
    [wang2017] §4.4; [tutorial] "Binary Local Hashing".
    """

    g: int = 2  # hash range

    def __post_init__(self):
        object.__setattr__(self, "g", check_int("g", self.g, low=2))
        # domains up to P (the per-user path scores all d values)
        check_int("d", self.d, low=2, high=HASH_PRIME)
        super().__post_init__()

    def _support_probabilities(self) -> tuple[float, float]:
        return grr_probabilities(self.epsilon, self.g)[0], 1.0 / self.g

    @property
    def report_bits(self) -> int:
        """Bits sent per report (a, b, y): 2·⌈log2 P⌉ for the hash's seed plus ⌈log2 g⌉, whatever d ≤ P.

        A seed that tells d values' hashes apart needs at least log2 d bits, hence O(log d) in general.
        """
        return 2 * math.ceil(math.log2(HASH_PRIME)) + math.ceil(math.log2(self.g))

    def hash_values(self, a, b, x) -> np.ndarray:
        """H_{a,b}(x): the value at x of the random function seeded by (a, b) (the module docstring; broadcast)."""
        a = check_int_array("a", a, low=1, high=HASH_PRIME - 1)
        b = check_int_array("b", b, low=0, high=HASH_PRIME - 1)
        x = check_domain_values("x", x, self.d)
        try:
            a, b, x = np.broadcast_arrays(a, b, x)
        except ValueError:
            fail_shape("x", np.shape(x), f"an array broadcastable with a {a.shape} and b {b.shape}")
        return _hash_function(a, b, x, self.g)

    @cached_property
    def _grr(self) -> GRR:
        """GRR over the g hash values, which perturbs each user's hash."""
        return GRR(self.epsilon, self.g)

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference client: draw the seed (a, b) of a random function H, hash, GRR-perturb H(v) over [g].

        Returns
        -------
        numpy.ndarray of int64, shape (n, 3)
            One report (a, b, y) per user.

        References
        ----------
        [wang2017] §4.4.
        """
        values, rng = self._client_inputs(values, rng)
        if self.g > MAX_HASH_RANGE:
            fail(
                "g",
                self.g,
                f"at most {MAX_HASH_RANGE} for the per-user path (its GRR over [g] and the support scan "
                f"grow with g; epsilon={self.epsilon:g}); use sample_aggregate",
            )
        a = rng.integers(1, HASH_PRIME, size=values.size)
        b = rng.integers(0, HASH_PRIME, size=values.size)
        y = self._grr.perturb(_hash_function(a, b, values, self.g), rng=rng)
        return np.column_stack([a, b, y])

    def aggregate(self, reports, *, candidates=None) -> np.ndarray:
        """C(i) = #{reports (a, b, y) with h_{a,b}(i) = y}, for every i (O(n·d) work).

        ``candidates`` (values in [0, d)) restricts the count to those values, in that order:
        how a heavy-hitter search scores a few prefixes of a huge domain.

        References
        ----------
        [wang2017] §4.4 (Support(⟨H, y⟩) = {i : H(i) = y}).
        """
        reports = check_int_array(
            "reports", check_ndim("reports", reports, 2, last=3, what="of (a, b, y) rows")
        )
        a, b, y = reports[:, 0:1], reports[:, 1:2], reports[:, 2:3]
        check_int_array("reports[:, 0] (a)", a, low=1, high=HASH_PRIME - 1)
        check_int_array("reports[:, 1] (b)", b, low=0, high=HASH_PRIME - 1)
        check_int_array("reports[:, 2] (y)", y, low=0, high=self.g - 1)
        scored = (
            np.arange(self.d)
            if candidates is None
            else check_domain_values("candidates", candidates, self.d).ravel()
        )
        counts = np.empty(scored.size, dtype=np.int64)
        for start in range(0, scored.size, _VALUES_PER_BLOCK):
            block = slice(start, start + _VALUES_PER_BLOCK)
            counts[block] = (_hash_function(a, b, scored[None, block], self.g) == y).sum(axis=0)
        return counts

    def output_table(self) -> np.ndarray:
        """Whole-report table over the idealized family of *all* g^d functions (small d, g only).

        Column (H, y) has probability ``g^{−d} · GRR_g(H(v) → y)``; its privacy loss is ε.
        """
        n_functions = self.g**self.d
        if n_functions > MAX_TABLE_FUNCTIONS:
            self._refuse_table(
                "d",
                "g**d",
                MAX_TABLE_FUNCTIONS,
                f" (g = {self.g}; every hash function is enumerated)",
            )
        # row: H(0..d−1)
        functions = np.array(list(itertools.product(range(self.g), repeat=self.d)))
        # row v: GRR's rows at H(v), over every function H
        return self._grr.output_table()[functions.T].reshape(self.d, -1) / n_functions


@dataclass(frozen=True)
class BLH(LocalHashing):
    """Binary local hashing: g = 2, p* = e^ε/(e^ε+1), q* = 1/2.

    References
    ----------
    [wang2017] §4.4; [tutorial] "Binary Local Hashing".
    """

    def __post_init__(self):
        check_int("g", self.g, low=2, high=2)  # BLH's range; use LocalHashing for others
        super().__post_init__()

    def _support_probabilities(self) -> tuple[float, float]:
        return q_bin_probabilities(self.epsilon)[0], 0.5  # GRR over [2] is Q_Bin


@dataclass(frozen=True)
class OLH(LocalHashing):
    """Optimal local hashing: g = round(e^ε) + 1 unless given.

    References
    ----------
    [wang2017] §4.4; [tutorial] "Optimal Local Hashing (OLH)".
    """

    g: int | None = None  # None: use olh_hash_range(epsilon)

    def __post_init__(self):
        if self.g is None:
            object.__setattr__(self, "g", olh_hash_range(self.epsilon))
        super().__post_init__()
