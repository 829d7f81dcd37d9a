"""The figures of notebook 04_glance ([glance]): data in, a matplotlib Figure out, nothing printed or saved.

Each function is named after the figure file it draws (``figures/04_glance/<name>.png``) and takes
what the notebook computed: the paper's curves, the simulated means and the paper's setting
(:class:`~ldp_helpers.bounds.glance.Setting`, which labels the axes).

References
----------
[glance] Fig. 1; [glance] Fig. 2; [glance] Fig. 3; [glance] Table 1; [glance] Claims 1–2.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from ldp_helpers._validation import (
    Described,
    check_instance,
    check_int,
    check_int_array,
    check_n_draws,
    check_real,
    check_real_array,
    fail,
)
from ldp_helpers.bounds.chernoff import TailCheck
from ldp_helpers.bounds.glance import Setting
from ldp_tools.pipeline.plots import plot_tail_bounds

EPSILON = r"privacy budget $\varepsilon$"


def _setting(name, value) -> Setting:
    return check_instance(
        name, value, Setting, "a Setting (n_users, n_rounds, beta) of ldp_helpers.bounds.glance"
    )


def _shown(value) -> Described:
    """A refused value as the messages show it: its type and the start of its repr."""
    return Described(f"{type(value).__name__} {value!r:.60}")


def _curves(name, value, keys=None, *, length: int) -> dict:
    """A non-empty dict of curves (arrays of finite reals), exactly ``keys`` if given, each of ``length`` points."""
    if not isinstance(value, dict) or not value or (keys is not None and set(value) != set(keys)):
        keyed = f" keyed {sorted(keys)}" if keys else ""
        fail(name, _shown(value), f"a dict of curves{keyed}")
    curves = {k: check_real_array(name, v) for k, v in value.items()}
    if any(np.shape(v)[0] != length for v in curves.values() if np.ndim(v)):
        fail(
            name,
            Described("a curve of another length"),
            f"curves of {length} points (one per epsilon)",
        )
    return curves


def _fraction(name, value) -> float:
    return check_real(name, value, low=0.0, high=1.0, low_open=False, high_open=False)


def _bounds(glance_upper, harmony_lower, length):
    """Theorem 5's 2θ and Theorem 4's bound, one value per ε each."""
    curves = (
        check_real_array("glance_upper", glance_upper),
        check_real_array("harmony_lower", harmony_lower),
    )
    for name, curve in zip(("glance_upper", "harmony_lower"), curves):
        if curve.shape != (length,):
            fail(
                name,
                Described(f"an array of shape {curve.shape}"),
                f"one value per epsilon ({length})",
            )
    return curves


def _count(n: int) -> str:
    """N as a label: 10^5 for a power of ten, 10,000 otherwise."""
    k = round(math.log10(n))
    return f"10^{k}" if 10**k == n and 1 < k < 10 else f"{n:,}"


def error_decomposition(
    epsilons, parts, quantiles, theta, sampling_bound: float, *, mu: float, setting: Setting
) -> Figure:
    """Glance's error split into its randomized-response and sampling parts, each beside its bound (Claims 1, 2).

    ``parts`` is :func:`~ldp_helpers.experiments.glance.error_parts_curve`'s result; ``quantiles`` the empirical
    ``1 − β/2``-quantiles of its ``"rr"`` and ``"sampling"`` entries per ε; ``theta`` Eq. (1) per ε.
    """
    eps = check_real_array("epsilons", epsilons)
    parts = _curves("parts", parts, ("total", "rr", "sampling"), length=eps.size)
    quantiles = _curves("quantiles", quantiles, ("rr", "sampling"), length=eps.size)
    theta = check_real_array("theta", theta, low=0.0)
    sampling_bound = check_real("sampling_bound", sampling_bound, low=0.0)
    mu, (N, T, beta) = _fraction("mu", mu), _setting("setting", setting)
    level = 1 - beta / 2
    fig, ax = plt.subplots(figsize=(6.4, 5.2))
    ax.plot(
        eps,
        parts["rr"].mean(axis=1),
        "o-",
        color="C0",
        label=r"RR part $\max_t|\hat\mu_t-\tilde\mu_t|$ (mean)",
    )
    ax.plot(eps, quantiles["rr"], "v:", color="C0", label=rf"RR part, empirical {level:g}-quantile")
    ax.plot(eps, theta, "-", color="C0", lw=2.5, alpha=0.5, label=r"Claim 1 bound $\theta$ (Eq. 1)")
    ax.plot(
        eps,
        parts["sampling"].mean(axis=1),
        "s-",
        color="C1",
        label=r"sampling part $\max_t|\tilde\mu_t-\mu_t|$ (mean)",
    )
    ax.plot(
        eps,
        quantiles["sampling"],
        "^:",
        color="C1",
        label=rf"sampling part, empirical {level:g}-quantile",
    )
    ax.axhline(sampling_bound, color="C1", lw=2.5, alpha=0.5, label=r"Claim 2 bound $\sqrt{L/2}$")
    ax.plot(eps, parts["total"].mean(axis=1), "k.-", label=r"total Err (mean)")
    ax.set(
        yscale="log",
        xlabel=EPSILON,
        ylabel="error (fraction of users)",
        title=rf"Glance error decomposition, $\mu={mu:g}$, $T={T}$, $N={N:,}$, $\beta={beta:g}$",
    )
    fig.legend(fontsize=7.5, ncol=2, loc="outside lower center")
    return fig


def fig1_condition2_region(epsilons, mus, regions, settings) -> Figure:
    """[glance] Fig. 1: where condition (2) holds over (ε, μ), one panel per source of N (caption, text).

    ``regions[source]`` is ``dense_sparse_condition`` on the grid (μ × ε), ``settings[source]`` its setting.
    """
    eps, mus = check_real_array("epsilons", epsilons), check_real_array("mus", mus)
    if (
        not isinstance(settings, dict)
        or not settings
        or not all(isinstance(s, Setting) for s in settings.values())
    ):
        fail("settings", _shown(settings), "a dict of source -> Setting")
    if (
        not isinstance(regions, dict)
        or set(regions) != set(settings)
        or any(np.shape(r) != (mus.size, eps.size) for r in regions.values())
    ):
        fail(
            "regions",
            _shown(regions),
            f"a dict of source -> bool grid of shape {(mus.size, eps.size)}, one per setting",
        )
    fig, axes = plt.subplots(1, len(settings), figsize=(9, 3.8), sharey=True, squeeze=False)
    for ax, (source, (N, T, beta)) in zip(axes[0], settings.items()):
        region = np.asarray(regions[source]).astype(float)
        ax.contourf(eps, mus, region, levels=[0.5, 1.5], colors=["C0"], alpha=0.6)
        ax.contour(eps, mus, region, levels=[0.5], colors="k", linewidths=0.8)
        ax.set(
            xlabel=EPSILON, title=rf"$N = {N:,}$ (the paper's {source}), $T={T}$, $\beta={beta:g}$"
        )
    axes[0, 0].set_ylabel(r"fraction of active users $\mu_t$")
    fig.suptitle("Figure 1: shaded = condition (2) holds (dense or sparse rounds)")
    return fig


def fig2_bounds_vs_epsilon(
    epsilons, glance_upper, harmony_lower, *, limit: float, crossover: float, paper_crossover: float
) -> Figure:
    """[glance] Fig. 2: Theorem 5's 2θ against Theorem 4's bound, with 2θ's limit 8L/3 and both crossovers."""
    eps = check_real_array("epsilons", epsilons)
    glance_upper, harmony_lower = _bounds(glance_upper, harmony_lower, eps.size)
    limit = check_real("limit", limit, low=0.0)
    crossover = check_real("crossover", crossover, low=0.0)
    paper_crossover = check_real("paper_crossover", paper_crossover, low=0.0)
    fig, ax = plt.subplots()
    ax.plot(eps, glance_upper, color="C0", label=r"Glance upper bound $2\theta$ (Thm 5)")
    ax.plot(eps, harmony_lower, color="C1", label="Harmony lower bound (Thm 4)")
    ax.axhline(limit, color="C0", ls=":", lw=1, label=r"limit of $2\theta$: $8L/3$")
    ax.axvline(
        paper_crossover,
        color="grey",
        ls="--",
        lw=1,
        label=rf"paper's crossover $\varepsilon={paper_crossover:g}$",
    )
    ax.axvline(
        crossover, color="k", ls=":", lw=1, label=rf"our crossover $\varepsilon={crossover:.3g}$"
    )
    ax.set(
        yscale="log",
        xlabel=EPSILON,
        ylabel="bound on Err (fraction of users)",
        title=r"Figure 2: dense/sparse case, $N=10^6$, $T=10$, $\beta=1/(2(N+1)^2)$",
    )
    ax.legend()
    return fig


