"""ipywidgets panels of the explorer: the frequency-oracle playground and the privacy–utility panel.

Each panel is a :class:`Panel`: its controls, an HTML summary (the numbers), an HTML message
(empty, or the library's ``ValueError`` message for a refused value — never a traceback; the panel
keeps working) and an Output widget holding the figure as a PNG.  The computations are the pure
functions of :mod:`ldp_helpers.explore.oracles`; the figure is drawn on a bare
:class:`matplotlib.figure.Figure` (no pyplot state).

References
----------
[wang2017] §4; [grr_vs_oue] §3.6, Fig. 3.7; [tutorial] "Frequency Oracles".
"""

from __future__ import annotations

import functools
import html
import io
from dataclasses import dataclass, field

import numpy as np

from ldp_helpers._validation import check_choice, check_epsilon, check_int, check_real
from ldp_helpers.explore.oracles import POPULATIONS, oracle_keys, oracle_ranking, playground_state, privacy_utility_curves
from ldp_helpers.mechanisms.registry import REGISTRY

PANELS = ("playground", "privacy_utility")


@dataclass
class Panel:
    """A live panel: ``widget`` (what is displayed), its ``controls`` by name, ``summary``, ``message``, ``output``."""

    name: str
    widget: object
    controls: dict
    summary: object
    message: object
    output: object
    png: list = field(default_factory=list)  # the last rendered figure's PNG bytes (png[-1])

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def _fmt(x) -> str:
    return x if isinstance(x, str) else f"{x:.4g}"


def _show_figure(panel: Panel, fig) -> None:
    from IPython.display import Image, display

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    panel.png.append(buf.getvalue())
    del panel.png[:-1]
    panel.output.clear_output(wait=True)
    with panel.output:
        display(Image(data=panel.png[-1], format="png"))


def _wire(panel: Panel, redraw) -> Panel:
    """Call ``redraw(**values)`` now and on every change; a refused value shows the library's message."""

    def update(_change=None):
        values = {name: w.value for name, w in panel.controls.items()}
        try:
            redraw(panel, **values)
        except ValueError as err:  # also the library's ParameterTypeError
            panel.message.value = f'<span style="color:#b00020">refused: {html.escape(str(err))}</span>'
            return
        panel.message.value = ""

    for w in panel.controls.values():
        w.observe(update, names="value")
    update()
    return panel


def _build(name: str, controls: dict, redraw, title: str) -> Panel:
    import ipywidgets as w

    summary, message, output = w.HTML(), w.HTML(), w.Output()
    box = w.VBox([w.HTML(f"<h3>{html.escape(title)}</h3>"), w.HBox(list(controls.values())[:4]),
                  w.HBox(list(controls.values())[4:]), message, summary, output])
    box.add_class(f"ldp-panel-{name}")
    for cls, part in (("summary", summary), ("message", message), ("output", output), *controls.items()):
        part.add_class(f"ldp-{name}-{cls}")
    return _wire(Panel(name, box, controls, summary, message, output), redraw)


# ------------------------------------------------------------------------------------ playground


def _draw_playground(panel: Panel, *, mechanism_key, epsilon, d, n, population, zipf_s, seed) -> None:
    from matplotlib.figure import Figure

    s = playground_state(mechanism_key, epsilon, d, n, population, zipf_s=zipf_s, seed=seed)
    ranking = oracle_ranking(epsilon, s.true_counts.size, n, population, zipf_s=zipf_s)
    panel.summary.value = (
        f"<b>{html.escape(s.label)}</b>, ε = {_fmt(float(epsilon))}, d = {s.true_counts.size}, n = {int(s.true_counts.sum()):,}: "
        f"whole-report ε from the table = <b class='ldp-eps'>{_fmt(s.whole_report_epsilon)}</b>, "
        f"report size = {s.report_bits} bits, exact MSE = <b class='ldp-mse'>{s.mse:.6g}</b>; "
        f"lowest exact MSE here: <b>{html.escape(REGISTRY[ranking[0][0]].label)}</b> (rank of this oracle: "
        f"{[k for k, _ in ranking].index(mechanism_key) + 1} of {len(ranking)})")
    fig = Figure(figsize=(7, 3.4))
    ax = fig.add_subplot()
    x = np.arange(s.true_counts.size)
    ax.bar(x, s.true_counts, color="lightgrey", label="true count $f_i$")
    ax.errorbar(x, s.estimate, yerr=2 * s.sigma, fmt=".", color="C0", ms=4, lw=0.8, label=r"estimate $\hat c(i)$ ± 2σ (exact)")
    ax.set(xlabel="value i", ylabel="count", title=f"{s.label}: one exact survey (seed {seed})")
    ax.legend(fontsize=8)
    _show_figure(panel, fig)


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
    return _build("playground", controls, _draw_playground, "Frequency-oracle playground")


# ------------------------------------------------------------------------------------ privacy–utility


@functools.lru_cache(maxsize=32)
def _curves(d: int, n: int, epsilon_max: float):
    """The curves do not depend on the chosen ε: cached per (d, n, ε max) so moving ε only redraws."""
    return privacy_utility_curves(d, n, np.linspace(0.05, epsilon_max, 80))


def _draw_privacy_utility(panel: Panel, *, epsilon, d, n, epsilon_max) -> None:
    from matplotlib.figure import Figure

    epsilon = check_epsilon(epsilon)
    epsilon_max = check_real("epsilon_max", epsilon_max, low=0.2, high=20.0, low_open=False, high_open=False)
    curves = _curves(check_int("d", d, low=2), check_int("n", n, low=1), epsilon_max)
    best, best_mse = oracle_ranking(epsilon, d, n, "uniform")[0]
    cross = ", ".join(f"{curves.labels[a]} → {curves.labels[b]} at ε ≈ {e:.3f}" for e, a, b in curves.crossovers) or "none"
    panel.summary.value = (f"d = {d}, n = {n:,}, ε = {_fmt(epsilon)}: lowest exact MSE "
                           f"<b class='ldp-best'>{html.escape(curves.labels[best])}</b> = <b class='ldp-mse'>{best_mse:.6g}</b>; "
                           f"crossovers of the best oracle: {html.escape(cross)}")
    fig = Figure(figsize=(7, 3.8))
    ax = fig.add_subplot()
    for i, key in enumerate(curves.exact):
        ax.plot(curves.epsilons, curves.exact[key], color=f"C{i}", label=f"{curves.labels[key]} (exact)")
        if key in curves.approx:
            ax.plot(curves.epsilons, curves.approx[key], color=f"C{i}", ls=":", lw=0.9)
    for e, _, _ in curves.crossovers:
        ax.axvline(e, color="grey", ls="--", lw=0.8)
    ax.axvline(epsilon, color="black", lw=1)
    ax.plot([], [], "k:", label="Wang's approximation (dotted)")
    ax.set(yscale="log", xlabel="privacy budget ε", ylabel="count MSE (mean over values)",
           title=f"exact MSE vs ε, flat population, d = {d}, n = {n:,} (dashed: crossovers)")
    ax.legend(fontsize=7, ncol=2)
    _show_figure(panel, fig)


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
    return _build("privacy_utility", controls, _draw_privacy_utility, "Privacy–utility: exact MSE vs ε")


def show_panel(name: str, **defaults) -> Panel:
    """Build the panel ``name`` (one of :data:`PANELS`) with these defaults and display it."""
    from IPython.display import display

    name = check_choice("name", name, PANELS)
    panel = (playground_panel if name == "playground" else privacy_utility_panel)(**defaults)
    display(panel)
    return panel
