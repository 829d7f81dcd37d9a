"""Notebook hygiene: paired sources in sync, parameters cell first, no volatile metadata."""

import json
import re

import jupytext
import nbformat
import pytest

from ldp_tools.pipeline.paths import NOTEBOOKS_DIR, REPO_ROOT, _notebook_stems
from ldp_tools.pipeline.profiles import load_profile, profile_names

STEMS = _notebook_stems()


def test_there_are_notebooks():
    assert "00_tutorial" in STEMS


@pytest.mark.parametrize("stem", STEMS)
def test_script_and_notebook_are_in_sync(stem):
    """The .ipynb holds exactly the cells of its paired percent script (run `make refresh`)."""
    script = jupytext.read(NOTEBOOKS_DIR / f"{stem}.py", fmt="py:percent")
    notebook = nbformat.read(NOTEBOOKS_DIR / f"{stem}.ipynb", as_version=4)

    def cells(nb):
        return [
            (c.cell_type, c.source.strip(), tuple(c.metadata.get("tags", ()))) for c in nb.cells
        ]

    assert cells(script) == cells(notebook), f"{stem}.ipynb is stale: run `make refresh`"


@pytest.mark.parametrize("stem", STEMS)
def test_parameters_cell_and_imports(stem):
    """First code cell is tagged `parameters`, holds literals only, and declares seed and save_figures."""
    nb = nbformat.read(NOTEBOOKS_DIR / f"{stem}.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert "parameters" in code[0].metadata.get("tags", [])
    names = re.findall(r"^(\w+)\s*=", code[0].source, flags=re.M)
    assert "seed" in names and "save_figures" in names
    assert "import" not in code[0].source and "(" not in code[0].source.split("#")[0]
    assert re.search(r"default_rng\(seed\)", code[1].source), (
        "the second cell builds the rng from seed"
    )
    assert not any(re.match(r"\s*def |\s*class ", c.source) for c in code), (
        "logic belongs in ldp_helpers"
    )


@pytest.mark.parametrize("stem", STEMS)
def test_no_volatile_or_machine_specific_content(stem):
    """Counts are 1..k (a fresh in-order run); no papermill metadata, errors, or machine paths."""
    raw = (NOTEBOOKS_DIR / f"{stem}.ipynb").read_text()
    nb = json.loads(raw)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert [c.get("execution_count") for c in code] == list(range(1, len(code) + 1)), (
        "run `make refresh`"
    )
    assert "papermill" not in raw and '"output_type": "error"' not in raw
    assert str(REPO_ROOT) not in raw
    assert set(nb["metadata"]) <= {"kernelspec", "language_info"}
    assert "widget-view+json" not in raw and "model_id" not in raw, (
        "a stored widget view has no model: run `make refresh`"
    )
    assert "Claim(id=" not in raw, (
        "a claim shows as a labelled row (Claim._ipython_display_), never as its repr"
    )


@pytest.mark.parametrize("name", profile_names())
def test_profiles_are_valid(name):
    """Every profile names existing notebooks and declared parameters only."""
    profile = load_profile(name)
    assert set(profile) == set(STEMS)


def test_paper_profile_writes_figures_for_every_notebook():
    """make figures must regenerate every notebook's figures and claims."""
    paper = load_profile("paper")
    assert all(paper[stem].get("save_figures") is True for stem in STEMS)


def test_smoke_profile_overrides_nothing():
    """The smoke profile is the notebooks' stored defaults."""
    assert all(not params for params in load_profile("smoke").values())


@pytest.mark.parametrize("stem", STEMS)
def test_papermill_sees_every_parameter(stem):
    """Every assignment of the parameters cell is a papermill parameter (a comment holding '=' or an
    apostrophe makes papermill skip its line silently, and a profile could then not override it)."""
    from ldp_tools.pipeline.profiles import notebook_parameters

    nb = nbformat.read(NOTEBOOKS_DIR / f"{stem}.ipynb", as_version=4)
    source = next(c for c in nb.cells if c.cell_type == "code").source
    assigned = re.findall(r"^(\w+)\s*=", source, flags=re.M)
    assert set(assigned) == set(notebook_parameters(stem)), (
        f"{stem}: papermill misses {set(assigned) - set(notebook_parameters(stem))}"
    )


def test_refresh_strips_the_explorers_widget_view():
    from ldp_tools.explore._widgets import WIDGET_MIME
    from ldp_tools.pipeline.refresh import WIDGET_MIME as STRIPPED
    from ldp_tools.pipeline.refresh import _strip_volatile

    assert STRIPPED == WIDGET_MIME
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "panel",
                execution_count=1,
                outputs=[
                    nbformat.v4.new_output(
                        "display_data",
                        data={
                            "text/plain": "t",
                            "image/png": "iVBO",
                            WIDGET_MIME: {"model_id": "x"},
                        },
                    )
                ],
            )
        ]
    )
    data = _strip_volatile(nb).cells[0].outputs[0].data
    assert set(data) == {"text/plain", "image/png"}


def test_refresh_merges_a_stream_the_kernel_split_into_chunks():
    """How the kernel chunks stdout depends on timing; the stored notebook must not."""
    from ldp_tools.pipeline.refresh import _strip_volatile

    out = nbformat.v4.new_output
    cell = nbformat.v4.new_code_cell(
        "print(1); print(2)",
        execution_count=1,
        outputs=[
            out("stream", name="stdout", text="1\n"),
            out("stream", name="stdout", text="2\n"),
            out("stream", name="stderr", text="w\n"),
            out("display_data", data={"text/plain": "x"}),
            out("stream", name="stdout", text="3\n"),
        ],
    )
    stored = _strip_volatile(nbformat.v4.new_notebook(cells=[cell])).cells[0].outputs
    assert [(o.output_type, o.get("name"), o.get("text")) for o in stored] == [
        ("stream", "stdout", "1\n2\n"),
        ("stream", "stderr", "w\n"),
        ("display_data", None, None),
        ("stream", "stdout", "3\n"),
    ]
