"""Claims tables: verdicts computed from recorded comparisons, CSV round trip and refusal, and the
rules over every committed ``figures/*/claims.csv`` (vocabulary, severity, tolerance, depends_on,
and no deciding condition that cannot come out the other way)."""

import math
from dataclasses import replace

import pytest

from ldp_tools.pipeline import claims as claims_mod
from ldp_tools.pipeline import paths, profiles
from ldp_tools.pipeline.claims import (
    COLUMNS,
    SEVERITIES,
    VERDICTS,
    ClaimsTable,
    Decision,
    _format_value,
    _read_claims_csv,
    by_text,
    close,
    gt,
    le,
    lt,
)

CSV_FILES = sorted(paths.FIGURES_DIR.glob("*/claims.csv"))


def _moved(d: Decision) -> Decision:
    """The same comparison with the value moved to the other side of the tolerance (or bound): the scan's
    primitive, to check that a recorded comparison can come out the other way."""
    if d.op == "text":
        raise ValueError("a text decision has no value to move")
    r, tiny = d.reference, 1e-9 * max(1.0, abs(d.reference), abs(d.value))
    if d.op in ("close", "far"):
        inside = abs(d.value - r) <= d.tol
        return replace(d, value=r + 2 * d.tol + tiny if inside else r)
    return replace(
        d,
        value=2 * r - d.value if d.value != r else r + (tiny if d.op in ("le", "gt") else -tiny),
    )


def test_numeric_verdicts_follow_the_tolerance():
    """Inside atol + rtol·|paper| is reproduced, outside differs; the tolerance is a column."""
    t = ClaimsTable("00_tutorial", texts=None)
    assert t.check("a", "§1", 2.615, 2.6150, atol=1e-3).verdict == "reproduced"
    assert t.check("b", "§1", 2.615, 2.7, atol=1e-3).verdict == "differs"
    row = t.check("c", "§1", 100, 101, rtol=0.02, se=0.5)
    assert row.verdict == "reproduced" and row.tolerance == "±2 (4 SE; SE = 0.5)"
    assert t.counts() == {"reproduced": 2, "differs": 1, "paper error": 0, "ambiguous": 0}


def test_statements_errata_and_ambiguity():
    """Statement verdicts come from the recorded comparison; errata carry a severity; ambiguity is its own verdict."""
    t = ClaimsTable("00_tutorial", texts=None)
    assert (
        t.check_statement("GRR wins", "§3", "GRR wins", lt(2.0, 1.0), "OUE wins").verdict
        == "differs"
    )
    root = t.erratum("p for GRR", "§2", 0.5, 0.7869, severity="typo", atol=1e-3)
    assert root.verdict == "paper error" and root.severity == "typo"
    dep = t.erratum_if(
        gt(3.0, 1.0), "consequence", "§2", "x", "y", severity="typo", depends_on=root.id
    )
    assert not dep.independent_error and t.severity_counts() == {
        "typo": 1,
        "inconsistency": 0,
        "wrong result": 0,
    }
    assert (
        t.ambiguous_if(gt(2.0, 0.1), "garbled constant", "§A", "e/2 or eps/2", "differ").verdict
        == "ambiguous"
    )
    # readings that agree give their common verdict: reproduced by default, differs when asked
    assert t.ambiguous_if(lt(2.0, 0.1), "agree", "§A", "x", "y").verdict == "reproduced"
    both_off = t.ambiguous_if(lt(2.0, 0.1), "agree, off", "§A", "x", "y", otherwise="differs")
    split = t.ambiguous_if(gt(2.0, 0.1), "split", "§A", "x", "y", otherwise="differs")
    assert (both_off.verdict, split.verdict) == ("differs", "ambiguous")
    with pytest.raises(ValueError, match="otherwise must be 'reproduced' or 'differs'"):
        t.ambiguous_if(gt(2.0, 0.1), "x", "§A", "x", "y", otherwise="paper error")
    assert t.erratum_if(le(3.0, 1.0), "not wrong", "§2", "a", "b", severity="typo").severity == ""
    with pytest.raises(ValueError, match="not an erratum"):
        t.erratum("same", "§2", "0.5", "0.5", severity="typo")
    with pytest.raises(ValueError, match="names no earlier row"):
        t.check("x", "§", 1, 1, depends_on="nope")
    for row in (  # a row that is never a paper error refuses a severity (it would vanish unseen)
        lambda: t.check("x", "§", 1, 1, severity="typo"),
        lambda: t.check_statement("s", "§", "x", lt(1.0, 2.0), "y", severity="typo"),
        lambda: t.ambiguous_if(gt(2.0, 0.1), "a", "§", "x", "y", severity="typo"),
    ):
        with pytest.raises(TypeError, match="severity= belongs to an erratum row"):
            row()
    with pytest.raises(TypeError, match="decision must be a Decision"):
        t.check_statement("bare bool", "§", "x", True, "y")
    with pytest.raises(ValueError, match="must say how"):
        by_text("")


