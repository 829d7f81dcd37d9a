"""Figures of notebook 06 (the privacy audit): data in, a matplotlib Figure out, nothing printed or saved.

References
----------
[arcolezi2024] (the audit; pure-ldp 1.1.2's bug); [erlingsson2014] §2 (memoization); [glance] Theorem 3.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from ldp_helpers._validation import check_epsilon, check_int, check_real, fail_type
from ldp_helpers.audit.longitudinal import AttackCurve
from ldp_helpers.experiments.privacy_audit import success_cap
from ldp_helpers.mechanisms.registry import REGISTRY

_CURVE_KEYS = {"n", "epsilon_lb", "high", "exact"}


def _check_confidence(confidence) -> float:
    return check_real("confidence", confidence, low=0.0, high=1.0)


def epsilon_lb_figure(curves: dict, confidence: float) -> Figure:
    """One panel per mechanism: ε_lb against the trials per input N, the CP band of the event's log-ratio
    (both ends, jointly at ≥ 2·confidence − 1) and the exact whole-report ε of the mechanism's table.

    ``curves`` maps registry keys to :func:`~ldp_helpers.experiments.privacy_audit.epsilon_lb_curve`'s results.

    References
    ----------
    [arcolezi2024] §4 (ε_lb from Clopper–Pearson bounds).
    """
    if (
        not isinstance(curves, dict)
        or not curves
        or not all(
            key in REGISTRY and isinstance(c, dict) and _CURVE_KEYS <= set(c)
            for key, c in curves.items()
        )
    ):
        fail_type("curves", curves, "a non-empty dict of registry key -> epsilon_lb_curve's result")
    confidence = _check_confidence(confidence)
    fig, axes = plt.subplots(1, len(curves), figsize=(13, 3.4), sharex=True, squeeze=False)
    for ax, (key, c) in zip(axes[0], curves.items()):
        ax.fill_between(
            c["n"],
            np.maximum(c["epsilon_lb"], 0),
            c["high"],
            alpha=0.25,
            label=f"CP band (≥ {2 * confidence - 1:.0%} jointly)",
        )
        ax.plot(c["n"], c["epsilon_lb"], "o-", label=r"$\varepsilon_{\rm lb}$")
        ax.axhline(c["exact"][0], color="k", ls="--", label=r"exact $\varepsilon$ (table)")
        ax.set(xscale="log", title=REGISTRY[key].label, xlabel="trials per input $N$")
        ax.set_ylim(0, 1.6 * c["exact"][0])
    axes[0, 0].set_ylabel(r"$\varepsilon$")
    axes[0, 0].legend(loc="lower right", fontsize=8)
    fig.suptitle("Empirical lower bound vs the exact whole-report ε of our mechanisms")
    return fig


def peer_audit_figure(
    peers: dict, true_losses: dict, *, epsilon: float, confidence: float
) -> Figure:
    """ε_lb of every peer's audited protocol against the claimed ε; refuted claims highlighted, and the true
    loss of a known-broken client dotted over its bars.

    ``peers`` is :func:`~ldp_tools.peers.peer_audits`' result; ``true_losses`` maps a peer to
    ``{protocol: true loss}`` (e.g. :func:`~ldp_helpers.experiments.privacy_audit.never_cleared_loss`).

    References
    ----------
    [arcolezi2024] (pure-ldp 1.1.2's unary encoding never clears the true bit).
    """
    if (
        not isinstance(peers, dict)
        or not peers
        or not all(
            isinstance(found, dict) and isinstance(found.get("audits"), dict)
            for found in peers.values()
        )
    ):
        fail_type(
            "peers", peers, "peer_audits' result: a dict of peer -> {'audits': {protocol: audit}}"
        )
    if not isinstance(true_losses, dict) or not all(
        peer in peers and isinstance(losses, dict) for peer, losses in true_losses.items()
    ):
        fail_type("true_losses", true_losses, "a dict of audited peer -> {protocol: true loss}")
    epsilon, confidence = check_epsilon(epsilon), _check_confidence(confidence)
    bars = [
        (peer, protocol, r)
        for peer, found in peers.items()
        for protocol, r in found["audits"].items()
    ]
    values = [r["epsilon_lb"] for _, _, r in bars]
    # room for every bar's two-line label
    fig, ax = plt.subplots(figsize=(max(8.0, 1.15 * len(bars)), 3.6))
    ax.bar(range(len(bars)), values, color=["C3" if r["violation"] else "C0" for _, _, r in bars])
    ax.axhline(epsilon, color="k", ls="--", label=rf"claimed $\varepsilon = {epsilon:g}$")
    labelled = set()
    for i, (peer, protocol, _) in enumerate(bars):
        if protocol in true_losses.get(peer, {}):
            label = None if peer in labelled else f"{peers[peer].get('version', peer)}'s true loss"
            ax.plot(
                [i - 0.4, i + 0.4],
                [true_losses[peer][protocol]] * 2,
                color="C3",
                ls=":",
                label=label,
            )
            labelled.add(peer)
    for i, v in enumerate(values):
        ax.annotate(f"{v:.3f}", (i, v / 2), ha="center", va="center", fontsize=9, color="white")
    labels = [
        peer.replace("-1.", "\n1.").replace("freq-", "freq-\n") + "\n" + protocol
        for peer, protocol, _ in bars
    ]
    ax.set_xticks(range(len(bars)), labels, fontsize=8)
    ax.set(
        ylabel=r"$\varepsilon_{\rm lb}$ (" + f"{confidence:.0%} CP)",
        title="Peer audits: highlighted = claim refuted",
    )
    ax.legend(fontsize=8)
    return fig


def attack_figure(attack, *, stream_epsilon: float, m: int) -> Figure:
    """The averaging attack against the number of reports k: its success (left; exact solid, simulated ±2 SE
    dashed, the cap e^ε/(1 + e^ε) of a whole-stream ε dotted) and the composed ε of the k reports (right; open
    markers: claimed, no table).

    ``attack`` is :func:`~ldp_helpers.experiments.privacy_audit.longitudinal_curves`' result, whose 1-shot
    and ``m``-shot streams have whole-stream budget ``stream_epsilon``.

    References
    ----------
    [erlingsson2014] §2, §3.1; [glance] Theorem 3; [m_shot] Algorithm 1.
    """
    if (
        not isinstance(attack, (list, tuple))
        or not attack
        or not all(isinstance(c, AttackCurve) for c in attack)
    ):
        fail_type("attack", attack, "longitudinal_curves' result: a non-empty list of AttackCurve")
    stream_epsilon, m = check_epsilon(stream_epsilon, "stream_epsilon"), check_int("m", m, low=1)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4))
    for i, c in enumerate(attack):
        style = "-" if c.exact else "--"
        ax1.errorbar(
            c.ks,
            c.success,
            yerr=2 * c.success_se,
            fmt="o" + style,
            ms=4,
            capsize=2,
            color=f"C{i}",
            label=c.label,
        )
        ax2.plot(c.ks, c.epsilon, "o" + style, ms=4, color=f"C{i}", label=c.label)
        claimed = ~c.epsilon_exact
        ax2.plot(c.ks[claimed], c.epsilon[claimed], "o", mfc="white", color=f"C{i}")
    ax1.set(
        xscale="log",
        xlabel="reports of the same value $k$",
        ylabel="attack success probability",
        title="Averaging attack (exact: solid; simulated ±2 SE: dashed)",
        ylim=(0.45, 1.02),
    )
    ax1.axhline(0.5, color="grey", lw=0.8)
    ax1.axhline(
        success_cap(stream_epsilon),
        color="k",
        ls=":",
        lw=1,
        label=r"cap $e^{\varepsilon}/(1+e^{\varepsilon})$ at "
        rf"$\varepsilon = {stream_epsilon:g}$ (1-shot, m-shot)",
    )
    ax2.set(
        xscale="log",
        yscale="log",
        xlabel="reports of the same value $k$",
        ylabel=r"composed $\varepsilon$ of the $k$ reports",
        title="Whole-stream ε (open: claimed, no table)",
    )
    ax1.legend(fontsize=7, loc="upper left")
    k_min = int(min(c.ks.min() for c in attack))
    ax2.annotate(
        f"Glance, Harmony, {m}-shot: ε = {stream_epsilon:g} at every k (overlapping)",
        (k_min, stream_epsilon),
        xytext=(1.2, 2.2),
        fontsize=8,
    )
    return fig
