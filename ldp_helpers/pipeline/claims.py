"""Claims tables: "the paper says X, we compute Y, verdict" — computed, never typed.

Each notebook builds one :class:`ClaimsTable`, prints it at the end and, under the paper
profile, writes it to ``figures/<notebook>/claims.csv`` with the columns :data:`COLUMNS`.

Every row records its **deciding comparison** (:class:`Decision`): the value, the reference, the
tolerance and the verdict each outcome gives, so that a test can re-decide it with the value moved
beyond the tolerance and check that the verdict flips.  A row decided otherwise (by reading the
text, comparing two strings) records *how* (``Decision.text``).  ``depends_on`` names the row a
claim is a consequence of; a consequence is not counted as an independent error.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, replace
from numbers import Real
from pathlib import Path

import numpy as np

from ldp_helpers._validation import check_bool, check_real
from ldp_helpers.pipeline import paths
from ldp_helpers.pipeline.decisions import (OPS, SEVERITIES, VERDICTS, Decision, by_text, close, far, ge, gt, le,  # noqa: F401
                                           lt)

COLUMNS = ("id", "claim", "source", "paper_value", "our_value", "verdict", "severity", "tolerance", "depends_on", "decision")
MAX_CSV_BYTES = 1_000_000  # a claims.csv is a few kB; anything longer is refused unread


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

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}; got {self.verdict!r}")
        if not self.id or not self.claim or not self.source:
            raise ValueError("id, claim and source must be non-empty text")
        if (self.verdict == "paper error") != bool(self.severity):
            raise ValueError(f"{self.id}: a severity is given iff the verdict is 'paper error' (got {self.verdict!r}, {self.severity!r})")
        if self.severity and self.severity not in SEVERITIES:
            raise ValueError(f"{self.id}: severity must be one of {SEVERITIES}; got {self.severity!r}")
        d = Decision.parse(self.decision)
        if d.verdict != self.verdict and not (d.op == "text"):
            raise ValueError(f"{self.id}: verdict {self.verdict!r} is not what its decision gives ({d.verdict!r})")
        if d.op in ("close", "far") and not self.tolerance:
            raise ValueError(f"{self.id}: a numeric comparison states its tolerance")

    @property
    def independent_error(self) -> bool:
        return self.verdict == "paper error" and not self.depends_on

    def summary(self) -> str:
        """One labelled line: id, verdict, the claim, the paper's value and ours (with the tolerance)."""
        verdict = f"{self.verdict} ({self.severity})" if self.severity else self.verdict
        tolerance = f" [{self.tolerance}]" if self.tolerance else ""
        return f"claim {self.id} — {verdict}: {self.claim} — paper: {self.paper_value}; ours: {self.our_value}{tolerance}"

    def _ipython_display_(self) -> None:
        """A cell ending in a claim shows its one-row table (and the summary line as text), never the dataclass repr."""
        from IPython.display import display

        display({"text/plain": self.summary(), "text/markdown": markdown_table([self])}, raw=True)


