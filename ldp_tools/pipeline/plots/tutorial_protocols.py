"""Figures of notebook 05 (the tutorial's named protocols): data in, a matplotlib Figure out, nothing printed or saved.

Every curve is a :class:`~ldp_helpers.experiments.tutorial_protocols.Curve` drawn with ±2 SE error bars.

References
----------
[wang2021pem]; [bassily2017]; [wang2018svim]; [qin2016]; [chen2016pldp].
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from ldp_helpers._validation import (
    check_epsilon,
    check_int,
    check_int_array,
    check_real,
    check_real_array,
    fail_type,
)
from ldp_helpers.experiments.tutorial_protocols import Curve, check_curves

_EPSILON_LABEL = r"privacy budget $\varepsilon$"


def _errorbars(ax, x, curve: Curve, **style) -> None:
    """A curve's means with ±2 SE error bars.

    The grid goes in as a list, which ``errorbar`` keeps as objects (units): the markers' positions are then not
    rounded by :func:`~ldp_tools.pipeline.figures.save_figure`, as in the committed figures.
    """
    ax.errorbar(np.asarray(x).tolist(), curve.mean, yerr=2 * curve.se, capsize=3, **style)


def _share_axes(ax, *, ylabel: str, title: str) -> None:
    """Axes of a share (recall, precision) against ε."""
    ax.set(xlabel=_EPSILON_LABEL, ylabel=ylabel, title=title, ylim=(0, 1.05))


def heavy_hitters_figure(
    recall: dict,
    epsilons,
    pem_by_n: Curve,
    n_grid,
    *,
    k: int,
    bits: int,
    exponent: float,
    n_users: int,
    epsilon_by_n: float,
) -> Figure:
    """Recall of the top k against ε for each protocol (left), PEM's recall against n at one ε (right).

    ``recall`` is :func:`~ldp_helpers.experiments.tutorial_protocols.heavy_hitter_recall`'s result over
    ``epsilons`` for ``n_users`` values of ``bits`` bits (Zipf(``exponent``)); ``pem_by_n`` is PEM's
    curve of :func:`~ldp_helpers.experiments.tutorial_protocols.recall_by_n` over ``n_grid`` at ``epsilon_by_n``.

    References
    ----------
    [wang2021pem] (recall vs ε and vs n); [bassily2017].
    """
    epsilons = check_real_array("epsilons", epsilons, low=0.0).ravel()
    recall = check_curves("recall", recall, epsilons.size)
    n_grid = check_int_array("n_grid", n_grid, low=1).ravel()
    if not isinstance(pem_by_n, Curve) or np.shape(pem_by_n.mean) != n_grid.shape:
        fail_type("pem_by_n", pem_by_n, f"a Curve over the {n_grid.size} points of n_grid")
    k, bits = check_int("k", k, low=1), check_int("bits", bits, low=1)
    n_users = check_int("n_users", n_users, low=1)
    exponent = check_real("exponent", exponent, low=0.0, low_open=False)
    epsilon_by_n = check_epsilon(epsilon_by_n, "epsilon_by_n")
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(11, 4.2))
    for name, curve in recall.items():
        _errorbars(ax0, epsilons, curve, marker="o", label=name)
    _share_axes(
        ax0,
        ylabel=f"recall of the top $k = {k}$",
        title=rf"$n = {n_users:,}$ users, $2^{{{bits}}}$ values (Zipf {exponent:g})",
    )
    ax0.legend(title="±2 SE")
    _errorbars(ax1, n_grid, pem_by_n, marker="o", color="C0", label="PEM")
    ax1.set(
        xscale="log",
        xlabel="number of users $n$",
        ylabel=f"recall of the top $k = {k}$",
        title=rf"PEM at $\varepsilon = {epsilon_by_n:g}$",
        ylim=(0, 1.05),
    )
    ax1.legend()
    return fig


def itemset_figure(mining: dict, epsilons, *, k: int, d: int, n_users: int) -> Figure:
    """One panel per metric (precision, NCR of the top k items) against ε, one curve per miner.

    ``mining`` is :func:`~ldp_helpers.experiments.tutorial_protocols.itemset_precision`'s result,
    keyed (miner, metric), over ``epsilons`` for ``n_users`` baskets of ``d`` items.

    References
    ----------
    [wang2018svim] (SVIM against LDPMiner); [qin2016].
    """
    epsilons = check_real_array("epsilons", epsilons, low=0.0).ravel()
    mining = check_curves("mining", mining, epsilons.size)
    if not all(isinstance(key, tuple) and len(key) == 2 for key in mining):
        fail_type("mining", mining, "itemset_precision's result: a dict keyed (miner, metric)")
    k, d = check_int("k", k, low=1), check_int("d", d, low=1)
    n_users = check_int("n_users", n_users, low=1)
    miners, metrics = (list(dict.fromkeys(key[i] for key in mining)) for i in (0, 1))
    fig, axes = plt.subplots(1, len(metrics), figsize=(11, 4.2), squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        for j, miner in enumerate(miners):
            _errorbars(ax, epsilons, mining[miner, metric], marker="osd^v"[j % 5], label=miner)
        _share_axes(
            ax,
            ylabel=f"{metric} of the top $k = {k}$ items",
            title=rf"$n = {n_users:,}$ baskets, $d = {d}$ items",
        )
        ax.legend(title="±2 SE")
    return fig


def svsm_figure(precision: Curve, epsilons, *, k: int, n_users: int, max_size: int) -> Figure:
    """SVSM's precision of the top k itemsets (sizes 2..``max_size``) against ε.

    ``precision`` is the curve of :func:`~ldp_helpers.experiments.tutorial_protocols.itemset_mining_precision`.

    References
    ----------
    [wang2018svim] (SVSM).
    """
    epsilons = check_real_array("epsilons", epsilons, low=0.0).ravel()
    if not isinstance(precision, Curve) or np.shape(precision.mean) != epsilons.shape:
        fail_type("precision", precision, f"a Curve over the {epsilons.size} epsilons")
    k, n_users = check_int("k", k, low=1), check_int("n_users", n_users, low=1)
    max_size = check_int("max_size", max_size, low=2)
    fig, ax = plt.subplots(figsize=(6, 4))
    _errorbars(ax, epsilons, precision, marker="o", label="SVSM (±2 SE)")
    _share_axes(
        ax,
        ylabel=f"precision of the top {k} itemsets",
        title=rf"SVSM, $n = {n_users:,}$ baskets, itemsets of 2–{max_size} items",
    )
    ax.legend()
    return fig


def psda_figure(
    psda_curves: dict, betas, *, n_users: int, epsilon: float, n_locations: int
) -> Figure:
    """PSDA's max count error against β for the users' safe regions and for τ = root: the mean (±2 SE), the
    empirical (1 − β) quantile (dotted) and the bound that holds w.p. ≥ 1 − β (dashed).

    ``psda_curves`` is :func:`~ldp_helpers.experiments.tutorial_protocols.psda_error_curves`' result over ``betas``.

    References
    ----------
    [chen2016pldp] (max absolute count error vs β).
    """
    betas = check_real_array("betas", betas, low=0.0, high=1.0).ravel()
    if (
        not isinstance(psda_curves, dict)
        or set(psda_curves) != {"personal", "root"}
        or not all(
            isinstance(r, dict)
            and isinstance(r.get("max_error"), Curve)
            and all(
                np.shape(x) == betas.shape
                for x in (r["max_error"].mean, r.get("quantile"), r.get("bound"))
            )
            for r in psda_curves.values()
        )
    ):
        fail_type(
            "psda_curves", psda_curves, f"psda_error_curves' result over the {betas.size} betas"
        )
    n_users = check_int("n_users", n_users, low=1)
    n_locations = check_int("n_locations", n_locations, low=1)
    epsilon = check_epsilon(epsilon)
    fig, ax = plt.subplots(figsize=(10, 4.2))
    for j, (name, label) in enumerate(
        (("personal", "parent region"), ("root", r"root ($\varepsilon$-LDP)"))
    ):
        r = psda_curves[name]
        _errorbars(
            ax, betas, r["max_error"], marker="o", color=f"C{j}", label=f"{label}: mean max error"
        )
        for key, ls, what in (
            ("quantile", ":", r"$(1-\beta)$ quantile"),
            ("bound", "--", r"bound (w.p. $\geq 1-\beta$)"),
        ):
            ax.plot(betas, r[key], ls=ls, color=f"C{j}", label=f"{label}: {what}")
    ax.set(
        xscale="log",
        xlabel=r"confidence parameter $\beta$",
        ylabel=r"$\max_l |\hat s_l - s_l|$ (users)",
        title=rf"PSDA, $n = {n_users:,}$, $\varepsilon = {epsilon:g}$, {n_locations} locations",
    )
    ax.set_xticks(betas, [f"{b:g}" for b in betas])
    ax.minorticks_off()
    ax.invert_xaxis()
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig
