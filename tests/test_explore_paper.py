"""The RAPPOR guide, continual-counting and m-shot panels: their pure functions and widgets (no browser)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from ldp_helpers.bounds import glance as gb
from ldp_helpers.bounds.m_shot import g, m_star
from ldp_helpers.bounds.rappor import detection_threshold, detection_threshold_without_collisions
from ldp_helpers.experiments.glance import error_curve
from ldp_helpers.explore import streams
from ldp_helpers.explore.paper_panels import continual_panel, m_shot_panel, rappor_panel
from ldp_helpers.explore.rappor import _design, rappor_guide
from ldp_helpers.explore.streams import continual_counting_curves, m_grid, m_shot_curves
from ldp_helpers.mechanisms.continual import Glance
from ldp_helpers.mechanisms.harmony import Harmony
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams
from ldp_helpers.simulate.populations import constant_population, zipf_weights

RAPPOR = dict(k=16, h=2, m=4, f=0.5, p=0.5, q=0.75, n_reports=20_000, n_candidates=40, n_true=10, zipf_s=1.0)


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
    design, _, _ = _design(16, 2, 4, 40, 0)
    mechanism = Rappor(params, design.blooms)
    np.testing.assert_allclose(guide.threshold, detection_threshold(mechanism, 20_000, alpha=0.05, n_tests=40), rtol=1e-10)
    assert guide.threshold_no_collisions == pytest.approx(
        float(detection_threshold_without_collisions(params, 20_000, alpha=0.05, n_tests=40)), rel=1e-12)
    np.testing.assert_allclose(guide.frequencies, zipf_weights(40, 10, 1.0))


def test_rappor_guide_detection_probability_is_one_half_at_the_threshold_and_grows_with_n():
    guide = rappor_guide(**RAPPOR)
    z = stats.norm.isf(0.05 / 40)
    np.testing.assert_allclose(guide.detection_probability, stats.norm.cdf(z * (guide.frequencies / guide.threshold - 1)))
    # a candidate exactly at its threshold: probability ½ (the threshold's definition, power = ½)
    assert stats.norm.cdf(z * (guide.threshold[0] / guide.threshold[0] - 1)) == 0.5
    recalls = [rappor_guide(**{**RAPPOR, "n_reports": n}).expected_recall for n in (1_000, 20_000, 10**6, 10**8)]
    assert recalls == sorted(recalls) and recalls[0] < 0.2 and recalls[-1] > 0.999
    assert 0.0 <= guide.expected_precision <= 1.0
    # no correction: more false detections expected (α per null candidate instead of α/M)
    assert rappor_guide(**RAPPOR, correction="none").expected_false == pytest.approx(30 * 0.05)


@pytest.mark.parametrize("kwargs, match", [
    (dict(f=1.0), "f must be"), (dict(q=0.4), "q must be"), (dict(n_reports=2), "n_reports must be"),
    (dict(h=17), "h must be"), (dict(n_true=41), "n_true must be"), (dict(correction="bh"), "correction must be one of"),
    (dict(alpha=0.0), "alpha must be"), (dict(f="abc"), "f must be a real number"), (dict(k="16"), "k must be"),
])
def test_rappor_guide_refuses_bad_values_with_the_librarys_message(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rappor_guide(**{**RAPPOR, **kwargs})


# ------------------------------------------------------------------------------------ continual counting

CONT = dict(mu=0.5, n_users=10_000, n_rounds=10, beta=0.1, epsilon_max=5.0)


def test_continual_bounds_are_the_glance_modules():
    c = continual_counting_curves(**CONT, n_draws=20, seed=1)
    np.testing.assert_allclose(c.epsilons, np.linspace(0.5, 5.0, 10))
    np.testing.assert_allclose(c.theta, gb.theta(c.epsilons, 10_000, 10, 0.1))
    np.testing.assert_allclose(c.glance_upper, 2 * c.theta)
    np.testing.assert_allclose(c.harmony_lower, gb.harmony_lower_bound(c.epsilons, 10_000, 10, 0.1 / 10_001 ** 2))
    np.testing.assert_array_equal(c.condition2, gb.dense_sparse_condition(0.5, c.epsilons, 10_000, 10, 0.1))
    assert set(c.mean_error) == {"Glance", "Harmony", "T-shot"}


@pytest.mark.statistical
def test_continual_mean_error_has_the_law_of_error_curve():
    """Same law as the notebooks' driver (sample_aggregate per ε): means agree within 4 SE of the difference."""
    mine = continual_counting_curves(**CONT, n_draws=400, seed=3)
    population = constant_population(0.5, 10_000, 10)
    for label, cls in (("Glance", Glance), ("Harmony", Harmony)):
        ref = error_curve(cls, population, mine.epsilons[[0, 4, 9]], rng=np.random.default_rng(7), n_draws=400)
        se = np.hypot(mine.se[label][[0, 4, 9]], ref.std(axis=1, ddof=1) / 20)
        assert np.all(np.abs(mine.mean_error[label][[0, 4, 9]] - ref.mean(axis=1)) < 4 * se), label


