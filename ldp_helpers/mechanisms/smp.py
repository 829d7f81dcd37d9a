"""SMP: each user samples one attribute and reports it at the whole budget ([wang2019]; [arcolezi2021] "Spl", "Smp").

The layout (joint truth, concatenated marginals, reports side by side) is that of
:mod:`~ldp_helpers.mechanisms.multidimensional`.  The server estimates attribute j from the n_j
users who sent it, ``ĉ_j(v) = (n/n_j)·(C_j(v) − n_j q*)/(p* − q*)`` (0 if n_j = 0, which happens with
probability (1 − 1/d)^n: the only source of bias), and its exact variance averages over n_j ~ Bin(n, 1/d)
and over which users sampled j (a hypergeometric draw of the population).

References
----------
[wang2019]; [arcolezi2021] "Spl", "Smp"; [arcolezi2022] (ALLOMFREE: one sampled attribute).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np
from scipy import integrate, stats

from ldp_helpers._validation import (
    Described,
    check_instance,
    check_int,
    check_int_array,
    check_ndim,
    check_rng,
    fail,
)
from ldp_helpers.mechanisms.base import batch_shape
from ldp_helpers.mechanisms.multidimensional import (
    MAX_TABLE_ENTRIES,
    SPL,
    _draw_support,
    _log_table,
    _squeeze,
)
from ldp_helpers.mechanisms.privacy import _max_log_ratio
from ldp_helpers.mechanisms.pure import count_variance


class SampledReports(NamedTuple):
    """SMP reports: the sampled attribute of each user, and the row of reports (−1 outside its block)."""

    attributes: np.ndarray
    reports: np.ndarray


@dataclass(frozen=True)
class SMP(SPL):
    """Sample one attribute, report it at the whole ε ([wang2019]; [arcolezi2021] "Spl", "Smp").

    ``unbiased`` is false only through n_j = 0 (probability (1 − 1/d)^n): :meth:`expected_estimate`.
    """

    unbiased: ClassVar[bool] = False

    @property
    def oracle_epsilon(self) -> float:
        """ε: the sampled attribute gets the whole budget."""
        return self.epsilon

    def output_table(self) -> np.ndarray:
        """``P[u, (j, y)] = T_j[u_j, y]/d``: the attribute sampled, then its oracle's report."""
        return self._side_by_side([o.output_table() for o in self.oracles]) / self.n_attributes

    def privacy_loss(self) -> float:
        """The exact whole-report ε of :meth:`output_table` from its log (the 1/d cancels in every ratio)."""
        return _max_log_ratio(self._side_by_side([_log_table(o) for o in self.oracles]))

    def _side_by_side(self, tables) -> np.ndarray:
        """Row u of every attribute's table (or log-table) ``tables[j]`` at u_j, side by side (within MAX_TABLE_ENTRIES)."""
        tuples = self._input_tuples()
        check_int(
            "output_table entries",
            tuples.shape[0] * sum(t.shape[1] for t in tables),
            high=MAX_TABLE_ENTRIES,
        )
        return np.concatenate([t[tuples[:, j]] for j, t in enumerate(tables)], axis=1)

    def perturb(self, values, *, rng: np.random.Generator) -> SampledReports:
        """Per-user client: pick j uniformly, send j and u_j through the oracle at ε (other blocks −1)."""
        rows, rng = self._check_rows(values), check_rng(rng)
        picked = rng.integers(0, self.n_attributes, size=rows.shape[0])
        reports = np.full((rows.shape[0], int(self._widths.sum())), -1, dtype=np.int64)
        for j, (o, block) in enumerate(zip(self.oracles, self._blocks(self._widths))):
            users = np.flatnonzero(picked == j)
            if users.size:
                reports[users, block] = np.asarray(o.perturb(rows[users, j], rng=rng)).reshape(
                    users.size, -1
                )
        return SampledReports(picked, reports)

    def aggregate(self, reports: SampledReports) -> np.ndarray:
        """(n_1, …, n_d) users per sampled attribute, then each attribute's support counts (length d + Σ k_j)."""
        picked, rows = check_instance("reports", reports, SampledReports)
        picked = check_int_array(
            "reports.attributes", picked, low=0, high=self.n_attributes - 1
        ).ravel()
        rows = check_ndim("reports.reports", rows, 2, last=int(self._widths.sum()))
        if rows.shape[0] != picked.size:
            fail(
                "reports.reports",
                Described(f"{rows.shape[0]} rows"),
                f"one row per sampled attribute ({picked.size})",
            )
        parts = [np.bincount(picked, minlength=self.n_attributes)]
        for j, (o, block) in enumerate(zip(self.oracles, self._blocks(self._widths))):
            users = picked == j
            parts.append(
                o.aggregate(_squeeze(rows[users, block]))
                if users.any()
                else np.zeros(o.d, dtype=np.int64)
            )
        return np.concatenate(parts)

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler: a multinomial pick per tuple of the truth, then each oracle's sampler on the users who picked it."""
        counts, _ = self.check_truth(truth)
        rng, width = check_rng(rng), self.n_attributes + sum(self.domain_sizes)
        draws = 1 if n_draws is None else batch_shape(n_draws, (width,))[0]
        chosen = self._chosen_counts(counts, draws, rng)
        sizes = np.stack([c.sum(axis=1) for c in chosen], axis=1)
        parts = [sizes] + [
            _draw_support(o, c, c.sum(axis=1), rng) for o, c in zip(self.oracles, chosen)
        ]
        out = np.concatenate(parts, axis=1)
        return out[0] if n_draws is None else out

    def estimate(self, aggregate, n) -> np.ndarray:
        """``ĉ_j(v) = (n/n_j)(C_j(v) − n_j q*)/(p* − q*)`` per attribute (0 where n_j = 0), concatenated."""
        n = check_int("n", n, low=1)
        agg = self._check_aggregate(aggregate, n, self.n_attributes + sum(self.domain_sizes))
        sizes = agg[..., : self.n_attributes]
        if np.any(sizes.sum(axis=-1) != n):
            fail(
                "aggregate",
                Described("users per attribute not summing to n"),
                f"n_1 + … + n_d = n = {n}",
            )
        out = []
        for j, (o, block) in enumerate(zip(self.oracles, self._blocks(self.domain_sizes))):
            n_j = sizes[..., j : j + 1].astype(float)
            support = agg[..., self.n_attributes :][..., block]
            scale = np.divide(n, n_j, out=np.zeros_like(n_j), where=n_j > 0)
            out.append(scale * (support - n_j * o.q) / (o.p - o.q))
        return np.concatenate(out, axis=-1)

    def _empty_probability(self, n: int) -> float:
        return (1 - 1 / self.n_attributes) ** n

    def expected_estimate(self, truth) -> np.ndarray:
        """Exact E[ĉ] = (1 − (1 − 1/d)^n)·c: unbiased given n_j ≥ 1, 0 when nobody sampled the attribute."""
        return self.estimand(truth) * (1 - self._empty_probability(self.n_reports(truth)))

    def variance(self, truth) -> np.ndarray:
        """Exact Var[ĉ_j(v)], over the random n_j ~ Bin(n, 1/d) and the hypergeometric sample of users.

        Given n_j = m ≥ 1: ``(n²/m)[(F/n)p*(1−p*) + (1 − F/n)q*(1−q*)]/(p*−q*)² + (n²/m)(F/n)(1 − F/n)(n − m)/(n − 1)``;
        averaged with E[1/m; m ≥ 1] exactly, plus F²π₀(1 − π₀) for the n_j = 0 outcome (π₀ = (1 − 1/d)^n).
        """
        counts, n = self.check_truth(truth)
        inverse = _inverse_binomial_moment(n, 1 / self.n_attributes)
        empty = self._empty_probability(n)
        out = []
        for o, f in zip(self.oracles, self._marginals(counts)):
            share = f / n
            channel = count_variance(share, 1, o.p, o.q)  # (F/n)p(1−p) + (1−F/n)q(1−q), over (p−q)²
            sampling = share * (1 - share) * _sampling_factor(n, 1 / self.n_attributes)
            out.append(
                n**2 * (channel * inverse + sampling) + f.astype(float) ** 2 * empty * (1 - empty)
            )
        return np.concatenate(out)


