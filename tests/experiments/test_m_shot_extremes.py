"""m-shot's experiment drivers at extreme but legal values: β = 5e-324 is computed, ε = scale·T^b out of range refused."""

import mpmath as mp
import numpy as np
import pytest

from ldp_helpers.experiments import m_shot as M


def _residual_mp(rounds, beta, quantile):
    """log_correction_residual in 50-digit mpmath: the fitted slope of ln(M_T/√ln(2T/β)) against ln T."""
    with mp.workdps(50):
        b = mp.mpf(beta)
        ys = []
        for T in rounds:
            if quantile:  # erfc(a/√2) = 1 − (1 − β)^{1/T}, solved in logs
                g = -mp.expm1(mp.log1p(-b) / T)
                a = mp.findroot(lambda x, g=g: mp.log(mp.erfc(x / mp.sqrt(2))) - mp.log(g), 38)
            else:
                a = mp.quad(lambda x, T=T: 1 - mp.erf(x / mp.sqrt(2)) ** T, [0, 10, 40])
            ys.append(float(mp.log(a / mp.sqrt(mp.log(2 * T / b)))))
    return float(np.polyfit(np.log(rounds), ys, 1)[0])


@pytest.mark.parametrize("quantile", [True, False])
def test_log_correction_residual_at_the_smallest_beta(quantile):
    """β = 5e-324: the (1 − β)-quantile of max |Z_t| is ≈ 38.5 (its erfcinv argument β/T underflows; before,
    the refusal blamed an inner ``y`` for its inf); 2T/β overflows (ln 2T − ln β).  Against 50-digit
    mpmath: absolute 1e-9 on the slope (the quantile's slope ≈ 3.6e-6 is a small difference of logs)."""
    rounds = np.array([10, 100, 1000])
    got = M.log_correction_residual(rounds, 5e-324, quantile=quantile)
    assert np.isfinite(got)
    assert got == pytest.approx(_residual_mp(rounds, 5e-324, quantile), abs=1e-9)


def test_fit_rates_at_the_smallest_beta():
    rounds = np.array([10, 20, 40])
    errors = {(0.0, "1-shot"): np.array([[0.10, 0.12], [0.15, 0.16], [0.21, 0.20]])}
    fit = M.fit_rates(rounds, errors, 5e-324)
    assert fit.residual_quantile == pytest.approx(_residual_mp(rounds, 5e-324, True), abs=1e-9)
    assert fit.residual_mean == pytest.approx(_residual_mp(rounds, 5e-324, False), abs=1e-9)
    assert all(np.isfinite(v) for v in (*fit.slopes.values(), *fit.se.values()))


@pytest.mark.parametrize(
    "kwargs, shown",
    [
        ({"b": 1e300}, "ε = scale·T^b = inf at T=4"),  # T^b overflowed (OverflowError before)
        ({"b": -1e300}, "ε = scale·T^b = 0.0 at T=4"),
        ({"scale": 1e300}, "ε = scale·T^b = 1.4142135623730952e+300 at T=4"),
        ({"scale": 5e-324}, "ε = scale·T^b = 5e-324 at T=4"),
    ],
)
def test_max_error_vs_rounds_refuses_a_budget_out_of_range_naming_scale_and_b(kwargs, shown):
    call = dict(scale=1.0, b=0.25, rounds=np.array([4, 8]), method="1-shot", n_users=100, n_draws=3)
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(
        ValueError, match=r"^scale and b must be such that every round's budget"
    ) as err:
        M.max_error_vs_rounds(**{**call, **kwargs}, rng=rng)
    assert shown in str(err.value)
    assert rng.bit_generator.state == before  # refused before any simulation