def test_format_value_is_plain_decimal():
    """No exponents, at most 6 significant digits, integers without a decimal point."""
    assert _format_value(1e-7) == "0.0000001"
    assert _format_value(2.6149597) == "2.61496"
    assert _format_value(49742.0) == "49742"
    assert _format_value(True) == "true"
    assert _format_value(math.inf) == "inf"
    with pytest.raises(ValueError, match="NaN"):
        _format_value(math.nan)


@pytest.mark.parametrize(
    "d",
    [
        close(1.0, 1.05, 0.1),
        close(1.0, 2.0, 0.1),
        Decision("far", 0.737, 0.787, 5e-4, "paper error", "reproduced"),
        le(0.2, 0.2),
        lt(0.2, 0.2),
        gt(-1.0, 0.0),
        Decision("ge", 3.0, 3.0),
    ],
)
def test_moving_the_value_flips_every_comparison(d):
    """The scan's primitive: the value moved beyond the tolerance gives the other verdict."""
    assert _moved(d).holds != d.holds and Decision.parse(str(d)) == d


def test_csv_round_trip(tmp_path, monkeypatch):
    """write_csv writes the columns; _read_claims_csv reads back the same rows."""
    monkeypatch.setattr(paths, "FIGURES_DIR", tmp_path)
    t = ClaimsTable("00_tutorial", texts=None)
    t.check("x, with a comma", "Eq. (1)", 0.574, 0.57418, atol=1e-3)
    t.erratum("a slip", "§2", 0.737, 0.787, severity="typo", atol=5e-4, id="slip")
    t.check_statement(
        "by reading", "§3", "y", by_text("the Japanese text says y"), "y", depends_on="slip"
    )
    path = t.write_csv()
    assert path == tmp_path / "00_tutorial" / "claims.csv"
    assert path.read_text().splitlines()[0] == ",".join(COLUMNS)
    assert _read_claims_csv(path) == t.rows


def test_write_false_and_empty(tmp_path, monkeypatch):
    """Nothing is written unless asked; an empty table is an error."""
    monkeypatch.setattr(paths, "FIGURES_DIR", tmp_path)
    t = ClaimsTable("00_tutorial", texts=None)
    with pytest.raises(ValueError, match="empty"):
        t.write_csv()
    t.check("a", "b", 1, 1)
    assert not t.write_csv(write=False).exists()


