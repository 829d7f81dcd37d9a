"""Chunks on a Dask cluster as futures: every chunk ends with a result or a stated failure, never a hang.

Each chunk is one ``client.submit`` (``pure=False``); results are taken as they finish and released at once, so a
worker lost later costs nothing already finished.  A chunk whose worker dies is retried by the scheduler on
another worker; after ``distributed.scheduler.allowed-failures`` deaths (3 by default) its future errs with
``KilledWorker`` and the chunk is reported as failed.  A chunk the workers cannot even unpickle (the package missing
on a worker) errs the same way.  If the cluster has no worker at all for ``timeout`` seconds while chunks wait,
the waiting chunks are cancelled and reported as failed (a cluster whose workers all died without a nanny to
restart them would otherwise wait for ever).  (joblib's own ``dask`` backend hangs when a worker dies: issue 27.)

On the worker, a chunk first gives ``dask.sizeof`` a ``random.Random`` of its own (:func:`_on_worker`): it samples
large collections with the global ``random`` on the worker's event loop, which would otherwise draw between the
draws of a black-box client seeded by :func:`~ldp_helpers.sweeps.seeded_globals`.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Iterator

#: seconds between checks for finished chunks, and between checks that the cluster still has workers
POLL_SECONDS, WORKERS_CHECK_SECONDS = 0.05, 1.0


def _outcomes(
    client, guarded: Callable, task, todo: list[int], seeds, *, timeout: float, chunk_timeout: float
) -> Iterator[tuple]:
    """Yield ``(index, ok, result or error text)`` for every chunk in ``todo`` as it finishes on ``client``.

    ``guarded(task, index, seed)`` runs one chunk and returns that triple itself; a chunk that yields no
    triple (its worker died, it could not be unpickled, the cluster emptied) is yielded as
    ``(index, False, "no result: …")``; so is every chunk still pending once ``chunk_timeout`` seconds pass with
    no chunk finishing (a chunk that sleeps or spins on a live worker), after cancelling them.
    """
    from distributed import as_completed

    token = uuid.uuid4().hex[:12]
    futures = {
        client.submit(
            _on_worker, guarded, task, i, seeds[i], pure=False, key=f"ldp-chunk-{token}-{i}"
        ): i
        for i in todo
    }
    # results travel with the completion (with_results): a worker that dies later cannot take a finished chunk with it
    finished = as_completed(list(futures), loop=client.loop, with_results=True, raise_errors=False)
    pending, empty_since, checked = set(futures), None, time.monotonic()
    progressed = checked  # when a chunk last finished (or the sweep started)
    try:
        while pending:
            done = finished.next_batch(block=False)
            for future, result in done:
                pending.discard(future)
                yield _one_outcome(futures[future], result)
                future.release()
            if done:
                progressed = time.monotonic()
                continue
            time.sleep(POLL_SECONDS)
            now, why = time.monotonic(), None
            if now - progressed >= chunk_timeout:
                why = (
                    f"no chunk finished within chunk_timeout={chunk_timeout:g} s "
                    "(a chunk that hangs on a worker?)"
                )
            elif now - checked >= WORKERS_CHECK_SECONDS:
                # one scheduler round trip per second at most
                checked = now
                empty_since = None if client.nthreads() else (empty_since or now)
                if empty_since is not None and now - empty_since >= timeout:
                    why = (
                        f"the Dask cluster had no worker for {timeout:g} s "
                        f"(scheduler {client.scheduler.address})"
                    )
            if why:  # give up on every pending chunk
                client.cancel(list(pending))
                for future in sorted(pending, key=futures.get):
                    yield futures[future], False, f"no result: {why}"
                pending = set()
    finally:
        if pending:  # interrupted (KeyboardInterrupt, a closed generator): leave nothing running
            client.cancel(list(pending))


def _on_worker(guarded: Callable, task, index: int, seed):
    """``guarded(task, index, seed)`` on a Dask worker, once ``dask.sizeof`` draws from its own generator."""
    import dask.sizeof

    # the module: sizeof's random.sample drew from the global generator
    if dask.sizeof.random is random:
        dask.sizeof.random = random.Random(0)
    return guarded(task, index, seed)


def _one_outcome(index: int, result) -> tuple:
    """The chunk's own triple, or ``(index, False, "no result: …")`` when its task erred (``result`` is the error)."""
    if isinstance(result, tuple) and len(result) == 3 and result[0] == index:
        return result
    if isinstance(result, tuple) and len(result) == 3 and isinstance(result[1], BaseException):
        result = result[1]  # as_completed gives an erred future's (type, exception, traceback)
    if not isinstance(result, BaseException):
        result = RuntimeError(f"unexpected result {result!r:.200}")
    why = f"{type(result).__name__}: {result}"
    return index, False, f"no result: the chunk's Dask task failed ({why})"
