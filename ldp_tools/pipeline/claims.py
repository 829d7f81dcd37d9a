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

import math
from dataclasses import replace
from numbers import Real
from pathlib import Path

from ldp_helpers._validation import check_bool, check_real
from ldp_tools.pipeline import paths
from ldp_tools.pipeline.claim_rows import (
    COLUMNS,
    HEADERS,
    MAX_CSV_BYTES,
    SHOWN,
    Claim,
    _format_value,
    _markdown_table,
    _read_claims_csv,
    claims_csv,
)
from ldp_tools.pipeline.claim_texts import ClaimText, _load_claim_texts, _spec_path
from ldp_tools.pipeline.decisions import (
    OPS,
    SEVERITIES,
    VERDICTS,
    Decision,
    by_text,
    close,
    far,
    ge,
    gt,
    le,
    lt,
)


def _tolerance(rtol, atol, paper_value) -> float:
    """``atol + rtol·|paper_value|``, each tolerance a finite number ≥ 0 (named when it is not)."""
    rtol, atol = (
        check_real(n, v, low=0.0, low_open=False) for n, v in (("rtol", rtol), ("atol", atol))
    )
    return atol + rtol * abs(float(paper_value))


def _no_severity(kind: str, row: dict) -> None:
    """Refuse ``severity=`` on a row that cannot be a paper error (it would be dropped unseen)."""
    if "severity" in row:
        raise TypeError(f"severity= belongs to an erratum row; a {kind} row is never a paper error")