def _good_csv(tmp_path, monkeypatch) -> str:
    monkeypatch.setattr(paths, "FIGURES_DIR", tmp_path)
    t = ClaimsTable("00_tutorial", texts=None)
    t.check("a", "§1", 1, 1)
    t.erratum("b", "§2", 0.737, 0.787, severity="typo", atol=5e-4)
    return t.to_csv()


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda s: "claim,source\nx,y\n", ":1: the header"),
        (lambda s: s + "x,y,1\n", ":4: expected 11 fields"),
        (lambda s: s[:-1], ":3: truncated"),
        (lambda s: s[: len(s) // 2 + 3] + "\n", r":\d+: "),
        (lambda s: s + '00-09,"unterminated,x\n', r":\d+: malformed CSV|:\d+: expected"),
        (lambda s: s.replace(",typo,", ",,"), ":3: 00-02: a severity is given iff"),
        (lambda s: s.replace("reproduced", "maybe", 1), ":2: verdict must be one of"),
        (lambda s: s + s.splitlines()[1] + "\n", ":4: duplicate id"),
        (
            lambda s: s.replace(' | differs",\n', ' | differs",stable-ish\n', 1),
            ":2: 00-01: stability must be",
        ),
        (
            lambda s: s.replace(
                ' | differs",\n', ' | differs",fragile: reproduced under seed 1\n', 1
            ),
            ":2: 00-01: a fragile row names",
        ),
    ],
)
def test_garbled_or_truncated_csv_is_refused_with_its_line(tmp_path, monkeypatch, mutate, match):
    """Never half-read: the whole file is refused with file:line."""
    bad = tmp_path / "claims.csv"
    bad.write_text(mutate(_good_csv(tmp_path, monkeypatch)), encoding="utf-8")
    with pytest.raises(ValueError, match=match) as info:
        _read_claims_csv(bad)
    assert str(bad) in str(info.value)


def test_overlong_csv_is_refused_unread(tmp_path, monkeypatch):
    """A file over MAX_CSV_BYTES is refused by its size, naming the file."""
    from ldp_tools.pipeline import claim_rows

    monkeypatch.setattr(claim_rows, "MAX_CSV_BYTES", 100)
    bad = tmp_path / "claims.csv"
    bad.write_text(",".join(COLUMNS) + "\n" + "x" * 500 + "\n")
    with pytest.raises(ValueError, match=r"at most 100 B \(this one has 596 B\)") as info:
        _read_claims_csv(bad)
    assert str(bad) in str(info.value)


def test_unknown_notebook_and_verdict():
    """Tables belong to existing notebooks; verdicts come from a fixed vocabulary."""
    with pytest.raises(ValueError, match="unknown notebook"):
        ClaimsTable("07_missing", texts=None)
    with pytest.raises(ValueError, match="verdict must be one of"):
        claims_mod.Claim("x", "c", "s", "1", "1", "maybe", decision=str(close(1, 1, 0)))


# ---------------------------------------------------------------- the rules over every committed claims.csv
def test_there_are_claims_files():
    assert len(CSV_FILES) >= 5


@pytest.mark.parametrize("path", CSV_FILES, ids=lambda p: p.parent.name)
def test_committed_claims_follow_the_rules(path):
    """Vocabulary, severity iff paper error, tolerance for numeric comparisons, depends_on resolves,
    and every deciding comparison re-decides to the stored verdict and flips when its value moves."""
    rows = _read_claims_csv(
        path
    )  # vocabulary, severity, tolerance, ids and depends_on are checked here
    ids = {r.id for r in rows}
    for r in rows:
        assert r.verdict in VERDICTS and (r.severity in SEVERITIES) == (r.verdict == "paper error")
        assert not r.depends_on or r.depends_on in ids
        d = Decision.parse(r.decision)
        if d.op == "text":
            assert len(d.how) >= 10, f"{r.id}: decided otherwise but does not say how"
            continue
        assert r.tolerance, f"{r.id}: numeric comparison without a stated tolerance"
        assert d.verdict == r.verdict, f"{r.id}: stored verdict is not what its comparison gives"
        assert d.if_true != d.if_false, (
            f"{r.id}: both outcomes give the same verdict (a constant condition)"
        )
        assert _moved(d).verdict != r.verdict, (
            f"{r.id}: the verdict does not flip when the value moves"
        )
        if d.op == "close" and d.reference != 0:
            assert d.tol < abs(d.reference), (
                f"{r.id}: tolerance {d.tol} ≥ |reference| {abs(d.reference)}: a zero result would pass"
            )


