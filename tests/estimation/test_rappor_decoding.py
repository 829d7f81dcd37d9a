"""RAPPOR decoding, detection thresholds, seed 001's populations, the notebook's drivers and its figures."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from stat_checks import assert_mean_close, assert_variance_close

from ldp_helpers._validation import check_trailing_shape
from ldp_helpers.bounds.rappor import (
    detection_threshold,
    detection_threshold_without_collisions,
    threshold_recall,
)
from ldp_helpers.estimation.rappor_decoding import (
    Decoding,
    decode,
    identical_filter_pairs,
    printed_y_vec,
    total_counts,
)
from ldp_helpers.experiments import rappor as runs
from ldp_helpers.experiments.rappor import (
    SURVEY_COLUMNS,
    decode_survey,
    decode_surveys,
    estimator_check,
    precision_recall,
    privacy_comparison,
)
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams
from ldp_helpers.mechanisms.rappor_client import report_table
from ldp_helpers.simulate.populations import cohort_counts, cohort_sizes, zipf_weights
from ldp_tools.pipeline.plots import rappor as plots

SMALL = RapporParams(k=8, h=2, m=2, f=0.0, p=0.5, q=0.75)
TOY_TRUTH = np.array([[900, 600, 0, 300, 0], [900, 600, 0, 300, 0]])


def test_total_counts_are_m_times_beta_hat_and_nothing_for_dropped_candidates():
    """β_w counts per cohort (Y stacks the m cohorts' t̂): the count over m cohorts is m·β̂_w, SE m·SE."""
    fit = Decoding(
        np.array([0, 2]),
        np.array([10.0, 2.5]),
        np.array([1.0, 0.5]),
        np.array([0.01, 0.3]),
        np.array([True, False]),
        0.05,
        None,
    )
    estimate, std_error, p_value = total_counts(fit, 4, 3)
    np.testing.assert_array_equal(estimate, [40.0, 0.0, 10.0])
    # a dropped candidate is not estimated: SE 0, never NaN
    np.testing.assert_array_equal(std_error, [4.0, 0.0, 2.0])
    np.testing.assert_array_equal(p_value, [0.01, 1.0, 0.3])
    with pytest.raises(ValueError, match=r"n_candidates must be an integer in \[3, inf\]"):
        total_counts(fit, 4, 2)


@pytest.mark.statistical
def test_total_counts_recover_the_toy_examples_counts_over_both_cohorts(rng):
    """Each cohort holds half of every count: m·β̂ of the kept candidates is within 5 SE of the total count
    Σ_j n_jw; the per-cohort β̂ (half of it) is not, for the two frequent candidates (1800 and 1200)."""
    mechanism = small()
    counts = mechanism.sample_aggregate(TOY_TRUTH, rng=rng)
    y = mechanism.estimate(counts, mechanism.n_reports(TOY_TRUTH)).ravel()
    fit = decode(mechanism.design_matrix, y)
    estimate, std_error, _ = total_counts(fit, mechanism.params.m, mechanism.n_candidates)
    kept, total = fit.candidates, TOY_TRUTH.sum(axis=0)
    assert np.all(np.abs(estimate[kept] - total[kept]) < 5 * std_error[kept])
    held = kept[total[kept] >= 1200]
    assert held.size == 2
    assert np.all(np.abs(estimate[held] / 2 - total[held]) > 5 * std_error[held])


def small(params=SMALL, n_candidates=5, seed=7) -> Rappor:
    return Rappor.create(params, n_candidates, rng=np.random.default_rng(seed))


def disjoint(params=RapporParams.basic_one_time(k=12, h=2, m=3)) -> Rappor:
    """Six candidates with disjoint 2-bit filters in each of 3 cohorts (XᵀX = h·m·I)."""
    block = np.kron(np.eye(6, dtype=np.int8), np.ones((1, 2), dtype=np.int8))  # (M, k)
    return Rappor(params, np.stack([block] * 3))


# ---------------------------------------------------------------- exact


def test_cohort_sizes_and_zipf_weights():
    """Cohort sizes sum to N (N//m each when m | N); Zipf weights ∝ r^−a on the active candidates."""
    assert list(cohort_sizes(20_000, 8)) == [2500] * 8
    sizes = cohort_sizes(20_001, 8)
    assert sizes.sum() == 20_001 and sizes.max() - sizes.min() == 1
    w = zipf_weights(200, 100, 0.7)
    assert w.sum() == pytest.approx(1.0) and np.all(w[100:] == 0)
    assert w[0] / w[9] == pytest.approx(10**0.7)
    counts = cohort_counts(w, 20_001, 8, rng=np.random.default_rng(0))
    assert (
        counts.shape == (8, 200)
        and np.array_equal(counts.sum(axis=1), sizes)
        and np.all(counts[:, 100:] == 0)
    )


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
    for cohort, matrix in (
        (0, mechanism.blooms[0].T),
        (1, mechanism.blooms[1].T),
        (None, mechanism.design_matrix),
    ):
        brute = sum(
            np.array_equal(matrix[:, a], matrix[:, b])
            for a, b in itertools.combinations(range(12), 2)
        )
        assert identical_filter_pairs(mechanism, cohort) == brute
    assert (
        identical_filter_pairs(mechanism, 0) >= 4 * 3
    )  # 12 candidates in 4 filters: at least 4·C(3, 2) pairs
    assert identical_filter_pairs(mechanism) <= min(
        identical_filter_pairs(mechanism, 0), identical_filter_pairs(mechanism, 1)
    )


def test_privacy_comparison_rows(rng):
    """Each row: table ε = ε₁ and table ε∞ = ε∞; the tutorial's ε₂ agrees only without PRR (f = 0)."""
    table = privacy_comparison(
        [(0.0, 0.5, 0.75), (0.5, 0.5, 0.75), (0.25, 0.35, 0.65)], [1, 2], k=6, rng=rng
    )
    assert table.shape == (6, 9)
    f, h, eps_table, eps1, eps_tut, eps_inf_table, eps_inf = table[:, [0, 3, 4, 5, 6, 7, 8]].T
    assert np.array_equal(h, [1, 2] * 3)
    assert np.allclose(eps_table, eps1, rtol=1e-12)
    assert np.array_equal(eps_inf_table == np.inf, eps_inf == np.inf)
    finite = np.isfinite(eps_inf)
    assert np.allclose(eps_inf_table[finite], eps_inf[finite], rtol=1e-12) and np.all(
        finite == (f > 0)
    )
    assert np.all(np.isclose(eps_tut, eps1, rtol=1e-12) == (f == 0))
    with pytest.raises(ValueError, match=r"h_values must be integers in \[1, 1\]"):  # h ≤ k
        privacy_comparison([(0.5, 0.5, 0.75)], [1, 2], k=1, rng=rng)  # blamed h before


def test_bonferroni_and_bh_detect_nested_sets(rng):
    """Bonferroni ⊆ Benjamini–Hochberg ⊆ uncorrected; Bonferroni p = min(1, M·p)."""
    mechanism = Rappor.create(RapporParams.basic_one_time(k=64, h=4, m=4), 60, rng=rng)
    truth = cohort_counts(zipf_weights(60, 30, 0.7), 8000, 4, rng=rng)
    y = mechanism.estimate(
        mechanism.sample_aggregate(truth, rng=rng), mechanism.n_reports(truth)
    ).ravel()
    raw, bonf, bh = (
        decode(mechanism.design_matrix, y, correction=c) for c in (None, "bonferroni", "bh")
    )
    assert np.array_equal(raw.candidates, bonf.candidates)
    assert np.allclose(bonf.p_values, np.minimum(raw.p_values * 60, 1))
    assert (
        set(bonf.detected_candidates) <= set(bh.detected_candidates) <= set(raw.detected_candidates)
    )
    assert bh.p_values.min() >= raw.p_values.min()


def test_detection_threshold_closed_form_without_collisions():
    """With disjoint Bloom filters (XᵀX = h·m·I) the threshold is z·sqrt(p*(1−p*))/((q*−p*)·sqrt(N h))."""
    mechanism = disjoint()
    threshold = detection_threshold(mechanism, 3000, alpha=0.05)
    expected = stats.norm.isf(0.05) * math.sqrt(0.25) / (0.25 * math.sqrt(3000 * 2))
    assert np.allclose(threshold, expected, rtol=1e-12)
    assert detection_threshold_without_collisions(
        mechanism.params, 3000, alpha=0.05
    ) == pytest.approx(expected, rel=1e-12)
    with_power = stats.norm.isf(0.05 / 6) + stats.norm.ppf(0.9)
    assert np.allclose(
        detection_threshold(mechanism, 3000, n_tests=6, power=0.9),
        expected * with_power / stats.norm.isf(0.05),
    )


def test_detection_threshold_vectorizes_over_n_and_grows_with_collisions():
    """An array of N gives one row per N equal to scalar calls (∝ 1/sqrt(N)); a collision raises the threshold."""
    mechanism = disjoint()
    n = np.array([300, 1200, 4800])
    rows = detection_threshold(mechanism, n)
    assert rows.shape == (3, 6)
    assert all(
        np.allclose(rows[i], detection_threshold(mechanism, int(n[i])), rtol=1e-12)
        for i in range(3)
    )
    assert np.allclose(rows[:-1] / rows[1:], 2.0)
    assert np.allclose(
        detection_threshold_without_collisions(mechanism.params, n), rows[:, 0], rtol=1e-12
    )
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
        (
            lambda X, y: decode(X, y[:-1]),
            r"y must be a 1-D array \(one entry per row of X\) whose last axis has length 16",
        ),
        (lambda X, y: decode(X, np.full_like(y, np.nan)), r"y must be finite values"),
        (lambda X, y: decode(X[:, 0], y), r"X must be a 2-D array design matrix"),
        (
            lambda X, y: decode(X[:1], y[:1]),
            r"X.shape\[0\] \(rows k·m\) must be an integer in \[2, inf\]; got 1",
        ),
        (lambda X, y: decode(X, y, alpha=1.0), r"alpha must be in \(0, 1\)"),
        (lambda X, y: decode(X, y, alpha=0), r"alpha must be in \(0, 1\)"),
        (
            lambda X, y: decode(X, y, correction="holm"),
            r"correction must be one of \(None, 'bonferroni', 'bh'\); got 'holm'",
        ),
        (lambda X, y: detection_threshold(small(), 100, alpha=1.5), r"alpha must be in \(0, 1\)"),
        (lambda X, y: detection_threshold(small(), 1), r"n_reports must be integers in \[2, inf\]"),
        (
            lambda X, y: Rappor.create(SMALL, 0, rng=np.random.default_rng(0)),
            r"n_candidates must be an integer in \[1, inf\]",
        ),
        (lambda X, y: cohort_sizes(5, 8), r"m must be an integer in \[1, 5\]"),
        (
            lambda X, y: cohort_counts([0.5, 0.4], 10, 2, rng=np.random.default_rng(0)),
            r"weights.sum\(\) must be in \[1, 1\]; got 0.9",
        ),
        (lambda X, y: zipf_weights(10, 11, 0.7), r"n_active must be an integer in \[1, 10\]"),
        (
            lambda X, y: printed_y_vec(
                small(), np.ones((2, 2), int), 2, rng=np.random.default_rng(0)
            ),
            r"truth must be an array of shape \(2, 5\)",
        ),
        (
            lambda X, y: printed_y_vec(
                small(RapporParams(k=8, h=2, m=2, f=0.5, p=0.5, q=0.75)),
                TOY_TRUTH,
                2,
                rng=np.random.default_rng(0),
            ),
            r"mechanism.params.f must be in \[0, 0\]; got 0.5",
        ),
        (
            lambda X, y: estimator_check(
                small(RapporParams(k=8, h=2, m=2, f=0.0, p=0.0, q=1.0)),
                TOY_TRUTH,
                10,
                rng=np.random.default_rng(0),
            ),
            r"mechanism.variance\(truth\) must be finite values in \(0, inf\)",
        ),
        (
            lambda X, y: check_trailing_shape("aggregate", np.zeros((1, 3, 2, 8)), (2, 8)),
            r"aggregate must be an array of shape \(2, 8\) or \(n_draws, 2, 8\); got an array of shape \(1, 3, 2, 8\)",
        ),
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


# ---------------------------------------------------------------- the notebook's drivers and figures


def test_paper_setting_is_section_3s():
    """k = 128, M = 200 of which 100 Zipf(0.7), N = 20,000 in 8 cohorts, q = 0.75, p = 0.5, f = 0."""
    par = runs.paper_params(8)
    assert (par.k, par.h, par.m, par.f, par.p, par.q) == (128, 8, 8, 0.0, 0.5, 0.75)
    assert runs.paper_params(4, 2).m == 2
    assert runs.paper_params(4, epsilon=2.0).epsilon_one_report == pytest.approx(2.0, rel=1e-12)
    assert np.array_equal(runs.paper_weights(), zipf_weights(200, 100, 0.7))
    assert runs.N_REPORTS // runs.N_COHORTS == 2500
    assert runs.paper_setting(4) == dict(
        k=128,
        h=4,
        m=8,
        f=0.0,
        p=0.5,
        q=0.75,
        n_reports=20_000,
        n_candidates=200,
        n_true=100,
        zipf_s=0.7,
        alpha=0.05,
        correction="none",
    )


def test_decode_grid_is_decode_surveys_point_by_point():
    """Same stream, same numbers: the grid runs decode_surveys at each point in order (one N or one N per point)."""
    a, b = RapporParams.basic_one_time(k=32, h=2, m=4), RapporParams.basic_one_time(k=32, h=4, m=2)
    w = zipf_weights(40, 10, 0.7)
    grid = runs.decode_grid([a, b], w, 2, n_reports=[3000, 5000], rng=np.random.default_rng(3))
    stream = np.random.default_rng(3)
    one_by_one = [
        decode_surveys(a, w, 3000, 2, rng=stream),
        decode_surveys(b, w, 5000, 2, rng=stream),
    ]
    assert grid.shape == (2, 2, len(SURVEY_COLUMNS)) and np.array_equal(grid, np.array(one_by_one))
    assert runs.decode_grid([a], w, 1, rng=np.random.default_rng(0)).shape == (1, 1, 4)
    with pytest.raises(
        ValueError, match=r"n_reports must be one N or one N per point of params \(2\)"
    ):
        runs.decode_grid([a, b], w, 1, n_reports=[3000, 4000, 5000], rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"params must be a non-empty list of RapporParams"):
        runs.decode_grid([], w, 1, rng=np.random.default_rng(0))
    with pytest.raises(
        ValueError, match=r"params.f \(printed_logic: IRR only\) must be in \[0, 0\]; got 0.5"
    ):
        runs.decode_grid(
            [RapporParams(k=32, h=2, m=4, f=0.5, p=0.5, q=0.75)],
            w,
            1,
            printed_logic=True,
            rng=np.random.default_rng(0),
        )


def test_decode_survey_checks_before_drawing():
    """A bad N (below m), weights not summing to 1 or a bad correction are refused before any draw."""
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"n_reports must be an integer in \[4, inf\]; got 3"):
        decode_survey(
            RapporParams.basic_one_time(k=32, h=2, m=4), zipf_weights(40, 10, 0.7), 3, rng=rng
        )
    with pytest.raises(ValueError, match=r"weights.sum\(\) must be in \[1, 1\]"):
        decode_surveys(SMALL, [0.5, 0.4], 100, 1, rng=rng)
    with pytest.raises(ValueError, match=r"correction must be one of"):
        decode_surveys(SMALL, [0.5, 0.5], 100, 1, rng=rng, correction="holm")
    assert rng.bit_generator.state == np.random.default_rng(0).bit_generator.state


