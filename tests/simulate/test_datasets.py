"""Datasets of the GRR/OUE thesis: the clickstream loader, the committed counts, the survey stand-in.

The raw UCI file is used from ``../shared/data/uci-clickstream/`` when it is there; otherwise the
damaged-file tests run on a small fabricated fixture with the same header and row structure.
"""

from pathlib import Path

import numpy as np
import pytest

from ldp_helpers.simulate import datasets
from ldp_helpers.simulate.datasets import (
    CLICKSTREAM_COLUMNS,
    TROUSER_COUNTS_CSV,
    CategoryCounts,
    _sha256_of,
    count_trouser_models,
    derive_trouser_counts,
    load_trouser_counts,
    write_trouser_counts,
)
from ldp_helpers.simulate.survey import tea_survey_standin

FIXTURE = Path(__file__).parents[1] / "fixtures" / "clickstream_fabricated.csv"
HAVE_RAW = datasets.DEFAULT_RAW_PATH.is_file()
RAW = datasets.DEFAULT_RAW_PATH if HAVE_RAW else FIXTURE


def _lines(path):
    return path.read_bytes().split(b"\r\n")


def _write_lines(path, lines):
    path.write_bytes(b"\r\n".join(lines))
    return path


# ---------------------------------------------------------------- committed counts


def test_committed_counts_are_the_thesis_dataset2():
    """The committed aggregate has 43 models A1..A43 and 49,742 records (thesis §3.2)."""
    table = load_trouser_counts()
    assert table.d == 43 and table.n == 49_742
    assert table.labels[0] == "A1" and table.labels[-1] == "A43"
    assert table.counts.min() > 0
    # PROVENANCE.md's sorted list starts "A2 3013, A11 2789" and ends "A43 246"
    assert table.counts[1] == 3013 and table.counts[10] == 2789 and table.counts[42] == 246


def test_raw_file_gives_the_committed_counts_or_the_fixture_is_refused():
    """The UCI file re-derives the committed counts exactly; any other file fails the checksum."""
    if HAVE_RAW:
        assert _sha256_of(RAW) == datasets.CLICKSTREAM_SHA256
        derived = derive_trouser_counts(RAW)
        assert (derived.n, derived.d) == (49_742, 43)
        assert np.array_equal(derived.counts, load_trouser_counts().counts)
    else:
        with pytest.raises(ValueError, match="not the unmodified UCI clickstream file"):
            derive_trouser_counts(RAW)


def test_fixture_is_parsed_and_counted_per_model():
    """Only page 1 == 1 rows count, per model, in model order (fabricated fixture)."""
    table = count_trouser_models(FIXTURE)
    expected = np.zeros(43, dtype=int)
    expected[[0, 1, 9, 42]] = [2, 4, 1, 1]  # A1, A2, A10, A43
    assert np.array_equal(table.counts, expected)
    assert np.array_equal(table.records(), np.repeat(np.arange(43), expected))


def test_counts_round_trip_through_csv(tmp_path):
    """write_trouser_counts then load_trouser_counts returns the same table."""
    table = load_trouser_counts()
    again = load_trouser_counts(write_trouser_counts(table, tmp_path / "c.csv"))
    assert again.labels == table.labels and np.array_equal(again.counts, table.counts)


def test_damaged_committed_counts_are_refused(tmp_path):
    """An edited count (wrong total) or a missing model is a clear error."""
    lines = datasets.TROUSER_COUNTS_CSV.read_text().splitlines()
    edited = tmp_path / "edited.csv"
    edited.write_text("\n".join([lines[0], "A1,2266", *lines[2:]]) + "\n")
    with pytest.raises(ValueError, match="must sum to 49,742; got 49,743"):
        load_trouser_counts(edited)
    missing = tmp_path / "missing.csv"
    missing.write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(ValueError, match="expected 43 rows"):
        load_trouser_counts(missing)


def test_counts_file_with_a_blank_or_short_line_is_refused(tmp_path):
    """A trailing blank line or a row without its count is a ValueError naming the line, not an IndexError."""
    text = datasets.TROUSER_COUNTS_CSV.read_text()
    blank = tmp_path / "blank.csv"
    blank.write_text(text + "\n")
    with pytest.raises(
        ValueError, match=r"blank.csv:45: expected a row '<model>,<count>' .*; got ''"
    ):
        load_trouser_counts(blank)
    lines = text.splitlines()
    lines[7] = "A7"  # file line 8: the count of A7 lost
    short = tmp_path / "short.csv"
    short.write_text("\n".join(lines) + "\n")
    with pytest.raises(
        ValueError, match=r"short.csv:8: expected a row '<model>,<count>' .*; got 'A7'"
    ):
        load_trouser_counts(short)


# ---------------------------------------------------------------- damaged raw files


def test_truncated_mid_line_is_refused(tmp_path):
    """A file cut inside its last row fails the checksum, and the parser names the short line."""
    raw = RAW.read_bytes()
    cut = _write_lines(tmp_path / "cut.csv", [raw[: raw.rstrip().rfind(b";")]])
    with pytest.raises(ValueError, match="not the unmodified UCI"):
        derive_trouser_counts(cut)
    with pytest.raises(ValueError, match=r"expected 14 ';'-separated fields, got 13 \(a truncated"):
        count_trouser_models(cut)


def test_truncated_at_a_line_boundary_is_refused_without_checksum(tmp_path):
    """Dropping whole rows is caught by the row count even when the checksum is skipped."""
    lines = _lines(RAW)
    short = _write_lines(tmp_path / "short.csv", lines[:-3] + [b""])
    with pytest.raises(ValueError, match=r"has 165,474 data rows; got"):
        derive_trouser_counts(short, verify_checksum=False)


