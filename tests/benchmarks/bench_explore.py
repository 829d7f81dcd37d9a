"""The explorer's latency: one interaction (recompute + redraw to PNG) per panel at paper sizes (issue 17).

Each call sets one control to a value not seen before (so a cached result is never re-used across
calls: the worst case of that control), with the widgets built outside the timing.  The budget is
200 ms of kernel time per interaction.  A panel's first build (hashing a RAPPOR design, the phase
diagram's grid) is not an interaction and is not timed.
"""

import itertools
import warnings

import numpy as np

from timing import Timing, median_time

N, D, T = 10**8, 1024, 1000


def _interaction(panel, name, values):
    """A callable setting ``panel.controls[name]`` to the next fresh value; fails if the panel refuses it."""
    fresh = iter(values)

    def step():
        panel.controls[name].value = next(fresh)
        if panel.message.value:
            raise RuntimeError(f"{panel.name}: {panel.message.value}")

    return step


def run(rng: np.random.Generator) -> list[Timing]:
    from IPython.utils.capture import capture_output

    from ldp_helpers.explore.paper_panels import continual_panel, m_shot_panel, rappor_panel
    from ldp_helpers.explore.panels import playground_panel, privacy_utility_panel

    cases = [
        ("explore: playground", f"OUE, ε moved, d={D}, n=1e8", lambda: playground_panel(mechanism_key="oue", epsilon=1.0, d=D, n=N),
         "epsilon", (1.0 + 1e-3 * i for i in itertools.count(1)), "one exact survey + ±2σ + phase-diagram marker"),
        ("explore: playground", f"CMS, ε moved, d={D}, n=1e8", lambda: playground_panel(mechanism_key="cms", epsilon=1.0, d=D, n=N),
         "epsilon", (2.0 + 1e-3 * i for i in itertools.count(1)), "CMS: its output table (vectorized, ≈ 6 ms per new ε; the d×d collision table is computed once)"),
        ("explore: privacy–utility", f"ε moved, d={D}, n=1e8", lambda: privacy_utility_panel(epsilon=1.0, d=D, n=N),
         "epsilon", (1.0 + 1e-3 * i for i in itertools.count(1)), "curves cached per (d, ε max)"),
        ("explore: privacy–utility", f"n moved, d={D}", lambda: privacy_utility_panel(epsilon=1.0, d=D, n=N),
         "n", (N - i for i in itertools.count(1)), "curves rescaled by n/d (variance linear in the counts)"),
        ("explore: privacy–utility", "d moved, d≈1024, n=1e8", lambda: privacy_utility_panel(epsilon=1.0, d=D, n=N),
         "d", (D - i for i in itertools.count(1)), "40 ε × 8 oracles' exact MSE recomputed (CMS: one d×d collision table per d, shared across ε)"),
        ("explore: RAPPOR guide", "f moved, k=128 h=2 m=64 M=1000",
         lambda: rappor_panel(k=128, h=2, m=64, n_reports=N, n_candidates=1000, n_true=100),
         "f", (0.5 - 1e-4 * i for i in itertools.count(1)), "design cached per (k, h, m, M); analytic precision/recall"),
        ("explore: continual counting", f"μ moved, T={T}, N=1e8, 5 surveys", lambda: continual_panel(mu=0.3, n_users=N, n_rounds=T),
         "mu", (0.3 + 1e-4 * i for i in itertools.count(1)), "reporters (chain of binomials) redrawn, 10 ε × 3 mechanisms"),
        ("explore: m-shot", f"ε moved, T={T}, N=1e8, 3 surveys", lambda: m_shot_panel(epsilon=20.0, n_rounds=T, n_users=N),
         "epsilon", (20.0 + 1e-3 * i for i in itertools.count(1)), "who reports cached per m; the reports of every m of the grid (≈ 10 m) redrawn"),
        ("explore: m-shot", f"θ moved, T={T}, N=1e8", lambda: m_shot_panel(epsilon=20.0, n_rounds=T, n_users=N),
         "theta", (0.5 - 1e-4 * i for i in itertools.count(1)), "estimates cached: F-measure recomputed only"),
    ]
    rows = []
    with warnings.catch_warnings(), capture_output():
        for benchmark, variant, build, name, values, note in cases:
            panel = build()
            seconds = median_time(_interaction(panel, name, values), repeat=7)
            verdict = "within" if seconds <= 0.2 else "OVER"
            rows.append(Timing(benchmark, variant, seconds, f"{verdict} the 200 ms budget; {note}"))
    return rows