def test_paired_gain_mean_and_floored_standard_error():
    """Mean gain and SE = sd/sqrt(n), never below the floor; one survey gives the floor."""
    gain, se = runs.paired_gain([0.5, 0.7, 0.6], [0.1, 0.1, 0.1])
    assert gain == pytest.approx(0.5) and se == pytest.approx(0.1 / math.sqrt(3))
    assert runs.paired_gain([0.3, 0.3], [0.0, 0.0]) == (pytest.approx(0.3), 0.01)
    assert runs.paired_gain([0.3], [0.0], se_floor=0.05) == (pytest.approx(0.3), 0.05)
    with pytest.raises(
        ValueError,
        match=r"before must be a 1-D array \(paired with after\) whose last axis has length 2",
    ):
        runs.paired_gain([0.3, 0.3], [0.0])


def test_client_check_is_the_per_report_client():
    """client_check = Rappor.create then perturb on one candidate, set and unset bits split by its filter."""
    params = RapporParams.basic_one_time(k=16, h=3, m=2)
    check = runs.client_check(params, 400, rng=np.random.default_rng(5))
    stream = np.random.default_rng(5)
    mechanism = Rappor.create(params, 1, rng=stream)
    bits = mechanism.perturb(np.zeros((400, 2), dtype=int), rng=stream).bits
    on = bits[:, mechanism.blooms[0, 0] == 1]
    assert check.q_hat == on.mean() and check.se_q == pytest.approx(
        math.sqrt(0.75 * 0.25 / on.size)
    )
    assert check.se_p == pytest.approx(math.sqrt(0.25 / (bits.size - on.size)))
    with pytest.raises(ValueError, match=r"params.h must be an integer in \[-inf, 3\]; got 4"):
        runs.client_check(RapporParams.basic_one_time(k=4, h=4, m=1), 10, rng=stream)


