"""Plotting helpers shared by the notebooks (per-paper figures live in ``plots/<key>.py``): axes in, artists drawn, nothing printed or saved.

References
----------
[m_shot] Eq. (A-3); [glance] Claim 1.
"""

from __future__ import annotations

from matplotlib.axes import Axes

from ldp_helpers._validation import Described, check_instance, check_real_array, fail

#: the shared plot and each paper's figure module
__all__ = [
    "plot_tail_bounds",
    "field_oracles",
    "glance",
    "grr_vs_oue",
    "heavy_hitter_scaling",
    "m_shot",
    "privacy_audit",
    "rappor",
    "report",
    "shuffle",
    "tutorial",
    "tutorial_protocols",
]


def plot_tail_bounds(
    ax, deviation, bounds, exact, exact_label: str, markers=(), *, xlabel: str, title: str
) -> None:
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
        fail(
            "exact",
            Described(f"an array of length {exact.size}"),
            f"one value per deviation ({deviation.size})",
        )
    for (label, curve), style in zip(bounds.items(), ("-", "--", ":")):
        ax.plot(deviation, curve, style, label=label)
    ax.plot(deviation, exact, "k", label=exact_label)
    for (x, label), style in zip(markers, (":", "-.", "--")):
        ax.axvline(x, ls=style, color="0.4", label=label)
    ax.set(yscale="log", xlabel=xlabel, ylabel="probability, one round", title=title)
