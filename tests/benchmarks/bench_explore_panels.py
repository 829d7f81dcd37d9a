"""Per-panel interaction latency of the explorer, kernel-side: p50 and p95 at the app's defaults and at the heaviest
allowed setting (issue 36 item 3).

The panels are the app's own list (:data:`ldp_tools.explore.panels.PANELS`, built by
:data:`~ldp_tools.explore.panels.BUILDERS`): a panel added there is timed here without an edit.  Its default
setting is the one the app opens with (the keyword arguments of its ``show_panel`` call in
``app/explorer.ipynb``, else the builder's defaults); its heaviest setting is :data:`HEAVIEST` (a panel without
one gets a row saying so).  One interaction sets one visible number control to a value not seen before (a
cached result is never re-used: each control's worst case), the controls in turn; a value the panel refuses
(a work ceiling) is retried on the other side of the current one and not timed.  The widgets are built outside
the timing (at the default setting one more interaction warms up untimed; at the heaviest the build's own
draw does); the figure is redrawn to PNG inside it, as in the app.  Wall time is what a researcher waits
for; the note adds the kernel's CPU time, which a busy machine inflates less.

Run alone: ``make bench-explore`` (or ``.venv/bin/python tests/benchmarks/bench_explore_panels.py``: the table
with p50, p95 and n per panel and setting, about a minute); ``make bench`` includes the rows.
"""

from __future__ import annotations

import ast
import itertools
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from timing import Timing  # noqa: E402

APP = Path(__file__).resolve().parents[2] / "app" / "explorer.ipynb"
#: interactions timed per panel at the default setting and at the heaviest (fewer when they outlast TIME_LIMIT)
REPEAT = {"default": 10, "heaviest": 5}
#: seconds of interactions per panel and setting after which no new one starts (at least MIN_REPEAT are timed):
#: an over-budget heavy setting (seconds per interaction) keeps the whole run within about a minute
TIME_LIMIT, MIN_REPEAT = 4.0, 3
#: the budgets of issue 36: an ordinary interaction's median, any allowed setting's worst case
BUDGET_P50, BUDGET_WORST = 0.2, 1.0

#: each panel's heaviest allowed setting: the largest sizes its controls and work ceilings accept
HEAVIEST = {
    # d = D_MAX, the CMS at the largest k and m the ceilings allow there (d·k ≤ 2^15, k·m ≤ 2^16), ε at the top
    "playground": dict(
        mechanism_key="cms", epsilon=20.0, d=2048, n=10**10, k=16, m=4096, n_buckets=4096
    ),
    # the case of issue 36 item 2: d = 2048, ε max = 20, every curve shown
    "privacy_utility": dict(
        epsilon=1.0, d=2048, n=10**10, epsilon_max=20.0, shown="all", k=16, m=4096, n_buckets=4096
    ),
    # a decoded survey at the decoding ceiling k·m·M = 2^21, the most hashes the design ceiling allows
    "rappor": dict(
        k=256, h=32, m=64, f=0.5, p=0.5, q=0.75, n_reports=10**10, n_candidates=128, n_true=100
    ),
    # the work ceiling T·n_draws = 50,000
    "continual": dict(mu=0.5, n_users=10**10, n_rounds=10_000, n_draws=5, epsilon_max=30.0),
    # N, ε and 40 surveys at the top: T = 473 is the largest within the work ceiling (_m_shot_work)
    "m_shot": dict(epsilon=500.0, n_rounds=473, n_users=10**9 - 1, n_draws=40, theta=0.5),
    # 3-RR at its n ceiling (the four-category grid), the numerical bounds at theirs
    "shuffle": dict(n=400, epsilon0=2.0, delta=1e-6, k=3),
}


