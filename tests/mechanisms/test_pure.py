"""The pure-LDP estimator, its exact variance, and the exact law of a support count."""

import mpmath as mp
import numpy as np
import pytest

from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.local_hashing import OLH
from ldp_helpers.mechanisms.pure import (
    count_variance,
    expected_support_count,
    support_count_pmf,
    unbiased_count,
)
from ldp_helpers.mechanisms.unary_encoding import OUE, SUE


@pytest.mark.parametrize(
    "c, n, p, q", [(0, 7, 0.6, 0.2), (3, 7, 0.6, 0.2), (7, 7, 0.9, 0.05), (12, 30, 0.5, 0.25)]
)
def test_estimator_moments_are_exact(c, n, p, q):
    """Over the exact pmf, E[ĉ] = c and Var[ĉ] is count_variance; E[C] is expected_support_count."""
    pmf = support_count_pmf(c, n, p, q)
    support = np.arange(n + 1)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.sum(pmf * support) == pytest.approx(expected_support_count(c, n, p, q), abs=1e-10)
    est = unbiased_count(support, n, p, q)
    assert np.sum(pmf * est) == pytest.approx(c, abs=1e-9)
    assert np.sum(pmf * (est - c) ** 2) == pytest.approx(count_variance(c, n, p, q), rel=1e-9)


def test_pmf_rejects_counts_outside_the_population():
    """A true count above n is refused, naming true_count and the range [0, n]."""
    with pytest.raises(ValueError, match=r"true_count must be an integer in \[0, n = 5\]; got 6"):
        support_count_pmf(6, 5, 0.5, 0.2)


@pytest.mark.parametrize("oracle", [GRR(1e-12, 5), OUE(1e-12, 5), SUE(1e-12, 5), OLH(1e-12, 5)])
def test_count_variance_is_exact_for_the_channel_that_runs_at_the_smallest_epsilon(oracle):
    """At ε = 1e-12, p − q of the oracle's two floats is exact (Sterbenz: q/2 ≤ p ≤ 2q), so count_variance is
    the variance of the channel the sampler and the client draw with to 1e-15 (60-digit reference).  The
    ideal channel's gap (e.g. OUE's tanh(ε/2)/2) differs from it by about 1e-4 relative: a variance built on
    it would describe a mechanism that never runs."""
    p, q = oracle.p, oracle.q
    with mp.workdps(60):
        P, Q = mp.mpf(p), mp.mpf(q)
        assert mp.mpf(p - q) == P - Q  # the float subtraction is exact
        exact = (3 * P * (1 - P) + 7 * Q * (1 - Q)) / (P - Q) ** 2
        assert abs(count_variance(3, 10, p, q) - exact) / exact < 1e-15
