"""The one mechanism contract, the shared support-count sampler and the pure-oracle skeleton.

Every mechanism of the collection is a small frozen object implementing :class:`Mechanism`.
The contract, in one place (docs/reference.md, "The mechanism contract", repeats it for readers):

``epsilon``
    The privacy budget the mechanism claims for **one user's whole report** (for stream
    mechanisms: one user's whole stream of reports).
``output_table()``
    ``P[x, y] = Pr[report y | input x]`` over whole reports (small settings only; a
    ``ValueError`` names the parameter that makes it too large).  Continuous mechanisms (SHE,
    THE) have no table and compute their loss from the report densities instead.
``privacy_loss()``
    The exact whole-report ε: ``max_privacy_loss(output_table())`` unless overridden.  Equal to
    ``epsilon`` when the class attribute ``tight`` is true, at most ``epsilon`` otherwise.
``perturb(values, *, rng)``
    The per-user reference client, written like the paper's algorithm.  It is the
    specification; speed belongs to ``sample_aggregate``.
``aggregate(reports)``
    The server's sufficient statistic of a batch of reports.
``sample_aggregate(truth, *, rng, n_draws=None)``
    An exact sampler of ``aggregate(perturb(expand(truth)))``: same law, cost independent of
    the number of users where the mechanism allows it.  (Local hashing is the one documented
    idealization: its sampler treats the hash as fully random, while the per-user client draws
    from a universal family, whose marginals agree to O(g/P).)  With ``n_draws`` the result gets a
    leading axis of that length: independent surveys of the same population.
``estimate(aggregate, n)``
    The server's estimate of ``estimand(truth)`` from the statistic and the number of users
    ``n = n_reports(truth)`` (per cohort for RAPPOR).
``variance(truth)``
    The exact variance of ``estimate`` (same shape as the estimand), for a fixed population.
``expand(truth)`` / ``estimand(truth)`` / ``n_reports(truth)`` / ``expected_estimate(truth)``
    What a *truth* (the population summary the sampler needs, e.g. the d true counts) means:
    the per-user inputs, the quantity estimated, the number of users, and the exact mean of the
    estimate (the estimand itself when ``unbiased`` is true).

Pure frequency oracles (:class:`PureFrequencyOracle`) add ``p`` and ``q`` (p* and q*: a report
supports the user's own value with probability p*, any other value with q* < p*) and
Wang et al.'s *approximate* variance ``approx_variance(n)``.  Repetitions are always
``n_draws``.

References
----------
[wang2017] §3 (pure protocols); [wang2017] Theorem 2; [tutorial] Eq. (2) (definition of ε-LDP).
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_allocation,
    check_count_array,
    check_domain_values,
    check_epsilon,
    check_int,
    check_int_array,
    check_n_draws,
    check_probabilities,
    check_rng,
    check_trailing_shape,
    check_true_counts,
    fail,
)
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.pure import count_variance, unbiased_count

#: the smallest normal double: a probability below it (subnormal) has fewer than 53 significant bits
_SMALLEST_NORMAL = float(np.finfo(float).tiny)


def sample_support_counts(true_counts, n, p, q, *, rng: np.random.Generator, size=None):
    """``C ~ Binomial(f, p) + Binomial(n − f, q)``: how many of n reports support a value held by f users.

    The one sampler of a support count: a report of each of the f holders supports the value
    independently with probability p, a report of each of the n − f others with probability q.
    Broadcasts over arrays of f (and n); ``size`` is numpy's.  Used by every pure oracle, binary
    randomized response, RAPPOR's bit counts, the CMS sketch cells and the stream mechanisms.

    References
    ----------
    [wang2017] proof of Theorem 2; [tutorial] "Frequency Oracles".
    """
    check_rng(rng)
    f = check_int_array("true_counts", true_counts, low=0)
    n_arr = check_int_array("n", n, low=0)
    p = check_probabilities("p", p)
    q = check_probabilities("q", q)
    try:
        shape = np.broadcast_shapes(f.shape, n_arr.shape, p.shape, q.shape)
    except ValueError:
        fail(
            "n",
            Described(f"shape {n_arr.shape} with true_counts {f.shape}, p {p.shape}, q {q.shape}"),
            "shapes that broadcast",
        )
    if np.any(np.broadcast_to(n_arr, shape) < np.broadcast_to(f, shape)):
        fail(
            "n",
            Described("fewer reports than holders somewhere"),
            "n ≥ true_counts (n − f non-negative)",
        )
    if size is not None:
        dims = (size,) if isinstance(size, (int, np.integer)) else size
        if not isinstance(dims, tuple) or not all(
            isinstance(s, (int, np.integer))
            and not isinstance(s, (bool, np.timedelta64))
            and s >= 0
            for s in dims
        ):
            fail("size", size, "None, a non-negative integer or a tuple of them (numpy's size)")
        check_allocation("size", size, 2 * math.prod(int(s) for s in dims))
    p = p if p.ndim else float(p)  # 0-d: a Python float
    q = q if q.ndim else float(q)
    return _draw_support_counts(true_counts, n, p, q, rng=rng, size=size)


def _draw_support_counts(true_counts, n, p, q, *, rng: np.random.Generator, size=None):
    """:func:`sample_support_counts` without the boundary checks (callers have validated; the hot path)."""
    f = np.asarray(true_counts)
    return rng.binomial(f, p, size=size) + rng.binomial(np.asarray(n) - f, q, size=size)


def batch_shape(n_draws, shape) -> tuple:
    """``shape`` with a leading ``n_draws`` axis (``n_draws=None``: one draw, no extra axis)."""
    shape = tuple(shape)
    if n_draws is None:
        return shape
    n_draws = check_n_draws(n_draws)
    check_allocation(
        "n_draws",
        n_draws,
        n_draws * math.prod(int(s) for s in shape),
        what=f"{n_draws} draws of shape {shape}",
    )
    return (n_draws, *shape)


def _check_user_arrays(n: int, d: int, noun: str, unit: str, *, itemsize: int = 8) -> None:
    """Refuse, before allocating, n users' arrays of d ``unit`` each (n × d items) over MAX_BYTES."""
    check_allocation(
        "values",
        Described(f"{n:,} values"),
        n * d,
        itemsize=itemsize,
        what=f"{n:,} {noun} of d = {d:,} {unit}",
    )