def fig3_err_vs_epsilon(
    epsilons,
    mean_error,
    glance_upper,
    harmony_lower,
    *,
    dense_mu: float,
    general_fails_from: float,
    setting: Setting,
    n_draws: int,
) -> Figure:
    """[glance] Fig. 3: mean Err of Glance and Harmony on the dense and the general stream, with both bounds.

    ``mean_error[(mechanism name, μ)]`` per ε, Glance first; ``dense_mu`` is the dense stream's μ (its
    curves are "-DS", the others "-General"); the grey line marks where (2) starts failing on the general stream.
    """
    eps = check_real_array("epsilons", epsilons)
    mean_error = _curves("mean_error", mean_error, length=eps.size)
    glance_upper, harmony_lower = _bounds(glance_upper, harmony_lower, eps.size)
    dense_mu = _fraction("dense_mu", dense_mu)
    general_fails_from = check_real("general_fails_from", general_fails_from, low=0.0)
    (N, T, beta), n_draws = _setting("setting", setting), check_n_draws(n_draws)
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    # the General curves of Glance and Harmony are close at small ε: hollow, larger markers keep both visible
    styles = {
        ("Glance", True): ("C0", "o-", "Glance-DS", 5),
        ("Glance", False): ("C0", "D--", "Glance-General", 9),
        ("Harmony", True): ("C1", "o-", "Harmony-DS", 5),
        ("Harmony", False): ("C1", "s-", "Harmony-General", 4),
    }
    for (name, mu), curve in mean_error.items():
        color, fmt, label, size = styles[name, mu == dense_mu]
        ax.plot(
            eps,
            curve,
            fmt,
            color=color,
            ms=size,
            mfc="none" if size > 5 else color,
            label=label + rf" ($\mu={mu:g}$)",
        )
    for curve, color, label in (
        (glance_upper, "C0", rf"Glance bound $2\theta$ ($\beta={beta:g}$)"),
        (harmony_lower, "C1", r"Harmony Thm 4 bound ($\beta=\frac{1}{2(N+1)^2}$)"),
    ):
        ax.plot(eps, curve, color=color, lw=2.5, alpha=0.35, label=label)
    general = next(mu for _, mu in mean_error if mu != dense_mu)
    ax.axvline(
        general_fails_from,
        color="grey",
        ls=":",
        lw=1,
        label=rf"$\varepsilon={general_fails_from:g}$: (2) fails for $\mu={general:g}$ beyond",
    )
    ax.set(
        yscale="log",
        xlabel=EPSILON,
        ylabel=r"mean Err $=\max_t|\hat\mu_t-\mu_t|$",
        title=rf"Figure 3: $T={T}$, $N={N:,}$, {n_draws:,} surveys per point",
    )
    ax.legend(fontsize=7.5)
    return fig


