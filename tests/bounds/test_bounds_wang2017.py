"""The DE/OUE/OLH comparison behind the phase diagram."""

import math

import numpy as np
import pytest

from ldp_helpers.bounds.wang2017 import (
    approx_variance_per_user,
    best_protocol_grid,
    de_threshold,
    de_threshold_epsilon,
    first_d_where_oue_wins,
    prefers_direct_encoding,
)


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, 2.0, 3.0])
def test_de_wins_exactly_below_3e_eps_plus_2(epsilon):
    """Var_DE < Var_OUE iff d < 3e^ε + 2 (checked on both sides of the boundary)."""
    threshold = de_threshold(epsilon)
    assert threshold == pytest.approx(3 * math.exp(epsilon) + 2, rel=1e-14)
    below, above = math.ceil(threshold) - 1, math.floor(threshold) + 1
    assert approx_variance_per_user("DE", max(below, 2), epsilon) < approx_variance_per_user(
        "OUE", max(below, 2), epsilon
    )
    assert approx_variance_per_user("DE", above, epsilon) > approx_variance_per_user(
        "OUE", above, epsilon
    )


def test_grid_picks_de_for_small_domains_and_ue_or_lh_for_large():
    """On a grid the winner is DE below the boundary and OUE/OLH above it."""
    ds, eps = np.array([2, 4, 8, 16, 64, 256, 1024]), np.array([0.5, 1.0, 2.0, 4.0])
    best, var = best_protocol_grid(ds, eps)
    for i, e in enumerate(eps):
        assert np.all((best[i] == 0) == (ds < de_threshold(e)))
    assert np.all(var > 0)


def test_rejects_unknown_protocol():
    """Unknown protocol names are refused."""
    with pytest.raises(ValueError, match="name must be one of"):
        approx_variance_per_user("RAPPOR", 10, 1.0)


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, 2.0, 5.0])
def test_first_d_where_oue_wins_is_just_above_the_threshold(epsilon):
    """The bisection on computed variances lands on floor(3e^ε + 2) + 1 (the closed form is not used)."""
    assert first_d_where_oue_wins(epsilon) == math.floor(de_threshold(epsilon)) + 1


def test_rejects_bad_grids_and_huge_epsilon():
    """Non-integer or empty domain sizes and bad ε are refused; ε beyond e^ε's range gives an infinite threshold."""
    with pytest.raises(ValueError, match="domain_sizes must be an array of integers"):
        best_protocol_grid([2.7, 4], [1.0])
    with pytest.raises(ValueError, match="domain_sizes must be a non-empty array"):
        best_protocol_grid([], [1.0])
    with pytest.raises(ValueError, match=r"epsilons must be finite values in \[1e-12, inf\)"):
        best_protocol_grid([4], [0.0])
    assert de_threshold(800.0) == math.inf
    with pytest.raises(ValueError, match="max_d must be above the switch point"):
        first_d_where_oue_wins(8.0, max_d=100)


@pytest.mark.parametrize("d", [3, 6, 11, 43, 500])
def test_de_rule_in_epsilon_is_the_inverse_threshold(d):
    """de_threshold_epsilon(d) = ln((d−2)/3) solves de_threshold(ε) = d; prefers_direct_encoding follows the rule."""
    eps = de_threshold_epsilon(d)
    assert eps == pytest.approx(math.log((d - 2) / 3), rel=1e-15)
    if eps > 0:
        assert de_threshold(eps) == pytest.approx(d, rel=1e-12)
        assert prefers_direct_encoding(d, eps * 1.01) and not prefers_direct_encoding(d, eps * 0.99)


def test_de_threshold_accepts_arrays():
    """An array of budgets gives the elementwise thresholds (inf where e^ε overflows)."""
    eps = np.array([0.5, 1.0, 800.0])
    assert np.allclose(de_threshold(eps)[:2], [de_threshold(0.5), de_threshold(1.0)], rtol=1e-15)
    assert de_threshold(eps)[2] == np.inf
    with pytest.raises(ValueError, match="epsilon"):
        de_threshold(np.array([1.0, -1.0]))