def _check_int_aggregate(aggregate, shape, *, low, high) -> np.ndarray:
    """An integer statistic of shape ``shape`` or ``(n_draws, *shape)`` (the shape checked first) in [low, high]."""
    arr = check_trailing_shape("aggregate", aggregate, shape)
    return check_int_array("aggregate", arr, low=low, high=high)


class Mechanism(abc.ABC):
    """The contract every mechanism implements (see the module docstring).

    Subclasses are frozen dataclasses; ``tight`` and ``unbiased`` are class attributes that the
    conformance suite (``tests/mechanisms/test_conformance.py``) checks.
    """

    epsilon: float
    #: privacy_loss() equals epsilon (True) or is only bounded by it (False)
    tight: ClassVar[bool] = True
    #: estimate() is unbiased for estimand(truth)
    unbiased: ClassVar[bool] = True

    @abc.abstractmethod
    def output_table(self) -> np.ndarray:
        """``P[x, y]`` over whole reports (rows: inputs, columns: reports)."""

    def privacy_loss(self) -> float:
        """The exact whole-report ε, computed from :meth:`output_table`."""
        return max_privacy_loss(self.output_table())

    def _refuse_table(self, name: str, size: str, limit: int, detail: str = "") -> None:
        """Refuse :meth:`output_table` as too large: attribute ``name`` must keep ``size`` within ``limit``."""
        fail(name, getattr(self, name), f"such that {size} <= {limit} for output_table{detail}")

    @abc.abstractmethod
    def perturb(self, values, *, rng: np.random.Generator):
        """Per-user reference client: one report per user."""

    @abc.abstractmethod
    def aggregate(self, reports):
        """The server's sufficient statistic of ``reports``."""

    @abc.abstractmethod
    def sample_aggregate(self, truth, *, rng: np.random.Generator, n_draws: int | None = None):
        """Exact sampler of ``aggregate(perturb(expand(truth)))`` (leading ``n_draws`` axis if given)."""

    @abc.abstractmethod
    def estimate(self, aggregate, n):
        """The server's estimate of ``estimand(truth)`` from the statistic and n users."""

    @abc.abstractmethod
    def variance(self, truth):
        """Exact variance of :meth:`estimate` for this population (shape of the estimand)."""

    @abc.abstractmethod
    def expand(self, truth):
        """The per-user inputs described by ``truth`` (what :meth:`perturb` takes)."""

    @abc.abstractmethod
    def estimand(self, truth):
        """The quantity :meth:`estimate` targets for this population."""

    def n_reports(self, truth):
        """The number of users n that :meth:`estimate` is given for this population (default: Σ of the
        truth's counts, for the mechanisms whose truth is a vector of counts, ``_counts_and_n``)."""
        return self._counts_and_n(truth)[1]

    def _sampler_inputs(self, truth, rng, n_draws, tail) -> tuple:
        """What a sampler of a counts truth checks first, in this order: the counts and n
        (``_counts_and_n``), ``rng``, and ``batch_shape(n_draws, tail)``; returns the four."""
        counts, n = self._counts_and_n(truth)
        return counts, n, check_rng(rng), batch_shape(n_draws, tail)

    def expected_estimate(self, truth):
        """Exact ``E[estimate]``: the estimand for an unbiased mechanism (others override)."""
        return self.estimand(truth)


