"""experiments/common.py at extreme but legal values: versus_exact's z and variance ratio."""

import warnings

import numpy as np
import pytest

from ldp_helpers.experiments.common import versus_exact

ESTIMATES = np.array([[0.9, 2.1], [1.2, 1.8], [1.0, 2.3]])
MEAN = np.array([1.0, 2.0])


def test_versus_exact_refuses_a_variance_too_small_for_the_estimates():
    """variance = 5e-324: Var/n_draws underflowed to 0 (divide by zero, z = ±∞) and the ratio s²/variance
    overflowed (about 1e322: no double); such a variance is refused naming it, at 1e-300 all is finite."""
    refused = [(ESTIMATES, 5e-324), (ESTIMATES, 1e-310), (np.full((3, 2), 1.1), 5e-324)]
    for estimates, variance in refused:  # the last without a spread: Var/n_draws underflows to 0
        with pytest.raises(ValueError, match=r"^variance must be large enough for these estimates"):
            versus_exact(estimates, MEAN, variance)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check = versus_exact(ESTIMATES, MEAN, 1e-300)
    assert np.all(np.isfinite(check.z)) and np.all(np.isfinite(check.variance_ratio))


def test_versus_exact_blames_estimates_whose_own_spread_overflows():
    """±1e300 draws: their sample variance is no double, so no variance could be enough: estimates is refused."""
    with pytest.raises(ValueError, match=r"^estimates must be within 1e308"):
        versus_exact(np.array([[1e300], [-1e300]]), np.array([0.0]), 1.0)
