"""ipywidgets panels of the explorer: the frequency-oracle playground and the privacy–utility panel; :func:`show_panel`.

Each panel is a :class:`~ldp_tools.explore._widgets.Panel` (controls, summary, message, figure,
downloads; plumbing in :mod:`ldp_tools.explore._widgets`, controls in
:mod:`ldp_tools.explore._controls`).  The numbers are the science's
(:mod:`ldp_helpers.experiments.field_oracles`) within the panels' policy
(:mod:`ldp_tools.explore.oracles`, :mod:`ldp_tools.explore.utility`); each panel keeps one
figure and updates its artists.  The oracles are the registry's (:func:`~ldp_tools.explore.oracles._panel_keys`),
each built for the panel's ε and d; a sketch's own parameters (k, m) have controls of their own.
The RAPPOR simulator is in :mod:`ldp_tools.explore.rappor_panel`, continual counting and m-shot in
:mod:`ldp_tools.explore.paper_panels`, the shuffle model in :mod:`ldp_tools.explore.shuffle_panel`.

References
----------
[wang2017] §4; [grr_vs_oue] §3.6, Fig. 3.7; [apple2017] Algorithms 1–3; [tutorial] "Frequency Oracles".
"""

from __future__ import annotations

import functools
import html
import textwrap

import numpy as np

from ldp_helpers._validation import check_choice, check_epsilon, check_int, check_real
from ldp_helpers.experiments import field_oracles as fo
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.simulate.populations import flat_counts
from ldp_tools.explore import _controls as c
from ldp_tools.explore import paper_panels, shuffle_panel
from ldp_tools.explore import rappor_panel as rappor_module
from ldp_tools.explore._widgets import (
    SMALL,
    Panel,
    build,
    count_ticks,
    display_panel,
    figure_for,
    fmt,
    integer_ticks,
    outside_legend,
    power_of_ten_ticks,
    show_figure,
    table_of,
)
from ldp_tools.explore.oracles import (
    D_MAX,
    N_MAX,
    POPULATIONS,
    _oracle_parameters,
    _panel_keys,
    _structure_specs,
    check_structure,
    playground_state,
)
from ldp_tools.explore.utility import PHASE_GRID, _phase_keys, oracle_ranking, phase_diagram

PANELS = ("playground", "privacy_utility", "rappor", "continual", "m_shot", "shuffle")
__all__ = ["PANELS", "Panel", "playground_panel", "privacy_utility_panel", "show_panel"]

#: the phase diagram's grid (computed once, cached): ε and d log-spaced over the controls' ranges
PHASE_EPSILONS, PHASE_DS = (np.array(axis) for axis in PHASE_GRID)


def _colour(key: str) -> str:
    """One colour per registered oracle, the same in every panel (matplotlib's tab10, then tab20's light tones)."""
    from matplotlib import colormaps

    i = _panel_keys().index(key)
    return colormaps["tab10"](i % 10) if i < 10 else colormaps["tab20"](2 * (i - 10) % 20 + 1)


def _structure_controls(structure: dict) -> dict:
    """A control per structural parameter of the listed oracles (a sketch's k and m)."""
    return {
        name: c.number(
            structure[name],
            spec.low,
            spec.high,
            spec.label,
            integer=True,
            log=spec.low > 0 and spec.high / spec.low >= 100,
        )
        for name, spec in _structure_specs().items()
    }


def _survey_controls(epsilon, d, n) -> dict:
    """The ε, d and n controls, the same in the playground and the privacy–utility panel."""
    return {
        "epsilon": c.number(float(epsilon), 0.05, 20.0, "ε", log=True),
        "d": c.number(d, 2, D_MAX, "d (values)", integer=True, log=True),
        "n": c.number(n, 10, 10**10, "n (users)", integer=True, log=True),
    }


# ------------------------------------------------------------------------------------ playground


