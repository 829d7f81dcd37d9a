"""The shuffle model's view as an audit client: the count vector of n shuffled k-RR reports.

:class:`ShuffledGRRClient` is what the server sees when user 1 holds x₁ and the other n − 1 users all
hold ``others``: the k counts of the n reports (binary RR is k = 2).  Its ``sample`` draws the counts
from their exact law — the others' counts are one Multinomial(n − 1, their k-RR row), plus user 1's
own report (tests/shuffle_reference.py holds the per-user reference the tests check it against: every
user randomizes with :class:`~ldp_helpers.mechanisms.grr.GRR`, the shuffler permutes the n reports, the
server counts them).  With ``leak_order=True`` the shuffler is broken: it leaves user 1's report first,
so the view also holds that report (the audit of it must find ε_lb near ε₀, far above ε_c).

For an (ε, δ)-DP view an event E obeys P₀(E) ≤ e^ε P₁(E) + δ, so the audit's δ-aware lower bound
``ln((P₀,low − δ)/P₁,high)`` (:func:`epsilon_lower_bound_at_delta`) is at most the exact ε_c(δ) of
:mod:`ldp_helpers.bounds.shuffle` with the audit's confidence.

References
----------
[arcolezi2024] §4 (the audit); [erlingsson2019] (the shuffle model).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import (
    MAX_N_DRAWS,
    check_bool,
    check_epsilon,
    check_int,
    check_probability,
    check_rng,
)
from ldp_helpers.mechanisms.grr import GRR, grr_probabilities


@dataclass(frozen=True)
class ShuffledGRRClient:
    """The server's view of shuffled k-RR: user 1 holds the audited value, the n − 1 others hold ``others``."""

    n: int
    epsilon0: float
    k: int = 2
    others: int = 0
    leak_order: bool = False

    def __post_init__(self):
        check_int("n", self.n, low=2, high=10**9)
        check_epsilon(self.epsilon0, "epsilon0")
        check_int("k", self.k, low=2, high=4096)
        check_int("others", self.others, low=0, high=self.k - 1)
        check_bool("leak_order", self.leak_order)

    def sample(self, value, n: int, *, rng: np.random.Generator) -> np.ndarray:
        """``n`` views for x₁ = ``value``: rows of k counts (after user 1's report if the order leaks)."""
        value = check_int("value", value, low=0, high=self.k - 1)
        n, rng = check_int("n", n, low=1, high=MAX_N_DRAWS), check_rng(rng)
        p, q = grr_probabilities(self.epsilon0, self.k)
        row = np.full(self.k, q)
        row[self.others] = p
        counts = rng.multinomial(self.n - 1, row / row.sum(), size=n)  # the n − 1 others, at once
        own = GRR(self.epsilon0, self.k).perturb(np.full(n, value), rng=rng)
        counts[np.arange(n), own] += 1
        return np.column_stack([own, counts]) if self.leak_order else counts


def epsilon_lower_bound_at_delta(p0_low: float, p1_high: float, delta: float) -> float:
    """``max(0, ln((P₀,low − δ) / P₁,high))``: the audit's lower bound on ε at δ (0 when P₀,low ≤ δ).

    Any (ε, δ)-DP view has P₀(E) ≤ e^ε P₁(E) + δ for every event E, hence ε ≥ this bound whenever the
    two Clopper–Pearson bounds hold.
    """
    p0_low = check_probability(p0_low, "p0_low")
    p1_high = check_probability(p1_high, "p1_high", open_low=True)
    delta = check_probability(delta, "delta")
    if p0_low <= delta:
        return 0.0
    ratio = (p0_low - delta) / p1_high  # beyond 1e308 (a subnormal P₁,high): the logs' difference
    return max(
        0.0, math.log(ratio) if ratio < math.inf else math.log(p0_low - delta) - math.log(p1_high)
    )
