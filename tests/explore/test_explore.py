"""The explorer's oracle functions (ldp_tools.explore.oracles, .utility) and its two oracle panels, without a browser.

The privacy–utility curves are the science's: tests/experiments/test_field_oracles_curves.py.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pytest

from ldp_helpers.experiments import field_oracles as fo
from ldp_helpers.mechanisms.base import FrequencyOracle
from ldp_helpers.mechanisms.count_mean_sketch import CountMeanSketch
from ldp_helpers.mechanisms.histogram_encoding import THE, optimal_threshold
from ldp_helpers.mechanisms.local_hashing import OLH, olh_hash_range
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_tools.explore import oracles, panels, utility
from ldp_tools.explore.oracles import (
    UNAVAILABLE,
    _oracle_parameters,
    _panel_keys,
    playground_state,
    population_counts,
)
from ldp_tools.explore.utility import oracle_ranking

oracle_keys = _panel_keys


def build_oracle(key, epsilon, d, *, structure=None, seed=0):
    """The oracle a panel shows: the one factory with the panels' structure (their defaults, ranges and ceilings)."""
    return fo.build_oracle(
        key, epsilon, d, structure=oracles.check_structure(structure, d), seed=seed
    )


def test_the_panels_list_every_frequency_oracle_but_the_longitudinal_ones():
    expected = [
        k
        for k, e in REGISTRY.items()
        if isinstance(e.example(), FrequencyOracle) and not hasattr(e.example(), "epsilon_after")
    ]
    assert list(_panel_keys()) == expected
    assert {"grr", "oue", "olh", "cms", "ss", "hr"} <= set(expected) and not {
        "l_grr",
        "l_oue",
    } & set(expected)
    assert not {"rappor", "glance", "binary_rr", "m_shot", "duchi_mean"} & set(expected)


def test_olh_and_the_follow_epsilon_instead_of_the_registry_examples():
    """The registry's OLH example has g for ε = 0.9 and THE's θ is optimal at ε = 1.2: the panels' are rebuilt."""
    olh, the = build_oracle("olh", 3.0, 43), build_oracle("the", 3.0, 43)
    assert olh == OLH(3.0, 43) and olh.g == olh_hash_range(3.0) == 21 != REGISTRY["olh"].example().g
    assert the == THE(3.0, 43) and the.theta == pytest.approx(optimal_threshold(3.0))


def test_the_sketch_is_built_for_the_panels_d_with_its_own_k_and_m():
    """The CMS bug of issue 30: the registry's d = 5 example sketch (k = 3, m = 4) was reused at every d."""
    cms = build_oracle("cms", 3.0, 43, structure={"k": 8, "m": 128}, seed=5)
    assert isinstance(cms, CountMeanSketch) and (cms.d, cms.k, cms.m) == (43, 8, 128)
    assert cms == CountMeanSketch.create(3.0, 43, 8, 128, rng=np.random.default_rng([1, 5]))
    assert cms.hash_table().shape == (8, 43)
    assert (
        build_oracle("cms", 1.0, 43, seed=5).hash_a == build_oracle("cms", 2.0, 43, seed=5).hash_a
    )  # one design over ε
    assert set(_oracle_parameters("cms")) == {"k", "m"} and _oracle_parameters("oue") == {}
    with pytest.raises(ValueError, match=r"structure\['k'\] must be an integer in \[1, 64\]"):
        build_oracle("cms", 1.0, 43, structure={"k": 65})
    with pytest.raises(ValueError, match="structure must be a dict with keys among"):
        fo.build_oracle("cms", 1.0, 43, structure={"width": 3})


def test_dbitflips_bits_per_user_are_exposed_and_checked_by_the_class():
    """[ding2017]'s d (n_bits here): a field of a class without create(), exposed by name, 1 ≤ n_bits ≤ d."""
    from ldp_helpers.mechanisms.dbitflip import DBitFlip

    assert set(_oracle_parameters("dbitflip")) == {"n_bits"} and build_oracle(
        "dbitflip", 1.0, 43
    ) == DBitFlip(1.0, 43, 1)
    assert build_oracle("dbitflip", 1.0, 43, structure={"n_bits": 4}) == DBitFlip(1.0, 43, 4)
    with pytest.raises(ValueError, match=r"n_bits must be an integer in \[1, 3\]"):
        build_oracle("dbitflip", 1.0, 3, structure={"n_bits": 4})
    assert "dbitflip" not in dict(
        oracle_ranking(1.0, 3, 100, structure={"n_bits": 4})
    )  # refused there: left out


