"""The RAPPOR guide and simulator, continual-counting and m-shot panels: their pure functions and widgets (no browser)."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from scipy import stats

from ldp_helpers.bounds import glance as gb
from ldp_helpers.bounds.m_shot import g, m_star
from ldp_helpers.bounds.rappor import (
    detection_threshold,
    detection_threshold_without_collisions,
    expected_precision_recall,
)
from ldp_helpers.experiments.glance import error_curve
from ldp_helpers.mechanisms.continual import Glance
from ldp_helpers.mechanisms.harmony import Harmony
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams
from ldp_helpers.simulate.populations import constant_population, zipf_weights
from ldp_tools.explore import streams
from ldp_tools.explore.paper_panels import continual_panel, m_shot_panel
from ldp_tools.explore.rappor import (
    _check_setting,
    _design,
    candidate_weights,
    rappor_guide,
    simulated_precision_recall,
)
from ldp_tools.explore.rappor_panel import _load_counts, rappor_panel
from ldp_tools.explore.rappor_sim import decode_counts, simulated_survey, user_report
from ldp_tools.explore.streams import _m_grid, continual_counting_curves, m_shot_curves

RAPPOR = dict(
    k=16, h=2, m=4, f=0.5, p=0.5, q=0.75, n_reports=20_000, n_candidates=40, n_true=10, zipf_s=1.0
)


# ------------------------------------------------------------------------------------ RAPPOR guide


def test_rappor_guide_privacy_is_the_mechanisms():
    guide = rappor_guide(**RAPPOR)
    params = RapporParams(k=16, h=2, m=4, f=0.5, p=0.5, q=0.75)
    assert guide.epsilon_one_report == pytest.approx(params.epsilon_one_report, rel=1e-12)
    assert guide.epsilon_permanent == pytest.approx(params.epsilon_permanent, rel=1e-12)
    assert (guide.q_star, guide.p_star) == (params.q_star, params.p_star)
    assert rappor_guide(**{**RAPPOR, "f": 0.0}).epsilon_permanent == math.inf


def test_rappor_guide_thresholds_are_the_bounds_modules_with_this_design():
    guide = rappor_guide(**RAPPOR, alpha=0.05, correction="bonferroni")
    params = RapporParams(k=16, h=2, m=4, f=0.5, p=0.5, q=0.75)
    assert (
        rappor_guide(**{**RAPPOR, "f": 0.25}).threshold_no_collisions
        != guide.threshold_no_collisions
    )
    design, _, _ = _design(16, 2, 4, 40, 0)
    mechanism = Rappor(params, design.blooms)
    np.testing.assert_allclose(
        guide.threshold, detection_threshold(mechanism, 20_000, alpha=0.05, n_tests=40), rtol=1e-10
    )
    assert guide.threshold_no_collisions == pytest.approx(
        float(detection_threshold_without_collisions(params, 20_000, alpha=0.05, n_tests=40)),
        rel=1e-12,
    )
    np.testing.assert_allclose(guide.frequencies, zipf_weights(40, 10, 1.0))


def test_rappor_guide_detection_probability_is_one_half_at_the_threshold_and_grows_with_n():
    guide = rappor_guide(**RAPPOR, correction="bonferroni")
    z = stats.norm.isf(0.05 / 40)
    np.testing.assert_allclose(
        guide.detection_probability, stats.norm.cdf(z * (guide.frequencies / guide.threshold - 1))
    )
    # a candidate exactly at its threshold is detected with probability ½ (the threshold's definition,
    # power = ½): the science's formula at the guide's thresholds, c_w = threshold / z
    at = expected_precision_recall(
        guide.threshold, guide.threshold / z, alpha=0.05, correction="bonferroni"
    )
    np.testing.assert_allclose(at.detection_probability, 0.5, rtol=1e-12)
    recalls = [
        rappor_guide(**{**RAPPOR, "n_reports": n}, correction="bonferroni").expected_recall
        for n in (1_000, 20_000, 10**6, 10**8)
    ]
    assert recalls == sorted(recalls) and recalls[0] < 0.2 and recalls[-1] > 0.999
    assert 0.0 <= guide.expected_precision <= 1.0
    # no correction: more false detections expected (α per null candidate instead of α/M)
    assert rappor_guide(**RAPPOR, correction="none").expected_false == pytest.approx(30 * 0.05)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(f=1.0), "f must be"),
        (dict(q=0.4), "q must be"),
        (dict(n_reports=2), "n_reports must be"),
        (dict(h=17), "h must be"),
        (dict(n_true=41), "n_true must be"),
        (dict(correction="fdr"), "correction must be one of"),
        (dict(alpha=0.0), "alpha must be"),
        (dict(f="abc"), "f must be a real number"),
        (dict(k="16"), "k must be"),
    ],
)
def test_rappor_guide_refuses_bad_values_with_the_librarys_message(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rappor_guide(**{**RAPPOR, **kwargs})


def test_bh_sits_between_no_correction_and_bonferroni_and_controls_the_expected_fdr():
    none, bonf, bh = (rappor_guide(**RAPPOR, correction=c) for c in ("none", "bonferroni", "bh"))
    assert bonf.expected_recall <= bh.expected_recall <= none.expected_recall
    assert bonf.expected_false <= bh.expected_false <= none.expected_false
    assert (
        1 - bh.expected_precision <= 0.05 + 1e-9
    )  # the fixed point's FDR is at most α (BH's guarantee)


@pytest.mark.parametrize("shape", ["zipf", "exponential", "linear", "constant"])
def test_population_shapes_hold_the_first_n_true_candidates(shape):
    w = candidate_weights(shape, 50, 12, 2.0)
    assert (
        w.sum() == pytest.approx(1.0)
        and np.all(w[12:] == 0)
        and np.all(w[:12] > 0)
        and np.all(np.diff(w[:12]) <= 1e-15)
    )
    if shape == "constant":
        np.testing.assert_allclose(w[:12], 1 / 12)
    np.testing.assert_allclose(candidate_weights("zipf", 50, 12, 2.0), zipf_weights(50, 12, 2.0))
    assert rappor_guide(**{**RAPPOR, "shape": shape}).frequencies.sum() == pytest.approx(1.0)


def test_the_design_and_decoding_ceilings_refuse_with_the_allowed_range():
    with pytest.raises(
        ValueError, match=r"n_candidates must be an integer in \[2, 256\] at k = 128, m = 128"
    ):
        rappor_guide(**{**RAPPOR, "k": 128, "m": 128, "n_candidates": 1000, "n_reports": 10**6})
    with pytest.raises(
        ValueError, match=r"n_candidates must be an integer in \[2, 256\] to decode 1 survey"
    ):
        simulated_survey(**{**RAPPOR, "k": 128, "m": 64, "n_candidates": 500, "n_reports": 10**6})
    rappor_guide(
        **{**RAPPOR, "k": 128, "m": 64, "n_candidates": 500, "n_reports": 10**6}
    )  # the guide alone: allowed


def test_decode_counts_is_the_decoder_on_real_counts():
    from ldp_helpers.estimation.rappor_decoding import decode

    params = RapporParams(k=16, h=2, m=4, f=0.5, p=0.5, q=0.75)
    mechanism = Rappor.create(params, 10, rng=np.random.default_rng(1))
    truth = np.array([[500, 300, 0, 0, 200, 0, 0, 0, 0, 0]] * 4)
    counts = mechanism.sample_aggregate(truth, rng=np.random.default_rng(2))
    out = decode_counts(
        counts,
        truth.sum(axis=1),
        mechanism.blooms,
        f=0.5,
        p=0.5,
        q=0.75,
        alpha=0.05,
        correction="none",
        names=[f"s{i}" for i in range(10)],
    )
    ref = decode(mechanism.design_matrix, mechanism.estimate(counts, truth.sum(axis=1)).ravel())
    np.testing.assert_allclose(out.estimate[ref.candidates], 4 * ref.estimates)
    assert (
        out.names[0] == "s0"
        and out.n_reports == 4000
        and set(np.flatnonzero(out.detected)) == set(ref.detected_candidates)
    )
    with pytest.raises(ValueError, match="counts must be"):
        decode_counts(counts + 2000, truth.sum(axis=1), mechanism.blooms, f=0.5, p=0.5, q=0.75)
    with pytest.raises(ValueError, match="names must be"):
        decode_counts(
            counts, truth.sum(axis=1), mechanism.blooms, f=0.5, p=0.5, q=0.75, names=["a"]
        )


def test_the_user_report_steps_are_the_clients():
    steps = user_report(
        k=16, h=2, m=4, f=0.0, p=0.0, q=1.0, candidate=5, cohort=2, n_candidates=20, seed=3
    )
    np.testing.assert_array_equal(steps.bloom, _design(16, 2, 4, 20, 3)[0].blooms[2, 5])
    np.testing.assert_array_equal(steps.prr, steps.bloom)  # f = 0: B′ = B
    np.testing.assert_array_equal(steps.irr, steps.bloom)  # p = 0, q = 1: S = B′
    with pytest.raises(ValueError, match=r"cohort must be an integer in \[0, 3\]"):
        user_report(k=16, h=2, m=4, f=0.0, p=0.5, q=0.75, cohort=4)


# ------------------------------------------------------------------------------------ continual counting

CONT = dict(mu=0.5, n_users=10_000, n_rounds=10, beta=0.1, epsilon_max=5.0)


def test_continual_bounds_are_the_glance_modules():
    c = continual_counting_curves(**CONT, n_draws=20, seed=1)
    np.testing.assert_allclose(c.epsilons, np.linspace(0.5, 5.0, 10))
    np.testing.assert_allclose(c.theta, gb.theta(c.epsilons, 10_000, 10, 0.1))
    np.testing.assert_allclose(c.glance_upper, 2 * c.theta)
    np.testing.assert_allclose(
        c.harmony_lower, gb.harmony_lower_bound(c.epsilons, 10_000, 10, 0.1 / 10_001**2)
    )
    np.testing.assert_array_equal(
        c.condition2, gb.dense_sparse_condition(0.5, c.epsilons, 10_000, 10, 0.1)
    )
    assert set(c.mean_error) == {"Glance", "Harmony", "T-shot"}


@pytest.mark.statistical
def test_continual_mean_error_has_the_law_of_error_curve():
    """Same law as the notebooks' driver (sample_aggregate per ε): means agree within 4 SE of the difference."""
    mine = continual_counting_curves(**CONT, n_draws=400, seed=3)
    population = constant_population(0.5, 10_000, 10)
    for label, cls in (("Glance", Glance), ("Harmony", Harmony)):
        ref = error_curve(
            cls, population, mine.epsilons[[0, 4, 9]], rng=np.random.default_rng(7), n_draws=400
        )
        se = np.hypot(mine.se[label][[0, 4, 9]], ref.std(axis=1, ddof=1) / 20)
        assert np.all(np.abs(mine.mean_error[label][[0, 4, 9]] - ref.mean(axis=1)) < 4 * se), label


