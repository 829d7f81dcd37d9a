"""The papermill runner: profiles, name validation, failure reporting."""

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from ldp_tools.pipeline import paths, profiles, reproduce


def _notebook(path, *cells):
    nb = new_notebook(
        cells=[
            new_code_cell("seed = 1\nsave_figures = False", metadata={"tags": ["parameters"]}),
            *map(new_code_cell, cells),
        ]
    )
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, path)


def _sandbox(root, monkeypatch):
    """Under ``root``: a notebooks/ folder with one passing, one failing and one warning notebook, two profiles;
    the pipeline's folders pointed there (undone with ``monkeypatch``)."""
    nb_dir = root / "notebooks"
    (nb_dir / "profiles").mkdir(parents=True)
    _notebook(nb_dir / "10_passes.ipynb", "x = seed + 1")
    _notebook(nb_dir / "11_fails.ipynb", "y = 1", "raise RuntimeError('boom')")
    _notebook(nb_dir / "12_warns.ipynb", "import warnings\nwarnings.warn('careful')")
    (nb_dir / "profiles" / "smoke.yaml").write_text("{}\n")
    (nb_dir / "profiles" / "paper.yaml").write_text("10_passes:\n  seed: 2\n")
    for name, value in [
        ("NOTEBOOKS_DIR", nb_dir),
        ("PROFILES_DIR", nb_dir / "profiles"),
        ("BUILD_DIR", root / "build"),
        ("FIGURES_DIR", root / "figures"),
    ]:
        monkeypatch.setattr(paths, name, value)
    return root


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A notebooks/ folder with one passing and one failing notebook, and two profiles."""
    return _sandbox(tmp_path, monkeypatch)


def test_unknown_notebook_lists_valid_names(sandbox, capsys):
    """--only with a bad name exits 2 and names the valid notebooks."""
    with pytest.raises(SystemExit) as exc:
        reproduce.main(["--only", "12_missing"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unknown notebook(s) 12_missing" in err and "10_passes, 11_fails, 12_warns" in err


def test_unknown_profile_lists_valid_profiles(sandbox, capsys):
    """A bad --profile exits 2 and names the valid profiles."""
    with pytest.raises(SystemExit) as exc:
        reproduce.main(["--profile", "huge"])
    assert exc.value.code == 2
    assert "unknown profile 'huge'; valid profiles: paper, smoke" in capsys.readouterr().err


def test_bad_jobs_is_a_usage_error(sandbox, capsys):
    """--jobs must be at least 1."""
    with pytest.raises(SystemExit) as exc:
        reproduce.main(["--jobs", "0"])
    assert exc.value.code == 2
    assert "--jobs must be an integer >= 1" in capsys.readouterr().err


def test_undeclared_parameter_is_refused(sandbox):
    """A profile may only set parameters the notebook declares; the error lists them."""
    (paths.PROFILES_DIR / "paper.yaml").write_text("10_passes:\n  sead: 2\n")
    with pytest.raises(
        ValueError,
        match=r"'sead' is not a parameter of 10_passes; its parameters are: seed, save_figures",
    ):
        profiles.load_profile("paper")


def test_profile_with_unknown_notebook_is_refused(sandbox):
    """A profile keyed by a notebook that does not exist is an error naming the valid ones."""
    (paths.PROFILES_DIR / "paper.yaml").write_text("13_ghost: {}\n")
    with pytest.raises(
        ValueError, match="unknown notebook '13_ghost'; valid names: 10_passes, 11_fails, 12_warns"
    ):
        profiles.load_profile("paper")


def test_list_shows_parameters_and_overrides(sandbox, capsys):
    """--list prints notebooks, parameters, defaults and profile overrides."""
    assert reproduce.main(["--list"]) == 0
    out = capsys.readouterr().out
    assert "10_passes" in out and "seed = 1  paper=2" in out


def test_failing_notebook_is_reported_with_its_cell(sandbox, capsys):
    """Failing or warning notebooks are named (with the failing cell); the run exits 1; others still run."""
    assert reproduce.main(["--profile", "paper"]) == 1
    captured = capsys.readouterr()
    assert "11_fails: FAILED" in captured.out
    assert "failed in cell 2" in captured.out and "RuntimeError: boom" in captured.out
    assert "10_passes: ok" in captured.out
    assert (
        "12_warns: FAILED" in captured.out
        and "wrote to stderr" in captured.out
        and "careful" in captured.out
    )
    executed = nbformat.read(sandbox / "build" / "paper" / "10_passes.ipynb", as_version=4)
    assert any(
        "seed = 2" in c.source for c in executed.cells
    )  # papermill injected the profile value


ROBUST = """
import os, pathlib
from ldp_tools.pipeline.claims import ClaimsTable, gt, le
table = ClaimsTable("00_tutorial", texts=None)
table.check_statement("flips with the seed", "§1", "x", gt(seed % 7, 3), "y")
table.check("exact", "§2", 1, 1)
table.check_statement("moves, holds", "§3", "x", gt(seed, -1), "y")
if save_figures:
    out = pathlib.Path(os.environ["LDP_FIGURES_DIR"]) / "13_robust"
    out.mkdir(parents=True, exist_ok=True)
    (out / "claims.csv").write_text(table.to_csv())
