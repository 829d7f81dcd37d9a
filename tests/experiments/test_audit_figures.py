"""Notebook 06's helpers: the buggy client's true loss, where the averaging attack stops, the seeds, the figures."""

import dataclasses
import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from ldp_helpers import max_privacy_loss, unary_output_table
from ldp_helpers.audit.longitudinal import (
    averaging_success,
    binomial_attack_curve,
    fresh_rr_count_table,
    memoized_rappor_count_table,
)
from ldp_helpers.experiments import privacy_audit as runs
from ldp_helpers.mechanisms.unary_encoding import OUE, SUE
from ldp_tools.pipeline.plots import privacy_audit as plots


@pytest.mark.parametrize("protocol, cls", [("SUE", SUE), ("OUE", OUE)])
def test_never_cleared_loss_is_the_broken_clients_exact_loss(protocol, cls):
    """pure-ldp 1.1.2's UE (Pr[1 | true bit] = p + (1 − p)q) leaks exactly what its whole-report table says, > ε."""
    mech = cls(0.8, 3)
    p_true = mech.p + (1 - mech.p) * mech.q
    exact = max_privacy_loss(unary_output_table(p_true, mech.q, 3))
    assert runs.never_cleared_loss(protocol, 0.8) == pytest.approx(exact, rel=1e-12) and exact > 0.8


def test_averaging_failure_bound_and_the_success_slack():
    """Hoeffding's bound lies above the exact failure of the averaging attack at every k (and is the formula);
    the slack is the largest success − cap − z·SE with z the Bonferroni quantile, and changes sign with cap."""
    from scipy import stats

    for k in (1, 8, 64):
        failure = 1 - averaging_success(fresh_rr_count_table(1.0, k))
        assert failure <= runs.averaging_failure_bound(1.0, k)
    p = math.e / (1 + math.e)
    assert runs.averaging_failure_bound(1.0, 64) == pytest.approx(math.exp(-128 * (p - 0.5) ** 2))
    curve = binomial_attack_curve("fresh RR", lambda k: fresh_rr_count_table(1.0, k), [1, 2, 4])
    curve = dataclasses.replace(curve, success_se=np.full(3, 0.01))
    slack, z, points = runs.success_slack([curve], 0.7, confidence=0.99)
    assert points == 3 and z == pytest.approx(stats.norm.isf(0.01 / 3))
    assert slack == pytest.approx(float(np.max(curve.success - 0.7 - z * 0.01)))
    assert runs.success_slack([curve], float(curve.success.max()), confidence=0.99)[0] < 0


def test_where_the_attack_stops():
    """e^ε/(1+e^ε) is one fresh RR report's success; memoized RAPPOR stalls at 1 − f/2 and ln((1 − f/2)/(f/2))."""
    assert runs.success_cap(1.0) == pytest.approx(
        averaging_success(fresh_rr_count_table(1.0, 1)), rel=1e-12
    )
    assert runs.memoized_limits(0.5) == (0.75, math.log(3))
    success, loss = runs.memoized_limits(0.4)
    assert averaging_success(memoized_rappor_count_table(0.4, 0.25, 0.75, 400)) == pytest.approx(
        success, abs=1e-6
    )
    assert max_privacy_loss(memoized_rappor_count_table(0.4, 0.25, 0.75, 400)) == pytest.approx(
        loss, abs=1e-6
    )


def test_spawn_seeds_are_the_seed_sequences_children():
    seeds = runs.spawn_seeds(np.random.default_rng(7), 3)
    assert seeds == [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(7).spawn(3)]


def test_figures_draw_without_printing(capsys):
    """Each figure function returns a Figure with its panels and prints nothing."""
    curve = {
        "n": np.array([100, 1000]),
        "epsilon_lb": np.array([0.4, 1.0]),
        "high": np.array([2.0, 1.4]),
        "exact": np.array([1.2, 1.2]),
    }
    audit = {"epsilon_lb": 0.9, "violation": False}
    peers = {
        "pure-ldp-1.1.2": {
            "version": "1.1.2",
            "audits": {"SUE": {"epsilon_lb": 1.5, "violation": True}},
        },
        "multi-freq-ldpy": {"version": "0.2.5", "audits": {"SUE": audit}},
    }
    attack = [
        binomial_attack_curve(
            "fresh RR", lambda k: fresh_rr_count_table(1.0, k), np.array([1, 2, 4])
        )
    ]
    figs = [
        plots.epsilon_lb_figure({"grr": curve, "oue": curve}, 0.99),
        plots.peer_audit_figure(
            peers, {"pure-ldp-1.1.2": {"SUE": 1.68}}, epsilon=1.0, confidence=0.99
        ),
        plots.attack_figure(attack, stream_epsilon=1.0, m=2),
    ]
    assert [len(f.axes) for f in figs] == [2, 1, 2] and all(isinstance(f, Figure) for f in figs)
    assert [t.get_text() for t in figs[1].axes[0].get_legend().get_texts()] == [
        r"claimed $\varepsilon = 1$",
        "1.1.2's true loss",
    ]
    assert capsys.readouterr().out == ""
