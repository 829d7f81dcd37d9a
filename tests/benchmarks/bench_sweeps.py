"""How a sweep's cost scales with its chunks and workers: one audit of a per-user black-box client.

The client is a Python loop per report (a randomized response drawing from Python's ``random``, reseeded per
chunk), the kind of client whose audit is worth sharing: the same ``run_audit`` in-process, on two loky
processes, and on a two-worker Dask ``LocalCluster`` (started here), with few large chunks and with many small
ones.  A black-box client's batch runs in a forked child (killed if it hangs), once per chunk and input: that
fork is most of a small chunk's cost.  Every variant gives the same counts (asserted): only the time changes.
Each row is the median of 3 runs, the first of which is the check (a Dask cluster is warmed by a small audit
first); on a busy machine, once the module has run TIME_LIMIT seconds, the remaining variants run once.  The README's sweep paragraph quotes these rows (written with the table by ``run.py --write-readme``).
"""

from __future__ import annotations

import os
import random
import sys
import time

import numpy as np
from timing import Timing

from ldp_helpers.audit.auditor import BlackBoxClient, run_audit
from ldp_helpers.audit.events import Event

N_TRIALS = 100_000
DASK_CHUNKS = (4, 20, 100)  # few large chunks to many small ones
#: runs per variant (the first is the check); past TIME_LIMIT seconds of this module, one run per variant
REPEAT, TIME_LIMIT = 3, 60.0
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
    rows, counts, begun = [], {}, time.perf_counter()

    def measure(variant: str, chunk_size: int, where: dict) -> None:
        times = []
        for _ in range(REPEAT if time.perf_counter() - begun < TIME_LIMIT else 1):
            start = time.perf_counter()
            result = _audit(chunk_size, **where)
            times.append(time.perf_counter() - start)
            found = counts.setdefault(chunk_size, (result.count0, result.count1))
            assert (result.count0, result.count1) == found, (
                f"{variant}: {result} differs from {found}"
            )
        load = (
            f"; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores" if not rows else ""
        )
        note = f"{N_TRIALS // chunk_size} chunks of {chunk_size:,} trials per input, {len(times)} runs{load}"
        rows.append(Timing(LABEL, variant, float(np.median(times)), note))

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
        run_audit(
            BlackBoxClient(python_rr), 0, 1, n_trials=1000, seed=5, event=EVENT, dask_client=client
        )
        for n_chunks in DASK_CHUNKS:
            measure(
                f"Dask 2 workers, {n_chunks} chunks", N_TRIALS // n_chunks, {"dask_client": client}
            )
    return rows
