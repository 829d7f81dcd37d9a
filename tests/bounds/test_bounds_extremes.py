"""Extremes of T round errors (bounds/extremes.py): the max of T normals' quantile and the rate guide at
extreme but legal values."""

import warnings

import mpmath
import numpy as np
import pytest

from ldp_helpers.bounds.extremes import max_abs_normal, rate_guide


def _quantile(n_rounds, beta):
    """a with erfc(a/√2) = 1 − (1 − β)^{1/T}, in 60 digits."""
    with mpmath.workdps(60):
        tail = -mpmath.expm1(mpmath.log1p(-mpmath.mpf(beta)) / n_rounds)
        return float(
            mpmath.findroot(
                lambda a: mpmath.log(mpmath.erfc(a / mpmath.sqrt(2))) - mpmath.log(tail),
                mpmath.sqrt(-2 * mpmath.log(tail)),
            )
        )


@pytest.mark.parametrize(
    "n_rounds, beta", [(10, 5e-324), (1, 5e-324), (10, 1e-310), (10**6, 1e-305), (10, 2.2e-307)]
)
def test_max_abs_normal_quantile_at_a_vanishing_beta_is_finite_and_exact(n_rounds, beta):
    """β/T below 1e-308: 1 − (1 − β)^{1/T} underflowed to 0 and erfcinv(0) = ∞ (β = 5e-324) where the
    quantile is about 38.5; now solved in logs (ndtri_exp), within 1e-15 of 60-digit mpmath."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = max_abs_normal(n_rounds, beta)
    assert value == pytest.approx(_quantile(n_rounds, beta), rel=1e-15)


@pytest.mark.parametrize("n_rounds, beta", [(10, 0.1), (10, 1e-17), (1000, 1e-300)])
def test_max_abs_normal_quantile_at_ordinary_beta_matches_mpmath(n_rounds, beta):
    assert max_abs_normal(n_rounds, beta) == pytest.approx(_quantile(n_rounds, beta), rel=1e-13)


def test_rate_guide_refuses_an_exponent_whose_guide_overflows_with_its_range():
    """T^e·√log(2T/β) through 0.5 at T = 10: 10^e beyond 1e308 was returned as ∞ (exponent = 1e300);
    it is refused naming exponent and the range of exponents that stays finite (log first_value + e·log(T/T₀) + ½ log(L/L₀) ≤ log(max double) at every T);
    an exponent just inside it is computed."""
    rounds = np.array([10.0, 100.0])
    with pytest.raises(
        ValueError,
        match=r"^exponent must be a real at most 308\.477 for these rounds and first_value",
    ):
        rate_guide(rounds, 0.5, 1e300, 0.1)
    with pytest.raises(ValueError, match=r"^exponent must be a real in \[-308\.68, 308\.477\]"):
        rate_guide(np.array([10.0, 100.0, 1.0]), 0.5, 400.0, 0.1)
    with pytest.raises(ValueError, match=r"at most 119\.764 for these rounds and first_value"):
        rate_guide([1, 2, 4, 8], 1e200, 200.0, 0.05)  # first_value counts: 1e200·8^120 > 1e308
    assert np.isfinite(rate_guide([1, 2, 4, 8], 1e200, 119.7, 0.05)).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        guide = rate_guide(rounds, 0.5, 308.4, 0.1)
        with mpmath.workdps(30):  # 0.5·10^308.4·√(log 2000/log 200): within the doubles, just
            exact = float(
                mpmath.mpf(0.5)
                * mpmath.mpf(10) ** mpmath.mpf(308.4)
                * mpmath.sqrt(mpmath.log(2000) / mpmath.log(200))
            )
        assert guide[0] == 0.5 and guide[1] == pytest.approx(exact, rel=1e-12)
        assert rate_guide(rounds, 0.5, -1e300, 0.1).tolist() == [
            0.5,
            0.0,
        ]  # 10^−1e300: 0 in doubles
