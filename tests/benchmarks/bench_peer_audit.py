"""The empirical audit (notebook 06): our batched client vs a peer's per-user client, sequential vs 2 processes.

The peer (pure-ldp 1.2.0, from build/bench-peers) is a Python loop per report, so its audit is where
the chunked joblib sweep pays off; the chunks and their seeds are the same whatever n_jobs is.
"""

import sys
from pathlib import Path

import numpy as np
from timing import Timing, median_time

from ldp_helpers.audit.auditor import BlackBoxClient, run_audit
from ldp_helpers.audit.events import Event
from ldp_helpers.mechanisms.unary_encoding import OUE

PEERS = Path(__file__).resolve().parents[2] / "build" / "bench-peers"
EVENT = Event(
    (0, 1), ("==", "=="), (1.0, 0.0)
)  # "true bit set, the other clear": fixed, no pilot search


def run(rng: np.random.Generator) -> list[Timing]:
    if str(PEERS) not in sys.path:
        sys.path.insert(0, str(PEERS))
    from ldp_tools.peers import PureLdpUE, reseed_globals

    label = "audit OUE eps=1, d=4, N=1e5"
    ours = OUE(1.0, 4)
    peer = BlackBoxClient(PureLdpUE(1.0, 4, True), reseed=reseed_globals)
    rows = []
    for n_jobs in (1, 2):
        t = median_time(
            lambda: run_audit(
                ours, 0, 1, n_trials=100_000, seed=1, event=EVENT, chunk_size=25_000, n_jobs=n_jobs
            ),
            repeat=3,
        )
        rows.append(Timing(label, f"our perturb, n_jobs={n_jobs}", t, "batched reference client"))
    for n_jobs, n in ((1, 10_000), (2, 20_000)):
        t = median_time(
            lambda: run_audit(
                peer, 0, 1, n_trials=n, seed=1, event=EVENT, chunk_size=5_000, n_jobs=n_jobs
            ),
            repeat=3,
        )
        scale = 100_000 / n
        rows.append(
            Timing(
                label,
                f"pure-ldp 1.2.0 per-user, n_jobs={n_jobs}",
                t * scale,
                f"timed on N={n:,}, scaled x{scale:g}",
            )
        )
    return rows
