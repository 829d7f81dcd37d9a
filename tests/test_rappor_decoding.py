"""RAPPOR decoding, detection thresholds, seed 001's populations and the notebook's drivers."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ldp_helpers._validation import check_trailing_shape
from ldp_helpers.bounds.rappor import detection_threshold, detection_threshold_without_collisions
from ldp_helpers.estimation.rappor_decoding import bit_count_se, decode, identical_filter_pairs, printed_y_vec
from ldp_helpers.experiments.rappor import (
    SURVEY_COLUMNS,
    decode_survey,
    decode_surveys,
    estimator_check,
    precision_recall,
    privacy_comparison,
)
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams
from ldp_helpers.simulate.populations import cohort_counts, cohort_sizes, zipf_weights
from stat_checks import assert_mean_close, assert_variance_close

SMALL = RapporParams(k=8, h=2, m=2, f=0.0, p=0.5, q=0.75)
TOY_TRUTH = np.array([[900, 600, 0, 300, 0], [900, 600, 0, 300, 0]])


def small(params=SMALL, n_candidates=5, seed=7) -> Rappor:
    return Rappor.create(params, n_candidates, rng=np.random.default_rng(seed))


def disjoint(params=RapporParams.basic_one_time(k=12, h=2, m=3)) -> Rappor:
    """Six candidates with disjoint 2-bit filters in each of 3 cohorts (XᵀX = h·m·I)."""
    block = np.kron(np.eye(6, dtype=np.int8), np.ones((1, 2), dtype=np.int8))  # (M, k)
    return Rappor(params, np.stack([block] * 3))


# ---------------------------------------------------------------- exact


def test_bit_count_se_at_truth_and_outside_range():
    """The plug-in SE equals the exact SD at t̂ = t, and stays finite for t̂ outside [0, N]."""
    mechanism = small()
    truth = np.array([[40, 30, 0, 20, 10], [10, 20, 30, 0, 40]])
    t = mechanism.estimand(truth)
    assert np.allclose(bit_count_se(mechanism, t, [100, 100]), np.sqrt(mechanism.variance(truth)))
    assert np.allclose(bit_count_se(mechanism, np.full((2, 8), -40.0), [100, 100]), math.sqrt(100 * 0.25) / 0.25)
    with pytest.raises(ValueError, match=r"n \(cohort sizes\) must be integers in \[1, inf\]; got an array with values in \[-3, 10\]"):
        bit_count_se(mechanism, t, [10, -3])
    with pytest.raises(ValueError, match=r"estimates must be finite values"):
        bit_count_se(mechanism, np.full((2, 8), np.nan), [100, 100])


def test_cohort_sizes_and_zipf_weights():
    """Cohort sizes sum to N (N//m each when m | N); Zipf weights ∝ r^−a on the active candidates."""
    assert list(cohort_sizes(20_000, 8)) == [2500] * 8
    sizes = cohort_sizes(20_001, 8)
    assert sizes.sum() == 20_001 and sizes.max() - sizes.min() == 1
    w = zipf_weights(200, 100, 0.7)
    assert w.sum() == pytest.approx(1.0) and np.all(w[100:] == 0)
    assert w[0] / w[9] == pytest.approx(10**0.7)
    counts = cohort_counts(w, 20_001, 8, rng=np.random.default_rng(0))
    assert counts.shape == (8, 200) and np.array_equal(counts.sum(axis=1), sizes) and np.all(counts[:, 100:] == 0)


def test_precision_recall_definitions():
    """Precision = true detections / detections (0 if none); recall = true detections / n_true."""
    assert precision_recall([0, 5, 150], 100) == (pytest.approx(2 / 3), 0.02)
    assert precision_recall([], 100) == (0.0, 0.0)
    with pytest.raises(ValueError, match=r"n_true must be an integer in \[1, inf\]; got 0"):
        precision_recall([1, 2], 0)
    with pytest.raises(ValueError, match=r"detected must be integers in \[0, inf\]"):
        precision_recall([-1, 2], 10)


def test_decode_surveys_columns_are_consistent(rng):
    """decode_surveys' columns: precision = TP/(TP + FP), recall = TP/n_true, LASSO keeps at least TP + FP."""
    params = RapporParams.basic_one_time(k=32, h=2, m=4)
    rows = decode_surveys(params, zipf_weights(40, 10, 0.7), 20_000, 3, rng=rng)
    assert rows.shape == (3, len(SURVEY_COLUMNS))
    precision, recall, n_kept, n_false = rows.T
    tp = recall * 10
    assert np.all(tp + n_false > 0)
    assert np.allclose(precision, tp / (tp + n_false))
    assert np.all(n_kept >= tp + n_false)
    with pytest.raises(ValueError, match=r"n_draws must be an integer in \[1, 10000000\]; got 0"):
        decode_surveys(params, zipf_weights(40, 10, 0.7), 20_000, 0, rng=rng)


def test_identical_filter_pairs_counts_colliding_pairs():
    """identical_filter_pairs equals a brute-force count over all candidate pairs, per cohort and in all cohorts."""
    mechanism = small(RapporParams.basic_one_time(k=4, h=1, m=2), 12, seed=5)  # 4 possible filters
    for cohort, matrix in ((0, mechanism.blooms[0].T), (1, mechanism.blooms[1].T), (None, mechanism.design_matrix)):
        brute = sum(np.array_equal(matrix[:, a], matrix[:, b]) for a, b in itertools.combinations(range(12), 2))
        assert identical_filter_pairs(mechanism, cohort) == brute
    assert identical_filter_pairs(mechanism, 0) >= 4 * 3  # 12 candidates in 4 filters: at least 4·C(3, 2) pairs
    assert identical_filter_pairs(mechanism) <= min(identical_filter_pairs(mechanism, 0), identical_filter_pairs(mechanism, 1))


def test_privacy_comparison_rows(rng):
    """Each row: table ε = ε₁ and table ε∞ = ε∞; the tutorial's ε₂ agrees only without PRR (f = 0)."""
    table = privacy_comparison([(0.0, 0.5, 0.75), (0.5, 0.5, 0.75), (0.25, 0.35, 0.65)], [1, 2], k=6, rng=rng)
    assert table.shape == (6, 9)
    f, h, eps_table, eps1, eps_tut, eps_inf_table, eps_inf = table[:, [0, 3, 4, 5, 6, 7, 8]].T
    assert np.array_equal(h, [1, 2] * 3)
    assert np.allclose(eps_table, eps1, rtol=1e-12)
    assert np.array_equal(eps_inf_table == np.inf, eps_inf == np.inf)
    finite = np.isfinite(eps_inf)
    assert np.allclose(eps_inf_table[finite], eps_inf[finite], rtol=1e-12) and np.all(finite == (f > 0))
    assert np.all(np.isclose(eps_tut, eps1, rtol=1e-12) == (f == 0))


def test_bonferroni_and_bh_detect_nested_sets(rng):
    """Bonferroni ⊆ Benjamini–Hochberg ⊆ uncorrected; Bonferroni p = min(1, M·p)."""
    mechanism = Rappor.create(RapporParams.basic_one_time(k=64, h=4, m=4), 60, rng=rng)
    truth = cohort_counts(zipf_weights(60, 30, 0.7), 8000, 4, rng=rng)
    y = mechanism.estimate(mechanism.sample_aggregate(truth, rng=rng), mechanism.n_reports(truth)).ravel()
    raw, bonf, bh = (decode(mechanism.design_matrix, y, correction=c) for c in (None, "bonferroni", "bh"))
    assert np.array_equal(raw.candidates, bonf.candidates)
    assert np.allclose(bonf.p_values, np.minimum(raw.p_values * 60, 1))
    assert set(bonf.detected_candidates) <= set(bh.detected_candidates) <= set(raw.detected_candidates)
    assert bh.p_values.min() >= raw.p_values.min()


def test_detection_threshold_closed_form_without_collisions():
    """With disjoint Bloom filters (XᵀX = h·m·I) the threshold is z·sqrt(p*(1−p*))/((q*−p*)·sqrt(N h))."""
    mechanism = disjoint()
    threshold = detection_threshold(mechanism, 3000, alpha=0.05)
    expected = stats.norm.isf(0.05) * math.sqrt(0.25) / (0.25 * math.sqrt(3000 * 2))
    assert np.allclose(threshold, expected, rtol=1e-12)
    assert detection_threshold_without_collisions(mechanism.params, 3000, alpha=0.05) == pytest.approx(expected, rel=1e-12)
    with_power = stats.norm.isf(0.05 / 6) + stats.norm.ppf(0.9)
    assert np.allclose(detection_threshold(mechanism, 3000, n_tests=6, power=0.9), expected * with_power / stats.norm.isf(0.05))


def test_detection_threshold_vectorizes_over_n_and_grows_with_collisions():
    """An array of N gives one row per N equal to scalar calls (∝ 1/sqrt(N)); a collision raises the threshold."""
    mechanism = disjoint()
    n = np.array([300, 1200, 4800])
    rows = detection_threshold(mechanism, n)
    assert rows.shape == (3, 6)
    assert all(np.allclose(rows[i], detection_threshold(mechanism, int(n[i])), rtol=1e-12) for i in range(3))
    assert np.allclose(rows[:-1] / rows[1:], 2.0)
    assert np.allclose(detection_threshold_without_collisions(mechanism.params, n), rows[:, 0], rtol=1e-12)
    collided = mechanism.blooms.copy()
    collided[0, 1] = collided[0, 0]  # candidates 0 and 1 share their cohort-0 filter
    worse = detection_threshold(Rappor(mechanism.params, collided), 1200)
    assert worse[0] > rows[1, 0] and worse[1] > rows[1, 1] and np.allclose(worse[2:], rows[1, 2:])


def test_printed_logic_blows_up_by_four_per_candidate(rng):
    """The printed loop divides by (q − p) = 1/4 once per candidate: |Y| ~ 4^100·N, positive LASSO keeps nothing."""
    mechanism = Rappor.create(RapporParams.basic_one_time(k=32, h=2, m=2), 40, rng=rng)
    truth = cohort_counts(zipf_weights(40, 30, 0.7), 2000, 2, rng=rng)
    y = printed_y_vec(mechanism, truth, 30, rng=rng)
    assert np.all(np.abs(y) > 4.0**29) and np.all(y < 0)
    assert decode(mechanism.design_matrix, y).candidates.size == 0


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda X, y: decode(X, y[:-1]), r"y must be a 1-D array \(one entry per row of X\) whose last axis has length 16"),
        (lambda X, y: decode(X, np.full_like(y, np.nan)), r"y must be finite values"),
        (lambda X, y: decode(X[:, 0], y), r"X must be a 2-D array design matrix"),
        (lambda X, y: decode(X[:1], y[:1]), r"X.shape\[0\] \(rows k·m\) must be an integer in \[2, inf\]; got 1"),
        (lambda X, y: decode(X, y, alpha=1.0), r"alpha must be in \(0, 1\)"),
        (lambda X, y: decode(X, y, alpha=0), r"alpha must be in \(0, 1\)"),
        (lambda X, y: decode(X, y, correction="holm"), r"correction must be one of \(None, 'bonferroni', 'bh'\); got 'holm'"),
        (lambda X, y: detection_threshold(small(), 100, alpha=1.5), r"alpha must be in \(0, 1\)"),
        (lambda X, y: detection_threshold(small(), 1), r"n_reports must be integers in \[2, inf\]"),
        (lambda X, y: Rappor.create(SMALL, 0, rng=np.random.default_rng(0)), r"n_candidates must be an integer in \[1, inf\]"),
        (lambda X, y: cohort_sizes(5, 8), r"m must be an integer in \[1, 5\]"),
        (lambda X, y: cohort_counts([0.5, 0.4], 10, 2, rng=np.random.default_rng(0)), r"weights.sum\(\) must be in \[1, 1\]; got 0.9"),
        (lambda X, y: zipf_weights(10, 11, 0.7), r"n_active must be an integer in \[1, 10\]"),
        (lambda X, y: printed_y_vec(small(), np.ones((2, 2), int), 2, rng=np.random.default_rng(0)),
         r"truth must be an array of shape \(2, 5\)"),
        (lambda X, y: printed_y_vec(small(RapporParams(k=8, h=2, m=2, f=0.5, p=0.5, q=0.75)), TOY_TRUTH, 2,
                                    rng=np.random.default_rng(0)), r"mechanism.params.f must be in \[0, 0\]; got 0.5"),
        (lambda X, y: estimator_check(small(RapporParams(k=8, h=2, m=2, f=0.0, p=0.0, q=1.0)), TOY_TRUTH, 10,
                                      rng=np.random.default_rng(0)), r"mechanism.variance\(truth\) must be finite values in \(0, inf\)"),
        (lambda X, y: check_trailing_shape("aggregate", np.zeros((1, 3, 2, 8)), (2, 8)),
         r"aggregate must be an array of shape \(2, 8\) or \(n_draws, 2, 8\); got an array of shape \(1, 3, 2, 8\)"),
    ],
)
def test_bad_inputs_raise_clear_errors(call, match):
    """Inconsistent shapes, M < 1, α outside (0, 1), N_j < 1, bad weights: ValueError naming the parameter."""
    mechanism = small()
    with pytest.raises(ValueError, match=match):
        call(mechanism.design_matrix, np.zeros(mechanism.design_matrix.shape[0]))


