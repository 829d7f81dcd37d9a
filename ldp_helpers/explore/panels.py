"""ipywidgets panels of the explorer: the frequency-oracle playground and the privacy–utility panel; :func:`show_panel`.

Each panel is a :class:`~ldp_helpers.explore._widgets.Panel` (controls, summary, message, figure;
plumbing in :mod:`ldp_helpers.explore._widgets`).  The computations are the pure functions of
:mod:`ldp_helpers.explore.oracles`; each panel keeps one figure and updates its artists.  The
RAPPOR, continual-counting and m-shot panels are in :mod:`ldp_helpers.explore.paper_panels`.

References
----------
[wang2017] §4; [grr_vs_oue] §3.6, Fig. 3.7; [tutorial] "Frequency Oracles".
"""

from __future__ import annotations

import functools
import html

import numpy as np

from ldp_helpers._validation import check_choice, check_epsilon, check_int, check_real
from ldp_helpers.explore import paper_panels
from ldp_helpers.explore.oracles import (PHASE_KEYS, POPULATIONS, oracle_keys, oracle_ranking, phase_diagram, playground_state,
                                         privacy_utility_curves, report_size)
from ldp_helpers.explore._widgets import (Panel, build, display_panel, figure_for, fmt, power_of_ten_ticks, rescale,
                                          show_figure)
from ldp_helpers.mechanisms.registry import REGISTRY

PANELS = ("playground", "privacy_utility", *paper_panels.PANELS)
__all__ = ["PANELS", "Panel", "playground_panel", "privacy_utility_panel", "show_panel"]
_fmt = fmt

# ------------------------------------------------------------------------------------ playground

#: the phase diagram's grid (computed once, cached): ε and d (log-spaced up to 1024)
PHASE_EPSILONS = np.linspace(0.1, 8.0, 60)
PHASE_DS = np.unique(np.round(np.geomspace(2, 1024, 40)).astype(int))
PHASE_COLOURS = ("#a6bddb", "#fdbb84", "#a1d99b")


def _setup_playground(fig) -> dict:
    from matplotlib.collections import LineCollection
    from matplotlib.colors import ListedColormap
    from matplotlib.image import NonUniformImage
    from matplotlib.patches import Patch

    ax, phase = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 1.1], "wspace": 0.32})
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.15, top=0.88)
    truth = ax.stairs([0.0], [0.0, 1.0], fill=True, color="lightgrey", label="true count $f_i$")
    bands = ax.add_collection(LineCollection([], color="C0", lw=0.8, alpha=0.6, label=r"± 2σ (exact variance)"))
    est, = ax.plot([], [], ".", color="C0", ms=3, label=r"estimate $\hat c(i)$, one exact survey")
    ax.set(xlabel="value i", ylabel="count")
    ax.legend(fontsize=7, loc="upper right")
    # the map as one image on a log10(d) axis (an image draws in ~1 ms, a mesh of 2,400 quads in ~50 ms)
    table = phase_diagram(PHASE_EPSILONS, PHASE_DS)
    image = NonUniformImage(phase, interpolation="nearest", cmap=ListedColormap(PHASE_COLOURS))
    image.set_clim(-0.5, 2.5)
    image.set_data(PHASE_EPSILONS, np.log10(PHASE_DS), np.ma.masked_less(table, 0).astype(float))
    phase.add_image(image)
    point, = phase.plot([], [], "k*", ms=11)
    phase.set(xlabel="ε", ylabel="d", title="lowest exact MSE (flat population)",
              xlim=(PHASE_EPSILONS[0], PHASE_EPSILONS[-1]), ylim=(np.log10(1.8), np.log10(1200)))
    phase.set_yticks([1, 2, 3], ["10", "100", "1000"])
    phase.title.set_fontsize(8)
    phase.legend(handles=[Patch(color=c, label=REGISTRY[k].label) for c, k in zip(PHASE_COLOURS, PHASE_KEYS)],
                 fontsize=6, loc="upper left")
    return {"ax": ax, "truth": truth, "bands": bands, "est": est, "point": point}


