"""Accuracy at equal central ε (bounds.shuffle_accuracy): exact MSEs, the calibrated ε₀ and the ordering of the protocols."""

import math

import numpy as np
import pytest

from ldp_helpers.bounds.shuffle import binary_rr_profile, grr_profile
from ldp_helpers.bounds.shuffle_accuracy import (
    frequency_mse_at_central_epsilon,
    local_epsilon_for_central,
)
from ldp_helpers.mechanisms.grr import GRR


def test_calibrated_local_epsilon_meets_the_central_target():
    """The calibrated ε₀ gives ε_c(δ) = target within 1e-3, and ε₀ + 1e-3 exceeds it (the largest such ε₀)."""
    n, eps_c, delta = 2000, 0.3, 1e-6
    eps0 = local_epsilon_for_central(n, eps_c, delta, 2)
    assert binary_rr_profile(n, eps0).epsilon(delta) == pytest.approx(eps_c, abs=1e-3)
    assert binary_rr_profile(n, eps0 + 1e-3).epsilon(delta) > eps_c
    eps0_3 = local_epsilon_for_central(300, 0.6, 1e-5, 3)
    assert grr_profile(300, eps0_3, 3).epsilon(1e-5) == pytest.approx(0.6, abs=1e-3)


def test_mse_table_is_exact_and_ordered():
    """Each MSE is the closed-form variance / n²; at n = 1000, ε_c = 0.5: central < shuffled < local GRR/OUE/OLH."""
    truth = np.array([500, 300, 200])
    out = frequency_mse_at_central_epsilon(truth, 0.5, 1e-6)
    n = 1000
    assert out["local GRR"] == pytest.approx(np.mean(GRR(0.5, 3).variance(truth)) / n**2, rel=1e-12)
    assert out["shuffled GRR"] == pytest.approx(
        np.mean(GRR(out["epsilon0"], 3).variance(truth)) / n**2, rel=1e-12
    )
    assert out["central Laplace"] == pytest.approx(8 / 0.25 / n**2, rel=1e-12)
    local = min(out[k] for k in ("local GRR", "local OUE", "local OLH"))
    assert out["central geometric"] < out["central Laplace"] < out["shuffled GRR"] < local


def test_geometric_variance_is_the_sum_of_its_law():
    """The two-sided geometric (α = e^{−ε/2}) has variance 2α/(1 − α)²: summed from its pmf to 1e-12."""
    eps = 0.5
    alpha = math.exp(-eps / 2)
    z = np.arange(-4000, 4001)
    pmf = (1 - alpha) / (1 + alpha) * alpha ** np.abs(z)
    out = frequency_mse_at_central_epsilon(np.array([1, 1]), eps, 1e-3)
    assert out["central geometric"] * 4 == pytest.approx(float(np.sum(pmf * z**2)), rel=1e-12)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: frequency_mse_at_central_epsilon(np.array([5]), 0.5, 1e-6), "truth must be"),
        (
            lambda: frequency_mse_at_central_epsilon(np.array([5, 5]), 0.5, 1e-6, calibration="x"),
            "calibration",
        ),
        (lambda: local_epsilon_for_central(100, 0.0, 1e-6, 2), "epsilon_c must be"),
    ],
)
def test_bad_input(call, match):
    """Bad arguments are ValueErrors naming the parameter."""
    with pytest.raises(ValueError, match=match):
        call()
