"""The RAPPOR panel: a parameter guide and a simulator, after google/rappor's Shiny simulator.

One figure in three parts: one user's report step by step (B → B′ → S), the guide (each candidate's
frequency against its detection threshold, and the analytic probability of detecting it), and one
simulated survey decoded — estimates against the truth, detections marked — or, after an upload of
real aggregated counts, their decoded estimates.  The summary gives ε₁, ε∞, the thresholds, the
guide's expected precision and recall and the survey's.  The CSV download holds the decoded result.

The numbers come from :mod:`ldp_tools.explore.rappor` (guide) and
:mod:`ldp_tools.explore.rappor_sim` (report, survey, upload path :func:`~ldp_tools.explore.rappor_sim.decode_counts`).

References
----------
[erlingsson2014] §2, §4, Theorems 1–2; [rappor] §2–3.
"""

from __future__ import annotations

import dataclasses
import html
import io

import numpy as np

from ldp_helpers._validation import check_bool, fail
from ldp_helpers.simulate.populations import CANDIDATE_SHAPES
from ldp_tools.explore import _controls as c
from ldp_tools.explore._widgets import (
    Panel,
    build,
    count_ticks,
    figure_for,
    fmt,
    integer_ticks,
    power_of_ten_ticks,
    refused,
    set_errorbar,
    show_figure,
)
from ldp_tools.explore.rappor import (
    CORRECTIONS,
    _check_setting,
    rappor_guide,
    simulated_precision_recall,
)
from ldp_tools.explore.rappor_sim import decode_counts, simulated_survey, user_report

#: decoded surveys behind the optional check of the guide's precision and recall
SIMULATED_SURVEYS = 4
#: the panel's values that are not rappor_guide's keywords: one user's report, two toggles
ONE_USER = ("candidate", "cohort", "user", "report", "survey", "simulate")
CORRECTION_LABELS = {"none": "none", "bonferroni": "Bonferroni", "bh": "FDR (Benjamini–Hochberg)"}


#: the three files of google/rappor's decoder, recognized by a word in the uploaded file's name
UPLOAD_ROLES = ("counts", "map", "params")


def _read_upload(files: dict):
    """google/rappor's counts, map and params files (name → bytes) as ``decode_counts``'s arrays.

    Read by issue 31's readers (:func:`ldp_helpers.interop.google_rappor.read_rappor_files`, which check every
    file) from a private temporary copy; returns ``(counts, reports_per_cohort, blooms, names, (f, p, q))``.
    """
    import tempfile
    from pathlib import Path

    from ldp_helpers.interop.google_rappor import read_rappor_files

    roles = {role: name for name in files for role in UPLOAD_ROLES if role in name.lower()}
    if len(files) != 3 or set(roles) != set(UPLOAD_ROLES):
        fail(
            "upload",
            sorted(files),
            "three files named like google/rappor's counts.csv, map.csv and params.csv",
        )
    with tempfile.TemporaryDirectory(prefix="ldp-upload-") as folder:
        paths = {role: Path(folder) / f"{role}.csv" for role in UPLOAD_ROLES}
        for role, path in paths.items():
            path.write_bytes(files[roles[role]])
        data = read_rappor_files(paths["counts"], paths["map"], paths["params"])
    p = data.params
    return data.bit_counts, data.cohort_sizes, data.blooms, list(data.candidates), (p.f, p.p, p.q)