def _setup_playground(fig) -> dict:
    from matplotlib.collections import LineCollection
    from matplotlib.colors import ListedColormap
    from matplotlib.image import NonUniformImage
    from matplotlib.patches import Patch

    ax = fig.add_axes((0.075, 0.13, 0.52, 0.64))
    phase = fig.add_axes((0.675, 0.13, 0.155, 0.64))
    title = fig.text(0.01, 0.975, "", va="top", fontweight="bold", wrap=True)
    truth = ax.stairs([0.0], [0.0, 1.0], fill=True, color="#cfcfcf", label="true count fᵢ")
    bands = ax.add_collection(
        LineCollection([], color="C0", lw=1.0, alpha=0.55, label="± 2σ (exact variance)")
    )
    (expected,) = ax.plot([], [], "_", color="black", ms=7, mew=1.6, label="E[ĉ(i)] (exact)")
    (est,) = ax.plot([], [], "o", color="C0", ms=3.2, label="estimate ĉ(i), one exact survey")
    ax.set(xlabel="value i", ylabel="count")
    integer_ticks(ax.xaxis)
    count_ticks(ax.yaxis)
    ax.legend(
        loc="lower left",
        bbox_to_anchor=(0.0, 1.01),
        ncol=2,
        frameon=False,
        fontsize=SMALL,
        borderaxespad=0.2,
        handletextpad=0.4,
        columnspacing=1.0,
    )
    keys = _phase_keys()
    table = phase_diagram(PHASE_EPSILONS, PHASE_DS)
    image = NonUniformImage(
        phase, interpolation="nearest", cmap=ListedColormap([_colour(k) for k in keys])
    )
    image.set_clim(-0.5, len(keys) - 0.5)
    image.set_data(
        np.log10(PHASE_EPSILONS), np.log10(PHASE_DS), np.ma.masked_less(table, 0).astype(float)
    )
    phase.add_image(image)
    (point,) = phase.plot([], [], "*", color="black", mec="white", mew=0.8, ms=15)
    # log10 coordinates (an image on log axes would resample)
    phase.set(xlabel="ε", ylabel="d", xlim=PHASE_X, ylim=PHASE_Y)
    phase.set_title("lowest exact MSE\n(flat population)", fontsize=SMALL)
    phase.set_xticks(np.log10([0.1, 1, 10]), ["0.1", "1", "10"])
    phase.set_yticks([1, 2, 3], ["10", "100", "1000"])
    shown = np.unique(table[table >= 0])
    outside_legend(
        phase,
        [
            Patch(color=_colour(keys[i]), label=textwrap.fill(REGISTRY[keys[i]].label, 18))
            for i in shown
        ]
        + [phase.plot([], [], "*", color="black", ms=11, label="this (d, ε)")[0]],
    )
    return dict(
        ax=ax,
        truth=truth,
        bands=bands,
        expected=expected,
        est=est,
        point=point,
        title=title,
        phase=phase,
    )


#: the phase map's extent in log10 coordinates (half a cell beyond the grid)
PHASE_X = (float(np.log10(PHASE_EPSILONS[0])) - 0.025, float(np.log10(PHASE_EPSILONS[-1])) + 0.025)
PHASE_Y = (float(np.log10(PHASE_DS[0])) - 0.04, float(np.log10(PHASE_DS[-1])) + 0.04)


def _count_scale(ax, truth: np.ndarray, sigma: np.ndarray) -> str:
    """Linear counts, or symlog when a few values dominate (a Zipf head would flatten every other value)."""
    typical = float(np.median(truth))
    want = "symlog" if truth.max() > 1000 and truth.max() > 50 * max(typical, 1.0) else "linear"
    if ax.get_yscale() != want:
        ax.set_yscale(
            want,
            **({"linthresh": max(10.0, 2 * float(np.median(sigma)))} if want == "symlog" else {}),
        )
        count_ticks(ax.yaxis)
    ax.set_ylabel("count" if want == "linear" else "count (symlog scale)")
    return want


