"""Claims tables: verdicts computed from values, CSV round trip, plain-decimal numbers."""

import math

import pytest

from ldp_helpers.pipeline import claims as claims_mod
from ldp_helpers.pipeline import paths
from ldp_helpers.pipeline.claims import COLUMNS, ClaimsTable, format_value, read_claims_csv


def test_numeric_verdicts_follow_the_tolerance():
    """Inside atol + rtol·|paper| is reproduced, outside differs."""
    t = ClaimsTable("00_tutorial")
    assert t.check("a", "§1", 2.615, 2.6150, atol=1e-3).verdict == "reproduced"
    assert t.check("b", "§1", 2.615, 2.7, atol=1e-3).verdict == "differs"
    assert t.check("c", "§1", 100, 101, rtol=0.02).verdict == "reproduced"
    assert t.counts() == {"reproduced": 2, "differs": 1, "paper error": 0}


def test_statements_and_errata():
    """A qualitative claim's verdict is our boolean; an erratum must really differ."""
    t = ClaimsTable("00_tutorial")
    assert t.check_statement("GRR wins", "§3", "GRR wins", False, "OUE wins").verdict == "differs"
    assert t.erratum("p for GRR", "§2", 0.5, 0.7869).verdict == "paper error"
    with pytest.raises(ValueError, match="not an erratum"):
        t.erratum("same", "§2", 0.5, 0.5)


def test_format_value_is_plain_decimal():
    """No exponents, at most 6 significant digits, integers without a decimal point."""
    assert format_value(1e-7) == "0.0000001"
    assert format_value(2.6149597) == "2.61496"
    assert format_value(49742.0) == "49742"
    assert format_value(True) == "true"
    assert format_value(math.inf) == "inf"
    with pytest.raises(ValueError, match="NaN"):
        format_value(math.nan)


def test_csv_round_trip(tmp_path, monkeypatch):
    """write_csv writes the five columns; read_claims_csv reads back the same rows."""
    monkeypatch.setattr(paths, "FIGURES_DIR", tmp_path)
    t = ClaimsTable("00_tutorial")
    t.check("x, with a comma", "Eq. (1)", 0.574, 0.57418, atol=1e-3)
    path = t.write_csv()
    assert path == tmp_path / "00_tutorial" / "claims.csv"
    assert path.read_text().splitlines()[0] == ",".join(COLUMNS)
    assert read_claims_csv(path) == t.rows


def test_write_false_and_empty(tmp_path, monkeypatch):
    """Nothing is written unless asked; an empty table is an error."""
    monkeypatch.setattr(paths, "FIGURES_DIR", tmp_path)
    t = ClaimsTable("00_tutorial")
    with pytest.raises(ValueError, match="empty"):
        t.write_csv()
    t.check("a", "b", 1, 1)
    assert not t.write_csv(write=False).exists()


def test_malformed_csv_is_a_clear_error(tmp_path):
    """A claims.csv with the wrong header or a short row is refused with its location."""
    bad = tmp_path / "claims.csv"
    bad.write_text("claim,source\nx,y\n")
    with pytest.raises(ValueError, match="header"):
        read_claims_csv(bad)
    bad.write_text(",".join(COLUMNS) + "\nx,y,1\n")
    with pytest.raises(ValueError, match=":2: expected 5 fields"):
        read_claims_csv(bad)


def test_unknown_notebook_and_verdict():
    """Tables belong to existing notebooks; verdicts come from a fixed vocabulary."""
    with pytest.raises(ValueError, match="unknown notebook"):
        ClaimsTable("07_missing")
    with pytest.raises(ValueError, match="verdict must be one of"):
        claims_mod.Claim("c", "s", "1", "1", "maybe")


def test_table_renders_as_plain_text():
    """str(table) is a plain aligned table with a verdict summary line."""
    t = ClaimsTable("00_tutorial")
    t.check("a claim", "§1", 1, 1)
    text = str(t)
    assert text.splitlines()[0].split() == ["#", "claim", "source", "paper", "ours", "verdict"]
    assert text.endswith("1 claims: 1 reproduced, 0 differs, 0 paper error")


def test_erratum_if_follows_the_computed_boolean():
    """A computed erratum is "paper error" only when the computation says the paper is wrong."""
    t = ClaimsTable("00_tutorial")
    assert t.erratum_if(True, "caption names Fig. 3.7", "§3.6", "Fig. 3.7", "Fig. 3.8").verdict == "paper error"
    assert t.erratum_if(False, "caption names Fig. 3.8", "§3.6", "Fig. 3.8", "Fig. 3.8").verdict == "reproduced"
