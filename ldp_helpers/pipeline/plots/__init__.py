"""Plotting helpers shared by the notebooks (per-paper figures live in ``plots/<key>.py``): axes in, artists drawn, nothing printed or saved.

References
----------
[grr_vs_oue] Fig. 3.7; [grr_vs_oue] Fig. 3.8.
"""

from __future__ import annotations

from matplotlib.axes import Axes

from ldp_helpers._validation import Described, check_instance, check_int, check_n_draws, check_real_array, fail
from ldp_helpers.bounds.grr_vs_oue import crossover_epsilon_exact, crossover_epsilon_wang


def mark_crossovers(ax, d: int) -> None:
    """Vertical lines at the GRR/OUE crossovers of domain size d (Wang's and the exact one), when ε > 0.

    References
    ----------
    [grr_vs_oue] §3.6; [wang2017] §4.
    """
    check_instance("ax", ax, Axes, "a matplotlib Axes")
    d = check_int("d", d, low=3)
    for x, style, what in ((crossover_epsilon_wang(d), "--", r"$\ln\frac{d-2}{3}$"), (crossover_epsilon_exact(d), "-.", "exact")):
        if x > 0:
            ax.axvline(x, color="grey", ls=style, lw=1, label=f"crossover {what} = {x:.3f}")


def plot_mse_curves(ax, epsilons, curves, d: int, *, n_draws: int) -> None:
    """[grr_vs_oue] Fig. 3.7 and Fig. 3.8: simulated (dots), exact (solid) and Wang-approximate (dotted) MSE vs ε, crossovers marked.

    ``curves`` is :func:`~ldp_helpers.experiments.grr_vs_oue.mse_curves`'s result; ``n_draws``
    the surveys per ε behind each simulated point (for the legend).

    References
    ----------
    [grr_vs_oue] Fig. 3.7; [grr_vs_oue] Fig. 3.8.
    """
    check_instance("ax", ax, Axes, "a matplotlib Axes")
    d, n_draws = check_int("d", d, low=3), check_n_draws(n_draws)
    epsilons = check_real_array("epsilons", epsilons, low=0.0)
    if not isinstance(curves, dict) or not curves or not all(
            isinstance(c, dict) and {"simulated", "exact", "approx"} <= set(c) for c in curves.values()):
        fail("curves", curves, "mse_curves' result: a non-empty dict of name -> {'simulated', 'exact', 'approx'}")
    for k, (name, curve) in enumerate(curves.items()):
        ax.plot(epsilons, curve["simulated"], "o", color=f"C{k}", label=f"{name}, simulated ({n_draws} runs/ε)")
        ax.plot(epsilons, curve["exact"], "-", color=f"C{k}", label=f"{name}, exact theory")
        ax.plot(epsilons, curve["approx"], ":", color=f"C{k}", label=f"{name}, Wang approximation")
    mark_crossovers(ax, d)
    if crossover_epsilon_exact(d) <= 0:
        ax.text(0.03, 0.04, f"d = {d}: both crossovers at ε ≤ 0 (ln((d−2)/3) = {crossover_epsilon_wang(d):.3g}):\n"
                "GRR has the smaller expected MSE for every ε > 0", transform=ax.transAxes, fontsize=8)
    ax.set(yscale="log", xlabel="privacy budget ε", ylabel="MSE of estimated frequencies")
    ax.legend(fontsize=8)


def plot_tail_bounds(ax, deviation, bounds, exact, exact_label: str, markers=(), *, xlabel: str, title: str) -> None:
    """Tail bounds (solid, then dashed) against the exact tail (black) on a log scale, with vertical markers.

    ``bounds`` maps a legend label to its curve over ``deviation`` (e.g. a Chernoff and a
    Chernoff–Hoeffding bound from :func:`~ldp_helpers.bounds.chernoff.tail_comparison`);
    ``markers`` is a sequence of ``(x, label)`` drawn as grey vertical lines.

    References
    ----------
    [m_shot] Eq. (A-3); [glance] Claim 1.
    """
    check_instance("ax", ax, Axes, "a matplotlib Axes")
    if not isinstance(bounds, dict) or not bounds:
        fail("bounds", bounds, "a non-empty dict of legend label -> curve")
    deviation = check_real_array("deviation", deviation).ravel()
    exact = check_real_array("exact", exact, low=0.0, low_open=False).ravel()
    if exact.size != deviation.size:
        fail("exact", Described(f"an array of length {exact.size}"), f"one value per deviation ({deviation.size})")
    for (label, curve), style in zip(bounds.items(), ("-", "--", ":")):
        ax.plot(deviation, curve, style, label=label)
    ax.plot(deviation, exact, "k", label=exact_label)
    for (x, label), style in zip(markers, (":", "-.", "--")):
        ax.axvline(x, ls=style, color="0.4", label=label)
    ax.set(yscale="log", xlabel=xlabel, ylabel="probability, one round", title=title)
