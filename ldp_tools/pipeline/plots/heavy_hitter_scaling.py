"""The figure of the heavy-hitter scaling runs (notebook 07): recall and worst-case error against n and the domain.

Data in (two :class:`~ldp_helpers.experiments.heavy_hitter_scaling.Scaling` results), a matplotlib
Figure out, nothing printed or saved.  Every curve is drawn with ±2 SE error bars.

References
----------
[bun2018] (PrivateExpanderSketch, the worst-case error); [bassily2017]; [wang2021pem]; [apple2017].
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from ldp_helpers._validation import check_epsilon, check_int, fail_type
from ldp_helpers.experiments.heavy_hitter_scaling import PROTOCOLS, Scaling
from ldp_helpers.experiments.tutorial_protocols import check_curves
from ldp_tools.pipeline.plots.tutorial_protocols import _errorbars


def _check_scaling(name: str, scaling) -> Scaling:
    if not isinstance(scaling, Scaling):
        fail_type(name, scaling, "a Scaling (scaling_by_n's or scaling_by_bits' result)")
    check_curves(f"{name}.recall", scaling.recall, np.size(scaling.grid))
    check_curves(f"{name}.error", scaling.error, np.size(scaling.grid))
    return scaling


def scaling_figure(
    by_n: Scaling, by_bits: Scaling, *, epsilon: float, k: int, bits: int, n_users: int
) -> Figure:
    """Recall of the top k (top) and worst-case error max|f̂ − f|/n (bottom), against n (left, 2^bits values) and
    against the domain's bits (right, n_users users), every protocol at budget ε.

    References
    ----------
    [bun2018] (the worst-case error); [wang2021pem] (recall).
    """
    by_n, by_bits = _check_scaling("by_n", by_n), _check_scaling("by_bits", by_bits)
    epsilon, k = check_epsilon(epsilon), check_int("k", k, low=1)
    bits, n_users = check_int("bits", bits, low=1), check_int("n_users", n_users, low=1)
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5), sharex="col")
    for column, (scaling, xlabel, title) in enumerate(
        (
            (by_n, "number of users $n$", rf"$2^{{{bits}}}$ values, $\varepsilon = {epsilon:g}$"),
            (
                by_bits,
                r"bits of the domain ($d = 2^{\mathrm{bits}}$)",
                rf"$n = {n_users:,}$ users, $\varepsilon = {epsilon:g}$",
            ),
        )
    ):
        for row, (curves, ylabel) in enumerate(
            (
                (scaling.recall, f"recall of the top $k = {k}$"),
                (scaling.error, r"worst-case error $\max_x |\hat f(x) - f(x)|/n$"),
            )
        ):
            ax = axes[row, column]
            for i, name in enumerate(PROTOCOLS):
                if name in curves:
                    _errorbars(
                        ax, scaling.grid, curves[name], marker="o", color=f"C{i}", label=name
                    )
            ax.set(ylabel=ylabel)
            if row == 0:
                ax.set(title=title, ylim=(0, 1.05))
            else:
                ax.set(xlabel=xlabel, ylim=(0, None))
    axes[1, 0].set(xscale="log")
    axes[1, 0].xaxis.set_minor_formatter(NullFormatter())  # decades only: minor labels collide
    axes[0, 0].legend(title="±2 SE")  # the style's 9 pt: >= 10 px at the book's width
    return fig
