"""Audit clients: what the auditor runs, and the checks on everything a client returns.

* :class:`MechanismClient`: one of our mechanisms (its per-user reference ``perturb``), optionally
  post-processed by ``features``;
* :class:`BlackBoxClient`: any callable ``client(value) -> report`` (another library's client);
* an object with ``sample(value, n, rng=)`` is used as it is.

The auditor never trusts a client: every batch goes through :func:`_sample` (bounded in time, and
exactly n rows of finite numbers), so a broken client is a :class:`ClientError`, never a wrong ε_lb.

References
----------
[arcolezi2024] §4 (auditing black-box LDP clients).
"""

from __future__ import annotations

import threading
from contextlib import nullcontext
from dataclasses import dataclass
from numbers import Real
from typing import Callable

import numpy as np

from ldp_helpers._validation import MAX_N_DRAWS, check_bool, check_instance, check_int, check_rng, fail_type
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
        reports = self.mechanism.perturb(values, rng=rng)
        return as_report_matrix(reports if self.features is None else self.features(reports), n)


@dataclass(frozen=True)
class BlackBoxClient:
    """A callable ``client(value) -> report`` (or ``client(value, rng)`` when ``takes_rng``), run n times.

    With ``seed_globals`` (the default) each batch runs inside :func:`~ldp_helpers.sweeps.seeded_globals`:
    Python's ``random`` and NumPy's legacy global generator are seeded from ``rng`` before the calls and
    restored after, so a client that draws from them gives the same reports on every backend and worker.
    ``reseed(rng)``, if given, is called once per batch before the calls, for any other generator the client
    draws from (numba's, for jitted clients).  A report must be a real number or a 1-D numeric array of the
    same length every time.
    """

    client: Callable
    takes_rng: bool = False
    reseed: Callable | None = None
    seed_globals: bool = True

    def __post_init__(self):
        if not callable(self.client):
            fail_type("client", self.client, "a callable client(value) -> report")
        check_bool("takes_rng", self.takes_rng)
        if self.reseed is not None and not callable(self.reseed):
            fail_type("reseed", self.reseed, "None or a callable reseed(rng)")
        check_bool("seed_globals", self.seed_globals)

    def sample(self, value, n: int, *, rng: np.random.Generator) -> np.ndarray:
        n, rng = check_int("n", n, low=1, high=MAX_N_DRAWS), check_rng(rng)
        with seeded_globals(rng) if self.seed_globals else nullcontext():
            return self._sample(value, n, rng)

    def _sample(self, value, n: int, rng: np.random.Generator) -> np.ndarray:
        if self.reseed is not None:
            self.reseed(rng)
        rows = []
        for trial in range(n):
            try:
                report = self.client(value, rng) if self.takes_rng else self.client(value)
            except Exception as exc:
                raise ClientError(f"the client raised on value={value!r} at trial {trial}: "
                                  f"{type(exc).__name__}: {exc}") from exc
            rows.append(_check_report(report, value, trial, rows[0].size if rows else None))
        return np.vstack(rows)


def _check_report(report, value, trial, width) -> np.ndarray:
    if isinstance(report, (Real, np.bool_)) and not isinstance(report, np.ndarray):
        row = np.array([float(report)])
    elif isinstance(report, (np.ndarray, list, tuple)):
        row = np.asarray(report)
        if row.ndim != 1 or row.dtype.kind not in "biuf":
            fail_type("report", report, f"a real number or a 1-D numeric array (client on value={value!r}, trial {trial})")
        row = row.astype(float)
    else:
        fail_type("report", report, f"a real number or a 1-D numeric array (client on value={value!r}, trial {trial})")
    if width is not None and row.size != width:
        raise ValueError(f"the client's reports changed length: {row.size} at trial {trial} on value={value!r}, "
                         f"{width} before")
    return row


def _within(seconds, call, what: str):
    """``call()``, or a :class:`ClientError` once ``seconds`` pass without an answer (None: no limit).

    The call runs in a daemon thread: a hung black-box client cannot be interrupted, but the audit stops
    waiting for it (and says so) instead of blocking for ever.
    """
    if seconds is None:
        return call()
    outcome = {}

    def run():
        try:
            outcome["value"] = call()
        except BaseException as exc:  # re-raised in the caller's thread
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True, name="audit client call")
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise ClientError(f"{what} gave no answer within call_timeout={seconds:g} s (a hung client?)")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _sample(client, value, n: int, rng, call_timeout) -> np.ndarray:
    """``client.sample(value, n, rng=rng)`` within ``call_timeout`` seconds, checked as n finite numeric reports.

    Whatever a client returns is validated here, so a client that returns one row instead of n (or NaNs,
    or text) can never turn into a silently wrong ε_lb.
    """
    what = f"the client's sample(value={value!r:.60}, n={n})"
    reports = _within(call_timeout, lambda: client.sample(value, n, rng=rng), what)
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
    fail_type("client", client, "a Mechanism, a client with .sample(value, n, rng=), or a callable client(value) -> report")
