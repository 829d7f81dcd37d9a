"""The tutorial notebook's figures (00_tutorial): arrays in, a matplotlib Figure out, nothing printed or saved.

Each function draws what one experiment of :mod:`ldp_helpers.experiments.tutorial` returns; the
notebook shows and saves it with ``publish(fig, name)``.

References
----------
[tutorial] "Randomized response"; [tutorial] "Frequency Oracles"; [tutorial] "Summary"; [wang2017] §4.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ldp_helpers._validation import (
    Described,
    check_epsilon,
    check_int,
    check_int_array,
    check_n_draws,
    check_ndim,
    check_probability,
    check_real,
    check_real_array,
    fail,
)
from ldp_helpers.bounds.wang2017 import de_threshold

#: the oracles best_protocol_grid compares by default, in the order of its index (one colour each)
PHASE_NAMES = ("DE", "OUE", "OLH")


def _curves(name: str, curves, along: str, length: int, parts: int | None = None) -> dict:
    """A non-empty dict label -> finite 1-D array, one value per entry of ``along`` (or a tuple of ``parts``)."""
    if not isinstance(curves, dict) or not curves:
        fail(name, curves, "a non-empty dict of label -> curve")
    for label, curve in curves.items():
        if parts and (not isinstance(curve, (tuple, list)) or len(curve) != parts):
            fail(
                name,
                Described(f"{label!r} -> {type(curve).__name__}"),
                f"a tuple of {parts} curves per label",
            )
        for part in curve if parts else (curve,):
            if check_ndim(name, check_real_array(name, part), 1).size != length:
                fail(
                    name,
                    Described(f"a curve {label!r} of {np.size(part)} values"),
                    f"curves of one value per {along} ({length})",
                )
    return curves


def rr_errors(sizes, errors: dict, sigmas: dict, true_fraction: float) -> Figure:
    """Randomized response: each simulated π̂ − π against n, one panel per ε, inside the exact ±2σ band.

    ``errors`` maps ε to :func:`~ldp_helpers.experiments.tutorial.rr_estimation_errors`'s array
    (len(sizes) × surveys); ``sigmas`` maps the same ε to the exact standard deviation at each size.

    References
    ----------
    [tutorial] "Randomized response" (the estimator 2(X − 0.25) and its error).
    """
    sizes = check_int_array("sizes", sizes, low=1).ravel()
    true_fraction = check_probability(true_fraction, "true_fraction")
    if not isinstance(errors, dict) or not errors:
        fail("errors", errors, "a non-empty dict of epsilon -> (sizes x surveys) array")
    for eps, err in errors.items():
        if check_ndim("errors", check_real_array("errors", err), 2).shape[0] != sizes.size:
            fail(
                "errors",
                Described(f"an array of shape {np.shape(err)} at eps = {eps}"),
                f"{sizes.size} rows, one per sizes",
            )
    if not isinstance(sigmas, dict) or set(sigmas) != set(errors):
        fail("sigmas", sigmas, "a dict with the keys of errors (epsilon -> exact sd per size)")
    _curves("sigmas", sigmas, "sizes", sizes.size)
    fig, axes = plt.subplots(1, len(errors), figsize=(10, 3.6), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, eps in zip(axes, errors):
        ax.fill_between(
            sizes, -2 * sigmas[eps], 2 * sigmas[eps], alpha=0.25, label=r"theory $\pm 2\sigma$"
        )
        ax.scatter(
            np.repeat(sizes, errors[eps].shape[1]),  # each survey's n
            errors[eps].ravel(),
            s=2,
            alpha=0.15,
            color="C1",
            label=r"simulated $\hat\pi-\pi$",
        )
        ax.axhline(0, color="black", lw=0.8)
        ax.set(xscale="log", xlabel="number of users $n$", title=rf"$\varepsilon = {eps:g}$")
    axes[0].set_ylabel(rf"estimation error $\hat\pi - \pi$ ($\pi = {true_fraction:g}$)")
    axes[0].set_ylim(-0.6, 0.6)
    axes[0].legend(loc="upper right", markerscale=4)
    fig.suptitle("Randomized response: error of the unbiased estimator")
    return fig


def variance_vs_epsilon(
    epsilons, study: dict, *, n: int, d: int, share: float, n_draws: int
) -> Figure:
    """Var[ĉ(i)] over ε: exact (solid; OLH dotted), Wang et al.'s approximation (dashed), simulated (markers).

    ``study`` is :func:`~ldp_helpers.experiments.tutorial.variance_study`'s result (name ->
    (simulated, exact, approx)) for a value held by a fraction ``share`` of ``n`` users, domain ``d``.

    References
    ----------
    [wang2017] Theorem 2 (exact); [wang2017] Eq. (2) (approximate); [tutorial] "Frequency Oracles".
    """
    epsilons = check_real_array("epsilons", epsilons, low=0.0).ravel()
    _curves("study", study, "epsilons", epsilons.size, parts=3)
    n, d, n_draws = check_int("n", n, low=1), check_int("d", d, low=2), check_n_draws(n_draws)
    share = check_real("share", share, low=0.0, high=1.0, high_open=False)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for k, ((name, (simulated, exact, approx)), marker) in enumerate(zip(study.items(), "osDx^")):
        olh = name == "OLH"  # it lies on OUE: dotted and wider, so both show
        ax.plot(
            epsilons,
            exact,
            color=f"C{k}",
            ls=":" if olh else "-",
            lw=2.5 if olh else 1.5,
            label=f"{name} exact",
        )
        ax.plot(epsilons, approx, color=f"C{k}", ls="--", lw=1)
        ax.plot(epsilons, simulated, marker, color=f"C{k}", ms=5, mfc="none")
    ax.plot([], [], "k--", lw=1, label="Wang et al.'s approximation")
    ax.plot([], [], "ko", ms=5, mfc="none", label=f"simulated ({n_draws} surveys)")
    ax.set(
        yscale="log",
        xlabel=r"privacy budget $\varepsilon$",
        ylabel=r"Var$[\hat c(i)]$ (users$^2$)",
        title=rf"Variance of the count of a value held by {share:.0%} of $n$ = {n:,} users, $d$ = {d}",
    )
    ax.legend(ncol=2, fontsize=8, title="OLH (dotted) lies on OUE", title_fontsize=8)
    return fig


def phase_diagram(
    grid_d,
    grid_eps,
    best,
    *,
    curve_d,
    exact: dict,
    approx: dict,
    sim_d,
    simulated: dict,
    epsilon: float,
    users_per_value: int,
) -> Figure:
    """Left: the oracle of smallest approximate variance over (d, ε), with d = 3e^ε + 2; right: DE vs OUE at one ε.

    ``best`` is :func:`~ldp_helpers.bounds.wang2017.best_protocol_grid`'s index array over
    (grid_eps × grid_d) for :data:`PHASE_NAMES`; ``exact`` and ``approx`` map an oracle to Var/n over
    ``curve_d``, ``simulated`` to Var/n at ``sim_d`` (uniform data, ``users_per_value`` per value, at ``epsilon``).

    References
    ----------
    [wang2017] §4 (DE vs OUE); [tutorial] "Summary" (d < 3e^ε + 2).
    """
    grid_d = check_int_array("grid_d", grid_d, low=2).ravel()
    grid_eps = check_real_array("grid_eps", grid_eps, low=0.0).ravel()
    best = check_int_array(
        "best", best, low=0, high=len(PHASE_NAMES) - 1, shape=(grid_eps.size, grid_d.size)
    )
    curve_d = check_int_array("curve_d", curve_d, low=2).ravel()
    sim_d = check_int_array("sim_d", sim_d, low=2).ravel()
    _curves("exact", exact, "curve_d", curve_d.size)
    _curves("approx", approx, "curve_d", curve_d.size)
    _curves("simulated", simulated, "sim_d", sim_d.size)
    if not set(exact) == set(approx) == set(simulated):
        fail("approx", sorted(approx), f"the oracles of exact and simulated ({sorted(exact)})")
    epsilon = check_epsilon(epsilon)
    users_per_value = check_int("users_per_value", users_per_value, low=1)
    handles = [
        Patch(color="C0", label="DE"),
        Patch(color="C1", label="OUE"),
        Patch(color="C2", label="OLH (never strictly best)"),
        Line2D([], [], color="k", lw=2, label=r"$d = 3e^\varepsilon+2$"),
    ]
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(11, 4.2))
    ax0.pcolormesh(
        grid_d,
        grid_eps,
        best,
        cmap=ListedColormap(["C0", "C1", "C2"]),
        vmin=-0.5,
        vmax=2.5,
        shading="nearest",
    )
    ax0.plot(de_threshold(grid_eps), grid_eps, "k", lw=2, label=r"$d = 3e^\varepsilon + 2$")
    ax0.set(
        xscale="log",
        xlim=(2, 1000),
        xlabel="domain size $d$",
        ylabel=r"$\varepsilon$",
        title="smallest approximate variance",
    )
    ax0.legend(
        handles=handles, loc="upper left", fontsize=8, frameon=True, framealpha=1, facecolor="white"
    )
    for k, (name, marker) in enumerate(zip(exact, "os")):
        ax1.plot(curve_d, exact[name], f"C{k}", label=f"{name} exact")
        ax1.plot(curve_d, approx[name], f"C{k}", ls="--", lw=1, label=f"{name} approximation")
        ax1.plot(sim_d, simulated[name], marker, color=f"C{k}", label=f"{name} simulated")
    threshold = de_threshold(epsilon)
    e_power = "e" if epsilon == 1 else rf"e^{{{epsilon:g}}}"
    ax1.axvline(threshold, color="k", ls=":", label=rf"$3{e_power}+2 \approx {threshold:.1f}$")
    ax1.set(
        xscale="log",
        yscale="log",
        xlabel="domain size $d$",
        ylabel=r"Var$[\hat c(i)]/n$",
        title=rf"$\varepsilon = {epsilon:g}$, uniform data, {users_per_value} users per value",
    )
    ax1.legend(fontsize=8)
    return fig
