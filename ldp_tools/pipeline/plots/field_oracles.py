"""Figures of notebook 07 (the field's oracles and deployments): arrays in, a matplotlib Figure out, nothing printed or saved.

Curves are labelled with the registry's labels; SS (the asymptotically optimal oracle of [ye2018]) is drawn
black and thick as the reference.  Every text keeps the style's sizes (legends 9 pt, the rest 10–11 pt) and
no figure is wider than ``MAX_WIDTH`` inches with its legend, so that the book, which fits a figure to its
948 px column, shows every letter at 10 px or more; long legends sit outside the axes.  The heavy-hitter figure is
:func:`~ldp_tools.pipeline.plots.heavy_hitter_scaling.scaling_figure`.

References
----------
[wang2017] §4; [ye2018]; [acharya2019]; [cormode2021]; [arcolezi2022]; [arcolezi2021]; [ding2017].
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import TABLEAU_COLORS, ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ldp_helpers._validation import (
    Described,
    check_epsilon,
    check_epsilons,
    check_int,
    check_int_array,
    check_ndim,
    check_real_array,
    fail,
)
from ldp_helpers.bounds.wang2017 import de_threshold
from ldp_helpers.experiments.field_oracles import oracle_keys
from ldp_helpers.mechanisms.registry import REGISTRY

_REFERENCE = "ss"  # drawn black: the asymptotically optimal oracle
MAX_WIDTH = 11.4  # inches: a 9 pt legend is >= 10 px in the book's 948 px column (948 / (72 * 11.4) px per pt)
_OUTSIDE = dict(loc="upper left", bbox_to_anchor=(1.01, 1.0))  # a long legend: right of the axes


def _keys(keys) -> tuple:
    if (
        isinstance(keys, str)
        or not isinstance(keys, (list, tuple))
        or not keys
        or any(k not in oracle_keys() for k in keys)
    ):
        fail("keys", keys, "a non-empty list of frequency-oracle keys of the registry")
    return tuple(keys)


def _table(name, table, rows: int, columns: int) -> np.ndarray:
    table = check_ndim(name, table, 2)
    if table.dtype.kind not in "fiub" or np.isnan(table).any() or not np.isfinite(table).any():
        fail(
            name,
            Described(f"an array of dtype {table.dtype}"),
            "real numbers, no NaN, some finite (∞: refused)",
        )
    if table.shape != (rows, columns):
        fail(
            name,
            Described(f"an array of shape {table.shape}"),
            f"shape ({rows}, {columns}): one row per key, one column per grid point",
        )
    return np.where(np.isinf(table), np.nan, table.astype(float))  # a refused point is not drawn


#: ten distinct colours (matplotlib's tab10), the same for every figure of the notebook; a key's colour is fixed by
#: its place among the frequency oracles of the registry, so a curve keeps its colour from figure to figure
_COLOURS = tuple(TABLEAU_COLORS.values())


def _colour(key: str) -> str:
    return "k" if key == _REFERENCE else _COLOURS[oracle_keys().index(key) % len(_COLOURS)]


def _style(key: str) -> dict:
    if key == _REFERENCE:
        return dict(color="k", lw=2.6, zorder=5)
    return dict(
        color=_colour(key),
        ls=("-", "--", ":", "-.")[(oracle_keys().index(key) // len(_COLOURS)) % 4],
        lw=1.3,
    )


def _panels(count: int, **kwargs):
    """A row of ``count`` panels, narrow enough for a legend outside (:data:`MAX_WIDTH`)."""
    return plt.subplots(
        1, count, figsize=(min(4.4 * count, MAX_WIDTH - 2.6), 4.6), squeeze=False, **kwargs
    )


def _log_log(keys, x, table, guide=None, guide_label="", **labels) -> Figure:
    """One log–log panel: a dotted curve per oracle of ``keys`` (the rows of ``table``) over ``x``,
    then ``guide`` (a reference curve) dotted black; ``labels``: the axes' xlabel, ylabel, title."""
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for key, curve in zip(keys, table):
        ax.plot(x, curve, marker=".", label=REGISTRY[key].label, **_style(key))
    if guide is not None:
        ax.plot(x, guide, "k:", lw=2, label=guide_label)
    ax.set(xscale="log", yscale="log", **labels)
    ax.legend(**_OUTSIDE)
    return fig