@pytest.mark.parametrize("path", CSV_FILES, ids=lambda p: p.parent.name)
def test_committed_claims_carry_their_stability(path):
    """Every committed row says whether its verdict survives the robustness seeds (make figures writes it); a row decided
    by the text cannot flip; a simulated row (its tolerance quotes a standard error) moves with the seed."""
    seeds = len(profiles.robustness_seeds("paper"))
    assert seeds >= 3, (
        "the paper profile re-decides every Monte-Carlo claim under at least three other seeds"
    )
    for r in _read_claims_csv(path):
        assert r.stability, f"{r.id}: no stability (run the paper profile: make figures)"
        assert (
            not r.stability.startswith("stable over")
            or r.stability == f"stable over {seeds + 1} seeds"
        ), r.id
        if Decision.parse(r.decision).op == "text":
            assert not r.fragile, (
                f"{r.id}: decided by the text, yet its verdict moved with the seed"
            )
        if "MC SE" in r.tolerance or "SE = " in r.tolerance:
            assert r.seed_dependent, (
                f"{r.id}: a simulated value (tolerance {r.tolerance!r}) that never moved with the seed"
            )


def test_stability_labels():
    """deterministic: the same decision under every seed; stable: the value moves, not the verdict; fragile: names the
    other verdicts and their seeds."""
    from ldp_tools.pipeline.stability import _stability_counts, _stability_label, _with_stability

    base = ClaimsTable("00_tutorial", texts=None).check("x", "§1", 1.0, 1.0, atol=0.1)

    def moved(v):
        return replace(
            base,
            decision=str(close(v, 1.0, 0.1)),
            verdict="reproduced" if abs(v - 1) <= 0.1 else "differs",
        )

    assert _stability_label(base, {1: base, 2: base}) == "deterministic"
    assert (
        _stability_label(base, {1: moved(1.05), 2: base, 3: moved(0.99)}) == "stable over 4 seeds"
    )
    assert (
        _stability_label(base, {7: moved(1.2), 2: moved(1.05), 3: moved(0.7)})
        == "fragile: differs under seed 3, 7"
    )
    rows = _with_stability([base], {1: [moved(1.05)]})
    assert rows[0].stability == "stable over 2 seeds" and _stability_counts(rows)["stable"] == 1
    assert read_claims_csv_text(claims_mod.claims_csv(rows)) == rows
    with pytest.raises(ValueError, match=r"reseeded\[1\] must list the same claims"):
        _with_stability([base], {1: [replace(base, id="00-02")]})


def read_claims_csv_text(text):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "claims.csv"
        path.write_text(text, encoding="utf-8")
        return _read_claims_csv(path)


@pytest.mark.parametrize("path", CSV_FILES, ids=lambda p: p.parent.name)
def test_paper_errors_are_not_conversion_artefacts(path):
    """A row that calls something a conversion artefact or garbled is never a paper error."""
    for r in _read_claims_csv(path):
        if r.verdict == "paper error":
            text = (r.claim + " " + r.our_value).lower()
            assert "artefact" not in text and "garbled" not in text, r.id


def test_every_table_row_records_a_decision_that_flips():
    """Over ClaimsTable: each row keeps its Decision; re-deciding gives the row's verdict, and the moved value the other one."""
    t = ClaimsTable("00_tutorial", texts=None)
    t.check("a", "§1", 0.75, 0.7504, atol=0.004, se=0.001)
    t.erratum("b", "§2", 0.737, 0.787, severity="typo", atol=5e-4)
    t.check_statement("c", "§3", "x", gt(0.3, 0.2), "y")
    t.ambiguous_if(gt(2.0, 1.0), "d", "§4", "x", "y")
    assert len(t.decisions) == len(t.rows)
    for row, d in zip(t.rows, t.decisions):
        assert d.verdict == row.verdict and Decision.parse(row.decision) == d
        assert _moved(d).verdict != row.verdict


