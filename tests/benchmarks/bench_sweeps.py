"""How a sweep's cost scales with its chunks and workers: one audit of a per-user black-box client.

The client is a Python loop per report (a randomized response drawing from Python's ``random``, reseeded per
chunk), the kind of client whose audit is worth sharing: the same ``run_audit`` in-process, on two loky
processes, and on a two-worker Dask ``LocalCluster`` (started here), with few large chunks and with many small
ones.  Every variant gives the same counts (asserted): only the time changes.  The README's sweep paragraph
quotes these rows (written with the table by ``run.py --write-readme``).
"""

from __future__ import annotations

import os
import random
import sys

import numpy as np
from timing import Timing, median_time

from ldp_helpers.audit.auditor import BlackBoxClient, run_audit
from ldp_helpers.audit.events import Event

N_TRIALS = 400_000
EVENT = Event((0,), ("==",), (1.0,))  # "reports 1": fixed, so no pilot search is timed
LABEL = f"sweep: black-box audit, N={N_TRIALS:,}"


def python_rr(value):
    """Randomized response on a bit at ε = ln 3, one ``random.random()`` per report (a per-user Python client)."""
    return float(value if random.random() < 0.75 else 1 - value)


def _audit(chunk_size: int, **where):
    return run_audit(
        BlackBoxClient(python_rr),
        0,
        1,
        n_trials=N_TRIALS,
        seed=5,
        event=EVENT,
        chunk_size=chunk_size,
        **where,
    )


def run(rng: np.random.Generator) -> list[Timing]:
    import cloudpickle
    from distributed import Client, LocalCluster

    cloudpickle.register_pickle_by_value(
        sys.modules[__name__]
    )  # the workers cannot import this folder
    rows, counts = [], {}

    def measure(variant: str, chunk_size: int, where: dict) -> None:
        result = _audit(chunk_size, **where)
        found = counts.setdefault(chunk_size, (result.count0, result.count1))
        assert (result.count0, result.count1) == found, f"{variant}: {result} differs from {found}"
        t = median_time(
            lambda: _audit(chunk_size, **where), repeat=3, warmup=False
        )  # the check run warmed it
        load = (
            f"; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores" if not rows else ""
        )
        rows.append(
            Timing(
                LABEL,
                variant,
                t,
                f"{N_TRIALS // chunk_size} chunks of {chunk_size:,} trials per input{load}",
            )
        )

    # the local variants first: a LocalCluster's scheduler runs in this process and would compete for its GIL
    measure("in-process, 1 chunk", N_TRIALS, {})
    measure("in-process, 4 chunks", N_TRIALS // 4, {})
    measure("2 loky processes, 4 chunks", N_TRIALS // 4, {"n_jobs": 2})
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        for n_chunks in (4, 40, 400):
            measure(
                f"Dask 2 workers, {n_chunks} chunks", N_TRIALS // n_chunks, {"dask_client": client}
            )
    return rows