def test_structured_oracles_are_refused_beyond_the_work_ceilings_with_the_allowed_range():
    """d × k ≤ 2^15 and k × m ≤ 2^16 (R, T likewise): a refused size names its range, never a minute of work."""
    with pytest.raises(
        ValueError, match=r"structure\['k'\] must be an integer in \[1, 16\] at d = 2048"
    ):
        build_oracle("cms", 1.0, 2048, structure={"k": 64})
    with pytest.raises(
        ValueError, match=r"structure\['m'\] must be an integer in \[2, 1024\] at k = 64"
    ):
        oracle_ranking(1.0, 512, 1000, structure={"k": 64, "m": 4096})
    with pytest.raises(
        ValueError, match=r"structure\['n_hashes'\] must be an integer in \[1, 16\]"
    ):
        panels.privacy_utility_panel(d=2048, n=1000, n_hashes=32)
    assert oracles.check_structure({"k": 64, "m": 1024}, 512)["m"] == 1024


def test_the_issue_30_setting_shows_the_true_mse_of_the_sketch():
    """d = 43, ε = 3, n = 10⁵: the panel's MSE is bias² + variance, not the variance alone."""
    state = playground_state("cms", 3.0, 43, 10**5, "uniform", seed=0, structure={"k": 3, "m": 4})
    cms = build_oracle("cms", 3.0, 43, structure={"k": 3, "m": 4}, seed=0)
    truth = population_counts("uniform", 10**5, 43)
    bias = cms.expected_estimate(truth) - truth
    assert state.mse == pytest.approx(float(np.mean(bias**2 + cms.variance(truth))), rel=1e-12)
    assert state.bias_sq == pytest.approx(
        float(np.mean(bias**2)), rel=1e-12
    ) and state.mse > 10 * np.mean(cms.variance(truth))
    ranking = dict(oracle_ranking(3.0, 43, 10**5, structure={"k": 3, "m": 4}))
    assert ranking["cms"] == pytest.approx(state.mse, rel=1e-12)


def test_another_seed_gives_another_draw_and_the_same_seed_the_same():
    a, b, c = (playground_state("oue", 1.0, 8, 10_000, seed=s) for s in (1, 1, 2))
    np.testing.assert_array_equal(a.estimate, b.estimate)
    assert not np.array_equal(a.estimate, c.estimate)


def test_too_large_table_shows_a_dash():
    state = playground_state("oue", 1.0, 1024, 10**8, "uniform", seed=0)
    assert state.whole_report_epsilon == UNAVAILABLE and state.report_bits == 1024
    assert playground_state("grr", 1.0, 1024, 10**8, seed=0).whole_report_epsilon == pytest.approx(
        1.0
    )


def test_populations_hold_exactly_n_users():
    for n, d, s in ((1, 1000, 1.1), (10, 7, 0.0), (12_345, 43, 2.5), (10**9, 2048, 1.0)):
        counts = population_counts("zipf", n, d, zipf_s=s)
        assert counts.sum() == n and counts.min() >= 0 and counts[0] == counts.max()
    assert population_counts("uniform", 100, 7).tolist() == [15, 15, 14, 14, 14, 14, 14]
    state = playground_state("grr", 2.0, 43, 1, "clickstream", seed=0)
    assert state.true_counts.sum() == 49_742
    with pytest.raises(ValueError, match="d must be 43"):
        population_counts("clickstream", 100, 10)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(epsilon=0), "epsilon must be in"),
        (dict(epsilon=-1.0), "epsilon must be in"),
        (dict(d=1), r"d must be an integer in \[2, 2048\]"),
        (dict(d=4096), r"d must be an integer in \[2, 2048\]"),
        (dict(n=0), "n must be an integer"),
        (dict(mechanism_key="rappor"), "mechanism_key must be one of"),
        (dict(population="normal"), "population must be one of"),
        (dict(zipf_s=-1.0, population="zipf"), "zipf_s must be"),
        (dict(seed=-1), "seed must be"),
        (dict(zipf_s=float("nan")), "zipf_s must be"),
        (dict(epsilon={}), "epsilon must be"),
        (dict(epsilon="abc"), "epsilon must be a real number; got 'abc'"),
        (dict(mechanism_key=["grr"]), "mechanism_key must be"),
    ],
)
def test_bad_input_gets_the_librarys_value_error(kwargs, match):
    args = dict(
        mechanism_key="grr", epsilon=1.0, d=5, n=100, population="uniform", zipf_s=1.1, seed=0
    )
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        playground_state(**args)


