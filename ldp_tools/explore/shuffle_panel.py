"""The shuffle panel: n, ε₀, δ, k → the exact central ε_c, each paper's bound, and their curves against n.

Widgets and layout only: the numbers are :func:`~ldp_tools.explore.shuffle.shuffle_state`'s (the
functions of :mod:`ldp_helpers.bounds.shuffle` and :mod:`ldp_helpers.bounds.shuffle_bounds`).  A
refused value — also an n whose exact profile would take over a second — shows the library's message,
with the allowed range, in the panel, which keeps working.

References
----------
[erlingsson2019]; [balle2019blanket] §5; [feldman2021clones]; [wang2024shuffle].
"""

from __future__ import annotations

import html
import math

import numpy as np

from ldp_tools.explore import _controls as c
from ldp_tools.explore._widgets import (
    Panel,
    build,
    figure_for,
    fmt,
    outside_legend,
    power_of_ten_ticks,
    show_figure,
)
from ldp_tools.explore.shuffle import BOUNDS, K_MAX, N_MAX, NUMERICAL, shuffle_state

#: a bound's colour and line: closed forms dashed, numerical bounds solid with markers
STYLES = {name: (f"C{i}", "-" if name in NUMERICAL else "--") for i, name in enumerate(BOUNDS)}


def _mechanism(k: int) -> str:
    return "binary RR" if k == 2 else f"{k}-RR"


def _setup_shuffle(fig) -> dict:
    ax = fig.add_axes((0.075, 0.12, 0.6, 0.78))
    lines = {
        name: ax.plot(
            [], [], color=colour, ls=style, lw=1.5, marker="o" if style == "-" else None, ms=3.5
        )[0]
        for name, (colour, style) in STYLES.items()
    }
    (exact,) = ax.plot([], [], color="black", lw=2.6, marker="o", ms=3.5)
    local = ax.axhline(1.0, color="grey", ls=":", lw=1.2)
    chosen = ax.axvline(1.0, color="black", lw=0.9, alpha=0.6, label="chosen n")
    (points,) = ax.plot([], [], "D", color="black", ms=6, mfc="white", mew=1.4)
    ax.set(xscale="log", yscale="log", xlabel="n (users)", ylabel="central ε_c")
    power_of_ten_ticks(ax.xaxis)
    power_of_ten_ticks(ax.yaxis)  # plain Unicode: no mathtext parsed per redraw
    title = ax.set_title("", loc="left")
    return dict(
        ax=ax, lines=lines, exact=exact, local=local, chosen=chosen, points=points, title=title
    )


def _table(state, k: int) -> str:
    """The setting's numbers as a small HTML table: the exact ε_c, then each bound or "n/a" with the reason."""
    num = "style='text-align:right;padding:0 1em'"  # a number's cell
    head = (
        "<table class='ldp-shuffle-table' style='border-collapse:collapse;margin:.3em 0'>"
        "<tr><th style='text-align:left;padding:0 1em 0 0'>central ε_c at this setting</th>"
        f"<th {num}>ε_c</th><th {num}>÷ exact</th><th style='text-align:left'>note</th></tr>"
    )
    exact_row = (
        f"<tr><td><b>exact</b> (shuffled {_mechanism(k)})</td>"
        f"<td {num}><b class='ldp-shuffle-exact'>{state.exact:.4g}</b></td>"
        f"<td {num}>1</td><td></td></tr>"
    )
    rows = "".join(
        f"<tr><td>{html.escape(r.name)}</td>"
        + (
            f"<td {num}>n/a</td><td></td>"
            if math.isnan(r.epsilon_c)
            else f"<td {num}>{r.epsilon_c:.4g}</td>"
            f"<td {num}>{r.epsilon_c / state.exact if state.exact > 0 else math.inf:.3g}</td>"
        )
        + f"<td>{html.escape(r.note)}</td></tr>"
        for r in state.rows
    )
    return head + exact_row + rows + "</table>"


