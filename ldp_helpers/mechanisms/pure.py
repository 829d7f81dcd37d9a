"""The pure-LDP frequency-oracle framework shared by every pure protocol.

Wang et al. ([wang2017]; [tutorial] "Frequency Oracles") call a protocol
*pure* when there are p* > q* such that a report "supports" the user's true value with
probability p* and supports any other fixed value with probability q*.  The aggregator counts
the supporting reports C(i) and debiases them.  These two functions are the single place where
that estimator and its exact variance are written down; every mechanism module calls them.

References
----------
[wang2017] §3; [wang2017] Eq. (1); [tutorial] "Frequency Oracles".
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ldp_helpers._validation import (
    check_allocation,
    check_int,
    check_probability,
    check_real_array,
    fail,
)


def _check_channel(n, p, q) -> tuple[float, float]:
    """The boundary checks shared by the closed forms: n ≥ 1 reports, probabilities p* > q*."""
    check_real_array("n", n, low=1.0, low_open=False)
    p, q = check_probability(p, "p"), check_probability(q, "q")
    if not p > q:
        fail("p", p, f"> q = {q:g} (p* > q*)")
    return p, q


def unbiased_count(support_count, n, p, q):
    """Unbiased estimate of the true count of a value from its support count.

    ``ĉ(i) = (C(i) − n q*) / (p* − q*)``, with ``E[C(i)] = c(i) p* + (n − c(i)) q*``.

    Parameters
    ----------
    support_count : array_like
        C(i), the number of reports supporting value i.
    n : int or array_like
        Number of reports.
    p, q : float
        p* and q* of the protocol (p > q).

    References
    ----------
    [wang2017] Eq. (1); [tutorial] "Frequency Oracles" (the estimator ĉ(i)).
    """
    _check_channel(n, p, q)
    support_count = check_real_array("support_count", support_count)
    return (support_count - np.asarray(n) * q) / (p - q)


def count_variance(true_count, n, p, q):
    """Exact variance of :func:`unbiased_count` for a fixed population.

    ``Var[ĉ(i)] = (c(i) p*(1 − p*) + (n − c(i)) q*(1 − q*)) / (p* − q*)²``: the support count
    is a sum of ``c(i)`` Bernoulli(p*) and ``n − c(i)`` Bernoulli(q*) independent indicators.

    References
    ----------
    [wang2017] Theorem 2 (its proof, before the large-n approximation).
    """
    _check_channel(n, p, q)
    c = check_real_array("true_count", true_count, low=0.0, low_open=False)
    return (c * p * (1 - p) + (np.asarray(n) - c) * q * (1 - q)) / (p - q) ** 2


def expected_support_count(true_count, n, p, q):
    """``E[C(i)] = c(i) p* + (n − c(i)) q*``, the mean support count of a value with true count c(i).

    References
    ----------
    [wang2017] Theorem 2 (its proof); [tutorial] "Frequency Oracles".
    """
    _check_channel(n, p, q)
    c = check_real_array("true_count", true_count, low=0.0, low_open=False)
    return c * p + (np.asarray(n) - c) * q


def support_count_pmf(true_count: int, n: int, p: float, q: float) -> np.ndarray:
    """Exact pmf over 0..n of the support count ``C(i) ~ Binomial(c(i), p*) + Binomial(n − c(i), q*)``.

    The convolution of the two binomial pmfs (O(n²) work: for exact checks at moderate n).

    References
    ----------
    [wang2017] Theorem 2 (its proof: the support count is a sum of independent indicators).
    """
    n = check_int("n", n, low=0)
    c = check_int("true_count", true_count, low=0)
    if c > n:
        fail("true_count", c, f"an integer in [0, n = {n}]")
    check_probability(p, "p"), check_probability(q, "q")
    check_allocation("n", n, 3 * (n + 1), what="three pmfs over 0..n")
    return np.convolve(
        stats.binom.pmf(np.arange(c + 1), c, p), stats.binom.pmf(np.arange(n - c + 1), n - c, q)
    )
