"""The exact shuffle profile against Google's dp-accounting PLD library: one collection and composed ones.

Tolerance: dp-accounting discretizes the privacy loss on a grid of width h = 1e-5 (pessimistic rounding up,
optimistic down), so its two estimates bracket the exact δ(ε); we require optimistic ≤ ours ≤ pessimistic
(with 1e-12 relative slack for floating point) and the bracket itself to be within 1 % relative (at δ down to 1e-47).
"""

import math

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from ldp_helpers.bounds import shuffle as S

H = 1e-5
EPSILONS = (0.05, 0.2, 0.5, 1.0)


def _plds(log_p, log_q, pessimistic):
    """Both directions' PLDs of one pair (dp-accounting's δ is H_{e^ε}(upper ‖ lower))."""
    mk = lambda upper, lower: pld_lib.from_two_probability_mass_functions(  # noqa: E731
        dict(enumerate(lower)),
        dict(enumerate(upper)),
        pessimistic_estimate=pessimistic,
        value_discretization_interval=H,
        symmetric=False,
    )
    return mk(log_p, log_q), mk(log_q, log_p)


def _pld_deltas(profile, pessimistic, times=1):
    """δ(ε) at EPSILONS from dp-accounting: the largest over pairs and directions (composed ``times`` times)."""
    out = np.zeros(len(EPSILONS))
    for log_p, log_q in profile.pairs:
        for pld in _plds(log_p, log_q, pessimistic):
            pld = pld.self_compose(times) if times > 1 else pld
            out = np.maximum(out, [pld.get_delta_for_epsilon(eps) for eps in EPSILONS])
    return out


@pytest.mark.parametrize(
    "profile",
    [S.binary_rr_profile(2000, 2.0), S.grr_profile(60, 1.5, 4)],
    ids=["binary RR n=2000", "4-RR n=60"],
)
def test_one_collection_agrees_with_dp_accounting(profile):
    """dp-accounting's optimistic and pessimistic δ(ε) bracket ours, and are within 1 % of each other."""
    lows, highs = _pld_deltas(profile, False), _pld_deltas(profile, True)
    for eps, low, high in zip(EPSILONS, lows, highs):
        ours = profile.delta(eps)
        assert low * (1 - 1e-12) <= ours <= high * (1 + 1e-12)
        assert high - low <= 1e-2 * high


def _exact_two_fold(log_p, log_q, eps):
    """δ of two independent collections, exactly: the product laws' hockey-stick, over all pairs of outcomes."""
    lp, lq = (a[:, None] + a[None, :] for a in (log_p, log_q))
    hs = lambda a, b: float(np.sum(np.maximum(np.exp(a) - math.exp(eps) * np.exp(b), 0.0)))  # noqa: E731
    return max(hs(lp, lq), hs(lq, lp))


def test_composed_collections_agree_with_the_exact_product():
    """Two collections from the same users (binary RR, n = 300, ε₀ = 2): dp-accounting's composed PLD brackets the
    exact hockey-stick of the product laws; the bracket is within 1 %; and composition costs privacy."""
    profile = S.binary_rr_profile(300, 2.0)
    ((log_p, log_q),) = profile.pairs
    lows, highs = _pld_deltas(profile, False, times=2), _pld_deltas(profile, True, times=2)
    for eps, low, high in zip(EPSILONS, lows, highs):
        exact = _exact_two_fold(log_p, log_q, eps)
        assert low * (1 - 1e-9) <= exact <= high * (1 + 1e-9)
        assert high - low <= 1e-2 * high
        assert exact > profile.delta(eps)
