"""bounds.rappor: the decoder's expected precision and recall (the formula, BH's fixed point,
Monte-Carlo); the threshold per unit of z and the collision factor against their closed forms."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ldp_helpers.bounds.rappor import (
    collision_factor,
    detection_threshold,
    detection_threshold_without_collisions,
    expected_precision_recall,
    unit_threshold,
)
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams

FREQ = np.array([0.2, 0.1, 0.05, 0.02, 0.01, 0.0, 0.0, 0.0, 0.0, 0.0])
UNIT = np.array([0.01, 0.02, 0.01, 0.005, 0.01, 0.01, 0.02, 0.01, 0.01, 0.0])


@pytest.mark.parametrize("correction, n_tests", [("none", 1), ("bonferroni", 10)])
def test_detection_is_phi_of_z_times_frequency_over_threshold_minus_one(correction, n_tests):
    got = expected_precision_recall(FREQ, UNIT, alpha=0.05, correction=correction)
    z = stats.norm.isf(0.05 / n_tests)
    threshold = z * UNIT  # π_min,w at power ½
    true = FREQ > 0
    np.testing.assert_allclose(
        got.detection_probability[true], stats.norm.cdf(z * (FREQ[true] / threshold[true] - 1))
    )
    # a null candidate: α/n_tests (even at c_w = 0: the test's level)
    np.testing.assert_allclose(got.detection_probability[5:], 0.05 / n_tests)
    assert got.z == pytest.approx(z)
    assert got.recall == pytest.approx(got.detection_probability[true].mean())
    assert got.expected_false == pytest.approx(5 * 0.05 / n_tests)
    hits = got.detection_probability[true].sum()
    assert got.precision == pytest.approx(hits / (hits + got.expected_false))


def test_a_true_candidate_without_noise_is_detected_surely():
    got = expected_precision_recall(np.array([0.5, 0.5, 0.0]), np.array([0.0, 0.1, 0.0]))
    assert got.detection_probability[0] == 1.0 and got.detection_probability[1] < 1.0


def test_bh_level_is_the_fixed_point_of_the_expected_rejections_and_sits_between():
    none, bonf, bh = (
        expected_precision_recall(FREQ, UNIT, alpha=0.05, correction=c)
        for c in ("none", "bonferroni", "bh")
    )
    level = stats.norm.sf(bh.z)
    rejections = bh.detection_probability[FREQ > 0].sum() + 5 * level
    assert level == pytest.approx(0.05 * rejections / FREQ.size, rel=1e-8)  # a = α R / M
    assert bonf.recall <= bh.recall <= none.recall
    assert 1 - bh.precision <= 0.05 + 1e-9  # the fixed point's FDR is at most α


def test_bh_level_is_the_largest_fixed_point_near_a_tangency():
    """Near a tangency the monotone iteration from R = M needs 1,572 steps (M = 323, α = 0.925): the level
    returned is still a fixed point (a 200-step cap had stopped at R = 6.91, above the fixed point 6.09)."""
    m, n_true, signal, alpha = 323, 21, 0.34938945934536425, 0.9250540906853957
    freq = np.zeros(m)
    freq[:n_true] = 1.0 / n_true
    unit = np.full(m, freq[0] / signal)
    got = expected_precision_recall(freq, unit, alpha=alpha, correction="bh")
    level = stats.norm.sf(got.z)
    rejections = m * level / alpha
    expected = got.detection_probability[:n_true].sum() + (m - n_true) * level
    assert expected == pytest.approx(rejections, rel=1e-8)
    assert rejections == pytest.approx(6.0906, abs=1e-3)


def test_detection_probability_matches_monte_carlo_of_the_normal_test():
    # β̂_w / SE_w ~ N(π_w / c_w, 1), rejected above z: the model the formula integrates
    rng = np.random.default_rng(35)
    got = expected_precision_recall(FREQ[:5], UNIT[:5], alpha=0.05, correction="none")
    draws = 200_000
    hits = (rng.normal(FREQ[:5] / UNIT[:5], 1.0, size=(draws, 5)) > got.z).mean(axis=0)
    p = got.detection_probability
    # 5 SE of a binomial proportion
    np.testing.assert_array_less(np.abs(hits - p), 5 * np.sqrt(p * (1 - p) / draws) + 1e-12)


def test_refuses_no_true_candidate_and_a_mismatched_threshold():
    with pytest.raises(
        ValueError, match="frequencies must be an array with at least one positive entry"
    ):
        expected_precision_recall(np.zeros(3), np.ones(3))
    with pytest.raises(ValueError, match="unit_threshold must be .*length 3"):
        expected_precision_recall(np.array([0.5, 0.5, 0.0]), np.ones(2))


# ---------------------------------------------------------- threshold per unit of z, collision factor


def _shared_bit_design(h: int, m: int) -> Rappor:
    """Two candidates' h-bit filters share one bit in each of m cohorts: XᵀX = [[hm, m], [m, hm]]."""
    k = 2 * h
    one = np.zeros((2, k), dtype=np.int8)
    one[0, :h] = 1
    one[1, h - 1 : 2 * h - 1] = 1
    return Rappor(RapporParams(k=k, h=h, m=m, f=0.5, p=0.25, q=0.75), np.stack([one] * m))