@pytest.mark.parametrize(
    "key, d, bits",
    [
        ("grr", 1024, 10),
        ("grr", 43, 6),
        ("oue", 43, 43),
        ("sue", 7, 7),
        ("she", 43, 64 * 43),
        ("the", 10, 640),
    ],
)
def test_report_bits_count_the_bits_one_user_sends(key, d, bits):
    """[wang2017] §4: DE sends a value (⌈log2 d⌉ bits), UE d bits, HE d reals (doubles here)."""
    assert (
        build_oracle(key, 1.0, d).report_bits
        == bits
        == playground_state(key, 1.0, d, 100).report_bits
    )


def test_report_bits_of_hashing_oracles_and_the_sketch():
    """OLH: the hash seed and a value of [0, g); Apple's sketch: the hash index j and the m-bit vector."""
    olh = build_oracle(
        "olh", 2.0, 1024
    )  # g = round(e²) + 1 = 8: a value of 3 bits after the 2·31-bit seed (a, b)
    assert olh.g == 8 and olh.report_bits == 2 * 31 + 3
    assert build_oracle("cms", 2.0, 100, structure={"k": 16, "m": 64}).report_bits == 4 + 64
    assert build_oracle("cms", 2.0, 100, structure={"k": 1, "m": 64}).report_bits == 64
    assert all(isinstance(fo.build_oracle(k, 1.0, 16).report_bits, int) for k in fo.oracle_keys())


def test_phase_diagram_is_the_exact_winner_and_agrees_with_wangs_rule_away_from_the_boundary():
    keys = utility._phase_keys()
    assert (
        set(keys) <= set(oracle_keys()) and "cms" not in keys and {"grr", "oue", "olh"} <= set(keys)
    )
    eps, ds = np.array([0.5, 2.0, 4.0, 6.0]), np.array([2, 8, 64, 1024])
    table = utility.phase_diagram(eps, ds)
    for i, d in enumerate(ds):
        for j, e in enumerate(eps):
            mse = {
                k: float(np.mean(build_oracle(k, float(e), int(d)).variance(np.full(d, 1000))))
                for k in keys
            }
            assert keys[table[i, j]] == min(keys, key=mse.get), (d, e)  # ties: the first registered
            ratio = (3 * np.exp(e) + 2) / d  # [wang2017] §4.4: DE beats OUE/OLH iff d < 3e^ε + 2
            if ratio > 1.5:
                assert mse["grr"] < min(mse["oue"], mse["olh"]), (d, e)
            elif ratio < 1 / 1.5:
                assert mse["grr"] > min(mse["oue"], mse["olh"]) and keys[table[i, j]] != "grr", (
                    d,
                    e,
                )
    with pytest.raises(ValueError, match="epsilons"):
        utility.phase_diagram([2.0, 1.0], ds)
    with pytest.raises(ValueError, match="ds"):
        utility.phase_diagram(eps, [1, 4])


# ------------------------------------------------------------------------------------ panels (no browser)

from ldp_tools.explore.panels import PANELS, playground_panel, privacy_utility_panel, show_panel  # noqa: E402


