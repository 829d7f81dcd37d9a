"""The explorer's latency: one interaction per panel, in the kernel and in the browser (issues 17, 30 item 7).

Kernel rows: one interaction (recompute + redraw to PNG) at paper sizes, each call setting one control to a
value not seen before (a cached result is never re-used: the worst case of that control), the widgets built
outside the timing.  Browser rows: the served app (``make explore``'s guarded server) in headless Chromium,
from typing a new value into a panel's box (Enter) to the panel's new figure loaded on the page — what a
researcher waits for, timed by the page's own clock (:data:`CLOCK`) — and the first panel visible after
requesting the page.  The budget is 200 ms per
interaction and 2 s to the first panel, on an idle machine.  A panel's first build (hashing a RAPPOR design,
the phase diagram's grid) is not an interaction and is not timed.
"""

import itertools
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from dataclasses import asdict
from pathlib import Path

import numpy as np
from timing import Timing, median_time

N, D, T = 10**8, 1024, 1000
RAPPOR_PAPER = dict(
    k=128,
    h=4,
    m=8,
    f=0.0,
    p=0.5,
    q=0.75,
    n_reports=20_000,
    n_candidates=200,
    n_true=100,
    zipf_s=0.7,
)
BUDGET, FIRST_PANEL_BUDGET = 0.2, 2.0
BROWSER_LIMIT = 240.0  # seconds for every browser row (server start, Chromium, all panels); beyond it one TIMEOUT row


def _interaction(panel, name, values):
    """A callable setting ``panel.controls[name]`` to the next fresh value; fails if the panel refuses it."""
    fresh = iter(values)

    def step():
        panel.controls[name].value = next(fresh)
        if panel.message.value:
            raise RuntimeError(f"{panel.name}: {panel.message.value}")

    return step


def _kernel_rows() -> list[Timing]:
    from IPython.utils.capture import capture_output

    from ldp_tools.explore.panels import playground_panel, privacy_utility_panel
    from ldp_tools.explore.paper_panels import continual_panel, m_shot_panel
    from ldp_tools.explore.rappor_panel import rappor_panel
    from ldp_tools.explore.shuffle_panel import shuffle_panel

    count = itertools.count(1)
    cases = [
        (
            "explore: playground",
            f"OUE, ε moved, d={D}, n=1e8",
            lambda: playground_panel(mechanism_key="oue", epsilon=1.0, d=D, n=N),
            "epsilon",
            (1.0 + 1e-3 * i for i in count),
            "one exact survey, E[ĉ], ±2σ, MSE of every oracle (ranking)",
        ),
        (
            "explore: playground",
            f"CMS, ε moved, d={D}, n=1e8",
            lambda: playground_panel(mechanism_key="cms", epsilon=1.0, d=D, n=N),
            "epsilon",
            (2.0 + 1e-3 * i for i in itertools.count(1)),
            "sketch k=16, m=256 rebuilt per ε (its d×d collision table kept)",
        ),
        (
            "explore: privacy–utility",
            f"ε moved, d={D}, n=1e8",
            lambda: privacy_utility_panel(epsilon=1.0, d=D, n=N),
            "epsilon",
            (1.0 + 1e-3 * i for i in itertools.count(1)),
            "curves cached per (d, n, ε max, structure)",
        ),
        (
            "explore: privacy–utility",
            f"n moved, d={D}",
            lambda: privacy_utility_panel(epsilon=1.0, d=D, n=N),
            "n",
            (N - i for i in itertools.count(1)),
            "30 ε × every oracle's exact bias² + variance recomputed",
        ),
        (
            "explore: RAPPOR",
            "f moved, [rappor] §3 setting, survey decoded",
            lambda: rappor_panel(**RAPPOR_PAPER),
            "f",
            (0.1 - 1e-4 * i for i in itertools.count(1)),
            "design cached; guide + one decoded survey (1024 × 200)",
        ),
        (
            "explore: continual counting",
            f"μ moved, T={T}, N=1e8, 5 surveys",
            lambda: continual_panel(mu=0.3, n_users=N, n_rounds=T),
            "mu",
            (0.3 + 1e-4 * i for i in itertools.count(1)),
            "reporters (chain of binomials) redrawn, 10 ε × 3 mechanisms",
        ),
        (
            "explore: m-shot",
            f"ε moved, T={T}, N=1e8, 3 surveys",
            lambda: m_shot_panel(epsilon=20.0, n_rounds=T, n_users=N),
            "epsilon",
            (20.0 + 1e-3 * i for i in itertools.count(1)),
            "who reports cached per m; the reports of every m redrawn",
        ),
        (
            "explore: m-shot",
            f"θ moved, T={T}, N=1e8",
            lambda: m_shot_panel(epsilon=20.0, n_rounds=T, n_users=N),
            "theta",
            (0.5 - 1e-4 * i for i in itertools.count(1)),
            "estimates cached: F-measure recomputed only",
        ),
        (
            "explore: shuffle",
            "n moved, binary RR, ε₀=2, δ=1e-6",
            lambda: shuffle_panel(n=10_000, epsilon0=2.0, delta=1e-6),
            "n",
            (10_000 + i for i in itertools.count(1)),
            "curve cached per (ε₀, δ, k): the setting's exact ε_c and closed forms only",
        ),
        (
            "explore: shuffle",
            "ε₀ moved, binary RR, n=1e4, δ=1e-6",
            lambda: shuffle_panel(n=10_000, epsilon0=2.0, delta=1e-6),
            "epsilon0",
            (2.0 + 1e-3 * i for i in itertools.count(1)),
            "curve recomputed: 9 exact profiles (n ≤ 1e7), numerical bounds for n ≤ 400",
        ),
        (
            "explore: shuffle",
            "ε₀ moved, 1000-RR at its largest n=80 (heaviest)",
            lambda: shuffle_panel(n=80, epsilon0=1.1, delta=1e-6, k=1000),
            "epsilon0",
            (1.1 + 1e-3 * i for i in itertools.count(1)),
            "9 exact k-RR profiles of ~n³/6 count vectors and both numerical bounds per n",
        ),
    ]
    rows = []
    with warnings.catch_warnings(), capture_output():
        for benchmark, variant, build, name, values, note in cases:
            panel = build()
            seconds = median_time(_interaction(panel, name, values), repeat=5)
            rows.append(
                Timing(
                    benchmark, f"kernel: {variant}", seconds, f"{_verdict(seconds, BUDGET)}; {note}"
                )
            )
    return rows


