"""ipywidgets panels for the stream papers: continual counting (Glance vs Harmony) and m-shot reporting.

The numbers come from the pure functions of :mod:`ldp_tools.explore.streams`; each panel keeps one
figure and updates its artists (:mod:`ldp_tools.explore._widgets`).  A refused value — including a
setting whose work would take more than a few seconds — shows the library's ``ValueError`` message,
with the allowed range, in the panel, which keeps working.  The RAPPOR simulator is in
:mod:`ldp_tools.explore.rappor_panel`.

References
----------
[glance] Eq. (1), condition (2), Theorems 4–5; [m_shot] Eq. (7), §4.3, §6.
"""

from __future__ import annotations

import numpy as np

from ldp_tools.explore import _controls as c
from ldp_tools.explore._widgets import (
    Panel,
    build,
    figure_for,
    fmt,
    mean_errorbar,
    outside_legend,
    power_of_ten_ticks,
    set_errorbar,
    show_figure,
    table_of,
)
from ldp_tools.explore.streams import STREAM_MECHANISMS, continual_counting_curves, m_shot_curves

# ------------------------------------------------------------------------------------ continual counting


def _setup_continual(fig) -> dict:
    from matplotlib.collections import PolyCollection

    ax = fig.add_axes((0.075, 0.12, 0.58, 0.78))
    cond = ax.add_collection(
        PolyCollection([], facecolors="#55a86833", edgecolors="none", label="condition (2) holds")
    )
    lines = {
        label: mean_errorbar(ax, f"C{i}", f"{label}: mean Err (±2 SE)")
        for i, label in enumerate(STREAM_MECHANISMS)
    }
    (theta,) = ax.plot([], [], "k--", lw=1.1, label="θ (Eq. 1)")
    (upper,) = ax.plot([], [], "C0:", lw=1.6, label="Theorem 5: 2θ (Glance, under (2))")
    (lower,) = ax.plot([], [], "C1-.", lw=1.6, label="Theorem 4 (Harmony, β₄ = β/(N+1)²)")
    ax.set(yscale="log", xlabel="privacy budget ε", ylabel="Err = maxₜ |μ̂ₜ − μₜ|")
    power_of_ten_ticks(ax.yaxis, label_minor=True)  # plain Unicode, as on every panel
    outside_legend(ax)
    title = ax.set_title("", loc="left")
    return dict(ax=ax, cond=cond, lines=lines, theta=theta, upper=upper, lower=lower, title=title)