def test_ols_needs_more_rows_than_kept_candidates():
    """When the LASSO keeps as many candidates as rows, decode refuses rather than returning NaN SEs."""
    with pytest.raises(ValueError, match="OLS needs more rows than kept candidates"):
        decode(np.eye(6), np.arange(1.0, 7.0) * 100)


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
def test_estimator_check_z_scores_are_standard_normal(rng):
    """estimator_check on the exact sampler: z ≈ N(0, 1) over 128 bits, variance ratios average 1."""
    mechanism = Rappor.create(RapporParams(k=32, h=3, m=4, f=0.25, p=0.5, q=0.75), 20, rng=rng)
    truth = cohort_counts(zipf_weights(20, 12, 0.7), 4000, 4, rng=rng)
    check = estimator_check(mechanism, truth, 500, rng=rng)
    z, ratio = check.z_mean.ravel(), check.variance_ratio.ravel()
    assert z.shape == (128,) and check.n_draws == 500
    assert_mean_close(z, 0.0, 1.0)
    assert_variance_close(z, 1.0)
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert_mean_close(ratio, 1.0, 2.0 / 499)


@pytest.mark.statistical
def test_corrected_seed_loop_matches_the_estimator(rng):
    """The seed's loop with normalization moved after it has Eq. (3)'s mean and the exact variance."""
    mechanism = small(RapporParams.basic_one_time(k=8, h=2, m=2))
    truth = np.array([[200, 50, 0, 90, 60], [30, 120, 150, 0, 100]])
    t, var = mechanism.estimand(truth).ravel(), mechanism.variance(truth).ravel()
    ys = np.array([printed_y_vec(mechanism, truth, 5, rng=rng, normalize_inside_loop=False) for _ in range(3000)])
    for r in (0, 4, 9, 15):
        assert_mean_close(ys[:, r], t[r], var[r])
        assert_variance_close(ys[:, r], var[r])