"""


#: the robustness seeds of the shared paper run (13_robust's own seed is 2)
RESEEDS = [3, 4, 11]


@pytest.fixture(scope="module")
def reseeded_run(tmp_path_factory):
    """One paper-profile run of 13_robust (ROBUST's claims, a cell tagged ``no-claims``, one tagged
    ``peer-clients``, a figure) under ``robustness_seeds`` RESEEDS; what the robustness and timing tests read.
    (One run for both: each reseed starts a kernel.)"""
    import contextlib
    import io
    import json

    from ldp_tools.pipeline.claims import _read_claims_csv

    cells = [
        new_code_cell("seed = 1\nsave_figures = False", metadata={"tags": ["parameters"]}),
        new_code_cell(
            ROBUST + "\nclaims_only = os.environ.get('LDP_CLAIMS_ONLY') == '1'\n"
            "assert claims_only == (seed != 2), (seed, claims_only)"
        ),
        new_code_cell(
            "assert not claims_only, 'a figure cell ran in a claims-only run'",
            metadata={"tags": ["no-claims"]},
        ),
        new_code_cell("import time\ntime.sleep(0.2)", metadata={"tags": ["peer-clients"]}),
        new_code_cell(
            "import matplotlib.pyplot as plt\nfrom ldp_tools.pipeline.notebook import FigureSaver\n"
            "FigureSaver('00_tutorial', True, draw=not claims_only)(plt.figure(), 'probe')\n"
            "png = pathlib.Path(os.environ['LDP_FIGURES_DIR']) / '00_tutorial' / 'probe.png'\n"
            "assert png.exists() != claims_only and not plt.get_fignums()"
        ),
    ]
    with pytest.MonkeyPatch.context() as monkeypatch:
        root = _sandbox(tmp_path_factory.mktemp("reseeded"), monkeypatch)
        nb = new_notebook(cells=cells)
        nb.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        nbformat.write(nb, root / "notebooks" / "13_robust.ipynb")
        (paths.PROFILES_DIR / "paper.yaml").write_text(
            f"robustness_seeds: {RESEEDS}\n13_robust:\n  seed: 2\n  save_figures: true\n"
        )
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = reproduce.main(["--profile", "paper", "--only", "13_robust"])
        staging = root / "build" / "staging" / "paper" / "robustness"
        run = {
            "status": status,
            "out": out.getvalue(),
            "rows": {
                r.claim: r for r in _read_claims_csv(root / "figures" / "13_robust" / "claims.csv")
            },
            "staging_left": staging.exists() and any(staging.iterdir()),
            "timings": json.loads((root / "build" / "paper" / "timings.json").read_text()),
            "_read_timings": (reproduce._read_timings("paper"), reproduce._read_timings("smoke")),
            "executed": nbformat.read(
                root / "build" / "paper" / "robustness" / "seed3" / "13_robust.ipynb", as_version=4
            ),
        }
    return run


def test_robustness_pass_records_each_rows_stability(reseeded_run, sandbox, capsys):
    """Under robustness_seeds every claims row of the published claims.csv says whether its verdict survives the other
    seeds (same run); the reseeded runs' outputs are thrown away; a seed equal to the notebook's own is refused."""
    assert reseeded_run["status"] == 0, reseeded_run["out"]
    rows = reseeded_run["rows"]
    # seed % 7 > 3: 2 -> no (differs); 3 -> no; 4 -> yes (reproduced); 11 -> 4, yes
    assert rows["flips with the seed"].verdict == "differs"
    assert rows["flips with the seed"].stability == "fragile: reproduced under seed 4, 11"
    assert (
        rows["exact"].stability == "deterministic"
        and rows["moves, holds"].stability == "stable over 4 seeds"
    )
    assert not reseeded_run["staging_left"]
    assert "13_robust under seed 11: ok" in reseeded_run["out"]
    _notebook(sandbox / "notebooks" / "13_robust.ipynb", ROBUST)
    (paths.PROFILES_DIR / "paper.yaml").write_text(
        "robustness_seeds: [2]\n13_robust:\n  seed: 2\n  save_figures: true\n"
    )
    with pytest.raises(SystemExit):
        reproduce.main(["--profile", "paper", "--only", "13_robust"])
    assert "robustness_seeds must differ from 13_robust's own seed 2" in capsys.readouterr().err


INJECTION = '"; __import__("os").system("touch pwned"); "'


def test_profile_values_and_names_never_become_code(sandbox, capsys):
    """Issue 27: a profile value or a parameter name was spliced into the kernel as code.  Values reach the
    notebook as data (the exact text), names must be declared parameters, bytes (YAML !!binary) are refused."""
    nb_dir = sandbox / "notebooks"
    nb = new_notebook(
        cells=[
            new_code_cell(
                'seed = 1\nlabel = "x"\nsave_figures = False', metadata={"tags": ["parameters"]}
            ),
            new_code_cell(f"assert label == {INJECTION!r}, label"),
        ]
    )
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, nb_dir / "13_text.ipynb")
    (nb_dir / "profiles" / "paper.yaml").write_text(f"13_text:\n  label: '{INJECTION}'\n")
    status = reproduce.main(["--profile", "paper", "--only", "13_text"])
    assert status == 0, capsys.readouterr()  # the notebook received the text itself
    assert not (nb_dir / "pwned").exists() and not (sandbox / "pwned").exists()
    with pytest.raises(ValueError, match="is not a parameter of 13_text"):
        profiles._check_parameters("13_text", {"import os; os.system('touch pwned'); x": 1})
    (nb_dir / "profiles" / "paper.yaml").write_text("13_text:\n  seed: !!binary aGVsbG8=\n")
    with pytest.raises(ValueError, match=r"parameters\['seed'\] must be int"):
        profiles.load_profile("paper")
    assert not (nb_dir / "pwned").exists()


def test_a_malformed_profile_does_not_hide_the_others_from_list(sandbox, capsys):
    """--list reports a refused profile and still lists the notebooks with the valid ones' overrides."""
    (sandbox / "notebooks" / "profiles" / "smoke.yaml").write_text("10_passes: [\n")
    assert reproduce.main(["--list"]) == 0
    out = capsys.readouterr().out
    assert "profile smoke: refused" in out and "seed = 1  paper=2" in out


