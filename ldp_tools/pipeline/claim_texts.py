"""The words of a notebook's claims, kept beside the notebook: ``notebooks/claims/<notebook>.yaml``.

A claims row says what the paper says (the claim, its source, the paper's value) and what we
compute.  The words are prose and live in this file, one entry per row, in the order of the
rendered table; the notebook records each row with one short call beside its evidence::

    claims.check("c_star", c)                      # a number against the entry's paper value
    claims.statement("r_star_zero", lt(n_bad, 1))  # a statement decided by a comparison

An entry (keyed by the name the notebook uses)::

    c_star:
      id: 03-05                      # the row's id in the table and claims.csv
      claim: c* ~ 0.574 (no closed form; numerical)
      source: §5.3
      paper: 0.574                   # the paper's value: a number, or its words
      atol: 5.0e-4                   # optional: the numeric tolerance (rtol too)
      ours: ...                      # optional: our finding in words (statements)
      tolerance: ...                 # optional: the tolerance column's text
      severity: typo                 # errata only: typo | inconsistency | wrong result
      depends_on: 03-04              # optional: the row this one is a consequence of

Text fields may hold computed numbers as ``{{name}}`` or ``{{name:.3g}}`` placeholders, filled from
the call's keyword arguments (single braces, as in ``e^{eps/m}``, are left alone).  The file is read
with ``yaml.safe_load`` (no tags, no code), all or nothing: a bad entry is refused naming the file
and the entry.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from numbers import Real
from pathlib import Path

from ldp_helpers._files import read_text_file
from ldp_helpers._validation import fail_type
from ldp_tools.pipeline import paths
from ldp_tools.pipeline.decisions import SEVERITIES

CLAIMS_DIR = paths.NOTEBOOKS_DIR / "claims"
MAX_SPEC_BYTES = 500_000
REQUIRED = ("id", "claim", "source", "paper")
FIELDS = REQUIRED + ("ours", "tolerance", "severity", "depends_on", "atol", "rtol")
_TEXT = ("id", "claim", "source", "ours", "tolerance", "severity", "depends_on")
_KEY = re.compile(r"^[a-z][a-z0-9_.]*$")
#: a row id: NN-xx, or a named row that other notebooks cite by name (00_tutorial's ``p-prime``, in its committed table)
_ID = re.compile(r"^(?:[0-9]{2}-[A-Za-z0-9_.-]+|[a-z][a-z0-9-]*)$")
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*(?::([^{}]*))?\}\}")


@dataclass(frozen=True)
class ClaimText:
    """One entry of a claims file: the words of one row and its static tolerance."""

    key: str
    id: str
    claim: str
    source: str
    paper: object
    ours: str = ""
    tolerance: str = ""
    severity: str = ""
    depends_on: str = ""
    atol: float | None = None
    rtol: float | None = None

    def fill(self, field: str, values: dict) -> str:
        """The text of ``field`` with its ``{{name}}`` placeholders filled from ``values``."""
        return fill(getattr(self, field), values, where=f"claim {self.key!r}, field {field!r}")


def fill(text, values: dict, *, where: str) -> str:
    """``text`` with each ``{{name}}`` / ``{{name:spec}}`` replaced by ``format(values[name], spec)``."""
    if not isinstance(values, dict):
        fail_type("values", values, "a dict of placeholder name -> value")
    if not isinstance(text, str):
        return text

    def one(match):
        name, spec = match.group(1), match.group(2) or ""
        if name not in values:
            raise ValueError(
                f"values must give every placeholder of {where}: the text names {{{{{name}}}}}, "
                f"which the call does not give (given: {', '.join(sorted(values)) or 'nothing'})"
            )
        try:
            return format(values[name], spec)
        except (TypeError, ValueError) as err:
            raise ValueError(
                f"values[{name!r}] must format with {spec!r} in {where}; got {values[name]!r:.80} ({err})"
            ) from None

    return _PLACEHOLDER.sub(one, text)


def _spec_path(notebook: str) -> Path:
    """``notebooks/claims/<notebook>.yaml`` of a stem its caller checked (:func:`~ldp_tools.pipeline.paths.check_notebook_stem`)."""
    return CLAIMS_DIR / f"{notebook}.yaml"


def _load_claim_texts(notebook: str) -> dict[str, ClaimText] | None:
    """The entries of ``notebooks/claims/<notebook>.yaml`` in file order, or None if there is no file."""
    path = _spec_path(notebook)
    return _parse_claim_texts(path) if path.exists() else None


def _finite_number(value) -> bool:
    """A finite int or float, not a bool (YAML reads ``true`` as one)."""
    return not isinstance(value, bool) and isinstance(value, Real) and math.isfinite(value)


def _parse_claim_texts(path) -> dict[str, ClaimText]:
    """Read and check a claims file, all or nothing (ValueError naming the file and the entry)."""
    import yaml

    text = read_text_file("path", path, max_bytes=MAX_SPEC_BYTES)  # a regular file, UTF-8
    path = Path(path)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ValueError(f"{path}: not a valid UTF-8 YAML file ({err})") from None
    if not isinstance(data, dict) or not data:
        raise ValueError(f"{path}: must be a non-empty mapping of claim name -> entry")
    texts, ids = {}, set()
    for key, entry in data.items():
        where = f"{path}: claim {key!r}"
        if not isinstance(key, str) or not _KEY.match(key):
            raise ValueError(
                f"{where}: a claim name is lower-case letters, digits, '_' and '.', starting with a letter"
            )
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: must be a mapping of {', '.join(FIELDS)}")
        unknown = sorted(set(map(str, entry)) - set(FIELDS))
        missing = [f for f in REQUIRED if f not in entry]
        if unknown or missing:
            raise ValueError(
                f"{where}: unknown fields {unknown} / missing fields {missing} (fields: {', '.join(FIELDS)})"
            )
        for field in _TEXT:
            if field in entry and not (isinstance(entry[field], str) and entry[field].strip()):
                raise ValueError(
                    f"{where}: {field} must be non-empty text; got {entry[field]!r:.80}"
                )
        paper = entry["paper"]
        if not (isinstance(paper, str) or _finite_number(paper)):
            raise ValueError(f"{where}: paper must be text or a finite number; got {paper!r:.80}")
        for field in ("atol", "rtol"):
            v = entry.get(field)
            if v is not None and not (_finite_number(v) and v >= 0):
                raise ValueError(
                    f"{where}: {field} must be a finite number >= 0 (YAML needs 5.0e-4, not 5e-4); got {v!r:.80}"
                )
        if not _ID.match(entry["id"]) or entry["id"] in ids:
            raise ValueError(f"{where}: id must be unique and look like NN-xx; got {entry['id']!r}")
        if entry.get("severity") and entry["severity"] not in SEVERITIES:
            raise ValueError(
                f"{where}: severity must be one of {SEVERITIES}; got {entry['severity']!r}"
            )
        if entry.get("depends_on") and entry["depends_on"] not in ids:
            raise ValueError(
                f"{where}: depends_on={entry['depends_on']!r} names no earlier entry's id"
            )
        ids.add(entry["id"])
        texts[key] = ClaimText(key=key, **entry)
    return texts
