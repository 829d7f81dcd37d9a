"""Contract specs of notebook 06's helpers: ldp_helpers.experiments.privacy_audit (the ones added by issue 25) and
the figure functions of ldp_tools.pipeline.plots.privacy_audit (merged into specs.SPECS)."""

from __future__ import annotations

import numpy as np

from ldp_helpers.audit.auditor import AuditResult
from ldp_helpers.audit.events import Event
from ldp_helpers.audit.longitudinal import binomial_attack_curve, fresh_rr_count_table
from ldp_helpers.experiments.privacy_audit import MechanismAudit

from .specs import RNG, spec

PA = "ldp_helpers.experiments.privacy_audit."
PL = "ldp_tools.pipeline.plots.privacy_audit."
RESULT = AuditResult(
    epsilon_lb=1.05,
    confidence=0.9,
    n_trials=1000,
    count0=700,
    count1=200,
    p0_low=0.66,
    p1_high=0.23,
    event=Event((0,), ("==",), (1.0,)),
    x0=0,
    x1=1,
    claimed_epsilon=1.2,
)
AUDITS = [MechanismAudit("grr", "GRR (DE)", 1.2, 1.2, RESULT)]
AUDIT = {
    "epsilon_lb": 1.05,
    "count0": 700,
    "count1": 200,
    "event": "y[0] == 1",
    "violation": False,
    "n_trials": 1000,
}
PEERS = {
    "pure-ldp-1.1.2": {
        "version": "1.1.2",
        "audits": {"SUE": {**AUDIT, "violation": True}, "OUE": AUDIT},
    },
    "multi-freq-ldpy": {"version": "0.2.5", "audits": {"SUE": AUDIT, "OUE": AUDIT}},
}
CURVE = {
    "n": np.array([100, 1000]),
    "epsilon_lb": np.array([0.4, 1.0]),
    "high": np.array([2.0, 1.4]),
    "exact": np.array([1.2, 1.2]),
}
ATTACK = [
    binomial_attack_curve("fresh RR", lambda k: fresh_rr_count_table(1.0, k), np.array([1, 2, 4]))
]

SPECS = {
    PA + "spawn_seeds": spec(rng=RNG, n=4, _huge={"n"}),
    PA + "audit_table": spec(audits=AUDITS, _extra={"audits": [[], [RESULT]]}),
    PA + "never_cleared_loss": spec(protocol="OUE", epsilon=1.0),
    PA + "peer_table": spec(peers=PEERS, _extra={"peers": [{}, {"pure-ldp-1.1.2": {}}]}),
    PA + "success_cap": spec(epsilon=1.0),
    PA + "memoized_limits": spec(f=0.5, _extra={"f": [0.0]}),
    PA + "averaging_failure_bound": spec(epsilon=1.0, k=64),
    PA + "success_slack": spec(
        curves=ATTACK, cap=0.7, confidence=0.99, _extra={"curves": [[], [0.5]], "cap": [1.5]}
    ),
    # the figure functions draw a new Figure (not run here: tests/experiments/test_audit_figures.py draws each)
    PL + "epsilon_lb_figure": spec(
        curves={"grr": CURVE},
        confidence=0.9,
        _valid=False,
        _extra={
            "curves": [{}, {"no-such-key": CURVE}, {"grr": {"n": CURVE["n"]}}],
            "confidence": [0.0, 1.0, 1.5],
        },
    ),
    PL + "peer_audit_figure": spec(
        peers=PEERS,
        true_losses={"pure-ldp-1.1.2": {"SUE": 1.68, "OUE": 1.55}},
        epsilon=1.0,
        confidence=0.9,
        _valid=False,
        _extra={
            "peers": [{}],
            "true_losses": [{"no-such-peer": {}}],
            "epsilon": [0.0],
            "confidence": [0.0, 1.5],
        },
    ),
    PL + "attack_figure": spec(
        attack=ATTACK,
        stream_epsilon=1.0,
        m=2,
        _valid=False,
        _extra={"attack": [[], [CURVE]], "stream_epsilon": [0.0]},
    ),
}
