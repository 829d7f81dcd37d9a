"""Audit clients: what the auditor runs, and the checks on everything a client returns.

* :class:`MechanismClient`: one of our mechanisms (its per-user reference ``perturb``), optionally
  post-processed by ``features``;
* :class:`BlackBoxClient`: any callable ``client(value) -> report`` (another library's client);
* an object with ``sample(value, n, rng=)`` is used as it is.

The auditor never trusts a client: every batch goes through :func:`_sample` (bounded in time, and
exactly n rows of finite numbers), so a broken client is a :class:`ClientError`, never a wrong ε_lb.
A client other than our own mechanisms runs each batch in a forked child process (:func:`_in_child`) that is
killed after ``call_timeout`` seconds: a hung client leaves nothing behind — no thread still running, no
global-generator lock held, no ``np.random`` left seeded — and the caller's Generator advances exactly as if
the batch had run in-process (its state comes back with the reports).

References
----------
[arcolezi2024] §4 (auditing black-box LDP clients).
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from numbers import Real

import numpy as np

from ldp_helpers._validation import (
    MAX_N_DRAWS,
    check_bool,
    check_callable,
    check_instance,
    check_int,
    check_real,
    check_rng,
    fail_type,
)
from ldp_helpers.audit.events import as_report_matrix
from ldp_helpers.mechanisms.base import Mechanism
from ldp_helpers.sweeps.global_rngs import seeded_globals


class ClientError(RuntimeError, ValueError):
    """A black-box client failed: it raised, hung past ``call_timeout`` or returned unusable reports.

    Also a ``ValueError`` (the client is a bad argument of the audit), so ``except ValueError`` catches it.
    """


@dataclass(frozen=True)
class MechanismClient:
    """One of our mechanisms as an audit client: its per-user reference ``perturb`` on n copies of a value.

    ``features(reports) -> matrix``, if given, post-processes the reports before the event is applied
    (e.g. local hashing's "which values does this report support"); post-processing cannot increase
    the privacy loss, so ε_lb stays a valid lower bound.
    """

    mechanism: Mechanism
    features: Callable | None = None

    def __post_init__(self):
        check_instance("mechanism", self.mechanism, Mechanism)
        if self.features is not None and not callable(self.features):
            fail_type("features", self.features, "None or a callable features(reports) -> matrix")

    def sample(self, value, n: int, *, rng: np.random.Generator) -> np.ndarray:
        n, rng = check_int("n", n, low=1, high=MAX_N_DRAWS), check_rng(rng)
        row = np.asarray(value)
        values = np.repeat(row[None], n, axis=0) if row.ndim else np.full(n, row)
        try:
            reports = self.mechanism.perturb(values, rng=rng)
        except (ValueError, TypeError) as err:  # the mechanism's check of n copies of value
            raise type(err)(f"value (one input, repeated n times): {err}") from err
        return as_report_matrix(reports if self.features is None else self.features(reports), n)


@dataclass(frozen=True)
class BlackBoxClient:
    """A callable ``client(value) -> report`` (or ``client(value, rng)`` when ``takes_rng``), run n times.

    With ``seed_globals`` (the default) each batch runs inside :func:`~ldp_helpers.sweeps.seeded_globals`:
    Python's ``random`` and NumPy's legacy global generator are seeded from ``rng`` before the calls and
    restored after, so a client that draws from them gives the same reports on every backend and worker.
    ``reseed(rng)``, if given, is called once per batch before the calls, for any other generator the client
    draws from (numba's, for jitted clients).  A report must be a real number or a 1-D numeric array of the
    same length every time.  ``features(reports) -> matrix``, if given, post-processes the whole batch of n
    reports at once (as :class:`MechanismClient`'s does), so that our post-processing costs numpy's time, not a
    Python call per report: the client itself still runs once per report, at its own speed.
    ``prepare()``, if given, runs once in each process before the first batch it forks (:func:`_sample`): the
    client's imports and JIT compilation, which every batch's child then inherits instead of redoing them.  It
    runs in the audit's own process, outside the children's timeout and crash isolation, so it must be our own
    code (it may call a known client once under seeded globals, as the peers' wrappers do, but not an untrusted
    one: a hang or a crash there ends the audit).  It must be hashable (it is run once per process).
    """

    client: Callable
    takes_rng: bool = False
    reseed: Callable | None = None
    seed_globals: bool = True
    features: Callable | None = None
    prepare: Callable | None = None

    def __post_init__(self):
        check_callable("client", self.client, "a callable client(value) -> report")
        check_bool("takes_rng", self.takes_rng)
        if self.reseed is not None and not callable(self.reseed):
            fail_type("reseed", self.reseed, "None or a callable reseed(rng)")
        check_bool("seed_globals", self.seed_globals)
        if self.features is not None and not callable(self.features):
            fail_type("features", self.features, "None or a callable features(reports) -> matrix")
        if self.prepare is not None and (
            not callable(self.prepare) or getattr(type(self.prepare), "__hash__", None) is None
        ):
            fail_type("prepare", self.prepare, "None or a hashable callable prepare()")

    def sample(self, value, n: int, *, rng: np.random.Generator) -> np.ndarray:
        n, rng = check_int("n", n, low=1, high=MAX_N_DRAWS), check_rng(rng)
        rows = []
        with seeded_globals(rng) if self.seed_globals else nullcontext():
            if self.reseed is not None:
                self.reseed(rng)
            for trial in range(n):
                try:
                    report = self.client(value, rng) if self.takes_rng else self.client(value)
                except Exception as exc:
                    raise ClientError(
                        f"the client raised on value={value!r} at trial {trial}: "
                        f"{type(exc).__name__}: {exc}"
                    ) from exc
                rows.append(_check_report(report, value, trial, rows[0].size if rows else None))
        reports = np.vstack(rows)
        return reports if self.features is None else as_report_matrix(self.features(reports), n)


def _check_report(report, value, trial, width) -> np.ndarray:
    if isinstance(report, (Real, np.bool_)) and not isinstance(report, np.ndarray):
        row = np.array([float(report)])
    else:
        row = np.asarray(report) if isinstance(report, (np.ndarray, list, tuple)) else None
        if row is None or row.ndim != 1 or row.dtype.kind not in "biuf":
            fail_type(
                "report",
                report,
                f"a real number or a 1-D numeric array (client on value={value!r}, trial {trial})",
            )
        row = row.astype(float)
    if width is not None and row.size != width:
        raise ValueError(
            f"the client's reports changed length: {row.size} at trial {trial} on value={value!r}, "
            f"{width} before"
        )
    return row


def _in_child(seconds: float, call, rng: np.random.Generator, what: str):
    """``call()`` run in a forked child process, its result (and ``rng``'s new state) sent back through a pipe;
    the child is killed once ``seconds`` pass without the whole answer (a :class:`ClientError`).

    Whatever the client does to the process — seed or draw from ``np.random``, hold a lock, start threads, hang —
    ends with the child.  The child exits with ``os._exit``: no handler or buffer of the parent runs twice.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer, then exit without returning into the parent's code
        try:
            os.close(read_end)
            try:
                payload = ("value", call(), rng.bit_generator.state)
            except Exception as exc:  # noqa: BLE001 - re-raised in the parent
                payload = ("error", exc, None)
            except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt: the client's failure
                payload = ("error", ClientError(f"{what} raised {type(exc).__name__}: {exc}"), None)
            try:  # an exception whose __init__ takes other arguments pickles but does not load
                data = pickle.dumps(payload)
                pickle.loads(data)
            except Exception:  # an exception (or result) that does not travel: its text
                failure = ClientError(f"{what}: {type(payload[1]).__name__}: {payload[1]}")
                data = pickle.dumps(("error", failure, None))
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(data)
        finally:
            os._exit(0)
    os.close(write_end)
    chunks, deadline, finished = [], time.monotonic() + seconds, False
    try:
        while not finished:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([read_end], [], [], remaining)[0]:
                raise ClientError(
                    f"{what} gave no answer within call_timeout={seconds:g} s (a hung client?); "
                    "its process was killed"
                )
            chunks.append(os.read(read_end, 1 << 20))
            finished = not chunks[-1]
    finally:  # a timeout, or the caller interrupted: the child goes, whatever it was doing
        os.close(read_end)
        if not finished:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if not any(chunks):
        raise ClientError(
            f"{what} ended its process without an answer (exit status {os.waitstatus_to_exitcode(status)})"
        )
    kind, result, state = pickle.loads(b"".join(chunks))
    if kind == "error":
        raise result
    rng.bit_generator.state = state
    return result


def check_call_timeout(call_timeout) -> float:
    """Seconds a client's batch may take: a real number > 0 (None is refused: a hung client would block for ever)."""
    if call_timeout is None:
        fail_type(
            "call_timeout",
            call_timeout,
            "a number of seconds > 0 (a hung client is killed after it; None would wait for ever)",
        )
    return check_real("call_timeout", call_timeout, low=0.0)


#: the ``prepare`` callables of :class:`BlackBoxClient` already run in this process (a cache of imports, not of draws)
_PREPARED: set = set()


def _sample(client, value, n: int, rng, call_timeout: float) -> np.ndarray:
    """``client.sample(value, n, rng=rng)`` within ``call_timeout`` seconds, checked as n finite numeric reports.

    Our own mechanisms (:class:`MechanismClient`) run in-process; any other client in a forked child killed after
    ``call_timeout`` (:func:`_in_child`).  Whatever a client returns is validated here, so a client that returns one
    row instead of n (or NaNs, or text) can never turn into a silently wrong ε_lb.
    """
    what = f"the client's sample(value={value!r:.60}, n={n})"
    if isinstance(client, MechanismClient):
        reports = client.sample(value, n, rng=rng)
    else:
        prepare = client.prepare if isinstance(client, BlackBoxClient) else None
        if prepare is not None and prepare not in _PREPARED:  # once here; the children inherit it
            prepare()
            _PREPARED.add(prepare)
        reports = _in_child(call_timeout, lambda: client.sample(value, n, rng=rng), rng, what)
    try:
        return as_report_matrix(reports, n)
    except (TypeError, ValueError) as err:
        raise ClientError(f"{what} returned unusable reports: {err}") from None


def as_client(client):
    """A :class:`Mechanism` → :class:`MechanismClient`; a client object with ``sample`` as is; a callable → :class:`BlackBoxClient`."""
    if isinstance(client, Mechanism):
        return MechanismClient(client)
    if hasattr(client, "sample"):
        return client
    if callable(client):
        return BlackBoxClient(client)
    fail_type(
        "client",
        client,
        "a Mechanism, a client with .sample(value, n, rng=), or a callable client(value) -> report",
    )
