"""Chunked sweeps: local processes, a Dask cluster, or in-process, the same numbers everywhere.

A sweep is ``n_chunks`` independent calls ``task(index, seed)``; chunk ``i`` always gets the ``i``-th
child of ``SeedSequence(seed).spawn(n_chunks)``, so the results are the same numbers whatever the
backend (in-process, loky processes, threads, Dask) and the worker count.  Where the chunks run is decided by
:func:`~ldp_helpers.sweeps.backends.sweep_plan`: explicit arguments (``backend=``, ``dask_client=``,
``dask_address=``, :data:`DASK_ADDRESS_ENV`, ``n_jobs=``) first, then the standard settings of joblib and Dask
(``joblib.parallel_config``, an active ``distributed.Client``, ``DASK_SCHEDULER_ADDRESS`` / dask's config); local
workers are capped by the chunks to run and the cores.  On Dask the chunks are futures of the client
(:mod:`~ldp_helpers.sweeps.dask_futures`), locally joblib runs them.

A chunk that raises does not lose the others: the sweep finishes every chunk, then raises
:class:`ChunkError` listing each failed chunk with its seed and carrying the completed results;
``run_chunks(..., completed=error.completed)`` resumes and computes only the missing chunks.  A
lost worker is the same: a crashed loky process fails the chunks without a result; a chunk whose Dask worker dies
is retried by the scheduler and fails after repeated deaths (``KilledWorker``); a cluster left without workers
for ``timeout`` seconds fails the waiting chunks.  Chunks are dispatched one by one and collected as they finish,
so a crash loses only the chunks running on the lost worker, and a dying worker never hangs the sweep.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

import joblib
import numpy as np

from ldp_helpers._validation import (
    check_bool,
    check_callable,
    check_completed,
    check_int,
    check_real,
    fail_type,
)
from ldp_helpers.sweeps.backends import (
    BACKENDS,
    DASK_ADDRESS_ENV,
    DASK_SCHEDULER_ENV,
    SweepPlan,
    check_dask_address,
    check_dask_client,
    check_n_jobs,
    check_where,
    connect_dask,
    local_workers,
    sweep_plan,
)
from ldp_helpers.sweeps.dask_futures import _outcomes as dask_outcomes
from ldp_helpers.sweeps.global_rngs import seeded_globals

__all__ = [
    "BACKENDS",
    "DASK_ADDRESS_ENV",
    "DASK_SCHEDULER_ENV",
    "MAX_CHUNKS",
    "ChunkError",
    "ChunkFailure",
    "SweepPlan",
    "check_dask_address",
    "check_dask_client",
    "check_n_jobs",
    "check_where",
    "check_seed",
    "chunk_seeds",
    "connect_dask",
    "local_workers",
    "progress_bar",
    "run_chunks",
    "seeded_globals",
    "sweep_plan",
    "sweep_session",
]

#: most chunks one sweep may have (each holds a SeedSequence and a result): a ceiling, not a tuning knob
MAX_CHUNKS = 100_000


def check_seed(seed, name: str = "seed"):
    """A root seed: an integer ≥ 0 or a :class:`numpy.random.SeedSequence` (never None: no fresh entropy)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return check_int(name, seed, low=0)


@dataclass(frozen=True)
class ChunkFailure:
    """One failed chunk: its index, the entropy and spawn key of its seed, and the error text."""

    index: int
    entropy: int
    spawn_key: tuple
    error: str

    def __str__(self) -> str:
        return (
            f"chunk {self.index} (seed: SeedSequence(entropy={self.entropy}, spawn_key={self.spawn_key})) "
            f"failed: {self.error}"
        )