def test_continual_refuses_outside_eq1s_domain_and_bad_values():
    with pytest.raises(ValueError, match="n_users must be"):
        continual_counting_curves(**{**CONT, "n_users": 100, "n_rounds": 50})  # N ≤ T log(4T/β)
    for kwargs, match in (
        (dict(mu=1.5), "mu must be"),
        (dict(beta=0.0), "beta must be"),
        (dict(epsilon_max=0.0), "epsilon_max must be"),
        (dict(mu="x"), "mu must be a real number"),
    ):
        with pytest.raises(ValueError, match=match):
            continual_counting_curves(**{**CONT, **kwargs})


# ------------------------------------------------------------------------------------ m-shot

MSHOT = dict(epsilon=6.0, n_rounds=40, n_users=2_000, theta=0.5)


def test_m_grid_holds_one_t_and_m_star_with_its_neighbours():
    ms = _m_grid(20.0, 1000)
    star = m_star(20.0, 1000)
    assert {1, 1000, star - 1, star, star + 1} <= set(ms.tolist()) and np.all(np.diff(ms) > 0)


def test_m_shot_curves_g_and_m_star_and_theta_costs_no_simulation():
    c = m_shot_curves(**MSHOT, n_draws=5, seed=2)
    assert c.m_star == m_star(6.0, 40) and c.m_star in c.ms
    np.testing.assert_allclose(c.g, g(c.ms / 6.0))
    assert np.all((0 <= c.mean_f) & (c.mean_f <= 1))
    before = streams._estimates.cache_info()
    other = m_shot_curves(**{**MSHOT, "theta": 0.3}, n_draws=5, seed=2)
    after = streams._estimates.cache_info()
    assert after.misses == before.misses and after.hits == before.hits + c.ms.size
    assert not np.array_equal(other.mean_f, c.mean_f) or np.all(c.mean_f == 1)


