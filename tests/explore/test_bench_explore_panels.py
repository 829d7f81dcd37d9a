"""The explorer bench times every panel of the app's own list (issue 36 item 3): a new panel is picked up."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import bench_explore_panels as bench  # noqa: E402

from ldp_tools.explore import panels  # noqa: E402


def test_defaults_are_the_apps_show_panel_calls():
    """Every panel the app opens is one of PANELS, with the keyword arguments of its show_panel call."""
    found = bench.app_defaults()
    assert set(found) == set(panels.PANELS)
    assert found["playground"] == dict(mechanism_key="oue", epsilon=1.0, d=43, n=100_000)
    assert set(bench.HEAVIEST) <= set(panels.PANELS)


def test_a_new_panel_is_timed_without_an_edit(monkeypatch):
    """A panel added to PANELS gets a default row (its builder's defaults) and a row asking for its
    heaviest setting; the timing itself is stubbed here (the bench is not part of the tests)."""
    timed = []
    monkeypatch.setattr(panels, "PANELS", (*panels.PANELS, "a_new_panel"))
    monkeypatch.setattr(
        bench,
        "time_panel",
        lambda name, setting, kwargs, repeat: (
            timed.append((name, setting, kwargs))
            or dict(panel=name, setting=setting, n=0, note="stub")
        ),
    )
    records = bench.measure()
    assert [(r["panel"], r["setting"]) for r in records] == [
        (name, setting) for name in panels.PANELS for setting in ("default", "heaviest")
    ]
    assert ("a_new_panel", "default", {}) in timed
    assert "add one to HEAVIEST" in records[-1]["note"]
    assert ("playground", "heaviest", bench.HEAVIEST["playground"]) in timed


def test_heaviest_settings_are_allowed():
    """The heaviest settings are accepted by the panels' own checks (else the bench times a refusal)."""
    from ldp_tools.explore.oracles import check_structure, playground_state
    from ldp_tools.explore.rappor import MAX_DECODE_CELLS
    from ldp_tools.explore.streams import MAX_CONTINUAL_WORK, _check_m_shot_work, _check_work

    heavy = bench.HEAVIEST["playground"]
    structure = {name: heavy[name] for name in ("k", "m", "n_buckets")}
    assert check_structure(structure, heavy["d"])
    assert playground_state("cms", 20.0, 2048, 10**10, structure=structure).mse > 0
    rappor = bench.HEAVIEST["rappor"]
    assert rappor["k"] * rappor["m"] * rappor["n_candidates"] <= MAX_DECODE_CELLS
    continual = bench.HEAVIEST["continual"]
    _check_work(continual["n_rounds"], continual["n_draws"], MAX_CONTINUAL_WORK)
    m_shot = bench.HEAVIEST["m_shot"]
    _check_m_shot_work(*(m_shot[k] for k in ("epsilon", "n_rounds", "n_users", "n_draws")))