@pytest.mark.statistical
def test_decoder_recovers_strong_candidates_and_their_counts(rng):
    """Ten frequent candidates among 100 at N = 200,000: all detected, no false ones, β̂ within 5 SD of N_j·π."""
    weights = zipf_weights(100, 10, 0.5)
    survey = decode_survey(RapporParams.basic_one_time(k=64, h=4, m=8), weights, 200_000, rng=rng, correction="bonferroni")
    assert survey.precision == 1.0 and survey.recall == 1.0
    dec = survey.decoding
    order = np.argsort(dec.detected_candidates)
    beta, se = dec.estimates[dec.detected][order], dec.std_errors[dec.detected][order]
    pi = weights[:10]
    sampling_var = 25_000 * pi * (1 - pi) / 8  # β̂ targets the mean of 8 multinomial cohort counts
    assert np.all(np.abs(beta - 25_000 * pi) < 5 * np.sqrt(se**2 + sampling_var))


@pytest.mark.statistical
def test_toy_regression_recovers_per_cohort_counts(rng):
    """On the notebook's toy example (k = 8, h = 2, m = 2) β̂ of the kept candidates is within 5 SE of the per-cohort count."""
    mechanism = small()
    y = mechanism.estimate(mechanism.sample_aggregate(TOY_TRUTH, rng=rng), mechanism.n_reports(TOY_TRUTH)).ravel()
    fit = decode(mechanism.design_matrix, y)
    assert set(fit.detected_candidates) <= {0, 1, 3}
    assert np.all(np.abs(fit.estimates - TOY_TRUTH[0, fit.candidates]) < 5 * fit.std_errors)
