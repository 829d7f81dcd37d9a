"""RS+FD: random sampling plus fake data ([arcolezi2021]), on the multidimensional layout of SPL and SMP.

Each user samples one attribute j uniformly and sends its value through an oracle; for every other
attribute she sends *fake data*, so the server cannot tell which attribute is real.  Variants:

* ``"grr"`` (RS+FD[GRR]): GRR on u_j; fake values uniform on [0, k_i);
* ``"oue_z"`` (RS+FD[OUE-z]): OUE on u_j; fake = OUE applied to the all-zeros vector;
* ``"oue_r"`` (RS+FD[OUE-r]): OUE on u_j; fake = OUE applied to a uniformly random value.

Budgets.  [arcolezi2021] runs the oracle at the amplified ε' = ln(d(e^ε − 1) + 1) for a budget ε.
The exact whole-report tables (tests/mechanisms/test_multidimensional.py) show what each number guarantees: two
tuples that differ in **every** attribute are distinguished by ε' (each attribute's report then
carries the full ratio e^{ε'}); two tuples that differ in **one** attribute by ε when the fake data is
OUE-z's, or GRR's on attributes of equal domain sizes, and by more than ε (less than ε') for GRR's fake
data on unequal domains and for OUE-r's on domains of 3 or more values
(:meth:`~ldp_helpers.mechanisms.multidimensional._Multidimensional.attribute_privacy_loss`).  A user's
whole tuple is her input, so the collection's whole-report ε — the ``epsilon`` of this class, as of
every mechanism here — is ε', the oracle's budget; :attr:`RSFD.epsilon_attribute` is the paper's ε and
:meth:`RSFD.from_attribute_epsilon` builds the paper's parametrization.

Estimator.  A support count of attribute j has mean ``n a₀ + c(v)(p* − q*)/d`` (a₀: the chance that a
user without value v supports it, real or fake), so ``ĉ_j(v) = d(C_j(v) − n a₀)/(p* − q*)``, and each
user supports v independently: the exact variance is a sum of Bernoulli variances.

References
----------
[arcolezi2021] (RS+FD, its three variants, estimators and variances); [arcolezi2022] (ALLOMFREE: one sampled attribute).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import reduce
from typing import ClassVar

import numpy as np
from scipy.special import logsumexp

from ldp_helpers._validation import (
    Described,
    check_allocation,
    check_epsilon,
    check_int,
    check_int_array,
    check_rng,
)
from ldp_helpers.mechanisms.base import batch_shape
from ldp_helpers.mechanisms.grr import amplified_grr_epsilon
from ldp_helpers.mechanisms.multidimensional import (
    _check_table_size,
    _draw_support,
    _kron_sum,
    _log_table,
    _Multidimensional,
)
from ldp_helpers.mechanisms.privacy import _independent_bits_log_table, _max_log_ratio
from ldp_helpers.mechanisms.pure import count_variance


@dataclass(frozen=True)
class RSFD(_Multidimensional):
    """Random sampling plus fake data with oracle ``"grr"``, ``"oue_z"`` or ``"oue_r"`` at the budget ``epsilon``.

    ``epsilon`` is the whole-report budget (= the oracle's ε' of [arcolezi2021]); the paper's ε is
    :attr:`epsilon_attribute`.

    References
    ----------
    [arcolezi2021] "RS+FD".
    """

    oracle_names: ClassVar[tuple] = ("grr", "oue_z", "oue_r")

    @classmethod
    def from_attribute_epsilon(cls, epsilon: float, domain_sizes, oracle: str = "grr") -> RSFD:
        """RS+FD as [arcolezi2021] parametrizes it: budget ε per attribute, oracle at ε' = ln(d(e^ε − 1) + 1).

        Evaluated as ε + ln(d − (d − 1)e^{−ε}) (no overflow).  The result's ``epsilon`` is ε'.
        """
        epsilon = check_epsilon(epsilon)
        # the constructor checks the rest
        d = check_int_array("domain_sizes", domain_sizes, low=2).size
        return cls(amplified_grr_epsilon(epsilon, d), domain_sizes, oracle)

    @property
    def epsilon_attribute(self) -> float:
        """The paper's ε: ``ln((e^{ε'} − 1)/d + 1)``, the loss between tuples that differ in one attribute."""
        # ln((e^{ε'} − 1)/d + 1) = ε' + ln((1 − e^{−ε'})/d + e^{−ε'})
        shrink = math.exp(-self.epsilon)
        return self.epsilon + math.log(-math.expm1(-self.epsilon) / self.n_attributes + shrink)

    # ---------------------------------------------------------------- the fake data and its support

    def _fake_support(self, j: int) -> float:
        """a_fake: the chance that attribute j's fake report supports a given value."""
        o = self.oracles[j]
        if self.oracle == "grr":
            return 1.0 / o.d
        if self.oracle == "oue_z":
            return o.q
        return (o.p + (o.d - 1) * o.q) / o.d  # OUE of a uniform value

    def _fake_table(self, j: int) -> np.ndarray:
        """The law of attribute j's fake report, a row over the oracle's reports."""
        table = self.oracles[j].output_table()
        if self.oracle == "oue_z":
            ones = (np.arange(table.shape[1])[:, None] >> np.arange(self.oracles[j].d)) & 1
            q = self.oracles[j].q
            return np.prod(np.where(ones == 1, q, 1 - q), axis=1)
        return table.mean(axis=0)  # GRR: uniform over [0, k); OUE-r: OUE of a uniform value

    # ---------------------------------------------------------------- contract

    def output_table(self) -> np.ndarray:
        """``P[u, y] = (1/d) Σ_j T_j[u_j, y_j] Π_{i≠j} fake_i(y_i)`` over every tuple u and report tuple y."""
        tables = [o.output_table() for o in self.oracles]
        _check_table_size(tables)
        fakes = [self._fake_table(i) for i in range(self.n_attributes)]
        return sum(_mixture_terms(tables, fakes, np.kron)) / self.n_attributes

    def _log_fake_table(self, j: int, log_table: np.ndarray) -> np.ndarray:
        """``log`` of :meth:`_fake_table` from attribute j's log table (no underflow at large ε)."""
        o = self.oracles[j]
        if self.oracle == "oue_z":
            q = np.full((1, o.d), o.q)
            return _independent_bits_log_table(np.log1p(-q), np.log(q))[0]
        # GRR: uniform over [0, k); OUE-r: OUE of a uniform value
        return logsumexp(log_table, axis=0) - math.log(o.d)

    def privacy_loss(self) -> float:
        """The exact whole-report ε of :meth:`output_table` from its log, ``logsumexp_j`` of the terms' Kronecker
        sums: at ε = 500–700 the unary encodings' entries underflow in the table itself and its ratios read ∞."""
        tables = [_log_table(o) for o in self.oracles]
        _check_table_size(tables)
        fakes = [self._log_fake_table(i, t) for i, t in enumerate(tables)]
        terms = _mixture_terms(tables, fakes, _kron_sum)
        return _max_log_ratio(np.logaddexp.reduce(terms, axis=0) - math.log(self.n_attributes))

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user client: sample j, the oracle on u_j, fake data on every other attribute ([arcolezi2021] "RS+FD")."""
        rows, rng = self._check_rows(values), check_rng(rng)
        check_allocation(
            "values",
            Described(f"{rows.shape[0]:,} tuples"),
            rows.shape[0] * int(self._widths.sum()),
            itemsize=34,
            what="every attribute's real and fake reports and their temporaries",
        )
        picked = rng.integers(0, self.n_attributes, size=rows.shape[0])
        columns = []
        for j, o in enumerate(self.oracles):
            real = picked == j
            fake_values = rng.integers(0, o.d, size=rows.shape[0])
            if self.oracle == "grr":
                column = np.where(real, o.perturb(rows[:, j], rng=rng), fake_values)
            else:
                fake = (
                    (rng.random((rows.shape[0], o.d)) < o.q).astype(np.int8)
                    if self.oracle == "oue_z"
                    else o.perturb(fake_values, rng=rng)
                )
                column = np.where(real[:, None], o.perturb(rows[:, j], rng=rng), fake)
            columns.append(column)
        return np.column_stack(columns).astype(np.int64)

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler: a multinomial pick per tuple; per attribute, the oracle's sampler on the real users
        plus the fake users' reports (uniform values, OUE of zeros, or OUE of uniform values)."""
        counts, n = self.check_truth(truth)
        rng = check_rng(rng)
        draws = 1 if n_draws is None else batch_shape(n_draws, (sum(self.domain_sizes),))[0]
        parts = []
        for o, real in zip(self.oracles, self._chosen_counts(counts, draws, rng)):
            n_fake = n - real.sum(axis=1)
            support = _draw_support(o, real, real.sum(axis=1), rng)
            if self.oracle == "oue_z":
                support += rng.binomial(n_fake[:, None], o.q, size=support.shape)
            else:  # uniform fake values: sent as such (GRR) or through OUE (OUE-r)
                fake = rng.multinomial(n_fake, np.full(o.d, 1.0 / o.d))
                support += fake if self.oracle == "grr" else _draw_support(o, fake, n_fake, rng)
            parts.append(support)
        out = np.concatenate(parts, axis=1)
        return out[0] if n_draws is None else out

    def estimate(self, aggregate, n) -> np.ndarray:
        """``ĉ_j(v) = d(C_j(v) − n a₀)/(p* − q*)``, a₀ = (q* + (d − 1)·a_fake)/d ([arcolezi2021] "RS+FD")."""
        n = check_int("n", n, low=1)
        agg = self._check_aggregate(aggregate, n, sum(self.domain_sizes))
        d = self.n_attributes
        out = [
            d * (agg[..., b] - n * self._support_other(j)) / (o.p - o.q)
            for j, (o, b) in enumerate(zip(self.oracles, self._blocks(self.domain_sizes)))
        ]
        return np.concatenate(out, axis=-1)

    def _support_other(self, j: int) -> float:
        """a₀: the chance that a user whose value of attribute j is not v supports v (real w.p. 1/d, else fake)."""
        return (
            self.oracles[j].q + (self.n_attributes - 1) * self._fake_support(j)
        ) / self.n_attributes

    def variance(self, truth) -> np.ndarray:
        """Exact ``Var[ĉ_j(v)] = d²(f a₁(1 − a₁) + (n − f) a₀(1 − a₀))/(p* − q*)²``, a₁ = a₀ + (p* − q*)/d."""
        counts, n = self.check_truth(truth)
        d, out = self.n_attributes, []
        for j, (o, f) in enumerate(zip(self.oracles, self._marginals(counts))):
            a0 = self._support_other(j)
            out.append(count_variance(f, n, a0 + (o.p - o.q) / d, a0))  # ĉ = (C − n a₀)/(a₁ − a₀)
        return np.concatenate(out)


def _mixture_terms(tables, fakes, combine) -> list[np.ndarray]:
    """Per real attribute j: ``combine`` (np.kron, or :func:`_kron_sum` of logs) folded over j's table
    and every other attribute's fake row ``fakes[i]`` broadcast to its table's shape."""
    fakes = [np.broadcast_to(f, t.shape) for f, t in zip(fakes, tables)]
    return [reduce(combine, [*fakes[:j], t, *fakes[j + 1 :]]) for j, t in enumerate(tables)]