def _setup_rappor(fig) -> dict:
    ax = fig.add_axes((0.075, 0.3, 0.36, 0.62))
    freq = ax.stairs(
        [1.0], [0.5, 1.5], fill=True, color="#cfcfcf", label="frequency π_w of candidate w"
    )
    (thr,) = ax.plot([], [], color="C3", lw=1.6, label="detection threshold π_min,w (power ½)")
    ax.set(yscale="log", xlabel="candidate w (rank)", ylabel="frequency")
    integer_ticks(ax.xaxis)
    power_of_ten_ticks(ax.yaxis)
    power_ax = ax.twinx()
    (power,) = power_ax.plot(
        [], [], color="C0", lw=1.6, label="Pr[detected] (analytic approx., right)"
    )
    power_ax.set(ylim=(-0.02, 1.02), ylabel="Pr[detected]")
    ax.legend(
        handles=[freq, thr, power], loc="upper left", bbox_to_anchor=(-0.02, -0.13), frameon=False
    )
    guide_title = ax.set_title("guide", loc="left")
    est_ax = fig.add_axes((0.6, 0.3, 0.375, 0.62))
    (diagonal,) = est_ax.plot([], [], color="black", lw=1.0, label="estimate = truth")
    bars = est_ax.errorbar(
        [0.0], [0.0], yerr=[0.0], fmt="none", ecolor="#9aa", lw=1.0, label="± 2 SE"
    )
    (kept,) = est_ax.plot([], [], "o", mfc="white", mec="#777", ms=4.5, label="not detected")
    (hits,) = est_ax.plot([], [], "o", color="C2", ms=4.5, label="detected, held")
    (false,) = est_ax.plot([], [], "X", color="C3", ms=7, label="detected, never held (false)")
    est_ax.set(xlabel="true count", ylabel="estimated count (m·β̂)")
    count_ticks(est_ax.xaxis, nbins=6)
    count_ticks(est_ax.yaxis)
    empty = est_ax.text(
        0.5,
        0.5,
        "no survey: tick 'decode a simulated survey'",
        ha="center",
        va="center",
        transform=est_ax.transAxes,
        color="#666",
    )
    est_ax.legend(loc="upper left", bbox_to_anchor=(-0.02, -0.13), ncol=2, frameon=False)
    est_title = est_ax.set_title("", loc="left")
    return {
        "ax": ax,
        "freq": freq,
        "thr": thr,
        "power": power,
        "guide_title": guide_title,
        "est_ax": est_ax,
        "diagonal": diagonal,
        "bars": bars,
        "kept": kept,
        "hits": hits,
        "false": false,
        "est_title": est_title,
        "empty": empty,
    }


#: the report strip's colours (bit 0, bit 1) and its cell height in pixels
STRIP_COLOURS, STRIP_ROW = ((242, 242, 242), (34, 59, 112)), 16