def test_simulated_check_records_its_se_and_refuses_a_tolerance_below_two_se():
    """check(se=...) writes the Monte-Carlo SE into the tolerance column; a tolerance < 2 SE is refused."""
    t = ClaimsTable("04_glance", texts=None)
    row = t.check(
        "a fitted slope",
        "Table 1",
        -0.5,
        -0.47,
        atol=0.15,
        se=0.01,
        tolerance="±0.15 (finite-range allowance)",
    )
    assert (
        row.tolerance == "±0.15 (finite-range allowance); MC SE = 0.01"
        and row.verdict == "reproduced"
    )
    assert (
        t.check("a mean", "§3", 1.0, 1.02, atol=0.05, se=0.01).tolerance
        == "±0.05 (5 SE; SE = 0.01)"
    )
    with pytest.raises(ValueError, match="below 2 SE"):
        t.check("a noisy slope", "Table 1", -0.5, -0.47, atol=0.15, se=0.1)
    with pytest.raises(ValueError, match="se="):
        t.check("a slope", "Table 1", -0.5, -0.47, atol=0.15, se=float("nan"))


def test_decision_text_hides_last_bit_differences_but_keeps_the_verdict():
    """Two machines whose reductions differ in the last bit write the same decision; a value within 1e-12 of its bound keeps all digits."""
    a, b = close(0.5498370503012474, 0.5, 0.1), close(0.5498370503012469, 0.5, 0.1)
    assert str(a) == str(b) == "close(0.549837050301, 0.5, 0.1) -> reproduced | differs"
    on_the_edge = le(0.2 + 1e-15, 0.2)
    assert Decision.parse(str(on_the_edge)).verdict == on_the_edge.verdict == "differs"


def test_a_claim_ending_a_cell_shows_a_labelled_row_not_its_repr():
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    row = ClaimsTable("00_tutorial", texts=None).check("x is 1", "Eq. (1)", 1.0, 1.0004, atol=1e-3)
    assert row.summary() == "claim 00-01 — reproduced: x is 1 — paper: 1; ours: 1.0004 [±0.001]"
    shell = InteractiveShell.instance()
    shell.user_ns["row"] = row
    with capture_output() as shown:
        shell.run_cell("row")
    (output,) = shown.outputs
    assert (
        output.data["text/plain"] == row.summary() and "| 00-01 |" in output.data["text/markdown"]
    )
    assert "Claim(" not in str(output.data)


# -- the short form: the words in notebooks/claims/<notebook>.yaml, one call per claim -----------------------------

SPEC = """\
peak:
  id: 00-01
  claim: the peak is at {{where:.2f}}
  source: Fig. 1
  paper: 0.5
  atol: 0.01
unbiased:
  id: 00-02
  claim: the estimator is unbiased
  source: Thm 3
  paper: unbiased
  ours: "pooled z = {{z:.2f}} (e^{eps} untouched)"
slip:
  id: 00-03
  claim: the printed constant
  source: §5.3
  paper: 0.575
  atol: 5.0e-4
  severity: typo
consequence:
  id: 00-04
  claim: what follows from the slip
  source: §5.4
  paper: x
  ours: y
  severity: typo
  depends_on: 00-03
"""


def _short_table(tmp_path, text=SPEC):
    from ldp_tools.pipeline.claim_texts import _parse_claim_texts

    path = tmp_path / "00_tutorial.yaml"
    path.write_text(text, encoding="utf-8")
    return ClaimsTable("00_tutorial", texts=_parse_claim_texts(path))