def test_m_shot_refuses_bad_values():
    for kwargs, match in (
        (dict(epsilon=0.0), "epsilon must be"),
        (dict(theta=0.0), "theta must be"),
        (dict(n_rounds=0), "n_rounds must be"),
        (dict(epsilon="abc"), "epsilon must be a real number"),
    ):
        with pytest.raises(ValueError, match=match):
            m_shot_curves(**{**MSHOT, **kwargs})


def test_huge_streams_are_refused_at_once_with_the_allowed_range():
    """Issue 30: the m-shot panel with 10⁶ rounds stalled for over a minute; now a refusal before any simulation."""
    import time

    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"n_rounds must be an integer in \[1, 5000\]"):
        m_shot_curves(**{**MSHOT, "n_rounds": 10**6})
    with pytest.raises(
        ValueError, match=r"n_rounds must be an integer in \[1, 285\] with n_draws = 200"
    ):
        m_shot_curves(**{**MSHOT, "n_rounds": 2000}, n_draws=200)
    with pytest.raises(
        ValueError, match=r"n_rounds must be an integer in \[1, 10000\] with n_draws = 5"
    ):
        continual_counting_curves(mu=0.5, n_users=10**9, n_rounds=200_000, beta=0.1, n_draws=5)
    assert time.perf_counter() - start < 1.0
    panel = m_shot_panel(**MSHOT)
    panel.controls["n_rounds"].value = 10**6
    assert "— n_rounds must be an integer in [1, 5000]" in panel.message.value