class ClaimsTable:
    """The claims of one notebook.

    Examples
    --------
    >>> t = ClaimsTable("00_tutorial", texts=None)  # the long form: the words in the call
    >>> t.check("two-coin RR keeps the truth w.p.", "§RR", 0.75, 0.75).verdict
    'reproduced'
    """

    def __init__(self, notebook: str, texts: dict | None | str = "file"):
        self.notebook = paths.check_notebook_stem(notebook)
        self.rows: list[Claim] = []
        self.decisions: list[Decision] = []
        #: the words of the rows: from ``notebooks/claims/<notebook>.yaml`` (``texts="file"``, when it exists), given
        #: (a dict of :class:`ClaimText`), or None: the long form, words in the calls
        if isinstance(texts, str) and texts != "file":
            raise ValueError(
                f"texts must be 'file', None or a dict of ClaimText; got {texts!r:.80}"
            )
        self.texts = _load_claim_texts(notebook) if texts == "file" else texts
        if self.texts is not None and not (
            isinstance(self.texts, dict)
            and all(isinstance(v, ClaimText) for v in self.texts.values())
        ):
            raise TypeError(
                f"texts must be 'file', None or a dict of ClaimText; got {type(self.texts).__name__}"
            )
        self._recorded: list[str] = []  # the claims file's name of each row (the short form)
        #: names of the claims file a claims-only run leaves out (cells tagged ``seed-free``,
        #: :mod:`~ldp_tools.pipeline._reseeds`): not counted as missing
        self.left_out: frozenset = frozenset()

    def _add(
        self,
        claim,
        source,
        paper_value,
        our_value,
        decision: Decision,
        *,
        id=None,
        severity="",
        tolerance="",
        depends_on="",
    ) -> Claim:
        """Record the row ``decision`` decides (the long forms' keywords ``row`` end here): its
        ``id`` (default NN-<row number>), ``severity`` (kept for a paper error), ``tolerance``
        (default: the decision's) and ``depends_on`` (an earlier row's id)."""
        rid = str(id) if id is not None else f"{self.notebook[:2]}-{len(self.rows) + 1:02d}"
        if any(r.id == rid for r in self.rows):
            raise ValueError(f"duplicate claim id {rid!r}")
        if depends_on and not any(r.id == depends_on for r in self.rows):
            raise ValueError(f"depends_on={depends_on!r} names no earlier row")
        verdict = decision.verdict
        if decision.op in ("close", "far") and not tolerance:
            tolerance = "exact" if decision.tol == 0 else f"±{_format_value(decision.tol)}"
        if decision.op in ("le", "lt", "ge", "gt") and not tolerance:
            tolerance = f"bound {_format_value(decision.reference)}"
        row = Claim(
            rid,
            str(claim),
            str(source),
            _format_value(paper_value),
            _format_value(our_value),
            verdict,
            severity if verdict == "paper error" else "",
            tolerance,
            depends_on,
            str(decision),
        )
        self.rows.append(row)
        self.decisions.append(decision)
        return row

    def _check_long(
        self, claim, source, paper_value, our_value, *, rtol=0.0, atol=0.0, se=None, **row
    ) -> Claim:
        """A numeric claim: reproduced iff ``|ours − paper| ≤ atol + rtol·|paper|``.

        ``se`` is the Monte-Carlo standard error of ``our_value`` when it is simulated: it is
        recorded in the tolerance column (next to an explicit ``tolerance`` text, or as the
        tolerance's number of SEs), and a tolerance below 2 SE is refused — the verdict would be
        decided by the simulation's noise.  ``row``: :meth:`_add`'s keywords but ``severity``.
        """
        _no_severity("check", row)
        tol = _tolerance(rtol, atol, paper_value)
        if se is not None:
            if not (isinstance(se, Real) and math.isfinite(se) and se >= 0):
                raise ValueError(f"se={se!r}: a standard error must be a finite number ≥ 0")
            if tol < 2 * se:
                raise ValueError(
                    f"tolerance {tol:g} is below 2 SE (se={se:g}) for {claim!r}: the verdict would be noise; "
                    "widen it or run more draws"
                )
            n_se, se_text = _format_value(tol / se if se else 0), _format_value(se)
            row["tolerance"] = (
                f"{row['tolerance']}; MC SE = {se_text}"
                if row.get("tolerance")
                else f"±{_format_value(tol)} ({n_se} SE; SE = {se_text})"
            )
        decision = close(our_value, paper_value, tol)
        return self._add(claim, source, paper_value, our_value, decision, **row)

    def _erratum_long(
        self, claim, source, paper_value, our_value, *, severity, rtol=0.0, atol=0.0, **row
    ) -> Claim:
        """A value the paper prints wrongly: paper error iff ``|ours − paper| > atol + rtol·|paper|`` (else reproduced).

        Text values are compared as strings (``Decision.text``); equal text raises ValueError.
        """
        if isinstance(paper_value, Real) and isinstance(our_value, Real):
            tol = _tolerance(rtol, atol, paper_value)
            d = Decision("far", our_value, paper_value, tol, "paper error", "reproduced")
        elif _format_value(paper_value) == _format_value(our_value):
            raise ValueError(f"not an erratum: paper value {paper_value!r} equals ours")
        else:
            d = Decision(
                "text",
                how="the printed text differs from the computed one",
                if_true="paper error",
                if_false="paper error",
            )
        return self._add(claim, source, paper_value, our_value, d, severity=severity, **row)

    def _decided(self, kind, decision, claim, source, paper_value, our_value, **row) -> Claim:
        """A row decided by ``decision``: its verdicts ``_OUTCOMES[kind]`` if it holds / fails."""
        if kind == "erratum_if" and "severity" not in row:
            raise TypeError(f"an erratum_if row states its severity ({', '.join(SEVERITIES)})")
        if kind != "erratum_if":
            _no_severity(kind, row)
        decision = _as_decision(decision, *_OUTCOMES[kind])
        return self._add(claim, source, paper_value, our_value, decision, **row)

    def _either(self, kind, *args, **kwargs) -> Claim:
        """The long form (words in the call) for a table without a claims file, else the short."""
        if self.texts is not None:
            return self._short(kind, *args, **kwargs)
        if kind in _OUTCOMES:
            return self._decided(kind, *args, **kwargs)
        return (self._check_long if kind == "check" else self._erratum_long)(*args, **kwargs)

    # -- the short form: words in notebooks/claims/<notebook>.yaml, one call beside the evidence --------------------

    def check(self, *args, **kwargs) -> Claim:
        """A number against the paper's: ``claims.check(name, ours, [atol=, rtol=, se=, paper=,] **values)``.

        Reproduced iff ``|ours − paper| ≤ atol + rtol·|paper|`` (atol, rtol and the paper's value from the
        entry unless given).  ``se`` is the Monte-Carlo standard error of ``ours`` when it is simulated: it
        is recorded in the tolerance column, and a tolerance below 2 SE is refused (the verdict would be
        noise).  ``values`` fill the entry's ``{{name}}`` placeholders.
        """
        return self._either("check", *args, **kwargs)

    def statement(self, name: str, decision: Decision, **values) -> Claim:
        """A statement of the paper decided by ``decision`` (:func:`lt`, :func:`close`, … or :func:`by_text`):
        reproduced if it holds, else differs.  Our finding is the entry's ``ours`` text."""
        return self._short("statement", name, decision, **values)

    def erratum(self, *args, **kwargs) -> Claim:
        """A value the paper prints wrongly: ``claims.erratum(name, ours, [atol=, rtol=, paper=,] **values)``;
        paper error iff ``|ours − paper| > atol + rtol·|paper|`` (text values: iff they differ; equal text is refused)."""
        return self._either("erratum", *args, **kwargs)

    def erratum_if(self, *args, **kwargs) -> Claim:
        """A suspected erratum: ``claims.erratum_if(name, decision, **values)``: paper error iff ``decision`` holds."""
        return self._either("erratum_if", *args, **kwargs)

    def ambiguous_if(self, *args, otherwise: str = "reproduced", **kwargs) -> Claim:
        """Garbled or underspecified text: ``claims.ambiguous_if(name, decision, **values)``: ambiguous iff the
        readings' results differ (``decision`` holds), else the readings' common verdict ``otherwise``:
        ``"reproduced"`` (each reading bears the paper out) or ``"differs"`` (none does)."""
        if otherwise not in ("reproduced", "differs"):
            raise ValueError(f"otherwise must be 'reproduced' or 'differs'; got {otherwise!r}")
        kind = "ambiguous_if" if otherwise == "reproduced" else "ambiguous_else_differs"
        return self._either(kind, *args, **kwargs)

    def check_statement(
        self, claim, source, paper_says, decision: Decision, our_finding, **row
    ) -> Claim:
        """The long form of :meth:`statement` (words in the call), for a table without a claims file."""
        if self.texts is not None:
            raise TypeError(
                f"{self.notebook} keeps its words in {_spec_path(self.notebook).name}: use claims.statement(name, decision)"
            )
        return self._decided("statement", decision, claim, source, paper_says, our_finding, **row)

    def _entry(self, name) -> ClaimText:
        if self.texts is None:
            raise ValueError(f"{self.notebook} has no claims file {_spec_path(self.notebook)}")
        if not isinstance(name, str) or name not in self.texts:
            raise ValueError(
                f"name must be a claim of {_spec_path(self.notebook).name}; got {name!r:.80} "
                f"(its claims: {', '.join(self.texts)})"
            )
        if name in self._recorded:
            raise ValueError(f"claim {name!r} is recorded twice")
        return self.texts[name]

    def _short(
        self, kind, name, evidence=None, *, paper=None, atol=None, rtol=None, se=None, **values
    ) -> Claim:
        entry = self._entry(name)
        if kind != "check" and se is not None:
            raise TypeError(f"se= belongs to a numeric check; claim {name!r} is {kind}")
        if kind in ("erratum", "erratum_if") and not entry.severity:
            raise ValueError(
                f"claim {name!r}: an erratum states its severity in its entry "
                f"({', '.join(SEVERITIES)})"
            )
        paper = entry.paper if paper is None else paper
        atol = (entry.atol or 0.0) if atol is None else atol
        rtol = (entry.rtol or 0.0) if rtol is None else rtol
        if kind in ("check", "erratum"):
            values = dict(ours=evidence, paper=paper, atol=atol, rtol=rtol, se=se) | values
        words = {
            field: entry.fill(field, values) for field in ("claim", "source", "ours", "tolerance")
        }
        paper = entry.fill("paper", values) if isinstance(paper, str) else paper
        claim, source = words["claim"], words["source"]
        common = dict(id=entry.id, tolerance=words["tolerance"])
        if kind in ("erratum", "erratum_if"):
            common["severity"] = entry.severity
        if kind == "check":
            if isinstance(paper, str):
                raise ValueError(
                    f"claim {name!r}: a numeric check needs a numeric paper value; got {paper!r}"
                )
            row = self._check_long(
                claim, source, paper, evidence, rtol=rtol, atol=atol, se=se, **common
            )
        elif kind == "erratum":
            ours = words["ours"] if evidence is None else evidence
            row = self._erratum_long(claim, source, paper, ours, rtol=rtol, atol=atol, **common)
        elif not entry.ours:
            raise ValueError(
                f"claim {name!r}: a {kind} row states our finding: add 'ours' to its entry"
            )
        else:
            row = self._decided(kind, evidence, claim, source, paper, words["ours"], **common)
        # the entry's depends_on was checked against the file; rows follow the file's order, not the calls'
        row = self.rows[-1] = replace(row, depends_on=entry.depends_on or "")
        self._recorded.append(name)
        order = list(self.texts)
        ranked = sorted(
            zip(self._recorded, self.rows, self.decisions, strict=True),
            key=lambda t: order.index(t[0]),
        )
        self._recorded, self.rows, self.decisions = map(list, zip(*ranked))
        return row

    def missing(self) -> list[str]:
        """The claims of the claims file not recorded yet (a finished notebook has none)."""
        return (
            []
            if self.texts is None
            else [k for k in self.texts if k not in self._recorded and k not in self.left_out]
        )

    def counts(self) -> dict[str, int]:
        """Number of claims per verdict."""
        return {v: sum(r.verdict == v for r in self.rows) for v in VERDICTS}

    def severity_counts(self) -> dict[str, int]:
        """Independent paper errors (``depends_on`` empty) per severity."""
        return {
            s: sum(r.independent_error and r.severity == s for r in self.rows) for s in SEVERITIES
        }

    def to_csv(self) -> str:
        """The rows as ``claims.csv`` text (``stability`` empty: ``reproduce`` fills it after its reseeded runs)."""
        return claims_csv(self.rows)

    def write_csv(self, *, write: bool = True) -> Path:
        """Write ``figures/<notebook>/claims.csv`` (only when ``write``); return its path."""
        check_bool("write", write)
        if not self.rows:
            raise ValueError("the claims table is empty")
        if self.missing():
            raise ValueError(
                f"{self.notebook}: claims of {_spec_path(self.notebook).name} never recorded: {', '.join(self.missing())}"
            )
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
        body = [tuple(getattr(r, column) for column in SHOWN) for r in self.rows]
        widths = [max(len(row[j]) for row in [HEADERS, *body]) for j in range(len(HEADERS))]
        lines = [
            "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
            for row in [HEADERS, *body]
        ]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines) + "\n\n" + self._summary()

    def __repr__(self) -> str:
        """One line: the notebook and the counts (the table itself is ``str()`` or the Markdown display)."""
        return f"<ClaimsTable {self.notebook}: {self._summary()}>"

    def _repr_markdown_(self) -> str:
        return _markdown_table(self.rows) + "\n\n" + self._summary()


#: the verdicts of a row decided by a comparison: if it holds, if it fails
_OUTCOMES = {
    "statement": ("reproduced", "differs"),
    "erratum_if": ("paper error", "reproduced"),
    "ambiguous_if": ("ambiguous", "reproduced"),
    "ambiguous_else_differs": ("ambiguous", "differs"),
}


def _as_decision(decision, if_true, if_false) -> Decision:
    if not isinstance(decision, Decision):
        raise TypeError(
            f"decision must be a Decision (lt(a, b), close(x, r, tol), by_text('how'), …); got {type(decision).__name__}"
        )
    if decision.op == "text":
        return replace(decision, if_true=if_true, if_false=if_true)
    return replace(decision, if_true=if_true, if_false=if_false)
