"""Interactive explorer of the GRR/OUE comparison (ipywidgets; needs a live Jupyter kernel).

References
----------
[grr_vs_oue] §3.6.
"""

from __future__ import annotations

import math

import numpy as np

from ldp_helpers.bounds.grr_vs_oue import PROTOCOLS, mse_ratio, theoretical_mse
from ldp_helpers.pipeline.plots import mark_crossovers
from ldp_helpers.simulate.populations import flat_counts


def interactive_mse_comparison(*, epsilon=math.log(20), d=43, n=49_742):  # pragma: no cover - needs a live kernel
    """ipywidgets sliders for ε, d and n redrawing the exact GRR/OUE MSE curves (Jupyter only).

    References
    ----------
    [grr_vs_oue] Fig. 3.7; [grr_vs_oue] Fig. 3.8 (exact curves only).
    """
    import ipywidgets
    import matplotlib.pyplot as plt

    def redraw(epsilon, d, n):
        grid = np.linspace(0.05, 6.0, 120)
        counts = flat_counts(n, d)  # the exact MSE does not depend on the split
        fig, ax = plt.subplots(figsize=(6, 3.6))
        for name, cls in PROTOCOLS.items():
            ax.plot(grid, [theoretical_mse(cls(e, d), counts) for e in grid], label=f"{name} (exact)")
        mark_crossovers(ax, d)
        ax.axvline(epsilon, color="black", lw=0.8)
        ratio = mse_ratio(counts, [epsilon])[0]
        ax.set(yscale="log", xlabel="privacy budget ε", ylabel="frequency MSE", title=f"d = {d}, n = {n}: MSE_GRR/MSE_OUE = {ratio:.3g} at ε = {epsilon:.2f}")
        ax.legend()
        plt.show()

    return ipywidgets.interact(
        redraw,
        epsilon=ipywidgets.FloatSlider(value=epsilon, min=0.1, max=6.0, step=0.05, description="ε"),
        d=ipywidgets.IntSlider(value=d, min=3, max=200, description="d"),
        n=ipywidgets.IntSlider(value=n, min=10, max=100_000, step=10, description="n"),
    )
