"""GRR vs OUE ([grr_vs_oue]): exact and approximate frequency MSEs and where they cross.

MSEs are of the estimated *frequencies* ĉ(i)/n, averaged over the d values:

    MSE = (1/d) Σ_i E[(ĉ(i)/n − f_i/n)²] = (1/(d n²)) Σ_i Var[ĉ(i)]   (the estimator is unbiased).

Summing the exact variances over i, the f_i-terms add up to n, so this MSE depends on n and d
only, not on the distribution:

    GRR:  n (d−1)(2e^ε + d − 2) / (e^ε − 1)²,     OUE:  n ((e^ε + 1)² + 4(d−1) e^ε) / (e^ε − 1)²

(Σ_i Var[ĉ(i)]).  They are equal where e^{2ε} + 2d e^ε + 1 − (d−1)(d−2) = 0, i.e. at
ε* = ln(√((2d−1)(d−1)) − d) (:func:`crossover_epsilon_exact`; 2.818 for d = 43).  Wang et al.'s
approximation Var ≈ n q*(1−q*)/(p*−q*)² drops the f_i-terms and gives the thesis' rule
"OUE better iff d > 3e^ε + 2", i.e. ε < ln((d−2)/3) (:func:`crossover_epsilon_wang`; 2.615).

References
----------
[grr_vs_oue] §2.3; [grr_vs_oue] §3.6; [wang2017] §4 (the approximate comparison).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from ldp_helpers._validation import (
    Described,
    check_counts,
    check_epsilons,
    check_histogram,
    check_instance,
    check_int,
    check_probability,
    check_true_counts,
    fail,
)
from ldp_helpers.bounds.wang2017 import de_threshold_epsilon
from ldp_helpers.mechanisms.base import FrequencyOracle, PureFrequencyOracle
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.unary_encoding import OUE

#: the two protocols compared, by the thesis' names
PROTOCOLS = {"GRR": GRR, "OUE": OUE}


def section_2_2_expectation(true_counts, p: float, q: float) -> np.ndarray:
    """§2.2's expected GRR support counts, E[f'_i] = f_i p + (n − f_i) q/(d − 1), as the thesis writes it.

    The thesis' words make q the probability of reporting *some* other value (q = 1 − p); with
    Algorithm 1's q = 1/(e^ε + d − 1), one *particular* other value, the same formula is wrong
    (compare :func:`~ldp_helpers.mechanisms.pure.expected_support_count`).

    References
    ----------
    [grr_vs_oue] §2.2; [grr_vs_oue] Algorithm 1.
    """
    counts = check_histogram(true_counts)
    p, q = check_probability(p, "p"), check_probability(q, "q")
    return counts * p + (counts.sum() - counts) * q / (counts.size - 1)


def section_2_2_estimate(support, p: float, q: float) -> np.ndarray:
    """§2.2's estimator in its first form, L[f_i] = (f'_i(d − 1) − nq)/(p(d − 1) − q), n = Σ f'_i, as the
    thesis writes it.

    The same line's second form, (f'_i(d − 1) − n(1 − p))/(dp − 1) (Algorithm 2's), equals it only for
    q = 1 − p, the meaning §2.2's words give q; the worked example substitutes Algorithm 1's
    q = 1/(e^ε + d − 1) instead.

    References
    ----------
    [grr_vs_oue] §2.2; [grr_vs_oue] Algorithm 2; [grr_vs_oue] §2.2.1 (the worked example).
    """
    support = check_counts("support", support)
    p, q = check_probability(p, "p"), check_probability(q, "q")
    d = support.size
    if not q < p * (d - 1):
        fail("q", q, f"below p(d − 1) = {p * (d - 1):g} (the estimator divides by p(d − 1) − q)")
    return (support * (d - 1) - support.sum() * q) / (p * (d - 1) - q)


def theoretical_mse(protocol, true_counts) -> float:
    """Exact frequency MSE, ``mean_i Var[ĉ(i)] / n²`` from the protocol's exact variance.

    References
    ----------
    [grr_vs_oue] §3.5 (the MSE of Fig. 3.7 and Fig. 3.8); [wang2017] Theorem 2 (exact variance, before approximation).
    """
    counts, n = check_true_counts(
        true_counts, check_instance("protocol", protocol, FrequencyOracle).d
    )
    return _mse(protocol, counts, n)


def _mse(protocol, counts, n) -> float:
    return float(np.mean(protocol.variance(counts)) / n**2)


def approx_mse(protocol, n: int) -> float:
    """Wang et al.'s approximate frequency MSE, ``Var* / n²`` with Var* ≈ n q*(1−q*)/(p*−q*)².

    References
    ----------
    [wang2017] Eq. (2); [grr_vs_oue] §2.3.
    """
    n = check_int("n", n, low=1)
    return check_instance("protocol", protocol, PureFrequencyOracle).approx_variance(n) / n**2


def crossover_epsilon_wang(d: int) -> float:
    """ε below which OUE beats GRR under Wang et al.'s approximation: ln((d − 2)/3).

    From ``(e^ε + d − 2)/(e^ε − 1)² > 4e^ε/(e^ε − 1)²`` ⟺ ``d > 3e^ε + 2``
    (:func:`~ldp_helpers.bounds.wang2017.de_threshold_epsilon`).  A value ≤ 0 means GRR is
    better for every ε > 0 (d ≤ 5).

    References
    ----------
    [wang2017] §4 (comparing DE and OUE); [grr_vs_oue] §2.3; [grr_vs_oue] §3.6.
    """
    return de_threshold_epsilon(check_int("d", d, low=3))


def crossover_epsilon_exact(d: int) -> float:
    """ε where the exact frequency MSEs of GRR and OUE are equal: ln(√((2d−1)(d−1)) − d).

    Below it OUE has the smaller MSE, above it GRR (see the module docstring); it does not
    depend on n or on the distribution.  A value ≤ 0 means GRR is better for every ε > 0 (d ≤ 5).

    References
    ----------
    [grr_vs_oue] §3.6 (the reversal between ε = 2 and 3, here in closed form).
    """
    d = check_int("d", d, low=3)
    return math.log(math.sqrt((2 * d - 1) * (d - 1)) - d)


def mse_ratio(true_counts, epsilons) -> np.ndarray:
    """Exact MSE_GRR / MSE_OUE at each ε for one histogram (> 1: OUE is better).

    References
    ----------
    [grr_vs_oue] §3.6.
    """
    counts = check_histogram(true_counts)
    epsilons = check_epsilons(epsilons)
    n = int(counts.sum())
    return np.array(
        [
            _mse(GRR(e, counts.size), counts, n) / _mse(OUE(e, counts.size), counts, n)
            for e in epsilons.ravel()
        ]
    )


def crossover_epsilon_numeric(true_counts, *, bracket=(1e-3, 20.0)) -> float:
    """The ε where this histogram's exact GRR and OUE MSEs are equal, found by root finding.

    Independent of the closed form :func:`crossover_epsilon_exact`: it solves
    ``ln(MSE_GRR/MSE_OUE) = 0`` (Brent's method) on the given histogram, so comparing histograms
    of different n and skew shows whether either moves the crossover.

    Raises
    ------
    ValueError
        If the MSEs do not cross inside ``bracket`` (e.g. d ≤ 5: GRR better at every ε).

    References
    ----------
    [grr_vs_oue] §3.6; [grr_vs_oue] §4.1 (the role of n and skew).
    """
    counts = check_counts("true_counts", true_counts)
    lo, hi = bracket

    def log_ratio(epsilon):
        return math.log(mse_ratio(counts, epsilon)[0])

    if not log_ratio(lo) > 0 > log_ratio(hi):
        fail(
            "true_counts",
            Described(f"a histogram over d = {counts.size} values"),
            f"a histogram giving a GRR/OUE crossover in ε ∈ [{lo:g}, {hi:g}] (MSE_GRR/MSE_OUE = "
            f"{math.exp(log_ratio(lo)):.4g} at {lo:g} and {math.exp(log_ratio(hi)):.4g} at {hi:g})",
        )
    return float(optimize.brentq(log_ratio, lo, hi, xtol=1e-13))