@dataclass(frozen=True)
class FrequencyOracle(Mechanism):
    """A mechanism over the 0-based domain [0, d) whose truth is the vector of d true counts.

    Validates ``epsilon`` and ``d`` once and gives the truth its meaning: the users' values
    (:meth:`expand`), the counts estimated (:meth:`estimand`) and n (:meth:`n_reports`).  Pure
    oracles (:class:`PureFrequencyOracle`), SHE and the count-mean sketch build on it.

    References
    ----------
    [wang2017] §2 (frequency oracles); [tutorial] "Frequency Oracles".
    """

    epsilon: float  # privacy budget ε
    d: int  # domain size; values are 0, ..., d−1

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "d", check_int("d", self.d, low=2))

    def _client_inputs(self, values, rng) -> tuple[np.ndarray, np.random.Generator]:
        """A client's checked inputs: the values in [0, d) flattened, then ``rng``."""
        return check_domain_values("values", values, self.d).ravel(), check_rng(rng)

    def _counts_and_n(self, true_counts) -> tuple[np.ndarray, int]:
        """Validate a vector of d true counts (at least one user); return it and n = Σ counts."""
        return check_true_counts(true_counts, self.d)

    def expand(self, truth) -> np.ndarray:
        """The users' values: value i repeated f_i times (sorted)."""
        counts, _ = self._counts_and_n(truth)
        return np.repeat(np.arange(self.d), counts)

    def estimand(self, truth) -> np.ndarray:
        """The true counts f_i as floats."""
        return self._counts_and_n(truth)[0].astype(float)


