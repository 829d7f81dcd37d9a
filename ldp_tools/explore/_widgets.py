"""The explorer's widget plumbing: a :class:`Panel`, its persistent figure, busy indicator, export links and fallback.

A panel is built once: a title bar (its busy indicator and its CSV / PNG downloads), its controls
(wrapping rows, :mod:`~ldp_tools.explore._controls`), an HTML message (empty, or the library's
``ValueError`` message for a refused value — never a traceback; the panel keeps working), an HTML
summary (the numbers) and an Image widget holding the figure as a PNG at :data:`FIGURE_DPI`.  The
figure is one :class:`matplotlib.figure.Figure` per panel, created on the first draw and then only
updated: a redraw never rebuilds axes or legends.  Every redraw also sets the panel's table (the
numbers behind the figure), offered as CSV beside the PNG.

:func:`display_panel` shows a panel as one output holding both the live widget view and a static
PNG of its first figure (plus a plain-text summary): a frontend running the kernel (JupyterLab,
Voilà) renders the widget; where no kernel drives it (papermill or nbval runs, a static viewer)
the PNG and the text stand in.  The PNG is never written to ``figures/``.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import os
import re
from dataclasses import dataclass, field

import numpy as np
from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.layout_engine import PlaceHolderLayoutEngine
from matplotlib.ticker import (
    FixedLocator,
    FuncFormatter,
    Locator,
    LogFormatterSciNotation,
    MaxNLocator,
    NullFormatter,
)
from PIL import Image

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
#: resolution of the panels' PNGs on screen (whatever the style's savefig.dpi)
FIGURE_DPI = 100
#: font sizes of the panels' figures (points; at FIGURE_DPI a point is 1.39 px)
TEXT, SMALL = 10.5, 9.5
#: shown while a redraw runs; visible only if it lasts over 0.3 s (a CSS animation delay: no flicker)
BUSY = (
    '<span class="ldp-busy" role="status"><style>.ldp-busy{animation:ldp-busy-show 0s linear .3s both;'
    "color:#5a4a00;background:#fff3c4;border-radius:3px;padding:1px 8px;font-weight:600}"
    "@keyframes ldp-busy-show{from{visibility:hidden}to{visibility:visible}}"
    '.ldp-busy:before{content:"";display:inline-block;width:.8em;height:.8em;margin-right:.4em;'
    "border:2px solid #5a4a00;border-right-color:transparent;border-radius:50%;animation:ldp-spin .8s linear infinite}"
    "@keyframes ldp-spin{to{transform:rotate(360deg)}}</style>computing…</span>"
)


@dataclass
class Panel:
    """A live panel: ``widget`` (what is displayed), its ``controls`` by name, ``summary``, ``message``, ``output``.

    ``png[-1]`` is the last rendered figure's PNG bytes and ``table`` (header, rows) the numbers
    behind it; ``figure`` and ``artists`` are the persistent figure and the artists a redraw updates.
    """

    name: str
    widget: object
    controls: dict
    summary: object
    message: object
    output: object
    busy: object
    downloads: object
    png: list = field(default_factory=list)
    table: tuple = ((), ())
    figure: object = None
    artists: dict = field(default_factory=dict)
    title: str = ""
    defaults: dict = field(default_factory=dict)
    # update(overrides=None): recompute with the controls' values (and overrides)
    update: object = None
    holding: bool = False  # set_values in progress: no redraw per control
    # the values of the last accepted redraw (what the figure shows)
    applied: dict = field(default_factory=dict)

    def _ipython_display_(self):
        display_panel(self)

    def settings(self) -> dict:
        """The controls' current values, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def set_values(self, values: dict, problems: list | None = None) -> None:
        """Set several controls, then redraw once; a value a control cannot hold is reported in ``problems``."""
        import traitlets

        self.holding = True
        try:
            for name, value in values.items():
                try:
                    self.controls[name].value = value
                except traitlets.TraitError as err:
                    if problems is not None:
                        problems.append(f"{self.name}.{name}: {err}")
        finally:
            self.holding = False
        self.update()


def fmt(x) -> str:
    """A number with 4 significant digits (a string, e.g. :data:`~ldp_tools.explore.oracles.UNAVAILABLE`, as is)."""
    return x if isinstance(x, str) else f"{x:.4g}"


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


class _UnicodeLogFormatter(LogFormatterSciNotation):
    """matplotlib's log-axis labels (10⁻², 2×10⁻²) in plain Unicode: no mathtext, whose parser costs
    about 0.1 s to build in each kernel and parses every new label."""

    def __call__(self, x, pos=None):
        label = super().__call__(x, pos).removeprefix("$\\mathdefault{").removesuffix("}$")
        return re.sub(
            r"\^\{(-?\d+)\}",
            lambda power: power[1].translate(_SUPERSCRIPTS),
            label.replace("\\times", "×"),
        )


