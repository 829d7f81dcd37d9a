"""Nothing lost on failure, nothing read half-way, nothing outside the notebooks folder.

* a notebook that fails after writing a figure leaves ``figures/`` untouched; one that succeeds
  has its outputs moved in; ``reproduce`` reports both and keeps the finished one's outputs;
* a truncated or garbled profile YAML is refused with its file and line;
* names given on the command line (``--only``, ``--profile``) and stems given to the API cannot
  name a path outside the notebooks folder;
* the clickstream loader refuses an endless line and an oversized file, naming the line.
"""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from ldp_helpers import _validation
from ldp_helpers.simulate import datasets
from ldp_tools.pipeline import figures, paths, profiles, refresh, reproduce

WRITE = (
    "from ldp_tools.pipeline import paths\n"
    "d = paths.FIGURES_DIR / '{stem}'\nd.mkdir(parents=True, exist_ok=True)\n(d / 'fig.png').write_text('new')"
)


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


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    nb_dir = tmp_path / "notebooks"
    (nb_dir / "profiles").mkdir(parents=True)
    _notebook(nb_dir / "20_writes_and_passes.ipynb", WRITE.format(stem="20_writes_and_passes"))
    _notebook(
        nb_dir / "21_writes_then_fails.ipynb",
        WRITE.format(stem="21_writes_then_fails"),
        "raise RuntimeError('boom')",
    )
    (nb_dir / "profiles" / "smoke.yaml").write_text("{}\n")
    for name, value in [
        ("NOTEBOOKS_DIR", nb_dir),
        ("PROFILES_DIR", nb_dir / "profiles"),
        ("BUILD_DIR", tmp_path / "build"),
        ("FIGURES_DIR", tmp_path / "figures"),
    ]:
        monkeypatch.setattr(paths, name, value)
    old = tmp_path / "figures" / "21_writes_then_fails"
    old.mkdir(parents=True)
    (old / "fig.png").write_text("committed")
    return tmp_path


def test_failed_notebook_writes_nothing_and_finished_one_keeps_its_outputs(sandbox, capsys):
    assert reproduce.main(["--profile", "smoke", "--jobs", "2"]) == 1
    out = capsys.readouterr()
    assert (
        "20_writes_and_passes" in out.out and "ok" in out.out and "21_writes_then_fails" in out.err
    )
    assert (sandbox / "figures" / "21_writes_then_fails" / "fig.png").read_text() == "committed"
    assert (sandbox / "figures" / "20_writes_and_passes" / "fig.png").read_text() == "new"
    assert not any((sandbox / "build" / "staging").rglob("*.png"))


@pytest.mark.parametrize(
    "text, line",
    [
        ("20_writes_and_passes:\n  seed: [1, 2\n", 3),  # garbled: unclosed flow sequence
        ("20_writes_and_passes:\n  seed: 2\n  save_fig", 3),  # truncated mid-line
        ("20_writes_and_passes:\n  seed:\n", 2),  # truncated after a key
        ("20_writes_and_passes:\n\tseed: 2\n", 2),  # a tab: not YAML
    ],
)
def test_truncated_or_garbled_profile_is_refused_with_file_and_line(sandbox, text, line):
    (paths.PROFILES_DIR / "broken.yaml").write_text(text)
    with pytest.raises(ValueError, match=rf"broken\.yaml:{line}"):
        profiles.load_profile("broken")


def test_oversized_profile_is_refused_unparsed(sandbox, monkeypatch):
    """A profile over MAX_PROFILE_BYTES is refused by its size, naming the file, before YAML reads it."""
    monkeypatch.setattr(profiles, "MAX_PROFILE_BYTES", 100)
    (paths.PROFILES_DIR / "huge.yaml").write_text(
        "20_writes_and_passes:\n  seed: [" + "1, " * 60 + "1]\n"
    )
    with pytest.raises(ValueError, match=r"profile must be a file of at most 100 B .*huge\.yaml"):
        profiles.load_profile("huge")


@pytest.mark.parametrize(
    "name", ["../../etc/passwd", "/etc/passwd", "..", "20_writes_and_passes/../../x", ""]
)
def test_names_cannot_leave_the_notebooks_folder(sandbox, name, capsys):
    for argv in (["--only", name], ["--profile", name]):
        with pytest.raises(SystemExit) as exc:
            reproduce.main(argv)
        assert exc.value.code == 2
    capsys.readouterr()
    with pytest.raises(SystemExit):
        refresh.main(["--only", name])
    assert "unknown notebook(s)" in capsys.readouterr().err  # the runners' one selection rule
    for call in (
        lambda: paths.check_notebook_stem(name),
        lambda: profiles._profile_path(name),
        lambda: profiles.notebook_parameters(name),
        lambda: figures._figure_path("20_writes_and_passes", name),
        lambda: refresh._build_from_script(name),
    ):
        with pytest.raises(ValueError):
            call()


def test_clickstream_loader_refuses_endless_line_and_oversized_file(tmp_path, monkeypatch):
    endless = tmp_path / "endless.csv"
    endless.write_text(
        ";".join(datasets.CLICKSTREAM_COLUMNS) + "\n" + "1" * (_validation.MAX_LINE_CHARS + 10)
    )
    with pytest.raises(ValueError, match=r"endless\.csv:2: line longer than MAX_LINE_CHARS"):
        datasets.count_trouser_models(endless)
    monkeypatch.setattr(datasets, "MAX_FILE_BYTES", 300)
    big = tmp_path / "big.csv"
    big.write_text(
        ";".join(datasets.CLICKSTREAM_COLUMNS) + "\n" + "2008;4;1;1;1;1;1;A1;1;1;1;1;1;1\n" * 20
    )
    with pytest.raises(ValueError, match=r"big\.csv:\d+: file larger than MAX_FILE_BYTES"):
        datasets.count_trouser_models(big)


ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(8)
)


@pytest.mark.parametrize(
    "text, line, message",
    [
        (
            ALIAS_BOMB,
            1,
            "anchors and aliases",
        ),  # issue 39 item 8: 9^9 nodes from ~400 bytes (> 40 s before)
        ("20_writes_and_passes:\n  seed: &s 3\n  other: *s\n", 2, "anchors and aliases"),
        (
            "x: " + "[" * 5000 + "]" * 5000 + "\n",
            1,
            "mappings and lists nested deeper than MAX_PROFILE_DEPTH",
        ),  # was a RecursionError
        (
            "20_writes_and_passes:\n  seed: " + "{a: " * 20 + "1" + "}" * 20 + "\n",
            2,
            "mappings and lists nested deeper",
        ),
    ],
)
def test_aliased_or_deeply_nested_profile_is_refused_before_it_expands(
    sandbox, text, line, message
):
    """A profile is bounded before it is composed: no anchor or alias, at most MAX_PROFILE_DEPTH levels (issue 39)."""
    import time

    (paths.PROFILES_DIR / "hostile.yaml").write_text(text)
    start = time.perf_counter()
    with pytest.raises(ValueError, match=rf"^hostile\.yaml:{line}: {message}"):
        profiles.load_profile("hostile")
    assert time.perf_counter() - start < 5