def test_short_form_gives_the_long_forms_rows(tmp_path):
    """One call per claim, the words from the file, the same rows as the long form, in the file's order."""
    short = _short_table(tmp_path)
    short.erratum_if("consequence", gt(3.0, 1.0))  # recorded first, listed last
    short.statement("unbiased", close(0.1, 0.0, 4.0), z=0.1)
    short.erratum("slip", 0.5743)
    short.check("peak", 0.505, where=0.505)
    long = ClaimsTable("00_tutorial", texts=None)
    long.check("the peak is at 0.51", "Fig. 1", 0.5, 0.505, atol=0.01, id="00-01")
    long.check_statement(
        "the estimator is unbiased",
        "Thm 3",
        "unbiased",
        close(0.1, 0.0, 4.0),
        "pooled z = 0.10 (e^{eps} untouched)",
        id="00-02",
    )
    long.erratum(
        "the printed constant", "§5.3", 0.575, 0.5743, severity="typo", atol=5e-4, id="00-03"
    )
    long.erratum_if(
        gt(3.0, 1.0),
        "what follows from the slip",
        "§5.4",
        "x",
        "y",
        severity="typo",
        id="00-04",
        depends_on="00-03",
    )
    assert short.rows == long.rows and short.to_csv() == long.to_csv() and not short.missing()


def test_short_form_refuses_what_it_cannot_record(tmp_path, monkeypatch):
    """Unknown or twice-recorded names, a missing placeholder, se on a statement, an unfinished table."""
    monkeypatch.setattr(paths, "FIGURES_DIR", tmp_path)
    t = _short_table(tmp_path)
    with pytest.raises(ValueError, match="must be a claim of 00_tutorial.yaml; got 'nope'"):
        t.check("nope", 1.0)
    with pytest.raises(
        ValueError, match=r"the text names \{\{where\}\}, which the call does not give"
    ):
        t.check("peak", 0.5)
    with pytest.raises(TypeError, match="se= belongs to a numeric check"):
        t.statement("unbiased", close(0.1, 0.0, 4.0), z=0.1, se=1.0)
    t.check("peak", 0.5, where=0.5)
    with pytest.raises(ValueError, match="recorded twice"):
        t.check("peak", 0.5, where=0.5)
    with pytest.raises(ValueError, match="never recorded: unbiased, slip, consequence"):
        t.write_csv()
    with pytest.raises(TypeError, match="use claims.statement"):
        t.check_statement("a", "b", "c", lt(1.0, 2.0), "d")
    bare = _short_table(tmp_path, SPEC.replace("  severity: typo\n", ""))
    with pytest.raises(ValueError, match="'slip': an erratum states its severity"):
        bare.erratum("slip", 0.5743)
    assert not bare.rows and bare.missing() == list(bare.texts)  # refused before it is recorded


@pytest.mark.parametrize(
    "text, message",
    [
        ("a:\n  id: 00-01\n  claim: c\n  source: s\n", r"missing fields \['paper'\]"),
        (
            "a:\n  id: 00-01\n  claim: c\n  source: s\n  paper: 1\n  colour: red\n",
            r"unknown fields \['colour'\]",
        ),
        (
            "a:\n  id: 00-01\n  claim: c\n  source: s\n  paper: 1\n  atol: 5e-4\n",
            "YAML needs 5.0e-4",
        ),
        (
            "a:\n  id: 00-01\n  claim: c\n  source: s\n  paper: 1\nb:\n  id: 00-01\n  claim: c\n  source: s\n  paper: 1\n",
            "id must be unique",
        ),
        (
            "a:\n  id: 00-01\n  claim: c\n  source: s\n  paper: 1\n  depends_on: 00-02\n",
            "names no earlier entry",
        ),
        (
            "a:\n  id: 00-01\n  claim: c\n  source: s\n  paper: 1\n  severity: bad\n",
            "severity must be one of",
        ),
        ("a: !!python/object/apply:os.system ['touch pwned']\n", "not a valid UTF-8 YAML file"),
        ("- a\n- b\n", "non-empty mapping"),
    ],
)
def test_claims_files_are_checked_all_or_nothing(tmp_path, text, message):
    """A bad claims file is refused naming the file and the entry; YAML tags never construct objects."""
    with pytest.raises(ValueError, match=message):
        _short_table(tmp_path, text)
    assert not (tmp_path / "pwned").exists()