def _draw_playground(panel: Panel, *, mechanism_key, epsilon, d, n, population, zipf_s, seed) -> None:
    s = playground_state(mechanism_key, epsilon, d, n, population, zipf_s=zipf_s, seed=seed)
    d = s.true_counts.size
    ranking = oracle_ranking(epsilon, d, n, population, zipf_s=zipf_s)
    size = report_size(mechanism_key, epsilon, d)
    panel.summary.value = (
        f"<b>{html.escape(s.label)}</b>, ε = {fmt(float(epsilon))}, d = {d}, n = {int(s.true_counts.sum()):,}: "
        f"whole-report ε from the table = <b class='ldp-eps'>{fmt(s.whole_report_epsilon)}</b>, "
        f"report size = <b class='ldp-bits'>{s.report_bits}</b> bits ({html.escape(size.how)}), "
        f"exact MSE = <b class='ldp-mse'>{s.mse:.6g}</b>; "
        f"lowest exact MSE here: <b>{html.escape(REGISTRY[ranking[0][0]].label)}</b> (rank of this oracle: "
        f"{[k for k, _ in ranking].index(mechanism_key) + 1} of {len(ranking)})")
    fig, a = figure_for(panel, _setup_playground, figsize=(9.0, 3.4))
    x = np.arange(d)
    a["truth"].set_data(s.true_counts.astype(float), np.arange(d + 1) - 0.5)
    a["est"].set_data(x, s.estimate)
    lo, hi = s.estimate - 2 * s.sigma, s.estimate + 2 * s.sigma
    a["bands"].set_segments(np.stack([np.stack([x, lo], 1), np.stack([x, hi], 1)], 1))
    a["ax"].set_xlim(-0.5, d - 0.5)
    a["ax"].set_ylim(min(0.0, float(lo.min())), 1.05 * max(float(hi.max()), float(s.true_counts.max())))
    a["ax"].set_title(f"{s.label}: one exact survey (seed {seed})", fontsize=9)
    a["point"].set_data([float(epsilon)], [np.log10(d)])
    show_figure(panel)


def playground_panel(*, mechanism_key="oue", epsilon=1.0, d=43, n=100_000, population="uniform", zipf_s=1.1,
                     seed=0) -> Panel:
    """Frequency-oracle playground: any registered oracle, ε, d, n and population → true vs estimated counts.

    Shows one exact survey with ±2σ bands from the exact variance, the whole-report ε from the
    output table ("—" when the table is too large), the report size and the exact MSE.

    References
    ----------
    [wang2017] Eq. (1), Theorem 2; [grr_vs_oue] §3.6.
    """
    import ipywidgets as w

    # bad defaults are refused here, by the same checks as every interaction (later ones show in the panel)
    playground_state(mechanism_key, epsilon, d, n, population, zipf_s=zipf_s, seed=seed)
    controls = {
        "mechanism_key": w.Dropdown(options=[(REGISTRY[k].label, k) for k in oracle_keys()], value=mechanism_key,
                                    description="oracle"),
        "epsilon": w.FloatText(value=check_epsilon(epsilon), description="ε", step=0.1),
        "d": w.IntText(value=d, description="d"),
        "n": w.IntText(value=n, description="n"),
        "population": w.Dropdown(options=list(POPULATIONS), value=population, description="population"),
        "zipf_s": w.FloatText(value=check_real("zipf_s", zipf_s, low=0.0, low_open=False), description="Zipf s", step=0.1),
        "seed": w.IntText(value=seed, description="seed"),
    }
    return build("playground", controls, _draw_playground, "Frequency-oracle playground")


# ------------------------------------------------------------------------------------ privacy–utility


@functools.lru_cache(maxsize=32)
def _curves(d: int, epsilon_max: float):
    """Exact curves at one user per value, cached per (d, ε max): moving ε only redraws, moving n only rescales.

    Every oracle's exact count variance is a sum over independent users, linear in the counts, so
    the variance of n users whose values are uniform on [0, d) is (n/d) × that at one user per value
    (exactly the flat split when d divides n, its expectation over the allocation otherwise); the
    fixed-hash sketches' bias² scales as (n/d)² (``PrivacyUtilityCurves.rescaled``).
    """
    return privacy_utility_curves(d, d, np.linspace(0.05, epsilon_max, 40))


