"""Multidimensional frequency estimation: the shared layout, and SPL (split the budget over the attributes).

Each user holds a tuple (u₁, …, u_d) of d attributes, attribute j over the 0-based domain [0, k_j)
(``domain_sizes`` = (k₁, …, k_d); [arcolezi2021] writes d for the number of attributes and k_j for
their domains).  The server estimates every attribute's marginal counts.

* **SPL** sends every attribute through a frequency oracle at ε/d: ε in all by sequential
  composition ([wang2019]; [arcolezi2021] "Spl", "Smp").
* **SMP** samples one attribute j uniformly, sends j and u_j through the oracle at the whole ε
  ([wang2019]; [arcolezi2021] "Spl", "Smp"); the server estimates attribute j from the n_j users who
  sent it, ``ĉ_j(v) = (n/n_j)·(C_j(v) − n_j q*)/(p* − q*)`` (0 if n_j = 0).

The oracle is GRR, OUE, SUE or ADP (``oracle``), the same for every attribute.  The *truth* is the
joint table of counts (shape ``domain_sizes``): SMP's law depends on which values sit together in a
tuple, not only on the marginals.  Estimates, estimand and variance are the d marginals concatenated
(length Σ k_j); a report is one row per user with each attribute's oracle report side by side
(GRR: one column; unary encodings: k_j columns).  SMP is :mod:`~ldp_helpers.mechanisms.smp`, RS+FD
:mod:`~ldp_helpers.mechanisms.rs_fd`.

References
----------
[wang2019] (splitting the budget, sampling attributes); [arcolezi2021] (Spl, Smp); [arcolezi2022] (ALLOMFREE: one sampled attribute).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, reduce
from typing import ClassVar

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_choice,
    check_epsilon,
    check_int,
    check_int_array,
    check_ndim,
    check_rng,
    check_total,
    fail,
    fail_shape,
)
from ldp_helpers.mechanisms.adaptive import ADP
from ldp_helpers.mechanisms.base import Mechanism, _check_int_aggregate, batch_shape
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.privacy import _max_log_ratio
from ldp_helpers.mechanisms.unary_encoding import OUE, SUE

#: the oracles a multidimensional solution runs on each attribute
ORACLES = {"grr": GRR, "oue": OUE, "sue": SUE, "adp": ADP}
#: largest whole-report table (input tuples × report tuples) of output_table
MAX_TABLE_ENTRIES = 2**22


@dataclass(frozen=True)
class _Multidimensional(Mechanism):
    """What SPL, SMP and RS+FD share: the attributes, their oracles, the joint truth and its marginals."""

    epsilon: float  # the budget of one user's whole report (every attribute together)
    domain_sizes: tuple  # (k₁, …, k_d): attribute j takes values in [0, k_j)
    oracle: str = "grr"  # the oracle run on each attribute

    oracle_names: ClassVar[tuple] = tuple(ORACLES)

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        sizes = check_int_array("domain_sizes", self.domain_sizes, low=2)
        if sizes.ndim != 1 or sizes.size < 2:
            fail_shape("domain_sizes", sizes.shape, "a sequence of at least 2 domain sizes")
        check_int("the product of domain_sizes", math.prod(int(k) for k in sizes), high=2**40)
        object.__setattr__(self, "domain_sizes", tuple(int(k) for k in sizes))
        object.__setattr__(self, "oracle", check_choice("oracle", self.oracle, self.oracle_names))
        self.oracles  # noqa: B018  (builds every attribute's oracle now: a budget it refuses is refused here)

    @property
    def n_attributes(self) -> int:
        """d, the number of attributes ([arcolezi2021]'s d)."""
        return len(self.domain_sizes)

    @property
    def oracle_epsilon(self) -> float:
        """The budget each attribute's oracle runs at."""
        return self.epsilon

    @cached_property
    def oracles(self) -> tuple:
        """One oracle per attribute, at :attr:`oracle_epsilon` over [0, k_j)."""
        cls = ORACLES[self.oracle.split("_")[0]]
        return tuple(cls(self.oracle_epsilon, k) for k in self.domain_sizes)

    @cached_property
    def _widths(self) -> np.ndarray:
        """Columns of each attribute's report in a row (GRR: 1, a unary encoding: k_j)."""
        return np.array([1 if _is_grr(o) else o.d for o in self.oracles])

    def _blocks(self, widths) -> list[slice]:
        ends = np.cumsum(widths)
        return [slice(int(e - w), int(e)) for e, w in zip(ends, widths)]

    def aggregate(self, reports) -> np.ndarray:
        """Every attribute's support counts over all n reports (RS+FD: real and fake), concatenated
        (length Σ k_j)."""
        reports = check_ndim(
            "reports", reports, 2, last=int(self._widths.sum()), what="(users × report columns)"
        )
        return np.concatenate(
            [
                o.aggregate(_squeeze(reports[:, b]))
                for o, b in zip(self.oracles, self._blocks(self._widths))
            ]
        )

    # ---------------------------------------------------------------- truth

    def check_truth(self, truth) -> tuple[np.ndarray, int]:
        """The joint counts, shape ``domain_sizes`` (at least one user); returns them and n."""
        counts = check_int_array("truth", truth, low=0, shape=self.domain_sizes)
        n = check_total("truth", counts)  # each count valid, their int64 sum must not wrap
        if n < 1:
            fail("truth", Described("a table of zeros"), "counts describing at least one user")
        return counts, n

    def _marginals(self, counts: np.ndarray) -> list[np.ndarray]:
        axes = range(self.n_attributes)
        return [counts.sum(axis=tuple(a for a in axes if a != j)) for j in axes]

    def expand(self, truth) -> np.ndarray:
        """The users' tuples, one row each (n × d), sorted."""
        counts, _ = self.check_truth(truth)
        return np.repeat(self._input_tuples(), counts.ravel(), axis=0)

    def estimand(self, truth) -> np.ndarray:
        """Every attribute's marginal counts, concatenated (length Σ k_j)."""
        return np.concatenate(self._marginals(self.check_truth(truth)[0])).astype(float)

    def n_reports(self, truth) -> int:
        """n, the number of users."""
        return self.check_truth(truth)[1]

    def _check_rows(self, values) -> np.ndarray:
        rows = check_int_array(
            "values",
            check_ndim("values", values, 2, last=self.n_attributes, what="(users × attributes)"),
            low=0,
        )
        for j, k in enumerate(self.domain_sizes):
            check_int_array(f"values[:, {j}]", rows[:, j], high=k - 1)
        return rows

    def attribute_privacy_loss(self) -> float:
        """Exact loss between tuples that differ in one attribute only (from :meth:`output_table`).

        ``privacy_loss()`` is over every pair of tuples (a user's whole input); this is the weaker,
        attribute-level guarantee some multidimensional analyses state.
        """
        table = self.output_table()
        cube = table.reshape(*self.domain_sizes, table.shape[1])
        worst = 0.0
        for j, k in enumerate(self.domain_sizes):
            # rows: the k values of attribute j, others fixed
            slices = np.moveaxis(cube, j, 0).reshape(k, -1)
            high, low = slices.max(axis=0), slices.min(axis=0)
            used = high > 0
            if np.any(low[used] == 0):
                return math.inf
            worst = max(worst, float(np.max(np.log(high[used]) - np.log(low[used]))))
        return worst

    def _check_aggregate(self, aggregate, n: int, width: int) -> np.ndarray:
        return _check_int_aggregate(aggregate, (width,), low=0, high=n)

    def _input_tuples(self) -> np.ndarray:
        return np.indices(self.domain_sizes).reshape(self.n_attributes, -1).T

    def _chosen_counts(
        self, counts: np.ndarray, draws: int, rng: np.random.Generator
    ) -> list[np.ndarray]:
        """Per attribute j: (draws × k_j) counts of users who sampled j, by their value of j (a uniform pick per user)."""
        cells = np.flatnonzero(counts)
        tuples = self._input_tuples()[cells]
        picks = rng.multinomial(
            counts.ravel()[cells],
            np.full(self.n_attributes, 1 / self.n_attributes),
            size=(draws, cells.size),
        )  # (draws, cells, d): users of each tuple by the attribute they pick
        return [
            picks[:, :, j] @ (tuples[:, j : j + 1] == np.arange(k)).astype(np.int64)
            for j, k in enumerate(self.domain_sizes)
        ]


@dataclass(frozen=True)
class SPL(_Multidimensional):
    """Budget splitting: every attribute through its oracle at ε/d ([wang2019]; [arcolezi2021] "Spl", "Smp")."""

    @property
    def oracle_epsilon(self) -> float:
        """ε/d: the budget of each attribute's report."""
        return self.epsilon / self.n_attributes

    def output_table(self) -> np.ndarray:
        """``P[u, (y₁, …, y_d)] = Π_j T_j[u_j, y_j]``: the Kronecker product of the attributes' tables."""
        tables = [o.output_table() for o in self.oracles]
        _check_table_size(tables)
        return reduce(np.kron, tables)

    def privacy_loss(self) -> float:
        """The exact whole-report ε of :meth:`output_table`, from its log (a Kronecker sum of the attributes' log
        tables): at ε = 500–700 an entry such as q*^(k−1) underflows in the table itself and its ratios read ∞."""
        tables = [_log_table(o) for o in self.oracles]
        _check_table_size(tables)
        return _max_log_ratio(reduce(_kron_sum, tables))

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user client: each attribute's value through its oracle at ε/d, reports side by side."""
        rows, rng = self._check_rows(values), check_rng(rng)
        return np.column_stack([o.perturb(rows[:, j], rng=rng) for j, o in enumerate(self.oracles)])

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler: each attribute's oracle sampler on its marginal counts, independently."""
        counts, n = self.check_truth(truth)
        rng = check_rng(rng)
        parts = [
            o._draw_support(
                f, n, rng=rng, size=None if n_draws is None else batch_shape(n_draws, f.shape)
            )
            for o, f in zip(self.oracles, self._marginals(counts))
        ]
        return np.concatenate(parts, axis=-1)

    def estimate(self, aggregate, n) -> np.ndarray:
        """Each attribute's unbiased counts ĉ_j = (C_j − n q*)/(p* − q*), concatenated."""
        n = check_int("n", n, low=1)
        agg = self._check_aggregate(aggregate, n, sum(self.domain_sizes))
        return np.concatenate(
            [
                o.estimate(agg[..., b], n)
                for o, b in zip(self.oracles, self._blocks(self.domain_sizes))
            ],
            axis=-1,
        )

    def variance(self, truth) -> np.ndarray:
        """Each oracle's exact variance on its marginal, concatenated."""
        counts, _ = self.check_truth(truth)
        return np.concatenate(
            [o.variance(f) for o, f in zip(self.oracles, self._marginals(counts))]
        )


def _log_table(oracle) -> np.ndarray:
    """``log P[v, y]`` of an attribute's oracle: a unary encoding's in log space (its q*^(k−1) underflows at large ε)."""
    chosen = getattr(oracle, "chosen", oracle)
    return np.log(chosen.output_table()) if isinstance(chosen, GRR) else chosen._log_output_table()


def _kron_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The log of ``np.kron(exp(a), exp(b))``: entry ((i, k), (j, l)) is a[i, j] + b[k, l]."""
    return (a[:, None, :, None] + b[None, :, None, :]).reshape(
        a.shape[0] * b.shape[0], a.shape[1] * b.shape[1]
    )


def _is_grr(oracle) -> bool:
    """Whether an attribute's oracle reports one value (GRR, or ADP running GRR) rather than k_j bits."""
    return isinstance(getattr(oracle, "chosen", oracle), GRR)


def _draw_support(
    oracle, counts: np.ndarray, n: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """The oracle's support counts for a batch of populations: ``counts`` (draws × k) of ``n`` (draws,) users."""
    return oracle._draw_support(counts, n if _is_grr(oracle) else n[:, None], rng=rng)


def _squeeze(block: np.ndarray) -> np.ndarray:
    """A GRR block (one column) as the vector of values; a unary block unchanged."""
    return block[:, 0] if block.shape[1] == 1 else block


def _check_table_size(tables) -> None:
    rows = math.prod(t.shape[0] for t in tables)
    columns = math.prod(t.shape[1] for t in tables)
    check_int("output_table entries", rows * columns, high=MAX_TABLE_ENTRIES)