def test_m_shot_work_counts_the_chains_binomials_within_30_percent():
    """Issue 36 item 2: the cost model's chain term is the binomials sample_reporter_counts draws."""
    from ldp_helpers.simulate.streams import sample_reporter_counts

    class Counting:  # counts the binomials with n > 0 (n = 0 draws no number)
        def __init__(self, rng):
            self.rng, self.draws = rng, 0

        def binomial(self, n, p):
            self.draws += np.count_nonzero(n)
            return self.rng.binomial(n, p)

    settings = ((2000, 1, 10**9, 3), (2000, 300, 10**9, 5), (1000, 40, 10**4, 2))
    for n_rounds, m, n_users, n_draws in settings:  # the model errs on the safe side at small N
        rng = Counting(np.random.default_rng(1))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("ldp_helpers.simulate.streams.check_rng", lambda r: r)
            sample_reporter_counts([n_users], n_rounds, m, rng=rng, n_draws=n_draws)
        model = streams._chain_draws(n_rounds, m, n_users, n_draws)
        assert 0.9 * rng.draws <= model <= 1.3 * rng.draws, (n_rounds, m, rng.draws, model)


def test_m_shot_ceiling_is_the_work_and_its_refusal_gives_ts_largest_allowed_value():
    """Issue 36 item 2: T = 5000, 40 surveys, N = 10⁹ took 8 s; the ceiling is _m_shot_work, not T·n_draws."""
    heavy = dict(epsilon=500.0, n_users=10**9 - 1, theta=0.5, n_draws=40)
    with pytest.raises(
        ValueError, match=r"n_rounds must be an integer in \[1, 473\] with n_draws = 40"
    ):
        m_shot_curves(**heavy, n_rounds=5000)
    work = [streams._m_shot_work(500.0, t, 10**9 - 1, 40) for t in (473, 474)]
    assert work[0] <= streams.MAX_M_SHOT_WORK < work[1]
    for t in (100, 1000):  # the default and the paper's T at their default 3 surveys
        assert streams._m_shot_work(10.0, t, 10**5, 3) <= streams.MAX_M_SHOT_WORK