def power_of_ten_ticks(axis, *, label_minor: bool = False) -> None:
    """Label a log ``axis``'s decades as 10ⁿ in plain Unicode, not mathtext (re-parsed at every
    redraw).

    Minor ticks stay unlabelled, so a redraw that moves the limits costs no text parsing; with
    ``label_minor`` they are labelled as matplotlib's default does (2×10ⁿ … on an axis spanning
    about a decade or less, where decades alone could leave no label).
    """
    axis.set_major_formatter(_UnicodeLogFormatter())
    axis.set_minor_formatter(
        _UnicodeLogFormatter(labelOnlyBase=False) if label_minor else NullFormatter()
    )


class InView(Locator):
    """The ticks of locator ``base`` that lie in the axis's view (those matplotlib draws), and no others.

    matplotlib makes a tick (two lines, a grid line and two labels, about 0.4 ms) for every location
    a locator gives, drawn or not; a log axis's minor locator gives a decade beyond each end of the view.
    """

    def __init__(self, base: Locator):
        self.base = base

    def set_axis(self, axis):
        super().set_axis(axis)
        self.base.set_axis(axis)

    def __call__(self):
        locs = np.asarray(self.base())
        to_screen = self.axis.get_transform().transform
        low, high = sorted(to_screen(np.asarray(self.axis.get_view_interval(), dtype=float)))
        slack = 1e-6 * (high - low)  # wider than matplotlib's own test: a tick at the edge stays
        with np.errstate(invalid="ignore", divide="ignore"):
            at = to_screen(locs.astype(float))
        return locs[(at >= low - slack) & (at <= high + slack)]

    def tick_values(self, vmin, vmax):
        return self.base.tick_values(vmin, vmax)

    # autoscaling asks the major locator for its limits: the wrapped locator's, unchanged
    def nonsingular(self, vmin, vmax):
        return self.base.nonsingular(vmin, vmax)

    def view_limits(self, vmin, vmax):
        return self.base.view_limits(vmin, vmax)

    def set_params(self, **kwargs):
        self.base.set_params(**kwargs)


def ticks_in_view(axis) -> None:
    """Give ``axis``'s major and minor locators only the ticks in view (:class:`InView`): the same
    drawing.

    Fixed ticks (``set_xticks``) stay as they are: their labels go by position in the list.
    """
    for locator, set_locator in (
        (axis.get_major_locator(), axis.set_major_locator),
        (axis.get_minor_locator(), axis.set_minor_locator),
    ):
        if not isinstance(locator, (InView, FixedLocator)):
            set_locator(InView(locator))


def count_ticks(axis, nbins=None) -> None:
    """Label an axis of counts in plain Unicode without an offset text: 12500, 2.5×10⁷ (no "1e7" over the plot).

    ``nbins`` caps the number of ticks (a horizontal axis whose labels are wide)."""

    def label(value, _position):
        if value == 0 or abs(value) < 1e5:
            return f"{value:g}"
        mantissa, exponent = f"{value:.2e}".split("e")
        return f"{float(mantissa):g}×10{str(int(exponent)).translate(_SUPERSCRIPTS)}"

    axis.set_major_formatter(FuncFormatter(label))
    if nbins is not None:
        axis.set_major_locator(MaxNLocator(nbins=nbins, steps=[1, 2, 2.5, 5, 10]))


def integer_ticks(axis) -> None:
    """Ticks on whole numbers only (values, candidates, bits)."""
    axis.set_major_locator(MaxNLocator(integer=True))


def outside_legend(ax, handles=None):
    """A legend to the right of ``ax``, outside the data (the figure reserves the margin)."""
    kwargs = {} if handles is None else {"handles": handles}
    return ax.legend(
        **kwargs,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        fontsize=SMALL,
        frameon=False,
    )


def figure_for(panel: Panel, setup, *, figsize):
    """The panel's persistent figure and artists: ``setup(fig) -> dict`` runs on the first call only.

    The figure keeps one Agg canvas, and so one renderer: every redraw reuses its pixel buffer and
    its cache of text extents (a new canvas per redraw measured every label again, 20-40 ms).
    """
    if panel.figure is None:
        # fixed margins, whatever the style: an engine that does nothing (with none at all, savefig restores
        # "no engine" as the style's default, i.e. a constrained layout re-solved on every later draw)
        with rc_context(
            {
                "font.size": TEXT,
                "axes.titlesize": TEXT,
                "axes.labelsize": TEXT,
                "xtick.labelsize": SMALL,
                "ytick.labelsize": SMALL,
                "legend.fontsize": SMALL,
                "axes.titley": 1.0,  # a fixed title height: no search of the axes' ticks on every draw
            }
        ):
            panel.figure = Figure(
                figsize=figsize,
                dpi=FIGURE_DPI,
                layout=PlaceHolderLayoutEngine(adjust_compatible=True, colorbar_gridspec=True),
            )
            FigureCanvasAgg(panel.figure)  # becomes panel.figure.canvas
            panel.artists = {**panel.artists, **setup(panel.figure)}
    return panel.figure, panel.artists