def _verdict(seconds: float, budget: float) -> str:
    return f"{'within' if seconds <= budget else 'OVER'} the {budget * 1e3:.0f} ms budget"


#: per panel: the control typed into and its fresh values (each an interaction seen in the browser)
BROWSER = {
    "playground": ("epsilon", (1.0 + 0.01 * i for i in itertools.count(1))),
    "privacy_utility": ("epsilon", (1.0 + 0.01 * i for i in itertools.count(1))),
    "rappor": ("f", (0.5 - 0.001 * i for i in itertools.count(1))),
    "continual": ("mu", (0.5 + 0.001 * i for i in itertools.count(1))),
    "m_shot": ("epsilon", (10.0 + 0.01 * i for i in itertools.count(1))),
    "shuffle": ("epsilon0", (2.0 + 0.01 * i for i in itertools.count(1))),
}  # θ may leave the F-measure (and the PNG) unchanged


#: the page's own clock: from the Enter keydown in the box to the load of the panel's next figure (performance.now(),
#: so neither Selenium's round trips while typing nor its polling count)
CLOCK = """
const box = document.querySelector(arguments[0]), out = document.querySelector(arguments[1]);
const clock = window.ldpClock = {enter: null, loaded: null};
box.addEventListener('keydown', e => { if (e.key === 'Enter' && clock.enter === null) clock.enter = performance.now(); },
                     {capture: true, once: false});
out.addEventListener('load', () => { if (clock.enter !== null && clock.loaded === null) clock.loaded = performance.now(); },
                     {capture: true});
"""


