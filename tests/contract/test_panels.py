"""The explorer's panels refuse bad values with the library's message and keep working (issues 16, 17, 30).

Every control of every panel (:data:`~ldp_tools.explore.panels.PANELS`) is sent the contract
suite's bad values for its kind — what a user could type into a text box (``panel.update`` with an
override, as the browser would send it), not only what the widget's own type allows.  Each must
leave the panel showing ``refused: …`` naming the control, with no traceback, and the next valid
value must redraw normally.  Text typed into a number's box (letters, an empty box) reaches the
library's check too: a message, never a silently dropped value (issue 30 item 2).
"""

from __future__ import annotations

import matplotlib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp_tools.explore._controls import NumberControl
from ldp_tools.explore.panels import PANELS, playground_panel, privacy_utility_panel
from ldp_tools.explore.paper_panels import continual_panel, m_shot_panel
from ldp_tools.explore.rappor_panel import rappor_panel
from ldp_tools.explore.shuffle_panel import shuffle_panel

from .strategies import bad_values

matplotlib.use("Agg")

#: small, fast instances of each panel (the controls are the same at any size)
BUILD = {
    "playground": lambda: playground_panel(d=8, n=1000),
    "privacy_utility": lambda: privacy_utility_panel(d=8, n=1000),
    "rappor": lambda: rappor_panel(n_candidates=20, n_true=5, survey=False),
    "continual": lambda: continual_panel(n_rounds=5, n_draws=2),
    "m_shot": lambda: m_shot_panel(n_rounds=20, n_draws=2),
    "shuffle": lambda: shuffle_panel(n=50, k=3),
}
_BUILT: dict = {}


def _panel(name):
    if name not in _BUILT:
        _BUILT[name] = BUILD[name]()
    return _BUILT[name]


def test_every_panel_is_covered():
    assert sorted(BUILD) == sorted(PANELS)


def test_epsilon_zero_is_refused_not_clamped():
    panel = _panel("playground")
    panel.controls["epsilon"].value = 0.0
    assert (
        "refused: epsilon = 0 — epsilon must be in [1e-12, inf); got 0.0; back to epsilon = 1"
        in panel.message.value
    )
    assert (
        panel.controls["epsilon"].value == 1.0
    )  # back to the value in effect, never clamped to a bound
    assert panel.controls["epsilon"].box.value == "1"
    panel.controls["epsilon"].value = 2.0  # the next change is judged on its own
    assert panel.message.value == "" and panel.applied["epsilon"] == 2.0


def bad_value_problems(panel, control: str) -> list:
    """Three bad values of ``control``'s kind sent as overrides (Hypothesis draws): each must leave the panel
    showing ``refused: …`` naming the control, without a traceback; the problems found."""
    problems, valid = [], panel.controls[control].value

    @settings(max_examples=3)
    @given(data=st.data())
    def probe(data):
        bad = data.draw(bad_values(control, valid), label=control)
        panel.update({control: bad})
        message = panel.message.value
        if not ("refused: " in message and control in message) or "Traceback" in message:
            problems.append(
                f"{control}={bad!r:.60}: expected 'refused: … {control} …'; got {message!r:.300}"
            )

    probe()
    return problems


def letters_problems(panel, name: str, control: NumberControl) -> list:
    """Letters, an empty box, a list and a 401-digit number typed into ``control``'s box: each shows the library's
    message naming it (the number raised OverflowError placing the slider before), and the control goes back
    to the value in effect; the problems found."""
    problems, valid = [], control.value
    for typed in ("abc", "", "1,2,3", "1" + "0" * 400):
        panel.message.value = ""  # each refusal writes its own message
        control.box.value = typed
        message = panel.message.value
        if not ("refused: " in message and name in message):
            problems.append(
                f"{name} box {typed!r}: expected 'refused: … {name} …'; got {message!r:.300}"
            )
    if not (control.value == valid and panel.applied[name] == valid):
        problems.append(
            f"{name}: expected back to {valid!r}; shows {control.value!r}, applied {panel.applied[name]!r}"
        )
    return problems


@pytest.mark.parametrize("panel_name", PANELS)
def test_bad_values_show_the_librarys_message_and_the_panel_keeps_working(panel_name):
    """Every control of the panel: bad values of its kind (and, in a number's box, letters) are refused with the
    library's message naming it; then the panel, still holding the valid values, redraws normally (once per
    control: a redraw renders the figure, the slow part)."""
    panel, problems = _panel(panel_name), []
    for name, control in panel.controls.items():
        before = panel.summary.value
        problems += bad_value_problems(panel, name)
        if isinstance(control, NumberControl):
            problems += letters_problems(panel, name, control)
        panel.update()  # the widgets still hold the valid values: the panel redraws normally
        if panel.message.value != "" or panel.summary.value != before:
            problems.append(
                f"{name}: after the refusals the redraw shows {panel.message.value!r:.200}"
            )
    assert not problems, f"{panel_name}: {len(problems)} problems:\n" + "\n".join(problems)
