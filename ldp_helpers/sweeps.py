"""Chunked sweeps through joblib: local processes by default, a Dask cluster when one is given.

A sweep is ``n_chunks`` independent calls ``task(index, seed)``; chunk ``i`` always gets the ``i``-th
child of ``SeedSequence(seed).spawn(n_chunks)``, so the results are the same numbers whatever the
backend (sequential, loky processes, threads, ``dask``) and the worker count.  The Dask backend is
joblib's own (``joblib.parallel_config(backend="dask")`` with a :class:`distributed.Client`); the
address comes from ``dask_address=`` or the environment variable :data:`DASK_ADDRESS_ENV`.

A chunk that raises does not lose the others: the sweep finishes every chunk, then raises
:class:`ChunkError` listing each failed chunk with its seed and carrying the completed results;
``run_chunks(..., completed=error.completed)`` resumes and computes only the missing chunks.  A
lost worker (a crashed loky process, a Dask ``KilledWorker``) is the same: the chunks that
finished before it are kept, every chunk without a result is listed as failed with its seed.
Chunks are dispatched one by one (``batch_size=1``) and collected as they finish, so a crash
loses only the chunks running on the lost worker.
"""

from __future__ import annotations

import os
import re
import traceback
from dataclasses import dataclass
from typing import Callable

import joblib
import numpy as np

from ldp_helpers._validation import check_bool, check_choice, check_int, check_real, fail, fail_type

#: environment variable holding a Dask scheduler address (``tcp://host:8786``) for every sweep
DASK_ADDRESS_ENV = "LDP_DASK_ADDRESS"
BACKENDS = ("sequential", "loky", "threading", "dask")
#: most chunks one sweep may have (each holds a SeedSequence and a result): a ceiling, not a tuning knob
MAX_CHUNKS = 100_000
_ADDRESS = re.compile(r"^([a-z][a-z0-9+.-]*://\S+|[^\s/:]+:\d+)$")


