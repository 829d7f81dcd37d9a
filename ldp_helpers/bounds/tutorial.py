"""Exact numbers behind the tutorial's statements ([tutorial]): its settings, composed loss, LDP's √n/ε noise.

The tutorial's RAPPOR formulas, including its printed p′ (:func:`tutorial_printed_p_star`, a typo the
notebook records), are evaluated in :mod:`ldp_helpers.bounds.rappor`, which 02_rappor shares; the
name is re-exported here so the tutorial's statements come from one module.

References
----------
[tutorial] "Randomized response"; [tutorial] "Challenges in the local model";
[tutorial] "Apple's implementation of LDP".
"""

from __future__ import annotations

import math

from ldp_helpers._validation import (
    Described,
    check_int,
    check_probabilities,
    check_probability,
    fail,
)
from ldp_helpers.bounds.rappor import tutorial_printed_p_star  # noqa: F401  (re-exported: the tutorial's printed p')
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.randomized_response import BinaryRR

MAX_COMPOSED_OUTPUTS = 2**20  # largest (outputs)^reports of composed_privacy_loss's table

#: Warner's two coins: p = 3/4, q = 1/4, so the privacy loss ln(p/q) = ln 3 ([tutorial] "Randomized response")
WARNER_EPSILON = math.log(3)
#: Tang et al., as the tutorial reports them: one report costs ε = 1 to 2, and a device sends up to 16 a day
#: ([tutorial] "Apple's implementation of LDP": 一日に16回まで許されている; Tang et al. themselves report
#: the daily privacy loss, up to 16)
APPLE_EPSILON_PER_REPORT = (1.0, 2.0)
APPLE_REPORTS_PER_DAY = 16


def composed_privacy_loss(table, reports: int) -> float:
    """Exact privacy loss of ``reports`` independent uses of a mechanism with output table ``table``.

    The composed table has one column per tuple of outputs (product probabilities); its loss is
    computed by :func:`~ldp_helpers.mechanisms.privacy.max_privacy_loss` (sequential composition
    says ≤ k·ε).

    References
    ----------
    [tutorial] "Apple's implementation of LDP" (daily ε of 16 reports); [tutorial] Eq. (2).
    """
    table = check_probabilities("table", table, ndim=2, what="(inputs × outputs)")
    reports = check_int("reports", reports, low=1)
    # logs: no 2^(10^12) integer
    if reports * math.log(table.shape[1]) > math.log(MAX_COMPOSED_OUTPUTS):
        fail(
            "reports",
            reports,
            f"such that (outputs)^reports <= 2^20 ({table.shape[1]} outputs per report)",
        )
    composed = table
    for _ in range(reports - 1 if table.shape[1] > 1 else 0):  # one output: its own composition
        composed = (composed[:, :, None] * table[:, None, :]).reshape(table.shape[0], -1)
    return max_privacy_loss(composed)


def ldp_noise_ratio(rr: BinaryRR, true_fraction: float, n: int) -> float:
    """sd of the RR count estimate × ε / √n: tends to 1 as ε → 0 (LDP noise is of order √n/ε).

    References
    ----------
    [tutorial] "Challenges in the local model" (noise of order √n/ε).
    """
    true_fraction = check_probability(true_fraction, "true_fraction")
    n = check_int("n", n, low=1)
    if not isinstance(rr, BinaryRR):
        fail("rr", Described(type(rr).__name__), "a BinaryRR")
    return n * math.sqrt(rr.fraction_variance(true_fraction, n)) * rr.epsilon / math.sqrt(n)