#: what the playground says of a sketch's hashes (its bias is its collisions under this family, for this draw)
HASH_FAMILY = (
    ". Its k hashes are the universal family h<sub>j</sub>(x) = ((a<sub>j</sub>x + b<sub>j</sub>) mod P) mod m, "
    "P = 2<sup>31</sup> − 1, (a<sub>j</sub>, b<sub>j</sub>) drawn from the seed: the bias shown is this draw's "
    "collisions (another seed, another bias; averaged over draws the sketch is unbiased)"
)
#: the CMS's and HCMS's hash families the playground offers (:data:`HASH_FAMILY` for the others' sketches)
HASH_FAMILIES = {
    "universal": ("universal ((a·x + b) mod P) mod m", HASH_FAMILY),
    "sha256": (
        "Apple's SHA-256 of (j, x)",
        ". Its k hashes are Apple's SHA-256 family h<sub>j</sub>(x) = SHA-256(j ‖ x) mod m, "
        "j = 0, …, k − 1 (8-byte big-endian j and x; Apple publishes only “variations of a "
        "SHA-256 hash”; fixed, not drawn from the seed)",
    ),
}


def _hash_note(s, mechanism_key: str, hash_family: str) -> str:
    """The summary's words on a biased sketch's hashes, and for the CMS/HCMS the uniform-hash yardstick."""
    if s.bias_sq <= 0 or not hasattr(REGISTRY[mechanism_key].example(), "hash_a"):
        return ""
    if mechanism_key not in fo.hash_family_keys():
        return HASH_FAMILY
    return HASH_FAMILIES[hash_family][1] + (
        f"; uniformly random hashes give a mean bias² of <b class='ldp-uniform-bias'>"
        f"{s.uniform_bias_sq:.6g}</b> on average (here {s.bias_sq / s.uniform_bias_sq:.2f}×)"
    )


def _draw_playground(
    panel: Panel,
    *,
    mechanism_key,
    epsilon,
    d,
    n,
    population,
    zipf_s,
    seed,
    hash_family,
    **structure,
) -> None:
    survey = dict(zipf_s=zipf_s, seed=seed, structure=structure, hash_family=hash_family)
    s = playground_state(mechanism_key, epsilon, d, n, population, **survey)
    d, own = s.true_counts.size, _oracle_parameters(mechanism_key)
    for name in structure:  # a sketch's k and m show only for an oracle that has them
        panel.controls[name].layout.display = "flex" if name in own else "none"
    takes_family = mechanism_key in fo.hash_family_keys()
    panel.controls["hash_family"].layout.display = "flex" if takes_family else "none"
    ranking = [key for key, _ in oracle_ranking(epsilon, d, n, population, **survey)]
    shape = "".join(f", {name} = {structure[name]}" for name in own)
    split = f" (bias² {s.bias_sq:.6g} + variance {s.mse - s.bias_sq:.6g})" if s.bias_sq > 0 else ""
    panel.summary.value = (
        f"<b>{html.escape(s.label)}</b>{shape}, ε = {fmt(float(epsilon))}, d = {d}, n = {int(s.true_counts.sum()):,}: "
        f"whole-report ε from the table = <b class='ldp-eps'>{fmt(s.whole_report_epsilon)}</b>, "
        f"report size = <b class='ldp-bits'>{s.report_bits}</b> bits, "
        f"exact MSE = <b class='ldp-mse'>{s.mse:.6g}</b>{split}; "
        f"lowest exact MSE here: <b>{html.escape(REGISTRY[ranking[0]].label)}</b> (rank of this oracle: "
        f"{ranking.index(mechanism_key) + 1} of {len(ranking)})"
        + _hash_note(s, mechanism_key, hash_family)
    )
    fig, a = figure_for(panel, _setup_playground, figsize=(11.0, 4.4))
    x = np.arange(d)
    a["truth"].set_data(s.true_counts.astype(float), np.arange(d + 1) - 0.5)
    a["est"].set_data(x, s.estimate)
    a["expected"].set_data(x, s.expected)
    a["expected"].set_visible(s.bias_sq > 0)
    a["est"].set_markersize(3.2 if d <= 200 else 1.6)
    lo, hi = s.estimate - 2 * s.sigma, s.estimate + 2 * s.sigma
    a["bands"].set_segments(np.stack([np.stack([x, lo], 1), np.stack([x, hi], 1)], 1))
    a["ax"].set_xlim(-0.5, d - 0.5)
    low = min(0.0, float(lo.min()), float(s.expected.min()))
    high = max(float(hi.max()), float(s.true_counts.max()), float(s.expected.max()))
    scale = _count_scale(a["ax"], s.true_counts, s.sigma)
    padded = (low - 0.03 * (high - low), high + 0.05 * (high - low))
    a["ax"].set_ylim(*(padded if scale == "linear" else (low, 2 * high)))
    a["title"].set_text(
        f"{s.label}{shape}, ε = {fmt(float(epsilon))}: one exact survey (seed {seed}) "
        f"of n = {int(s.true_counts.sum()):,} users over d = {d} values ({population})"
    )
    x_star, y_star = np.log10(float(epsilon)), np.log10(d)  # a typed ε beyond the map: on its edge
    a["point"].set_data([float(np.clip(x_star, *PHASE_X))], [float(np.clip(y_star, *PHASE_Y))])
    columns = {
        "value": x,
        "true_count": s.true_counts,
        "estimate": s.estimate,
        "expected_estimate": s.expected,
        "bias": s.expected - s.true_counts,
        "sigma": s.sigma,
        "mse": s.mse_per_value,
    }
    show_figure(panel, *table_of(columns))