def _draw_continual(panel: Panel, **setting) -> None:
    c_ = continual_counting_curves(**setting)
    mu, n_users, n_rounds = setting["mu"], setting["n_users"], setting["n_rounds"]
    beta, n_draws = setting["beta"], setting["n_draws"]
    best = {label: float(v[-1]) for label, v in c_.mean_error.items()}
    held = c_.epsilons[c_.condition2]
    panel.summary.value = (
        f"μ = {fmt(mu)}, N = {n_users:,}, T = {n_rounds}, β = {fmt(beta)}, {n_draws} exact surveys per point: "
        f"at ε = {fmt(float(c_.epsilons[-1]))} mean Err Glance <b class='ldp-glance'>{best['Glance']:.4g}</b>, "
        f"Harmony <b class='ldp-harmony'>{best['Harmony']:.4g}</b>, T-shot <b>{best['T-shot']:.4g}</b>; "
        f"θ = <b class='ldp-theta'>{float(c_.theta[-1]):.4g}</b>, Theorem 4's bound {float(c_.harmony_lower[-1]):.4g}; "
        f"condition (2) holds at μ = {fmt(mu)} for "
        + (f"ε ∈ {{{', '.join(f'{e:.3g}' for e in held)}}}" if held.size else "no ε of the grid")
    )
    fig, a = figure_for(panel, _setup_continual, figsize=(10.5, 4.6))
    for label in STREAM_MECHANISMS:
        set_errorbar(a["lines"][label], c_.epsilons, c_.mean_error[label], 2 * c_.se[label])
    a["theta"].set_data(c_.epsilons, c_.theta)
    a["upper"].set_data(c_.epsilons, c_.glance_upper)
    a["lower"].set_data(c_.epsilons, c_.harmony_lower)
    values = np.concatenate([*c_.mean_error.values(), c_.theta, c_.glance_upper, c_.harmony_lower])
    low, high = float(np.nanmin(values[values > 0])) / 1.5, float(np.nanmax(values)) * 1.5
    step = c_.epsilons[1] - c_.epsilons[0]
    a["cond"].set_verts(
        [
            [(e - step / 2, low), (e + step / 2, low), (e + step / 2, high), (e - step / 2, high)]
            for e in held
        ]
    )
    a["ax"].set_xlim(0, float(c_.epsilons[-1]) + step / 2)
    a["ax"].set_ylim(low, high)
    a["title"].set_text(
        f"continual counting on the constant stream μ = {fmt(mu)}, N = {n_users:,}, T = {n_rounds}"
    )
    columns = {
        "epsilon": c_.epsilons,
        **{f"mean_err_{k}": c_.mean_error[k] for k in STREAM_MECHANISMS},
        **{f"se_{k}": c_.se[k] for k in STREAM_MECHANISMS},
        "theta_eq1": c_.theta,
        "glance_upper_thm5": c_.glance_upper,
        "harmony_lower_thm4": c_.harmony_lower,
        "condition2": c_.condition2,
    }
    show_figure(panel, *table_of(columns))


def continual_panel(
    *, mu=0.5, n_users=10_000, n_rounds=10, beta=0.1, epsilon_max=8.0, n_draws=5, seed=0
) -> Panel:
    """Continual counting: Glance vs Harmony vs T-shot mean Err over ε, with θ, condition (2) and Theorem 4.

    References
    ----------
    [glance] Eq. (1), condition (2), Theorems 4–5, §6.
    """
    defaults = dict(
        mu=mu,
        n_users=n_users,
        n_rounds=n_rounds,
        beta=beta,
        epsilon_max=epsilon_max,
        n_draws=n_draws,
        seed=seed,
    )
    continual_counting_curves(**defaults)  # bad defaults are refused here, as every interaction
    controls = {
        "mu": c.number(mu, 0.0, 1.0, "μ (stream)", step=0.01),
        "n_users": c.number(n_users, 10, 10**10, "N (users)", integer=True, log=True),
        "n_rounds": c.number(n_rounds, 1, 10**5, "T (rounds)", integer=True, log=True),
        "beta": c.number(beta, 1e-3, 0.99, "β", log=True),
        "epsilon_max": c.number(epsilon_max, 0.5, 30.0, "ε max", step=0.1),
        "n_draws": c.number(n_draws, 2, 10**4, "surveys", integer=True, log=True),
        "seed": c.text(seed, "seed"),
    }
    return build(
        "continual",
        controls,
        _draw_continual,
        "Continual counting: Glance vs Harmony vs T-shot",
        defaults=defaults,
    )


# ------------------------------------------------------------------------------------ m-shot


def _setup_m_shot(fig) -> dict:
    ax = fig.add_axes((0.075, 0.12, 0.53, 0.78))
    f_line = mean_errorbar(ax, "C0", "mean F-measure (±2 SE),\nexact surveys")
    star = ax.axvline(1.0, color="C3", lw=1.4, label="m* (Eq. 7)")
    ax.set(xscale="log", xlabel="m (reports per user)", ylabel="F-measure")
    power_of_ten_ticks(ax.xaxis)
    g_ax = ax.twinx()
    (g_line,) = g_ax.plot(
        [], [], color="grey", ls="--", lw=1.4, marker=".", ms=5, label="g(m/ε) (right axis)"
    )
    g_ax.set_ylabel("g(m/ε)")
    ax.legend(
        handles=[f_line, star, g_line],
        loc="upper left",
        bbox_to_anchor=(1.11, 1.0),
        borderaxespad=0.0,
        frameon=False,
    )
    title = ax.set_title("", loc="left")
    return {"ax": ax, "f": f_line, "star": star, "g_ax": g_ax, "g": g_line, "title": title}


