"""RAPPOR decoding: design matrix, exact aggregate simulation, estimator, decoder and seed-001 experiment."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ldp_helpers.estimation.pure import expected_support_count, support_count_pmf
from ldp_helpers.mechanisms.rappor import RapporParams, bloom_filter
from ldp_helpers.estimation.rappor_decoding import (
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
from ldp_helpers.experiments.rappor import (
    TRIAL_COLUMNS,
    cohort_counts,
    detection_threshold,
    detection_threshold_without_collisions,
    estimator_check,
    identical_filter_pairs,
    precision_recall,
    printed_y_vec,
    privacy_comparison,
    run_trial,
    run_trials,
    zipf_weights,
)
from stat_checks import assert_mean_close, assert_variance_close, chisquare_pvalue, two_sample_pvalue

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
    pmf = support_count_pmf(t, n, params.q_star, params.p_star)  # RAPPOR's q* is the pure-LDP p*
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
    with pytest.raises(ValueError, match=r"sizes must be integers in \[1, inf\]; got an array with values in \[-3, 10\]"):
        bit_count_se(t, [10, -3], params)
    with pytest.raises(ValueError, match=r"estimates must be finite values"):
        bit_count_se(np.full((2, 8), np.nan), [100, 100], params)


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
    with pytest.raises(ValueError, match=r"n_true must be an integer in \[1, inf\]; got 0"):
        precision_recall([1, 2], 0)
    with pytest.raises(ValueError, match=r"detected must be integers in \[0, inf\]"):
        precision_recall([-1, 2], 10)


def test_run_trials_columns_are_consistent(rng):
    """run_trials' columns: precision = TP/(TP + FP), recall = TP/n_true, LASSO keeps at least TP + FP."""
    params = RapporParams.basic_one_time(k=32, h=2, m=4)
    weights = zipf_weights(40, 10, 0.7)
    rows = run_trials(params, weights, 20_000, 3, rng=rng)
    assert rows.shape == (3, len(TRIAL_COLUMNS))
    precision, recall, n_kept, n_false = rows.T
    tp = recall * 10
    assert np.all(tp + n_false > 0)
    assert np.allclose(precision, tp / (tp + n_false))
    assert np.all(n_kept >= tp + n_false)


def test_identical_filter_pairs_counts_colliding_pairs():
    """identical_filter_pairs equals a brute-force count over all candidate pairs, per cohort and in all cohorts."""
    params = RapporParams.basic_one_time(k=4, h=1, m=2)  # 4 possible filters: many collisions among 12 candidates
    design = design_matrix(params, 12, rng=np.random.default_rng(5))
    blocks = design.cohort_blocks()
    for cohort, matrix in ((0, blocks[0]), (1, blocks[1]), (None, design.matrix)):
        brute = sum(np.array_equal(matrix[:, a], matrix[:, b]) for a, b in itertools.combinations(range(12), 2))
        assert identical_filter_pairs(design, cohort) == brute
    assert identical_filter_pairs(design, 0) >= 4 * 3  # h = 1, k = 4: 4 possible filters, so at least 4·C(3, 2) pairs
    assert identical_filter_pairs(design) <= min(identical_filter_pairs(design, 0), identical_filter_pairs(design, 1))


def test_privacy_comparison_rows():
    """Each row: table ε = ε₁ and table ε∞ = ε∞; the tutorial's ε₂ agrees only without PRR (f = 0)."""
    table = privacy_comparison([(0.0, 0.5, 0.75), (0.5, 0.5, 0.75), (0.25, 0.35, 0.65)], [1, 2], k=6)
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
    assert detection_threshold_without_collisions(params, 3000, alpha=0.05) == pytest.approx(expected, rel=1e-12)
    with_power = stats.norm.isf(0.05 / 6) + stats.norm.ppf(0.9)
    assert np.allclose(detection_threshold(design, 3000, n_tests=6, power=0.9), expected * with_power / stats.norm.isf(0.05))


