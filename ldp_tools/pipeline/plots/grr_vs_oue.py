"""The figures of [grr_vs_oue] (notebook 01): data in, a Figure out; nothing printed or saved.

Figs. 3.1 and 3.2 are the two datasets, Figs. 3.3–3.6 one run of GRR or OUE on one of them (true,
perturbed and estimated counts side by side), Figs. 3.7 and 3.8 the MSE versus ε with the exact and
the approximate theory and the crossovers marked.

References
----------
[grr_vs_oue] Figs. 3.1–3.8; [grr_vs_oue] §3.6; [wang2017] §4.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from ldp_helpers._validation import check_instance, check_int, check_n_draws, check_real_array, fail
from ldp_helpers.bounds.grr_vs_oue import crossover_epsilon_exact, crossover_epsilon_wang
from ldp_helpers.experiments.grr_vs_oue import PerturbedExample
from ldp_helpers.simulate.datasets import CategoryCounts
from ldp_helpers.simulate.survey import SurveyStandIn


def dataset1_figure(survey) -> Figure:
    """[grr_vs_oue] Fig. 3.1: the stand-in survey's answers per rating level, stacked by brand.

    References
    ----------
    [grr_vs_oue] §3.2; [grr_vs_oue] Fig. 3.1.
    """
    check_instance("survey", survey, SurveyStandIn)
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    bottom = np.zeros(survey.levels)
    for brand, row in zip(survey.brands, survey.rating_counts_by_brand()):
        ax.bar(np.arange(1, survey.levels + 1), row, bottom=bottom, label=brand)
        bottom += row
    respondents, brands = survey.ratings.shape
    ax.set(
        xlabel=f"rating ({survey.levels}-level scale)",
        ylabel="number of answers",
        title=f"Fig. 3.1 — Dataset 1 STAND-IN (fabricated; {respondents} respondents × {brands} brands)",
    )
    ax.legend(title="brand", ncols=2)
    return fig


def dataset2_figure(data) -> Figure:
    """[grr_vs_oue] Fig. 3.2: views per trousers model of the UCI clickstream (Dataset 2).

    References
    ----------
    [grr_vs_oue] §3.2; [grr_vs_oue] Fig. 3.2.
    """
    check_instance("data", data, CategoryCounts)
    fig, ax = plt.subplots(figsize=(10, 3.8))
    ax.bar(np.arange(data.d), data.counts)
    ax.set_xticks(np.arange(data.d), data.labels, rotation=90, fontsize=7)
    ax.set(
        xlabel="trousers model (page 2)",
        ylabel="number of views $f_i$",
        title=f"Fig. 3.2 — Dataset 2: UCI clickstream, trousers (n = {data.n:,} views, d = {data.d})",
    )
    return fig


def perturbed_figure(example, labels, *, xlabel: str, title: str) -> Figure:
    """[grr_vs_oue] Figs. 3.3–3.6: one run's true f_i, perturbed f'_i and estimated L[f_i], side by side.

    ``example`` is :func:`~ldp_helpers.experiments.grr_vs_oue.perturbed_example`'s result,
    ``labels`` the d category names; a wide figure with vertical names from d = 10 on.

    References
    ----------
    [grr_vs_oue] Figs. 3.3–3.6.
    """
    check_instance("example", example, PerturbedExample)
    d = example.true_counts.size
    if not isinstance(labels, (list, tuple)) or len(labels) != d:
        fail("labels", labels, f"a list or tuple of d = {d} category names")
    x, small = np.arange(d), d < 10
    fig, ax = plt.subplots(figsize=(6.4 if small else 10, 3.6))
    bars = (
        (example.true_counts, "true fᵢ"),
        (example.perturbed_counts, "perturbed f′ᵢ"),
        (example.estimated_counts, "estimated L[fᵢ]"),
    )
    for k, (values, what) in enumerate(bars):
        ax.bar(x + (k - 1) * 0.28, values, width=0.28, label=what)
    ax.set_xticks(x, labels, rotation=0 if small else 90, fontsize=9 if small else 7)
    ax.set(xlabel=xlabel, ylabel="count", title=title)
    ax.set_ylim(0, 1.22 * max(values.max() for values, _ in bars))
    ax.legend(ncols=3, loc="upper right")
    return fig


def mse_figure(epsilons, curves, d: int, *, n_draws: int, title: str) -> Figure:
    """[grr_vs_oue] Figs. 3.7, 3.8: simulated (dots), exact (solid), Wang-approximate (dotted) MSE vs ε, titled.

    ``curves`` is :func:`~ldp_helpers.experiments.grr_vs_oue.mse_curves`'s result; ``n_draws``
    the surveys per ε behind each simulated point (for the legend); the crossovers are marked.

    References
    ----------
    [grr_vs_oue] Fig. 3.7; [grr_vs_oue] Fig. 3.8.
    """
    d, n_draws = check_int("d", d, low=3), check_n_draws(n_draws)
    epsilons = check_real_array("epsilons", epsilons, low=0.0)
    if (
        not isinstance(curves, dict)
        or not curves
        or not all(
            isinstance(c, dict) and {"simulated", "exact", "approx"} <= set(c)
            for c in curves.values()
        )
    ):
        fail(
            "curves",
            curves,
            "mse_curves' result: a non-empty dict of name -> {'simulated', 'exact', 'approx'}",
        )
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for k, (name, curve) in enumerate(curves.items()):
        for key, fmt, what in (
            ("simulated", "o", f"simulated ({n_draws} runs/ε)"),
            ("exact", "-", "exact theory"),
            ("approx", ":", "Wang approximation"),
        ):
            ax.plot(epsilons, curve[key], fmt, color=f"C{k}", label=f"{name}, {what}")
    wang, exact = crossover_epsilon_wang(d), crossover_epsilon_exact(d)
    for x, style, what in ((wang, "--", r"$\ln\frac{d-2}{3}$"), (exact, "-.", "exact")):
        if x > 0:
            ax.axvline(x, color="grey", ls=style, lw=1, label=f"crossover {what} = {x:.3f}")
    if exact <= 0:
        ax.text(
            0.03,
            0.04,
            f"d = {d}: both crossovers at ε ≤ 0 (ln((d−2)/3) = {wang:.3g}):\n"
            "GRR has the smaller expected MSE for every ε > 0",
            transform=ax.transAxes,
            fontsize=8,
        )
    ax.set(yscale="log", xlabel="privacy budget ε", ylabel="MSE of estimated frequencies")
    ax.legend(fontsize=8)
    ax.set_title(title)
    return fig