def risk_figure(keys, epsilons, risks: dict) -> Figure:
    """One panel per d: the scaled risk n·E‖p̂ − p‖²₂ of each oracle against ε (log scale), SS black.

    ``risks`` maps d to :func:`~ldp_helpers.experiments.field_oracles.scaled_risk`'s table for ``keys``.

    References
    ----------
    [ye2018] (ℓ2² risk; SS); [wang2017] Theorem 2.
    """
    keys, grid = _keys(keys), check_epsilons(epsilons).ravel()
    if not isinstance(risks, dict) or not risks:
        fail("risks", risks, "a non-empty dict of d -> scaled_risk table")
    fig, axes = _panels(len(risks))
    for ax, (d, table) in zip(axes[0], risks.items()):
        table = _table("risks", table, len(keys), grid.size)
        for key, curve in zip(keys, table):
            ax.plot(grid, curve, label=REGISTRY[key].label, **_style(key))
        ax.set(
            yscale="log",
            xlabel=r"budget $\varepsilon$",
            title=f"$d = {check_int('d', d, low=2)}$ values",
        )
    axes[0, 0].set_ylabel(r"scaled risk $n\,\mathrm{E}\|\hat p - p\|_2^2$ (flat population)")
    axes[0, -1].legend(title="SS (black): the reference", **_OUTSIDE)
    return fig


def phase_figure(keys, epsilons, ds, maps: dict) -> Figure:
    """Which oracle has the smallest exact risk at each (ε, d): one panel per map (title → index map), with
    Wang et al.'s DE/OUE boundary d = 3e^ε + 2 dashed.

    ``maps`` maps a panel title to :func:`~ldp_helpers.experiments.field_oracles.best_oracle_map`'s result.

    References
    ----------
    [wang2017] §4.4 (d < 3e^ε + 2); [ye2018]; [acharya2019].
    """
    keys, grid = _keys(keys), check_epsilons(epsilons).ravel()
    ds = check_int_array("ds", ds, low=2).ravel()
    if not isinstance(maps, dict) or not maps:
        fail("maps", maps, "a non-empty dict of panel title -> best_oracle_map result")
    tables = {title: _table("maps", m, ds.size, grid.size).astype(int) for title, m in maps.items()}
    used = sorted({int(i) for t in tables.values() for i in np.unique(t) if i >= 0})
    colours = {i: _colour(keys[i]) for i in used}
    cmap = ListedColormap([colours[i] for i in used])
    fig, axes = _panels(len(tables), sharey=True)
    for ax, (title, table) in zip(axes[0], tables.items()):
        index = np.where(table >= 0, np.searchsorted(used, table), np.nan)  # −1: no oracle, blank
        ax.pcolormesh(
            grid,
            ds,
            np.ma.masked_invalid(index),
            cmap=cmap,
            vmin=-0.5,
            vmax=len(used) - 0.5,
            shading="nearest",
        )
        ax.plot(grid, de_threshold(grid), color="m", ls="--", lw=2)
        ax.set(yscale="log", ylim=(ds.min(), ds.max()), xlabel=r"budget $\varepsilon$", title=title)
    axes[0, 0].set_ylabel("domain size $d$")
    handles = [Patch(color=colours[i], label=REGISTRY[keys[i]].label) for i in used]
    handles.append(
        plt.Line2D([], [], color="m", ls="--", lw=2, label=r"$d = 3e^\varepsilon + 2$ [wang2017]")
    )
    axes[0, -1].legend(handles=handles, **_OUTSIDE)  # outside: no patch on its colour
    return fig


