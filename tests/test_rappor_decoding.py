"""RAPPOR decoding: design matrix, exact aggregate simulation, estimator, decoder and seed-001 experiment."""

import math

import numpy as np
import pytest
from scipy import stats

from ldp_helpers.rappor import RapporParams, bloom_filter
from ldp_helpers.rappor_decoding import (
    CandidateDesign,
    bit_count_se,
    bit_count_variance,
    cohort_sizes,
    decode,
    design_matrix,
    estimate_bit_counts,
    simulate_bit_counts,
    simulate_bit_counts_per_report,
    true_bit_counts,
)
from ldp_helpers.rappor_experiments import (
    cohort_counts,
    detection_threshold,
    precision_recall,
    printed_y_vec,
    run_trial,
    zipf_weights,
)
from stat_checks import assert_mean_close, assert_variance_close, two_sample_pvalue

SMALL = RapporParams(k=8, h=2, m=2, f=0.0, p=0.5, q=0.75)


def small_design(params=SMALL, n_candidates=5, seed=7):
    return design_matrix(params, n_candidates, rng=np.random.default_rng(seed))


# ---------------------------------------------------------------- exact


def test_design_matrix_columns_are_the_cohort_bloom_filters():
    """Row block j, column w of X is candidate w's Bloom filter in cohort j; same seed, same X."""
    params = RapporParams.basic_one_time(k=16, h=3, m=3)
    design = design_matrix(params, 6, rng=np.random.default_rng(1))
    assert design.matrix.shape == (16 * 3, 6)
    for j in range(3):
        for w in range(6):
            assert np.array_equal(design.matrix[16 * j:16 * (j + 1), w], bloom_filter(design.secret, j, w, params))
    assert np.array_equal(design.matrix, design_matrix(params, 6, rng=np.random.default_rng(1)).matrix)
    assert not np.array_equal(design.matrix, design_matrix(params, 6, rng=np.random.default_rng(2)).matrix)


def test_true_bit_counts_sum_bloom_filters_of_reports():
    """t_ij counts the reports in cohort j whose Bloom filter has bit i set."""
    design = small_design()
    counts = np.array([[3, 0, 1, 0, 2], [0, 4, 0, 1, 0]])
    t = true_bit_counts(design, counts)
    blocks = design.cohort_blocks()
    for j in range(2):
        expected = sum(counts[j, w] * blocks[j][:, w] for w in range(5))
        assert np.array_equal(t[j], expected)


def test_estimator_is_exactly_unbiased_and_variance_exact():
    """Plugging E[c] = q*t + p*(N−t) into Eq. (3) returns t; the variance matches the binomial sum."""
    params = RapporParams(k=4, h=1, m=1, f=0.3, p=0.4, q=0.8)
    n, t = 30, 11
    support = np.arange(n + 1)
    pmf = np.convolve(stats.binom.pmf(np.arange(t + 1), t, params.q_star), stats.binom.pmf(np.arange(n - t + 1), n - t, params.p_star))
    estimates = np.array([estimate_bit_counts(np.full((1, 4), c), [n], params)[0, 0] for c in support])
    mean = np.sum(pmf * estimates)
    assert mean == pytest.approx(t, abs=1e-10)
    variance = bit_count_variance(np.full((1, 4), t), [n], params)[0, 0]
    assert np.sum(pmf * (estimates - mean) ** 2) == pytest.approx(variance, rel=1e-10)


def test_eq3_without_prr_is_the_seed_formula():
    """With f = 0, t̂ = (c − pN)/(q − p) exactly as seed 001 Eq. (3)."""
    c = np.array([[1300, 1250, 1900, 2000]])
    params = RapporParams.basic_one_time(k=4, h=1, m=1)
    assert np.allclose(estimate_bit_counts(c, [2500], params), (c - 0.5 * 2500) / 0.25, atol=1e-9)


def test_bit_count_se_at_truth_and_outside_range():
    """The plug-in SE equals the exact SD at t̂ = t, and stays finite for t̂ outside [0, N]."""
    params = SMALL
    t = np.array([[0, 10, 50, 100, 3, 7, 90, 60]] * 2)
    assert np.allclose(bit_count_se(t, [100, 100], params), np.sqrt(bit_count_variance(t, [100, 100], params)))
    se = bit_count_se(np.full((2, 8), -40.0), [100, 100], params)
    assert np.allclose(se, math.sqrt(100 * 0.25) / 0.25)