# -- no decision that cannot fail (issue 26): the notebooks' claims calls, read as code ------------------------------

import ast  # noqa: E402
from collections import defaultdict  # noqa: E402

NOTEBOOK_SOURCES = sorted(p for p in paths.NOTEBOOKS_DIR.glob("0*.py"))
DECIDERS = {"close", "far", "lt", "le", "gt", "ge"}
RECORDERS = {"check", "statement", "erratum", "erratum_if", "ambiguous_if"}
#: calls that only do arithmetic: on constant arguments they give a constant (no model, table or draw evaluated)
PURE = {
    "int",
    "float",
    "abs",
    "round",
    "min",
    "max",
    "len",
    "sum",
    "bool",
    "str",
    "np.log",
    "np.log10",
    "np.log2",
    "np.sqrt",
    "np.exp",
    "np.floor",
    "np.ceil",
    "math.log",
    "math.sqrt",
    "math.exp",
}


def _dotted(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


class _Constants:
    """Which expressions of a notebook depend on nothing computed: literals, the parameters (literals too), the
    package's settings (an attribute of an imported module, never called) and arithmetic on those.  A name is
    constant when every binding of it in the notebook is; a call other than arithmetic (a formula, a table, a
    simulation) is computed, even on constant arguments."""

    def __init__(self, tree):
        self.imports, self.bindings = set(), defaultdict(list)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.imports |= {(a.asname or a.name).split(".")[0] for a in node.names}
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    pairs = [(target, node.value)]
                    if (
                        isinstance(target, ast.Tuple)
                        and isinstance(node.value, ast.Tuple)
                        and len(target.elts) == len(node.value.elts)
                    ):
                        pairs = list(zip(target.elts, node.value.elts))  # a, b = 1, 2
                    for left, right in pairs:
                        for name in ast.walk(left):
                            if isinstance(name, ast.Name):
                                self.bindings[name.id].append(
                                    right if left is name else None
                                )  # unpacking: computed
            elif isinstance(node, (ast.For, ast.comprehension)):
                for name in ast.walk(node.target):
                    if isinstance(name, ast.Name):
                        self.bindings[name.id].append(("over", node.iter))
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
                self.bindings[_dotted(node.target)].append(None)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                self.bindings[_dotted(node.optional_vars)].append(None)
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
            ):
                self.bindings[node.func.value.id].append(
                    None
                )  # x.append(...): a container filled by computation
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, (ast.Subscript, ast.Attribute)) and isinstance(
                        target.value, ast.Name
                    ):
                        self.bindings[target.value.id].append(None)  # x[i] = ...: likewise

    def constant(self, node, seen=frozenset()) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            if node.id in seen:
                return False
            if node.id in self.imports:
                return True
            bound = self.bindings.get(node.id)
            return bool(bound) and all(
                b is not None
                and self.constant(b[1] if isinstance(b, tuple) else b, seen | {node.id})
                for b in bound
            )
        if isinstance(node, ast.Call):
            return _dotted(node.func) in PURE and all(
                self.constant(a, seen) for a in [*node.args, *(k.value for k in node.keywords)]
            )
        if isinstance(
            node,
            (
                ast.Attribute,
                ast.Subscript,
                ast.BinOp,
                ast.UnaryOp,
                ast.BoolOp,
                ast.Compare,
                ast.Tuple,
                ast.List,
                ast.Set,
                ast.Dict,
                ast.JoinedStr,
                ast.FormattedValue,
                ast.IfExp,
                ast.Starred,
                ast.keyword,
                ast.Slice,
            ),
        ):
            return all(
                self.constant(child, seen)
                for child in ast.iter_child_nodes(node)
                if not isinstance(
                    child, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
                )
            )
        return False