def show_figure(panel: Panel, header=(), rows=()) -> None:
    """Render the panel's figure to PNG, show it, and offer it and the table (``header``, ``rows``) for download.

    An Image widget rather than an Output widget: its PNG travels as widget state, so a kernel
    without a widget-aware client (nbval) sees no stray display or clear_output message.
    """
    # after any change of scale or locator: no tick is made that is not drawn
    for ax in panel.figure.axes:
        ticks_in_view(ax.xaxis)
        ticks_in_view(ax.yaxis)
    panel.png[:] = [_png(panel.figure)]
    panel.table = (tuple(header), tuple(rows))
    # natural size, never stretched
    panel.output.width = str(round(panel.figure.get_figwidth() * FIGURE_DPI))
    panel.output.value = panel.png[-1]
    png = base64.b64encode(panel.png[-1]).decode("ascii")
    data = base64.b64encode(table_csv(panel).encode("utf-8")).decode("ascii")
    panel.downloads.value = (
        f'<a class="ldp-download ldp-download-csv" download="ldp-{panel.name}.csv" '
        f'href="data:text/csv;charset=utf-8;base64,{data}">⤓ numbers (CSV)</a>'
        f'<a class="ldp-download ldp-download-png" download="ldp-{panel.name}.png" '
        f'href="data:image/png;base64,{png}">⤓ figure (PNG)</a>'
    )


def table_of(columns: dict) -> tuple[tuple, list]:
    """The (header, rows) :func:`show_figure` offers, from the table's columns (name → values)."""
    return tuple(columns), list(zip(*columns.values()))


def _png(figure) -> bytes:
    """The figure drawn once by its own Agg canvas (:func:`figure_for`), at its dpi, as PNG bytes.

    savefig would first draw it a second time, without rendering, for the layout engine (20-40 ms
    per redraw).  Its text is drawn without FreeType's hinting (antialiased outlines as they are:
    the same look, 40% less time per text).  An opaque figure (the panels' white ones) is stored as
    RGB at zlib level 1: the same pixels as matplotlib's RGBA PNG at level 6, a smaller file, a
    third less encoding time.
    """
    with rc_context({"text.hinting": "no_hinting"}):  # FreeType's hinting: 40% of each text's cost
        figure.canvas.draw()
    pixels = np.asarray(figure.canvas.buffer_rgba())
    image = Image.fromarray(pixels)
    if pixels[..., 3].min() == 255:
        image = image.convert("RGB")
    buf = io.BytesIO()
    image.save(buf, format="png", compress_level=1, dpi=(figure.dpi,) * 2)
    return buf.getvalue()


