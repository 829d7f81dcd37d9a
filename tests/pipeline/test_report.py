"""The reproduction report: claims gathered from claims.csv, README section generated, never typed."""

import json
import math
from dataclasses import replace

import pytest

from ldp_tools.pipeline import paths, report
from ldp_tools.pipeline.claims import ClaimsTable, by_text, claims_csv, gt


def _fake_notebook(nb_dir, stem, title):
    nb = {
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": [f"# {title}\n", "text"]}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    (nb_dir / f"{stem}.ipynb").write_text(json.dumps(nb))


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    nb_dir, fig_dir = tmp_path / "notebooks", tmp_path / "figures"
    nb_dir.mkdir()
    _fake_notebook(nb_dir, "00_a", "Paper A")
    _fake_notebook(nb_dir, "01_b", "Paper B")
    _fake_notebook(nb_dir, "99_reproduction_report", "Report")
    (fig_dir / "00_a").mkdir(parents=True)
    t = ClaimsTable("00_tutorial", texts=None)
    t.check("c1", "§1", 1, 1)
    root = t.erratum("c2", "§2", 2, 3, severity="wrong result")
    t.erratum("c2 again", "§2", 2, 3, severity="wrong result", depends_on=root.id)
    t.check_statement("c3", "§3", "x", gt(0.0, 1.0), "y")
    t.ambiguous_if(gt(2.0, 1.0), "c4", "§4", "a or b", "a: 1, b: 2")
    t.erratum_if(by_text("the text says x where y is meant"), "c5", "§5", "x", "y", severity="typo")
    stability = [
        "deterministic",
        "stable over 4 seeds",
        "deterministic",
        "fragile: reproduced under seed 202",
        "stable over 4 seeds",
        "deterministic",
    ]
    rows = [replace(r, stability=s) for r, s in zip(t.rows, stability)]
    (fig_dir / "00_a" / "claims.csv").write_text(claims_csv(rows))
    (fig_dir / "00_a" / "fig1_x.png").write_bytes(b"png")
    for name, value in [
        ("NOTEBOOKS_DIR", nb_dir),
        ("FIGURES_DIR", fig_dir),
        ("REPO_ROOT", tmp_path),
    ]:
        monkeypatch.setattr(paths, name, value)
    return tmp_path


def test_counts_per_notebook_and_total(sandbox):
    """Verdict counts come from each claims.csv; a notebook without one has zero claims; the report is excluded."""
    collected = report.collect_claims()
    assert [c.stem for c in collected] == ["00_a", "01_b"]
    table = report._summary_markdown(collected)
    # claims | reproduced differs paper-error ambiguous | errors: typo inconsistency wrong-result (independent only)
    # | seed-dependent (stable or fragile) | fragile
    assert (
        "| [`00_a`](notebooks/00_a.ipynb) | Paper A | 6 | 1 | 1 | 3 | 1 | 1 | 0 | 1 | 3 | 1 | [1 figures](figures/00_a/) |"
        in table
    )
    assert (
        "| [`01_b`](notebooks/01_b.ipynb) | Paper B | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | [0 figures](figures/01_b/) |"
        in table
    )
    assert (
        "| **all** | | **6** | **1** | **1** | **3** | **1** | **1** | **0** | **1** | **3** | **1** | |"
        in table
    )
    text = report.summary_text(collected)
    assert text.splitlines()[2].split() == [
        "00_a",
        "6",
        "1",
        "1",
        "3",
        "1",
        "1",
        "0",
        "1",
        "3",
        "1",
    ]
    md = report.claims_markdown(collected[0])
    assert "| severity | tolerance | depends on | stability |" in md and "| 00-02 |" in md
    assert "| stable ×4 |" in md and "| **fragile**: reproduced @ 202 |" in md and "| det. |" in md


def test_fragile_rows_are_listed_with_their_seeds(sandbox):
    """The report lists every fragile row with the seeds that flip it; a verdict list shows a moving row's stability."""
    collected = report.collect_claims()
    fragile = report.fragile_claims(collected)
    assert (
        "00-04 [§3] c3" in fragile
        and "fragile: reproduced under seed 202" in fragile
        and "00-02" not in fragile
    )
    assert "stability: stable over 4 seeds" in report.claims_with_verdict(collected, "paper error")
    assert report.fragile_claims([]).startswith("(no fragile verdict")


def test_thumbnails_link_every_figure(sandbox):
    """Each PNG on disk appears as a linked thumbnail."""
    md = report._thumbnails_markdown(report.collect_claims())
    assert '<a href="figures/00_a/fig1_x.png"><img src="figures/00_a/fig1_x.png"' in md


def test_render_replaces_only_the_generated_section(sandbox):
    """Text outside the markers is kept; rendering twice changes nothing."""
    text = f"intro\n{report.BEGIN}\nold\n{report.END}\noutro\n"
    once = report._render_readme(text)
    assert once.startswith("intro\n") and once.endswith("outro\n") and "old" not in once
    assert report._render_readme(once) == once


def test_missing_markers_is_an_error(sandbox):
    with pytest.raises(ValueError, match="markers"):
        report._render_readme("no markers here")


def test_committed_readme_is_up_to_date():
    """README.md's summary and thumbnails match the committed claims and figures (run `make refresh`)."""
    text = (paths.REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert report._render_readme(text) == text, (
        "README.md is stale: run `python -m ldp_tools.pipeline.report`"
    )


def test_report_reads_published_claims_while_its_own_outputs_are_staged(monkeypatch, tmp_path):
    """Under ``reproduce`` the report writes to staging but summarizes the published figures/ claims."""
    from ldp_tools.pipeline import paths, report

    monkeypatch.setenv("LDP_FIGURES_DIR", str(tmp_path))
    monkeypatch.setattr(paths, "FIGURES_DIR", tmp_path)  # as a kernel started by reproduce sees it
    collected = {nb.stem: nb for nb in report.collect_claims()}
    published = paths.REPO_ROOT / "figures" / "00_tutorial" / "claims.csv"
    assert published.exists() and len(collected["00_tutorial"].claims) > 0


def test_run_times_come_from_build_never_from_figures(sandbox, monkeypatch):
    """Issue 40: the report lists the times the runner wrote to build/<profile>/timings.json (a placeholder before
    any run), with the peers' black-box audits on their own line; nothing of them is under figures/."""
    monkeypatch.setattr(paths, "BUILD_DIR", sandbox / "build")
    assert report.run_times("paper").startswith("(no times yet")
    (sandbox / "build" / "paper").mkdir(parents=True)
    timings = {
        "wall_seconds": 250.4,
        "jobs": 2,
        "notebooks": {
            "00_a": {
                "seconds": 12.5,
                "reseeds": {"202": 4.0, "101": 3.0},
                "peer_seconds": 0.0,
                "cpu_seconds": 11.0,
                "reseeds_cpu_seconds": 6.5,
            },
            "01_b": {
                "seconds": 40.0,
                "reseeds": {},
                "peer_seconds": 31.25,
                "cpu_seconds": 39.0,
                "reseeds_cpu_seconds": 0,
            },
        },
    }
    (sandbox / "build" / "paper" / "timings.json").write_text(json.dumps(timings))
    lines = report.run_times("paper").splitlines()
    assert lines[0].split() == [
        "00_a",
        "12.5",
        "s",
        "(cpu",
        "11",
        "s)",
        "reseeded",
        "runs",
        "(claims",
        "only)",
        "3",
        "+",
        "4",
        "s",
        "(cpu",
        "6",
        "s)",
    ]
    assert lines[1].split() == ["01_b", "40.0", "s", "(cpu", "39", "s)"]
    assert lines[2] == "peers' black-box audits (01_b, cells tagged peer-clients, 1 run(s)): 31.2 s"
    assert lines[3] == "total wall time 250 s with 2 job(s)"
    # a corrupt or hand-edited file is refused whole (no traceback, no half-read file): text, inf, a bool,
    # a negative time, 0 jobs, a seed that is not a number
    entry = timings["notebooks"]["00_a"]
    for corrupt in (
        {"notebooks": 3},
        {**timings, "jobs": math.inf},
        {**timings, "jobs": 0},
        {**timings, "wall_seconds": "250"},
        {**timings, "notebooks": {"00_a": {**entry, "seconds": "12"}}},
        {**timings, "notebooks": {"00_a": {**entry, "cpu_seconds": True}}},
        {**timings, "notebooks": {"00_a": {**entry, "peer_seconds": -1.0}}},
        {**timings, "notebooks": {"00_a": {**entry, "reseeds": {"x": 3.0}}}},
    ):
        (sandbox / "build" / "paper" / "timings.json").write_text(json.dumps(corrupt))
        assert report.run_times("paper").startswith("(no times yet"), corrupt
    assert not list((sandbox / "figures").rglob("*.json"))
    with pytest.raises(ValueError, match="profile_name"):
        report.run_times("huge")
