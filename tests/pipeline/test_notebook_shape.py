"""A notebook reads like the paper: short cells, a short import cell, one-line claims, a code budget.

Each code cell is a paragraph (at most 25 lines; the parameters cell aside), the import cell (the
second code cell) at most 10 lines, every claims call one or two lines, and notebooks 00-04 hold at
most 60 % of the code lines they held before issue 25 (723, 635, 497, 800, 854).
"""

import re
from pathlib import Path

import pytest

from ldp_tools.pipeline.paths import NOTEBOOKS_DIR

NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.py"))
MAX_CELL_LINES, MAX_IMPORT_LINES, MAX_CLAIM_LINES = 25, 10, 2
#: code lines (every line of every code cell) before issue 25; the budget is 60 % of them
BEFORE = {
    "00_tutorial": 723,
    "01_grr_vs_oue": 635,
    "02_rappor": 497,
    "03_m_shot": 800,
    "04_glance": 854,
}


def code_cells(path: Path) -> list[tuple[str, list[str]]]:
    """(header, lines) of every code cell of a jupytext percent script, blank edges trimmed."""
    parts = re.split(r"^(# %%.*)$", path.read_text(encoding="utf-8"), flags=re.M)
    cells = [(parts[i], parts[i + 1].strip("\n").splitlines()) for i in range(1, len(parts) - 1, 2)]
    return [(h, body) for h, body in cells if "[markdown]" not in h]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_cells_are_paragraphs(path):
    cells = code_cells(path)
    long = [
        (i + 1, len(body))
        for i, (h, body) in enumerate(cells)
        if "parameters" not in h and len(body) > MAX_CELL_LINES
    ]
    assert not long, (
        f"{path.name}: code cells over {MAX_CELL_LINES} lines (cell number, lines): {long}"
    )
    assert len(cells[1][1]) <= MAX_IMPORT_LINES, (
        f"{path.name}: the import cell has {len(cells[1][1])} lines"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_claim_is_one_short_call(path):
    text = path.read_text(encoding="utf-8")
    long = []
    for m in re.finditer(
        r"^\s*(?:\w+ = )?claims\.(check|check_statement|statement|erratum|erratum_if|ambiguous_if)\(",
        text,
        re.M,
    ):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        n_lines = text.count("\n", m.start(), i) + 1
        if n_lines > MAX_CLAIM_LINES:
            long.append(text.count("\n", 0, m.start()) + 1)
    assert not long, f"{path.name}: claims calls over {MAX_CLAIM_LINES} lines at lines {long}"
    assert (path.parent / "claims" / f"{path.stem}.yaml").exists() or "ClaimsTable(" not in text


@pytest.mark.parametrize("stem", BEFORE)
def test_code_budget(stem):
    n = sum(len(body) for _, body in code_cells(NOTEBOOKS_DIR / f"{stem}.py"))
    assert n <= 0.6 * BEFORE[stem], (
        f"{stem}: {n} code lines > 60 % of {BEFORE[stem]} ({0.6 * BEFORE[stem]:.0f})"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_only_a_measurement_of_the_machine_escapes_nbval(path):
    """A cell whose output nbval ignores times this machine (server_seconds, or the last run's times: run_times), claims
    nothing and saves nothing."""
    for header, body in code_cells(path):
        if "nbval-ignore-output" in header or any("NBVAL" in line for line in body):
            text = "\n".join(body)
            assert "nbval-ignore-output" in header and (
                "server_seconds(" in text or "run_times(" in text
            ), f"{path.name}: {header} {body[:2]}"
            assert "claims." not in text and "publish(" not in text, (
                f"{path.name}: an ignored cell claims or saves"
            )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_no_claims_cell_claims_nothing(path):
    """Issue 40: the robustness pass's claims-only runs leave out the cells tagged no-claims, so none records a claim
    (nor writes the claims table)."""
    for header, body in code_cells(path):
        if "no-claims" in header:
            assert not any("claims." in line or "claims_csv" in line for line in body), (
                f"{path.name}: {body[:2]}"
            )
