"""Calling a public callable under the contract's limits: a time bound, an allocation bound, no warnings."""

from __future__ import annotations

import importlib
import signal
import time
import tracemalloc
import warnings
from contextlib import contextmanager

import numpy as np

from .specs import RNG

#: a refused call may allocate at most this much (the refusal must come before the allocation)
REFUSAL_BYTES = 64 * 1024**2
#: a call still running after this many seconds is a hang, turned into a failure instead of blocking the suite (a
#: guard, not a timing assertion: how fast a refusal comes back is measured by `make bench`, not here)
HARD_TIMEOUT = 30


def resolve(qualname: str):
    """The object named ``ldp_helpers.module.name`` or ``ldp_helpers.module.Class.method``."""
    parts = qualname.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise LookupError(qualname)


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: int):
    def _raise(signum, frame):
        raise Hang(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, _raise)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def materialize(kwargs: dict, seed: int) -> dict:
    """Replace the RNG placeholder with a fresh Generator from ``seed``."""
    return {k: (np.random.default_rng(seed) if v is RNG else v) for k, v in kwargs.items()}


def call_refused(func, kwargs: dict):
    """Call ``func(**kwargs)`` expecting a refusal; return (exception or result, seconds, peak bytes)."""
    tracemalloc.start()
    start = time.perf_counter()
    outcome = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with time_limit(HARD_TIMEOUT):
                outcome = func(**kwargs)
    except Hang as exc:
        outcome = exc
    except BaseException as exc:  # noqa: BLE001 - the property inspects whatever came out
        outcome = exc
    finally:
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return outcome, seconds, peak