@dataclass(frozen=True)
class PureFrequencyOracle(FrequencyOracle):
    """A pure frequency oracle over [0, d): ``epsilon`` and ``d`` in, p*, q* derived once.

    Subclasses implement ``_support_probabilities() -> (p, q)``, ``output_table()``,
    ``perturb`` and ``aggregate`` (the support counts C(i)).  The truth is the vector of d true
    counts; the estimate is the vector of unbiased counts ĉ(i).

    References
    ----------
    [wang2017] §3; [wang2017] Eq. (1); [tutorial] "Frequency Oracles".
    """

    p: float = field(init=False)  # p*: Pr[a report supports the user's own value]
    q: float = field(init=False)  # q*: Pr[a report supports a given other value]

    def __post_init__(self):
        super().__post_init__()
        p, q = self._support_probabilities()
        # ε so small that p* and q* round to one number: the estimator would divide by 0
        if not p > q:
            fail(
                "epsilon",
                self.epsilon,
                f"large enough that p* > q* in double precision for {type(self).__name__} "
                f"with d={self.d} (here p* = q* = {p!r}: use a larger epsilon)",
            )
        # a subnormal q* has lost digits: OUE(744) lost ε + 0.3
        if not (_SMALLEST_NORMAL <= q < p < 1.0):
            fail(
                "epsilon",
                self.epsilon,
                f"small enough for {type(self).__name__} with d={self.d} in double precision "
                f"(q* = {q!r} underflows below 2.2e-308 or p* = {p!r} rounds to 1): use a smaller "
                "epsilon",
            )
        object.__setattr__(self, "p", float(p))
        object.__setattr__(self, "q", float(q))

    def _support_probabilities(self) -> tuple[float, float]:  # pragma: no cover - abstract
        raise NotImplementedError

    # ---------------------------------------------------------------- server

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler of the support counts given the true counts: the law of
        :meth:`_draw_support`.

        By default ``C_i ~ Binomial(f_i, p*) + Binomial(n − f_i, q*)``, independent in i: valid when
        a report's support of each value is an independent Bernoulli given the true value (unary
        encodings, local hashing with an idealized hash); GRR's ``_draw_support`` has its own law
        (:class:`~ldp_helpers.mechanisms.grr.GRR`).  With ``n_draws`` the result has shape
        (n_draws, d).
        """
        counts, n, rng, shape = self._sampler_inputs(truth, rng, n_draws, (self.d,))
        return self._draw_support(counts, n, rng=rng, size=None if n_draws is None else shape)

    def _draw_support(self, counts, n, *, rng: np.random.Generator, size=None) -> np.ndarray:
        """Support counts given validated true counts (of all d values, or of any subset of them):
        ``Bin(f_i, p*) + Bin(n − f_i, q*)``.  The protocols built on an oracle call this; GRR
        overrides it with its own law."""
        return _draw_support_counts(counts, n, self.p, self.q, rng=rng, size=size)

    def estimate(self, aggregate, n) -> np.ndarray:
        """Unbiased count estimates ``ĉ(i) = (C(i) − n q*)/(p* − q*)`` from the support counts C.

        ``aggregate`` has shape (d,) or (n_draws, d).

        References
        ----------
        [wang2017] Eq. (1); [tutorial] "Frequency Oracles", ĉ(i).
        """
        n = check_int("n", n, low=1)
        counts = check_count_array("aggregate", aggregate, self.d, high=n)
        return unbiased_count(counts, n, self.p, self.q)

    def variance(self, truth) -> np.ndarray:
        """Exact ``Var[ĉ(i)] = (f_i p*(1−p*) + (n−f_i) q*(1−q*))/(p*−q*)²`` for every value i.

        References
        ----------
        [wang2017] proof of Theorem 2 (before the large-n approximation).
        """
        counts, n = self._counts_and_n(truth)
        return count_variance(counts, n, self.p, self.q)

    def approx_variance(self, n) -> float:
        """Wang et al.'s *approximate* ``Var[ĉ(i)] ≈ n q*(1−q*)/(p*−q*)²`` (labelled approximate).

        It drops the f_i (p*(1−p*) − q*(1−q*)) term, i.e. treats every value as rare
        (f_i ≪ n).  That is harmless at small ε but not when p*(1−p*) ≫ q*(1−q*): e.g. for OUE
        p*(1−p*) = 1/4 while q*(1−q*) ≈ e^{−ε}, so at large ε the true variance of a frequent
        value exceeds the approximation by a factor ≈ 1 + (f_i/n)(e^ε/4 − 1).

        References
        ----------
        [wang2017] Eq. (2); [wang2017] Theorem 2; [tutorial] the variance table.
        """
        n = check_int("n", n, low=1)
        return float(count_variance(0.0, n, self.p, self.q))