def test_cohort_sizes_and_zipf_weights():
    """Cohort sizes sum to N (N//m each when m | N); Zipf weights ∝ r^−a on the active candidates."""
    assert list(cohort_sizes(20_000, 8)) == [2500] * 8
    sizes = cohort_sizes(20_001, 8)
    assert sizes.sum() == 20_001 and sizes.max() - sizes.min() == 1
    w = zipf_weights(200, 100, 0.7)
    assert w.sum() == pytest.approx(1.0) and np.all(w[100:] == 0)
    assert w[0] / w[9] == pytest.approx(10**0.7)


def test_precision_recall_definitions():
    """Precision = true detections / detections (0 if none); recall = true detections / n_true."""
    assert precision_recall([0, 5, 150], 100) == (pytest.approx(2 / 3), 0.02)
    assert precision_recall([], 100) == (0.0, 0.0)


def test_bonferroni_and_bh_detect_nested_sets(rng):
    """Bonferroni ⊆ Benjamini–Hochberg ⊆ uncorrected; Bonferroni p = min(1, M·p)."""
    params = RapporParams.basic_one_time(k=64, h=4, m=4)
    weights = zipf_weights(60, 30, 0.7)
    design = design_matrix(params, 60, rng=rng)
    counts = cohort_counts(weights, 8000, 4, rng=rng)
    y = estimate_bit_counts(simulate_bit_counts(design, counts, rng=rng), counts.sum(axis=1), params).ravel()
    raw, bonf, bh = (decode(design.matrix, y, correction=c) for c in (None, "bonferroni", "bh"))
    assert np.array_equal(raw.candidates, bonf.candidates)
    assert np.allclose(bonf.p_values, np.minimum(raw.p_values * 60, 1))
    assert set(bonf.detected_candidates) <= set(bh.detected_candidates) <= set(raw.detected_candidates)
    assert bh.p_values.min() >= raw.p_values.min()


def test_detection_threshold_closed_form_without_collisions():
    """With disjoint Bloom filters (XᵀX = h·m·I) the threshold is z·sqrt(p*(1−p*))/((q*−p*)·sqrt(N h))."""
    params = RapporParams.basic_one_time(k=12, h=2, m=3)
    block = np.kron(np.eye(6, dtype=np.int8), np.ones((2, 1), dtype=np.int8))  # 6 candidates × 2 bits each
    design = CandidateDesign(params, "none", np.vstack([block] * 3))
    threshold = detection_threshold(design, 3000, alpha=0.05)
    expected = stats.norm.isf(0.05) * math.sqrt(0.25) / (0.25 * math.sqrt(3000 * 2))
    assert np.allclose(threshold, expected, rtol=1e-12)


def test_printed_logic_blows_up_by_four_per_candidate(rng):
    """The printed loop divides by (q − p) = 1/4 once per candidate: |Y| ~ 4^100·N, positive LASSO keeps nothing."""
    params = RapporParams.basic_one_time(k=32, h=2, m=2)
    weights = zipf_weights(40, 30, 0.7)
    design = design_matrix(params, 40, rng=rng)
    counts = cohort_counts(weights, 2000, 2, rng=rng)
    y = printed_y_vec(design, counts, 30, rng=rng)
    assert np.all(np.abs(y) > 4.0**29) and np.all(y < 0)
    assert decode(design.matrix, y).candidates.size == 0


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda X, y: decode(X[:, :0], y), r"X must be a 2-D design matrix with M >= 1"),
        (lambda X, y: decode(X, y[:-1]), r"y must be a vector with one entry per row of X"),
        (lambda X, y: decode(X, y, alpha=1.0), r"alpha must be in \(0, 1\)"),
        (lambda X, y: decode(X, y, alpha=0), r"alpha must be in \(0, 1\)"),
        (lambda X, y: decode(X, y, correction="holm"), "correction must be one of"),
        (lambda X, y: estimate_bit_counts(np.zeros((2, 8), int), [10, 0], SMALL), r"sizes must be m=2 sizes N_j >= 1"),
        (lambda X, y: estimate_bit_counts(np.zeros((2, 7), int), [10, 10], SMALL), r"bit_counts must be an array of shape \(m, k\)"),
        (lambda X, y: estimate_bit_counts(np.full((2, 8), 11), [10, 10], SMALL), r"bit_counts must be counts in \[0, N_j\]"),
        (lambda X, y: true_bit_counts(small_design(), np.ones((3, 5), int)), r"counts must be an array of shape \(m, M\)"),
        (lambda X, y: true_bit_counts(small_design(), np.zeros((2, 5), int)), r"counts must be at least one report"),
        (lambda X, y: zipf_weights(10, 11, 0.7), r"n_active must be an integer in \[1, 10\]"),
    ],
)
def test_bad_inputs_raise_clear_errors(call, match):
    """Inconsistent shapes, empty cohorts, M < 1, α outside (0, 1): ValueError naming the parameter."""
    design = small_design()
    with pytest.raises(ValueError, match=match):
        call(design.matrix, np.zeros(design.matrix.shape[0]))


