"""Every paper notebook teaches: three takeaways, then 2–4 exercises, each with a worked solution that is
hidden in the book (cell tags ``hide-input`` and ``solution``) and asserts what it computes (nbval runs it)."""

import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted(p for p in (Path(__file__).resolve().parents[2] / "notebooks").glob("0*.py"))


def _cells(text: str) -> list[tuple[str, str]]:
    """(header line, body) of every jupytext percent cell."""
    parts = re.split(r"^(# %%.*)$", text, flags=re.M)
    return [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_three_takeaways_then_exercises_with_asserted_hidden_solutions(path):
    text = path.read_text(encoding="utf-8")
    takeaways = re.search(r"^# ## Takeaways\n#\n((?:# .*\n|#\n)+?)#\n# ## Exercises", text, re.M)
    assert takeaways, (
        f"{path.name}: needs a '## Takeaways' list directly followed by '## Exercises'"
    )
    assert len(re.findall(r"^# \d\. ", takeaways.group(1), re.M)) == 3, (
        f"{path.name}: three numbered takeaways"
    )
    cells = _cells(text)
    first = next(i for i, (_, body) in enumerate(cells) if "# ## Exercises" in body)
    exercises = [
        i
        for i, (_, body) in enumerate(cells)
        if i >= first and re.search(r"^# \*\*Exercise \d", body, re.M)
    ]
    assert 2 <= len(exercises) <= 4, f"{path.name}: 2-4 exercises, found {len(exercises)}"
    for i in exercises:
        header, body = cells[i + 1]
        assert header.startswith("# %%") and '"hide-input"' in header and '"solution"' in header, (
            f"{path.name}: the cell after exercise {exercises.index(i) + 1} must be its solution, tagged hide-input + solution"
        )
        assert re.search(r"^\s*assert ", body, re.M), (
            f"{path.name}: solution {exercises.index(i) + 1} asserts nothing"
        )


ALL_NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9][0-9]_*.py"))
PAPER_ONLY = "decided at the paper profile"  # a row whose smoke run cannot decide it says so in its tolerance


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: p.stem)
def test_code_lines_are_at_most_100_characters(path):
    long = [
        i + 1
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines())
        if len(line) > 100 and not line.lstrip().startswith("#")
    ]
    assert not long, f"{path.name}: code lines longer than 100 characters: {long}"


def _stored_markdown_claims(ipynb: Path) -> dict:
    """id → verdict of the Markdown claims table in the committed (smoke) notebook's outputs."""
    import json

    tables = [
        "".join(output["data"]["text/markdown"])
        for cell in json.loads(ipynb.read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "code"
        for output in cell.get("outputs", [])
        if "| id | claim |" in "".join(output.get("data", {}).get("text/markdown", ""))
        and "independent paper errors by severity"
        in "".join(output["data"]["text/markdown"])  # the table, not one claim's row
    ]
    assert len(tables) == 1, (
        f"{ipynb.name}: expected one Markdown claims table in the outputs, found {len(tables)}"
    )
    rows = {}
    for line in tables[0].splitlines()[2:]:
        if not line.startswith("| "):
            continue  # the summary line under the table
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        rows[cells[0]] = cells[5].strip("*")
    return rows


@pytest.mark.parametrize(
    "path",
    [p for p in ALL_NOTEBOOKS if (p.parents[1] / "figures" / p.stem / "claims.csv").exists()],
    ids=lambda p: p.stem,
)
def test_smoke_verdicts_agree_with_the_paper_profile(path):
    """The stored smoke run renders its claims as Markdown and reaches every paper-profile verdict."""
    import csv

    smoke = _stored_markdown_claims(path.with_suffix(".ipynb"))
    with (path.parents[1] / "figures" / path.stem / "claims.csv").open(encoding="utf-8") as fh:
        paper = list(csv.DictReader(fh))
    assert [r["id"] for r in paper] == list(smoke), (
        f"{path.stem}: smoke and paper runs list different claims"
    )
    differ = [
        (r["id"], smoke[r["id"]], r["verdict"])
        for r in paper
        if smoke[r["id"]] != r["verdict"] and PAPER_ONLY not in r["tolerance"]
    ]
    assert not differ, (
        f"{path.stem}: verdicts differ between smoke and paper profiles (id, smoke, paper): {differ}"
    )