def _setup_privacy_utility(fig) -> dict:
    from matplotlib.collections import LineCollection

    ax = fig.add_subplot()
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.13, top=0.9)
    lines = {}
    for i, key in enumerate(oracle_keys()):
        lines[key] = ax.plot([], [], color=f"C{i}", label=f"{REGISTRY[key].label} (exact)")[0]
        lines[key + ":approx"] = ax.plot([], [], color=f"C{i}", ls=":", lw=0.9)[0]
    cross = ax.add_collection(LineCollection([], colors="grey", linestyles="--", lw=0.8))
    now = ax.axvline(1.0, color="black", lw=1)
    ax.plot([], [], "k:", label="Wang's approximation (dotted)")
    ax.set(yscale="log", xlabel="privacy budget ε", ylabel="count MSE (mean over values)")
    power_of_ten_ticks(ax.yaxis)
    ax.legend(fontsize=7, ncol=2)
    return {"ax": ax, "lines": lines, "cross": cross, "now": now}


def _draw_privacy_utility(panel: Panel, *, epsilon, d, n, epsilon_max) -> None:
    epsilon = check_epsilon(epsilon)
    epsilon_max = check_real("epsilon_max", epsilon_max, low=0.2, high=20.0, low_open=False, high_open=False)
    curves = _curves(check_int("d", d, low=2), epsilon_max).rescaled(check_int("n", n, low=1))
    best, best_mse = oracle_ranking(epsilon, d, n, "uniform")[0]
    cross = ", ".join(f"{curves.labels[a]} → {curves.labels[b]} at ε ≈ {e:.3f}" for e, a, b in curves.crossovers) or "none"
    panel.summary.value = (f"d = {d}, n = {n:,}, ε = {fmt(epsilon)}: lowest exact MSE "
                           f"<b class='ldp-best'>{html.escape(curves.labels[best])}</b> = <b class='ldp-mse'>{best_mse:.6g}</b>; "
                           f"crossovers of the best oracle: {html.escape(cross)}")
    fig, a = figure_for(panel, _setup_privacy_utility, figsize=(7.5, 3.8))
    for key, values in curves.exact.items():
        a["lines"][key].set_data(curves.epsilons, values)
        a["lines"][key + ":approx"].set_data(curves.epsilons, curves.approx.get(key, np.full_like(values, np.nan)))
    finite = np.concatenate([v[np.isfinite(v) & (v > 0)] for v in curves.exact.values()])
    a["cross"].set_segments([[(e, finite.min()), (e, finite.max())] for e, _, _ in curves.crossovers])
    a["now"].set_xdata([epsilon, epsilon])
    a["ax"].set_xlim(0.0, epsilon_max)
    a["ax"].set_ylim(finite.min() / 1.5, finite.max() * 1.5)
    a["ax"].set_title(f"exact MSE vs ε, n = {n:,} users with uniform values over d = {d} (dashed: crossovers)",
                      fontsize=9)
    show_figure(panel)


def privacy_utility_panel(*, epsilon=1.0, d=43, n=100_000, epsilon_max=6.0) -> Panel:
    """Privacy–utility: exact MSE and Wang's approximation of every registered oracle vs ε, crossovers marked.

    References
    ----------
    [wang2017] Eq. (2), §4; [grr_vs_oue] Fig. 3.7.
    """
    import ipywidgets as w

    privacy_utility_curves(d, n, np.array([check_epsilon(epsilon), check_epsilon(epsilon_max, "epsilon_max")]))
    controls = {
        "epsilon": w.FloatText(value=check_epsilon(epsilon), description="ε", step=0.1),
        "d": w.IntText(value=d, description="d"),
        "n": w.IntText(value=n, description="n"),
        "epsilon_max": w.FloatText(value=epsilon_max, description="ε max", step=0.5),
    }
    return build("privacy_utility", controls, _draw_privacy_utility, "Privacy–utility: exact MSE vs ε")


def show_panel(name: str, **defaults) -> Panel:
    """Build the panel ``name`` (one of :data:`PANELS`) with these defaults and display it.

    Displayed as the live widget plus a static fallback (its first figure as a PNG and its
    summary as text) for runs where no frontend drives the widget (papermill, nbval, static
    viewers): see :func:`~ldp_helpers.explore._widgets.display_panel`.
    """
    name = check_choice("name", name, PANELS)
    builders = {"playground": playground_panel, "privacy_utility": privacy_utility_panel, **paper_panels.BUILDERS}
    panel = builders[name](**defaults)
    display_panel(panel)
    return panel
