"""The README's first screen is a one-paper quick look (issue 36.6): one command, defined in the Makefile, and
the long reference sections live in ``docs/reference.md``, which the README points to."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
REFERENCE = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")


def test_the_first_screen_is_a_quick_look_with_one_command():
    first_screen = "\n".join(README.splitlines()[:30])
    assert "## Quick look" in first_screen and "make quick" in first_screen, first_screen
    target = re.search(r"^quick: setup\n\t(.+)$", (ROOT / "Makefile").read_text(), re.M)
    assert target and "reproduce --profile paper --only 00_tutorial" in target.group(1)
    assert "make test" in README


def test_the_reference_sections_are_in_docs_and_the_readme_points_there():
    for heading in (
        "## Repository map",
        "### One key per paper",
        "## The mechanism contract",
        "## Conventions",
        "### Bad input",
        "## Adding a notebook",
        "## google/rappor's files",
    ):
        assert heading in REFERENCE, heading
        assert heading not in README, heading
    assert "docs/reference.md" in README
    assert len(README.splitlines()) < 500
