"""The explorer's pure functions (ldp_helpers.explore.oracles) and its widget panels, without a browser."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ldp_helpers.explore import oracles
from ldp_helpers.explore.oracles import (UNAVAILABLE, build_oracle, oracle_keys, playground_state, population_counts,
                                         privacy_utility_curves)
from ldp_helpers.mechanisms.base import FrequencyOracle
from ldp_helpers.mechanisms.registry import REGISTRY


def test_oracle_keys_enumerate_the_registry():
    expected = [k for k, e in REGISTRY.items() if isinstance(e.example(), FrequencyOracle)]
    assert list(oracle_keys()) == expected
    assert {"grr", "oue", "olh"} <= set(expected) and "rappor" not in expected and "glance" not in expected


@pytest.mark.parametrize("key", oracle_keys())
def test_playground_matches_the_mechanisms_own_numbers(key):
    state = playground_state(key, 1.3, 5, 1000, "zipf", zipf_s=1.2, seed=7)
    oracle = dataclasses.replace(REGISTRY[key].example(), epsilon=1.3, d=5)
    truth = population_counts("zipf", 1000, 5, zipf_s=1.2)
    assert truth.sum() == 1000 and np.array_equal(state.true_counts, truth)
    expected = oracle.estimate(oracle.sample_aggregate(truth, rng=np.random.default_rng(7)), 1000)
    np.testing.assert_array_equal(state.estimate, expected)
    np.testing.assert_allclose(state.sigma ** 2, oracle.variance(truth), rtol=1e-12)
    bias = np.asarray(oracle.expected_estimate(truth), dtype=float) - truth  # the fixed-hash sketches' collisions
    assert state.mse == pytest.approx(float(np.mean(oracle.variance(truth)) + np.mean(bias**2)), rel=1e-12)
    assert state.whole_report_epsilon == pytest.approx(oracle.privacy_loss(), abs=1e-9)
    assert state.whole_report_epsilon <= 1.3 + 1e-9
    assert state.report_bits == oracles.report_size(key, 1.3, 5).bits
    if hasattr(oracle, "report_bits"):
        assert state.report_bits == oracle.report_bits


def test_another_seed_gives_another_draw_and_the_same_seed_the_same():
    a, b, c = (playground_state("oue", 1.0, 8, 10_000, seed=s) for s in (1, 1, 2))
    np.testing.assert_array_equal(a.estimate, b.estimate)
    assert not np.array_equal(a.estimate, c.estimate)


def test_too_large_table_shows_a_dash_quickly():
    oracles._whole_report_epsilon.cache_clear()
    state = playground_state("oue", 1.0, 1024, 10**8, "uniform", seed=0)
    assert state.whole_report_epsilon == UNAVAILABLE and state.report_bits == 1024
    assert playground_state("grr", 1.0, 1024, 10**8, seed=0).whole_report_epsilon == pytest.approx(1.0)
    assert oracles._whole_report_epsilon.cache_info().currsize == 2


def test_clickstream_population_is_the_dataset():
    state = playground_state("grr", 2.0, 43, 1, "clickstream", seed=0)
    assert state.true_counts.sum() == 49_742 and state.true_counts.size == 43
    with pytest.raises(ValueError, match="d must be 43"):
        population_counts("clickstream", 100, 10)


@pytest.mark.parametrize("kwargs, match", [
    (dict(epsilon=0), "epsilon must be in"), (dict(epsilon=-1.0), "epsilon must be in"),
    (dict(d=1), "d must be an integer"), (dict(n=0), "n must be an integer"),
    (dict(mechanism_key="rappor"), "mechanism_key must be one of"), (dict(population="normal"), "population must be one of"),
    (dict(zipf_s=-1.0, population="zipf"), "zipf_s must be"), (dict(seed=-1), "seed must be"),
    (dict(zipf_s=float("nan")), "zipf_s must be"), (dict(epsilon={}), "epsilon must be"),
    (dict(mechanism_key=["grr"]), "mechanism_key must be"), (dict(d=[5]), "d must be"),
])
def test_bad_input_gets_the_librarys_value_error(kwargs, match):
    args = dict(mechanism_key="grr", epsilon=1.0, d=5, n=100, population="uniform")
    zipf_s = kwargs.pop("zipf_s", 1.1)
    seed = kwargs.pop("seed", 0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        playground_state(**args, zipf_s=zipf_s, seed=seed)


def test_privacy_utility_curves_match_the_oracles_and_find_the_grr_oue_crossover():
    grid = np.linspace(0.2, 6.0, 59)
    curves = privacy_utility_curves(43, 10_000, grid)
    assert set(curves.exact) == set(oracle_keys())
    counts = np.full(43, 10_000 // 43)
    counts[: 10_000 % 43] += 1
    for key in ("grr", "oue", "she"):
        oracle = build_oracle(key, float(grid[10]), 43)
        assert curves.exact[key][10] == pytest.approx(float(np.mean(oracle.variance(counts))), rel=1e-12)
    assert curves.approx["oue"][10] == pytest.approx(build_oracle("oue", float(grid[10]), 43).approx_variance(10_000))
    assert "she" not in curves.approx  # SHE has no approximate-variance formula
    # GRR is best at large ε for d = 43 (exact crossover near ln(d/3)... checked against the curves); subset selection
    # then takes k = 1, which is GRR itself: a tie, which the ranking gives to GRR (registered first)
    last = max(curves.crossovers, key=lambda c: c[0])
    assert last[2] == "grr"
    j = int(np.searchsorted(grid, last[0]))
    assert curves.exact["grr"][j] <= curves.exact[last[1]][j] and curves.exact["grr"][j - 1] > curves.exact[last[1]][j - 1]
    oue_wins = curves.exact["oue"] < curves.exact["grr"]
    assert oue_wins[0] and not oue_wins[-1] and np.count_nonzero(np.diff(oue_wins)) == 1  # one GRR–OUE crossover


@pytest.mark.parametrize("epsilons", [[1.0], [2.0, 1.0], [0.0, 1.0], [[1.0, 2.0]]])
def test_privacy_utility_curves_refuse_bad_grids(epsilons):
    with pytest.raises(ValueError, match="epsilons"):
        privacy_utility_curves(10, 100, epsilons)


# ------------------------------------------------------------------------------------ panels (no browser)

from ldp_helpers.explore.panels import PANELS, playground_panel, privacy_utility_panel, show_panel  # noqa: E402


def test_playground_panel_updates_and_survives_a_refused_epsilon():
    panel = playground_panel(mechanism_key="grr", epsilon=1.0, d=8, n=1000)
    first_summary, first_png = panel.summary.value, panel.png[-1]
    assert panel.message.value == "" and "whole-report ε from the table" in first_summary
    assert first_png.startswith(b"\x89PNG")
    panel.controls["epsilon"].value = 0.0
    assert "refused: epsilon must be in [1e-12, inf); got 0.0" in panel.message.value
    assert "Traceback" not in panel.message.value and panel.summary.value == first_summary
    panel.controls["epsilon"].value = 2.5  # keeps working
    assert panel.message.value == "" and panel.summary.value != first_summary and panel.png[-1] != first_png
    state = playground_state("grr", 2.5, 8, 1000, seed=0)
    assert f"{state.mse:.6g}" in panel.summary.value
    panel.controls["mechanism_key"].value = "oue"
    assert "OUE" in panel.summary.value and "report size = <b class='ldp-bits'>8</b> bits" in panel.summary.value
    assert "lowest exact MSE here: <b>GRR (DE)</b>" in panel.summary.value  # ε = 2.5 > crossover at d = 8


def test_privacy_utility_panel_updates_and_survives_bad_values():
    panel = privacy_utility_panel(epsilon=1.0, d=43, n=10_000, epsilon_max=4.0)
    before = panel.summary.value
    assert panel.message.value == "" and "lowest exact MSE" in before
    panel.controls["epsilon"].value = 0.0
    assert "refused: epsilon must be in" in panel.message.value
    panel.controls["epsilon"].value = 5.0
    panel.controls["d"].value = 1
    assert "refused: d must be an integer" in panel.message.value
    panel.controls["d"].value = 43
    assert panel.message.value == "" and panel.summary.value != before and "GRR" in panel.summary.value


def test_bad_defaults_and_names_are_refused():
    with pytest.raises(ValueError, match="epsilon must be in"):
        playground_panel(epsilon=0)
    with pytest.raises(ValueError, match="name must be one of"):
        show_panel("nope")
    assert set(PANELS) == {"playground", "privacy_utility", "rappor", "continual", "m_shot"}


def test_oracle_ranking_orders_the_exact_mse_and_puts_grr_first_at_large_epsilon():
    from ldp_helpers.explore.oracles import oracle_ranking

    ranking = oracle_ranking(5.0, 43, 10_000)
    assert [m for _, m in ranking] == sorted(m for _, m in ranking) and ranking[0][0] == "grr"
    truth = population_counts("uniform", 10_000, 43)
    assert dict(ranking)["oue"] == pytest.approx(float(np.mean(build_oracle("oue", 5.0, 43).variance(truth))), rel=1e-12)
    assert oracle_ranking(0.5, 43, 10_000)[0][0] != "grr"  # below the crossover GRR is not best at d = 43
    with pytest.raises(ValueError, match="epsilon must be in"):
        oracle_ranking(0.0, 43, 10_000)


# ------------------------------------------------------------------------------------ report size, phase diagram


@pytest.mark.parametrize("key, d, bits", [("grr", 1024, 10), ("grr", 43, 6), ("oue", 43, 43), ("sue", 7, 7),
                                          ("she", 43, 64 * 43), ("the", 10, 640)])
def test_report_size_counts_the_bits_one_user_sends(key, d, bits):
    size = oracles.report_size(key, 1.0, d)
    assert size.bits == bits and size.how


def test_report_size_of_hashing_oracles_and_the_sketch():
    olh = build_oracle("olh", 2.0, 1024)
    assert oracles.report_size("olh", 2.0, 1024).bits == olh.report_bits  # the oracle's own statement
    cms = build_oracle("cms", 2.0, 100)
    size = oracles.report_size("cms", 2.0, 100)
    assert size.bits == int(np.ceil(np.log2(cms.k))) + cms.m and "hash index" in size.how
    with pytest.raises(ValueError, match="epsilon must be in"):
        oracles.report_size("grr", 0.0, 10)


def test_phase_diagram_agrees_with_wangs_rule_away_from_the_boundary():
    eps, ds = np.array([0.5, 2.0, 4.0, 6.0]), np.array([2, 8, 64, 1024])
    table = oracles.phase_diagram(eps, ds)
    assert table.shape == (4, 4)
    for i, d in enumerate(ds):
        for j, e in enumerate(eps):
            ratio = (3 * np.exp(e) + 2) / d  # [wang2017] §4.4: DE best iff d < 3e^ε + 2
            if ratio > 1.5:
                assert oracles.PHASE_KEYS[table[i, j]] == "grr", (d, e)
            elif ratio < 1 / 1.5:
                assert oracles.PHASE_KEYS[table[i, j]] in ("oue", "olh"), (d, e)
    best = min(oracles.PHASE_KEYS, key=lambda k: float(np.mean(build_oracle(k, 2.0, 64).variance(np.full(64, 1000)))))
    assert oracles.PHASE_KEYS[table[2, 1]] == best
    with pytest.raises(ValueError, match="epsilons"):
        oracles.phase_diagram([2.0, 1.0], ds)
    with pytest.raises(ValueError, match="ds"):
        oracles.phase_diagram(eps, [1, 4])


@pytest.mark.parametrize("key", oracle_keys())
def test_exact_variance_is_linear_in_the_counts_so_the_privacy_utility_panel_may_rescale(key):
    """The panel draws (n/d) × the curves at one user per value: exact when d | n (and in expectation otherwise)."""
    oracle = build_oracle(key, 1.7, 12)
    ones, flat = np.ones(12, dtype=np.int64), population_counts("uniform", 12 * 5000, 12)
    np.testing.assert_allclose(oracle.variance(flat), 5000 * oracle.variance(ones), rtol=1e-10)
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 50, 12), rng.integers(0, 50, 12)
    np.testing.assert_allclose(oracle.variance(a + b), oracle.variance(a) + oracle.variance(b), rtol=1e-10)


def test_privacy_utility_panel_rescales_in_n_without_recomputing():
    from ldp_helpers.explore import panels

    panel = privacy_utility_panel(epsilon=1.0, d=40, n=40_000, epsilon_max=4.0)
    line = panel.artists["lines"]["oue"].get_ydata().copy()
    misses = panels._curves.cache_info().misses
    panel.controls["n"].value = 80_000
    assert panels._curves.cache_info().misses == misses
    np.testing.assert_allclose(panel.artists["lines"]["oue"].get_ydata(), 2 * line, rtol=1e-12)
    exact = privacy_utility_curves(40, 80_000, panels._curves(40, 4.0).epsilons)
    np.testing.assert_allclose(panel.artists["lines"]["oue"].get_ydata(), exact.exact["oue"], rtol=1e-10)


@pytest.mark.parametrize("n", [43, 43 * 1000, 43 * 10**6])
def test_rescaled_curves_are_the_curves_at_n_and_count_the_sketches_bias(n):
    """(curves at d users).rescaled(n) = privacy_utility_curves(d, n) for every oracle, the biased sketches (CMS,
    FLH: bias² ∝ n²) included; at large n their bias keeps them out of the best-oracle crossovers."""
    grid = np.linspace(0.5, 4.0, 8)
    rescaled = privacy_utility_curves(43, 43, grid).rescaled(n)
    direct = privacy_utility_curves(43, n, grid)
    for key in oracle_keys():
        np.testing.assert_allclose(rescaled.exact[key], direct.exact[key], rtol=1e-9)
    assert [c[1:] for c in rescaled.crossovers] == [c[1:] for c in direct.crossovers]
    np.testing.assert_allclose([c[0] for c in rescaled.crossovers], [c[0] for c in direct.crossovers], rtol=1e-6)
    assert np.all(direct.bias["flh"] > 0) and np.all(direct.bias["oue"] == 0)
    if n >= 43 * 1000:
        assert {"flh", "cms"}.isdisjoint({k for _, a, b in direct.crossovers for k in (a, b)})
        assert oracles.oracle_ranking(1.0, 43, n)[0][0] not in ("flh", "cms")
