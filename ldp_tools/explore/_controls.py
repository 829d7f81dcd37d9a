"""The explorer's controls: a slider with a typed-value box for each continuous parameter, a text box, a choice.

A :class:`NumberControl` is one row: its label, a slider (log-scale where the range spans decades,
no readout) and a text box showing the value.  Its ``value`` trait is what the panel reads:
moving the slider sets it to the slider's number; typing (Enter or leaving the box) sets it to the
number parsed from the text — or, when the text is not a number, to the text itself, so that the
library's check refuses it with its own message (``epsilon must be a real number; got 'abc' …``)
rather than the browser dropping it silently.  Setting ``value`` from the kernel (a test, a shared
view) moves the slider and rewrites the box.  A value outside the slider's range is kept as typed
(the slider rests at its end): the library decides what is allowed, the slider is a convenience.
"""

from __future__ import annotations

import functools
import math
import re

import ipywidgets as w
import traitlets
from ipywidgets.widgets.widget_int import SliderStyle
from ipywidgets.widgets.widget_string import HTMLStyle, TextStyle

#: width of one control (the rows wrap inside the cell: nothing overflows a narrow notebook)
CONTROL_WIDTH = "350px"
LABEL_WIDTH = "122px"
BOX_WIDTH = "108px"


@functools.cache
def _shared(kind: type, **traits):
    """One ``Layout`` / style widget per kind and traits, shared by every control's label, slider and box.

    Each widget is a model the page fetches from the kernel on load; the controls' parts never change
    their layout or style, so the page needs one copy of each (issue 40: a page view loaded 782 models,
    476 now).  A control's own row layout is not shared (a panel hides rows).
    """
    return kind(**traits)


def parse_number(text: str, *, integer: bool):
    """The number typed in a box: an int (integer controls, also ``1e6``, ``100_000``, ``100,000``) or a float; else the text.

    Text that is not a number is returned unchanged so that the library's check names it.
    """
    cleaned = str(text).strip().replace("_", "")
    if re.fullmatch(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?", cleaned):  # thousands separators: 100,000
        cleaned = cleaned.replace(",", "")
    try:
        return int(cleaned)
    except ValueError:
        pass
    try:
        number = float(cleaned)
    except ValueError:
        return text
    return int(number) if integer and math.isfinite(number) and number.is_integer() else number


def show_number(value) -> str:
    """A value as the text box shows it: integers in full, reals with up to 6 significant digits."""
    if not _is_number(value):
        return str(value)
    return str(value) if isinstance(value, int) else f"{value:.6g}"


def _is_number(value) -> bool:
    """An int or a float, not a bool: what a slider can show."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class NumberControl(w.HBox):
    """A labelled slider and typed-value box; ``value`` is the number (or the refused text) the panel reads."""

    value = traitlets.Any()

    def __init__(
        self,
        value,
        *,
        low,
        high,
        description: str,
        log: bool = False,
        integer: bool = False,
        step: float | None = None,
        slider: bool = True,
    ):
        self._low, self._high, self._log, self._integer = low, high, log, integer
        label = w.HTML(
            f'<div style="text-align:right;padding-right:8px">{description}</div>',
            layout=_shared(w.Layout, width=LABEL_WIDTH, flex="0 0 auto"),
            style=_shared(HTMLStyle),
        )
        self.box = w.Text(
            value=show_number(value),
            continuous_update=False,
            layout=_shared(w.Layout, width=BOX_WIDTH),
            style=_shared(TextStyle),
        )
        self.slider = None
        if slider:
            common = dict(
                readout=False,
                continuous_update=False,
                layout=_shared(w.Layout, flex="1 1 auto", width="auto"),
                style=_shared(SliderStyle),
            )
            if log:
                self.slider = w.FloatLogSlider(
                    value=self._slider_position(value),
                    base=10,
                    min=math.log10(low),
                    max=math.log10(high),
                    step=step or 0.01,
                    **common,
                )
            elif integer:
                self.slider = w.IntSlider(
                    value=int(self._slider_position(value)),
                    min=low,
                    max=high,
                    step=step or 1,
                    **common,
                )
            else:
                self.slider = w.FloatSlider(
                    value=self._slider_position(value),
                    min=low,
                    max=high,
                    step=step or (high - low) / 100,
                    **common,
                )
            self.slider.observe(self._from_slider, names="value")
        self._syncing = False
        super().__init__(
            [label, *([self.slider] if self.slider else []), self.box],
            layout=w.Layout(width=CONTROL_WIDTH, align_items="center"),
        )
        self.value = value
        self.box.observe(self._from_box, names="value")
        self.observe(self._show, names="value")

    def _slider_position(self, value) -> float:
        if not _is_number(value) or (isinstance(value, float) and not math.isfinite(value)):
            return self._low  # an int of any size compares with the ends as it is
        return min(max(value, self._low), self._high)

    def _from_slider(self, change) -> None:
        if not self._syncing:
            number = change["new"]
            self.value = int(round(number)) if self._integer else float(f"{number:.6g}")

    def _from_box(self, change) -> None:
        if not self._syncing:
            self.value = parse_number(change["new"], integer=self._integer)

    def _show(self, change) -> None:
        """Move the slider and rewrite the box to the new value (without feeding back)."""
        self._syncing = True
        try:
            value = change["new"]
            if self.slider is not None and _is_number(value) and (not self._log or value > 0):
                self.slider.value = self._slider_position(value)
            if parse_number(self.box.value, integer=self._integer) != value:
                self.box.value = show_number(value)
        finally:
            self._syncing = False


def number(value, low, high, description, **kwargs) -> NumberControl:
    """A :class:`NumberControl` (keyword arguments as its constructor's)."""
    return NumberControl(value, low=low, high=high, description=description, **kwargs)


def text(value, description: str) -> NumberControl:
    """A typed-value integer box alone (e.g. a seed): no slider, the same parsing and messages."""
    return NumberControl(value, low=0, high=0, description=description, integer=True, slider=False)


def choice(options, value, description: str) -> w.Dropdown:
    """A dropdown (labels or (label, value) pairs) the width of a control."""
    return w.Dropdown(
        options=options,
        value=value,
        description=description,
        style={"description_width": LABEL_WIDTH},
        layout=w.Layout(width=CONTROL_WIDTH),
    )


def toggle(value: bool, description: str) -> w.Checkbox:
    """A checkbox the width of a control."""
    return w.Checkbox(
        value=value, description=description, indent=False, layout=w.Layout(width=CONTROL_WIDTH)
    )