def playground_panel(
    *,
    mechanism_key="oue",
    epsilon=1.0,
    d=43,
    n=100_000,
    population="uniform",
    zipf_s=1.1,
    seed=0,
    hash_family="universal",
    **structure,
) -> Panel:
    """Frequency-oracle playground: any registered oracle, ε, d, n and population → true vs estimated counts.

    Shows one exact survey with ±2σ bands from the exact variance (and E[ĉ] when the oracle is
    biased), the whole-report ε from the output table ("—" when the table is too large), the report
    size and the exact MSE (bias² + variance); ``structure`` sets a sketch's k and m, ``hash_family``
    the CMS's and HCMS's hashes (:data:`HASH_FAMILIES`: universal, or Apple's SHA-256, whose bias is
    shown next to the mean bias² of uniformly random hashes).

    References
    ----------
    [wang2017] Eq. (1), Theorem 2; [apple2017] Algorithm 3; [grr_vs_oue] §3.6.
    """
    # bad defaults are refused here, by the same checks as every interaction (later ones show in the panel)
    structure = check_structure(structure)
    setting = dict(
        mechanism_key=mechanism_key,
        epsilon=epsilon,
        d=d,
        n=n,
        population=population,
        zipf_s=zipf_s,
        seed=seed,
        hash_family=hash_family,
    )
    playground_state(**setting, structure=structure)
    controls = {
        "mechanism_key": c.choice(
            [(REGISTRY[k].label, k) for k in _panel_keys()], mechanism_key, "oracle"
        ),
        **_survey_controls(epsilon, d, n),
        "population": c.choice(list(POPULATIONS), population, "population"),
        "zipf_s": c.number(float(zipf_s), 0.0, 3.0, "Zipf s", step=0.05),
        "seed": c.text(seed, "seed"),
        "hash_family": c.choice(
            [(label, key) for key, (label, _) in HASH_FAMILIES.items()], hash_family, "hashes"
        ),
        **_structure_controls(structure),
    }
    title = "Frequency-oracle playground"
    return build("playground", controls, _draw_playground, title, defaults=setting | structure)


# ------------------------------------------------------------------------------------ privacy–utility


@functools.lru_cache(maxsize=32)
def _curves(d: int, n: int, epsilon_max: float, structure: tuple):
    """Exact curves on :data:`CURVE_POINTS` budgets per (d, n, ε max, structure), cached: moving ε only moves the marker."""
    return fo.privacy_utility_curves(
        _panel_keys(), np.linspace(0.05, epsilon_max, CURVE_POINTS), d, n, structure=dict(structure)
    )


#: budgets on each privacy–utility curve (16 oracles, six of them sketches with exact collision moments: ~4 s at d = 2048)
CURVE_POINTS = 30


#: the privacy–utility panel's sets of curves: a chosen few by default (distinct colours, a short legend), the rest
#: toggled by this choice (the CSV always holds every oracle)
FEW = ("grr", "oue", "olh", "ss", "hr", "cms")
SHOWN = {
    "few": "a few: GRR, OUE, OLH, SS, HR, CMS",
    "one-shot": "every unbiased one-shot oracle",
    "sketches": "every sketch (fixed hashes)",
    "all": "every oracle",
}