def test_detection_threshold_vectorizes_over_n_and_grows_with_collisions():
    """An array of N gives one row per N equal to scalar calls (∝ 1/sqrt(N)); a collision raises the threshold."""
    params = RapporParams.basic_one_time(k=12, h=2, m=3)
    block = np.kron(np.eye(6, dtype=np.int8), np.ones((2, 1), dtype=np.int8))
    design = CandidateDesign(params, "none", np.vstack([block] * 3))
    n = np.array([300, 1200, 4800])
    rows = detection_threshold(design, n)
    assert rows.shape == (3, 6)
    assert all(np.allclose(rows[i], detection_threshold(design, int(n[i])), rtol=1e-12) for i in range(3))
    assert np.allclose(rows[:-1] / rows[1:], 2.0)
    assert np.allclose(detection_threshold_without_collisions(params, n), rows[:, 0], rtol=1e-12)
    collided = design.matrix.copy()
    collided[:12, 1] = collided[:12, 0]  # candidates 0 and 1 share their cohort-0 filter
    worse = detection_threshold(CandidateDesign(params, "none", collided), 1200)
    assert worse[0] > rows[1, 0] and worse[1] > rows[1, 1] and np.allclose(worse[2:], rows[1, 2:])


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
        # k·m rows vs X, y vs X, M < 1
        (lambda X, y: decode(X, y, params=RapporParams.basic_one_time(k=8, h=2, m=3)),
         r"X must be a design matrix with k·m = 8·3 = 24 rows \(one per cohort bit\); got a matrix with 16 rows"),
        (lambda X, y: decode(X[:-1], y[:-1], params=SMALL),
         r"X must be a design matrix with k·m = 8·2 = 16 rows"),
        (lambda X, y: decode(X, y[:-1]), r"y must be a vector with one entry per row of X \(k·m = 16\)"),
        (lambda X, y: decode(X, np.full_like(y, np.nan)), r"y must be finite values"),
        (lambda X, y: decode(X[:, :0], y), r"X must be a 2-D design matrix with M >= 1"),
        (lambda X, y: design_matrix(SMALL, 0, rng=np.random.default_rng(0)), r"n_candidates must be an integer in \[1, inf\]"),
        # h > k
        (lambda X, y: RapporParams.basic_one_time(k=8, h=9, m=1), r"h must be an integer in \[1, 8\]"),
        # α outside (0, 1)
        (lambda X, y: decode(X, y, alpha=1.0), r"alpha must be in \(0, 1\)"),
        (lambda X, y: decode(X, y, alpha=0), r"alpha must be in \(0, 1\)"),
        (lambda X, y: detection_threshold(small_design(), 100, alpha=1.5), r"alpha must be in \(0, 1\)"),
        (lambda X, y: decode(X, y, correction="holm"), "correction must be one of"),
        # N_j < 1 and malformed counts
        (lambda X, y: estimate_bit_counts(np.zeros((2, 8), int), [10, 0], SMALL), r"sizes must be integers in \[1, inf\]"),
        (lambda X, y: cohort_sizes(5, 8), r"m must be an integer in \[1, 5\]"),
        (lambda X, y: true_bit_counts(small_design(), np.zeros((2, 5), int)), r"counts must be at least one report \(N_j >= 1\)"),
        (lambda X, y: detection_threshold(small_design(), 1), r"n_reports must be integers in \[2, inf\]"),
        (lambda X, y: estimate_bit_counts(np.zeros((2, 7), int), [10, 10], SMALL), r"bit_counts must be an array of shape \(m, k\) = \(2, 8\)"),
        (lambda X, y: estimate_bit_counts(np.full((2, 8), 11), [10, 10], SMALL), r"bit_counts must be counts in \[0, N_j\]"),
        (lambda X, y: estimate_bit_counts(np.full((2, 8), 2.5), [10, 10], SMALL), r"bit_counts must be an array of integers"),
        (lambda X, y: true_bit_counts(small_design(), np.ones((3, 5), int)), r"counts must be an array of shape \(2, 5\)"),
        (lambda X, y: printed_y_vec(small_design(), np.ones((2, 2), int), 2, rng=np.random.default_rng(0)),
         r"counts must be an array of shape \(2, 5\)"),
        (lambda X, y: printed_y_vec(small_design(), np.full((2, 5), 1.5), 2, rng=np.random.default_rng(0)),
         r"counts must be an array of integers"),
        (lambda X, y: zipf_weights(10, 11, 0.7), r"n_active must be an integer in \[1, 10\]"),
    ],
)
def test_bad_inputs_raise_clear_errors(call, match):
    """Inconsistent shapes (k·m rows vs X), M < 1, h > k, N_j < 1, α outside (0, 1): ValueError naming the parameter."""
    design = small_design()
    with pytest.raises(ValueError, match=match):
        call(design.matrix, np.zeros(design.matrix.shape[0]))


def test_decode_accepts_consistent_params(rng):
    """decode with params whose k·m equals X's rows gives the same result as without them."""
    design = small_design()
    counts = np.array([[900, 600, 0, 300, 0], [900, 600, 0, 300, 0]])
    y = estimate_bit_counts(simulate_bit_counts(design, counts, rng=rng), counts.sum(axis=1), SMALL).ravel()
    a, b = decode(design.matrix, y), decode(design.matrix, y, params=SMALL)
    assert np.array_equal(a.candidates, b.candidates) and np.array_equal(a.estimates, b.estimates)


