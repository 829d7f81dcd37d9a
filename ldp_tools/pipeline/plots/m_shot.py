"""The m-shot notebook's figures ([m_shot] Fig. 1, Eq. (7), Fig. 2a–f, Theorem 9, (A-3)): data in, a Figure out.

Each function takes what the notebook computed (and evaluates the paper's closed forms it draws from
:mod:`ldp_helpers.bounds.m_shot`), builds one figure and returns it; nothing is printed or saved
(the notebook's ``publish(fig, name)`` saves and shows it).

References
----------
[m_shot] Fig. 1; [m_shot] Eq. (7); [m_shot] Fig. 2; [m_shot] Theorem 9; [m_shot] Eq. (A-3).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure

from ldp_helpers._validation import (
    Described,
    check_epsilon,
    check_instance,
    check_int,
    check_int_array,
    check_probability,
    check_real,
    check_real_array,
    fail,
)
from ldp_helpers.bounds.chernoff import TailCheck
from ldp_helpers.bounds.extremes import rate_guide
from ldp_helpers.bounds.m_shot import METHODS, c_star, g, m_star, rate_exponent
from ldp_helpers.experiments.common import mean_and_se
from ldp_tools.pipeline.plots import plot_tail_bounds

EXPERIMENT_2_METHODS = ("m*-shot", "T-shot")  # the two methods Fig. 2d–f compares


def _power_of_ten(n: int) -> str:
    """``10^k`` when n is a power of ten (as the paper's captions write N), else n with thousands separators."""
    k = len(str(n)) - 1
    return f"10^{k}" if n == 10**k else f"{n:,}"


def _curves(name: str, curves, keys, rows: int) -> dict:
    """``curves`` as a dict over exactly ``keys`` of real arrays of shape (rows, n_draws ≥ 2)."""
    if not isinstance(curves, dict) or set(curves) != set(keys):
        fail(name, Described(f"{curves!r:.80}"), f"a dict with the keys {list(keys)}")
    out = {
        key: check_real_array(f"{name}[{key!r}]", curves[key], low=0.0, low_open=False)
        for key in keys
    }
    if any(v.ndim != 2 or v.shape[0] != rows or v.shape[1] < 2 for v in out.values()):
        fail(name, Described("arrays of other shapes"), f"arrays of shape ({rows}, n_draws ≥ 2)")
    return out


def g_and_c_star(x, epsilon: float, ms, m_opt: int) -> Figure:
    """[m_shot] Fig. 1: g(x) over ``x``, its maximizer c*, g(m/ε) at the integers ``ms`` and at m* = ``m_opt``.

    References
    ----------
    [m_shot] Fig. 1; [m_shot] §4.3; [m_shot] §5.3.
    """
    x = check_real_array("x", x, low=0.0).ravel()
    epsilon = check_epsilon(epsilon)
    ms = check_int_array("ms", ms, low=1).ravel()
    m_opt = check_int("m_opt", m_opt, low=1)
    c = c_star()
    fig, ax = plt.subplots(figsize=(8.4, 3.8))
    ax.plot(x, g(x), label=r"$g(x)$")
    ax.axvline(c, color="C1", ls="--", lw=1)
    ax.plot(
        [c],
        [g(c)],
        "o",
        color="C1",
        zorder=4,
        label=rf"$c^* = {c:.4f}$ (maximum, $g = {g(c):.4f}$)",
    )
    ax.plot(
        ms / epsilon,
        g(ms / epsilon),
        ".",
        color="C2",
        label=rf"$g(m/\varepsilon)$, $\varepsilon = {epsilon:g}$, $m = {ms[0]}..{ms[-1]}$",
    )
    ax.plot(
        [m_opt / epsilon], [g(m_opt / epsilon)], "*", ms=12, color="C3", label=rf"$m^* = {m_opt}$"
    )
    ax.set(
        xscale="log",
        xlabel=r"$x = m/\varepsilon$",
        ylabel=r"$g(x) = f(m, 0)$",
        title=r"Figure 1: $g(m/\varepsilon)$ and its maximizer $c^*$",
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def m_star_regimes(
    epsilons, rounds, m_table, experiment_epsilons, experiment_rounds: int
) -> Figure:
    """[m_shot] Eq. (7): m*/T over (ε, T) with the regime boundaries ε = 1/c* and ε = T/c*, and the line ε = T.

    ``m_table`` is m* of shape (len(rounds), len(epsilons)) (:func:`ldp_helpers.bounds.m_shot.m_star_table`);
    the experiment's settings (``experiment_epsilons`` at T = ``experiment_rounds``) are starred.

    References
    ----------
    [m_shot] Eq. (7); [m_shot] §6.2.
    """
    epsilons = check_real_array("epsilons", epsilons, low=0.0).ravel()
    rounds = check_int_array("rounds", rounds, low=1).ravel()
    m_table = check_int_array("m_table", m_table, low=1, shape=(rounds.size, epsilons.size))
    experiment_epsilons = check_real_array(
        "experiment_epsilons", experiment_epsilons, low=0.0
    ).ravel()
    experiment_rounds = check_int("experiment_rounds", experiment_rounds, low=1)
    c = c_star()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    mesh = ax.pcolormesh(
        epsilons,
        rounds,
        m_table / rounds[:, None],
        norm=LogNorm(vmin=1e-3, vmax=1),
        shading="nearest",
    )
    fig.colorbar(mesh, ax=ax, label=r"$m^*/T$")
    ax.plot(
        [1 / c, 1 / c],
        [rounds[0], rounds[-1]],
        color="white",
        lw=1.2,
        label=r"$\varepsilon = 1/c^*$ (below: 1-shot)",
    )
    ax.plot(
        rounds / c, rounds, color="black", lw=1.2, label=r"$\varepsilon = T/c^*$ (above: T-shot)"
    )
    ax.plot(rounds, rounds, color="C1", ls=":", lw=1.2, label=r"$\varepsilon = T$ (middle regime)")
    ax.plot(
        experiment_epsilons,
        np.full(experiment_epsilons.size, experiment_rounds),
        "*",
        ms=11,
        color="C3",
        label=f"Experiment 1 settings (T = {experiment_rounds})",
    )
    for x, y, text in (
        (0.75, 12, "$m^* = 1$"),
        (60, 700, r"$m^* \approx c^*\varepsilon$"),
        (400, 4, "$m^* = T$"),
    ):
        ax.text(x, y, text, ha="center", color="white" if x < 100 else "black", fontsize=10)
    ax.set(
        xscale="log",
        yscale="log",
        xlabel=r"privacy budget $\varepsilon$",
        ylabel=r"number of rounds $T$",
        title=r"Eq. (7): the three regimes of $m^*$",
    )
    ax.legend(loc="upper left", fontsize=8, frameon=True)
    return fig


def f_measure_vs_m(ms, f, paper_peaks, *, n_rounds: int, n_users: int, theta: float) -> Figure:
    """[m_shot] Fig. 2a–c: mean F-measure (± 2 SE) against m per ε, m* of Eq. (7) and the paper's reported peak.

    ``f`` maps each ε to F-measures of shape (len(ms), n_draws) (:func:`ldp_helpers.experiments.m_shot.f_measure_vs_m`);
    ``paper_peaks`` maps the same ε to the (m, F) the paper reports.

    References
    ----------
    [m_shot] Fig. 2a–c; [m_shot] §6.2; [m_shot] Eq. (7).
    """
    ms = check_int_array("ms", ms, low=1).ravel()
    n_rounds, n_users = check_int("n_rounds", n_rounds, low=1), check_int("n_users", n_users, low=1)
    theta = check_real("theta", theta, low=0.0, high=1.0, high_open=False)
    if not isinstance(f, dict) or not f:
        fail(
            "f",
            Described(f"{f!r:.80}"),
            "a non-empty dict of epsilon -> F-measures (len(ms) × n_draws)",
        )
    f = _curves("f", f, list(f), ms.size)
    if not isinstance(paper_peaks, dict) or not set(f) <= set(paper_peaks):
        fail(
            "paper_peaks",
            Described(f"{paper_peaks!r:.80}"),
            "a dict of epsilon -> (m, F) for every epsilon of f",
        )
    fig, axes = plt.subplots(1, len(f), figsize=(11, 3.6), sharey=True, squeeze=False)
    for ax, (eps, values), label in zip(axes[0], f.items(), "abcdefgh"):
        mean_f, se = mean_and_se(values)
        ax.fill_between(ms, mean_f - 2 * se, mean_f + 2 * se, alpha=0.25, label=r"mean $\pm 2$ SE")
        ax.plot(ms, mean_f, ".-", ms=3, label=f"simulated ({values.shape[1]} surveys/point)")
        m_opt = m_star(eps, n_rounds)
        ax.axvline(m_opt, color="C2", ls="--", lw=1, label=rf"$m^* = {m_opt}$ (Eq. 7)")
        ax.plot(*paper_peaks[eps], "*", ms=12, color="C3", label="paper's reported peak")
        ax.set(
            xscale="log",
            xlabel="reporting rounds per user $m$",
            title=rf"({label}) $\varepsilon = {eps:g}$, $T = {n_rounds}$, $N = {_power_of_ten(n_users)}$",
        )
    axes[0, 0].set(ylabel=rf"mean F-measure ($\theta = {theta:g}$)", ylim=(0, 1.02))
    axes[0, 0].legend(loc="lower left", fontsize=8)
    return fig


def f_measure_vs_rounds(rounds, f, *, n_users: int, theta: float) -> Figure:
    """[m_shot] Fig. 2d–f: mean F-measure (± 2 SE) of m*-shot and T-shot against T, one panel per ε.

    ``f`` maps (ε, method) for the methods of :data:`EXPERIMENT_2_METHODS` to F-measures of shape
    (len(rounds), n_draws) (:func:`ldp_helpers.experiments.m_shot.f_measure_vs_rounds`).

    References
    ----------
    [m_shot] Fig. 2d–f; [m_shot] §6.3.
    """
    rounds = check_int_array("rounds", rounds, low=1).ravel()
    n_users = check_int("n_users", n_users, low=1)
    theta = check_real("theta", theta, low=0.0, high=1.0, high_open=False)
    if not isinstance(f, dict) or not f or not all(isinstance(k, tuple) and len(k) == 2 for k in f):
        fail(
            "f",
            Described(f"{f!r:.80}"),
            "a non-empty dict of (epsilon, method) -> F-measures (len(rounds) × n_draws)",
        )
    epsilons = list(dict.fromkeys(eps for eps, _ in f))
    f = _curves(
        "f", f, [(eps, meth) for eps in epsilons for meth in EXPERIMENT_2_METHODS], rounds.size
    )
    fig, axes = plt.subplots(1, len(epsilons), figsize=(11, 3.6), sharey=True, squeeze=False)
    for ax, eps, label in zip(axes[0], epsilons, "defghijk"):
        for meth, color in zip(EXPERIMENT_2_METHODS, ("C0", "C1")):
            mean_f, se = mean_and_se(f[eps, meth])
            ax.fill_between(rounds, mean_f - 2 * se, mean_f + 2 * se, color=color, alpha=0.2)
            ax.plot(rounds, mean_f, "o-", ms=3, color=color, label=f"{meth} (mean $\\pm$ 2 SE)")
        ax.set(
            xlabel="number of rounds $T$",
            title=rf"({label}) $\varepsilon = {eps:g}$, $N = {_power_of_ten(n_users)}$",
        )
    axes[0, 0].set(ylabel=rf"mean F-measure ($\theta = {theta:g}$)", ylim=(0, 1.02))
    axes[0, 0].legend(loc="lower left")
    return fig


def max_error_rates(rounds, errors, slopes, settings, beta: float, *, n_users: int) -> Figure:
    """Theorem 9 made visible: mean maximum error against T per method and b, with guides ∝ T^e √log(2T/β).

    ``errors`` maps (b, method) to max errors of shape (len(rounds), n_draws), ``slopes`` (b, method) to the
    fitted exponent (:func:`ldp_helpers.experiments.m_shot.fit_rates`); ``settings`` lists (b, scale), ε = scale·T^b.

    References
    ----------
    [m_shot] Theorem 9; [m_shot] Eqs. (8)–(10).
    """
    rounds = check_int_array("rounds", rounds, low=1).ravel()
    beta = check_probability(beta, "beta", open_low=True, open_high=True)
    n_users = check_int("n_users", n_users, low=1)
    if (
        not isinstance(settings, (tuple, list))
        or not settings
        or not all(isinstance(s, tuple) and len(s) == 2 for s in settings)
    ):
        fail("settings", Described(f"{settings!r:.80}"), "a non-empty sequence of (b, scale)")
    keys = [(b, meth) for b, _ in settings for meth in METHODS]
    errors = _curves("errors", errors, keys, rounds.size)
    if not isinstance(slopes, dict) or set(slopes) != set(keys):
        fail("slopes", Described(f"{slopes!r:.80}"), f"a dict with the keys {keys}")
    slopes = {key: check_real(f"slopes[{key!r}]", slopes[key]) for key in keys}
    fig, axes = plt.subplots(1, len(settings), figsize=(11, 3.8), sharey=True, squeeze=False)
    for ax, (b, scale) in zip(axes[0], settings):
        for meth, color in zip(METHODS, ("C0", "C2", "C1")):
            err, exponent = errors[b, meth].mean(axis=1), rate_exponent(meth, b)
            ax.plot(
                rounds,
                err,
                "o-",
                color=color,
                label=f"{meth}: slope {slopes[b, meth]:.2f} (Thm 9: {exponent:.2g})",
            )
            ax.plot(rounds, rate_guide(rounds, err[0], exponent, beta), ":", color=color, lw=1)
        ax.set(
            xscale="log",
            yscale="log",
            xlabel="number of rounds $T$",
            title=rf"$b = {b:g}$: $\varepsilon = {scale:g}\,T^{{{b:g}}}$",
        )
        ax.legend(loc="upper left", fontsize=7.5)
    axes[0, 0].set_ylabel(
        rf"mean max error $\max_t|\Phi - \Phi_0|$ ($N = {_power_of_ten(n_users)}$)"
    )
    fig.suptitle(
        r"Theorem 9: dotted guides $\propto T^{e}\sqrt{\log(2T/\beta)}$ with the predicted exponent $e$"
    )
    return fig


def chernoff_vs_exact_tail(
    alpha,
    tail,
    certified: float,
    beta: float,
    *,
    epsilon: float,
    n_rounds: int,
    m: int,
    n_users: int,
) -> Figure:
    """(A-3) and the Chernoff–Hoeffding bound against the exact tail of a round with Φ0 = 1, over the deviation α.

    ``tail`` is :func:`ldp_helpers.bounds.chernoff.tail_check` of ("two_sided", "kl_two_sided") over δ = α(p − q)/p;
    ``certified`` is the α at which bound (2) equals ``beta`` (marked).

    References
    ----------
    [m_shot] Eq. (A-3); [m_shot] Theorem 5; [hoeffding1963] Theorem 1.
    """
    alpha = check_real_array("alpha", alpha, low=0.0).ravel()
    check_instance("tail", tail, TailCheck)
    if set(tail.values) != {"two_sided", "kl_two_sided"}:
        fail(
            "tail",
            Described(f"a TailCheck of {sorted(tail.values)}"),
            "a TailCheck of ('two_sided', 'kl_two_sided')",
        )
    certified = check_real("certified", certified, low=0.0)
    beta = check_probability(beta, "beta", open_low=True, open_high=True)
    epsilon, n_rounds = check_epsilon(epsilon), check_int("n_rounds", n_rounds, low=1)
    m, n_users = check_int("m", m, low=1, high=n_rounds), check_int("n_users", n_users, low=1)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    bounds = {
        r"Chernoff (A-3): $2e^{-\mu\delta^2/3}$ = bound (2)$/T$": tail.values["two_sided"],
        r"Chernoff–Hoeffding: $e^{-ND(p+t\|p)} + e^{-ND(p-t\|p)}$": tail.values["kl_two_sided"],
    }
    plot_tail_bounds(
        ax,
        alpha,
        bounds,
        tail.exact,
        r"exact $\Pr[|\Phi-\Phi_0|\geq\alpha]$ (binomial)",
        [(certified, rf"certified $\alpha$ ($\beta = {beta:g}$)")],
        xlabel=r"deviation $\alpha$",
        title=rf"Round with $\Phi_0 = 1$: $\varepsilon = {epsilon:g}$, $T = {n_rounds}$, $m^* = {m}$, "
        rf"$N = {_power_of_ten(n_users)}$",
    )
    ax.legend(fontsize=7.5, loc="upper right")
    return fig