def mse_n_figure(keys, n_grid, mse, *, epsilon: float, d: int) -> Figure:
    """Mean squared error of the frequency estimates against n (log–log) for each oracle at (ε, d).

    References
    ----------
    [cormode2021] (the sketches' collisions); [wang2017] Theorem 2.
    """
    keys, epsilon, d = _keys(keys), check_epsilon(epsilon), check_int("d", d, low=2)
    n_grid = check_int_array("n_grid", n_grid, low=1).ravel()
    mse = _table("mse", mse, len(keys), n_grid.size)
    return _log_log(
        keys,
        n_grid,
        mse,
        xlabel="number of users $n$",
        ylabel=r"MSE of $\hat f(x)/n$ (mean over $x$)",
        title=rf"$\varepsilon = {epsilon:g}$, $d = {d}$ (flat population)",
    )


def bits_figure(keys, ds, bits, *, epsilon: float) -> Figure:
    """Bits per report against d (log–log) for each oracle at ε, with HR's bound log2 d + 2 dotted.

    References
    ----------
    [wang2017] §4; [acharya2019] (at most log k + 2 bits).
    """
    keys, epsilon = _keys(keys), check_epsilon(epsilon)
    ds = check_int_array("ds", ds, low=2).ravel()
    bits = _table("bits", bits, len(keys), ds.size)
    return _log_log(
        keys,
        ds,
        bits,
        np.log2(ds) + 2,
        r"$\log_2 d + 2$ [acharya2019]",
        xlabel="domain size $d$",
        ylabel="bits per report",
        title=rf"report size at $\varepsilon = {epsilon:g}$",
    )


def server_figure(keys, ds, seconds, *, n: int, epsilon: float) -> Figure:
    """Measured server time (aggregate + estimate of all d counts) against d (log–log) for each oracle, with the
    slope of n·d work dotted through the slowest oracle's first point.  ``seconds`` is
    :func:`~ldp_helpers.experiments.field_oracles.server_seconds`' result per d (columns): machine-dependent,
    so the notebook shows this figure and never saves it.

    References
    ----------
    [wang2017] §4.4 (OLH: O(nd)); [acharya2019] §1 (HR: O(n + d log d)).
    """
    keys, epsilon = _keys(keys), check_epsilon(epsilon)
    n = check_int("n", n, low=1)
    ds = check_int_array("ds", ds, low=2).ravel()
    seconds = _table("seconds", seconds, len(keys), ds.size)
    if np.any(seconds <= 0) or np.all(np.isnan(seconds[:, 0])):
        fail(
            "seconds",
            Described("a table with a time <= 0 or no finite time at the first d"),
            "positive times (log axes), at least one finite at the first d",
        )
    slowest = int(np.nanargmax(seconds[:, 0]))
    return _log_log(
        keys,
        ds,
        seconds * 1e3,
        seconds[slowest, 0] * 1e3 * ds / ds[0],
        r"$\propto n d$ (through the slowest)",
        xlabel="domain size $d$",
        ylabel="server time (ms, this machine)",
        title=rf"server: aggregate + estimate of $n = {n:,}$ reports at $\varepsilon = {epsilon:g}$",
    )


