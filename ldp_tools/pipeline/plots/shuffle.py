"""Figures of notebook 08 (the shuffle model): arrays in, a matplotlib Figure out, nothing printed or saved.

References
----------
[erlingsson2019]; [balle2019blanket]; [feldman2021clones]; [wang2024shuffle].
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from ldp_helpers._validation import (
    check_epsilon,
    check_int,
    check_probability,
    check_real_array,
    fail,
    fail_type,
)


def _curves(name, curves: dict, size: int) -> dict:
    if not isinstance(curves, dict) or not curves or not all(isinstance(k, str) for k in curves):
        fail_type(name, curves, "a non-empty dict label (str) -> array")
    return {
        label: check_real_array(name, v, low=0.0, low_open=False).ravel()[:size]
        for label, v in curves.items()
    }


def epsilon_vs_n_figure(n_grid, exact, bounds: dict, *, epsilon0: float, delta: float) -> Figure:
    """ε_c against n: the exact value of shuffled binary RR (black) and each bound (NaN: not computed)."""
    n_grid = check_real_array("n_grid", n_grid, low=1.0, low_open=False).ravel()
    exact = check_real_array("exact", exact, low=0.0, low_open=False).ravel()
    bounds = _curves("bounds", bounds, n_grid.size)
    epsilon0 = check_epsilon(epsilon0, "epsilon0")
    delta = check_probability(delta, "delta", open_low=True)
    if exact.size != n_grid.size:
        fail("exact", exact, f"one value per n ({n_grid.size})")
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for label, values in bounds.items():
        ax.plot(n_grid[: values.size], values, marker="o", ms=3, label=label)
    ax.plot(n_grid, exact, color="black", lw=2.5, label="exact (shuffled binary RR)")
    ax.axhline(epsilon0, color="grey", ls=":", lw=1, label=f"local ε₀ = {epsilon0:g}")
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="n (users)",
        ylabel=f"central ε_c at δ = {delta:g}",
        title="Amplification by shuffling: exact value and the papers' bounds",
    )
    ax.legend(fontsize=7)
    return fig


def mse_vs_epsilon_figure(epsilons, mse: dict, *, n: int, k: int) -> Figure:
    """Frequency-estimation MSE against the central ε_c for each protocol (log scale)."""
    epsilons = check_real_array("epsilons", epsilons, low=0.0).ravel()
    mse = _curves("mse", mse, epsilons.size)
    n, k = check_int("n", n, low=1), check_int("k", k, low=2)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for label, values in mse.items():
        ax.plot(
            epsilons,
            values,
            marker="o",
            ms=3,
            label=label,
            color="black" if label == "shuffled GRR" else None,
            lw=2.5 if label == "shuffled GRR" else 1.5,
        )
    ax.set(
        yscale="log",
        xlabel="central ε_c",
        ylabel="MSE of the frequencies",
        title=f"Accuracy at equal central ε (n = {n:,}, k = {k})",
    )
    ax.legend(fontsize=7)
    return fig