@pytest.mark.parametrize("f, p, q, h, m", [(0.0, 0.5, 0.75, 2, 4), (0.5, 0.25, 0.75, 4, 8)])
def test_unit_threshold_is_the_collision_free_standard_error(f, p, q, h, m):
    """c = sqrt(p*(1−p*)) / ((q*−p*) sqrt(N h)), p* = ½f(p+q) + (1−f)p, q* = ½f(p+q) + (1−f)q."""
    params = RapporParams(k=16, h=h, m=m, f=f, p=p, q=q)
    p_star, q_star = 0.5 * f * (p + q) + (1 - f) * p, 0.5 * f * (p + q) + (1 - f) * q
    n = np.array([1000, 20_000, 10**6])
    expected = np.sqrt(p_star * (1 - p_star)) / ((q_star - p_star) * np.sqrt(n * h))
    np.testing.assert_allclose(unit_threshold(params, n), expected, rtol=1e-12)
    z = stats.norm.isf(0.05 / 7) + stats.norm.ppf(0.9)  # linear in z = z_{1−α/n_tests} + z_power
    np.testing.assert_allclose(
        detection_threshold_without_collisions(params, n, alpha=0.05, n_tests=7, power=0.9),
        z * expected,
        rtol=1e-12,
    )


@pytest.mark.parametrize("h, m", [(2, 1), (3, 4)])
def test_collision_factor_is_one_without_collisions_and_the_inverse_gram_with_them(h, m):
    """One of h bits shared: [(XᵀX)⁻¹]_ww = hm / ((hm)² − m²), the factor sqrt(h²/(h² − 1))."""
    shared = _shared_bit_design(h, m)
    np.testing.assert_allclose(collision_factor(shared), np.sqrt(h**2 / (h**2 - 1)), rtol=1e-12)
    np.testing.assert_allclose(
        detection_threshold(shared, 4000),
        collision_factor(shared) * detection_threshold_without_collisions(shared.params, 4000),
        rtol=1e-12,
    )
    block = np.kron(np.eye(3, dtype=np.int8), np.ones((1, h), dtype=np.int8))  # disjoint filters
    disjoint = Rappor(RapporParams(k=3 * h, h=h, m=m, f=0.0, p=0.5, q=0.75), np.stack([block] * m))
    np.testing.assert_allclose(collision_factor(disjoint), 1.0, rtol=1e-12)


def test_the_threshold_per_unit_and_the_factor_refuse_bad_input():
    with pytest.raises(ValueError, match=r"n_reports must be integers in \[4, inf\]"):
        unit_threshold(RapporParams(k=8, h=2, m=4, f=0.5, p=0.25, q=0.75), 3)
    with pytest.raises(ValueError, match="mechanism must be"):
        collision_factor(RapporParams(k=8, h=2, m=4, f=0.5, p=0.25, q=0.75))


def test_expected_precision_recall_refuses_an_alpha_whose_per_test_level_underflows():
    """α = 5e-324 over M = 4 candidates: α/M rounds to 0 and z_{1−α/M} read inf; refused naming alpha.  At
    α = 1e-310 the level α/M is a subnormal and z stays finite (scipy's isf, checked against mpmath)."""
    frequencies, unit = np.array([0.5, 0.3, 0.2, 0.0]), np.array([0.1, 0.1, 0.2, 0.1])
    for correction in ("bonferroni", "bh"):
        with pytest.raises(ValueError, match=r"^alpha must be in \(0, 1\) with the per-test level"):
            expected_precision_recall(frequencies, unit, alpha=5e-324, correction=correction)
    tiny = expected_precision_recall(frequencies, unit, alpha=1e-310, correction="bonferroni")
    # mpmath (200 bits): the root of erfc(z/√2)/2 = 1e-310/4 is 37.69982431954243806…
    assert tiny.z == pytest.approx(37.699824319542438, rel=1e-13)
    assert np.all(np.isfinite(tiny.detection_probability))