class ChunkError(RuntimeError):
    """Some chunks failed; ``completed`` maps chunk index → result for the others (pass it back to resume)."""

    def __init__(self, failures: list[ChunkFailure], completed: dict[int, object]):
        self.failures = failures
        self.completed = completed
        lines = "\n  ".join(str(f) for f in failures)
        super().__init__(
            f"{len(failures)} of {len(failures) + len(completed)} chunks failed "
            f"({len(completed)} completed, kept in .completed; pass completed= to resume):\n  {lines}"
        )


def chunk_seeds(seed, n_chunks: int) -> list[np.random.SeedSequence]:
    """The seed of every chunk: ``SeedSequence(seed).spawn(n_chunks)`` (a fixed function of seed and index)."""
    n_chunks = check_int("n_chunks", n_chunks, low=1, high=MAX_CHUNKS)
    seed = check_seed(seed)
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return root.spawn(n_chunks)


def _guarded(task, index, seed):
    try:
        return index, True, task(index, seed)
    except Exception as exc:  # reported with its seed by run_chunks, never swallowed
        return index, False, f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"


def run_chunks(
    task: Callable,
    n_chunks: int,
    *,
    seed,
    backend: str | None = None,
    n_jobs: int | None = None,
    dask_address: str | None = None,
    dask_client=None,
    timeout: float = 30.0,
    completed: dict | None = None,
    progress: bool = False,
    desc: str = "chunks",
    chunk_timeout: float = 3600.0,
) -> list:
    """Run ``task(index, seed_sequence)`` for every chunk and return the results in chunk order.

    Parameters
    ----------
    task : callable
        ``task(index, seed) -> result`` with ``seed`` a :class:`numpy.random.SeedSequence`; must be
        picklable for process and Dask backends (closures are fine: joblib and Dask use cloudpickle).
    n_chunks : int
        Number of chunks (≥ 1).
    seed : int or SeedSequence
        Root seed; chunk ``i`` gets ``SeedSequence(seed).spawn(n_chunks)[i]``.
    backend : {"sequential", "loky", "threading", "dask"}, optional
        Forces a backend; by default :func:`~ldp_helpers.sweeps.backends.sweep_plan` chooses from the
        arguments and the joblib/Dask settings (in-process when none is set).
    n_jobs : int, optional
        Local workers (joblib's convention: -1 = all cores), capped by the chunks to run and the cores.
    dask_address, dask_client, timeout
        The Dask scheduler (an address, or an open client); ``timeout`` in seconds to connect, and how long
        chunks may wait on a cluster without any worker (e.g. while nannies restart them) before they fail.
    completed : dict, optional
        Results already computed (chunk index → result), e.g. ``ChunkError.completed``: not recomputed.
    progress : bool
        Show a tqdm bar over the chunks.
    chunk_timeout : float
        Seconds (> 0; never None: a sweep must end) a Dask sweep waits with no chunk finishing; then the chunks
        without a result are cancelled and reported (a chunk that hangs on a live worker).  Local backends run
        chunks in this process or its loky workers, which ``ChunkError`` covers when they die, not when they hang.

    Raises
    ------
    ChunkError
        If any chunk raised or lost its worker; lists every chunk without a result with its seed and keeps the
        completed ones.
    """
    check_callable("task", task, "a callable task(index, seed)")
    seeds = chunk_seeds(seed, n_chunks)
    timeout = check_real("timeout", timeout, low=0.0)
    chunk_timeout = check_real("chunk_timeout", chunk_timeout, low=0.0)
    progress = check_bool("progress", progress)
    done = check_completed(completed)
    if any(not isinstance(i, int) or not 0 <= i < n_chunks for i in done):
        fail_type("completed", done, f"a dict keyed by chunk indices in [0, {n_chunks})")
    todo = [i for i in range(n_chunks) if i not in done]
    plan = sweep_plan(
        len(todo),
        backend=backend,
        n_jobs=n_jobs,
        dask_address=dask_address,
        dask_client=dask_client,
    )
    if not todo:
        return [done[i] for i in range(n_chunks)]
    if plan.backend == "dask":
        with _session(plan, backend, n_jobs, timeout) as where:
            client = where["dask_client"]
            results = dask_outcomes(
                client, _guarded, task, todo, seeds, timeout=timeout, chunk_timeout=chunk_timeout
            )
            outcomes, lost = _collect_outcomes(
                progress_bar(results, progress, desc, total=len(todo))
            )
    else:
        parallel = joblib.Parallel(
            n_jobs=plan.n_workers,
            backend=plan.backend,
            return_as="generator_unordered",
            batch_size=1,
        )
        results = parallel(joblib.delayed(_guarded)(task, i, seeds[i]) for i in todo)
        outcomes, lost = _collect_outcomes(progress_bar(results, progress, desc, total=len(todo)))
    failures = []
    for i, ok, value in outcomes:
        if ok:
            done[i] = value
        else:
            failures.append(_failure(seeds, i, value.strip()))
    if lost is not None:  # the backend itself failed: every chunk without an outcome is reported
        reported = {f.index for f in failures}
        failures += [
            _failure(seeds, i, f"no result: the sweep's backend failed ({lost})")
            for i in todo
            if i not in done and i not in reported
        ]
        failures.sort(key=lambda f: f.index)
    if failures:
        raise ChunkError(failures, done)
    return [done[i] for i in range(n_chunks)]