def test_playground_panel_updates_survives_refusals_and_offers_its_numbers():
    panel = playground_panel(mechanism_key="grr", epsilon=1.0, d=8, n=1000)
    first_summary, first_png = panel.summary.value, panel.png[-1]
    assert (
        panel.message.value == ""
        and panel.busy.value == ""
        and "whole-report ε from the table" in first_summary
    )
    assert first_png.startswith(b"\x89PNG") and "ldp-playground.csv" in panel.downloads.value
    panel.controls["epsilon"].value = 0.0
    assert (
        "— epsilon must be in [1e-12, inf); got 0.0" in panel.message.value
        and panel.busy.value == ""
    )
    assert panel.summary.value == first_summary
    panel.controls[
        "epsilon"
    ].box.value = "abc"  # typed text reaches the library's check: a message, not silence
    assert "— epsilon must be a real number; got &#x27;abc&#x27;" in panel.message.value
    panel.controls["epsilon"].box.value = "2.5"  # keeps working
    assert (
        panel.message.value == ""
        and panel.controls["epsilon"].value == 2.5
        and panel.png[-1] != first_png
    )
    assert f"{playground_state('grr', 2.5, 8, 1000, seed=0).mse:.6g}" in panel.summary.value
    header, rows = panel.table
    assert header[:3] == ("value", "true_count", "estimate") and len(rows) == 8
    assert header[-1] == "mse" and [row[-1] for row in rows] == list(
        playground_state("grr", 2.5, 8, 1000, seed=0).mse_per_value
    )  # the CSV's per-value MSE is the science's bias² + variance
    panel.controls["mechanism_key"].value = "oue"
    assert "report size = <b class='ldp-bits'>8</b> bits" in panel.summary.value
    assert (
        "lowest exact MSE here: <b>GRR (DE)</b>" in panel.summary.value
    )  # ε = 2.5 > crossover at d = 8


def test_the_sketchs_controls_show_only_for_the_sketch_and_change_its_numbers():
    panel = playground_panel(mechanism_key="oue", epsilon=1.0, d=43, n=10_000)
    assert (
        panel.controls["k"].layout.display == "none"
        and panel.controls["m"].layout.display == "none"
    )
    panel.controls["mechanism_key"].value = "cms"
    assert panel.controls["k"].layout.display == "flex"
    before = panel.summary.value
    panel.controls["m"].value = 1024
    expected = playground_state("cms", 1.0, 43, 10_000, seed=0, structure={"k": 16, "m": 1024})
    assert (
        panel.summary.value != before
        and f"{expected.mse:.6g}" in panel.summary.value
        and ", m = 1024" in panel.summary.value
    )


def test_apples_sha256_family_is_offered_and_its_bias_is_the_uniform_hash_one():
    """Issue 36: the CMS control offers Apple's SHA-256 family; at d = 43, m = 256 its bias² is near
    the uniform-hash mean bias² (the universal draw of seed 0 is 11× above it), said in the summary."""
    panel = playground_panel(mechanism_key="oue", epsilon=1.0, d=43, n=100_000)
    assert panel.controls["hash_family"].layout.display == "none"
    panel.controls["mechanism_key"].value = "cms"
    assert panel.controls["hash_family"].layout.display == "flex"
    universal = playground_state("cms", 1.0, 43, 100_000, seed=0)
    assert universal.bias_sq > 5 * universal.uniform_bias_sq and "universal family" in (
        panel.summary.value
    )
    panel.controls["hash_family"].value = "sha256"
    apple = playground_state("cms", 1.0, 43, 100_000, seed=0, hash_family="sha256")
    assert apple.uniform_bias_sq == universal.uniform_bias_sq
    assert 0.5 < apple.bias_sq / apple.uniform_bias_sq < 2
    summary = panel.summary.value
    assert panel.message.value == "" and "Apple's SHA-256 family" in summary
    assert f"{apple.mse:.6g}" in summary and f"{apple.uniform_bias_sq:.6g}" in summary
    assert f"(here {apple.bias_sq / apple.uniform_bias_sq:.2f}×)" in summary
    ranking = dict(oracle_ranking(1.0, 43, 100_000, hash_family="sha256"))
    assert ranking["cms"] == pytest.approx(apple.mse, rel=1e-12)
    panel.update({"hash_family": "md5"})
    assert "refused: hash_family" in panel.message.value


def test_privacy_utility_panel_updates_and_survives_bad_values():
    panel = privacy_utility_panel(epsilon=1.0, d=43, n=10_000, epsilon_max=4.0)
    before = panel.summary.value
    assert panel.message.value == "" and "lowest exact MSE" in before
    panel.controls["epsilon"].value = 0.0
    assert "— epsilon must be in" in panel.message.value
    panel.controls["epsilon"].value = 5.0
    panel.controls["d"].value = 1
    assert "— d must be an integer" in panel.message.value
    assert (
        panel.controls["d"].value == 43 and "back to d = 43" in panel.message.value
    )  # the value in effect
    panel.controls["epsilon"].value = 5.5
    assert (
        panel.message.value == "" and panel.summary.value != before and "GRR" in panel.summary.value
    )
    line = panel.artists["lines"]["cms"].get_ydata()
    np.testing.assert_allclose(
        line,
        fo.privacy_utility_curves(
            _panel_keys(),
            np.linspace(0.05, 4.0, panels.CURVE_POINTS),
            43,
            10_000,
            structure=oracles.check_structure(None, 43),
        ).exact["cms"],
    )