def table_csv(panel: Panel) -> str:
    """The panel's numbers as CSV text: a ``#`` line with the setting, then the header and the rows."""
    out = io.StringIO()
    setting = "; ".join(f"{name}={value}" for name, value in panel.settings().items())
    out.write(f"# ldp-notebooks explorer, panel {panel.name}: {setting}\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(panel.table[0])
    writer.writerows([_cell(v) for v in row] for row in panel.table[1])
    return out.getvalue()


def _cell(value):
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return value.item() if isinstance(value, np.generic) else value


def mean_errorbar(ax, color: str, label: str):
    """A line of means with error bars and caps (one placeholder point), moved by :func:`set_errorbar`."""
    return ax.errorbar(
        [1.0], [1.0], yerr=[0.0], fmt="o-", ms=4, lw=1.4, color=color, capsize=2.5, label=label
    )


def set_errorbar(container, x, y, yerr) -> None:
    """Move an ``errorbar`` container's line (if any), bars and caps to new points."""
    line, caps, (bars,) = container.lines
    if line is not None:
        line.set_data(x, y)
    yerr = np.nan_to_num(yerr)
    bars.set_segments(np.stack([np.stack([x, y - yerr], 1), np.stack([x, y + yerr], 1)], 1))
    for cap, sign in zip(caps, (-1, 1)):
        cap.set_data(x, y + sign * yerr)


def wire(panel: Panel, redraw) -> Panel:
    """Call ``redraw(panel, **values)`` now and on every change; a refused value is named and its control reverted.

    The busy indicator is set before the work (its message leaves the kernel at once) and cleared
    after; it shows only if the redraw lasts over 0.3 s.  The values of the last accepted redraw are
    :attr:`Panel.applied` (what the figure shows).  A change the library refuses (its ``ValueError``)
    leaves the figure as it was, shows ``refused: name = value — <the library's message>``, and puts
    every changed control back to the value in effect, so the boxes never show a value not drawn and
    the next change is judged on its own.
    """

    def update(_change=None, overrides=None):
        if panel.holding:
            return
        values = panel.settings()
        # e.g. text typed where a number belongs (what a text box would send)
        values.update(overrides or {})
        panel.busy.value = BUSY
        try:
            redraw(panel, **values)
        except ValueError as err:  # also the library's ParameterTypeError
            refuse(values, overrides or {}, err)
            return
        finally:
            panel.busy.value = ""
        panel.applied = values
        panel.message.value = ""

    def refuse(values: dict, overrides: dict, err: ValueError) -> None:
        changed = [
            name
            for name, value in values.items()
            if name not in panel.applied or not _same(value, panel.applied[name])
        ] or list(overrides)
        tried = ", ".join(f"{name} = {_shown(values[name])}" for name in changed)
        kept = [name for name in changed if name in panel.applied and name not in overrides]
        back = (
            f"; back to {', '.join(f'{n} = {_shown(panel.applied[n])}' for n in kept)}"
            if kept
            else ""
        )
        panel.message.value = refused(f"{tried} — {err}{back}")
        panel.holding = True
        try:
            for name in kept:
                panel.controls[name].value = panel.applied[name]
        finally:
            panel.holding = False

    for control in panel.controls.values():
        control.observe(update, names="value")
    panel.update = lambda overrides=None: update(None, overrides)
    update()
    return panel


def refused(text: str) -> str:
    """A refusal as the panels and the share bar show it: ``refused: <text>``, escaped, in red."""
    return f'<span style="color:#b00020;overflow-wrap:anywhere">refused: {html.escape(text)}</span>'


def _same(a, b) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def _shown(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return repr(value) if isinstance(value, str) else str(value)


STYLE = (
    "<style>.ldp-download{margin-left:1em;font-size:90%;text-decoration:none;border:1px solid #99a;"
    "border-radius:3px;padding:1px 6px;color:#223}.ldp-download:hover{background:#eef}"
    ".ldp-panel h3{margin:.2em 1em .2em 0}.ldp-panel{max-width:100%;overflow:hidden}</style>"
)


def build(name: str, controls: dict, redraw, title: str, *, defaults=None, artists=None) -> Panel:
    """The panel ``name``: a title bar, its controls (wrapping rows), message, summary, figure; wired to ``redraw``."""
    import ipywidgets as w

    summary, message, busy, downloads = w.HTML(), w.HTML(), w.HTML(), w.HTML()
    output = w.Image(
        format="png", layout=w.Layout(max_width="100%", height="auto", object_fit="contain")
    )
    head = w.HBox(
        [w.HTML(f"{STYLE}<h3>{html.escape(title)}</h3>"), busy, downloads],
        layout=w.Layout(align_items="center", flex_flow="row wrap"),
    )
    rows = w.Box(
        list(controls.values()), layout=w.Layout(display="flex", flex_flow="row wrap", width="100%")
    )
    box = w.VBox([head, rows, message, summary, output], layout=w.Layout(width="100%"))
    box.add_class("ldp-panel")
    box.add_class(f"ldp-panel-{name}")
    parts = dict(summary=summary, message=message, output=output, busy=busy, downloads=downloads)
    for cls, part in (*parts.items(), *controls.items()):
        part.add_class(f"ldp-{name}-{cls}")
    panel = Panel(name, box, controls, **parts, title=title, defaults=dict(defaults or {}))
    panel.artists.update(artists or {})
    return wire(panel, redraw)


def display_panel(panel: Panel) -> None:
    """Display the live widget and its static fallback as one output (module docstring).

    nbval skips the widget view and the PNG, so only the deterministic text is compared.
    """
    from IPython.display import display

    summary = html.unescape(re.sub(r"<[^>]+>", "", panel.summary.value))
    bundle = {
        "text/plain": f"{panel.title} (live panel: needs a running kernel; static figure shown otherwise)\n"
        + summary  # the summary without its tags
    }
    # Voilà always renders the widget: no fallback on its page
    if panel.png and "VOILA_PREHEAT" not in os.environ:
        bundle["image/png"] = base64.b64encode(panel.png[-1]).decode("ascii")
    view = panel.widget._repr_mimebundle_() if hasattr(panel.widget, "_repr_mimebundle_") else {}
    if WIDGET_MIME in view:
        bundle[WIDGET_MIME] = view[WIDGET_MIME]
    display(bundle, raw=True)