def _shown_keys(shown: str) -> tuple[str, ...]:
    """The oracles whose curves the privacy–utility panel draws for the choice ``shown`` (one of :data:`SHOWN`)."""
    shown = check_choice("shown", shown, tuple(SHOWN))
    groups = fo.oracle_groups()
    wanted = {
        "few": FEW,
        "one-shot": groups["one-shot"],
        "sketches": groups["sketch"],
        "all": _panel_keys(),
    }[shown]
    return tuple(key for key in _panel_keys() if key in wanted)


def _setup_privacy_utility(fig) -> dict:
    from matplotlib.collections import LineCollection

    ax = fig.add_axes((0.075, 0.12, 0.6, 0.76))
    lines = {}
    for key in _panel_keys():
        lines[key] = ax.plot([], [], lw=1.8, label=REGISTRY[key].label)[0]
        lines[key + ":approx"] = ax.plot([], [], ls=":", lw=1.1)[0]
    cross = ax.add_collection(
        LineCollection([], colors="grey", linestyles="--", lw=0.9, label="crossover of the best")
    )
    now = ax.axvline(1.0, color="black", lw=1.2, label="chosen ε")
    wang = ax.plot([], [], "k:", lw=1.1, label="Wang's approximation (dotted)")[0]
    ax.set(yscale="log", xlabel="privacy budget ε", ylabel="count MSE (mean over values)")
    power_of_ten_ticks(ax.yaxis)
    title = ax.set_title("", loc="left")
    return dict(ax=ax, lines=lines, cross=cross, now=now, wang=wang, title=title, shown=None)


