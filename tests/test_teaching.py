"""Every paper notebook teaches: three takeaways, then 2–4 exercises, each with a worked solution that is
hidden in the book (cell tags ``hide-input`` and ``solution``) and asserts what it computes (nbval runs it)."""

import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted(p for p in (Path(__file__).resolve().parents[1] / "notebooks").glob("0*.py"))


def _cells(text: str) -> list[tuple[str, str]]:
    """(header line, body) of every jupytext percent cell."""
    parts = re.split(r"^(# %%.*)$", text, flags=re.M)
    return [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_three_takeaways_then_exercises_with_asserted_hidden_solutions(path):
    text = path.read_text(encoding="utf-8")
    takeaways = re.search(r"^# ## Takeaways\n#\n((?:# .*\n|#\n)+?)#\n# ## Exercises", text, re.M)
    assert takeaways, f"{path.name}: needs a '## Takeaways' list directly followed by '## Exercises'"
    assert len(re.findall(r"^# \d\. ", takeaways.group(1), re.M)) == 3, f"{path.name}: three numbered takeaways"
    cells = _cells(text)
    first = next(i for i, (_, body) in enumerate(cells) if "# ## Exercises" in body)
    exercises = [i for i, (_, body) in enumerate(cells) if i >= first and re.search(r"^# \*\*Exercise \d", body, re.M)]
    assert 2 <= len(exercises) <= 4, f"{path.name}: 2-4 exercises, found {len(exercises)}"
    for i in exercises:
        header, body = cells[i + 1]
        assert header.startswith("# %%") and '"hide-input"' in header and '"solution"' in header, (
            f"{path.name}: the cell after exercise {exercises.index(i) + 1} must be its solution, tagged hide-input + solution")
        assert re.search(r"^\s*assert ", body, re.M), f"{path.name}: solution {exercises.index(i) + 1} asserts nothing"
