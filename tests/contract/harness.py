"""Calling a public callable under the contract's limits: a time bound, an allocation bound, no warnings.

The generated contract tests run one test per family (a subpackage's spec table, or every mechanism
for one property): each case that breaks the contract becomes a line of the test's failure message
(:func:`refusal_problem`, :func:`assert_no_problems`), so one red test names every failing case.
"""

from __future__ import annotations

import importlib
import re
import signal
import time
import tracemalloc
import warnings
from collections import defaultdict
from contextlib import contextmanager

import numpy as np

from ldp_helpers._validation import format_bytes
from ldp_tools.pipeline import paths

from .specs import RNG

#: a refused call may allocate at most this much (the refusal must come before the allocation)
REFUSAL_BYTES = 64 * 1024**2
#: a call still running after this many seconds is a hang, turned into a failure instead of blocking the suite (a
#: guard, not a timing assertion: how fast a refusal comes back is measured by `make bench`, not here)
HARD_TIMEOUT = 30
#: specs whose calls resolve (and, with write=True, write) figures/<notebook>/…: pointed at a tmp dir
WRITES_FIGURES = {
    "ldp_tools.pipeline.figures.save_figure",
    "ldp_tools.pipeline.claims.ClaimsTable.write_csv",
}


def families(qualnames) -> dict[str, list[str]]:
    """``qualnames`` grouped by subpackage (``ldp_helpers.bounds.chernoff.upper`` → ``bounds``)."""
    grouped = defaultdict(list)
    for qualname in sorted(qualnames):
        grouped[qualname.split(".")[1]].append(qualname)
    return dict(grouped)


@contextmanager
def figures_in(tmp_path, qualname: str):
    """Calls of ``qualname`` resolve figures/ under ``tmp_path`` when it writes figures (else as is)."""
    if qualname not in WRITES_FIGURES:
        yield
        return
    saved, paths.FIGURES_DIR = paths.FIGURES_DIR, tmp_path / "figures"
    try:
        yield
    finally:
        paths.FIGURES_DIR = saved


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


def refusal_problem(func, kwargs: dict, names, shown: str) -> str | None:
    """What is wrong with ``func(**kwargs)``'s refusal (``None``: refused as the contract says).

    The contract: a ``ValueError`` (bad value) or ``TypeError`` (wrong type) whose message names the
    parameter (one of ``names``), within ``HARD_TIMEOUT`` and before allocating ``REFUSAL_BYTES``.
    """
    outcome, _, peak = call_refused(func, kwargs)
    expected = f"expected a ValueError or TypeError naming {' or '.join(names)}"
    if isinstance(outcome, Hang):
        return f"{shown}: {expected}; it hangs ({outcome})"
    if not isinstance(outcome, BaseException):
        return f"{shown}: {expected}; accepted silently, returning {outcome!r:.200}"
    if not isinstance(outcome, (ValueError, TypeError)):
        return f"{shown}: {expected}; got {type(outcome).__name__}: {outcome!s:.300}"
    if not any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", str(outcome)) for name in names):
        return f"{shown}: {expected}; got one blaming another parameter: {outcome!s:.300}"
    if peak >= REFUSAL_BYTES:
        return f"{shown}: {expected} before allocating; it allocated {format_bytes(peak)} first"
    return None


def assert_no_problems(problems: list, n_cases: int, what: str) -> None:
    """Fail naming every problem found among ``n_cases`` cases of ``what``."""
    problems = [p for p in problems if p is not None]
    assert n_cases > 0, f"{what}: no case was checked"
    assert not problems, (
        f"{what}: {len(problems)} of {n_cases} cases break the contract:\n" + "\n".join(problems)
    )