def table1_rates_in_epsilon(epsilons, mean_error, *, mus, setting: Setting) -> Figure:
    """[glance] Table 1 made visible: mean Err vs ε on a log–log scale (ε → 0) and on a log scale (ε → ∞).

    ``mean_error[(mechanism name, case)]`` per ε (cases "general" and "dense/sparse", μ from ``mus``), with
    guides of slope −1 (O(1/ε)) anchored at Glance's general curve and ∝ e^{−ε/2} at Glance's dense curve at ε = 3.
    """
    eps = check_real_array("epsilons", epsilons, low=0.0)
    keys = {(name, case) for name in ("Glance", "Harmony") for case in ("general", "dense/sparse")}
    mean_error = _curves("mean_error", mean_error, keys, length=eps.size)
    if not isinstance(mus, dict) or set(mus) != {"general", "dense/sparse"}:
        fail("mus", _shown(mus), "a dict of case ('general', 'dense/sparse') -> mu")
    if not np.any(eps == 3.0):
        fail(
            "epsilons",
            Described("a grid without 3"),
            "a grid holding ε = 3 (the anchor of the e^(−ε/2) guide)",
        )
    N, T, _ = _setting("setting", setting)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for (name, case), mean in mean_error.items():
        for ax in axes:
            ax.plot(
                eps,
                mean,
                "o-" if case == "dense/sparse" else "s--",
                color="C0" if name == "Glance" else "C1",
                label=f"{name}, {case}",
            )
    guide = mean_error["Glance", "general"][0] * eps[0] / eps
    axes[0].plot(eps[eps <= 1], guide[eps <= 1], "k:", label=r"slope $-1$: $O(1/\varepsilon)$")
    axes[0].set(
        xscale="log",
        yscale="log",
        xlabel=r"$\varepsilon$ (log scale)",
        ylabel="mean Err",
        title=r"$\varepsilon\to0$: log–log",
    )
    anchor = mean_error["Glance", "dense/sparse"][eps == 3.0][0]
    axes[1].plot(
        eps[eps >= 2],
        anchor * np.exp(-(eps[eps >= 2] - 3) / 2),
        "k:",
        label=r"$\propto e^{-\varepsilon/2}$",
    )
    axes[1].set(
        yscale="log",
        xlabel=r"$\varepsilon$",
        title=r"$\varepsilon\to\infty$: log Err vs $\varepsilon$",
        xlim=(1, 10.5),
    )
    axes[1].legend(fontsize=8)
    fig.suptitle(
        rf"Table 1: measured Err, $T={T}$, $N={N:,}$ "
        rf"(general $\mu={mus['general']:g}$, dense $\mu={mus['dense/sparse']:g}$)"
    )
    return fig


