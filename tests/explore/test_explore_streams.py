"""The continual-counting panel's computation (explore/streams.py) at extreme but legal values."""

import warnings

import numpy as np
import pytest

from ldp_tools.explore.streams import continual_counting_curves

SETTING = dict(mu=0.5, n_users=2000, n_rounds=4, beta=0.1, epsilon_max=4.0, n_draws=3, seed=0)


@pytest.mark.parametrize("n_rounds", [1, 4, 100])
def test_an_epsilon_max_below_the_budgets_floor_is_refused_naming_epsilon_max(n_rounds):
    """ε_max = 5e-324 made the grid's first ε 0 (refused as ``epsilon``, the panel has no such control);
    the floor is T·1e-11 (T-shot's per-round ε_max/10/T at least 1e-12), refused below and drawn at it."""
    setting = {**SETTING, "n_rounds": n_rounds, "n_users": 10**6}
    floor = 1e-11 * n_rounds
    for bad in (5e-324, floor * (1 - 1e-12)):
        with pytest.raises(
            ValueError,
            match=rf"^epsilon_max must be in \[{floor:g}, 30\] with n_rounds = {n_rounds}",
        ):
            continual_counting_curves(**{**setting, "epsilon_max": bad})
    curves = continual_counting_curves(**{**setting, "epsilon_max": floor * (1 + 1e-12)})
    assert curves.epsilons[0] / n_rounds >= 1e-12


@pytest.mark.parametrize("mu", [5e-324, 1e-310])
def test_a_subnormal_mu_draws_without_warnings_and_condition2_holds(mu):
    """μ subnormal: D(μ + θ‖μ) overflowed in (μ + θ)/μ (a warning); it is finite and large, and with
    D(μ − θ‖μ) = ∞ condition (2) holds at every ε, as at μ = 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curves = continual_counting_curves(**{**SETTING, "mu": mu})
        at_zero = continual_counting_curves(**{**SETTING, "mu": 0.0})
    assert curves.condition2.all() and at_zero.condition2.all()
    assert all(np.all(np.isfinite(v)) for v in curves.mean_error.values())