@pytest.mark.parametrize(
    "params",
    [
        RapporParams.basic_one_time(k=128, h=8, m=8),
        RapporParams(k=8, h=2, m=1, f=0.5, p=0.5, q=0.75),
        RapporParams(k=8, h=3, m=1, f=0.25, p=0.35, q=0.65),
    ],
)
def test_disjoint_filters_give_the_closed_form(params):
    """Two filters with disjoint h-bit supports reach ε₁ = h ln(q*(1−p*)/(p*(1−q*))) exactly."""
    assert runs.disjoint_filters_loss(params) == pytest.approx(params.epsilon_one_report, rel=1e-12)
    filters = np.kron(np.eye(2, dtype=np.int8), np.ones((1, params.h), dtype=np.int8))
    assert runs.disjoint_filters_loss(params) == max_privacy_loss(
        report_table(filters, params.bit_table())
    )


def test_colliding_pairs_and_privacy_row():
    """colliding_pairs counts identical filters of a fresh design; privacy_row finds a setting by name."""
    params = RapporParams.basic_one_time(k=4, h=1, m=2)
    design = Rappor.create(params, 12, rng=np.random.default_rng(2))
    assert runs.colliding_pairs(params, 12, rng=np.random.default_rng(2)) == (
        identical_filter_pairs(design, 0),
        identical_filter_pairs(design),
    )
    full = RapporParams(k=6, h=2, m=1, f=0.5, p=0.5, q=0.75)
    table = privacy_comparison(
        [(0.0, 0.5, 0.75), (0.5, 0.5, 0.75)], [1, 2], k=6, rng=np.random.default_rng(0)
    )
    row = runs.privacy_row(table, full)
    assert list(row) == list(runs.PRIVACY_COLUMNS) and row["eps1"] == full.epsilon_one_report
    assert row["eps_inf_table"] == pytest.approx(full.epsilon_permanent, rel=1e-12)
    with pytest.raises(ValueError, match=r"params must be a setting \(f, p, q, h\) of the table"):
        runs.privacy_row(table, RapporParams(k=6, h=3, m=1, f=0.5, p=0.5, q=0.75))


