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
counts C(i) = #{users with i ∈ Y} are drawn on the halving tree of [0, d), level by level, as
histograms over "picks still to make" (the users of one class are exchangeable): a user needing r
uniform picks in a node puts j ~ H(|left|, |right|, r) of them in its left child (one multinomial
per level over every (node, r) class).  A V user's k − 1 other picks are spread over the siblings
of the nodes on her own value's path (a multivariate-hypergeometric split, drawn deepest first:
at a node holding her value, r picks still outside it fall in its sibling with the law
H(|sibling|, d − |parent|, r)); those in a sibling are then uniform there, so they join its
histogram.  2⌈log2 d⌉ multinomial calls whatever n; the laws (ε-free) are cached per (d, k).

References
----------
[wang2016ss] (the k-subset mechanism); [ye2018] (the optimal k ≈ d/(e^ε + 1)); [wang2017] §3 (pure
protocols: estimator and variance).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from ldp_helpers._numeric import majority_probability
from ldp_helpers._validation import (
    Described,
    check_allocation,
    check_domain_values,
    check_epsilon,
    check_int,
    check_ndim,
    fail,
)
from ldp_helpers.mechanisms.base import PureFrequencyOracle
from ldp_helpers.mechanisms.grr import grr_probabilities
from ldp_helpers.mechanisms.hadamard import _cell_sums
from ldp_helpers.mechanisms.pure import count_variance

MAX_TABLE_CELLS = 2**22  # largest d·C(d, k) for output_table
_CELLS_PER_BLOCK = 2**22  # users × d keys per block of the per-user client


