"""One claims row, its text forms (CSV, Markdown) and the all-or-nothing CSV reader.

A row records its **deciding comparison** (:class:`~ldp_tools.pipeline.decisions.Decision`) in the
``decision`` column, so a test can re-decide it; ``depends_on`` names the row it is a consequence of;
``stability`` says whether the verdict survives a reseed (:data:`STABILITY_FORMS`; written by
``reproduce``, empty in a notebook's own table).
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass
from numbers import Real
from pathlib import Path

import numpy as np

from ldp_helpers._files import read_text_file
from ldp_helpers._validation import fail_type
from ldp_tools.pipeline.decisions import SEVERITIES, VERDICTS, Decision

COLUMNS = tuple(
    "id claim source paper_value our_value verdict severity tolerance depends_on decision stability".split()
)
#: the columns a rendered table shows, and their headers
SHOWN = COLUMNS[:9]
HEADERS = (*COLUMNS[:3], "paper", "ours", *COLUMNS[5:8], "depends on")
MAX_CSV_BYTES = 1_000_000  # a claims.csv is a few kB; anything longer is refused unread
#: the ``stability`` column (``reproduce`` re-runs a notebook under other seeds): the decision identical under every
#: seed; its value moved but not its verdict (N counts every seed, the published one too); or the verdict flipped
STABILITY_FORMS = (
    "deterministic",
    "stable over N seeds",
    "fragile: <verdict> under seed S[, S2][; <verdict> under seed ...]",
)
_VERDICT = "|".join(map(re.escape, VERDICTS))
_FRAGILE_PART = rf"(?:{_VERDICT}) under seed -?\d+(?:, -?\d+)*"
_STABILITY = re.compile(
    rf"^(?:|deterministic|stable over [1-9]\d* seeds|fragile: {_FRAGILE_PART}(?:; {_FRAGILE_PART})*)$"
)


def _format_value(value) -> str:
    """Numbers as plain decimals (6 significant digits, no exponent); text unchanged."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, Real):
        x = float(value)
        if math.isnan(x):
            raise ValueError("a claim value must not be NaN")
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        if float(x).is_integer() and abs(x) < 1e15:
            return str(int(x))
        return np.format_float_positional(x, precision=6, unique=True, fractional=False, trim="-")
    if isinstance(value, str):
        return value
    raise ValueError(f"a claim value must be a number, bool or str; got {type(value).__name__}")


@dataclass(frozen=True)
class Claim:
    """One row of a claims table (values already formatted as text)."""

    id: str
    claim: str
    source: str
    paper_value: str
    our_value: str
    verdict: str
    severity: str = ""
    tolerance: str = ""
    depends_on: str = ""
    decision: str = ""
    stability: str = ""

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}; got {self.verdict!r}")
        if not self.id or not self.claim or not self.source:
            raise ValueError("id, claim and source must be non-empty text")
        if (self.verdict == "paper error") != bool(self.severity):
            raise ValueError(
                f"{self.id}: a severity is given iff the verdict is 'paper error' (got {self.verdict!r}, {self.severity!r})"
            )
        if self.severity and self.severity not in SEVERITIES:
            raise ValueError(
                f"{self.id}: severity must be one of {SEVERITIES}; got {self.severity!r}"
            )
        d = Decision.parse(self.decision)
        if d.verdict != self.verdict and not (d.op == "text"):
            raise ValueError(
                f"{self.id}: verdict {self.verdict!r} is not what its decision gives ({d.verdict!r})"
            )
        if d.op in ("close", "far") and not self.tolerance:
            raise ValueError(f"{self.id}: a numeric comparison states its tolerance")
        if not isinstance(self.stability, str) or not _STABILITY.match(self.stability):
            raise ValueError(
                f"{self.id}: stability must be empty or one of {STABILITY_FORMS}; got {self.stability!r:.80}"
            )
        if self.verdict in self.stability:
            raise ValueError(
                f"{self.id}: a fragile row names the other verdicts it takes, not its own ({self.verdict!r})"
            )

    @property
    def fragile(self) -> bool:
        """The verdict flips under another seed (``stability`` starts with ``fragile``)."""
        return self.stability.startswith("fragile")

    @property
    def seed_dependent(self) -> bool:
        """The decision's value moves with the seed (stable or fragile; empty stability: not known)."""
        return self.stability not in ("", "deterministic")

    @property
    def independent_error(self) -> bool:
        return self.verdict == "paper error" and not self.depends_on

    def summary(self) -> str:
        """One labelled line: id, verdict, the claim, the paper's value and ours (with the tolerance)."""
        verdict = f"{self.verdict} ({self.severity})" if self.severity else self.verdict
        tolerance = f" [{self.tolerance}]" if self.tolerance else ""
        stability = f" ({self.stability})" if self.stability else ""
        return (
            f"claim {self.id} — {verdict}: {self.claim} — paper: {self.paper_value}; ours: {self.our_value}{tolerance}"
            f"{stability}"
        )

    def _ipython_display_(self) -> None:
        """A cell ending in a claim shows its one-row table (and the summary line as text), never the dataclass repr."""
        from IPython.display import display

        display({"text/plain": self.summary(), "text/markdown": _markdown_table([self])}, raw=True)