def _tolerance(rtol, atol, paper_value) -> float:
    """``atol + rtol·|paper_value|``, each tolerance a finite number ≥ 0 (named when it is not)."""
    rtol, atol = (check_real(n, v, low=0.0, low_open=False) for n, v in (("rtol", rtol), ("atol", atol)))
    return atol + rtol * abs(float(paper_value))


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
        self.decisions: list[Decision] = []

    def _add(self, claim, source, paper_value, our_value, decision: Decision, *, id=None, severity="", tolerance="",
             depends_on="") -> Claim:
        rid = str(id) if id is not None else f"{self.notebook[:2]}-{len(self.rows) + 1:02d}"
        if any(r.id == rid for r in self.rows):
            raise ValueError(f"duplicate claim id {rid!r}")
        if depends_on and not any(r.id == depends_on for r in self.rows):
            raise ValueError(f"depends_on={depends_on!r} names no earlier row")
        verdict = decision.verdict
        if decision.op in ("close", "far") and not tolerance:
            tolerance = "exact" if decision.tol == 0 else f"±{format_value(decision.tol)}"
        if decision.op in ("le", "lt", "ge", "gt") and not tolerance:
            tolerance = f"bound {format_value(decision.reference)}"
        row = Claim(rid, str(claim), str(source), format_value(paper_value), format_value(our_value), verdict,
                    severity if verdict == "paper error" else "", tolerance, depends_on, str(decision))
        self.rows.append(row)
        self.decisions.append(decision)
        return row

    @staticmethod
    def _tol_text(tol, se, k):
        if se is None:
            return ""
        return f"±{format_value(tol)} ({format_value(k)} SE; SE = {format_value(se)})"

    def check(self, claim, source, paper_value, our_value, *, rtol=0.0, atol=0.0, se=None, id=None, tolerance="",
              depends_on="") -> Claim:
        """A numeric claim: reproduced iff ``|ours − paper| ≤ atol + rtol·|paper|``.

        ``se`` is the Monte-Carlo standard error of ``our_value`` when it is simulated: it is
        recorded in the tolerance column (next to an explicit ``tolerance`` text, or as the
        tolerance's number of SEs), and a tolerance below 2 SE is refused — the verdict would be
        decided by the simulation's noise.
        """
        tol = _tolerance(rtol, atol, paper_value)
        if se is not None:
            if not (isinstance(se, Real) and math.isfinite(se) and se >= 0):
                raise ValueError(f"se={se!r}: a standard error must be a finite number ≥ 0")
            if tol < 2 * se:
                raise ValueError(f"tolerance {tol:g} is below 2 SE (se={se:g}) for {claim!r}: the verdict would be noise; "
                                 "widen it or run more draws")
        if tolerance and se is not None:
            tolerance = f"{tolerance}; MC SE = {format_value(se)}"
        tolerance = tolerance or self._tol_text(tol, se, tol / se if se else 0)
        return self._add(claim, source, paper_value, our_value, close(our_value, paper_value, tol), id=id,
                         tolerance=tolerance, depends_on=depends_on)

    def check_statement(self, claim, source, paper_says, decision: Decision, our_finding, *, id=None, tolerance="",
                        depends_on="") -> Claim:
        """A qualitative claim decided by ``decision`` (:func:`lt`, :func:`close`, … or :func:`by_text`)."""
        decision = _as_decision(decision, "reproduced", "differs")
        return self._add(claim, source, paper_says, our_finding, decision, id=id, tolerance=tolerance, depends_on=depends_on)

    def erratum(self, claim, source, paper_value, our_value, *, severity, rtol=0.0, atol=0.0, id=None, tolerance="",
                depends_on="") -> Claim:
        """A value the paper prints wrongly: paper error iff ``|ours − paper| > atol + rtol·|paper|`` (else reproduced).

        Text values are compared as strings (``Decision.text``); equal text raises ValueError.
        """
        if isinstance(paper_value, Real) and isinstance(our_value, Real):
            tol = _tolerance(rtol, atol, paper_value)
            d = Decision("far", our_value, paper_value, tol, "paper error", "reproduced")
        elif format_value(paper_value) == format_value(our_value):
            raise ValueError(f"not an erratum: paper value {paper_value!r} equals ours")
        else:
            d = Decision("text", how="the printed text differs from the computed one", if_true="paper error", if_false="paper error")
        return self._add(claim, source, paper_value, our_value, d, id=id, severity=severity, tolerance=tolerance,
                         depends_on=depends_on)

    def erratum_if(self, decision: Decision, claim, source, paper_value, our_value, *, severity, id=None, tolerance="",
                   depends_on="") -> Claim:
        """A suspected erratum: ``paper error`` iff ``decision`` holds, else reproduced."""
        d = _as_decision(decision, "paper error", "reproduced")
        return self._add(claim, source, paper_value, our_value, d, id=id, severity=severity, tolerance=tolerance,
                         depends_on=depends_on)

    def ambiguous_if(self, decision: Decision, claim, source, paper_value, our_value, *, id=None, tolerance="",
                     depends_on="") -> Claim:
        """Garbled or underspecified text: ``ambiguous`` iff the readings' results differ (``decision`` holds)."""
        d = _as_decision(decision, "ambiguous", "reproduced")
        return self._add(claim, source, paper_value, our_value, d, id=id, tolerance=tolerance, depends_on=depends_on)

    def counts(self) -> dict[str, int]:
        """Number of claims per verdict."""
        return {v: sum(r.verdict == v for r in self.rows) for v in VERDICTS}

    def severity_counts(self) -> dict[str, int]:
        """Independent paper errors (``depends_on`` empty) per severity."""
        return {s: sum(r.independent_error and r.severity == s for r in self.rows) for s in SEVERITIES}

    def to_csv(self) -> str:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(COLUMNS)
        for r in self.rows:
            writer.writerow([getattr(r, c) for c in COLUMNS])
        return buf.getvalue()

    def write_csv(self, *, write: bool = True) -> Path:
        """Write ``figures/<notebook>/claims.csv`` (only when ``write``); return its path."""
        check_bool("write", write)
        if not self.rows:
            raise ValueError("the claims table is empty")
        path = paths.FIGURES_DIR / self.notebook / "claims.csv"
        if write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(self.to_csv(), encoding="utf-8")
        return path

    def _summary(self) -> str:
        summary = ", ".join(f"{n} {v}" for v, n in self.counts().items())
        sev = ", ".join(f"{n} {s}" for s, n in self.severity_counts().items())
        return f"{len(self.rows)} claims: {summary}; independent paper errors by severity: {sev}"

    def __str__(self) -> str:
        header = ("id", "claim", "source", "paper", "ours", "verdict", "severity", "tolerance", "depends on")
        body = [(r.id, r.claim, r.source, r.paper_value, r.our_value, r.verdict, r.severity, r.tolerance, r.depends_on) for r in self.rows]
        widths = [max(len(row[j]) for row in [header, *body]) for j in range(len(header))]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [header, *body]]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines) + "\n\n" + self._summary()

    def __repr__(self) -> str:
        """One line: the notebook and the counts (the table itself is ``str()`` or the Markdown display)."""
        return f"<ClaimsTable {self.notebook}: {self._summary()}>"

    def _repr_markdown_(self) -> str:
        return markdown_table(self.rows) + "\n\n" + self._summary()