def _browser_rows(repeat: int = 5) -> list[Timing]:
    root = Path(__file__).resolve().parents[2]
    sys.path[:0] = [str(root / "tests")]
    from browser.explorer import PANELS, TOKEN, js_img, js_text, serve, type_into, wait_idle
    from browser.harness import chromium
    from selenium.webdriver.support.ui import WebDriverWait

    rows = []
    with serve(root / "build" / "bench-explore-serve.log") as (proc, url):
        wait_idle(proc)
        driver = chromium(width=1300, height=1800)
        try:
            start = time.perf_counter()
            driver.get(f"{url}?token={TOKEN}")
            WebDriverWait(driver, 120, poll_frequency=0.01).until(lambda d: js_img(d, "playground"))
            first = time.perf_counter() - start
            for name in PANELS:
                WebDriverWait(driver, 120).until(lambda d, n=name: js_img(d, n))
            rows.append(
                Timing(
                    "explore: app page",
                    "browser: first panel visible (pre-heated kernel)",
                    first,
                    _verdict(first, FIRST_PANEL_BUDGET),
                )
            )
            wait_idle(proc)  # the pool's next kernel has rendered: the machine is quiet again
            for name in PANELS:
                control, values = BROWSER[name]
                times = []
                for _ in range(repeat + 1):
                    img = js_img(driver, name)
                    value = f"{next(values):.6g}"
                    driver.execute_script(
                        CLOCK, f".ldp-{name}-{control} input[type=text]", f".ldp-{name}-output"
                    )
                    type_into(driver, name, control, value)
                    WebDriverWait(driver, 60, poll_frequency=0.005).until(
                        lambda d, n=name, i=img: js_img(d, n) not in ("", i)
                    )
                    waited = WebDriverWait(driver, 10, poll_frequency=0.005).until(
                        lambda d: d.execute_script(
                            "const t = window.ldpClock; return t.loaded && t.loaded - t.enter;"
                        )
                    )
                    times.append(waited / 1e3)
                    assert not js_text(driver, f".ldp-{name}-message"), js_text(
                        driver, f".ldp-{name}-message"
                    )
                seconds = float(np.median(times[1:]))
                rows.append(
                    Timing(
                        f"explore: {name.replace('_', '-')}",
                        f"browser: {control} typed → new figure",
                        seconds,
                        f"{_verdict(seconds, BUDGET)}; app defaults, Enter to figure loaded (Chromium)",
                    )
                )
        finally:
            driver.quit()
    return rows


def _browser_rows_limited(limit: float = BROWSER_LIMIT) -> list[Timing]:
    """:func:`_browser_rows` in a process session of its own, ended (server, driver and Chromium with it) after ``limit`` s.

    A stall (a kernel that never answers, a page that never loads) becomes one TIMEOUT row and a crash one
    FAILED row: the rest of the bench always runs and the table always prints.
    """
    proc = subprocess.Popen(
        [sys.executable, __file__, "--browser-rows"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=Path(__file__).parent,
    )
    start = time.perf_counter()
    try:
        out, err = proc.communicate(timeout=limit)
    except (
        subprocess.TimeoutExpired
    ):  # SIGTERM first: the child stops its server (a session of its own) and Chromium
        for sig, grace in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
            try:
                os.killpg(proc.pid, sig)
                proc.communicate(timeout=grace)
                break
            except (ProcessLookupError, subprocess.TimeoutExpired):
                continue
        return [
            Timing(
                "explore: browser",
                "browser rows",
                time.perf_counter() - start,
                f"TIMEOUT: not finished within the {limit:.0f} s limit (stopped; no browser row measured)",
            )
        ]
    if proc.returncode:
        last = (err.strip().splitlines() or ["no message"])[-1]
        return [
            Timing(
                "explore: browser",
                "browser rows",
                time.perf_counter() - start,
                f"FAILED (exit {proc.returncode}): {last[:160]}",
            )
        ]
    return [Timing(**row) for row in json.loads(out.strip().splitlines()[-1])]


def run(rng: np.random.Generator) -> list[Timing]:
    return _kernel_rows() + _browser_rows_limited()


if __name__ == "__main__" and sys.argv[1:] == [
    "--browser-rows"
]:  # the child of _browser_rows_limited
    signal.signal(
        signal.SIGTERM, lambda *_: sys.exit(143)
    )  # unwind: serve() stops the server, driver.quit() Chromium
    print(json.dumps([asdict(row) for row in _browser_rows()], ensure_ascii=False))
