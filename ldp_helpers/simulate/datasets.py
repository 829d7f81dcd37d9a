"""The two datasets of the GRR/OUE thesis ([grr_vs_oue]): clickstream trousers and a survey stand-in.

*Dataset 2* is the trousers category of the UCI "Clickstream Data for Online Shopping"
(Łapczyński 2019, DOI 10.24432/C5QK7X, CC BY 4.0): rows with ``page 1 (main category) == 1``,
categorized by ``page 2 (clothing model)``, i.e. 49,742 product *views* over 43 models A1..A43.
The raw CSV is never committed; :func:`derive_trouser_counts` re-derives the 43 per-model counts
from a copy of it (checksum, header, row count and row order are verified) and
:func:`load_trouser_counts` reads the committed aggregate ``data/clickstream_trousers_counts.csv``.

*Dataset 1* (a private 14-respondent tea survey, 5 brands rated on 5 levels) is not available:
:func:`tea_survey_standin` returns a fabricated table of the same shape, clearly labelled.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import itertools
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ldp_helpers import _paths as paths
from ldp_helpers._files import check_regular_file, replace_atomically
from ldp_helpers._validation import (
    MAX_FILE_BYTES,
    MAX_LINE_CHARS,
    Described,
    check_bool,
    check_counts,
    check_instance,
    fail,
    format_bytes,
)

CLICKSTREAM_FILENAME = "e-shop-clothing-2008.csv"
CLICKSTREAM_SHA256 = "fcc167bbd0badd4c9685bd8543097e318f8228e48075335db7cd781cee88115d"
CLICKSTREAM_SIZE = 6_675_312  # bytes of the unmodified UCI file
CLICKSTREAM_ROWS = 165_474  # data rows (header excluded)
CLICKSTREAM_COLUMNS = (
    "year",
    "month",
    "day",
    "order",
    "country",
    "session ID",
    "page 1 (main category)",
    "page 2 (clothing model)",
    "colour",
    "location",
    "model photography",
    "price",
    "price 2",
    "page",
)
TROUSERS = 1  # page 1 (main category): 1 trousers, 2 skirts, 3 blouses, 4 sale
TROUSER_RECORDS = 49_742
TROUSER_MODELS = tuple(f"A{k}" for k in range(1, 44))  # 43 models; 0-based index i is model A{i+1}
DEFAULT_RAW_PATH = paths.SHARED_DATA_DIR / "uci-clickstream" / CLICKSTREAM_FILENAME
TROUSER_COUNTS_CSV = paths.DATA_DIR / "clickstream_trousers_counts.csv"
_COUNTS_HEADER = ("model", "clicks")
_TROUSERS_NAME = "clickstream trousers (views per model)"  # CategoryCounts.name of Dataset 2


@dataclass(frozen=True, eq=False)
class CategoryCounts:
    """How many records fall in each category of a 0-based domain [0, d).

    Attributes
    ----------
    labels : tuple of str
        Display name of category i (e.g. ``"A1"``).
    counts : numpy.ndarray of int64, shape (d,)
        f_i, the true count of category i.
    name : str
        What the records are (shown in figure titles).
    """

    labels: tuple[str, ...]
    counts: np.ndarray
    name: str

    def __post_init__(self):
        counts = check_counts("counts", self.counts)
        if len(self.labels) != counts.size:
            raise ValueError(
                f"labels must have one entry per count ({counts.size}); got {len(self.labels)}"
            )
        if counts.sum() < 1:
            raise ValueError("counts must describe at least one record (sum ≥ 1); got all zeros")
        object.__setattr__(self, "labels", tuple(self.labels))
        object.__setattr__(self, "counts", counts)

    @property
    def n(self) -> int:
        """Number of records."""
        return int(self.counts.sum())

    @property
    def d(self) -> int:
        """Domain size."""
        return int(self.counts.size)

    def frequencies(self) -> np.ndarray:
        """f_i / n."""
        return self.counts / self.n

    def records(self) -> np.ndarray:
        """The records as 0-based category values, sorted (for the per-user reference clients)."""
        return np.repeat(np.arange(self.d), self.counts)


# ----------------------------------------------------------------- Dataset 2: raw clickstream


def _sha256_of(path) -> str:
    """Hex sha256 of a file (streamed, not read into memory at once)."""
    # a FIFO or /dev/zero is refused, not read for ever
    with check_regular_file("path", path).open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _check_row_order(path: Path, session: np.ndarray, order: np.ndarray) -> None:
    """The UCI file lists sessions in increasing ID, each one's clicks as order = 1, 2, 3, ..."""
    new_session = np.r_[True, session[1:] != session[:-1]]
    expected = np.where(new_session, 1, np.r_[0, order[:-1]] + 1)
    bad = np.flatnonzero((order != expected) | np.r_[False, session[1:] < session[:-1]])
    if bad.size:
        line = int(bad[0]) + 2  # 1-based file line (header is line 1)
        raise ValueError(
            f"{path}:{line}: rows are out of order (session {session[bad[0]]}, click order {order[bad[0]]}); "
            "the file must list each session's clicks as order = 1, 2, ... with session IDs increasing, "
            "as the UCI file does (a sorted, shuffled or filtered copy is not the original)"
        )