def test_reseeded_runs_compute_the_claims_only_and_the_times_are_reported(reseeded_run):
    """Issue 40: a reseeded run leaves out the cells tagged ``no-claims`` and its ``publish`` draws nothing (the published
    run keeps both); the run prints and writes each notebook's times, the cells tagged ``peer-clients`` apart."""
    assert reseeded_run["status"] == 0, reseeded_run["out"]
    out, timings = reseeded_run["out"], reseeded_run["timings"]
    entry = timings["notebooks"]["13_robust"]
    runs = 1 + len(
        RESEEDS
    )  # the published run and one per reseed, each sleeping 0.2 s in its peer cell
    assert sorted(entry["reseeds"]) == sorted(map(str, RESEEDS)) and entry["seconds"] > 0.2
    assert 0 < entry["cpu_seconds"] and 0 < entry["reseeds_cpu_seconds"]  # the kernels' CPU time
    assert (
        0.2 * runs
        <= entry["peer_seconds"]
        < min(entry["seconds"], *entry["reseeds"].values()) * runs
    )
    assert timings["wall_seconds"] >= entry["seconds"] and timings["jobs"] >= 1
    assert "reseeded runs (claims only)" in out and "13_robust" in out.split("Times (")[1]
    assert (
        f"peers' black-box audits (13_robust, cells tagged peer-clients, {runs} run(s)): "
        f"{entry['peer_seconds']:.1f} s" in out
    )
    assert out.rstrip().splitlines()[-1].startswith("total wall time ")
    assert reseeded_run["_read_timings"] == (timings, {})
    executed = reseeded_run["executed"]
    assert not any("no-claims" in c.metadata.get("tags", []) for c in executed.cells)
