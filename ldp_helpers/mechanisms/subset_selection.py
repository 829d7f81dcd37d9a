"""Subset Selection (SS, the k-subset mechanism): report k values of [0, d), the own value favoured by e^ε.

Client.  A user with value x reports a k-subset Y of [d] with

    Pr[Y | x] = e^ε / Z  if x ∈ Y,   1 / Z  otherwise,   Z = C(d−1, k−1) e^ε + C(d−1, k),

i.e. x ∈ Y with probability p* = k e^ε/(k e^ε + d − k), the other k − 1 (or k) members uniform among
the d − 1 other values.  Every ratio is 1 or e^ε: exactly ε-LDP (the C(d, k)-column table is
checked).  A report supports each of its k values: a pure protocol with that p* and

    q* = k((k − 1) e^ε + d − k) / ((d − 1)(k e^ε + d − k)),

so the estimator and exact variance are the pure ones.  k = 1 is GRR; k ≈ d/(e^ε + 1) is optimal
(Ye and Barg; Wang et al.): :func:`optimal_subset_size` takes the k ∈ [1, d − 1] with the smallest
exact total variance Σ_i Var[ĉ(i)] = n (p*(1−p*) + (d−1) q*(1−q*))/(p*−q*)², which does not depend
on the population (our criterion; multi-freq-ldpy rounds d/(e^ε + 1) to the nearest integer).

Exact aggregate sampler.  The row of x is a mixture: with probability
β = k(e^ε − 1)/(k e^ε + d − k) "x plus a uniform (k−1)-subset of the d − 1 others" (V), else a
uniform k-subset of all of [d] (U) — check: a set Y ∌ x gets (1 − β)/C(d, k) = 1/Z.  The server's
counts C(i) = #{users with i ∈ Y} are then drawn value by value, i = 0, 1, …, d − 1, as a
sequential uniform subset draw: a user still needing r members from m remaining candidates takes
the next one with probability r/m.  U users and V users whose own value is behind have the
remaining values {i, …, d − 1} as candidates; V users whose own value is ahead have the same set
minus their own value (one fewer), and, being exchangeable, the K_i of them with value i are a
multivariate-hypergeometric draw of that group when i is reached (they then count at i and join the
first group).  Histograms over r keep the cost O(d k) whatever n (numpy's hypergeometric needs
n < 10^9).

References
----------
[wang2016ss] (the k-subset mechanism); [ye2018] (the optimal k ≈ d/(e^ε + 1)); [wang2017] §3 (pure
protocols: estimator and variance).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_domain_values,
    check_epsilon,
    check_int,
    check_ndim,
    check_rng,
    fail,
)
from ldp_helpers.mechanisms.base import PureFrequencyOracle, batch_shape
from ldp_helpers.mechanisms.grr import grr_probabilities
from ldp_helpers.mechanisms.pure import count_variance

MAX_TABLE_CELLS = 2**22  # largest d·C(d, k) for output_table
MAX_SAMPLER_USERS = 10**9 - 1  # numpy's hypergeometric draws need fewer users
_CELLS_PER_BLOCK = 2**22  # users × d keys per block of the per-user client
#: columns between two exact recomputations of the window of held r (a cost knob only)
_TRIM_EVERY = 16


def subset_probabilities(epsilon: float, d: int, k: int) -> tuple[float, float]:
    """(p*, q*) of the k-subset mechanism over d values (written with e^{−ε}: no overflow).

    References
    ----------
    [wang2016ss] (the k-subset mechanism); [ye2018].
    """
    epsilon, d = check_epsilon(epsilon), check_int("d", d, low=2)
    k = check_int("k", k, low=1, high=d - 1)
    if k == 1:  # GRR, to the last bit (the explorer's rankings then see a tie, not rounding noise)
        return grr_probabilities(epsilon, d)
    shrink = math.exp(-epsilon)
    denominator = k + (d - k) * shrink  # (k e^ε + d − k) e^{−ε}
    return k / denominator, k * ((k - 1) + (d - k) * shrink) / ((d - 1) * denominator)


#: C(d, k) is computed exactly only below this many bits (the exact big integer costs seconds at d = 10⁶)
EXACT_COMB_BITS = 4096


def _log2_comb(d: int, k: int) -> float:
    """log2 C(d, k) from log-gamma, without the big integer (relative error ~1e-15)."""
    return (math.lgamma(d + 1) - math.lgamma(k + 1) - math.lgamma(d - k + 1)) / math.log(2)


def optimal_subset_size(epsilon: float, d: int) -> int:
    """The k ∈ [1, d − 1] with the smallest exact total variance n(p*(1−p*) + (d−1)q*(1−q*))/(p*−q*)².

    The search covers the integers within 2 of d/(e^ε + 1) (a test checks the whole range on a grid).

    References
    ----------
    [ye2018] (k ≈ d/(e^ε + 1)); [wang2016ss].
    """
    epsilon, d = check_epsilon(epsilon), check_int("d", d, low=2)
    centre = d / (math.exp(min(epsilon, 700.0)) + 1)
    candidates = sorted(
        {min(max(k, 1), d - 1) for k in range(math.floor(centre) - 2, math.ceil(centre) + 3)}
    )
    return min(candidates, key=lambda k: _total_variance(epsilon, d, k))


def _total_variance(epsilon: float, d: int, k: int) -> float:
    p, q = subset_probabilities(epsilon, d, k)
    return float(count_variance(1, 1, p, q) + (d - 1) * count_variance(0, 1, p, q))


@dataclass(frozen=True)
class SubsetSelection(PureFrequencyOracle):
    """The k-subset mechanism over [0, d); ``subset_size`` = 0 takes k from :func:`optimal_subset_size`.

    Derived once: ``k`` (the subset size used), p* and q*.  A report is the sorted k-subset (one row
    of k values); the aggregate the d support counts; the estimate the pure protocols' ĉ(i).

    References
    ----------
    [wang2016ss]; [ye2018].
    """

    subset_size: int = 0  # k; 0: optimal_subset_size(epsilon, d)
    k: int = field(init=False)

    def __post_init__(self):
        epsilon, d = check_epsilon(self.epsilon), check_int("d", self.d, low=2)
        size = check_int("subset_size", self.subset_size, low=0, high=d - 1)
        object.__setattr__(self, "k", size or optimal_subset_size(epsilon, d))
        super().__post_init__()

    def _support_probabilities(self) -> tuple[float, float]:
        return subset_probabilities(self.epsilon, self.d, self.k)

    @property
    def report_bits(self) -> int:
        """Bits sent per report: ⌈log2 C(d, k)⌉, the index of the subset in a fixed enumeration.

        Exact (the big integer C(d, k)) up to EXACT_COMB_BITS bits; beyond, ⌈log2 C(d, k)⌉ from log-gamma, which
        misses the exact ceiling only if log2 C(d, k) lies within ~1e-15·log2 C(d, k) of an integer.
        """
        bits = _log2_comb(self.d, self.k)
        return (
            (math.comb(self.d, self.k) - 1).bit_length()
            if bits < EXACT_COMB_BITS
            else math.ceil(bits)
        )

    def output_table(self) -> np.ndarray:
        """``P[x, Y]`` over the C(d, k) subsets in lexicographic order (d·C(d, k) ≤ 2^22)."""
        # the ceiling is checked in log space first: C(d, k) itself takes minutes at d = 10¹²
        if (
            math.log2(self.d) + _log2_comb(self.d, self.k) > math.log2(MAX_TABLE_CELLS) + 1
            or self.d * math.comb(self.d, self.k) > MAX_TABLE_CELLS
        ):
            fail(
                "d",
                self.d,
                f"such that d·C(d, k) <= {MAX_TABLE_CELLS} for output_table (k = {self.k})",
            )
        members = np.zeros((math.comb(self.d, self.k), self.d), dtype=bool)
        for column, subset in enumerate(itertools.combinations(range(self.d), self.k)):
            members[column, list(subset)] = True
        inside = self.p / math.comb(self.d - 1, self.k - 1)  # e^ε/Z
        outside = (1 - self.p) / math.comb(self.d - 1, self.k)  # 1/Z
        return np.where(members.T, inside, outside)

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference client: x ∈ Y with probability p*; the other members uniform among the d − 1 other values.

        Each user ranks the values by independent uniform keys, her own value first (it is in Y) or
        last (it is not), and keeps the k smallest.

        Returns
        -------
        numpy.ndarray of int64, shape (n, k)
            One sorted k-subset per user.

        References
        ----------
        [wang2016ss] (the k-subset mechanism); [ye2018].
        """
        values = check_domain_values("values", values, self.d).ravel()
        rng = check_rng(rng)
        reports = np.empty((values.size, self.k), dtype=np.int64)
        rows = max(1, _CELLS_PER_BLOCK // self.d)
        for start in range(0, values.size, rows):
            block = values[start : start + rows]
            own_in = rng.random(block.size) < self.p
            keys = rng.random((block.size, self.d))
            keys[np.arange(block.size), block] = np.where(own_in, -1.0, 2.0)
            reports[start : start + block.size] = np.sort(
                np.argpartition(keys, self.k - 1, axis=1)[:, : self.k], axis=1
            )
        return reports

    def aggregate(self, reports) -> np.ndarray:
        """C(i): how many reported subsets contain i (length d)."""
        reports = check_domain_values(
            "reports", check_ndim("reports", reports, 2, last=self.k, what="(users × k)"), self.d
        )
        if self.k > 1 and np.any(np.diff(np.sort(reports, axis=1), axis=1) == 0):
            fail(
                "reports",
                Described("a row with a repeated value"),
                f"rows of k = {self.k} distinct values",
            )
        return np.bincount(reports.ravel(), minlength=self.d)

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler of the support counts C (module docstring; cost O(d k) per survey, n < 10^9)."""
        counts, n = self._counts_and_n(truth)
        rng = check_rng(rng)
        if n > MAX_SAMPLER_USERS:
            fail(
                "truth",
                Described(f"true counts totalling n = {n}"),
                f"at most {MAX_SAMPLER_USERS} users for the exact "
                "subset-selection sampler (numpy's hypergeometric draws)",
            )
        shape = batch_shape(n_draws, (self.d,))
        beta = (
            self.k
            * -math.expm1(-self.epsilon)
            / (self.k + (self.d - self.k) * math.exp(-self.epsilon))
        )
        own = rng.binomial(counts, beta, size=shape)  # K_x: V users of value x
        return _sequential_counts(own.reshape(-1, self.d), n, self.k, rng).reshape(shape)


def _sequential_counts(own: np.ndarray, n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """C for each row of ``own`` (R × d, the V users per value); the n − ΣK U users take uniform k-subsets.

    ``groups[:, 0, r]`` counts the users behind (candidates {i, …, d − 1}) and ``groups[:, 1, r]`` those
    ahead (the same minus their own value) that still need r members.  Draws are made only over the
    window [lo, hi) of r ≥ 1 some user may hold (the users done, r = 0, take nothing; those ahead are
    still drawn among when their value is reached): a column lowers r by at most
    one, so lo falls by at most one a column, and hi is trimmed to the highest held r every
    :data:`_TRIM_EVERY` columns; the window spans O(√k) values of r.
    """
    n_rows, d = own.shape
    needed = np.arange(k + 1, dtype=float)  # r: members still to choose
    groups = np.zeros((n_rows, 2, k + 1), dtype=np.int64)
    groups[:, 0, k] = n - own.sum(axis=1)
    groups[:, 1, k - 1] = own.sum(axis=1)
    out = own.copy()
    lo, hi = max(k - 1, 1), k + 1
    one_row, arrivals = n_rows == 1, own.any(axis=0).tolist()
    # m for those behind (d − i candidates) and those ahead (d − i − 1; none past the last value)
    remaining = np.stack([d - np.arange(d), np.maximum(d - 1 - np.arange(d), 1)], axis=1)
    remaining = remaining.astype(float)
    for i in range(d):
        if i % _TRIM_EVERY == 0:
            held = np.flatnonzero(groups[:, :, lo:hi].any(axis=(0, 1)))
            if held.size == 0:  # every user has all her members: the other columns get none
                break
            lo, hi = lo + int(held[0]), lo + int(held[-1]) + 1
        arriving = None
        if arrivals[i]:  # the V users of value i leave those ahead (done ones included)
            cols = np.r_[0, lo:hi] if groups[:, 1, 0].any() else slice(lo, hi)
            pool = groups[:, 1, cols]
            if one_row:
                arriving = rng.multivariate_hypergeometric(pool[0], int(own[0, i]))[None]
            else:
                arriving = _hypergeometric_rows(pool, own[:, i], rng)
            groups[:, 1, cols] -= arriving
        # a user needing r of m candidates takes value i w.p. r/m; nobody is ahead of the last value
        window = groups[:, :, lo:hi]
        # r/m as a division: r = m gives exactly 1 (r · (1/m) can round to 1 − 2⁻⁵³)
        taken = rng.binomial(window, np.minimum(needed[lo:hi] / remaining[i, :, None], 1.0))
        window -= taken
        groups[:, :, lo - 1 : hi - 1] += taken  # class r − 1 (class 0: done)
        out[:, i] += taken.sum(axis=(1, 2))
        if arriving is not None:
            groups[:, 0, cols] += arriving
        lo = max(lo - 1, 1)
    return out


def _hypergeometric_rows(
    colors: np.ndarray, draws: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """A multivariate-hypergeometric draw of ``draws[j]`` items from each row ``colors[j]`` (exact).

    Few rows: numpy's sampler row by row; many rows: category by category, vectorized over rows.
    """
    out = np.zeros_like(colors)
    if colors.shape[0] <= colors.shape[1]:
        for j in np.flatnonzero(draws):
            out[j] = rng.multivariate_hypergeometric(colors[j], int(draws[j]))
        return out
    left, pool = draws.copy(), colors.sum(axis=1)
    for c in range(colors.shape[1] - 1):
        pool -= colors[:, c]
        out[:, c] = np.where(
            left > 0, rng.hypergeometric(colors[:, c], pool, np.maximum(left, 0)), 0
        )
        left -= out[:, c]
    out[:, -1] = left
    return out