def count_trouser_models(path) -> CategoryCounts:
    """Parse a clickstream CSV and count the trousers rows per clothing model A1..A43.

    Structural checks only (header, 14 integer-or-code fields per row, original row order);
    :func:`derive_trouser_counts` adds the checksum and the UCI totals.

    Raises
    ------
    ValueError
        On a wrong header, a short/long or non-numeric row (e.g. a truncated last line),
        rows out of their original order, or a trousers row whose model is not A1..A43.
    """
    return _parse_clickstream(Path(path))[1]


def _bounded_lines(fh, path: Path):
    """Stream ``fh`` (≤ MAX_LINE_CHARS + 1 characters per read): a longer line or a file over MAX_FILE_BYTES is refused."""
    total = 0
    for number in itertools.count(1):
        try:
            line = fh.readline(MAX_LINE_CHARS + 1)
        except UnicodeDecodeError as err:
            bom = " (a byte-order mark?)" if number == 1 and err.start < 3 else ""
            raise ValueError(
                f"{path}:{number}: not ASCII text{bom}: byte {err.object[err.start : err.start + 1]!r} "
                f"cannot be decoded"
            ) from None
        if not line:
            return
        if len(line) > MAX_LINE_CHARS:
            raise ValueError(
                f"{path}:{number}: line longer than MAX_LINE_CHARS = {MAX_LINE_CHARS:,} characters "
                "(a garbled or non-CSV file?)"
            )
        total += len(line)
        if total > MAX_FILE_BYTES:
            raise ValueError(
                f"{path}:{number}: file larger than MAX_FILE_BYTES = {format_bytes(MAX_FILE_BYTES)} "
                "(not the UCI clickstream file, or an endless stream)"
            )
        yield line


def _parse_clickstream(path: Path) -> tuple[int, CategoryCounts]:
    """(number of data rows, trousers counts per model) after the structural checks."""
    int_columns = [i for i, c in enumerate(CLICKSTREAM_COLUMNS) if c != "page 2 (clothing model)"]
    numeric, models = [], []  # (session ID, click order, page 1) per row; page 2 per row
    with check_regular_file("path", path).open(encoding="ascii", newline="") as fh:
        reader = csv.reader(_bounded_lines(fh, path), delimiter=";")
        header = next(reader, None)
        if header is None:
            raise ValueError(
                f"{path}: the file is empty; expected the UCI clickstream CSV ({CLICKSTREAM_FILENAME})"
            )
        if tuple(header) != CLICKSTREAM_COLUMNS:
            raise ValueError(
                f"{path}: the header must be the 14 UCI columns in order, ';'-separated "
                f"({';'.join(CLICKSTREAM_COLUMNS)}); got {';'.join(header)!r}"
            )
        for line, row in enumerate(reader, start=2):
            if len(row) != len(CLICKSTREAM_COLUMNS):
                raise ValueError(
                    f"{path}:{line}: expected {len(CLICKSTREAM_COLUMNS)} ';'-separated fields, "
                    f"got {len(row)} (a truncated or damaged file?)"
                )
            if not all(row[i].isdigit() for i in int_columns):
                raise ValueError(
                    f"{path}:{line}: expected integer fields except the model code; got {';'.join(row)!r}"
                )
            numeric.append((int(row[5]), int(row[3]), int(row[6])))
            models.append(row[7])
    if not numeric:
        raise ValueError(f"{path}: the file has a header but no data rows")
    session, order, category = np.array(numeric).T
    _check_row_order(path, session, order)
    index = {label: i for i, label in enumerate(TROUSER_MODELS)}
    trousers = [m for m, c in zip(models, category) if c == TROUSERS]
    unknown = sorted(set(trousers) - index.keys())
    if unknown:
        raise ValueError(f"{path}: trousers rows must have models in A1..A43; found {unknown[:5]}")
    counts = np.bincount([index[m] for m in trousers], minlength=len(TROUSER_MODELS))
    return len(session), CategoryCounts(TROUSER_MODELS, counts, _TROUSERS_NAME)