def test_threshold_recall_is_the_median_threshold_and_the_share_above_it():
    """threshold_recall: the median detection threshold per N, and the share of true weights above it."""
    mechanism = Rappor.create(
        RapporParams.basic_one_time(k=32, h=2, m=4), 40, rng=np.random.default_rng(1)
    )
    weights, n = zipf_weights(40, 10, 0.7), np.array([1000, 10_000, 100_000])
    threshold, recall = threshold_recall(mechanism, weights, n)
    median = np.median(detection_threshold(mechanism, n), axis=1)
    assert np.array_equal(threshold, median)
    assert np.array_equal(recall, np.mean(weights[:10] > median[:, None], axis=1))
    assert np.all(np.diff(recall) >= 0)
    with pytest.raises(
        ValueError, match=r"weights must be a 1-D array \(one weight per candidate\)"
    ):
        threshold_recall(mechanism, weights[:5], n)


def _scores(points, surveys=3, seed=0):
    return np.random.default_rng(seed).uniform(0, 1, size=(points, surveys, 4))


def test_precision_recall_vs_h_draws_both_panels():
    """Two panels, precision and recall with min–max bands, ε on the top axis, the setting in the title."""
    fig = plots.precision_recall_vs_h(
        [1, 4, 16], _scores(3), _scores(3, seed=1), [1.1, 4.4, 17.6], 4.0
    )
    left, right = fig.axes[:2]
    assert [len(ax.get_lines()) for ax in (left, right)] == [2, 2] and len(left.collections) == 2
    assert (
        right.get_title() == "equal privacy: ε = 4 per report"
        and "$N=20,000$" in fig._suptitle.get_text()
    )
    assert np.allclose(left.get_lines()[1].get_ydata(), _scores(3)[:, :, 1].mean(axis=1))
    with pytest.raises(ValueError, match=r"at_epsilon must be shape \(3, surveys, ≥ 2\)"):
        plots.precision_recall_vs_h([1, 4, 16], _scores(3), _scores(2), [1.1, 4.4, 17.6], 4.0)
    with pytest.raises(ValueError, match=r"epsilons must be one ε per h \(3\)"):
        plots.precision_recall_vs_h([1, 4, 16], _scores(3), _scores(3), [1.1, 4.4], 4.0)


