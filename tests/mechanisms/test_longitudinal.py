"""The longitudinal memoized oracles of [arcolezi2022]: the chained rounds, ε of one report and of τ reports, the client."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.longitudinal import (
    LGRR,
    LOSUE,
    LOUE,
    LSOUE,
    LSUE,
    memoized_reports_table,
)
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.unary_encoding import OUE

CLASSES = [LGRR, LOUE, LOSUE, LSOUE, LSUE]
SETTINGS = [(0.5, 3, 2.0), (1.2, 5, 4.0), (2.0, 4, 2.2)]


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("setting", SETTINGS)
def test_one_report_costs_epsilon_and_the_memoized_value_epsilon_permanent(cls, setting):
    """From the tables: one report's loss is ε₁, the permanent randomizer's is ε∞ (where the second round reaches ε₁)."""
    epsilon, d, eps_inf = setting
    try:
        oracle = cls(epsilon, d, eps_inf)
    except (
        ValueError
    ) as err:  # an OUE second round tops out below ε∞: refused with the ceiling in the message
        assert "epsilon must be <" in str(err)
        return
    assert oracle.privacy_loss() == pytest.approx(epsilon, rel=1e-9)
    assert max_privacy_loss(oracle.permanent_table()) == pytest.approx(eps_inf, rel=1e-9)
    p1, q1, p2, q2 = oracle.rounds
    assert oracle.p - oracle.q == pytest.approx((p1 - q1) * (p2 - q2), rel=1e-12)
    assert 0 < q2 < p2 < 1


def test_l_grr_and_l_osue_first_reports_are_grr_and_oue_at_epsilon_1():
    """The chained channel of L-GRR is GRR(ε₁) and that of L-OSUE is OUE(ε₁): same p*, q*, so same variance."""
    for eps1, d, eps_inf in SETTINGS:
        np.testing.assert_allclose(
            [LGRR(eps1, d, eps_inf).p, LGRR(eps1, d, eps_inf).q],
            [GRR(eps1, d).p, GRR(eps1, d).q],
            rtol=1e-12,
        )
        np.testing.assert_allclose(
            [LOSUE(eps1, d, eps_inf).p, LOSUE(eps1, d, eps_inf).q],
            [OUE(eps1, d).p, OUE(eps1, d).q],
            rtol=1e-12,
        )


@pytest.mark.parametrize("cls", [LOUE, LSOUE, LSUE])
def test_l_osue_has_the_lowest_variance_of_the_unary_chains(cls):
    """For the same (ε₁, ε∞), L-OSUE's first report has the smallest approximate variance among the four UE chains."""
    for eps1, eps_inf in [(0.5, 1.0), (1.0, 4.0), (2.0, 3.0)]:
        try:
            other = cls(eps1, 8, eps_inf)
        except ValueError:
            continue
        assert LOSUE(eps1, 8, eps_inf).approx_variance(1000) <= other.approx_variance(1000) * (
            1 + 1e-12
        )


