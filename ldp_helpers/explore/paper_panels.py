"""ipywidgets panels for the papers' parameters: the RAPPOR guide, continual counting and m-shot.

The numbers come from the pure functions of :mod:`ldp_helpers.explore.rappor` and
:mod:`ldp_helpers.explore.streams`; each panel keeps one figure and updates its artists
(:mod:`ldp_helpers.explore._widgets`).  A refused value shows the library's ``ValueError`` message
in the panel, which keeps working.

References
----------
[erlingsson2014] §4, Theorems 1–2; [rappor] §3; [glance] Eq. (1), condition (2), Theorems 4–5;
[m_shot] Eq. (7), §4.3, §6.
"""

from __future__ import annotations

import html

import numpy as np

from ldp_helpers._validation import check_bool

from ldp_helpers.explore.rappor import CORRECTIONS, rappor_guide, simulated_precision_recall
from ldp_helpers.explore.streams import STREAM_MECHANISMS, continual_counting_curves, m_shot_curves
from ldp_helpers.explore._widgets import Panel, build, figure_for, fmt, rescale, show_figure

PANELS = ("rappor", "continual", "m_shot")
#: decoded surveys behind the RAPPOR guide's optional simulated check
SIMULATED_SURVEYS = 4

# ------------------------------------------------------------------------------------ RAPPOR guide


def _setup_rappor(fig) -> dict:
    ax = fig.add_subplot()
    fig.subplots_adjust(left=0.1, right=0.9, bottom=0.14, top=0.9)
    freq = ax.stairs([1.0], [0.5, 1.5], fill=True, color="lightgrey", label=r"candidate frequency $\pi_w$")
    thr, = ax.plot([], [], color="C3", lw=1, label=r"detection threshold $\pi_{\min,w}$ (power ½)")
    ax.set(yscale="log", xlabel="candidate w (rank)", ylabel="frequency")
    power_ax = ax.twinx()
    power, = power_ax.plot([], [], ".", color="C0", ms=3, label="Pr[detected] (analytic approx.)")
    power_ax.set(ylim=(-0.02, 1.02), ylabel="Pr[detected]")
    ax.legend(handles=[freq, thr, power], fontsize=7, loc="upper right")
    return {"ax": ax, "freq": freq, "thr": thr, "power": power}


def _draw_rappor(panel: Panel, *, k, h, m, f, p, q, n_reports, n_candidates, n_true, zipf_s, alpha, correction,
                 simulate) -> None:
    setting = dict(k=k, h=h, m=m, f=f, p=p, q=q, n_reports=n_reports, n_candidates=n_candidates, n_true=n_true,
                   zipf_s=zipf_s, alpha=alpha, correction=correction)
    s = rappor_guide(**setting)
    check = ""
    if check_bool("simulate", simulate):  # decoded surveys (exact aggregate sampler + the decoder): seconds, cached per setting
        sp, sr, sp_se, sr_se = simulated_precision_recall(**setting, n_draws=SIMULATED_SURVEYS)
        check = (f"; <b>simulated</b> ({SIMULATED_SURVEYS} decoded surveys): recall <b class='ldp-sim-recall'>{sr:.3f}</b> "
                 f"± {sr_se:.3f}, precision {sp:.3f} ± {sp_se:.3f}")
    panel.summary.value = (
        f"k = {k}, h = {h}, m = {m}, f = {fmt(f)}, p = {fmt(p)}, q = {fmt(q)}, N = {n_reports:,}: "
        f"ε of one report ε₁ = <b class='ldp-eps1'>{fmt(s.epsilon_one_report)}</b>, "
        f"permanent ε∞ = <b class='ldp-epsinf'>{fmt(s.epsilon_permanent)}</b> (q* = {s.q_star:.4g}, p* = {s.p_star:.4g}); "
        f"detection threshold π_min = <b class='ldp-threshold'>{s.threshold_no_collisions:.4g}</b> without collisions "
        f"(median {float(np.median(s.threshold)):.4g} with this design; {s.identical_pairs} identical filter pairs); "
        f"expected recall <b class='ldp-recall'>{s.expected_recall:.3f}</b>, precision "
        f"<b class='ldp-precision'>{s.expected_precision:.3f}</b> ({s.expected_false:.3g} false detections expected) "
        f"— analytic approximation (normal OLS estimates, LASSO ignored), not a simulation{check}")
    fig, a = figure_for(panel, _setup_rappor, figsize=(7.5, 3.6))
    w = np.arange(1, s.frequencies.size + 1)
    shown = np.where(s.frequencies > 0, s.frequencies, np.nan)
    a["freq"].set_data(np.nan_to_num(shown, nan=1e-12), np.arange(s.frequencies.size + 1) + 0.5)
    a["thr"].set_data(w, s.threshold)
    a["power"].set_data(w, s.detection_probability)
    a["ax"].set_xlim(0.5, s.frequencies.size + 0.5)
    positive = np.concatenate([s.frequencies[s.frequencies > 0], s.threshold])
    a["ax"].set_ylim(positive.min() / 2, max(positive.max() * 2, 1e-6))
    a["ax"].set_title(f"RAPPOR guide: M = {n_candidates} candidates, {n_true} held (Zipf s = {fmt(zipf_s)})", fontsize=9)
    show_figure(panel)