def _stability_mark(stability: str) -> str:
    """The compact form of a ``stability`` cell for rendered tables: ``det.``, ``stable ×N``, ``**fragile**: …``."""
    if not isinstance(stability, str) or not _STABILITY.match(stability):
        raise ValueError(
            f"stability must be empty or one of {STABILITY_FORMS}; got {stability!r:.80}"
        )
    if stability.startswith("stable over "):
        return f"stable ×{stability.split()[2]}"
    if stability.startswith("fragile: "):
        return "**fragile**: " + stability[len("fragile: ") :].replace(" under seed ", " @ ")
    return {"deterministic": "det.", "": ""}[stability]


def _markdown_table(rows) -> str:
    """Claims as a Markdown table (verdicts other than reproduced in bold); a ``stability`` column when the rows have one."""
    rows = list(rows)
    with_stability = any(r.stability for r in rows)
    head = "| " + " | ".join(HEADERS + ("stability",) * with_stability) + " |"
    lines = [head, "|---" * head.count(" |") + "|"]
    for r in rows:
        verdict = r.verdict if r.verdict == "reproduced" else f"**{r.verdict}**"
        cells = [verdict if column == "verdict" else getattr(r, column) for column in SHOWN]
        cells += [_stability_mark(r.stability)] * with_stability
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def claims_csv(rows) -> str:
    """The text of a ``claims.csv``: the header :data:`COLUMNS`, then one line per :class:`Claim`."""
    if not isinstance(rows, (list, tuple)) or not all(isinstance(r, Claim) for r in rows):
        fail_type("rows", rows, "a list of Claim rows")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows([getattr(r, c) for c in COLUMNS] for r in rows)
    return buf.getvalue()


def _read_claims_csv(path) -> list[Claim]:
    """Read a ``claims.csv`` written by :meth:`ClaimsTable.write_csv`, all or nothing.

    Refused (ValueError naming the file and line): a file over :data:`MAX_CSV_BYTES` (unread), not
    UTF-8, a wrong header, a row with the wrong number of fields, a truncated last line, an
    unterminated quote, an invalid row (verdict, severity, decision), a duplicate id or a
    ``depends_on`` naming no row.
    """
    text = read_text_file("path", path, max_bytes=MAX_CSV_BYTES)  # a regular file, UTF-8
    path = Path(path)
    if not text.endswith("\n"):
        raise ValueError(f"{path}:{text.count(chr(10)) + 1}: truncated (no final newline)")
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows, ids = [], set()
    try:
        header = next(reader, None)
        if header is None or tuple(header) != COLUMNS:
            raise ValueError(f"{path}:1: the header must be {','.join(COLUMNS)}; got {header!r}")
        for row in reader:
            where = f"{path}:{reader.line_num}"
            if len(row) != len(COLUMNS):
                raise ValueError(f"{where}: expected {len(COLUMNS)} fields, got {len(row)}")
            try:
                claim = Claim(*row)
            except ValueError as err:
                raise ValueError(f"{where}: {err}") from None
            if claim.id in ids:
                raise ValueError(f"{where}: duplicate id {claim.id!r}")
            if claim.depends_on and claim.depends_on not in ids:
                raise ValueError(f"{where}: depends_on={claim.depends_on!r} names no earlier row")
            ids.add(claim.id)
            rows.append(claim)
    except csv.Error as err:
        raise ValueError(f"{path}:{reader.line_num}: malformed CSV ({err})") from None
    return rows