def derive_trouser_counts(path=DEFAULT_RAW_PATH, *, verify_checksum: bool = True) -> CategoryCounts:
    """Dataset 2 from the raw UCI CSV: 49,742 trousers views over the 43 models A1..A43.

    Parameters
    ----------
    path : path-like
        The UCI file ``e-shop clothing 2008.csv`` (default: the project's shared copy).
    verify_checksum : bool
        Check the sha256 of the unmodified UCI file first (off only for a copy with other line
        endings; the header, row-order and 165,474 / 49,742 / 43 total checks still apply).

    Raises
    ------
    FileNotFoundError
        If there is no file at ``path``.
    ValueError
        If the file is not the UCI file: wrong checksum or size, wrong header, a truncated,
        reordered or filtered copy, or totals other than 165,474 / 49,742 / 43.

    References
    ----------
    [grr_vs_oue] §3.2 ("Dataset2 は, 49,742 件 ... 43 種類"); the filter is
    ``page 1 (main category) == 1`` (PROVENANCE.md of the shared data).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"no clickstream CSV at {path}; download https://doi.org/10.24432/C5QK7X (file "
            "'e-shop clothing 2008.csv') and pass its path, or use load_trouser_counts()"
        )
    if (
        check_bool("verify_checksum", verify_checksum)
        and (digest := _sha256_of(path)) != CLICKSTREAM_SHA256
    ):
        raise ValueError(
            f"{path} is not the unmodified UCI clickstream file (wrong, truncated or edited): sha256 must "
            f"be {CLICKSTREAM_SHA256} ({CLICKSTREAM_SIZE:,} bytes); got {digest} ({path.stat().st_size:,} bytes)"
        )
    n_rows, table = _parse_clickstream(path)
    for what, got, expected in (
        ("data rows", n_rows, CLICKSTREAM_ROWS),
        ("trousers rows", table.n, TROUSER_RECORDS),
        ("trousers models", int(np.count_nonzero(table.counts)), len(TROUSER_MODELS)),
    ):
        if got != expected:
            raise ValueError(
                f"{path}: the UCI file has {expected:,} {what}; got {got:,} (a truncated or filtered copy?)"
            )
    return table


# ----------------------------------------------------------------- Dataset 2: committed counts


def write_trouser_counts(table: CategoryCounts, path=TROUSER_COUNTS_CSV) -> Path:
    """Write the per-model counts as ``model,clicks`` rows (A1..A43, LF line endings).

    Only a table :func:`load_trouser_counts` would accept is written (the 43 models in order, 49,742
    records), and it is written to a temporary file beside ``path`` that replaces ``path`` atomically:
    a refused table or a failed write leaves the existing file as it was.
    """
    check_instance("table", table, CategoryCounts)
    if table.labels != TROUSER_MODELS or table.n != TROUSER_RECORDS:
        fail(
            "table",
            Described(f"a table of {len(table.labels)} labels and {table.n:,} records"),
            f"the trousers counts: the 43 models A1..A43 in order, {TROUSER_RECORDS:,} records",
        )
    path = Path(check_instance("path", path, (str, os.PathLike), "a path (str or os.PathLike)"))
    text = "".join(
        f"{a},{b}\n" for a, b in [_COUNTS_HEADER, *zip(table.labels, table.counts.tolist())]
    )
    return replace_atomically(path, text, encoding="ascii")


def load_trouser_counts(path=TROUSER_COUNTS_CSV) -> CategoryCounts:
    """Dataset 2 from the committed aggregate ``data/clickstream_trousers_counts.csv``.

    Checks the header, the 43 models in order A1..A43 and the total of 49,742 records.
    Data: Łapczyński (2019), UCI ML Repository, DOI 10.24432/C5QK7X, CC BY 4.0.
    """
    path = check_regular_file("path", path)
    with path.open(encoding="ascii", newline="") as fh:
        rows = list(itertools.islice(csv.reader(_bounded_lines(fh, path)), 2 + len(TROUSER_MODELS)))
    if not rows or tuple(rows[0]) != _COUNTS_HEADER:
        raise ValueError(
            f"{path}: the header must be {','.join(_COUNTS_HEADER)}; got {rows[0] if rows else None!r}"
        )
    for line, row in enumerate(rows[1:], start=2):  # shape of every row first: a blank line is []
        if len(row) != 2 or not row[1].isdigit():
            raise ValueError(
                f"{path}:{line}: expected a row '<model>,<count>' (e.g. 'A1,2265'); got {','.join(row)!r}"
            )
    labels = tuple(r[0] for r in rows[1:])
    if labels != TROUSER_MODELS:
        raise ValueError(f"{path}: expected 43 rows 'A1,<count>' .. 'A43,<count>' in model order")
    table = CategoryCounts(labels, np.array([int(r[1]) for r in rows[1:]]), _TROUSERS_NAME)
    if table.n != TROUSER_RECORDS:
        raise ValueError(f"{path}: the counts must sum to {TROUSER_RECORDS:,}; got {table.n:,}")
    return table


# ----------------------------------------------------------------- command line


def main(argv=None) -> int:
    """``python -m ldp_helpers.simulate.datasets [--raw PATH] [--write]``: re-derive and check the counts."""
    parser = argparse.ArgumentParser(
        description="Re-derive data/clickstream_trousers_counts.csv from the raw UCI CSV."
    )
    parser.add_argument(
        "--raw", type=Path, default=DEFAULT_RAW_PATH, help="path of 'e-shop clothing 2008.csv'"
    )
    parser.add_argument(
        "--write", action="store_true", help="(over)write the committed counts file"
    )
    args = parser.parse_args(argv)
    derived = derive_trouser_counts(args.raw)
    print(f"{args.raw}: sha256 OK, {derived.n:,} trousers rows over {derived.d} models")
    if args.write:
        print(f"wrote {write_trouser_counts(derived)}")
        return 0
    same = np.array_equal(derived.counts, load_trouser_counts().counts)
    print(
        f"{TROUSER_COUNTS_CSV.name}: {'identical to' if same else 'DIFFERS from'} the derived counts"
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