def longitudinal_figure(
    taus, epsilons: dict, variances: dict, *, epsilon: float, epsilon_permanent: float, d: int
) -> Figure:
    """Left: ε of τ reports with memoization (each longitudinal oracle) and without (τ·ε₁), ε₁ and ε∞ marked.
    Right: each oracle's exact and approximate per-user variance (bars).

    ``epsilons`` is :func:`~ldp_helpers.experiments.field_deployments.longitudinal_epsilons`' result,
    ``variances`` :func:`~ldp_helpers.experiments.field_deployments.longitudinal_variances`'.

    References
    ----------
    [erlingsson2014] Theorem 1; [arcolezi2022].
    """
    taus = check_int_array("taus", taus, low=1).ravel()
    epsilon, d = check_epsilon(epsilon), check_int("d", d, low=2)
    eps_inf = check_epsilon(epsilon_permanent, "epsilon_permanent")
    if not isinstance(epsilons, dict) or "fresh" not in epsilons:
        fail("epsilons", Described(type(epsilons).__name__), "longitudinal_epsilons' result")
    if not isinstance(variances, dict) or not variances:
        fail("variances", Described(type(variances).__name__), "longitudinal_variances' result")
    fig, (left, right) = plt.subplots(1, 2, figsize=(MAX_WIDTH, 4.6))
    for i, (key, curve) in enumerate(epsilons.items()):
        curve = check_real_array("epsilons", np.asarray(curve, dtype=float), low=None)
        fresh = key == "fresh"
        left.plot(
            taus,
            curve,
            marker=".",
            color="0.5" if fresh else f"C{i}",
            ls="--" if fresh else "-",
            label="no memoization: $\\tau\\varepsilon_1$" if fresh else REGISTRY[key].label,
        )
    left.axhline(eps_inf, color="k", lw=1.5, label=r"$\varepsilon_\infty$")
    left.axhline(epsilon, color="k", ls=":", label=r"$\varepsilon_1$")
    left.set(
        xscale="log",
        ylim=(0, 1.6 * eps_inf),
        xlabel=r"reports of an unchanged value $\tau$",
        ylabel=r"exact $\varepsilon_\tau$",
        title=rf"$\varepsilon_1 = {epsilon:g}$, $\varepsilon_\infty = {eps_inf:g}$, $d = {d}$",
    )
    left.legend()
    labels = list(variances)
    x = np.arange(len(labels))
    exact, approx = (np.array([variances[k][i] for k in labels], dtype=float) for i in (0, 1))
    # a refused setting is not drawn
    exact, approx = (np.where(np.isinf(v), np.nan, v) for v in (exact, approx))
    right.bar(x - 0.2, exact, 0.4, label="exact (flat population)")
    right.bar(x + 0.2, approx, 0.4, label=r"approximate $q^*(1-q^*)/(p^*-q^*)^2$")
    right.set(
        xticks=x,
        yscale="log",
        xlabel="longitudinal oracle",
        ylabel="variance of $\\hat c(x)$ per user",
        title="one report at $\\varepsilon_1$",
    )
    right.set_xticklabels([REGISTRY[k].label.split(" ")[0] for k in labels])
    right.legend()
    return fig


def multidimensional_figure(epsilons, mse: dict, *, domain_sizes, n_users: int) -> Figure:
    """MSE of the marginal frequency estimates against ε (log scale) for each multidimensional solution.

    ``mse`` is :func:`~ldp_helpers.experiments.field_deployments.multidimensional_mse`'s result.

    References
    ----------
    [arcolezi2021]; [wang2019].
    """
    grid = check_epsilons(epsilons).ravel()
    sizes = check_int_array("domain_sizes", domain_sizes, low=2).ravel()
    n_users = check_int("n_users", n_users, low=1)
    if not isinstance(mse, dict) or not mse:
        fail("mse", mse, "a non-empty dict of solution label -> MSE per ε")
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for i, (label, curve) in enumerate(mse.items()):
        curve = check_real_array("mse", curve, low=0.0)
        if curve.shape != grid.shape:
            fail(
                "mse",
                Described(f"{label!r}: {curve.size} values"),
                f"one value per ε ({grid.size})",
            )
        ax.plot(
            grid,
            curve,
            marker="o" if label.startswith("RS") else "s",
            ls=":" if "whole-tuple" in label else "-",
            color=f"C{i}",
            label=label,
        )
    ax.set(
        yscale="log",
        xlabel=r"budget $\varepsilon$",
        ylabel="MSE of the marginal frequencies",
        title=f"{sizes.size} attributes, domains {tuple(int(k) for k in sizes)}, $n = {n_users:,}$ (generated)",
    )
    ax.legend(title="RS+FD (solid): oracle at the paper's ε'")
    return fig
