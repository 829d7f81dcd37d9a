"""Citations by key: every ``[key]`` in the notebooks, the package's docstrings and the key table of
``docs/reference.md`` (moved there from the README, issue 36) is an
entry of ``book/references.bib`` (with author or a note, title and year), so a reader can find and cite it."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAPER_KEYS = ("tutorial", "grr_vs_oue", "rappor", "m_shot", "glance")  # the five Japanese texts
KEY = re.compile(r"\[([a-z]+\d{4}[a-z]*|" + "|".join(PAPER_KEYS) + r")\]")
ENTRY = re.compile(r"^@(\w+)\{(\w+),(.*)\}\s*$", re.M)


def _bib() -> dict:
    return {
        key: body
        for _, key, body in ENTRY.findall(
            (ROOT / "book" / "references.bib").read_text(encoding="utf-8")
        )
    }


def _sources():
    yield from sorted((ROOT / "notebooks").glob("*.py"))
    yield from sorted((ROOT / "ldp_helpers").rglob("*.py"))
    yield from sorted((ROOT / "ldp_tools").rglob("*.py"))
    yield from sorted((ROOT / "book").glob("*.md"))


@pytest.mark.parametrize("path", list(_sources()), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_cited_key_is_in_the_bibliography(path):
    missing = set(KEY.findall(path.read_text(encoding="utf-8"))) - set(_bib())
    missing |= set(re.findall(r"\{cite:?[pt]?\}`([^`]+)`", path.read_text(encoding="utf-8"))) - set(
        _bib()
    )
    assert not missing, (
        f"{path.name} cites keys missing from book/references.bib: {sorted(missing)}"
    )


def test_the_key_table_matches_the_bibliography():
    text = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    table = re.findall(r"^\| `([a-z_0-9]+)`(?:, `([a-z_0-9]+)`)*", text, re.M)
    keys = set(
        re.findall(
            r"`([a-z]+\d{4}[a-z]*|" + "|".join(PAPER_KEYS) + r")`",
            "\n".join(line for line in text.splitlines() if line.startswith("| `")),
        )
    )
    assert table and keys, "docs/reference.md lost its key table"
    assert not keys - set(_bib()), (
        f"docs/reference.md keys missing from references.bib: {sorted(keys - set(_bib()))}"
    )


def test_every_entry_names_its_source():
    for key, body in _bib().items():
        assert "title" in body and "year" in body or key in PAPER_KEYS, (
            f"{key}: an entry needs a title and a year"
        )
        assert "author" in body or "note" in body, (
            f"{key}: an entry needs authors (or a note saying they are not stated)"
        )