def _show_curves(a: dict, keys: tuple) -> None:
    """Draw only ``keys``' curves, in distinct colours (tab10, then dashed), with a legend of those alone."""
    from matplotlib import colormaps

    if a["shown"] == keys:
        return
    for key in _panel_keys():
        a["lines"][key].set_visible(key in keys)
        a["lines"][key + ":approx"].set_visible(key in keys)
    for i, key in enumerate(keys):
        colour, style = colormaps["tab10"](i % 10), ("-", "--")[(i // 10) % 2]
        a["lines"][key].set(color=colour, ls=style)
        a["lines"][key + ":approx"].set(color=colour)
    outside_legend(a["ax"], [a["lines"][k] for k in keys] + [a["cross"], a["now"], a["wang"]])
    a["shown"] = keys


def _flh_note(d: int, n: int, epsilon: float, structure: tuple) -> str:
    """Why FLH's curve jumps: its hash range g = round(e^ε) + 1 follows ε, its k hashes are fixed."""
    try:
        flh = fo.build_oracle("flh", epsilon, d, structure=dict(structure))
        moments = fo.exact_moments(flh, flat_counts(n, d))
    except ValueError:
        return ""
    return (
        f" FLH's curve jumps because its hash range g = round(e^ε) + 1 follows ε (here g = {flh.hash_range}) "
        f"while its k = {flh.k} hash functions stay fixed: each new g sends other values into shared cells, and "
        f"that collision bias (∝ n²) is {100 * moments.bias_sq / moments.mse:.0f}% of its MSE at this ε."
    )


def _draw_privacy_utility(panel: Panel, *, epsilon, d, n, epsilon_max, shown, **structure) -> None:
    epsilon = check_epsilon(epsilon)
    epsilon_max = check_real(
        "epsilon_max", epsilon_max, low=0.2, high=20.0, low_open=False, high_open=False
    )
    d, n = check_int("d", d, low=2, high=D_MAX), check_int("n", n, low=1, high=N_MAX)
    keys = _shown_keys(shown)
    shape = tuple(check_structure(structure, d).items())
    curves = _curves(d, n, epsilon_max, shape)
    best, best_mse = oracle_ranking(epsilon, d, n, "uniform", structure=dict(shape))[0]
    found = fo.crossovers(keys, curves.epsilons, curves.exact)
    listed = [f"{curves.labels[a]} → {curves.labels[b]} at ε ≈ {e:.3f}" for e, a, b in found]
    cross = (
        ", ".join(listed[:4]) + (f", … ({len(listed)} in all)" if len(listed) > 4 else "") or "none"
    )
    panel.summary.value = (
        f"d = {d}, n = {n:,}, ε = {fmt(epsilon)}: lowest exact MSE of every oracle "
        f"<b class='ldp-best'>{html.escape(curves.labels[best])}</b> = <b class='ldp-mse'>{best_mse:.6g}</b>; "
        f"crossovers of the best oracle shown: {html.escape(cross)}."
        + (html.escape(_flh_note(d, n, epsilon, shape)) if "flh" in keys else "")
    )
    fig, a = figure_for(
        panel,
        _setup_privacy_utility,
        figsize=(10.5, max(4.6, 0.19 * (len(_panel_keys()) + 3) + 1.1)),
    )
    _show_curves(a, keys)
    for key, values in curves.exact.items():
        a["lines"][key].set_data(curves.epsilons, values)
        a["lines"][key + ":approx"].set_data(
            curves.epsilons, curves.approx.get(key, np.full_like(values, np.nan))
        )
    finite = np.concatenate(
        [v[np.isfinite(v) & (v > 0)] for k, v in curves.exact.items() if k in keys]
    )
    low, high = finite.min() / 1.5, finite.max() * 1.5
    a["cross"].set_segments([[(e, low), (e, high)] for e, _, _ in found])
    a["now"].set_xdata([epsilon, epsilon])
    a["ax"].set_xlim(0.0, epsilon_max)
    a["ax"].set_ylim(low, high)
    a["title"].set_text(
        f"exact MSE (bias² + variance) vs ε: n = {n:,} users, flat over d = {d} values"
    )
    blank = [""] * curves.epsilons.size  # an oracle without Wang's approximation
    columns = {
        "epsilon": curves.epsilons,
        **{f"mse_{k}": v for k, v in curves.exact.items()},
        **{f"bias_sq_{k}": curves.bias_sq[k] for k in curves.exact},
        **{f"approx_var_{k}": curves.approx.get(k, blank) for k in curves.exact},
    }
    show_figure(panel, *table_of(columns))


def privacy_utility_panel(
    *, epsilon=1.0, d=43, n=100_000, epsilon_max=6.0, shown="few", **structure
) -> Panel:
    """Privacy–utility: exact MSE (bias² + variance) and Wang's approximation of the registered oracles vs ε.

    ``shown`` picks the curves drawn (:data:`SHOWN`: a chosen few by default); crossovers of the best
    oracle shown are marked; ``structure`` sets a sketch's k and m.

    References
    ----------
    [wang2017] Eq. (2), §4; [grr_vs_oue] Fig. 3.7.
    """
    structure = check_structure(structure)
    _shown_keys(shown)
    d, n = check_int("d", d, low=2, high=D_MAX), check_int("n", n, low=1, high=N_MAX)
    fo.privacy_utility_curves(  # refuses ε ≥ ε max, or a structure beyond the ceilings at this d
        _panel_keys(),
        np.array([check_epsilon(epsilon), check_epsilon(epsilon_max, "epsilon_max")]),
        d,
        n,
        structure=check_structure(structure, d),
    )
    controls = {
        **_survey_controls(epsilon, d, n),
        "epsilon_max": c.number(float(epsilon_max), 0.2, 20.0, "ε max (axis)", step=0.1),
        "shown": c.choice([(label, key) for key, label in SHOWN.items()], shown, "curves"),
        **_structure_controls(structure),
    }
    defaults = dict(epsilon=epsilon, d=d, n=n, epsilon_max=epsilon_max, shown=shown, **structure)
    return build(
        "privacy_utility",
        controls,
        _draw_privacy_utility,
        "Privacy–utility: exact MSE vs ε",
        defaults=defaults,
    )


def show_panel(name: str, **defaults) -> Panel:
    """Build the panel ``name`` (one of :data:`PANELS`) with these defaults and display it
    (:func:`~ldp_tools.explore._widgets.display_panel`: the widget and a static fallback)."""
    panel = BUILDERS[check_choice("name", name, PANELS)](**defaults)
    display_panel(panel)
    return panel


BUILDERS = {
    "playground": playground_panel,
    "privacy_utility": privacy_utility_panel,
    "rappor": rappor_module.rappor_panel,
    **paper_panels.BUILDERS,
    **shuffle_panel.BUILDERS,
}