@pytest.mark.parametrize("cls", CLASSES)
def test_epsilon_after_tau_reports_is_the_exact_loss_of_the_history_table(cls):
    """ε_τ (closed form) equals the loss of the brute-force τ-report table; it grows with τ and tends to ε∞."""
    oracle = cls(1.0, 3, 2.5)
    losses = []
    for tau in (1, 2, 3, 4):
        table = memoized_reports_table(oracle.permanent_table(), oracle.instantaneous_table(), tau)
        np.testing.assert_allclose(table.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        losses.append(max_privacy_loss(table))
        assert oracle.epsilon_after(tau) == pytest.approx(losses[-1], rel=1e-9)
    assert losses[0] == pytest.approx(1.0, rel=1e-9) and np.all(np.diff(losses) > 0)
    assert oracle.epsilon_after(10**5) == pytest.approx(2.5, rel=1e-9)
    assert all(oracle.epsilon_after(t) < 2.5 for t in (5, 10, 20))


def test_without_memoization_tau_reports_cost_tau_epsilon():
    """Fresh GRR(ε₁) reports compose: the τ-report table (identity 'memo') has loss τ·ε₁, above L-GRR's ε_τ."""
    oracle = LGRR(1.0, 3, 2.5)
    fresh = GRR(1.0, 3).output_table()
    for tau in (2, 3):
        loss = max_privacy_loss(
            memoized_reports_table(np.eye(3), fresh, tau)
        )  # "memo" = the value itself
        assert loss == pytest.approx(tau * 1.0, rel=1e-9)
        assert oracle.epsilon_after(tau) < loss


@pytest.mark.parametrize("cls", [LOUE, LSOUE])
def test_an_oue_second_round_has_a_ceiling(cls):
    """ε₁ at or above the OUE second round's ceiling is refused, naming epsilon and the ceiling."""
    ceiling = cls(0.5, 4, 2.0).epsilon_ceiling
    assert 0.5 < ceiling < 2.0
    with pytest.raises(ValueError, match=r"epsilon must be < "):
        cls(ceiling * 1.0001, 4, 2.0)
    assert cls(ceiling * 0.999, 4, 2.0).privacy_loss() == pytest.approx(ceiling * 0.999, rel=1e-9)


@pytest.mark.parametrize("cls", CLASSES)
def test_bad_budgets_are_refused(cls):
    with pytest.raises(ValueError, match="epsilon_permanent"):
        cls(1.0, 4, 1.0)
    with pytest.raises(ValueError, match="epsilon_permanent"):
        cls(1.0, 4, math.nan)


@pytest.mark.parametrize("cls", CLASSES)
def test_helpers_refuse_bad_input(cls):
    """The shared client and privacy helpers (on a private base, so not in method_specs) refuse bad input by name."""
    oracle, rng = cls(1.0, 4, 2.5), np.random.default_rng(0)
    for bad in (np.array([4]), np.array([-1]), np.array([0.5]), "x", None):
        with pytest.raises(ValueError, match="values"):
            oracle.memoize(bad, rng=rng)
    with pytest.raises(ValueError, match="memoized"):
        oracle.report(np.array([[2]]) if cls is not LGRR else np.array([7]), rng=rng)
    with pytest.raises(ValueError, match="rng"):
        oracle.report(oracle.memoize(np.array([1]), rng=rng), rng=0)
    with pytest.raises(ValueError, match="values"):
        oracle.perturb_rounds(np.array([0, 1]), rng=rng)
    for bad in (0, 2.5, 10**7, "x"):
        with pytest.raises(ValueError, match="n_reports"):
            oracle.epsilon_after(bad)
    with pytest.raises(ValueError, match="n_reports"):
        memoized_reports_table(oracle.permanent_table(), oracle.instantaneous_table(), 10**12)


@pytest.mark.statistical
@pytest.mark.parametrize("cls", [LGRR, LOSUE])
def test_perturb_rounds_memoizes_per_value(cls):
    """Two reports of one unchanged value follow the memoized two-report table; a changed value gets a fresh memo."""
    oracle = cls(1.0, 3, 2.5)
    n = 40_000
    rng = np.random.default_rng(5)
    reports = oracle.perturb_rounds(np.tile([[0, 0, 1]], (n, 1)), rng=rng)
    if cls is LGRR:
        pairs = reports[:, 0] * 3 + reports[:, 1]  # (y₁, y₂) of value 0, column index of the table
        expected = memoized_reports_table(
            oracle.permanent_table(), oracle.instantaneous_table(), 2
        )[0]
        observed = np.bincount(pairs, minlength=9) / n
        assert np.all(np.abs(observed - expected) < 5 * np.sqrt(expected * (1 - expected) / n))
        # the third report (value 1) is independent of the first two given the truth
        joint = np.mean((reports[:, 0] == 0) & (reports[:, 2] == 1))
        marg = np.mean(reports[:, 0] == 0) * np.mean(reports[:, 2] == 1)
        assert abs(joint - marg) < 5 * math.sqrt(marg * (1 - marg) / n)
    else:
        # bit 0 seen as 1 twice: p₁p₂² + (1 − p₁)q₂² (memoized) instead of p*² (fresh)
        p1, q1, p2, q2 = oracle.rounds
        both = np.mean((reports[:, 0, 0] == 1) & (reports[:, 1, 0] == 1))
        expected = p1 * p2**2 + (1 - p1) * q2**2
        assert abs(both - expected) < 5 * math.sqrt(expected * (1 - expected) / n)
        assert abs(expected - oracle.p**2) > 10 * math.sqrt(expected * (1 - expected) / n)


def test_epsilon_after_when_the_second_round_is_solved_to_keep_every_value():
    """ε₁ within rounding of ε∞: the second round is solved to p₂ = 1 and q₂ ≈ p*·e^{−ε₁}(ε∞ − ε₁) ≈ 9e-27 (formed
    without cancellation; it read 0 before), so every number of reports costs ε∞ — before, epsilon_after raised
    Python's 'math domain error' from ln 0."""
    for mechanism in (LGRR(30.0, 4, 30.0000000000001), LOSUE(30.0, 4, 30.0000000000001)):
        assert mechanism.rounds.p2 == 1.0
        assert 0.0 < mechanism.rounds.q2 < 1e-20
        for tau in (1, 7, 10**6):
            assert mechanism.epsilon_after(tau) == pytest.approx(30.0, rel=1e-12)


def test_an_l_grr_second_round_that_keeps_every_value_is_refused_unless_it_costs_epsilon_permanent():
    """(d − 1)q₂ below 2⁻⁵⁴ makes p₂ = 1.0: the client never moves a memoized value, so one report costs ε∞.
    L-GRR(36.96, ε∞ = 37.15) was accepted and reported ε₁ while its reports lost 37.14 (review r48); it is
    refused naming epsilon.  Within rounding of ε∞ (the test above) keeping every value is what ε₁ asks."""
    for epsilon, d, permanent in ((36.96, 4, 37.15), (41.0, 100, 41.2)):
        with pytest.raises(
            ValueError, match="epsilon must be within rounding of epsilon_permanent"
        ):
            LGRR(epsilon, d, permanent)
    oracle = LGRR(30.0, 4, 36.0)  # an accepted large-budget instance still randomizes its reports
    assert oracle.rounds.p2 < 1.0 and (oracle.d - 1) * oracle.rounds.q2 > 2.0**-53


def test_a_permanent_round_that_rounds_to_deterministic_is_refused():
    """SUE at ε∞/2 = 40 keeps a 1 with probability 1/(1 + e^−40), 1.0 in double precision: the permanent round
    no longer randomizes, and L-SOUE(40, ε∞ = 80)'s one report lost 40.69 > ε₁ = 40; L-SUE(700, ε∞ ≈ 700)
    failed with 'math domain error'.  Both are refused naming epsilon_permanent."""
    for cls, epsilon, permanent in ((LSOUE, 40.0, 80.0), (LSUE, 700.0, 700.0000000001)):
        with pytest.raises(
            ValueError, match="epsilon_permanent must be small enough that the permanent"
        ):
            cls(epsilon, 4, permanent)
    assert LSOUE(30.0, 4, 60.0).privacy_loss() == pytest.approx(30.0, rel=1e-4)


def _mp_epsilon_after(oracle, tau: int):
    """ε_τ in 60-digit arithmetic of the rounds the client runs (their float probabilities, taken exactly):
    the loss as the class docstring writes it, with no care for cancellation."""
    with mp.workdps(60):
        p1, q1, p2, q2 = (mp.mpf(x) for x in oracle.rounds)
        if oracle.first == "grr":
            d, rho = oracle.d, (p2 / q2) ** tau
            return mp.log((p1 * rho + (d - 1) * q1) / (q1 * rho + p1 + (d - 2) * q1))
        one = mp.log((p1 * p2**tau + (1 - p1) * q2**tau) / (q1 * p2**tau + (1 - q1) * q2**tau))
        zero = mp.log(
            (q1 * (1 - p2) ** tau + (1 - q1) * (1 - q2) ** tau)
            / (p1 * (1 - p2) ** tau + (1 - p1) * (1 - q2) ** tau)
        )
        return one + zero


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("epsilon", [1e-12, 1e-9, 1e-6, 1.0, 5.0])
def test_epsilon_after_is_accurate_down_to_the_smallest_budget(cls, epsilon):
    """ε_τ to 1e-12 relative against 60-digit arithmetic on the same rounds at ε∞ = 2ε₁, from ε₁ = MIN_EPSILON
    up.  It was the difference of two logaddexp values: off by up to 2e-2 relative at ε₁ = 1e-12 (τ = 1000)."""
    oracle = cls(epsilon, 4, 2 * epsilon)
    for tau in (1, 2, 10, 1000):
        assert oracle.epsilon_after(tau) == pytest.approx(
            float(_mp_epsilon_after(oracle, tau)), rel=1e-12, abs=0
        )


@pytest.mark.parametrize(
    "oracle", [LGRR(30.0, 4, 36.0), LSOUE(30.0, 4, 60.0), LSUE(5.0, 4, 70.0), LGRR(1e-12, 7, 1e-6)]
)
def test_epsilon_after_is_accurate_at_far_apart_budgets(oracle):
    """Also where a round is nearly deterministic (q₂ ≈ 5e-14 for L-SOUE(30, ε∞ = 60), solved as its budget
    ε₂, not its gap, which cannot be closer than 5e-17 to 1/2: one report cost 29.99992 there) and
    where ε₁ ≪ ε∞."""
    for tau in (1, 2, 10, 1000, 10**6):
        assert oracle.epsilon_after(tau) == pytest.approx(
            float(_mp_epsilon_after(oracle, tau)), rel=1e-12, abs=0
        )
