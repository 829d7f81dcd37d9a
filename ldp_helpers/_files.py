"""File inputs, checked before anything opens them (the bottom layer, beside :mod:`ldp_helpers._validation`).

A loader must never block or stream for ever: a FIFO, a device such as ``/dev/zero`` or a directory is
refused from ``os.stat`` alone, and a file too large for its reader is refused by its size.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from ldp_helpers._validation import MAX_FILE_BYTES, _fail, check_instance, format_bytes


def check_regular_file(name: str, path, *, max_bytes: int = MAX_FILE_BYTES):
    """``path`` as a :class:`pathlib.Path` naming an existing **regular** file of at most ``max_bytes``.

    Checked with ``os.stat`` before anything opens it: a FIFO, a character device such as
    ``/dev/zero`` or a directory would block or stream for ever once opened.
    """
    check_instance(name, path, (str, os.PathLike), "a path (str or os.PathLike) to a regular file")
    path = Path(path)
    try:
        info = os.stat(path)
    except OSError as err:
        _fail(name, str(path), f"an existing, readable regular file ({err.strerror})")
    if not stat.S_ISREG(info.st_mode):
        _fail(
            name,
            str(path),
            "a regular file (not a FIFO, device or directory, which could block or never end)",
        )
    if info.st_size > max_bytes:
        _fail(
            name,
            str(path),
            f"a file of at most {format_bytes(max_bytes)} (this one has {format_bytes(info.st_size)})",
        )
    return path


def read_text_file(
    name: str, path, *, encoding: str = "utf-8", max_bytes: int = MAX_FILE_BYTES
) -> str:
    """The text of a regular file (:func:`check_regular_file`), all of it or a clear refusal: a file that
    does not decode names its path and the first undecodable byte's line (a byte-order mark included)."""
    path = check_regular_file(name, path, max_bytes=max_bytes)
    with path.open("rb") as handle:
        raw = handle.read(max_bytes + 1)  # never more than the cap, even if the file grew since
    if len(raw) > max_bytes:
        _fail(name, str(path), f"a file of at most {format_bytes(max_bytes)} (it grew past that)")
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        bom = (
            " (a byte-order mark?)"
            if raw.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"))
            else ""
        )
        _fail(name, str(path), f"{encoding} text; byte {err.start} on line {line} is not{bom}")


def replace_atomically(path: Path, text: str, *, encoding: str = "utf-8") -> Path:
    """Write ``text`` to a temporary file beside ``path`` and replace ``path`` with it: a failure leaves an existing
    file as it was, and the new file keeps the replaced file's mode (a new one gets 0666 less the umask), not
    mkstemp's 0600."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding=encoding, newline="") as fh:
            fh.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path