def rappor_panel(*, k=16, h=2, m=8, f=0.5, p=0.5, q=0.75, n_reports=100_000, n_candidates=100, n_true=20, zipf_s=1.0,
                 alpha=0.05, correction="bonferroni", simulate=False) -> Panel:
    """RAPPOR parameter guide: (k, h, m, f, p, q, N) → ε₁, ε∞, detection threshold, expected precision/recall.

    References
    ----------
    [erlingsson2014] Theorems 1–2, §4; [rappor] §3.
    """
    import ipywidgets as w

    rappor_guide(k=k, h=h, m=m, f=f, p=p, q=q, n_reports=n_reports, n_candidates=n_candidates, n_true=n_true,
                 zipf_s=zipf_s, alpha=alpha, correction=correction)  # bad defaults: the library's message, no widget
    controls = {
        "k": w.IntText(value=k, description="k (bits)"), "h": w.IntText(value=h, description="h (hashes)"),
        "m": w.IntText(value=m, description="m (cohorts)"), "f": w.FloatText(value=f, description="f", step=0.05),
        "p": w.FloatText(value=p, description="p", step=0.05), "q": w.FloatText(value=q, description="q", step=0.05),
        "n_reports": w.IntText(value=n_reports, description="N"),
        "n_candidates": w.IntText(value=n_candidates, description="M (cands)"),
        "n_true": w.IntText(value=n_true, description="held"), "zipf_s": w.FloatText(value=zipf_s, description="Zipf s"),
        "alpha": w.FloatText(value=alpha, description="α", step=0.01),
        "correction": w.Dropdown(options=list(CORRECTIONS), value=correction, description="correction"),
        "simulate": w.Checkbox(value=check_bool("simulate", simulate), description="check by decoding surveys"),
    }
    return build("rappor", controls, _draw_rappor, "RAPPOR parameter guide")


# ------------------------------------------------------------------------------------ continual counting


def _setup_continual(fig) -> dict:
    from matplotlib.collections import PolyCollection

    ax = fig.add_subplot()
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.14, top=0.9)
    cond = ax.add_collection(PolyCollection([], facecolors="#55a86833", edgecolors="none", label="condition (2) holds"))
    lines = {label: ax.errorbar([1.0], [1.0], yerr=[0.0], fmt="o-", ms=3, lw=1, color=f"C{i}", capsize=2,
                                label=f"{label}: mean Err (±2 SE)") for i, label in enumerate(STREAM_MECHANISMS)}
    theta, = ax.plot([], [], "k--", lw=0.9, label=r"θ (Eq. 1)")
    upper, = ax.plot([], [], "C0:", lw=1.2, label="Theorem 5: 2θ (Glance, under (2))")
    lower, = ax.plot([], [], "C1-.", lw=1.2, label=r"Theorem 4 (Harmony, β₄ = β/(N+1)²)")
    ax.set(yscale="log", xlabel="privacy budget ε", ylabel=r"Err = max$_t$ |μ̂$_t$ − μ$_t$|")
    ax.legend(fontsize=6.5, ncol=2, loc="upper right")
    return {"ax": ax, "cond": cond, "lines": lines, "theta": theta, "upper": upper, "lower": lower}