def constant_decisions(source: str) -> list[str]:
    """The claims calls of a notebook whose outcome depends on nothing computed: a decision between two constants, a
    quantity compared with itself, a number or text checked against the paper's literal while being a constant itself,
    or a decision the check cannot see (pass it inline).  ``by_text("...")`` is allowed: it says what in the text decides."""
    tree = ast.parse(source)
    consts, found = _Constants(tree), []
    for call in ast.walk(tree):
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in RECORDERS
            and _dotted(call.func.value) == "claims"
            and call.args
        ):
            continue
        name, kind = ast.get_source_segment(source, call.args[0]), call.func.attr
        evidence = call.args[1] if len(call.args) > 1 else None
        if kind in ("check", "erratum"):
            paper = next((k.value for k in call.keywords if k.arg == "paper"), None)
            if evidence is None or (
                consts.constant(evidence) and (paper is None or consts.constant(paper))
            ):
                found.append(
                    f"{name}: {kind} of a constant against the paper's value (two literals)"
                )
            continue
        if not (
            isinstance(evidence, ast.Call) and _dotted(evidence.func) in DECIDERS | {"by_text"}
        ):
            found.append(
                f"{name}: its decision is not a visible close/far/lt/le/gt/ge/by_text call"
            )
        elif _dotted(evidence.func) == "by_text":
            how = evidence.args[0] if evidence.args else None
            if how is None or not consts.constant(how):
                found.append(f"{name}: by_text must say, in words, what in the text decides it")
        else:
            value, reference = (evidence.args + [k.value for k in evidence.keywords])[:2]
            if ast.dump(value) == ast.dump(reference):
                found.append(f"{name}: a quantity compared with itself")
            elif consts.constant(value) and consts.constant(reference):
                found.append(f"{name}: a decision between two constants")
    return found


def test_the_constant_decision_check_sees_each_kind():
    """Two literals, settings, arithmetic on parameters, a quantity against itself and an unreadable decision are
    flagged; a formula, a table or a draw (any other call), a list filled by one, and by_text are not."""
    source = """
import numpy as np
from ldp_helpers.experiments import m_shot as runs
import ldp_helpers as ldp
T, N = 100, 10_000                      # parameters
x = runs.simulate(T, rng=rng)
eps_fig = runs.FIGURE_EPSILON
d = gt(x, 0)
claims.erratum_if("a", gt(8, 3))
claims.statement("b", close(x, x, 0.1))
claims.ambiguous_if("c", lt(np.log(T / N), 0.0))
claims.check("d", eps_fig)
claims.erratum("e", ldp.OUE.__name__)
claims.erratum("f")
claims.statement("g", d)
claims.statement("ok1", gt(paper.g(0.574), paper.g(0.5)))
claims.check("ok2", x)
claims.check("ok3", paper.m_star(T, T))
claims.erratum_if("ok4", by_text("the caption prints N = 10,000, the text 100,000"))
ratios = []
for t in (10, 20):
    ratios.append(paper.g(t))
claims.statement("ok5", le(max(ratios), 0.5))
for e in runs.EPSILONS:
    claims.statement(f"h{e}", gt(e, 1.0))
"""
    flagged = [line.split(":")[0] for line in constant_decisions(source)]
    assert flagged == ['"a"', '"b"', '"c"', '"d"', '"e"', '"f"', '"g"', 'f"h{e}"']


@pytest.mark.parametrize("path", NOTEBOOK_SOURCES, ids=lambda p: p.stem)
def test_no_decision_is_constant(path):
    """Every claims call of a notebook is decided by a computation that could come out the other way, or by the text."""
    assert constant_decisions(path.read_text(encoding="utf-8")) == []