def _draw_m_shot(panel: Panel, *, epsilon, n_rounds, n_users, theta, n_draws, seed) -> None:
    m = m_shot_curves(
        epsilon=epsilon, n_rounds=n_rounds, n_users=n_users, theta=theta, n_draws=n_draws, seed=seed
    )
    best = int(m.ms[int(np.argmax(m.mean_f))])
    star = list(m.ms).index(m.m_star)
    panel.summary.value = (
        f"ε = {fmt(epsilon)}, T = {n_rounds}, N = {n_users:,}, θ = {fmt(theta)}, {n_draws} exact surveys per m: "
        f"m* (Eq. 7) = <b class='ldp-mstar'>{m.m_star}</b> (c* = {m.c_star:.4f}, g(m*/ε) = "
        f"{float(m.g[star]):.4g}); mean F at m* = <b class='ldp-fstar'>{float(m.mean_f[star]):.4f}</b>, "
        f"best simulated m = {best} (F = {float(m.mean_f.max()):.4f}), 1-shot F = {float(m.mean_f[0]):.4f}, "
        f"T-shot F = {float(m.mean_f[-1]):.4f}"
    )
    fig, a = figure_for(panel, _setup_m_shot, figsize=(10.5, 4.4))
    set_errorbar(a["f"], m.ms.astype(float), m.mean_f, 2 * m.se)
    a["star"].set_xdata([m.m_star, m.m_star])
    a["g"].set_data(m.ms, m.g)
    a["ax"].set_xlim(0.8, max(1.25 * float(m.ms[-1]), 2.0))
    low = float(np.nanmin(m.mean_f - 2 * np.nan_to_num(m.se)))
    a["ax"].set_ylim(max(0.0, low - 0.05 * (1.0 - low) - 1e-3), 1.01)
    a["g_ax"].relim()
    a["g_ax"].autoscale_view()
    a["title"].set_text(
        f"m-shot, Experiment 1 (shuffled ramp, r = 0): ε = {fmt(epsilon)}, T = {n_rounds}"
    )
    columns = {
        "m": m.ms,
        "mean_f_measure": m.mean_f,
        "se": m.se,
        "g_m_over_epsilon": m.g,
        "is_m_star": m.ms == m.m_star,
    }
    show_figure(panel, *table_of(columns))


def m_shot_panel(
    *, epsilon=10.0, n_rounds=100, n_users=10_000, theta=0.5, n_draws=3, seed=0
) -> Panel:
    """m-shot: F-measure vs m for chosen ε, T, N, θ with m* (Eq. 7) and g(m/ε).

    References
    ----------
    [m_shot] Eq. (7), §4.3, §6.2 (Fig. 2a–c).
    """
    defaults = dict(
        epsilon=epsilon, n_rounds=n_rounds, n_users=n_users, theta=theta, n_draws=n_draws, seed=seed
    )
    m_shot_curves(**defaults)  # bad defaults are refused here, as every interaction
    controls = {
        "epsilon": c.number(epsilon, 0.1, 500.0, "ε", log=True),
        "n_rounds": c.number(n_rounds, 1, 5000, "T (rounds)", integer=True, log=True),
        "n_users": c.number(n_users, 10, 10**9 - 1, "N (users)", integer=True, log=True),
        "theta": c.number(theta, 0.01, 1.0, "θ (threshold)", step=0.01),
        "n_draws": c.number(n_draws, 1, 1000, "surveys", integer=True, log=True),
        "seed": c.text(seed, "seed"),
    }
    return build("m_shot", controls, _draw_m_shot, "m-shot: F-measure vs m", defaults=defaults)


BUILDERS = {"continual": continual_panel, "m_shot": m_shot_panel}