def markdown_table(rows) -> str:
    """Claims as a Markdown table (verdicts other than reproduced in bold)."""
    lines = ["| id | claim | source | paper | ours | verdict | severity | tolerance | depends on |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        cells = [r.id, r.claim, r.source, r.paper_value, r.our_value, r.verdict if r.verdict == "reproduced" else f"**{r.verdict}**",
                 r.severity, r.tolerance, r.depends_on]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def _as_decision(decision, if_true, if_false) -> Decision:
    if not isinstance(decision, Decision):
        raise TypeError(f"decision must be a Decision (lt(a, b), close(x, r, tol), by_text('how'), …); got {type(decision).__name__}")
    if decision.op == "text":
        return replace(decision, if_true=if_true, if_false=if_true)
    return replace(decision, if_true=if_true, if_false=if_false)


def read_claims_csv(path) -> list[Claim]:
    """Read a ``claims.csv`` written by :meth:`ClaimsTable.write_csv`, all or nothing.

    Refused (ValueError naming the file and line): a file over :data:`MAX_CSV_BYTES` (not read
    past that), a wrong header, a row with the wrong number of fields, a truncated last line, an
    unterminated quote, an invalid row (verdict, severity, decision), a duplicate id or a
    ``depends_on`` naming no row.
    """
    path = Path(path)
    with path.open("rb") as fh:
        raw = fh.read(MAX_CSV_BYTES + 1)
    if len(raw) > MAX_CSV_BYTES:
        raise ValueError(f"{path}: longer than {MAX_CSV_BYTES} bytes; refused")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 ({err})") from None
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