def _draw_shuffle(panel: Panel, *, n, epsilon0, delta, k) -> None:
    s = shuffle_state(n=n, epsilon0=epsilon0, delta=delta, k=k)
    panel.summary.value = (
        f"n = {n:,}, ε₀ = {fmt(epsilon0)}, δ = {delta:.3g}, k = {k} ({_mechanism(k)}): exact central "
        f"ε_c = <b>{s.exact:.4g}</b> between neighbouring datasets whose other users hold one value (the "
        f"worst case over all datasets can be higher); each bound holds for every dataset, so must lie "
        f"above it." + _table(s, k)
    )
    fig, a = figure_for(panel, _setup_shuffle, figsize=(10.5, 4.4))
    grid = s.n_grid.astype(float)
    shown = [a["exact"]]
    a["exact"].set_data(grid, np.where(s.exact_curve > 0, s.exact_curve, np.nan))
    a["exact"].set_label(f"exact (shuffled {_mechanism(k)})")
    for name, line in a["lines"].items():
        line.set_data(grid, s.bound_curves[name])
        line.set_visible(bool(np.isfinite(s.bound_curves[name]).any()))
        if line.get_visible():
            shown.append(line)
            line.set_label(name)
    a["local"].set_ydata([epsilon0, epsilon0])
    a["local"].set_label(f"local ε₀ = {fmt(epsilon0)}")
    a["chosen"].set_xdata([n, n])
    a["chosen"].set_label(f"chosen n = {n:,}")
    at_n = [s.exact] + [r.epsilon_c for r in s.rows]
    a["points"].set_data([n] * len(at_n), [v if v > 0 else np.nan for v in at_n])
    a["points"].set_label("values at the chosen n")
    values = np.concatenate([s.exact_curve, *s.bound_curves.values(), at_n, [epsilon0]])
    positive = values[np.isfinite(values) & (values > 0)]
    a["ax"].set_xlim(min(grid[0], n) / 1.5, grid[-1] * 1.5)
    # whole decades: at least two labelled ticks, whatever the range
    low, high = math.floor(math.log10(positive.min())), math.ceil(math.log10(positive.max()))
    a["ax"].set_ylim(10.0**low, 10.0 ** max(high, low + 1))
    handles = [*shown, a["local"], a["chosen"], a["points"]]
    if a.get("legend") is None or a["legend"][0] != handles:
        a["legend"] = (handles, outside_legend(a["ax"], handles))
    else:
        for text, handle in zip(a["legend"][1].get_texts(), handles):
            text.set_text(handle.get_label())
    a["title"].set_text(
        f"amplification by shuffling: {_mechanism(k)}, ε₀ = {fmt(epsilon0)}, central δ = {delta:.3g}"
    )
    by_n = {
        int(m): (s.exact_curve[j], *(s.bound_curves[name][j] for name in BOUNDS))
        for j, m in enumerate(s.n_grid)
    }
    by_n.setdefault(n, at_n)  # the chosen n, when it is not on the curves' grid
    rows = [
        tuple("" if isinstance(v, float) and math.isnan(v) else v for v in (m, *by_n[m], m == n))
        for m in sorted(by_n)
    ]
    bounds = (
        name.lower().replace(" (hoeffding)", "_hoeffding").replace(" ", "_") for name in BOUNDS
    )
    show_figure(panel, ("n", "exact_epsilon_c", *bounds, "is_chosen_n"), rows)


def shuffle_panel(*, n=10_000, epsilon0=2.0, delta=1e-6, k=2) -> Panel:
    """Shuffle model: the exact central ε_c of shuffled k-RR and the papers' bounds at (n, ε₀, δ), and against n.

    References
    ----------
    [erlingsson2019]; [balle2019blanket] §5; [feldman2021clones]; [wang2024shuffle];
    notebook ``08_shuffle_model`` §§1–3.
    """
    defaults = dict(n=n, epsilon0=epsilon0, delta=delta, k=k)
    shuffle_state(**defaults)  # bad defaults are refused here, as every interaction
    controls = {
        "n": c.number(n, 2, N_MAX[2], "n (users)", integer=True, log=True),
        "epsilon0": c.number(float(epsilon0), 0.01, 20.0, "ε₀ (local)", log=True),
        "delta": c.number(float(delta), 1e-15, 0.5, "δ (central)", log=True),
        "k": c.number(k, 2, K_MAX, "k (k-RR values)", integer=True, log=True),
    }
    return build(
        "shuffle",
        controls,
        _draw_shuffle,
        "Shuffle model: exact central ε_c vs the papers' bounds",
        defaults=defaults,
    )


BUILDERS = {"shuffle": shuffle_panel}