def subset_probabilities(epsilon: float, d: int, k: int) -> tuple[float, float]:
    """(p*, q*) of the k-subset mechanism over d values (written with e^{−ε}: no overflow).

    p* is lowered by an ulp where 1 − p* fell below the directly computed (d − k)e^{−ε}/(k + (d − k)e^{−ε})
    (:func:`~ldp_helpers._numeric.majority_probability`): the table's and the client's Pr[x ∉ Y] never
    fall below it, so the report never loses more than ε.

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
    p = majority_probability(k / denominator, (d - k) * shrink / denominator)
    return p, k * ((k - 1) + (d - k) * shrink) / ((d - 1) * denominator)


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
            self._refuse_table("d", "d·C(d, k)", MAX_TABLE_CELLS, f" (k = {self.k})")
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
        values, rng = self._client_inputs(values, rng)
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
        """Exact sampler of the support counts C (module docstring; 2⌈log2 d⌉ multinomial calls)."""
        counts, n, rng, shape = self._sampler_inputs(truth, rng, n_draws, (self.d,))
        cells = _tree_cells(self.d, self.k)  # per survey, at most
        check_allocation(
            "d", self.d, 2 * cells, what=f"the subset sampler's classes (k = {self.k})"
        )
        shrink = math.exp(-self.epsilon)
        denominator = self.k + (self.d - self.k) * shrink
        # β = k(1 − e^{−ε})/(k + (d − k)e^{−ε}), its complement at least d e^{−ε}/(k + (d − k)e^{−ε})
        beta = majority_probability(
            self.k * -math.expm1(-self.epsilon) / denominator, self.d * shrink / denominator
        )
        own = rng.binomial(counts, beta, size=shape).reshape(-1, self.d)  # K_x: V users of value x
        chunk = max(1, _BATCH_CELLS // cells)  # surveys drawn together
        return np.concatenate(
            [
                _tree_counts(own[i : i + chunk], n, self.k, rng)
                for i in range(0, own.shape[0], chunk)
            ]
        ).reshape(shape)


@functools.lru_cache(maxsize=64)
def _tree_cells(d: int, k: int) -> int:
    """A bound on the (class, category) cells of one survey's multinomial draws over the tree's levels."""
    total = 0
    for level in range((d - 1).bit_length()):
        size, child = -(-d >> level), -(-d >> (level + 1))  # the largest nodes
        total += 2**level * (min(k, size) + 1) * (min(k, child) + 1)  # spread
        total += 2 ** (level + 1) * min(k, child) * (min(k - 1, child) + 1)  # placed
    return total


#: a level's split laws are stored per node (not per distinct node size) up to this many cells
_NODE_TABLE_CELLS = 2**16
#: a histogram with more rows is drawn over the window of rows some class holds
_WINDOW_MIN_ROWS = 16
#: cells of the multinomial draws of the surveys drawn together (``n_draws``)
_BATCH_CELLS = 2**22
#: cells of the split laws cached per (d, k) (the smallest levels' first; 16 bytes a cell)
_CACHED_CELLS = 2**21


@dataclass(frozen=True)
class _SplitLaw:
    """The hypergeometric split of every class of one level's histogram (one table per distinct
    (good, bad) pair, or per node when small: :data:`_NODE_TABLE_CELLS`).

    A user of class ``row`` at a node whose (good, bad) pair is ``pair`` takes category c with
    probability ``pvals[pair, row, c]`` and then holds ``picks[pair, row, c]`` of the good items.
    """

    pair: np.ndarray  # (nodes,) index of each node's (good, bad) pair
    pvals: np.ndarray  # (pairs, rows, categories)
    picks: np.ndarray  # (pairs, rows, categories): j, the draws among the good items


def _split_law(good, bad, draws, log_factorial: np.ndarray) -> _SplitLaw:
    """H(good, bad, draws) for each node (``good``, ``bad``: one per node) and each row (``draws``).

    The columns hold the support's values from the most to the least likely (numpy's multinomial
    stops at the category where the class runs out of users), the least likely moved to the last
    column: numpy gives its last category the remainder, so rounding never leaves the support.
    Columns past a row's support hold probability 0; a row no user can hold (draws > good + bad)
    is all 0.
    """
    nodes = np.stack([good, bad], axis=1)
    pairs, pair = np.unique(nodes, axis=0, return_inverse=True)
    g, b = pairs[:, 0, None, None], pairs[:, 1, None, None]
    r = np.asarray(draws)[None, :, None]
    lowest, highest = np.maximum(r - b, 0), np.minimum(r, g)
    columns = np.arange(max(1, min(int(r.max()), int(g.max())) + 1))
    j = np.minimum(lowest + columns, highest)
    held = (lowest + columns <= highest) & (r <= g + b)
    f = lambda m: log_factorial[np.where(held, m, 0)]  # noqa: E731 - log m!, 0 where unused
    log_pmf = f(g) - f(j) - f(g - j) + f(b) - f(r - j) - f(b - r + j) - f(g + b)
    pmf = np.where(held, np.exp(log_pmf + f(r) + f(g + b - r)), 0.0)
    # 1 up to the log-factorials' rounding
    pmf /= np.maximum(pmf.sum(axis=2, keepdims=True), 1e-300)
    order = np.argsort(-pmf, axis=2, kind="stable")
    least = np.maximum(held.sum(axis=2, keepdims=True) - 1, 0)  # its place in that order
    last = columns[-1]
    swap = np.where(columns == least, last, columns)
    order = np.take_along_axis(order, np.where(columns == last, least, swap), 2)
    pmf, j, pair = np.take_along_axis(pmf, order, 2), np.take_along_axis(j, order, 2), pair.ravel()
    if pair.size * pmf[0].size <= _NODE_TABLE_CELLS:  # one table per node: no gather per call
        return _SplitLaw(np.arange(pair.size), pmf[pair], j[pair])
    return _SplitLaw(pair, pmf, j)


@dataclass(frozen=True)
class _Level:
    """One level's split: H(good, bad, draws[row]) at each node, for the classes of ``rows``; the law
    cached, or None (built per call for the rows the classes hold).

    A user of (node, row) who draws j goes to two flat targets, each ``base[node] + a·row + b·j``
    (``shifts`` = (a₁, b₁, a₂, b₂)) in one histogram of ``size`` cells per survey (two histograms
    side by side when the second base starts at the first's size); with a small cached law both
    are tabulated for every (node, row, category) of ``rows``.
    """

    good: np.ndarray  # (nodes,)
    bad: np.ndarray  # (nodes,)
    draws: np.ndarray  # (rows,)
    rows: slice  # the rows whose users still draw
    bases: tuple  # (base₁, base₂), each (nodes,)
    shifts: tuple  # (a₁, b₁, a₂, b₂)
    size: int  # cells per survey of the target histogram
    log_factorial: np.ndarray
    law: _SplitLaw | None = None
    targets: np.ndarray | None = None  # (2, cells): the targets of every cell of a small cached law
    window: np.ndarray | None = None  # with targets: the law of ``rows`` per node, contiguous
    cut: int = 0  # two histograms side by side: the first's cells per survey
    pairs: int = field(init=False)  # distinct (good, bad) pairs: the tables of a law

    def __post_init__(self):
        object.__setattr__(
            self, "pairs", np.unique(self.good * (self.bad.max() + 1) + self.bad).size
        )

    def cells(self, lo: int = 0, hi: int | None = None) -> int:
        """The cells of the law of rows [lo, hi): pairs × rows × categories."""
        draws = self.draws[lo:hi]
        return self.pairs * draws.size * (min(int(draws.max()), int(self.good.max())) + 1)

    def target(self, node, row, picks) -> tuple[np.ndarray, np.ndarray]:
        a1, b1, a2, b2 = self.shifts
        return (
            self.bases[0][node] + a1 * row + b1 * picks,
            self.bases[1][node] + a2 * row + b2 * picks,
        )

    def cached(self) -> _Level:
        """This level with its law (and, if stored per node and narrow, its targets) computed."""
        law = _split_law(self.good, self.bad, self.draws, self.log_factorial)
        targets = window = None
        nodes = np.arange(self.good.size)
        # law.pair == nodes: a table per node
        if np.array_equal(law.pair, nodes) and self.rows.stop - self.rows.start <= _WINDOW_MIN_ROWS:
            rows = np.arange(self.draws.size)[self.rows]
            first, second = self.target(
                nodes[:, None, None], rows[:, None], law.picks[:, self.rows]
            )
            # (cells of no class: any target)
            targets = np.clip(np.stack((first.ravel(), second.ravel())), 0, self.size - 1)
            window = np.ascontiguousarray(law.pvals[:, self.rows])
        return dataclasses.replace(self, law=law, targets=targets, window=window)


@functools.lru_cache(maxsize=4)
def _split_tables(d: int, k: int):
    """The halving tree of [0, d) (node t of level l: [⌊t d/2^l⌋, ⌊(t+1) d/2^l⌋)), its split laws:
    (node sizes per level, the deepest level's nodes that hold a value, ``spread``, ``placed``).

    ``spread[l]`` splits the users of level l needing r ≥ 1 picks in their node between its two
    children (targets: the left child's row j, the right child's row r − j, in one histogram of
    level l + 1); ``placed[l]`` (for the children at level l + 1) splits the r = k − 1 − s > 0 picks
    a V user of a child still makes outside it between the child's sibling and the rest of [d]
    (targets: the sibling's free row j, the parent's V row s + j).  The smallest laws are cached,
    :data:`_CACHED_CELLS` cells in all; the others are built per call.
    """
    depth = (d - 1).bit_length()
    sizes = [np.diff((np.arange(2**level + 1) * d) >> level) for level in range(depth + 1)]
    free = [min(k, int(size.max())) + 1 for size in sizes]  # rows r = 0..min(k, |node|)
    held = [min(k, int(size.max())) for size in sizes]  # rows s = 0..min(k, |node|) − 1
    log_factorial = np.array([math.lgamma(m + 1.0) for m in range(d + 1)])
    spread, placed = [], []
    for level in range(depth):
        child, nodes = sizes[level + 1], np.arange(2 ** (level + 1))
        width = free[level + 1]
        cut = child.size * width  # cells of the children's free histogram
        spread.append(
            _Level(
                child[0::2],
                child[1::2],
                np.arange(free[level]),
                slice(1, free[level]),
                (nodes[0::2] * width, nodes[1::2] * width),
                (0, 1, 1, -1),
                cut,
                log_factorial,
            )
        )
        parent = held[level]  # (the root's V histogram is counted, never read)
        placed.append(
            _Level(
                child[nodes ^ 1],
                d - np.repeat(sizes[level], 2),
                k - 1 - np.arange(held[level + 1]),
                slice(0, min(k - 1, held[level + 1])),
                # the siblings' free users, then (after them) the parents' V users
                ((nodes ^ 1) * width, cut + (nodes >> 1) * parent),
                (0, 1, 1, 1),
                cut + sizes[level].size * parent,
                log_factorial,
                cut=cut,
            )
        )
    budget = _CACHED_CELLS
    for tables in (spread, placed):
        for level in sorted(range(depth), key=lambda i: tables[i].cells()):
            if tables[level].cells() <= budget:
                budget -= tables[level].cells()
                tables[level] = tables[level].cached()
    return sizes, np.flatnonzero(sizes[depth]), spread, placed


def _split_classes(hist: np.ndarray, split: _Level, rng: np.random.Generator):
    """Every class of ``hist`` (R × nodes × rows) with users, split by ``split``: the histogram of
    its users' targets (R × ``split.size``), or None if no class holds a user.

    Only the classes holding users are drawn (numpy's multinomial draws nothing for a class of
    none: the same draws as over every class); a tabulated law draws every class of its window.
    """
    lo, hi = split.rows.start, split.rows.stop
    if lo == hi:
        return None
    n_rows = hist.shape[0]
    if split.targets is not None:  # tabulated: every cell (an empty one adds 0 users)
        users = rng.multinomial(hist[:, :, lo:hi], split.window)
        targets = split.targets if n_rows == 1 else split.targets[:, None, :]
        survey = None if n_rows == 1 else np.arange(n_rows)[:, None]
    else:
        window = hist[:, :, lo:hi]
        held = np.flatnonzero(window)
        if held.size == 0:
            return None
        survey, node, row = np.unravel_index(held, window.shape)
        row += lo
        law, first = split.law, 0
        if law is None:  # the law of the rows held only
            first, last = int(row.min()), int(row.max()) + 1
            d, cells = split.log_factorial.size - 1, split.cells(first, last)
            check_allocation("d", d, 10 * cells, what="the subset sampler's split law, per call")
            law = _split_law(split.good, split.bad, split.draws[first:last], split.log_factorial)
        table, row_in_law = law.pair[node], row - first
        counts = rng.multinomial(window.ravel()[held], law.pvals[table, row_in_law])
        cell = np.flatnonzero(counts)
        drawn, column = np.divmod(cell, counts.shape[1])
        picks = law.picks[table[drawn], row_in_law[drawn], column]
        targets = np.stack(split.target(node[drawn], row[drawn], picks))
        users, survey = counts.ravel()[cell], survey[drawn]
    flat = targets.ravel() if n_rows == 1 else (targets + survey * split.size).ravel()
    users = np.concatenate((users.ravel(), users.ravel()))
    return _cell_sums(flat, users, n_rows * split.size).reshape(n_rows, split.size)


def _tree_counts(own: np.ndarray, n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """C for each row of ``own`` (R × d V users per value; the n − ΣK others U users): two passes.

    Up the tree (leaves first), each V user's k − 1 picks outside her own value are placed: at a
    child holding her value, those still to make (r of them) fall in its sibling with the law
    H(|sibling|, d − |parent|, r) (a multivariate-hypergeometric split of her picks over the
    siblings along her path, drawn deepest first); the ones in the sibling join it as free users.
    Down the tree, the free users (the U users at the root, k picks each, and the V users' picks
    placed in siblings) needing r picks in a node split between its children with the law
    H(|left|, |right|, r).  At the leaves, C(x) = free users with a pick at x + K_x.
    """
    n_rows, d = own.shape
    _, leaves, spread, placed = _split_tables(d, k)
    depth = len(spread)
    injected = [None] * (depth + 1)  # free users joining each level's nodes (R × nodes·picks)
    hist = np.zeros((n_rows, 2**depth, 1), dtype=np.int64)  # V users by s: picks made in the node
    hist[:, leaves, 0] = own
    for level in range(depth, 0, -1):
        split = placed[level - 1]
        drawn = _split_classes(hist, split, rng)
        if drawn is None:
            break
        injected[level] = drawn[:, : split.cut]  # the siblings' free users, then the parents'
        hist = drawn[:, split.cut :].reshape(n_rows, 2 ** (level - 1), -1)
    hist = np.zeros((n_rows, k + 1), dtype=np.int64)  # free users by r: picks still to make (k < d)
    hist[:, k] = n - own.sum(axis=1)
    for level in range(depth + 1):
        if injected[level] is not None:
            hist = hist + injected[level]
        if level == depth:
            break
        split = spread[level]
        drawn = _split_classes(hist.reshape(n_rows, 2**level, -1), split, rng)
        hist = np.zeros((n_rows, split.size), dtype=np.int64) if drawn is None else drawn
    hist = hist.reshape(n_rows, 2**depth, -1)
    return hist[:, leaves, 1] + own
