"""Padding-and-sampling frequency oracles (PSFO) for set-valued data, as a mechanism of the contract.

Each user holds a set S ⊆ [0, d).  She pads it with dummy items d, ..., d+ℓ−1 up to size ℓ
(or keeps a uniform ℓ-subset if |S| > ℓ), samples ONE item of the padded set uniformly and
reports it with a frequency oracle over [0, d+ℓ); the server multiplies counts by ℓ
([wang2018svim]; Qin et al.'s sampling randomizer, [qin2016]).

Privacy amplification for GRR: the output probability of y is q' + (p'−q')·[y ∈ S]/ℓ, so the
worst ratio is 1 + (e^{ε'}−1)/ℓ; running GRR at ε' = ln(ℓ(e^ε−1)+1) therefore gives ε-LDP for
the whole set (checked exactly from the table in the tests).  OLH gets no such gain in Wang
et al.'s analysis, and comparing ℓ²·Var: GRR at ε' beats OLH at ε iff
|I| < (4ℓ² − ℓ)e^ε + 1 (with the domain I of real items; d' = |I| + ℓ).  At ℓ = 1 this is the
DE rule d' < 3e^ε + 2.  :class:`PSFO` is the mechanism (registered; exact whole-report table,
per-user client, exact aggregate sampler, exact variance); SVIM and LDPMiner
(:mod:`ldp_helpers.protocols.itemset_mining`) are built from it.

References
----------
[wang2018svim] (PSFO; the GRR/OLH choice); [qin2016] (padding and sampling);
[tutorial] "Itemset mining"; [wang2017] §4.1 (GRR); [wang2017] §4.4 (OLH).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_allocation,
    check_choice,
    check_domain_values,
    check_epsilon,
    check_int,
    check_rng,
    check_unmasked,
    fail,
    fail_type,
)
from ldp_helpers.mechanisms.base import Mechanism, batch_shape
from ldp_helpers.mechanisms.grr import GRR, amplified_grr_epsilon
from ldp_helpers.mechanisms.local_hashing import OLH
from ldp_helpers.mechanisms.pure import count_variance
from ldp_helpers.mechanisms.registry import RegistryEntry
from ldp_helpers.mechanisms.unary_encoding import OUE


def grr_preferred(n_items: int, epsilon: float, ell: int) -> bool:
    """True iff PSFO with GRR (at ε') has a smaller approximate variance than with OLH (at ε).

    Computed from the two variances, not from the closed-form threshold (tested to agree).

    References
    ----------
    [tutorial] "Itemset mining"; [wang2017] Eq. (2) (approximate variances).
    """
    d = check_int("n_items", n_items, low=1) + check_int("ell", ell, low=1)
    grr_var = GRR(amplified_grr_epsilon(epsilon, ell), d).approx_variance(1)
    olh_var = OUE(epsilon, d).approx_variance(1)  # OLH at the ideal g = e^ε + 1
    return grr_var < olh_var


def grr_threshold(epsilon: float, ell: int) -> float:
    """(4ℓ² − ℓ)e^ε + 1: GRR is preferred for |I| below it (the tutorial prints '>': reversed).

    At ℓ = 1 this is the DE rule: |I| + 1 (the one dummy item) <
    :func:`~ldp_helpers.bounds.wang2017.de_threshold` (tested).

    References
    ----------
    [tutorial] "Itemset mining" (SVIM's choice of oracle).
    """
    ell, epsilon = check_int("ell", ell, low=1), check_epsilon(epsilon)
    log_threshold = math.log(4 * ell**2 - ell) + epsilon
    return math.inf if log_threshold > 709.0 else (4 * ell**2 - ell) * math.exp(epsilon) + 1


def _distinct_items(label: str, items: np.ndarray, d: int) -> np.ndarray:
    """One user's items, validated over [0, d) and made duplicate-free (an empty set as int64)."""
    return np.unique(check_domain_values(label, items, d)) if items.size else np.empty(0, np.int64)


def pad_and_sample(sets, d: int, ell: int, *, rng: np.random.Generator) -> np.ndarray:
    """One sampled item per user from her set padded with dummies d..d+ℓ−1 to size ℓ.

    References
    ----------
    [tutorial] "Itemset mining" (padding and sampling).
    """
    d, ell = check_int("d", d, low=1), check_int("ell", ell, low=1)
    check_allocation("ell", ell, ell, what="one padded set of ell items")
    rng = check_rng(rng)
    if (
        isinstance(sets, (str, bytes, dict))
        or not hasattr(sets, "__len__")
        or not hasattr(sets, "__iter__")
    ):
        fail_type("sets", sets, "a sequence of per-user sets (arrays of items in [0, d))")
    if len(sets) == 0:
        fail("sets", Described("no sets"), "at least one user's set")
    out = np.empty(len(sets), dtype=np.int64)
    for u, items in enumerate(sets):
        if isinstance(items, (str, bytes, dict)) or items is None:
            fail_type(f"sets[{u}]", items, f"an array of items in [0, {d})")
        check_unmasked(f"sets[{u}]", items, f"an array of items in [0, {d})")
        items = _distinct_items(f"sets[{u}]", np.asarray(items), d)
        if items.size > ell:
            items = rng.choice(items, size=ell, replace=False)
        padded = np.concatenate([items, d + np.arange(ell - items.size)])
        out[u] = padded[rng.integers(ell)]
    return out


def _flatten_sets(sets, d: int, name: str = "sets") -> tuple[np.ndarray, np.ndarray]:
    """Validate per-user item sets over [0, d): return (all items, concatenated; each set's size).

    Each set is made duplicate-free (a set); empty sets are allowed, an empty list of users is not.

    References
    ----------
    [wang2018svim] (set-valued data: each user holds a set of items).
    """
    d = check_int("d", d, low=1)
    if (
        isinstance(sets, (str, bytes, dict))
        or not hasattr(sets, "__len__")
        or not hasattr(sets, "__iter__")
    ):
        fail_type(name, sets, f"a sequence of per-user sets (arrays of items in [0, {d}))")
    if len(sets) == 0:
        fail(name, Described("an empty list of users"), "at least one user's set")
    check_allocation(name, len(sets), 2 * len(sets), what="one size per user")
    # fast path
    if all(type(x) is np.ndarray and x.ndim == 1 and x.dtype.kind in "iu" for x in sets):
        sizes = np.fromiter((x.size for x in sets), dtype=np.int64, count=len(sets))
        items = (
            check_domain_values(name, np.concatenate(sets), d).astype(np.int64)
            if sizes.sum()
            else np.empty(0, np.int64)
        )
        owner = np.repeat(np.arange(sizes.size), sizes)
        order = np.lexsort((items, owner))
        items, owner = items[order], owner[order]
        keep = np.ones(items.size, dtype=bool)
        # a set holds each item once
        keep[1:] = (items[1:] != items[:-1]) | (owner[1:] != owner[:-1])
        return items[keep], np.bincount(owner[keep], minlength=sizes.size).astype(np.int64)
    parts = []
    for u, items in enumerate(sets):
        if isinstance(items, (str, bytes, dict)) or items is None:
            fail_type(f"{name}[{u}]", items, f"an array of items in [0, {d})")
        check_unmasked(f"{name}[{u}]", items, f"an array of items in [0, {d})")
        try:
            items = np.asarray(items)
        except ValueError:
            fail_type(f"{name}[{u}]", items, f"a flat array of items in [0, {d})")
        if items.ndim > 1:
            fail_type(f"{name}[{u}]", items, f"a flat array of items in [0, {d})")
        parts.append(_distinct_items(f"{name}[{u}]", items, d))
    sizes = np.array([len(x) for x in parts], dtype=np.int64)
    return (np.concatenate(parts).astype(np.int64) if sizes.sum() else np.empty(0, np.int64)), sizes


@dataclass(frozen=True)
class FlatSets:
    """Per-user sets over [0, d), validated and flattened once by :func:`_flatten_sets`: the miners accept it in
    place of the list of sets, so that repeated surveys of the same users do not re-validate n arrays.

    ``items`` holds the sets one after the other, ``sizes`` each set's size, ``owner`` each item's user.

    References
    ----------
    [wang2018svim] (set-valued data: each user holds a set of items).
    """

    sets: object = field(repr=False, compare=False)
    d: int
    items: np.ndarray = field(init=False, repr=False, compare=False)
    sizes: np.ndarray = field(init=False, repr=False, compare=False)
    owner: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "d", check_int("d", self.d, low=1))
        items, sizes = _flatten_sets(self.sets, self.d)
        object.__setattr__(self, "items", items)
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "owner", np.repeat(np.arange(sizes.size), sizes))