def app_defaults(path: Path = APP) -> dict[str, dict]:
    """``{panel: keyword arguments}`` of the app's ``show_panel("panel", ...)`` calls (literals only)."""
    found = {}
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        for node in ast.walk(ast.parse("".join(cell["source"]))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "show_panel"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                found[node.args[0].value] = {
                    kw.arg: ast.literal_eval(kw.value) for kw in node.keywords
                }
    return found


def _fresh(control, i: int, side: int):
    """The i-th new value of a number control on one side (−1: smaller, +1: larger) of its value."""
    value = control.value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if control._integer:
        return value + side * (i + 1)
    step = 1e-4 * (i + 1)
    return value * (1 + side * step) if value else side * step


def _interactions(panel):
    """Endless (control name, callable) pairs: each visible number control in turn set to a fresh value.

    Yields the wall and CPU seconds of each accepted interaction; a refused value (the panel's message
    says so) is retried on the other side, and a control refused on both is dropped from the rotation.
    """
    from ldp_tools.explore._controls import NumberControl

    names = [
        name
        for name, control in panel.controls.items()
        if isinstance(control, NumberControl) and control.layout.display != "none"
    ]
    count = itertools.count()
    for name in itertools.cycle(list(names)):
        if name not in names:
            continue
        i = next(count)
        for side in (-1, 1):
            value = _fresh(panel.controls[name], i, side)
            start, cpu = time.perf_counter(), time.process_time()
            panel.controls[name].value = value
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            if not panel.message.value:
                yield name, seconds, cpu
                break
        else:
            names.remove(name)
            if not names:
                return


def time_panel(name: str, setting: str, kwargs: dict, repeat: int) -> dict:
    """p50, p95 (linear interpolation) and n of up to ``repeat`` interactions of the panel built with ``kwargs``."""
    from IPython.utils.capture import capture_output

    from ldp_tools.explore.panels import BUILDERS

    with warnings.catch_warnings(), capture_output():
        warnings.simplefilter("ignore")
        panel = BUILDERS[name](**kwargs)
        steps = _interactions(panel)
        if setting == "default":
            next(steps, None)  # warm-up: the first interaction's lazy imports and caches
        times, cpus, moved, start = [], [], set(), time.perf_counter()
        for control, seconds, cpu in itertools.islice(steps, repeat):
            times.append(seconds)
            cpus.append(cpu)
            moved.add(control)
            if len(times) >= MIN_REPEAT and time.perf_counter() - start > TIME_LIMIT:
                break
    if not times:
        return dict(panel=name, setting=setting, n=0, note="no number control accepted a new value")
    p50, p95 = (float(np.percentile(times, q)) for q in (50, 95))
    return dict(
        panel=name,
        setting=setting,
        p50=p50,
        p95=p95,
        cpu_p50=float(np.percentile(cpus, 50)),
        cpu_p95=float(np.percentile(cpus, 95)),
        n=len(times),
        controls=sorted(moved),
        kwargs=kwargs,
    )


def measure() -> list[dict]:
    """One record per panel of the app's list and setting (default, heaviest)."""
    from ldp_tools.explore.panels import PANELS

    defaults = app_defaults()
    records = []
    for name in PANELS:
        for setting, kwargs in (
            ("default", defaults.get(name, {})),
            ("heaviest", HEAVIEST.get(name)),
        ):
            if kwargs is None:
                records.append(
                    dict(
                        panel=name,
                        setting=setting,
                        n=0,
                        note="no heaviest setting: add one to HEAVIEST in bench_explore_panels.py",
                    )
                )
                continue
            records.append(time_panel(name, setting, kwargs, REPEAT[setting]))
    return records


def _verdict(record: dict) -> str:
    """Whether the row keeps its budget (p50 at the default setting, p95 at the heaviest), and what moved."""
    if not record["n"]:
        return record["note"]
    heavy = record["setting"] == "heaviest"
    budget, what = (BUDGET_WORST, "p95") if heavy else (BUDGET_P50, "p50")
    within = "within" if record[what] <= budget else "OVER"
    return f"{what} {within} {budget * 1e3:.0f} ms; controls moved: {', '.join(record['controls'])}"


def run(rng: np.random.Generator) -> list[Timing]:
    return [
        Timing(
            f"explore panel: {r['panel']}",
            f"kernel p50, {r['setting']}",
            r.get("p50", math.nan),
            (
                f"p95 {r['p95'] * 1e3:.0f} ms, n = {r['n']}, CPU p50/p95 {r['cpu_p50'] * 1e3:.0f}/"
                f"{r['cpu_p95'] * 1e3:.0f} ms; "
                if r["n"]
                else ""
            )
            + _verdict(r),
        )
        for r in measure()
    ]


def table(records: list[dict]) -> str:
    """Panel, setting, p50 ms, p95 ms, n, CPU p50/p95 ms and the verdict as a plain-text table."""

    def ms(record: dict, key: str) -> str:
        return f"{record[key] * 1e3:8.1f}" if record["n"] else f"{'—':>8}"

    head = f"{'panel':<16} {'setting':<9} {'p50 ms':>8} {'p95 ms':>8} {'n':>3}"
    lines = [f"{head} {'CPU p50':>8} {'CPU p95':>8}  note", "-" * 110]
    for r in records:
        lines.append(
            f"{r['panel']:<16} {r['setting']:<9} {ms(r, 'p50')} {ms(r, 'p95')} {r['n']:>3} "
            f"{ms(r, 'cpu_p50')} {ms(r, 'cpu_p95')}  {_verdict(r)}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    start = time.perf_counter()
    records = measure()
    print(table(records))
    print(
        f"\n{time.perf_counter() - start:.0f} s of wall time, load average {os.getloadavg()[0]:.1f} "
        f"on {os.cpu_count()} cores"
    )