def test_precision_recall_vs_n_and_m_marks_the_papers_setting():
    """Means over surveys against N (with the predicted recall) and m; the paper's N and m as dotted lines."""
    fig = plots.precision_recall_vs_n_and_m(
        [5000, 20_000],
        _scores(2),
        [2, 8, 32],
        _scores(3),
        [5000, 10_000, 20_000],
        [0.1, 0.2, 0.3],
        h=8,
    )
    by_n, by_m = fig.axes
    assert len(by_n.get_lines()) == 4 and len(by_m.get_lines()) == 3
    assert np.allclose(by_m.get_lines()[0].get_ydata(), _scores(3)[:, :, 0].mean(axis=1))
    assert by_m.get_title() == "vs $m$ ($h=8$, $N=20,000$)"
    with pytest.raises(
        ValueError, match=r"predicted_recall must be a 1-D array \(one per n_fine\)"
    ):
        plots.precision_recall_vs_n_and_m(
            [5000], _scores(1), [2], _scores(1), [5000, 10_000], [0.1], h=8
        )


def test_detection_thresholds_draws_each_curve_and_the_marked_ranks():
    """One curve per collision-free setting, the design's median, and the marked Zipf ranks."""
    n_fine = np.array([1000, 10_000])
    curves = {RapporParams.basic_one_time(128, h, 8): np.array([0.1, 0.03]) / h for h in (1, 8)}
    fig = plots.detection_thresholds(
        n_fine, curves, np.array([0.05, 0.02]), zipf_weights(200, 100, 0.7), h=8
    )
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 3 + len(plots.MARKED_RANKS) and len(ax.texts) == len(
        plots.MARKED_RANKS
    )
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    with pytest.raises(ValueError, match=r"no_collisions must be a non-empty dict of RapporParams"):
        plots.detection_thresholds(
            n_fine, [], np.array([0.05, 0.02]), zipf_weights(200, 100, 0.7), h=8
        )
    with pytest.raises(ValueError, match=r"weights.size must be an integer in \[100, inf\]"):
        plots.detection_thresholds(
            n_fine, curves, np.array([0.05, 0.02]), zipf_weights(50, 10, 0.7), h=8
        )


