"""The interactive panels refuse bad values with the library's message and keep working (issue 16 item 6).

The GRR/OUE panel's sliders never clamp: ε = 0 (or any value outside a slider's range) is refused
with the library's ValueError when the panel is built, and the panel's callback shows the library's
message for a refused value, then redraws normally for the next valid one.  The same bad-value
strategies as the rest of the contract suite drive the callback.
"""

from __future__ import annotations

import matplotlib
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ldp_helpers.explore import grr_vs_oue as panel

from .strategies import bad_values

matplotlib.use("Agg")
VALID = {"epsilon": 1.0, "d": 10, "n": 1000}


def test_epsilon_zero_is_refused_not_clamped():
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, inf\); got 0.0"):
        panel.interactive_mse_comparison(epsilon=0.0)
    with pytest.raises(ValueError, match=r"epsilon must be in \[0.05, 6\]"):
        panel.interactive_mse_comparison(epsilon=0.01)  # inside the library's range, outside the slider's


@pytest.mark.parametrize("name", sorted(VALID))
@given(data=st.data())
def test_callback_shows_the_library_message_and_keeps_working(name, data, capsys):
    bad = data.draw(st.one_of(bad_values(name, VALID[name]), st.sampled_from([0, -1])), label=name)
    message = panel.panel_update(**{**VALID, name: bad})
    assert message is not None and message.startswith("refused: ") and name in message
    assert message in capsys.readouterr().out
    assert panel.panel_update(**VALID) is None  # the next valid value redraws