def test_reordered_rows_are_refused(tmp_path):
    """Two swapped rows break the session/click order; the error names the file line."""
    lines = _lines(RAW)
    lines[2], lines[3] = lines[3], lines[2]
    swapped = _write_lines(tmp_path / "swapped.csv", lines)
    with pytest.raises(ValueError, match=r"swapped.csv:3: rows are out of order"):
        count_trouser_models(swapped)
    with pytest.raises(ValueError, match="not the unmodified UCI"):
        derive_trouser_counts(swapped)


def test_reordered_columns_are_refused(tmp_path):
    """A copy with its columns in another order fails on the header."""
    lines = [b";".join(np.roll(line.split(b";"), 1)) if line else line for line in _lines(RAW)[:50]]
    rolled = _write_lines(tmp_path / "rolled.csv", lines)
    with pytest.raises(ValueError, match="header must be the 14 UCI columns in order"):
        count_trouser_models(rolled)


def test_wrong_or_missing_file_is_refused(tmp_path):
    """The derived counts, a comma-separated copy, an empty file or no file: clear errors."""
    with pytest.raises(ValueError, match="header must be the 14 UCI columns"):
        count_trouser_models(datasets.TROUSER_COUNTS_CSV)
    comma = tmp_path / "comma.csv"
    comma.write_text(",".join(CLICKSTREAM_COLUMNS) + "\n")
    with pytest.raises(ValueError, match="header must be"):
        count_trouser_models(comma)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ValueError, match="the file is empty"):
        count_trouser_models(empty)
    with pytest.raises(FileNotFoundError, match="10.24432/C5QK7X"):
        derive_trouser_counts(tmp_path / "absent.csv")


def test_non_numeric_field_is_refused(tmp_path):
    """A damaged numeric field is reported with its line number."""
    lines = _lines(FIXTURE)
    lines[4] = lines[4].replace(b"2008", b"20x8", 1)
    bad = _write_lines(tmp_path / "bad.csv", lines)
    with pytest.raises(ValueError, match=r"bad.csv:5: expected integer fields"):
        count_trouser_models(bad)


def test_command_line_refuses_a_wrong_file():
    """`python -m ldp_helpers.simulate.datasets --raw <not the UCI file>` fails loudly."""
    with pytest.raises(ValueError, match="not the unmodified UCI"):
        datasets.main(["--raw", str(FIXTURE)])


# ---------------------------------------------------------------- Dataset 1 stand-in


def test_survey_standin_has_the_thesis_shape_and_says_so():
    """14 respondents × 5 brands rated 1..5; the label says it is a stand-in."""
    survey = tea_survey_standin()
    assert survey.ratings.shape == (14, 5) and len(survey.brands) == 5
    assert survey.ratings.min() >= 1 and survey.ratings.max() <= 5
    assert "STAND-IN" in survey.label
    counts = survey.rating_counts()
    assert (counts.n, counts.d) == (70, 5)
    assert np.array_equal(survey.rating_counts_by_brand().sum(axis=0), counts.counts)
    assert np.array_equal(survey.rating_counts_by_brand().sum(axis=1), np.full(5, 14))


def test_category_counts_validation():
    """Mismatched labels, negative or all-zero counts are refused."""
    with pytest.raises(ValueError, match="labels must have one entry per count"):
        CategoryCounts(("a",), np.array([1, 2]), "x")
    with pytest.raises(ValueError, match="non-negative integer counts"):
        CategoryCounts(("a", "b"), np.array([1, -2]), "x")
    with pytest.raises(ValueError, match="at least one record"):
        CategoryCounts(("a", "b"), np.array([0, 0]), "x")


def test_a_refused_table_or_a_failed_write_leaves_the_counts_file_as_it_was(tmp_path):
    """Issue 27: write_trouser_counts(None, path) emptied the file before failing, and the default path took any
    table.  Only a table the loader accepts is written, atomically (a temporary file then a rename)."""
    target = tmp_path / "counts.csv"
    target.write_bytes(TROUSER_COUNTS_CSV.read_bytes())
    good = load_trouser_counts()
    wrong = CategoryCounts(
        good.labels, good.counts + 1, good.name
    )  # the loader would refuse its total
    for table, message in (
        (None, "table must be a CategoryCounts"),
        (wrong, "the trousers counts"),
    ):
        with pytest.raises(ValueError, match=message):
            write_trouser_counts(table, target)
        assert target.read_bytes() == TROUSER_COUNTS_CSV.read_bytes()
    assert write_trouser_counts(good, target) == target
    assert np.array_equal(load_trouser_counts(target).counts, good.counts)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "counts.csv"
    ]  # no temporary file left behind


def test_loaders_refuse_what_would_block_or_never_end(tmp_path):
    """A FIFO, /dev/zero or a directory is refused before it is opened (reading it would block or never end);
    a byte-order mark is a clear ValueError naming the file and line, not a raw UnicodeDecodeError."""
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (fifo, "/dev/zero", tmp_path):
        for load in (_sha256_of, load_trouser_counts):
            with pytest.raises(ValueError, match="must be a regular file"):
                load(path)
        with pytest.raises((FileNotFoundError, ValueError)):
            derive_trouser_counts(path)
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + TROUSER_COUNTS_CSV.read_bytes())
    with pytest.raises(ValueError, match=r"bom.csv:1: not ASCII text \(a byte-order mark\?\)"):
        load_trouser_counts(bom)
