"""Duchi, Jordan and Wainwright's one-dimensional mean mechanism: one ±B report per user, minimax-optimal.

Client.  A user with x ∈ [−r, r] reports Z = +B or −B with

    Pr[Z = +B | x] = 1/2 + x (e^ε − 1)/(2r (e^ε + 1)) = (1 + x/B)/2,   B = r (e^ε + 1)/(e^ε − 1),

so E[Z] = x.  Pr[+B | x] is affine in x, so the largest ratio over inputs is at x = ±r:
(e^ε/(e^ε+1)) / (1/(e^ε+1)) = e^ε, exactly ε-LDP.  :meth:`DuchiMean.output_table` lists the
inputs −r, −r/2, 0, r/2, r (both extremes included), so its loss is the exact ε over all of [−r, r].

Server.  The aggregate is the number K of +B reports, the estimate the mean of the reports,
μ̂ = B(2K − n)/n, unbiased with exact variance Var[μ̂] = Σ_u (B² − x_u²)/n² for the users' values
x_u; B² ≈ 4r²/ε² for small ε: the 1/(n ε²) rate of the minimax lower bound.

Truth.  The users' values themselves (a 1-D array in [−r, r]); the exact sampler draws
K = Σ_v Bin(c_v, (1 + v/B)/2) over the distinct values v (counts c_v): exactly batched, one binomial
per distinct value.

References
----------
[duchi2018] (one-dimensional mean estimation; the ±B mechanism and its minimax optimality);
[duchi2013] (local privacy and minimax rates).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_allocation,
    check_epsilon,
    check_int,
    check_ndim,
    check_real,
    check_real_array,
    check_rng,
    fail,
)
from ldp_helpers.mechanisms.base import Mechanism, _check_int_aggregate, batch_shape
from ldp_helpers.mechanisms.randomized_response import q_bin_gap, q_bin_probabilities

# beyond, tanh(ε/2) rounds towards 1 and Pr[+B | −r] towards 0 in double precision
MAX_EPSILON = 30.0
#: largest report magnitude B: n·B² stays finite for every n < 2^62 (2^960·2^62 < 2^1024)
MAX_B = 2.0**480


@dataclass(frozen=True)
class DuchiMean(Mechanism):
    """The ±B mechanism for a mean of values in [−r, r] at budget ε (``radius`` = r).

    Derived once: ``B`` = r(e^ε + 1)/(e^ε − 1) = r / tanh(ε/2).  Reports are ±B (floats); the
    aggregate the number of +B reports; the estimate the mean.

    References
    ----------
    [duchi2018]; [duchi2013].
    """

    epsilon: float  # privacy budget ε
    radius: float = 1.0  # r: inputs lie in [−r, r]
    B: float = field(init=False)  # the report magnitude

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon, high=MAX_EPSILON))
        object.__setattr__(self, "radius", check_real("radius", self.radius, low=0.0))
        object.__setattr__(self, "B", self.radius / q_bin_gap(self.epsilon))
        if not self.B <= MAX_B:  # (r ≤ 2^480·tanh(ε/2); no ε ≥ MIN_EPSILON alone gets there)
            fail(
                "radius",
                self.radius,
                f"at most 2^480·tanh(ε/2) = {MAX_B * q_bin_gap(self.epsilon):.6g} at epsilon = "
                f"{self.epsilon:g} (B = r/tanh(ε/2) ≤ 2^480: the variance's sum of n·B² stays finite)",
            )

    @property
    def report_bits(self) -> int:
        """Bits sent per report: the sign of Z, 1."""
        return 1

    def _plus_probability(self, x):
        """Pr[Z = +B | x] = (1 + x/B)/2, written λ e^ε/(e^ε + 1) + (1 − λ)/(e^ε + 1) with λ = (1 + x/r)/2 (exact at ±r)."""
        weight = 0.5 * (1.0 + np.asarray(x) / self.radius)
        # Q_Bin's pair: 1 − high ≥ low, so at x = ±r the client's and the binomial's 1 − Pr[+B | x] never
        # fall below Pr[+B | ∓r] (1/(1 + e^{−ε}) rounded up lost ε + 0.001 at ε = 30)
        high, low = q_bin_probabilities(self.epsilon)
        return weight * high + (1.0 - weight) * low

    # ------------------------------------------------------------------ truth
    def _values(self, truth) -> np.ndarray:
        values = check_ndim("truth", truth, 1, what="of the users' values")
        return check_real_array(
            "truth", values, low=-self.radius, high=self.radius, low_open=False, high_open=False
        )

    def expand(self, truth) -> np.ndarray:
        """The users' values (the truth itself)."""
        return self._values(truth)

    def estimand(self, truth) -> float:
        """The mean of the users' values."""
        return float(np.mean(self._values(truth)))

    def n_reports(self, truth) -> int:
        """n, the number of users."""
        return int(self._values(truth).size)

    def variance(self, truth) -> float:
        """Exact Var[μ̂] = Σ_u (B² − x_u²)/n²."""
        values = self._values(truth)
        return float(np.sum(self.B**2 - values**2) / values.size**2)

    # ------------------------------------------------------------------ the channel
    def output_table(self) -> np.ndarray:
        """``P[x, z]`` for x ∈ (−r, −r/2, 0, r/2, r) and z ∈ (−B, +B); its loss is the exact ε over [−r, r]."""
        inputs = np.linspace(-self.radius, self.radius, 5)
        plus = self._plus_probability(inputs)
        return np.column_stack([1.0 - plus, plus])  # Pr[−B | x] as the client draws it

    def perturb(self, values, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference client: Z = +B with probability 1/2 + x(e^ε − 1)/(2r(e^ε + 1)), else −B.

        References
        ----------
        [duchi2018] (the one-dimensional mechanism).
        """
        values = check_real_array(
            "values", values, low=-self.radius, high=self.radius, low_open=False, high_open=False
        )
        rng = check_rng(rng)
        plus = rng.random(values.shape) < self._plus_probability(values)
        return np.where(plus, self.B, -self.B).ravel()

    def aggregate(self, reports) -> np.ndarray:
        """K, the number of +B reports."""
        reports = check_real_array(
            "reports", check_ndim("reports", reports, 1, what="of ±B reports")
        )
        plus = np.isclose(reports, self.B, rtol=1e-12, atol=0.0)
        if not np.all(plus | np.isclose(reports, -self.B, rtol=1e-12, atol=0.0)):
            fail(
                "reports",
                Described("an array with a value other than ±B"),
                f"reports ±B = ±{self.B:.6g}",
            )
        return np.int64(plus.sum())

    def sample_aggregate(
        self, truth, *, rng: np.random.Generator, n_draws: int | None = None
    ) -> np.ndarray:
        """Exact sampler of K: Σ_v Binomial(c_v, (1 + v/B)/2) over the distinct values v with counts c_v."""
        values, counts = np.unique(self._values(truth), return_counts=True)
        rng = check_rng(rng)
        shape = batch_shape(n_draws, ())
        check_allocation(
            "n_draws",
            n_draws,
            max(1, math.prod(shape)) * values.size,
            what="binomials per distinct value",
        )
        draws = rng.binomial(counts, self._plus_probability(values), size=shape + (values.size,))
        return draws.sum(axis=-1)

    def estimate(self, aggregate, n) -> np.ndarray:
        """μ̂ = B(2K − n)/n (K of shape () or (n_draws,))."""
        n = check_int("n", n, low=1)
        plus = _check_int_aggregate(np.asarray(aggregate), (), low=0, high=n)
        return self.B * (2 * plus - n) / n
