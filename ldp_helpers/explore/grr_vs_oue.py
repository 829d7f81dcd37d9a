"""Interactive explorer of the GRR/OUE comparison (ipywidgets; needs a live Jupyter kernel).

The panel never clamps: a value outside its sliders' range (ε ≤ 0 included) is refused with the
library's ``ValueError`` when the panel is built, and a value the library refuses while it runs is
shown as the library's message (the panel keeps working).

References
----------
[grr_vs_oue] §3.6.
"""

from __future__ import annotations

import math

import numpy as np

from ldp_helpers._validation import check_epsilon, check_instance, check_int, check_real
from ldp_helpers.bounds.grr_vs_oue import PROTOCOLS, mse_ratio, theoretical_mse
from ldp_helpers.pipeline.plots import mark_crossovers
from ldp_helpers.simulate.populations import flat_counts

#: the sliders' ranges (closed): values outside are refused, never clamped
EPSILON_RANGE, D_RANGE, N_RANGE = (0.05, 6.0), (3, 200), (10, 100_000)


def check_panel_values(epsilon, d, n) -> tuple[float, int, int]:
    """ε, d and n inside the sliders' ranges (ε ≤ 0 gets the library's budget message first)."""
    epsilon = check_real("epsilon", check_epsilon(epsilon), low=EPSILON_RANGE[0], high=EPSILON_RANGE[1],
                         low_open=False, high_open=False)
    d = check_int("d", d, low=D_RANGE[0], high=D_RANGE[1])
    n = check_int("n", n, low=N_RANGE[0], high=N_RANGE[1])
    return epsilon, d, n


def draw_mse_comparison(ax, *, epsilon, d, n) -> float:
    """Draw the exact GRR/OUE MSE curves over ε on ``ax``, mark ``epsilon``; return MSE_GRR/MSE_OUE there.

    References
    ----------
    [grr_vs_oue] Fig. 3.7; [grr_vs_oue] Fig. 3.8 (exact curves only).
    """
    from matplotlib.axes import Axes

    check_instance("ax", ax, Axes, "a matplotlib Axes")
    epsilon, d, n = check_panel_values(epsilon, d, n)
    grid = np.linspace(EPSILON_RANGE[0], EPSILON_RANGE[1], 120)
    counts = flat_counts(n, d)  # the exact MSE does not depend on the split
    for name, cls in PROTOCOLS.items():
        ax.plot(grid, [theoretical_mse(cls(e, d), counts) for e in grid], label=f"{name} (exact)")
    mark_crossovers(ax, d)
    ax.axvline(epsilon, color="black", lw=0.8)
    ratio = float(mse_ratio(counts, [epsilon])[0])
    ax.set(yscale="log", xlabel="privacy budget ε", ylabel="frequency MSE",
           title=f"d = {d}, n = {n}: MSE_GRR/MSE_OUE = {ratio:.3g} at ε = {epsilon:.2f}")
    ax.legend()
    return ratio


def panel_update(epsilon, d, n) -> str | None:
    """The panel's callback: redraw, or show (print and return) the library's message for a refused value."""
    import matplotlib.pyplot as plt

    try:
        check_panel_values(epsilon, d, n)
    except ValueError as err:  # also ParameterTypeError: the library's message, the panel keeps working
        message = f"refused: {err}"
        print(message)
        return message
    fig, ax = plt.subplots(figsize=(6, 3.6))
    draw_mse_comparison(ax, epsilon=epsilon, d=d, n=n)
    plt.show()
    plt.close(fig)
    return None


def interactive_mse_comparison(*, epsilon=math.log(20), d=43, n=49_742):
    """ipywidgets sliders for ε, d and n redrawing the exact GRR/OUE MSE curves (Jupyter only).

    The initial values must lie in the sliders' ranges (:data:`EPSILON_RANGE`, :data:`D_RANGE`,
    :data:`N_RANGE`): out-of-range values are refused here rather than clamped by the sliders.

    References
    ----------
    [grr_vs_oue] Fig. 3.7; [grr_vs_oue] Fig. 3.8 (exact curves only).
    """
    epsilon, d, n = check_panel_values(epsilon, d, n)
    import ipywidgets

    return ipywidgets.interact(
        panel_update,
        epsilon=ipywidgets.FloatSlider(value=epsilon, min=EPSILON_RANGE[0], max=EPSILON_RANGE[1], step=0.05,
                                       description="ε"),
        d=ipywidgets.IntSlider(value=d, min=D_RANGE[0], max=D_RANGE[1], description="d"),
        n=ipywidgets.IntSlider(value=n, min=N_RANGE[0], max=N_RANGE[1], step=10, description="n"),
    )