def error_vs_t_and_n(
    rounds, by_rounds, users, by_users, *, n_users: int, n_rounds: int, epsilon: float, mu: float
) -> Figure:
    """Mean Err divided by the stated rate √(T log T / N): over T at ``n_users`` users, over N at ``n_rounds`` rounds.

    ``by_rounds`` / ``by_users`` map a mechanism name to its mean Err over ``rounds`` / ``users``; flat = the rate.

    References
    ----------
    [glance] Corollaries 1, 3; [glance] §1.1.
    """
    rounds, users = check_int_array("rounds", rounds, low=2), check_int_array("users", users, low=1)
    by_rounds = _curves("by_rounds", by_rounds, length=rounds.size)
    by_users = _curves("by_users", by_users, length=users.size)
    n_users, n_rounds = check_int("n_users", n_users, low=1), check_int("n_rounds", n_rounds, low=2)
    epsilon, mu = check_real("epsilon", epsilon, low=0.0), _fraction("mu", mu)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    rates = (
        np.sqrt(rounds * np.log(rounds) / n_users),
        np.sqrt(n_rounds * np.log(n_rounds) / users),
    )
    for ax, x, curves, rate in zip(axes, (rounds, users), (by_rounds, by_users), rates):
        for i, (name, v) in enumerate(curves.items()):
            ax.plot(x, v / rate, "o-", color=f"C{i}", label=name)
    axes[0].set(
        xscale="log",
        yscale="log",
        xlabel=f"number of rounds $T$ ($N={_count(n_users)}$)",
        ylabel=r"mean Err $/\sqrt{T\log T/N}$",
    )
    axes[1].set(
        xscale="log",
        xlabel=f"number of users $N$ ($T={n_rounds}$)",
        ylabel=r"mean Err $/\sqrt{T\log T/N}$",
        ylim=(0, None),
    )
    axes[0].legend()
    fig.suptitle(
        rf"Error vs $T$ and $N$ at $\varepsilon={epsilon:g}$, $\mu={mu:g}$ (flat = the stated rate)"
    )
    return fig