def test_a_refusal_names_the_parameter_reverts_its_box_and_later_changes_apply():
    """Issue 36 item 3: m-shot N = 10⁹, RAPPOR m = 64 (refused for its design's M ceiling): named, reverted, then fine."""
    panel = m_shot_panel(**MSHOT)
    before = panel.summary.value
    panel.controls["n_users"].box.value = "1e9"
    assert panel.message.value.startswith(
        '<span style="color:#b00020;overflow-wrap:anywhere">refused: n_users = 1000000000 — n_users must'
    )
    assert (
        panel.controls["n_users"].value == MSHOT["n_users"]
        and panel.controls["n_users"].box.value == "2000"
    )
    assert panel.summary.value == before
    panel.controls["theta"].value = 0.25  # a later valid change applies
    assert (
        panel.message.value == ""
        and panel.applied["theta"] == 0.25
        and "θ = 0.25" in panel.summary.value
    )
    rappor = rappor_panel(
        k=128, m=8, n_candidates=600, n_true=20
    )  # decoding k·m·M: 64 ≤ the ceiling at m = 8
    rappor.controls["m"].value = 64
    message = rappor.message.value
    assert "refused: m = 64 — n_candidates must be" in message and "back to m = 8" in message
    assert rappor.controls["m"].value == 8 and rappor.applied["m"] == 8
    rappor.controls["f"].value = 0.25
    assert rappor.message.value == "" and rappor.applied["f"] == 0.25


# ------------------------------------------------------------------------------------ the widgets

PANEL_CASES = [
    (rappor_panel, dict(RAPPOR, survey=False), "f", 0.25, "f", "abc", "f must be a real number"),
    (
        rappor_panel,
        dict(RAPPOR, correction="bh"),
        "correction",
        "bonferroni",
        "q",
        0.4,
        "q must be",
    ),
    (continual_panel, dict(CONT), "mu", 0.9, "beta", 0.0, "beta must be"),
    (m_shot_panel, dict(MSHOT), "theta", 0.3, "epsilon", 0.0, "epsilon must be in [1e-12, inf)"),
]


@pytest.mark.parametrize("build, defaults, name, value, bad_name, bad, message", PANEL_CASES)
def test_panel_changes_with_a_control_and_survives_bad_input(
    build, defaults, name, value, bad_name, bad, message
):
    panel = build(**defaults)
    summary, png = panel.summary.value, panel.png[-1]
    assert panel.message.value == "" and png.startswith(b"\x89PNG") and panel.figure is not None
    figure = panel.figure
    panel.controls[name].value = value
    assert panel.message.value == "" and panel.summary.value != summary and panel.png[-1] != png
    assert panel.figure is figure  # one figure, updated (never rebuilt)
    panel.update(
        {bad_name: bad}
    )  # text or 0 where a number belongs: the library's message, no traceback
    assert (
        message in panel.message.value
        and "refused" in panel.message.value
        and "Traceback" not in panel.message.value
    )
    if isinstance(bad, float):
        panel.controls[bad_name].value = bad
        assert message in panel.message.value
        panel.controls[bad_name].value = defaults[bad_name]
    panel.controls[name].value = defaults[name]  # keeps working
    assert panel.message.value == "" and panel.summary.value == summary


@pytest.mark.parametrize(
    "build, kwargs",
    [
        (rappor_panel, dict(f=1.0)),
        (continual_panel, dict(mu=-0.1)),
        (m_shot_panel, dict(epsilon=0)),
        (m_shot_panel, dict(n_rounds=10**6)),
    ],
)
def test_bad_defaults_are_refused_before_any_widget(build, kwargs):
    with pytest.raises(ValueError):
        build(**kwargs)


def test_show_panel_displays_widget_png_and_text(monkeypatch):
    import IPython.display

    from ldp_tools.explore.panels import show_panel

    shown = []
    monkeypatch.setattr(
        IPython.display, "display", lambda obj, raw=False, **kw: shown.append((obj, raw))
    )
    panel = show_panel("m_shot", **MSHOT)
    bundle, raw = shown[-1]
    assert raw and set(bundle) == {
        "text/plain",
        "image/png",
        "application/vnd.jupyter.widget-view+json",
    }
    assert (
        "m* (Eq. 7) = " + str(m_star(6.0, 40)) in bundle["text/plain"]
        and "<b" not in bundle["text/plain"]
    )
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == panel.widget.model_id