def test_bad_defaults_and_names_are_refused():
    with pytest.raises(ValueError, match="epsilon must be in"):
        playground_panel(epsilon=0)
    with pytest.raises(ValueError, match="name must be one of"):
        show_panel("nope")
    assert set(PANELS) == {
        "playground",
        "privacy_utility",
        "rappor",
        "continual",
        "m_shot",
        "shuffle",
    }


def test_panels_set_several_values_with_one_redraw():
    panel = privacy_utility_panel(epsilon=1.0, d=43, n=10_000)
    draws = []
    original = panel.update
    panel.update = lambda overrides=None: (draws.append(1), original(overrides))
    problems = []
    panel.set_values({"epsilon": 2.0, "d": 20, "n": 5000}, problems)
    assert draws == [1] and problems == [] and "d = 20, n = 5,000, ε = 2" in panel.summary.value


def test_the_slider_and_the_box_stay_in_step():
    panel = playground_panel(d=8, n=1000)
    control = panel.controls["n"]
    control.slider.value = 10**5  # a drag: the box shows the value, the panel redraws
    assert (
        control.value == 100_000
        and control.box.value == "100000"
        and "n = 100,000" in panel.summary.value
    )
    control.box.value = "1e6"  # typed: parsed as an integer, the slider follows
    assert control.value == 1_000_000 and control.slider.value == pytest.approx(1e6)
    control.box.value = "2.5"
    assert "— n must be an integer" in panel.message.value


@pytest.mark.parametrize("n", [43 * 1000, 43 * 10**6])
def test_at_large_n_the_biased_sketches_bias_keeps_them_out_of_the_best(n):
    """The fixed-hash sketches' bias² grows as n², their variance as n: at large n they are never the best oracle."""
    biased = set(fo.oracle_groups()["sketch"])
    assert "cms" in biased and oracle_ranking(1.0, 43, n)[0][0] not in biased


def test_the_stored_phase_map_is_the_science_map():
    """The playground's phase map is precomputed (first paint); it must be 07's best-oracle map on its grid."""
    epsilons, ds = utility.PHASE_GRID
    stored = utility._stored_phase_table(epsilons, ds)
    assert stored is not None and stored.shape == (len(ds), len(epsilons))
    np.testing.assert_array_equal(
        stored, fo.best_oracle_map(list(utility._phase_keys()), list(epsilons), list(ds))
    )
    assert (
        utility._stored_phase_table(epsilons[:-1], ds) is None
    )  # another grid: computed, never the stored one


def test_a_moment_beyond_double_precision_is_refused_never_an_mse_of_zero():
    """Issue 36 item 4: HR at ε = 700 showed 'exact MSE = 0'; its variance rounds to 0 there, so ε is refused
    (by HR itself since its client stopped leaving C_x beyond e^ε/(e^ε + 2B − 1) = 1, ε ≈ 41.6 at d = 43)."""
    refusal = "epsilon must be small enough that e^ε/(e^ε + 2B − 1) < 1 in double precision"
    with pytest.raises(ValueError, match=re.escape(refusal)):
        playground_state("hr", 700.0, 43, 10**5)
    panel = playground_panel(mechanism_key="hr", epsilon=1.0, d=43, n=10**5)
    panel.controls["epsilon"].box.value = "700"
    assert f"refused: epsilon = 700 — {html.escape(refusal)}" in panel.message.value
    assert panel.controls["epsilon"].value == 1.0 and "ldp-mse'>0<" not in panel.summary.value


def test_flh_at_a_large_budget_is_refused_for_its_work_and_still_ranked_by_its_moments():
    """g = round(e^ε) + 1 ≈ 5·10⁸ at ε = 20: the survey's k × g cells are refused by name (never a MemoryError);
    its exact moments group the values present, so the ranking keeps it."""
    with pytest.raises(
        ValueError,
        match=r"epsilon must be a budget at which Fast local hashing \(FLH\)'s survey "
        r"fills at most 65,536 cells",
    ):
        playground_state("flh", 20.0, 64, 10**6)
    assert "flh" in dict(oracle_ranking(20.0, 64, 10**6))
    with pytest.raises(ValueError, match="epsilon=20.0 would allocate"):
        fo.build_oracle("flh", 20.0, 64).sample_aggregate(
            np.ones(64, dtype=np.int64), rng=np.random.default_rng(0)
        )


