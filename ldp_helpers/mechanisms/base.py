"""The shared skeleton of a *pure* frequency oracle over the 0-based domain [0, d).

A pure protocol (Wang et al. 2017; tutorial seed 003, "Frequency Oracles") is fixed by two
numbers: a report supports the user's own value with probability p* and any other fixed value
with probability q* < p*.  Everything the aggregator does then depends on p*, q* only: the
support counts C(i), the unbiased estimate ĉ(i) = (C(i) − n q*)/(p* − q*) and its exact
variance, all from :mod:`ldp_helpers.pure`.  Each protocol (GRR, SUE, OUE, BLH, OLH, THE)
subclasses :class:`PureFrequencyOracle` and supplies ``_support_probabilities()``, a client
``perturb`` and ``support_counts``.  The exact aggregate sampler ``sample_support_counts`` is
shared by the protocols whose supports are independent across values (SUE, OUE, THE, BLH, OLH);
GRR, whose single report supports exactly one value, overrides it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ldp_helpers._validation import check_count_vector, check_epsilon, check_int, check_rng, check_true_counts
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.estimation.pure import count_variance, unbiased_count


@dataclass(frozen=True)
class PureFrequencyOracle:
    """Base class: ``epsilon`` and domain size ``d`` in, p* (``p``) and q* (``q``) derived once.

    Subclasses implement ``_support_probabilities() -> (p, q)`` and ``output_table()``.
    """

    epsilon: float  # privacy budget ε
    d: int  # domain size; values are 0, ..., d−1
    p: float = field(init=False)  # p*: Pr[a report supports the user's own value]
    q: float = field(init=False)  # q*: Pr[a report supports a given other value]

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "d", check_int("d", self.d, low=2))
        p, q = self._support_probabilities()
        if not (0.0 < q < p < 1.0):
            raise ValueError(
                f"epsilon={self.epsilon!r} is too large for {type(self).__name__} with d={self.d} in double "
                f"precision (q* = {q!r} underflows or p* = {p!r} rounds to 1); use a smaller epsilon"
            )
        object.__setattr__(self, "p", float(p))
        object.__setattr__(self, "q", float(q))

    def _support_probabilities(self) -> tuple[float, float]:  # pragma: no cover - abstract
        raise NotImplementedError

    def privacy_loss(self) -> float:
        """ε computed exactly from :meth:`output_table` by :func:`~ldp_helpers.privacy.max_privacy_loss`."""
        return max_privacy_loss(self.output_table())

    def true_counts_and_n(self, true_counts) -> tuple[np.ndarray, int]:
        """Validate a vector of d true counts (at least one user); return it and n = Σ counts."""
        return check_true_counts(true_counts, self.d)

    def sample_support_counts(self, true_counts, *, rng: np.random.Generator, n_draws: int | None = None) -> np.ndarray:
        """Exact aggregate sampler: ``C_i ~ Binomial(f_i, p*) + Binomial(n − f_i, q*)``, independent in i.

        Valid when a report's support of each value is an independent Bernoulli given the
        true value (unary encodings, local hashing with an idealized hash); GRR overrides it.
        With ``n_draws`` the result has shape (n_draws, d): independent surveys of the same
        population, drawn in two Generator calls (the per-call overhead amortized).
        """
        counts, n = self.true_counts_and_n(true_counts)
        rng = check_rng(rng)
        size = None if n_draws is None else (check_int("n_draws", n_draws, low=1), self.d)
        return rng.binomial(counts, self.p, size=size) + rng.binomial(n - counts, self.q, size=size)

    def estimate_counts(self, support_counts, n) -> np.ndarray:
        """Unbiased count estimates ``ĉ(i) = (C(i) − n q*)/(p* − q*)`` for every value i.

        Parameters
        ----------
        support_counts : array_like, shape (d,)
            C(i), the number of reports supporting each value (from :meth:`support_counts`
            or :meth:`sample_support_counts`).
        n : int
            Number of reports.

        References
        ----------
        Tutorial seed (003), "Frequency Oracles", ĉ(i); Wang et al. 2017, Eq. (1).
        """
        n = check_int("n", n, low=1)
        counts = check_count_vector("support_counts", support_counts, self.d, high=n)
        return unbiased_count(counts, n, self.p, self.q)

    def count_variance(self, true_counts) -> np.ndarray:
        """Exact ``Var[ĉ(i)] = (f_i p*(1−p*) + (n−f_i) q*(1−q*))/(p*−q*)²`` for every value i.

        References
        ----------
        Wang et al. 2017, proof of Theorem 2 (before the large-n approximation).
        """
        counts, n = self.true_counts_and_n(true_counts)
        return count_variance(counts, n, self.p, self.q)

    def approx_count_variance(self, n) -> float:
        """Wang et al.'s *approximation* ``Var[ĉ(i)] ≈ n q*(1−q*)/(p*−q*)²``.

        It drops the f_i (p*(1−p*) − q*(1−q*)) term, i.e. treats every value as rare
        (f_i ≪ n).  That is harmless at small ε but not when p*(1−p*) ≫ q*(1−q*): e.g. for OUE
        p*(1−p*) = 1/4 while q*(1−q*) ≈ e^{−ε}, so at large ε the true variance of a frequent
        value exceeds the approximation by a factor ≈ 1 + (f_i/n)(e^ε/4 − 1).

        References
        ----------
        Wang et al. 2017, Eq. (2) / Theorem 2; tutorial seed (003), the variance table.
        """
        n = check_int("n", n, low=1)
        return float(count_variance(0.0, n, self.p, self.q))