def check_seed(seed, name: str = "seed"):
    """A root seed: an integer ≥ 0 or a :class:`numpy.random.SeedSequence` (never None: no fresh entropy)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return check_int(name, seed, low=0)


def check_dask_address(address, name: str = "dask_address") -> str:
    """A Dask scheduler address: ``'tcp://host:port'`` (any scheme) or ``'host:port'``."""
    if not isinstance(address, str):
        fail_type(name, address, "a scheduler address string such as 'tcp://127.0.0.1:8786'")
    if not _ADDRESS.match(address):
        fail(name, address, "a scheduler address such as 'tcp://127.0.0.1:8786' or 'host:8786'")
    return address


@dataclass(frozen=True)
class ChunkFailure:
    """One failed chunk: its index, the entropy and spawn key of its seed, and the error text."""

    index: int
    entropy: int
    spawn_key: tuple
    error: str

    def __str__(self) -> str:
        return (f"chunk {self.index} (seed: SeedSequence(entropy={self.entropy}, spawn_key={self.spawn_key})) "
                f"failed: {self.error}")


class ChunkError(RuntimeError):
    """Some chunks failed; ``completed`` maps chunk index → result for the others (pass it back to resume)."""

    def __init__(self, failures: list[ChunkFailure], completed: dict[int, object]):
        self.failures = failures
        self.completed = completed
        lines = "\n  ".join(str(f) for f in failures)
        super().__init__(f"{len(failures)} of {len(failures) + len(completed)} chunks failed "
                         f"({len(completed)} completed, kept in .completed; pass completed= to resume):\n  {lines}")


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


def connect_dask(address: str, *, timeout: float = 10.0):
    """A :class:`distributed.Client` on the scheduler at ``address``; a clear ``ConnectionError`` if unreachable."""
    check_dask_address(address)
    timeout = check_real("timeout", timeout, low=0.0)
    from distributed import Client
    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ConnectionError(f"cannot reach the Dask scheduler at dask_address={address!r} within "
                              f"{timeout:g} s ({type(exc).__name__}: {exc}); start one (dask scheduler) or unset "
                              f"{DASK_ADDRESS_ENV}") from exc


def run_chunks(task: Callable, n_chunks: int, *, seed, backend: str | None = None, n_jobs: int = 1,
               dask_address: str | None = None, dask_client=None, timeout: float = 10.0,
               completed: dict | None = None, progress: bool = False, desc: str = "chunks") -> list:
    """Run ``task(index, seed_sequence)`` for every chunk and return the results in chunk order.

    Parameters
    ----------
    task : callable
        ``task(index, seed) -> result`` with ``seed`` a :class:`numpy.random.SeedSequence`; must be
        picklable for process and Dask backends (closures are fine: joblib uses cloudpickle).
    n_chunks : int
        Number of chunks (≥ 1).
    seed : int or SeedSequence
        Root seed; chunk ``i`` gets ``SeedSequence(seed).spawn(n_chunks)[i]``.
    backend : {"sequential", "loky", "threading", "dask"}, optional
        Default: ``"dask"`` when an address or client is given (or :data:`DASK_ADDRESS_ENV` is set),
        else ``"loky"`` when ``n_jobs != 1``, else ``"sequential"``.
    n_jobs : int
        Workers for the local backends (joblib's convention: -1 = all cores).
    dask_address, dask_client, timeout
        The Dask scheduler (an address, or an open client); ``timeout`` in seconds to connect.
    completed : dict, optional
        Results already computed (chunk index → result), e.g. ``ChunkError.completed``: not recomputed.
    progress : bool
        Show a tqdm bar over the chunks.

    Raises
    ------
    ChunkError
        If any chunk raised or the backend lost a worker; lists every chunk without a result with its
        seed and keeps the completed ones.
    """
    if not callable(task):
        fail_type("task", task, "a callable task(index, seed)")
    seeds = chunk_seeds(seed, n_chunks)
    n_jobs = check_int("n_jobs", n_jobs)
    if n_jobs == 0:
        fail("n_jobs", n_jobs, "a non-zero integer (joblib: -1 = all cores)")
    timeout = check_real("timeout", timeout, low=0.0)
    progress = check_bool("progress", progress)
    if completed is not None and not isinstance(completed, dict):
        fail_type("completed", completed, "a dict (chunk index → result), e.g. ChunkError.completed")
    done = dict(completed or {})
    if any(not isinstance(i, int) or not 0 <= i < n_chunks for i in done):
        fail_type("completed", done, f"a dict keyed by chunk indices in [0, {n_chunks})")
    if dask_address is not None:
        check_dask_address(dask_address)
    if dask_client is not None and not hasattr(dask_client, "submit"):
        fail_type("dask_client", dask_client, "a distributed.Client")
    if backend is not None:
        check_choice("backend", backend, BACKENDS)
    dask_address = dask_address or os.environ.get(DASK_ADDRESS_ENV) or None
    if backend is None:
        backend = "dask" if (dask_address or dask_client) else ("loky" if n_jobs != 1 else "sequential")
    backend = check_choice("backend", backend, BACKENDS)
    todo = [i for i in range(n_chunks) if i not in done]
    calls = (joblib.delayed(_guarded)(task, i, seeds[i]) for i in todo)
    if backend == "dask":
        client = dask_client
        if client is None:
            if not dask_address:
                raise ValueError(f"backend='dask' needs dask_address= (or {DASK_ADDRESS_ENV}) or dask_client=")
            client = connect_dask(dask_address, timeout=timeout)
        try:
            with joblib.parallel_config(backend="dask", client=client, wait_for_workers_timeout=timeout):
                outcomes = _parallel(calls, len(todo), -1, progress, desc)
        finally:
            if dask_client is None:
                client.close()
    elif backend == "sequential":
        outcomes = _parallel(calls, len(todo), 1, progress, desc, backend="sequential")
    else:
        outcomes = _parallel(calls, len(todo), n_jobs, progress, desc, backend=backend)
    outcomes, lost = outcomes
    failures = []
    for i, ok, value in outcomes:
        if ok:
            done[i] = value
        else:
            failures.append(_failure(seeds, i, value.strip()))
    if lost is not None:  # the backend itself failed: every chunk without an outcome is reported
        reported = {f.index for f in failures}
        failures += [_failure(seeds, i, f"no result: the sweep's backend failed ({lost})")
                     for i in todo if i not in done and i not in reported]
        failures.sort(key=lambda f: f.index)
    if failures:
        raise ChunkError(failures, done)
    return [done[i] for i in range(n_chunks)]


def _failure(seeds, index: int, error: str) -> ChunkFailure:
    s = seeds[index]
    return ChunkFailure(index, int(s.entropy), tuple(s.spawn_key), error)


def _collect_outcomes(results) -> tuple[list, str | None]:
    """Drain an iterator of chunk outcomes; if it raises, keep what it yielded and return the error text.

    The iterator is joblib's result generator: it raises when the backend fails (a worker process
    dies, a Dask worker is killed), not when a task does (tasks are guarded).  Returns
    ``(outcomes so far, None)`` or ``(outcomes so far, "ErrorType: message")``.
    """
    outcomes = []
    try:
        for outcome in results:
            outcomes.append(outcome)
    except Exception as exc:  # the backend failed: what finished is kept, run_chunks lists the rest
        return outcomes, f"{type(exc).__name__}: {exc}"
    return outcomes, None


def _parallel(calls, total, n_jobs, progress, desc, backend=None):
    kwargs = {} if backend is None else {"backend": backend}
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered", batch_size=1, **kwargs)
    return _collect_outcomes(progress_bar(parallel(calls), progress, desc, total=total))


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