def test_privacy_utility_draws_a_chosen_few_by_default_and_toggles_the_rest():
    panel = privacy_utility_panel(d=43, n=10_000)
    lines = panel.artists["lines"]
    assert {k for k in _panel_keys() if lines[k].get_visible()} == set(panels.FEW)
    legend = [t.get_text() for t in panel.figure.axes[0].get_legend().get_texts()]
    assert len(legend) == len(panels.FEW) + 3
    panel.controls["shown"].value = "all"
    assert all(lines[k].get_visible() for k in _panel_keys()) and panel.message.value == ""
    colours = {(str(lines[k].get_color()), lines[k].get_linestyle()) for k in _panel_keys()}
    assert len(colours) == len(_panel_keys())  # no two curves drawn alike
    panel.controls["shown"].value = "sketches"
    assert "FLH's curve jumps because its hash range g = round(e^ε) + 1 follows ε" in html.unescape(
        panel.summary.value
    )


@pytest.mark.parametrize("yscale", ["log", "linear"])
def test_in_view_keeps_exactly_the_ticks_drawn_and_the_same_png(yscale):
    """InView gives an axis only the major and minor locations in its view — every one matplotlib
    draws, and no other (a tick each) — and the figure's PNG bytes are those of the plain locators."""
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ldp_tools.explore._widgets import ticks_in_view

    def png(in_view: bool):
        fig = Figure(figsize=(4, 3), dpi=50)
        ax = fig.add_subplot()
        ax.plot([3.0, 3000.0], [0.02, 7.0])
        ax.set(xscale="log", yscale=yscale, xlim=(3.0, 3000.0), ylim=(0.02, 7.3))
        if in_view:
            ticks_in_view(ax.xaxis)
            ticks_in_view(ax.yaxis)
        buf = io.BytesIO()
        FigureCanvasAgg(fig).print_png(buf, metadata={"Software": None})
        return buf.getvalue(), ax

    plain, plain_ax = png(False)
    bounded, ax = png(True)
    assert bounded == plain
    for axis, plain_axis in ((ax.xaxis, plain_ax.xaxis), (ax.yaxis, plain_ax.yaxis)):
        low, high = axis.get_view_interval()
        for every, kept, ticks in (
            (plain_axis.get_majorticklocs(), axis.get_majorticklocs(), axis.majorTicks),
            (plain_axis.get_minorticklocs(), axis.get_minorticklocs(), axis.minorTicks),
        ):
            np.testing.assert_array_equal(kept, every[(every >= low) & (every <= high)])
            assert len(ticks) == max(kept.size, 1)
    beyond = plain_ax.xaxis.get_minorticklocs()  # the plain locator goes a decade beyond (3, 3000)
    assert beyond.min() < 3.0 and beyond.max() > 3000.0
    assert len(ax.xaxis.minorTicks) < len(plain_ax.xaxis.minorTicks)
    assert len(ax.yaxis.majorTicks) < len(plain_ax.yaxis.majorTicks)  # a step beyond 0.02 and 7.3