def three_mechanisms(epsilons, mean_error, rappor, *, setting: Setting) -> Figure:
    """Glance, Harmony and Basic One-time RAPPOR side by side, one panel per stream μ.

    ``mean_error[(name, μ)]`` for "Glance" and "Harmony" and ``rappor[μ]`` (Basic One-time RAPPOR) per ε.
    """
    eps = check_real_array("epsilons", epsilons)
    mean_error = _curves("mean_error", mean_error, length=eps.size)
    rappor = _curves("rappor", rappor, length=eps.size)
    if not all((name, mu) in mean_error for mu in rappor for name in ("Glance", "Harmony")):
        fail(
            "mean_error",
            Described(f"keys {sorted(mean_error)}"),
            "a Glance and a Harmony curve for every mu of rappor",
        )
    N, T, _ = _setting("setting", setting)
    fig, axes = plt.subplots(1, len(rappor), figsize=(10, 4), sharey=True, squeeze=False)
    for ax, mu in zip(axes[0], rappor):
        for i, name in enumerate(("Glance", "Harmony")):
            ax.plot(eps, mean_error[name, mu], "o-", color=f"C{i}", label=name)
        ax.plot(eps, rappor[mu], "o-", color="C2", label="Basic One-time RAPPOR")
        ax.set(yscale="log", xlabel=EPSILON, title=rf"$\mu={mu:g}$, $T={T}$, $N={N:,}$")
    axes[0, 0].set_ylabel("mean Err")
    axes[0, 0].legend()
    return fig


def chernoff_vs_exact_tail(
    deviations, tail: TailCheck, theta: float, *, epsilon: float, n_reporters: int
) -> Figure:
    """Claim 1's Bernstein bound and the Chernoff–Hoeffding bound against the exact tail of a sparse round's RR error.

    ``tail`` is :func:`~ldp_helpers.experiments.glance.sparse_round_tail` over ``deviations``; θ/2 (where the
    Bernstein exponent is L) and θ are marked.

    References
    ----------
    [glance] Claim 1; [glance] Eq. (1); [glance] condition (2).
    """
    s = check_real_array("deviations", deviations, low=0.0)
    tail = check_instance(
        "tail", tail, TailCheck, "a TailCheck (experiments.glance.sparse_round_tail)"
    )
    if not {"bernstein_upper", "kl_upper"} <= set(tail.values) or np.shape(tail.exact) != s.shape:
        fail(
            "tail",
            Described(f"bounds {sorted(tail.values)} over {np.shape(tail.exact)}"),
            f"the Bernstein and KL bounds over the {s.size} deviations",
        )
    theta, epsilon = check_real("theta", theta, low=0.0), check_real("epsilon", epsilon, low=0.0)
    n_reporters = check_int("n_reporters", n_reporters, low=1)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    bounds = {
        r"Bernstein: $e^{-K R(s)}$, $R$ = right-hand side of (2)": tail.values["bernstein_upper"],
        r"Chernoff–Hoeffding: $e^{-K D(q+s(p-q)\,\|\,q)}$": tail.values["kl_upper"],
    }
    plot_tail_bounds(
        ax,
        s,
        bounds,
        tail.exact,
        r"exact $\Pr[\hat\mu_t-\tilde\mu_t\geq s]$, $X_t\sim\mathrm{Bin}(K, q)$",
        [(theta / 2, r"$\theta/2$, where $R = L$"), (theta, r"$\theta$ (Eq. 1)")],
        xlabel=r"deviation $s$ of the RR error",
        title=rf"Sparse round ($\tilde\mu_t = 0$): $\varepsilon = {epsilon:g}$, $K = N/T = {n_reporters}$",
    )
    ax.legend(fontsize=7.5, loc="lower left")
    return fig