def _set_errorbar(container, x, y, yerr) -> None:
    line, _caps, (bars,) = container.lines[0], container.lines[1], container.lines[2]
    line.set_data(x, y)
    bars.set_segments([[(a, b - e), (a, b + e)] for a, b, e in zip(x, y, np.nan_to_num(yerr))])
    for cap, sign in zip(_caps, (-1, 1)):
        cap.set_data(x, y + sign * np.nan_to_num(yerr))


def _draw_continual(panel: Panel, *, mu, n_users, n_rounds, beta, epsilon_max, n_draws, seed) -> None:
    c = continual_counting_curves(mu=mu, n_users=n_users, n_rounds=n_rounds, beta=beta, epsilon_max=epsilon_max,
                                  n_draws=n_draws, seed=seed)
    best = {label: float(v[-1]) for label, v in c.mean_error.items()}
    held = c.epsilons[c.condition2]
    panel.summary.value = (
        f"μ = {fmt(mu)}, N = {n_users:,}, T = {n_rounds}, β = {fmt(beta)}, {n_draws} exact surveys per point: "
        f"at ε = {fmt(float(c.epsilons[-1]))} mean Err Glance <b class='ldp-glance'>{best['Glance']:.4g}</b>, "
        f"Harmony <b class='ldp-harmony'>{best['Harmony']:.4g}</b>, T-shot <b>{best['T-shot']:.4g}</b>; "
        f"θ = <b class='ldp-theta'>{float(c.theta[-1]):.4g}</b>, Theorem 4's bound {float(c.harmony_lower[-1]):.4g}; "
        f"condition (2) holds at μ = {fmt(mu)} for "
        + (f"ε ∈ {{{', '.join(f'{e:.3g}' for e in held)}}}" if held.size else "no ε of the grid"))
    fig, a = figure_for(panel, _setup_continual, figsize=(7.5, 3.8))
    for label in STREAM_MECHANISMS:
        _set_errorbar(a["lines"][label], c.epsilons, c.mean_error[label], 2 * c.se[label])
    a["theta"].set_data(c.epsilons, c.theta)
    a["upper"].set_data(c.epsilons, c.glance_upper)
    a["lower"].set_data(c.epsilons, c.harmony_lower)
    values = np.concatenate([*c.mean_error.values(), c.theta, c.glance_upper, c.harmony_lower])
    low, high = float(np.nanmin(values[values > 0])) / 1.5, float(np.nanmax(values)) * 1.5
    step = c.epsilons[1] - c.epsilons[0]
    a["cond"].set_verts([[(e - step / 2, low), (e + step / 2, low), (e + step / 2, high), (e - step / 2, high)] for e in held])
    a["ax"].set_xlim(0, float(c.epsilons[-1]) + step / 2)
    a["ax"].set_ylim(low, high)
    a["ax"].set_title(f"continual counting on the constant stream μ = {fmt(mu)}, N = {n_users:,}, T = {n_rounds}",
                      fontsize=9)
    show_figure(panel)


def continual_panel(*, mu=0.5, n_users=10_000, n_rounds=10, beta=0.1, epsilon_max=8.0, n_draws=5, seed=0) -> Panel:
    """Continual counting: Glance vs Harmony vs T-shot mean Err over ε, with θ, condition (2) and Theorem 4.

    References
    ----------
    [glance] Eq. (1), condition (2), Theorems 4–5, §6.
    """
    import ipywidgets as w

    continual_counting_curves(mu=mu, n_users=n_users, n_rounds=n_rounds, beta=beta, epsilon_max=epsilon_max,
                              n_draws=n_draws, seed=seed)
    controls = {
        "mu": w.FloatText(value=mu, description="μ", step=0.05), "n_users": w.IntText(value=n_users, description="N"),
        "n_rounds": w.IntText(value=n_rounds, description="T"), "beta": w.FloatText(value=beta, description="β", step=0.05),
        "epsilon_max": w.FloatText(value=epsilon_max, description="ε max", step=0.5),
        "n_draws": w.IntText(value=n_draws, description="surveys"), "seed": w.IntText(value=seed, description="seed"),
    }
    return build("continual", controls, _draw_continual, "Continual counting: Glance vs Harmony vs T-shot")


# ------------------------------------------------------------------------------------ m-shot