def test_continual_refuses_outside_eq1s_domain_and_bad_values():
    with pytest.raises(ValueError, match="n_users must be"):
        continual_counting_curves(**{**CONT, "n_users": 100, "n_rounds": 50})  # N ≤ T log(4T/β)
    for kwargs, match in ((dict(mu=1.5), "mu must be"), (dict(beta=0.0), "beta must be"),
                          (dict(epsilon_max=0.0), "epsilon_max must be"), (dict(mu="x"), "mu must be a real number")):
        with pytest.raises(ValueError, match=match):
            continual_counting_curves(**{**CONT, **kwargs})


# ------------------------------------------------------------------------------------ m-shot

MSHOT = dict(epsilon=6.0, n_rounds=40, n_users=2_000, theta=0.5)


def test_m_grid_holds_one_t_and_m_star_with_its_neighbours():
    ms = m_grid(20.0, 1000)
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
    for kwargs, match in ((dict(epsilon=0.0), "epsilon must be"), (dict(theta=0.0), "theta must be"),
                          (dict(n_rounds=0), "n_rounds must be"), (dict(epsilon="abc"), "epsilon must be a real number")):
        with pytest.raises(ValueError, match=match):
            m_shot_curves(**{**MSHOT, **kwargs})


# ------------------------------------------------------------------------------------ the widgets

PANEL_CASES = [
    (rappor_panel, dict(RAPPOR), "f", 0.25, "f", "abc", "f must be a real number"),
    (continual_panel, dict(CONT), "mu", 0.9, "beta", 0.0, "beta must be"),
    (m_shot_panel, dict(MSHOT), "theta", 0.3, "epsilon", 0.0, "epsilon must be in [1e-12, inf)"),
]


@pytest.mark.parametrize("build, defaults, name, value, bad_name, bad, message", PANEL_CASES)
def test_panel_changes_with_a_control_and_survives_bad_input(build, defaults, name, value, bad_name, bad, message):
    panel = build(**defaults)
    summary, png = panel.summary.value, panel.png[-1]
    assert panel.message.value == "" and png.startswith(b"\x89PNG") and panel.figure is not None
    figure = panel.figure
    panel.controls[name].value = value
    assert panel.message.value == "" and panel.summary.value != summary and panel.png[-1] != png
    assert panel.figure is figure  # one figure, updated (never rebuilt)
    panel.update({bad_name: bad})  # text or 0 where a number belongs: the library's message, no traceback
    assert message in panel.message.value and "refused" in panel.message.value and "Traceback" not in panel.message.value
    if isinstance(bad, float):
        panel.controls[bad_name].value = bad
        assert message in panel.message.value
        panel.controls[bad_name].value = defaults[bad_name]
    panel.controls[name].value = defaults[name]  # keeps working
    assert panel.message.value == "" and panel.summary.value == summary


@pytest.mark.parametrize("build, kwargs", [(rappor_panel, dict(f=1.0)), (continual_panel, dict(mu=-0.1)),
                                           (m_shot_panel, dict(epsilon=0))])
def test_bad_defaults_are_refused_before_any_widget(build, kwargs):
    with pytest.raises(ValueError):
        build(**kwargs)


def test_show_panel_displays_widget_png_and_text(monkeypatch):
    import IPython.display

    from ldp_helpers.explore.panels import show_panel

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False, **kw: shown.append((obj, raw)))
    panel = show_panel("m_shot", **MSHOT)
    bundle, raw = shown[-1]
    assert raw and set(bundle) == {"text/plain", "image/png", "application/vnd.jupyter.widget-view+json"}
    assert "m* (Eq. 7) = " + str(m_star(6.0, 40)) in bundle["text/plain"] and "<b" not in bundle["text/plain"]
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == panel.widget.model_id


def test_simulated_check_is_decode_surveys_and_the_approximation_is_close_at_the_papers_setting():
    from ldp_helpers.experiments.rappor import decode_surveys
    from ldp_helpers.explore.rappor import simulated_precision_recall

    setting = dict(k=128, h=4, m=8, f=0.0, p=0.5, q=0.75, n_reports=20_000, n_candidates=200, n_true=100, zipf_s=0.7,
                   alpha=0.05, correction="none")
    precision, recall, p_se, r_se = simulated_precision_recall(**setting, n_draws=6, seed=4)
    scores = decode_surveys(RapporParams.basic_one_time(k=128, h=4, m=8), zipf_weights(200, 100, 0.7), 20_000, 6,
                            rng=np.random.default_rng(4), alpha=0.05, correction=None)
    assert (precision, recall) == (scores[:, 0].mean(), scores[:, 1].mean())
    assert r_se == pytest.approx(scores[:, 1].std(ddof=1) / math.sqrt(6))
    guide = rappor_guide(**setting)
    # the analytic approximation ignores the LASSO: a guide within 0.1 of the decoder here, not an identity
    assert abs(guide.expected_recall - recall) < 0.1 and abs(guide.expected_precision - precision) < 0.15


def test_rappor_panel_simulated_check_shows_in_the_summary():
    panel = rappor_panel(**RAPPOR)
    assert "simulated" not in panel.summary.value
    panel.controls["simulate"].value = True
    assert panel.message.value == "" and "ldp-sim-recall" in panel.summary.value