#: largest n whose E[1/M; M ≥ 1] sums every m of 1..n; beyond, a few thousand m or the integral
EXACT_MOMENT_USERS = 2 * 10**6


@functools.lru_cache(maxsize=64)
def _inverse_binomial_moment(n: int, prob: float) -> float:
    """``E[1/M; M ≥ 1]`` for M ~ Binomial(n, prob): the sum over every m up to n = 2·10⁶; beyond it, when
    n·prob < 1000, over m < n·prob + 50√(n·prob) + 100 (the rest below 10⁻³⁰ of it), else the integral
    :func:`_inverse_moment_integral` (O(1) in n: the sums over m held 10⁹ terms at n = 2·10⁹).
    Cached: an ε grid asks for the same (n, 1/d) at every ε."""
    mean = n * prob
    if n > EXACT_MOMENT_USERS and mean >= 1000.0:
        return _inverse_moment_integral(n, prob)
    top = n if n <= EXACT_MOMENT_USERS else int(mean + 50.0 * math.sqrt(mean) + 100.0)
    m = np.arange(1, top + 1)
    return float(np.sum(stats.binom.pmf(m, n, prob) / m))


def _sampling_factor(n: int, prob: float) -> float:
    """``Σ_{m≥1} Pr[M = m](n − m)/(m(n − 1))`` for M ~ Binomial(n, prob), 0 for n = 1: the factor of
    F(1 − F) in the variance of a share F estimated from the M users sampled without replacement.

    ``Pr[M = m](n − m)/n = (1 − prob) Pr[M' = m]`` for M' ~ Binomial(n − 1, prob), so it is
    ``(1 − prob)·n/(n − 1)·E[1/M'; M' ≥ 1]``, a sum of positive terms (no cancellation as prob → 1).
    """
    if n <= 1:
        return 0.0
    return (1 - prob) * n / (n - 1.0) * _inverse_binomial_moment(n - 1, prob)


def _inverse_moment_integral(n: int, prob: float) -> float:
    """``E[1/M; M ≥ 1] = ∫₀¹ ((1 − prob·u)^n − (1 − prob)^n)/(1 − u) du`` (∫₀¹ t^{m−1} dt = 1/m under E[t^{M−1}]),
    by quadrature in s = n·prob·u over s ≤ 800 (beyond, (1 − s/n)^n < e^{−800} and (1 − prob)^n underflow
    to 0 when n·prob ≥ 1000); relative error ~1e-15 (tested against the sum)."""
    mean = n * prob
    with np.errstate(divide="ignore"):  # prob = 1 (Glance with T = 1): (1 − prob)^n = e^{−∞} = 0
        empty = float(np.exp(n * np.log1p(-prob)))
    integrand = lambda s: (math.exp(n * math.log1p(-s / n)) - empty) / (1.0 - s / mean)  # noqa: E731
    value, _ = integrate.quad(integrand, 0.0, min(mean, 800.0), epsabs=0.0, epsrel=1e-13, limit=200)
    return value / mean