def flat_population(sets, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(items, sizes, owner)`` of the users' sets (:class:`FlatSets`' arrays): a FlatSets over the same d as
    it is, any other sequence of sets through :func:`_flatten_sets`.

    References
    ----------
    [wang2018svim] (set-valued data).
    """
    if isinstance(sets, FlatSets) and sets.d != check_int("d", d, low=1):
        fail("d", d, f"the d = {sets.d} of the FlatSets given as the sets")
    flat = sets if isinstance(sets, FlatSets) else FlatSets(sets, d)
    return flat.items, flat.sizes, flat.owner


def _sample_padded_items(
    items: np.ndarray,
    sizes: np.ndarray,
    d: int,
    ell: int,
    *,
    rng: np.random.Generator,
    n_draws: int | None = None,
) -> np.ndarray:
    """Counts over [0, d+ℓ) of the item each user samples from her padded set (vectorized, exact).

    User u draws r uniform in [0, max(ℓ, |S_u|)): r < |S_u| picks her r-th item, else dummy
    d + r − |S_u| — the law of :func:`pad_and_sample` (an ℓ-subset of a larger set, then one of its
    ℓ items, is one uniform item of the set).  With ``n_draws``: shape (n_draws, d + ℓ).

    References
    ----------
    [wang2018svim] (padding and sampling).
    """
    rng = check_rng(rng)
    draws = 1 if n_draws is None else n_draws
    check_allocation(
        "n_draws", draws, 2 * draws * max(sizes.size, 1), what="one uniform per user and draw"
    )
    width = np.maximum(sizes, ell)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    r = np.floor(rng.random((draws, sizes.size)) * width).astype(np.int64)
    real = r < sizes
    picked = np.where(
        real,
        items[np.minimum(offsets + r, max(items.size - 1, 0))] if items.size else 0,
        d + r - sizes,
    )
    counts = np.stack([np.bincount(row, minlength=d + ell) for row in picked])
    return counts[0] if n_draws is None else counts


@dataclass(frozen=True)
class PSFO(Mechanism):
    """Padding-and-sampling frequency oracle: one sampled item per user, GRR at ε' or OLH at ε.

    The truth is the list of users' sets over [0, d); the estimate is ℓ·ĉ(i) for each real item,
    unbiased for the item's holder count when every set has at most ℓ items and biased low
    (by the factor ℓ/|S|) for larger sets: :meth:`expected_estimate` is exact either way.

    References
    ----------
    [wang2018svim] (privacy amplification of GRR); [qin2016].
    """

    epsilon: float  # the whole report's budget ε
    d: int  # real items 0, ..., d−1 (dummies d, ..., d+ℓ−1)
    ell: int  # padding length ℓ
    protocol: str = "GRR"  # "GRR" (at the amplified ε') or "OLH" (at ε)
    oracle: object = field(init=False, repr=False)
    unbiased: ClassVar[bool] = False  # only for sets of at most ℓ items

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "d", check_int("d", self.d, low=1))
        object.__setattr__(self, "ell", check_int("ell", self.ell, low=1))
        check_allocation(
            "d",
            self.d + self.ell,
            3 * (self.d + self.ell),
            what="counts over the d + ell padded items",
        )
        check_choice("protocol", self.protocol, ("GRR", "OLH"))
        oracle = (
            GRR(amplified_grr_epsilon(self.epsilon, self.ell), self.d + self.ell)
            if self.protocol == "GRR"
            else OLH(self.epsilon, self.d + self.ell)
        )
        object.__setattr__(self, "oracle", oracle)

    @property
    def tight(self) -> bool:
        """Whether the whole report loses exactly ε (else less).

        GRR at ε' always does (a singleton against the empty set).  OLH at ε does when d ≥ ℓ: a set
        of ℓ real items and the empty set pad to disjoint sets, and a hash sending the first to y and
        the second elsewhere gives the ratio p/q = e^ε; when d < ℓ every two padded sets share a dummy.
        """
        return self.protocol == "GRR" or self.d >= self.ell

    def _truth(self, truth):
        return _flatten_sets(truth, self.d, "truth")

    def expand(self, truth) -> list:
        """The users' sets, validated (duplicate-free arrays)."""
        items, sizes = self._truth(truth)
        return np.split(items, np.cumsum(sizes)[:-1])

    def n_reports(self, truth) -> int:
        """n: one report per user."""
        return int(self._truth(truth)[1].size)

    def estimand(self, truth) -> np.ndarray:
        """Holders of each real item."""
        return np.bincount(self._truth(truth)[0], minlength=self.d).astype(float)

    def _sample_probability(self, truth) -> tuple[np.ndarray, np.ndarray]:
        """Per item: E[S_i] and Var[S_i], S_i = how many users sample item i (independent Bernoulli users)."""
        items, sizes = self._truth(truth)
        pi = np.repeat(1.0 / np.maximum(sizes, self.ell), sizes)
        return (
            np.bincount(items, weights=pi, minlength=self.d),
            np.bincount(items, weights=pi * (1 - pi), minlength=self.d),
        )

    def expected_estimate(self, truth) -> np.ndarray:
        """``ℓ·E[S_i] = ℓ·Σ_{u ∋ i} 1/max(ℓ, |S_u|)``: the holders when no set exceeds ℓ."""
        return self.ell * self._sample_probability(truth)[0]

    def variance(self, truth) -> np.ndarray:
        """Exact ``Var[ℓ ĉ(i)] = ℓ²(Var S_i + count_variance(E S_i))`` (the oracle's variance is linear in S_i).

        References
        ----------
        [wang2017] Theorem 2 (exact variance given the sampled counts); [wang2018svim].
        """
        mean, var = self._sample_probability(truth)
        n = self.n_reports(truth)
        return self.ell**2 * (var + count_variance(mean, n, self.oracle.p, self.oracle.q))

    def output_table(self) -> np.ndarray:
        """``P[S, y]`` over every set S ⊆ [0, d) (rows in size then lexicographic order) and every oracle report y.

        Each row is the mean of the oracle's rows of the items S's padded set samples (d ≤ 10).
        """
        check_int("d", self.d, low=1, high=10)
        table = self.oracle.output_table()
        rows = []
        for size in range(self.d + 1):
            for items in itertools.combinations(range(self.d), size):
                padded = list(items) + list(range(self.d, self.d + self.ell - size))
                rows.append(table[padded].mean(axis=0))
        return np.array(rows)

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user client: pad to ℓ (or keep a uniform ℓ-subset), sample one item, report it with the oracle.

        References
        ----------
        [wang2018svim] (PSFO); [qin2016] (sampling randomizer).
        """
        items, sizes = _flatten_sets(values, self.d, "values")
        rng = check_rng(rng)
        sampled = pad_and_sample(np.split(items, np.cumsum(sizes)[:-1]), self.d, self.ell, rng=rng)
        return self.oracle.perturb(sampled, rng=rng)

    def aggregate(self, reports) -> np.ndarray:
        """The oracle's support counts over the d + ℓ padded items."""
        return self.oracle.aggregate(reports)

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler: each user's sampled item (vectorized), then the oracle's exact support-count law.

        GRR: ``C = K + M``, ``K_i ~ Bin(S_i, p − q)``, ``M ~ Multinomial(n − ΣK, uniform)``; OLH:
        ``C_i ~ Bin(S_i, p) + Bin(n − S_i, q)`` (the idealized hash, as :class:`OLH`'s sampler).
        """
        items, sizes = self._truth(truth)
        rng = check_rng(rng)
        if n_draws is not None:
            batch_shape(n_draws, (self.d + self.ell,))
        return self._sample_flat(items, sizes, rng=rng, n_draws=n_draws)

    def _sample_flat(
        self, items: np.ndarray, sizes: np.ndarray, *, rng: np.random.Generator, n_draws=None
    ) -> np.ndarray:
        """:meth:`sample_aggregate` for validated flat sets (items, sizes): the miners' hot path."""
        sampled = _sample_padded_items(items, sizes, self.d, self.ell, rng=rng, n_draws=n_draws)
        return self.oracle._draw_support(sampled, sizes.size, rng=rng)

    def estimate(self, aggregate, n) -> np.ndarray:
        """``ℓ·ĉ(i)`` for the d real items from the support counts over [0, d+ℓ)."""
        return self.ell * np.asarray(self.oracle.estimate(aggregate, n))[..., : self.d]


def _psfo_example() -> PSFO:
    return PSFO(1.0, 3, 2)


def _psfo_truth(mechanism) -> list:
    sets = [[0, 1], [0], [2], [0, 1, 2], [1, 2], [], [0], [0, 2], [1], [0, 1]]
    return [np.array(s, dtype=np.int64) for s in sets * 2]


#: registered mechanisms of this module (collected by ldp_helpers.protocols.registry)
ENTRIES = [
    RegistryEntry(
        "psfo_grr",
        "PSFO (padding and sampling + GRR at ε')",
        "set-valued",
        "[wang2018svim]; [qin2016]",
        _psfo_example,
        _psfo_truth,
    )
]