# ---------------------------------------------------------------- statistical


@pytest.mark.statistical
def test_estimator_check_z_scores_are_standard_normal(rng):
    """estimator_check on the exact sampler: z ≈ N(0, 1) over 128 bits, variance ratios average 1."""
    mechanism = Rappor.create(RapporParams(k=32, h=3, m=4, f=0.25, p=0.5, q=0.75), 20, rng=rng)
    truth = cohort_counts(zipf_weights(20, 12, 0.7), 4000, 4, rng=rng)
    check = estimator_check(mechanism, truth, 500, rng=rng)
    z, ratio = check.z.ravel(), check.variance_ratio.ravel()
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
    ys = np.array(
        [
            printed_y_vec(mechanism, truth, 5, rng=rng, normalize_inside_loop=False)
            for _ in range(3000)
        ]
    )
    for r in (0, 4, 9, 15):
        assert_mean_close(ys[:, r], t[r], var[r])
        assert_variance_close(ys[:, r], var[r])


@pytest.mark.statistical
def test_decoder_recovers_strong_candidates_and_their_counts(rng):
    """Ten frequent candidates among 100 at N = 200,000: all detected, no false ones, β̂ within 5 SD of N_j·π."""
    weights = zipf_weights(100, 10, 0.5)
    survey = decode_survey(
        RapporParams.basic_one_time(k=64, h=4, m=8),
        weights,
        200_000,
        rng=rng,
        correction="bonferroni",
    )
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
    y = mechanism.estimate(
        mechanism.sample_aggregate(TOY_TRUTH, rng=rng), mechanism.n_reports(TOY_TRUTH)
    ).ravel()
    fit = decode(mechanism.design_matrix, y)
    assert set(fit.detected_candidates) <= {0, 1, 3}
    assert np.all(np.abs(fit.estimates - TOY_TRUTH[0, fit.candidates]) < 5 * fit.std_errors)
