"""Claims tables: "the paper says X, we compute Y, verdict" — computed, never typed.

Each notebook builds one :class:`ClaimsTable`, prints it at the end and, under the paper
profile, writes it to ``figures/<notebook>/claims.csv`` with the columns
``claim, source, paper_value, our_value, verdict``.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from numbers import Real
from pathlib import Path

import numpy as np

from ldp_helpers.pipeline import paths

COLUMNS = ("claim", "source", "paper_value", "our_value", "verdict")
#: reproduced  – our computation agrees with the paper within the stated tolerance
#: differs     – our computation disagrees and we cannot tell which side is at fault
#: paper error – the paper is demonstrably wrong (arithmetic slip, inconsistency); the claim
#:               text gives the evidence
VERDICTS = ("reproduced", "differs", "paper error")


def format_value(value) -> str:
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

    claim: str
    source: str
    paper_value: str
    our_value: str
    verdict: str

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}; got {self.verdict!r}")
        if not self.claim or not self.source:
            raise ValueError("claim and source must be non-empty text")


class ClaimsTable:
    """The claims of one notebook.

    Examples
    --------
    >>> t = ClaimsTable("00_tutorial")
    >>> t.check("two-coin RR keeps the truth w.p.", "§RR", 0.75, 0.75).verdict
    'reproduced'
    """

    def __init__(self, notebook: str):
        self.notebook = paths.check_notebook_stem(notebook)
        self.rows: list[Claim] = []

    def _add(self, claim, source, paper_value, our_value, verdict) -> Claim:
        row = Claim(str(claim), str(source), format_value(paper_value), format_value(our_value), verdict)
        self.rows.append(row)
        return row

    def check(self, claim: str, source: str, paper_value, our_value, *, rtol: float = 0.0, atol: float = 0.0) -> Claim:
        """A numeric claim: reproduced iff ``|ours − paper| ≤ atol + rtol·|paper|``."""
        paper, ours = float(paper_value), float(our_value)
        if not (math.isfinite(paper) and math.isfinite(ours)):
            agree = paper == ours
        else:
            agree = abs(ours - paper) <= atol + rtol * abs(paper)
        return self._add(claim, source, paper_value, our_value, "reproduced" if agree else "differs")

    def check_statement(self, claim: str, source: str, paper_says: str, holds: bool, our_finding: str) -> Claim:
        """A qualitative claim: ``holds`` is the result of our computation."""
        return self._add(claim, source, paper_says, our_finding, "reproduced" if bool(holds) else "differs")

    def erratum(self, claim: str, source: str, paper_value, our_value, *, rtol: float = 0.0, atol: float = 0.0) -> Claim:
        """A value the paper prints wrongly; ``our_value`` is the corrected, computed value.

        Raises ValueError if the two agree within the tolerance (then it is no erratum).
        """
        if isinstance(paper_value, Real) and isinstance(our_value, Real):
            if abs(float(our_value) - float(paper_value)) <= atol + rtol * abs(float(paper_value)):
                raise ValueError(f"not an erratum: paper value {paper_value!r} agrees with ours {our_value!r}")
        elif format_value(paper_value) == format_value(our_value):
            raise ValueError(f"not an erratum: paper value {paper_value!r} equals ours")
        return self._add(claim, source, paper_value, our_value, "paper error")

    def erratum_if(self, paper_is_wrong: bool, claim: str, source: str, paper_value, our_value) -> Claim:
        """A suspected erratum decided by a computation: "paper error" iff ``paper_is_wrong``.

        Use it when the paper's value is text or a statement, so that :meth:`erratum`'s value
        comparison cannot decide: ``paper_is_wrong`` must be the result of the computation that
        ``our_value`` reports; if it turns out False the row reads "reproduced".
        """
        verdict = "paper error" if bool(paper_is_wrong) else "reproduced"
        return self._add(claim, source, paper_value, our_value, verdict)

    def counts(self) -> dict[str, int]:
        """Number of claims per verdict."""
        return {v: sum(r.verdict == v for r in self.rows) for v in VERDICTS}

    def to_csv(self) -> str:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(COLUMNS)
        for r in self.rows:
            writer.writerow([r.claim, r.source, r.paper_value, r.our_value, r.verdict])
        return buf.getvalue()

    def write_csv(self, *, write: bool = True) -> Path:
        """Write ``figures/<notebook>/claims.csv`` (only when ``write``); return its path."""
        if not self.rows:
            raise ValueError("the claims table is empty")
        path = paths.FIGURES_DIR / self.notebook / "claims.csv"
        if write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(self.to_csv(), encoding="utf-8")
        return path

    def __str__(self) -> str:
        header = ("#", "claim", "source", "paper", "ours", "verdict")
        body = [(str(i), r.claim, r.source, r.paper_value, r.our_value, r.verdict) for i, r in enumerate(self.rows, 1)]
        widths = [max(len(row[j]) for row in [header, *body]) for j in range(len(header))]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [header, *body]]
        lines.insert(1, "  ".join("-" * w for w in widths))
        summary = ", ".join(f"{n} {v}" for v, n in self.counts().items())
        return "\n".join(lines) + f"\n\n{len(self.rows)} claims: {summary}"


def read_claims_csv(path) -> list[Claim]:
    """Read a ``claims.csv`` written by :meth:`ClaimsTable.write_csv`, checking its columns."""
    path = Path(path)
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None or tuple(header) != COLUMNS:
            raise ValueError(f"{path}: the header must be {','.join(COLUMNS)}; got {header!r}")
        rows = []
        for line_no, row in enumerate(reader, start=2):
            if len(row) != len(COLUMNS):
                raise ValueError(f"{path}:{line_no}: expected {len(COLUMNS)} fields, got {len(row)}")
            rows.append(Claim(*row))
    return rows