def test_estimator_check_refuses_a_deterministic_report():
    """With p = 0, q = 1 and f = 0 the report is the Bloom filter: no variance to compare, a clear error."""
    params = RapporParams(k=8, h=2, m=2, f=0.0, p=0.0, q=1.0)
    with pytest.raises(ValueError, match=r"design must be a randomized report"):
        estimator_check(small_design(params), np.ones((2, 5), int), 10, rng=np.random.default_rng(0))


def test_ols_needs_more_rows_than_kept_candidates():
    """When the LASSO keeps as many candidates as rows, decode refuses rather than returning NaN SEs."""
    X = np.eye(6)
    with pytest.raises(ValueError, match="OLS needs more rows than kept candidates"):
        decode(X, np.arange(1.0, 7.0) * 100)


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
@pytest.mark.parametrize("f", [0.0, 0.5])
def test_aggregate_path_matches_per_report_clients(rng, f):
    """Binomial bit counts have the law of summed client reports: means, variances, exact pmf, and a joint statistic."""
    params = RapporParams(k=8, h=2, m=2, f=f, p=0.5, q=0.75)
    design = small_design(params)
    counts = np.array([[20, 5, 0, 9, 6], [3, 12, 15, 0, 10]])
    repetitions = 1500
    per_report = np.array([simulate_bit_counts_per_report(design, counts, rng=rng) for _ in range(repetitions)])
    aggregate = np.array([simulate_bit_counts(design, counts, rng=rng) for _ in range(repetitions)])
    t = true_bit_counts(design, counts)
    n_j = counts.sum(axis=1)[:, None]
    mean = expected_support_count(t, n_j, params.q_star, params.p_star)
    var = t * params.q_star * (1 - params.q_star) + (n_j - t) * params.p_star * (1 - params.p_star)
    for sample in (per_report, aggregate):
        for j, i in ((0, 0), (0, 5), (1, 3), (1, 7)):
            assert_mean_close(sample[:, j, i], mean[j, i], var[j, i])
            assert_variance_close(sample[:, j, i], var[j, i])
            exact = support_count_pmf(t[j, i], n_j[j, 0], params.q_star, params.p_star)  # Bin(t, q*) + Bin(N − t, p*)
            assert chisquare_pvalue(sample[:, j, i], exact) > 1e-3
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
    est = estimate_bit_counts(simulate_bit_counts(design, counts, rng=rng, n_draws=4000), counts.sum(axis=1), params)
    assert est.shape == (4000, 2, 8)
    for j, i in ((0, 1), (1, 6)):
        assert_mean_close(est[:, j, i], t[j, i], var[j, i])
        assert_variance_close(est[:, j, i], var[j, i])


@pytest.mark.statistical
def test_batched_draws_have_the_law_of_single_draws(rng):
    """simulate_bit_counts(n_draws=R) has the law of R separate calls (per-bit and per-cohort sums)."""
    design = small_design()
    counts = np.array([[20, 5, 0, 9, 6], [3, 12, 15, 0, 10]])
    single = np.array([simulate_bit_counts(design, counts, rng=rng) for _ in range(2000)])
    batched = simulate_bit_counts(design, counts, rng=rng, n_draws=2000)
    assert two_sample_pvalue(single[:, 0, 3], batched[:, 0, 3]) > 1e-3
    assert two_sample_pvalue(single[:, 1].sum(axis=1), batched[:, 1].sum(axis=1)) > 1e-3


@pytest.mark.statistical
def test_estimator_check_z_scores_are_standard_normal(rng):
    """estimator_check on an exact simulation: z ≈ N(0, 1) over 128 bits, variance ratios average 1."""
    params = RapporParams(k=32, h=3, m=4, f=0.25, p=0.5, q=0.75)
    design = design_matrix(params, 20, rng=rng)
    counts = cohort_counts(zipf_weights(20, 12, 0.7), 4000, 4, rng=rng)
    check = estimator_check(design, counts, 500, rng=rng)
    z, ratio = check.z_mean.ravel(), check.variance_ratio.ravel()
    assert z.shape == (128,) and check.n_draws == 500
    assert_mean_close(z, 0.0, 1.0)
    assert_variance_close(z, 1.0)
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert_mean_close(ratio, 1.0, 2.0 / 499)


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