def test_ols_needs_more_rows_than_kept_candidates():
    """When the LASSO keeps as many candidates as rows, decode refuses rather than returning NaN SEs."""
    X = np.eye(6)
    with pytest.raises(ValueError, match="OLS needs more rows than kept candidates"):
        decode(X, np.arange(1.0, 7.0) * 100)


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
@pytest.mark.parametrize("f", [0.0, 0.5])
def test_aggregate_path_matches_per_report_clients(rng, f):
    """Binomial bit counts have the law of summed client reports: means, variances, and a joint statistic."""
    params = RapporParams(k=8, h=2, m=2, f=f, p=0.5, q=0.75)
    design = small_design(params)
    counts = np.array([[20, 5, 0, 9, 6], [3, 12, 15, 0, 10]])
    repetitions = 1500
    per_report = np.array([simulate_bit_counts_per_report(design, counts, rng=rng) for _ in range(repetitions)])
    aggregate = np.array([simulate_bit_counts(design, counts, rng=rng) for _ in range(repetitions)])
    t = true_bit_counts(design, counts)
    n_j = counts.sum(axis=1)[:, None]
    mean = params.q_star * t + params.p_star * (n_j - t)
    var = t * params.q_star * (1 - params.q_star) + (n_j - t) * params.p_star * (1 - params.p_star)
    for sample in (per_report, aggregate):
        for j, i in ((0, 0), (0, 5), (1, 3), (1, 7)):
            assert_mean_close(sample[:, j, i], mean[j, i], var[j, i])
            assert_variance_close(sample[:, j, i], var[j, i])
    # sum over a cohort's bits: sensitive to any dependence between bits
    assert two_sample_pvalue(per_report[:, 0].sum(axis=1), aggregate[:, 0].sum(axis=1)) > 1e-3
    assert two_sample_pvalue(per_report[:, 1, :2].sum(axis=1), aggregate[:, 1, :2].sum(axis=1)) > 1e-3


@pytest.mark.statistical
def test_estimator_mean_and_variance_by_simulation(rng):
    """Over 4000 aggregate draws t̂ averages t and has the exact variance (with PRR)."""
    params = RapporParams(k=8, h=2, m=2, f=0.5, p=0.5, q=0.75)
    design = small_design(params)
    counts = np.array([[200, 50, 0, 90, 60], [30, 120, 150, 0, 100]])
    t = true_bit_counts(design, counts)
    var = bit_count_variance(t, counts.sum(axis=1), params)
    est = np.array([estimate_bit_counts(simulate_bit_counts(design, counts, rng=rng), counts.sum(axis=1), params) for _ in range(4000)])
    for j, i in ((0, 1), (1, 6)):
        assert_mean_close(est[:, j, i], t[j, i], var[j, i])
        assert_variance_close(est[:, j, i], var[j, i])


@pytest.mark.statistical
def test_corrected_seed_loop_matches_aggregate_estimator(rng):
    """The seed's loop with normalization moved after it has the same mean and variance as Eq. (3)."""
    params = RapporParams.basic_one_time(k=8, h=2, m=2)
    design = small_design(params)
    counts = np.array([[200, 50, 0, 90, 60], [30, 120, 150, 0, 100]])
    t = true_bit_counts(design, counts).ravel()
    var = bit_count_variance(t.reshape(2, 8), counts.sum(axis=1), params).ravel()
    ys = np.array([printed_y_vec(design, counts, 5, rng=rng, normalize_inside_loop=False) for _ in range(3000)])
    for r in (0, 4, 9, 15):
        assert_mean_close(ys[:, r], t[r], var[r])
        assert_variance_close(ys[:, r], var[r])


@pytest.mark.statistical
def test_decoder_recovers_strong_candidates_and_their_counts(rng):
    """Ten frequent candidates among 100 at N = 200,000: all detected, no false ones, β̂ within 5 SD of N_j·π."""
    params = RapporParams.basic_one_time(k=64, h=4, m=8)
    weights = zipf_weights(100, 10, 0.5)
    trial = run_trial(params, weights, 200_000, rng=rng, correction="bonferroni")
    assert trial.precision == 1.0 and trial.recall == 1.0
    dec = trial.decoding
    order = np.argsort(dec.detected_candidates)
    beta = dec.estimates[dec.detected][order]
    se = dec.std_errors[dec.detected][order]
    pi = weights[:10]
    sampling_var = 25_000 * pi * (1 - pi) / 8  # β̂ targets the mean of 8 multinomial cohort counts
    assert np.all(np.abs(beta - 25_000 * pi) < 5 * np.sqrt(se**2 + sampling_var))
