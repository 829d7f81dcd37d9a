"""CSV files in and out: bounded, regular files only, written whole or not at all."""

from __future__ import annotations

import csv
import io
import itertools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ldp_helpers._files import check_regular_file, replace_atomically
from ldp_helpers._validation import (
    INT64_MAX,
    INT64_MIN,
    MAX_FILE_BYTES,
    MAX_LINE_CHARS,
    fail,
    fail_type,
)


def check_path(name: str, path) -> Path:
    """A file path (``str`` or ``os.PathLike``)."""
    if not isinstance(path, (str, os.PathLike)) or (isinstance(path, str) and not path):
        fail_type(name, path, "a file path (str or pathlib.Path)")
    return Path(path)


def csv_rows(
    name: str, path, *, max_bytes: int = MAX_FILE_BYTES
) -> Iterator[tuple[int, list[str]]]:
    """``(line number, fields)`` of a CSV file: a regular file (:func:`~ldp_helpers._files.check_regular_file`: at most
    ``max_bytes``), UTF-8 (a byte-order mark is skipped), lines of at most ``MAX_LINE_CHARS`` characters;
    blank lines skipped."""
    # os.stat first: a FIFO or device is refused unopened
    path = check_regular_file(name, path, max_bytes=max_bytes)
    with path.open(encoding="utf-8-sig", newline="") as fh:
        for number in itertools.count(1):
            line = fh.readline(MAX_LINE_CHARS + 1)
            if not line:
                return
            if len(line) > MAX_LINE_CHARS:
                raise ValueError(
                    f"{path}:{number}: line longer than MAX_LINE_CHARS = {MAX_LINE_CHARS:,} characters"
                )
            fields = next(csv.reader([line]), [])
            if fields and any(field.strip() for field in fields):
                yield number, fields


@contextmanager
def reading(name: str):
    """A file's content errors name the parameter that gave the file: ``"<name>: <file>:<line>: <what is wrong>"``."""
    try:
        yield
    except ValueError as exc:
        if str(exc).startswith(name):
            raise
        raise ValueError(f"{name}: {exc}") from exc


def parse_int(path: Path, number: int, text: str, what: str) -> int:
    """An integer field (surrounding spaces allowed), or a ValueError naming the file, line and field."""
    try:
        value = int(text.strip())
    except ValueError:
        raise ValueError(f"{path}:{number}: {what} must be an integer; got {text!r}") from None
    if not INT64_MIN <= value <= INT64_MAX:  # numpy would raise a bare OverflowError naming no file
        raise ValueError(
            f"{path}:{number}: {what} must be an integer in [-2^63, 2^63) (int64); got {text.strip()!r:.40}"
        )
    return value


def write_csv_atomically(name: str, path, rows) -> Path:
    """Write ``rows`` (already validated) to the ``.csv`` file ``path`` through a temporary file in the same folder,
    replaced at the end: a failure leaves an existing file as it was."""
    path = check_path(name, path)
    if path.suffix.lower() != ".csv" or not path.parent.is_dir():
        fail(name, str(path), "a .csv file path in an existing folder")
    buffer = io.StringIO()
    # csv's default "\r\n" line ends, as google/rappor's Python tools write
    csv.writer(buffer).writerows(rows)
    return replace_atomically(path, buffer.getvalue())
