"""The figures of notebook 02_rappor: data in, a matplotlib Figure out (nothing printed or saved).

Scores are :func:`~ldp_helpers.experiments.rappor.decode_grid` arrays, shape (points, surveys, columns)
with precision and recall first (:data:`~ldp_helpers.experiments.rappor.SURVEY_COLUMNS`).

References
----------
[rappor] Fig. 1; [rappor] §3; [erlingsson2014] §4.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from ldp_helpers._validation import (
    Described,
    check_epsilon,
    check_int,
    check_int_array,
    check_ndim,
    check_real_array,
    fail,
)
from ldp_helpers.experiments.rappor import N_COHORTS, N_REPORTS, K, M
from ldp_helpers.mechanisms.rappor import RapporParams

#: Zipf ranks whose frequencies the threshold figure marks
MARKED_RANKS = (1, 10, 100)


def precision_recall_vs_h(
    hash_values,
    by_h,
    at_epsilon,
    epsilons,
    equal_epsilon: float,
) -> Figure:
    """[rappor] Fig. 1 and its equal-privacy twin: precision and recall (mean, min–max band) against h.

    ``by_h`` decodes the paper's IRR at each h of ``hash_values`` (ε of one report ``epsilons``, on
    the top axis); ``at_epsilon`` the IRR giving ``equal_epsilon`` per report at each h; both at the
    paper's setting (k, M, m, N of :mod:`~ldp_helpers.experiments.rappor`).

    References
    ----------
    [rappor] Fig. 1; [rappor] §3.
    """
    hash_values = check_int_array("hash_values", hash_values, low=1).ravel().tolist()
    panels = (
        _scores("by_h", by_h, len(hash_values)),
        _scores("at_epsilon", at_epsilon, len(hash_values)),
    )
    epsilons = check_real_array("epsilons", epsilons, low=0.0)
    if epsilons.shape != (len(hash_values),):
        fail(
            "epsilons",
            Described(f"an array of shape {epsilons.shape}"),
            f"one ε per h ({len(hash_values)})",
        )
    equal_epsilon = check_epsilon(equal_epsilon, "equal_epsilon")
    titles = (
        "the paper's IRR (q = 0.75, p = 0.5): ε = h ln 3",
        rf"equal privacy: ε = {equal_epsilon:g} per report",
    )
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, pr, title in zip(axes, panels, titles):
        for col, label, marker in ((0, "precision", "o"), (1, "recall", "s")):
            score = pr[:, :, col]
            ax.plot(
                hash_values,
                score.mean(axis=1),
                marker=marker,
                label=f"{label} (mean of {pr.shape[1]} surveys)",
            )
            ax.fill_between(hash_values, score.min(axis=1), score.max(axis=1), alpha=0.2)
        ax.set_xscale("log", base=2)  # major ticks at the powers of two, no minor ticks
        ax.set(
            xlabel="number of hash functions $h$",
            title=title,
            xticks=hash_values,
            xticklabels=hash_values,
        )
    top = axes[0].secondary_xaxis("top")
    top.set(
        xticks=hash_values,
        xticklabels=[f"{e:.3g}" for e in epsilons],
        xlabel=r"$\varepsilon$ of one report",
    )
    top.minorticks_off()
    axes[0].set(ylabel="precision / recall (bands: min–max over surveys)", ylim=(0, 1.02))
    axes[0].legend(loc="center right")
    fig.suptitle(
        rf"Basic one-time RAPPOR decoding, $k={K}$, $M={M}$, $m={N_COHORTS}$, "
        rf"$N={N_REPORTS:,}$ ([rappor] Fig. 1)"
    )
    return fig


def precision_recall_vs_n_and_m(
    report_grid,
    by_n,
    cohort_grid,
    by_m,
    n_fine,
    predicted_recall,
    *,
    h: int,
) -> Figure:
    """Mean precision and recall against the number of reports N (and the recall predicted) and of cohorts m.

    ``by_n`` and ``by_m`` are the scores at each point of ``report_grid`` and ``cohort_grid`` (h hashes);
    ``predicted_recall`` is given over ``n_fine``; the paper's N and m are marked.

    References
    ----------
    [rappor] §3; [erlingsson2014] §4.
    """
    report_grid = check_int_array("report_grid", report_grid, low=1).ravel().tolist()
    cohort_grid = check_int_array("cohort_grid", cohort_grid, low=1).ravel().tolist()
    by_n = _scores("by_n", by_n, len(report_grid)).mean(axis=1)
    by_m = _scores("by_m", by_m, len(cohort_grid)).mean(axis=1)
    n_fine = check_ndim("n_fine", check_int_array("n_fine", n_fine, low=1), 1)
    predicted_recall = check_real_array(
        "predicted_recall", predicted_recall, low=0.0, high=1.0, low_open=False, high_open=False
    )
    check_ndim("predicted_recall", predicted_recall, 1, last=n_fine.size, what="(one per n_fine)")
    h = check_int("h", h, low=1)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    panels = (
        (axes[0], report_grid, by_n, N_REPORTS, "N"),
        (axes[1], cohort_grid, by_m, N_COHORTS, "m"),
    )
    for ax, x, pr, paper_value, name in panels:
        ax.plot(x, pr[:, 0], "o-", label="precision")
        ax.plot(x, pr[:, 1], "s-", label="recall")
        ax.axvline(
            paper_value, color="black", lw=0.8, ls=":", label=f"paper: {name} = {paper_value:,}"
        )
        ax.set_xscale("log", base=2)  # no minor ticks: only the grid values are labelled
        ax.set_xticks(x, [f"{v:,}" for v in x])
    axes[0].plot(n_fine, predicted_recall, "--", color="gray", label="predicted recall (threshold)")
    axes[0].set(
        xlabel="number of reports $N$",
        ylabel="precision / recall",
        ylim=(0, 1.02),
        title=rf"vs $N$ ($h={h}$, $m={N_COHORTS}$)",
    )
    axes[1].set(xlabel="number of cohorts $m$", title=rf"vs $m$ ($h={h}$, $N={N_REPORTS:,}$)")
    axes[0].legend(loc="center left")
    axes[1].legend(loc="center right")
    return fig


def detection_thresholds(n_fine, no_collisions, threshold, weights, *, h: int) -> Figure:
    """The smallest detectable frequency against N: collision-free closed forms, an actual design, Zipf frequencies.

    ``no_collisions`` maps RAPPOR parameters to their collision-free threshold over ``n_fine``
    (:func:`~ldp_helpers.bounds.rappor.detection_threshold_without_collisions`); ``threshold`` is the
    median threshold of an actual design with h hashes; ``weights`` the candidates' frequencies, of
    which :data:`MARKED_RANKS` are marked.

    References
    ----------
    [erlingsson2014] §4; [rappor] §2.
    """
    n_fine = check_ndim("n_fine", check_int_array("n_fine", n_fine, low=1), 1)
    if not (
        isinstance(no_collisions, dict)
        and no_collisions
        and all(isinstance(par, RapporParams) for par in no_collisions)
    ):
        fail(
            "no_collisions", no_collisions, "a non-empty dict of RapporParams -> curve over n_fine"
        )
    curves = [
        _over_n("no_collisions (a curve)", curve, n_fine, "over n_fine")
        for curve in no_collisions.values()
    ]
    threshold = _over_n("threshold", threshold, n_fine, "(one per n_fine)")
    weights = check_ndim(
        "weights", check_real_array("weights", weights, low=0.0, low_open=False), 1
    )
    check_int("weights.size", weights.size, low=max(MARKED_RANKS))
    h = check_int("h", h, low=1)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for par, curve in zip(no_collisions, curves):
        ax.plot(
            n_fine,
            curve,
            label=rf"$h={par.h}$ ($\varepsilon={par.epsilon_one_report:.3g}$), no collisions",
        )
    ax.plot(
        n_fine, threshold, "k--", lw=1, label=rf"$h={h}$, actual design (median over candidates)"
    )
    for r in MARKED_RANKS:
        frequency = weights[r - 1]
        ax.axhline(frequency, color="gray", lw=0.8, ls=":")
        ax.annotate(
            f"Zipf rank {r}: {frequency:.2%}",
            (1.2 * n_fine[-1], frequency),
            va="bottom",
            ha="left",
            fontsize=8,
        )
    ax.set(
        xscale="log",
        yscale="log",
        xlim=(n_fine[0] / 1.2, 8 * n_fine[-1]),
        xlabel="number of reports $N$",
        ylabel=r"smallest detectable frequency $\pi_{\min}$",
        title=r"detection threshold at $\alpha=0.05$, power ½ ($q=0.75$, $p=0.5$)",
    )
    ax.legend(loc="lower left", fontsize=8)
    return fig


def _over_n(name: str, curve, n_fine, what: str):
    """A curve of reals ≥ 0, one value per N of ``n_fine``."""
    return check_ndim(name, check_real_array(name, curve, low=0.0), 1, last=n_fine.size, what=what)


def _scores(name: str, scores, points: int):
    """Decoded-survey scores (points, surveys, columns ≥ 2), finite and ≥ 0."""
    scores = check_ndim(
        name,
        check_real_array(name, scores, low=0.0, low_open=False),
        3,
        what="(points, surveys, columns)",
    )
    if scores.shape[0] != points or scores.shape[2] < 2:
        fail(
            name,
            Described(f"an array of shape {scores.shape}"),
            f"shape ({points}, surveys, ≥ 2): one row per point",
        )
    return scores