def _report_strip(steps, width: int = 960) -> bytes:
    """B, B′ and S as a 3-row PNG strip (dark = 1), drawn with PIL: crisp at any k, a millisecond to make."""
    from PIL import Image

    bits = np.stack([steps.bloom, steps.prr, steps.irr]).astype(np.uint8)
    cell = max(1, width // bits.shape[1])
    palette = np.array(STRIP_COLOURS, dtype=np.uint8)
    rows = np.repeat(np.repeat(palette[bits], STRIP_ROW, axis=0), cell, axis=1)
    rows[STRIP_ROW::STRIP_ROW] = 255  # a white line between B, B′ and S
    buf = io.BytesIO()
    Image.fromarray(rows).save(buf, format="PNG")
    return buf.getvalue()


def _draw_report(panel: Panel, steps, user, report) -> None:
    ones = ", ".join(str(i) for i in np.flatnonzero(steps.bloom)[:8])
    more = ", …" if steps.bloom.sum() > 8 else ""
    strip = panel.artists["strip"]
    strip["title"].value = (
        f"<b>one user's report</b> — user #{user}, candidate w = {steps.candidate}, cohort j = "
        f"{steps.cohort}, report #{report}: B sets bits {{{ones}{more}}} of {steps.bloom.size} (dark = 1, "
        f"bit 0 at the left); B′ is memoized per user, S is what is sent"
    )
    strip["image"].value = _report_strip(steps)


def _draw_survey(a, truth, decoded, n_true: int) -> None:
    """Estimates ± 2 SE against the true counts, or against the candidates' order (``truth`` None: an upload)."""
    est, se, detected = decoded.estimate, np.nan_to_num(decoded.std_error), decoded.detected
    held = np.arange(est.size) < n_true
    x = truth.astype(float) if truth is not None else np.arange(1, est.size + 1, dtype=float)
    a["kept"].set_data(x[~detected], est[~detected])
    a["hits"].set_data(x[detected & held], est[detected & held])
    a["false"].set_data(x[detected & ~held], est[detected & ~held])
    set_errorbar(a["bars"], x, est, 2 * se)
    top = float(max(x.max(), (est + 2 * se).max(), 1.0))
    a["diagonal"].set_data([0.0, top], [0.0, top])
    if truth is None:
        a["est_ax"].set_xlim(0.0, x.max() + 1)
        a["est_ax"].set_xlabel("candidate (uploaded order)")
    else:
        a["est_ax"].set_xlim(-0.02 * top, 1.04 * top)
        a["est_ax"].set_xlabel("true count")
    a["est_ax"].set_ylim(min(0.0, float((est - 2 * se).min())) - 0.02 * top, 1.06 * top)


def _rank_axis(ax, n_candidates: int, n_true: int) -> None:
    """Ranks on a log axis when the held candidates would fill under a fifth of a linear one (M = 1000, 20 held):
    every held candidate stays readable at every M."""
    log = n_candidates > 5 * n_true and n_candidates > 50
    if (ax.get_xscale() == "log") != log:
        ax.set_xscale("log" if log else "linear")
        if log:
            power_of_ten_ticks(ax.xaxis)
        else:
            integer_ticks(ax.xaxis)
    ax.set_xlabel("candidate w (rank, log scale)" if log else "candidate w (rank)")
    ax.set_xlim(*((0.8, n_candidates * 1.25) if log else (0.5, n_candidates + 0.5)))


def _checked(*, candidate, cohort, user, report, survey, simulate, **setting) -> tuple:
    """The panel's values checked once: the setting, one user's report (drawn), the two toggles."""
    checked = _check_setting(**setting)
    steps = user_report(  # RAPPOR's fields again (cheap): one function, the public one
        **dataclasses.asdict(checked.params),
        n_candidates=checked.n_candidates,
        seed=checked.seed,
        candidate=candidate,
        cohort=cohort,
        user=user,
        report=report,
    )
    return checked, steps, check_bool("survey", survey), check_bool("simulate", simulate)


def _draw_rappor(panel: Panel, **values) -> None:
    setting, steps, survey, simulate = _checked(**values)
    keywords = {name: value for name, value in values.items() if name not in ONE_USER}
    par, upload = setting.params, panel.artists.get("upload")
    g = rappor_guide(**keywords)
    sim = simulated_survey(**keywords) if survey and upload is None else None
    found = check = ""
    if sim is not None:
        found = (
            f"; this survey (N = {setting.n_reports:,}): recall "
            f"<b class='ldp-survey-recall'>{sim.recall:.3f}</b>, precision "
            f"<b class='ldp-survey-precision'>{sim.precision:.3f}</b>, "
            f"{int(sim.decoded.detected.sum())} detected"
        )
    if simulate:  # decoded surveys (exact aggregate sampler + the decoder): seconds, cached
        sp, sr, sp_se, sr_se = simulated_precision_recall(**keywords, n_draws=SIMULATED_SURVEYS)
        check = (
            f"; check over {SIMULATED_SURVEYS} decoded surveys: recall "
            f"<b class='ldp-sim-recall'>{sr:.3f}</b> ± "
            f"{sr_se:.3f}, precision {sp:.3f} ± {sp_se:.3f}"
        )
    panel.summary.value = (
        f"k = {par.k}, h = {par.h}, m = {par.m}, f = {fmt(par.f)}, p = {fmt(par.p)}, "
        f"q = {fmt(par.q)}, N = {setting.n_reports:,}, "
        f"correction {html.escape(CORRECTION_LABELS[setting.correction])}: "
        f"ε of one report ε₁ = <b class='ldp-eps1'>{fmt(g.epsilon_one_report)}</b>, "
        f"permanent ε∞ = <b class='ldp-epsinf'>{fmt(g.epsilon_permanent)}</b> "
        f"(q* = {g.q_star:.4g}, p* = {g.p_star:.4g}); detection threshold π_min = "
        f"<b class='ldp-threshold'>{g.threshold_no_collisions:.4g}</b> without collisions "
        f"(median {float(np.median(g.threshold)):.4g} with this design; "
        f"{g.identical_pairs} identical filter pairs); "
        f"expected recall <b class='ldp-recall'>{g.expected_recall:.3f}</b>, precision "
        f"<b class='ldp-precision'>{g.expected_precision:.3f}</b> "
        f"({g.expected_false:.3g} false detections expected) "
        f"— analytic approximation (normal OLS estimates, LASSO ignored){found}{check}"
        + (
            f"; <b>M = {setting.n_candidates} exceeds the k·m = {par.k * par.m} rows of Y</b>: "
            "the design is underdetermined and the guide optimistic — trust the decoded survey"
            if setting.n_candidates >= par.k * par.m
            else ""
        )
    )
    fig, a = figure_for(panel, _setup_rappor, figsize=(11.0, 5.6))
    _draw_report(panel, steps, values["user"], values["report"])
    ranks = np.arange(1, g.frequencies.size + 1)
    a["freq"].set_data(
        np.where(g.frequencies > 0, g.frequencies, 1e-12), np.arange(g.frequencies.size + 1) + 0.5
    )
    a["thr"].set_data(ranks, g.threshold)
    a["power"].set_data(ranks, g.detection_probability)
    _rank_axis(a["ax"], g.frequencies.size, setting.n_true)
    positive = np.concatenate([g.frequencies[g.frequencies > 0], g.threshold[g.threshold > 0]])
    a["ax"].set_ylim(positive.min() / 2, max(positive.max() * 2, 1e-6))
    a["guide_title"].set_text(
        f"guide: M = {setting.n_candidates} candidates, {setting.n_true} held "
        f"({setting.shape}, s = {fmt(setting.zipf_s)})"
    )
    shown = sim is not None or upload is not None
    for artist in (
        a["kept"],
        a["hits"],
        a["false"],
        *a["bars"].lines[2],
        a["est_ax"].xaxis,
        a["est_ax"].yaxis,
    ):
        artist.set_visible(shown)
    a["empty"].set_visible(not shown)
    a["diagonal"].set_visible(sim is not None)
    if upload is not None:
        _draw_survey(a, None, upload, 0)
        a["est_title"].set_text(f"uploaded counts decoded: {int(upload.detected.sum())} detected")
        rows = zip(upload.names, upload.estimate, upload.std_error, upload.p_value, upload.detected)
        show_figure(panel, ("candidate", "estimate", "std_error", "p_value", "detected"), rows)
        return
    a["est_title"].set_text("one simulated survey decoded" if sim is not None else "")
    header = ("candidate", "frequency", "threshold", "pr_detected_analytic")
    columns = [range(g.frequencies.size), g.frequencies, g.threshold, g.detection_probability]
    if sim is not None:
        _draw_survey(a, sim.true_counts, sim.decoded, setting.n_true)
        d = sim.decoded
        header += ("true_count", "estimate", "std_error", "p_value", "detected")
        columns += [
            sim.true_counts.tolist(),
            d.estimate,
            d.std_error,
            d.p_value,
            d.detected.tolist(),
        ]
    show_figure(panel, header, list(zip(*columns)))


def _load_counts(panel: Panel, counts, reports_per_cohort, blooms, *, f, p, q, names=None) -> None:
    """Show real aggregated counts decoded in the RAPPOR panel (the upload path): ``decode_counts`` at the panel's α."""
    values = panel.settings()
    panel.artists["upload"] = decode_counts(
        counts,
        reports_per_cohort,
        blooms,
        f=f,
        p=p,
        q=q,
        alpha=values["alpha"],
        correction=values["correction"],
        names=names,
    )
    panel.update()


def rappor_panel(
    *,
    k=16,
    h=2,
    m=8,
    f=0.5,
    p=0.5,
    q=0.75,
    n_reports=100_000,
    n_candidates=100,
    n_true=20,
    zipf_s=1.0,
    alpha=0.05,
    correction="bh",
    simulate=False,
    shape="zipf",
    seed=0,
    candidate=0,
    cohort=0,
    user=0,
    report=0,
    survey=True,
) -> Panel:
    """RAPPOR guide and simulator: (k, h, m, f, p, q, N, population, correction) → ε₁, ε∞, thresholds, a decoded survey.

    References
    ----------
    [erlingsson2014] Theorems 1–2, §2, §4; [rappor] §3.
    """
    import ipywidgets as w

    defaults = dict(
        k=k,
        h=h,
        m=m,
        f=f,
        p=p,
        q=q,
        n_reports=n_reports,
        n_candidates=n_candidates,
        n_true=n_true,
        zipf_s=zipf_s,
        shape=shape,
        alpha=alpha,
        correction=correction,
        seed=seed,
        candidate=candidate,
        cohort=cohort,
        user=user,
        report=report,
        survey=survey,
        simulate=simulate,
    )
    *_, survey, simulate = _checked(**defaults)  # bad defaults: the library's message, no widget
    controls = {
        "k": c.number(k, 4, 4096, "k (bits)", integer=True, log=True),
        "h": c.number(h, 1, 32, "h (hashes)", integer=True),
        "m": c.number(m, 1, 1024, "m (cohorts)", integer=True, log=True),
        "f": c.number(f, 0.0, 0.99, "f (PRR)", step=0.01),
        "p": c.number(p, 0.0, 0.99, "p (IRR)", step=0.01),
        "q": c.number(q, 0.01, 1.0, "q (IRR)", step=0.01),
        "n_reports": c.number(n_reports, 100, 10**10, "N (reports)", integer=True, log=True),
        "n_candidates": c.number(n_candidates, 2, 1000, "M (candidates)", integer=True, log=True),
        "n_true": c.number(n_true, 1, 1000, "held (of M)", integer=True, log=True),
        "shape": c.choice(list(CANDIDATE_SHAPES), shape, "population"),
        "zipf_s": c.number(zipf_s, 0.0, 5.0, "s (decay)", step=0.05),
        "alpha": c.number(alpha, 0.001, 0.3, "α", log=True),
        "correction": c.choice(
            [(CORRECTION_LABELS[k_], k_) for k_ in CORRECTIONS], correction, "correction"
        ),
        "seed": c.text(seed, "design seed"),
        "candidate": c.number(candidate, 0, 999, "user's value w", integer=True),
        "cohort": c.number(cohort, 0, 1023, "user's cohort", integer=True),
        "user": c.text(user, "user #"),
        "report": c.text(report, "report #"),
        "survey": c.toggle(survey, "decode a simulated survey"),
        "simulate": c.toggle(simulate, f"check: {SIMULATED_SURVEYS} decoded surveys"),
    }
    labels = w.HTML(
        '<div style="line-height:17px;text-align:right;padding-right:6px">B (Bloom)<br>B′ (PRR)<br>S (IRR, sent)</div>'
    )
    strip = {
        "title": w.HTML(),
        "image": w.Image(
            format="png",
            layout=w.Layout(width="960px", max_width="85%", height="50px", object_fit="fill"),
        ),
    }
    strip_box = w.VBox(
        [strip["title"], w.HBox([labels, strip["image"]], layout=w.Layout(align_items="center"))]
    )
    strip_box.add_class("ldp-rappor-report")
    panel = build(
        "rappor",
        controls,
        _draw_rappor,
        "RAPPOR: guide and simulator",
        defaults=defaults,
        artists={"strip": strip},
    )
    upload = w.FileUpload(
        accept=".csv",
        multiple=True,
        description="upload google/rappor counts, map, params",
        layout=w.Layout(width="auto"),
    )
    status = w.HTML()
    clear = w.Button(description="back to the simulation", layout=w.Layout(width="auto"))

    def uploaded(_change):
        try:
            counts, sizes, blooms, names, (f_, p_, q_) = _read_upload(
                {v.name: bytes(v.content) for v in upload.value}
            )
            _load_counts(panel, counts, sizes, blooms, f=f_, p=p_, q=q_, names=names)
            status.value = f"decoded {len(names)} candidates"
        except ValueError as err:
            status.value = refused(str(err))

    def back(_button):
        panel.artists["upload"] = None
        status.value = ""
        panel.update()

    upload.observe(uploaded, names="value")
    clear.on_click(back)

    def step(name, reset=()):
        def click(_button):
            value = controls[name].value
            panel.set_values(
                {name: value + 1 if isinstance(value, int) else 0, **{r: 0 for r in reset}}
            )

        return click

    auto = w.Layout(width="auto")
    new_user = w.Button(description="new user (B′)", layout=auto)
    new_report = w.Button(description="new report (S)", layout=auto)
    new_user.on_click(step("user", reset=("report",)))
    new_report.on_click(step("report"))
    panel.widget.children = (
        *panel.widget.children[:2],
        w.HBox(
            [new_user, new_report, upload, clear, status], layout=w.Layout(flex_flow="row wrap")
        ),
        *panel.widget.children[2:4],
        strip_box,
        *panel.widget.children[4:],
    )
    return panel
