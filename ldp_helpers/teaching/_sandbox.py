"""A student's code run with a time and a memory limit, in a child process that leaves no trace.

The checkers of :mod:`ldp_helpers.teaching.checks` hand the student's function to :func:`run_limited`
wrapped in a small job (call it, check the shape of what it returned, keep only compact numbers).
On systems with ``fork`` (Linux, macOS) the job runs in a forked child: its address space may grow by
at most ``MEMORY_LIMIT`` bytes (``RLIMIT_AS``), it is killed after ``time_limit`` seconds, and whatever
it does to global state (``np.random.seed``, a module variable, a thread) dies with it.  Without
``fork`` the job runs in this process, without the two limits.
"""

from __future__ import annotations

import multiprocessing
import os
from dataclasses import dataclass

from ldp_helpers._validation import format_bytes

MEMORY_LIMIT = 2**31  # bytes the student's code may add to the process's address space


@dataclass(frozen=True)
class Failed:
    """The student's code raised, ran out of time or memory, or died: ``message`` says which, in words."""

    message: str


def run_limited(job, *, time_limit: float, what: str):
    """``job()``'s return value, or :class:`Failed` if it raised or broke a limit.

    Parameters
    ----------
    job : callable
        A function of no arguments that calls the student's code and returns a small, picklable result.
    time_limit : float
        Seconds the job may take (wall clock).
    what : str
        The student's code in words, for the messages (e.g. ``"your client"``).
    """
    if "fork" not in multiprocessing.get_all_start_methods():
        return _attempt(job, what)
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(job, what, send), daemon=True)
    child.start()
    send.close()
    try:
        if not receive.poll(time_limit):
            return Failed(
                f"{what} did not finish within the time limit of {time_limit:g} s (an endless "
                f"loop? a Python loop over users where one numpy call would do?)"
            )
        return receive.recv()
    except EOFError:
        child.join()
        return Failed(f"{what} stopped the Python process it ran in (exit code {child.exitcode})")
    finally:
        child.kill()
        child.join()
        receive.close()


def _child(job, what: str, send) -> None:
    _limit_memory()
    send.send(_attempt(job, what))
    send.close()


def _limit_memory() -> None:
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as fh:
            in_use = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):
        return  # no /proc: the time limit still holds
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = in_use + MEMORY_LIMIT
    resource.setrlimit(
        resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard)
    )


def _attempt(job, what: str):
    try:
        return job()
    except MemoryError:
        return Failed(
            f"{what} needed more than the memory limit of {format_bytes(MEMORY_LIMIT)} (an array "
            f"of one row per user and one column per value, or per user pair?)"
        )
    except Exception as err:  # the student's code: its error becomes a sentence
        return Failed(f"{what} raised {type(err).__name__}: {err}")