@pytest.mark.parametrize("label_minor", [False, True])
@pytest.mark.parametrize("limits", [(0.013, 0.06), (0.02, 7.0), (3e-9, 4e3)])
def test_power_of_ten_ticks_are_matplotlibs_labels_in_unicode(limits, label_minor):
    """power_of_ten_ticks labels a log axis as matplotlib's default formatter does (decades; with
    label_minor also 2×10ⁿ … on a short axis, where decades alone leave none), in plain Unicode:
    no label is mathtext, so the explorer never builds the mathtext parser."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ldp_tools.explore._widgets import power_of_ten_ticks

    def labels(unicode: bool):
        fig = Figure(figsize=(4, 3), dpi=50)
        ax = fig.add_subplot()
        ax.set(yscale="log", ylim=limits)
        if unicode:
            power_of_ten_ticks(ax.yaxis, label_minor=label_minor)
        FigureCanvasAgg(fig).draw()
        low, high = ax.yaxis.get_view_interval()
        return [
            [t.get_text() for t in ticks if low <= t.get_position()[1] <= high]
            for ticks in (ax.yaxis.get_majorticklabels(), ax.yaxis.get_minorticklabels())
        ]

    (plain_major, plain_minor), (major, minor) = labels(False), labels(True)
    as_text = str.maketrans({"^": None, "{": None, "}": None})

    def expected(label):  # $\mathdefault{2\times10^{-2}}$ -> 2×10⁻²
        body = label.removeprefix("$\\mathdefault{").removesuffix("}$").replace("\\times", "×")
        base, _, power = body.partition("^")
        return base + power.translate(as_text).translate(
            str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
        )

    assert major == [expected(t) for t in plain_major]
    assert any(major) == (limits != (0.013, 0.06))  # that axis holds no decade
    assert minor == ([expected(t) for t in plain_minor] if label_minor else [""] * len(minor))
    assert not any("$" in t for t in major + minor)
    if label_minor and limits == (
        0.013,
        0.06,
    ):  # no decade in view: the minor ticks carry the labels
        assert "2×10⁻²" in minor


@pytest.mark.parametrize("facecolor", ["white", (1.0, 1.0, 1.0, 0.0)])
def test_a_panel_png_has_matplotlibs_pixels_and_the_same_bytes_every_time(facecolor):
    """The panels' PNG (RGB at zlib level 1 when the figure is opaque, else RGBA) decodes to the pixels of
    matplotlib's own PNG of the figure (text unhinted), at its dpi; two renderings are byte-identical."""
    import io

    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from PIL import Image

    from ldp_tools.explore._widgets import FIGURE_DPI, _png

    fig = Figure(figsize=(3, 2), dpi=FIGURE_DPI, facecolor=facecolor)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.plot([0, 1, 2], [1, 0, 2], "o-", label="a line")
    ax.legend()
    ours = _png(fig)
    theirs = io.BytesIO()
    with rc_context({"text.hinting": "no_hinting"}):  # as the panels draw their text
        fig.canvas.print_png(theirs, metadata={"Software": None})
    a, b = Image.open(io.BytesIO(ours)), Image.open(io.BytesIO(theirs.getvalue()))
    assert a.mode == ("RGB" if facecolor == "white" else "RGBA")
    np.testing.assert_array_equal(np.asarray(a.convert("RGBA")), np.asarray(b.convert("RGBA")))
    assert a.info["dpi"] == pytest.approx((FIGURE_DPI, FIGURE_DPI), abs=1e-3)
    assert _png(fig) == ours


def test_fixed_ticks_keep_their_labels_with_ticks_in_view():
    """Fixed ticks are left to matplotlib: a tick out of view does not shift the labels of the others
    (a FixedFormatter labels by position in the list)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FixedFormatter, FixedLocator

    from ldp_tools.explore._widgets import ticks_in_view

    fig = Figure(figsize=(4, 3), dpi=50)
    ax = fig.add_subplot()
    ax.xaxis.set_major_locator(FixedLocator([-1.0, 0.0, 1.0]))
    ax.xaxis.set_major_formatter(FixedFormatter(["0.1", "1", "10"]))
    ax.set_xlim(-0.5, 1.5)  # the first tick is out of view
    ticks_in_view(ax.xaxis)
    ticks_in_view(ax.yaxis)
    FigureCanvasAgg(fig).draw()
    shown = {t.get_position()[0]: t.get_text() for t in ax.xaxis.get_majorticklabels()}
    assert shown[0.0] == "1" and shown[1.0] == "10"
    assert len(ax.yaxis.majorTicks) < 10  # the automatic ticks are still bounded to the view


@pytest.mark.parametrize("yscale", ["log", "linear"])
def test_in_view_autoscales_as_the_wrapped_locator(yscale):
    """Autoscaling asks the major locator for its limits: wrapped in InView, an axis rescaled to data
    (here a constant, the singular case) gets the limits of the plain locator."""
    from matplotlib.figure import Figure

    from ldp_tools.explore._widgets import ticks_in_view

    def limits(in_view: bool):
        ax = Figure().add_subplot()
        ax.set_yscale(yscale)
        if in_view:
            ticks_in_view(ax.yaxis)
        ax.plot([1.0, 2.0], [7.0, 7.0])
        ax.relim()
        ax.autoscale_view()
        return ax.get_ylim()

    assert limits(True) == limits(False)