def sweep_session(
    *,
    backend: str | None = None,
    n_jobs: int | None = None,
    dask_address: str | None = None,
    dask_client=None,
    timeout: float = 30.0,
):
    """Where many sweeps in a row run (a driver's audits), as the keyword arguments to give each of them.

    A context manager (``with sweep_session(...) as where: run_audit(..., **where)``).  On Dask the scheduler is
    connected to once (a client opened here is closed at the end); locally the arguments are passed on
    unchanged, so each sweep caps its own workers.
    """
    timeout = check_real("timeout", timeout, low=0.0)
    plan = sweep_plan(
        1, backend=backend, n_jobs=n_jobs, dask_address=dask_address, dask_client=dask_client
    )
    return _session(plan, backend, n_jobs, timeout)


@contextmanager
def _session(plan: SweepPlan, backend, n_jobs, timeout: float):
    if plan.backend != "dask":
        yield {"backend": backend, "n_jobs": n_jobs, "timeout": timeout}
        return
    client = plan.client if plan.client is not None else connect_dask(plan.address, timeout=timeout)
    try:
        yield {"backend": "dask", "dask_client": client, "timeout": timeout}
    finally:
        if plan.client is None:
            client.close()


def _failure(seeds, index: int, error: str) -> ChunkFailure:
    s = seeds[index]
    return ChunkFailure(index, int(s.entropy), tuple(s.spawn_key), error)


def _collect_outcomes(results) -> tuple[list, str | None]:
    """Drain an iterator of chunk outcomes; if it raises, keep what it yielded and return the error text.

    The iterator is joblib's result generator or ``ldp_helpers.sweeps.dask_futures._outcomes``: it raises
    when the backend fails (a worker process dies, the scheduler goes away), not when a task does (tasks are
    guarded).  Returns ``(outcomes so far, None)`` or ``(outcomes so far, "ErrorType: message")``.
    """
    outcomes = []
    try:
        for outcome in results:
            outcomes.append(outcome)
    except Exception as exc:  # the backend failed: what finished is kept, run_chunks lists the rest
        return outcomes, f"{type(exc).__name__}: {exc}"
    return outcomes, None


def progress_bar(items, show: bool, desc: str, total: int | None = None):
    """``items`` wrapped in a tqdm bar when ``show`` (for long interactive runs), else unchanged.

    tqdm is imported only when a bar is shown, so the science loads no display code.
    """
    if total is not None:
        check_int("total", total, low=0)
    if not check_bool("show", show):
        return items
    from tqdm.auto import tqdm

    return tqdm(items, total=total, desc=desc)