def test_simulated_check_is_decode_surveys_and_the_approximation_is_close_at_the_papers_setting():
    from ldp_helpers.experiments.rappor import decode_surveys

    setting = dict(
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
    precision, recall, p_se, r_se = simulated_precision_recall(**setting, n_draws=6, seed=4)
    scores = decode_surveys(
        RapporParams.basic_one_time(k=128, h=4, m=8),
        zipf_weights(200, 100, 0.7),
        20_000,
        6,
        rng=np.random.default_rng(4),
        alpha=0.05,
        correction=None,
    )
    assert (precision, recall) == (scores[:, 0].mean(), scores[:, 1].mean())
    assert r_se == pytest.approx(scores[:, 1].std(ddof=1) / math.sqrt(6))
    guide = rappor_guide(**setting)
    # the analytic approximation ignores the LASSO: a guide within 0.1 of the decoder here, not an identity
    assert (
        abs(guide.expected_recall - recall) < 0.1
        and abs(guide.expected_precision - precision) < 0.15
    )


def test_rappor_panel_simulated_check_shows_in_the_summary():
    panel = rappor_panel(**RAPPOR)
    assert (
        "ldp-sim-recall" not in panel.summary.value and "ldp-survey-recall" in panel.summary.value
    )
    panel.controls["simulate"].value = True
    assert panel.message.value == "" and "ldp-sim-recall" in panel.summary.value
    precision, recall, p_se, r_se = simulated_precision_recall(**RAPPOR, correction="bh")
    shown = (
        f"recall <b class='ldp-sim-recall'>{recall:.3f}</b> ± {r_se:.3f}, precision {precision:.3f}"
    )
    assert shown in panel.summary.value  # the panel's one checked setting, the function's numbers


def test_a_rappor_setting_is_checked_once_and_keys_the_caches():
    """Equal keywords give equal, equally hashed settings (the population's fields, not its array)."""
    one, two = (
        _check_setting(**RAPPOR, shape="zipf", alpha=0.05, correction="bh", seed=0)
        for _ in range(2)
    )
    assert one == two and hash(one) == hash(two) and one.weights is not two.weights
    np.testing.assert_array_equal(one.weights, rappor_guide(**RAPPOR).frequencies)
    assert one != _check_setting(
        **{**RAPPOR, "zipf_s": 2.0}, shape="zipf", alpha=0.05, correction="bh", seed=0
    )


def test_rappor_panel_steps_a_users_report_and_offers_the_decoded_result():
    panel = rappor_panel(**RAPPOR)
    header, rows = panel.table
    assert (
        header[:4] == ("candidate", "frequency", "threshold", "pr_detected_analytic")
        and "estimate" in header
    )
    survey = simulated_survey(**RAPPOR, correction="bh")
    assert [row[5] for row in rows] == pytest.approx(list(survey.decoded.estimate))
    from PIL import Image

    def strip():  # the three rows B, B′, S of the report strip (one pixel per cell, one row per step)
        img = np.asarray(Image.open(io.BytesIO(panel.artists["strip"]["image"].value)))
        return img[[8, 24, 40], :: img.shape[1] // 16, 0]

    image = strip()
    panel.controls["report"].value = 1  # a new report: only S changes
    np.testing.assert_array_equal(strip()[:2], image[:2])
    panel.controls["user"].value = 4  # a new user: B′ is drawn anew, B is the same filter
    np.testing.assert_array_equal(strip()[0], image[0])
    steps = user_report(
        **{k_: RAPPOR[k_] for k_ in ("k", "h", "m", "f", "p", "q")},
        n_candidates=40,
        user=4,
        report=0,
    )
    np.testing.assert_array_equal(strip()[0] < 128, steps.bloom == 1)  # dark = 1
    assert "user #4, candidate w = 0" in panel.artists["strip"]["title"].value


def test_rappor_panel_decodes_uploaded_counts_and_goes_back():
    panel = rappor_panel(**RAPPOR)
    params = RapporParams(k=16, h=2, m=4, f=0.5, p=0.5, q=0.75)
    mechanism = Rappor.create(params, 10, rng=np.random.default_rng(1))
    truth = np.array([[900, 300, 0, 0, 200, 0, 0, 0, 0, 0]] * 4)
    counts = mechanism.sample_aggregate(truth, rng=np.random.default_rng(2))
    _load_counts(
        panel,
        counts,
        truth.sum(axis=1),
        mechanism.blooms,
        f=0.5,
        p=0.5,
        q=0.75,
        names=list("abcdefghij"),
    )
    header, rows = panel.table
    assert header == ("candidate", "estimate", "std_error", "p_value", "detected") and [
        r[0] for r in rows
    ] == list("abcdefghij")
    assert "uploaded counts decoded" in panel.artists["est_title"].get_text()
    panel.artists["upload"] = None
    panel.update()
    assert "simulated survey decoded" in panel.artists["est_title"].get_text()


def test_rappor_panels_upload_reads_google_rappors_files_with_issue_31s_readers():
    """The upload path end to end on the committed google/rappor fixture: the panel decodes what read_rappor_files
    reads (same arrays as decode_counts on them); a wrong set of files is refused with the library's message."""
    from pathlib import Path

    from ldp_helpers.interop.google_rappor import read_rappor_files
    from ldp_tools.explore.rappor_panel import _read_upload
    from ldp_tools.explore.rappor_sim import decode_counts

    folder = Path(__file__).parents[1] / "fixtures" / "google_rappor"
    files = {name: (folder / name).read_bytes() for name in ("counts.csv", "map.csv", "params.csv")}
    counts, sizes, blooms, names, (f, p, q) = _read_upload({"my_" + k: v for k, v in files.items()})
    data = read_rappor_files(folder / "counts.csv", folder / "map.csv", folder / "params.csv")
    np.testing.assert_array_equal(counts, data.bit_counts) and np.testing.assert_array_equal(
        blooms, data.blooms
    )
    assert names == list(data.candidates) and (f, p, q) == (
        data.params.f,
        data.params.p,
        data.params.q,
    )
    panel = rappor_panel(**RAPPOR)
    _load_counts(panel, counts, sizes, blooms, f=f, p=p, q=q, names=names)
    expected = decode_counts(
        counts,
        sizes,
        blooms,
        f=f,
        p=p,
        q=q,
        alpha=panel.settings()["alpha"],
        correction=panel.settings()["correction"],
        names=names,
    )
    header, rows = panel.table
    assert [r[0] for r in rows] == list(names) and [r[1] for r in rows] == pytest.approx(
        list(expected.estimate)
    )
    with pytest.raises(
        ValueError, match="upload must be three files named like google/rappor's counts.csv"
    ):
        _read_upload({"counts.csv": files["counts.csv"], "map.csv": files["map.csv"]})


def test_extreme_settings_get_numbers_or_the_librarys_message_never_numpys():
    """Found on the screenshots at extreme settings: N = 10¹⁰ users reached numpy's hypergeometric sampler
    (its own message); a noiseless RAPPOR (p = 0, q = 1) gave NaN detection probabilities."""
    with pytest.raises(ValueError, match=r"n_users must be an integer in \[1, 999999999\]"):
        m_shot_curves(**{**MSHOT, "n_users": 10**10})
    guide = rappor_guide(**{**RAPPOR, "f": 0.0, "p": 0.0, "q": 1.0})
    assert np.all(np.isfinite(guide.detection_probability)) and guide.expected_recall == 1.0


def test_decoded_standard_errors_are_never_nan_a_dropped_candidate_gets_0():
    """The LASSO drops candidates at ordinary settings (the contract's decode_counts call drops 3 of 4): their
    SE was NaN; now 0 (not estimated), with estimate 0 and p-value 1 as documented."""
    for seed in range(3):
        survey = simulated_survey(**{**RAPPOR, "seed": seed})
        d = survey.decoded
        assert not np.isnan(d.std_error).any()
        dropped = d.std_error == 0
        assert (
            dropped.any() and np.all(d.estimate[dropped] == 0) and np.all(d.p_value[dropped] == 1)
        )
