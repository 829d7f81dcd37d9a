"""The peer-audit command line (``python -m ldp_tools.peers``) refuses bad arguments before any audit."""

from __future__ import annotations

import pytest

from ldp_tools import peers as peer_audit


@pytest.mark.parametrize(
    "argv",
    [["no-such-peer"], ["pure-ldp-1.1.2", "--d", "x"], ["pure-ldp-1.1.2", "--n-trials", "2.5"]],
)
def test_argparse_refuses(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        peer_audit.main(argv)
    assert exit_.value.code == 2 and "error" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "value", "name"),
    [
        ("--epsilon", "0", "epsilon"),
        ("--epsilon", "nan", "epsilon"),
        ("--d", "1", "d"),
        ("--n-trials", "0", "n_trials"),
        ("--n-trials", str(10**12), "n_trials"),
        ("--seed", "-1", "seed"),
        ("--confidence", "1", "confidence"),
        ("--n-jobs", "0", "n_jobs"),
    ],
)
def test_library_refuses_before_auditing(option, value, name):
    with pytest.raises(ValueError, match=rf"\b{name} must be"):
        peer_audit.main(["pure-ldp-1.1.2", option, value])


def test_audit_peer_passes_numpy_numbers_as_plain_text(monkeypatch):
    """The child's command line reads NumPy scalars as numbers (``repr`` would write ``np.float64(0.5)``)."""
    import numpy as np

    seen = {}
    monkeypatch.setattr(
        peer_audit, "_run_peer", lambda peer, flags, *_: seen.__setitem__("f", flags)
    )
    peer_audit.audit_peer(
        "pure-ldp-1.2.0",
        epsilon=np.float64(0.5),
        d=np.int64(4),
        n_trials=10,
        seed=1,
        confidence=0.9,
    )
    assert seen["f"][:4] == ["--epsilon", "0.5", "--d", "4"] and "--n-jobs" in seen["f"]
    peer_audit.audit_peer(  # a float32 reaches the child as the float it was checked as
        "pure-ldp-1.2.0", epsilon=np.float32(0.1), d=4, n_trials=10, seed=1, confidence=0.9
    )
    assert seen["f"][1] == repr(float(np.float32(0.1))) == "0.10000000149011612"