def _setup_m_shot(fig) -> dict:
    ax = fig.add_subplot()
    fig.subplots_adjust(left=0.1, right=0.9, bottom=0.14, top=0.9)
    f_line = ax.errorbar([1.0], [1.0], yerr=[0.0], fmt="o-", ms=3, lw=1, color="C0", capsize=2,
                         label="mean F-measure (±2 SE), exact surveys")
    star = ax.axvline(1.0, color="C3", lw=1, label="m* (Eq. 7)")
    ax.set(xscale="log", xlabel="m (reports per user)", ylabel="F-measure")
    g_ax = ax.twinx()
    g_line, = g_ax.plot([], [], color="grey", ls="--", lw=1, label="g(m/ε) (right axis)")
    g_ax.set_ylabel("g(m/ε)")
    ax.legend(handles=[f_line, star, g_line], fontsize=7, loc="lower left")
    return {"ax": ax, "f": f_line, "star": star, "g_ax": g_ax, "g": g_line}


def _draw_m_shot(panel: Panel, *, epsilon, n_rounds, n_users, theta, n_draws, seed) -> None:
    c = m_shot_curves(epsilon=epsilon, n_rounds=n_rounds, n_users=n_users, theta=theta, n_draws=n_draws, seed=seed)
    best = int(c.ms[int(np.argmax(c.mean_f))])
    at_star = float(c.mean_f[list(c.ms).index(c.m_star)])
    panel.summary.value = (
        f"ε = {fmt(epsilon)}, T = {n_rounds}, N = {n_users:,}, θ = {fmt(theta)}, {n_draws} exact surveys per m: "
        f"m* (Eq. 7) = <b class='ldp-mstar'>{c.m_star}</b> (c* = {c.c_star:.4f}, g(m*/ε) = "
        f"{float(c.g[list(c.ms).index(c.m_star)]):.4g}); mean F at m* = <b class='ldp-fstar'>{at_star:.4f}</b>, "
        f"best simulated m = {best} (F = {float(c.mean_f.max()):.4f}), 1-shot F = {float(c.mean_f[0]):.4f}, "
        f"T-shot F = {float(c.mean_f[-1]):.4f}")
    fig, a = figure_for(panel, _setup_m_shot, figsize=(7.5, 3.6))
    _set_errorbar(a["f"], c.ms.astype(float), c.mean_f, 2 * c.se)
    a["star"].set_xdata([c.m_star, c.m_star])
    a["g"].set_data(c.ms, c.g)
    a["ax"].set_xlim(0.8, max(1.25 * float(c.ms[-1]), 2.0))
    low = float(np.nanmin(c.mean_f - 2 * np.nan_to_num(c.se)))
    a["ax"].set_ylim(max(0.0, low - 0.05 * (1.0 - low) - 1e-3), 1.01)
    rescale(a["g_ax"])
    a["ax"].set_title(f"m-shot, Experiment 1 (shuffled ramp, r = 0): ε = {fmt(epsilon)}, T = {n_rounds}", fontsize=9)
    show_figure(panel)


def m_shot_panel(*, epsilon=10.0, n_rounds=100, n_users=10_000, theta=0.5, n_draws=3, seed=0) -> Panel:
    """m-shot: F-measure vs m for chosen ε, T, N, θ with m* (Eq. 7) and g(m/ε).

    References
    ----------
    [m_shot] Eq. (7), §4.3, §6.2 (Fig. 2a–c).
    """
    import ipywidgets as w

    m_shot_curves(epsilon=epsilon, n_rounds=n_rounds, n_users=n_users, theta=theta, n_draws=n_draws, seed=seed)
    controls = {
        "epsilon": w.FloatText(value=epsilon, description="ε", step=0.5),
        "n_rounds": w.IntText(value=n_rounds, description="T"), "n_users": w.IntText(value=n_users, description="N"),
        "theta": w.FloatText(value=theta, description="θ", step=0.05),
        "n_draws": w.IntText(value=n_draws, description="surveys"), "seed": w.IntText(value=seed, description="seed"),
    }
    return build("m_shot", controls, _draw_m_shot, "m-shot: F-measure vs m")


BUILDERS = {"rappor": rappor_panel, "continual": continual_panel, "m_shot": m_shot_panel}
