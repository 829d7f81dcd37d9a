"""The explorer's widget plumbing: a :class:`Panel`, its persistent figure, wiring and the static fallback.

A panel is built once: its controls, an HTML summary (the numbers), an HTML message (empty, or
the library's ``ValueError`` message for a refused value — never a traceback; the panel keeps
working) and an Image widget holding the figure as a PNG.  The figure is one bare
:class:`matplotlib.figure.Figure` per panel, created on the first draw and then only updated
(``set_data``, ``set_segments``, ...): a redraw never rebuilds axes or legends.

:func:`display_panel` shows a panel as one output holding both the live widget view and a static
PNG of its first figure (plus a plain-text summary): a frontend running the kernel (JupyterLab,
Voilà) renders the widget; where no kernel drives it (papermill or nbval runs, a static viewer)
the PNG and the text stand in.  The PNG is never written to ``figures/``.
"""

from __future__ import annotations

import base64
import html
import io
import re
from dataclasses import dataclass, field

import numpy as np

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
#: resolution of the panels' PNGs (whatever the style's savefig.dpi)
FIGURE_DPI = 80


@dataclass
class Panel:
    """A live panel: ``widget`` (what is displayed), its ``controls`` by name, ``summary``, ``message``, ``output``.

    ``png[-1]`` is the last rendered figure's PNG bytes; ``figure`` and ``artists`` are the
    persistent figure and the artists a redraw updates (empty until the first draw).
    """

    name: str
    widget: object
    controls: dict
    summary: object
    message: object
    output: object
    png: list = field(default_factory=list)
    figure: object = None
    artists: dict = field(default_factory=dict)
    title: str = ""
    update: object = None  # update(overrides=None): recompute with the controls' values (and overrides)

    def _ipython_display_(self):
        display_panel(self)


def fmt(x) -> str:
    """A number with 4 significant digits (a string, e.g. :data:`~ldp_helpers.explore.oracles.UNAVAILABLE`, as is)."""
    return x if isinstance(x, str) else f"{x:.4g}"


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten_ticks(axis) -> None:
    """Label a log ``axis``'s decades as 10ⁿ in plain Unicode, not mathtext (which is re-parsed on every redraw).

    Minor ticks stay unlabelled; a redraw that moves the limits then costs no text parsing.
    """
    from matplotlib.ticker import FuncFormatter, NullFormatter

    def label(value, _position):
        exponent = round(float(np.log10(value))) if value > 0 else None
        return "" if exponent is None or not np.isclose(value, 10.0**exponent) else f"10{str(exponent).translate(_SUPERSCRIPTS)}"

    axis.set_major_formatter(FuncFormatter(label))
    axis.set_minor_formatter(NullFormatter())


def figure_for(panel: Panel, setup, *, figsize=(7.0, 3.4)):
    """The panel's persistent figure and artists: ``setup(fig) -> dict`` runs on the first call only."""
    if panel.figure is None:
        from matplotlib.figure import Figure
        from matplotlib.layout_engine import PlaceHolderLayoutEngine

        # fixed margins, whatever the style: an engine that does nothing (with none at all, savefig restores
        # "no engine" as the style's default, i.e. a constrained layout re-solved on every later draw)
        panel.figure = Figure(figsize=figsize, dpi=FIGURE_DPI,
                              layout=PlaceHolderLayoutEngine(adjust_compatible=True, colorbar_gridspec=True))
        panel.artists = setup(panel.figure)
    return panel.figure, panel.artists


def show_figure(panel: Panel) -> None:
    """Render the panel's figure to PNG (fixed layout, no tight bounding box) and show it in its Image widget.

    An Image widget rather than an Output widget: its PNG travels as widget state, so a kernel
    without a widget-aware client (nbval) sees no stray display or clear_output message.
    """
    buf = io.BytesIO()
    # the whole figure, never a style's savefig.bbox = "tight" (a second layout pass)
    panel.figure.savefig(buf, format="png", dpi=FIGURE_DPI, bbox_inches=panel.figure.bbox_inches)
    panel.png.append(buf.getvalue())
    del panel.png[:-1]
    panel.output.width = str(round(panel.figure.get_figwidth() * FIGURE_DPI))  # natural size, never stretched
    panel.output.value = panel.png[-1]


def rescale(ax) -> None:
    """Autoscale ``ax`` to its updated artists."""
    ax.relim()
    ax.autoscale_view()


def wire(panel: Panel, redraw) -> Panel:
    """Call ``redraw(panel, **values)`` now and on every change; a refused value shows the library's message."""

    def update(_change=None, overrides=None):
        values = {name: w.value for name, w in panel.controls.items()}
        values.update(overrides or {})  # e.g. text typed where a number belongs (what a text box would send)
        try:
            redraw(panel, **values)
        except ValueError as err:  # also the library's ParameterTypeError
            panel.message.value = f'<span style="color:#b00020">refused: {html.escape(str(err))}</span>'
            return
        panel.message.value = ""

    for w in panel.controls.values():
        w.observe(update, names="value")
    panel.update = lambda overrides=None: update(None, overrides)
    update()
    return panel


def build(name: str, controls: dict, redraw, title: str, *, per_row: int = 4) -> Panel:
    """The panel ``name``: a title, its controls (``per_row`` a row), message, summary, figure; wired to ``redraw``."""
    import ipywidgets as w

    summary, message, output = w.HTML(), w.HTML(), w.Image(format="png")
    items = list(controls.values())
    rows = [w.HBox(items[i:i + per_row]) for i in range(0, len(items), per_row)]
    box = w.VBox([w.HTML(f"<h3>{html.escape(title)}</h3>"), *rows, message, summary, output])
    box.add_class(f"ldp-panel-{name}")
    for cls, part in (("summary", summary), ("message", message), ("output", output), *controls.items()):
        part.add_class(f"ldp-{name}-{cls}")
    return wire(Panel(name, box, controls, summary, message, output, title=title), redraw)


def plain_summary(panel: Panel) -> str:
    """The summary without its HTML tags (the static fallback's text)."""
    return html.unescape(re.sub(r"<[^>]+>", "", panel.summary.value))


def display_panel(panel: Panel) -> None:
    """Display the live widget together with a static fallback (PNG of the current figure, plain-text summary).

    One output, three representations: frontends with a widget manager show the widget; others
    (papermill, nbval, static viewers) the PNG and the text.  nbval skips the widget view and the
    PNG, so only the deterministic text is compared.
    """
    from IPython.display import display

    bundle = {"text/plain": f"{panel.title} (live panel: needs a running kernel; static figure shown otherwise)\n"
                            f"{plain_summary(panel)}"}
    if panel.png:
        bundle["image/png"] = base64.b64encode(panel.png[-1]).decode("ascii")
    view = panel.widget._repr_mimebundle_() if hasattr(panel.widget, "_repr_mimebundle_") else {}
    if WIDGET_MIME in view:
        bundle[WIDGET_MIME] = view[WIDGET_MIME]
    display(bundle, raw=True)
