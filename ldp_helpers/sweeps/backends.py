"""Where a sweep runs: the backend chosen from the arguments, then from the standard Dask and joblib settings.

:func:`sweep_plan` decides, first match wins (explicit arguments beat ambient settings):

1. ``backend=`` (for ``"dask"``, the client or address comes from the settings below);
2. ``dask_client=`` (an open :class:`distributed.Client`), then ``dask_address=``;
3. the environment variable :data:`DASK_ADDRESS_ENV` (``LDP_DASK_ADDRESS``, this package's own);
4. ``n_jobs=`` given: local processes (loky), or in-process when one worker is enough;
5. an active ``joblib.parallel_config(backend=...)`` (for ``"dask"``: its client), with its ``n_jobs``;
6. an active :class:`distributed.Client` (the default client of this process);
7. ``DASK_SCHEDULER_ADDRESS`` or the dask config's ``scheduler-address`` (the addresses ``distributed.Client()``
   itself honours);
8. otherwise in-process, one chunk after the other.

Local workers are capped by the work and the machine: never more than the chunks still to run nor than
``joblib.cpu_count()`` (which honours cgroup and affinity limits); one worker runs in-process, starting nothing.
A Dask cluster brings its own workers.  Nothing here imports dask or distributed unless a Dask setting is in
play (the science loads neither).

References
----------
joblib ``parallel_config``; dask.distributed ``Client`` and its ``scheduler-address`` configuration.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import joblib

from ldp_helpers._validation import check_choice, check_int, check_real, fail, fail_type

#: environment variable holding a Dask scheduler address (``tcp://host:8786``) for every sweep of this package
DASK_ADDRESS_ENV = "LDP_DASK_ADDRESS"
#: Dask's own environment variable for the scheduler address (``distributed.Client()`` reads it through dask's config)
DASK_SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"
BACKENDS = ("sequential", "loky", "threading", "dask")
_ADDRESS = re.compile(r"^([a-z][a-z0-9+.-]*://\S+|[^\s/:]+:\d+)$")


def check_dask_address(address, name: str = "dask_address") -> str:
    """A Dask scheduler address: ``'tcp://host:port'`` (any scheme) or ``'host:port'``."""
    if not isinstance(address, str):
        fail_type(name, address, "a scheduler address string such as 'tcp://127.0.0.1:8786'")
    if not _ADDRESS.match(address):
        fail(name, address, "a scheduler address such as 'tcp://127.0.0.1:8786' or 'host:8786'")
    return address


def check_dask_client(client, name: str = "client"):
    """An open :class:`distributed.Client` (anything with ``submit``, ``gather`` and ``cancel``)."""
    if not all(hasattr(client, attr) for attr in ("submit", "cancel", "nthreads")):
        fail_type(name, client, "a distributed.Client")
    return client


def check_n_jobs(n_jobs, name: str = "n_jobs") -> int:
    """A joblib worker count: a non-zero integer (``-1`` = all cores, ``-2`` = all but one, …)."""
    if check_int(name, n_jobs) == 0:
        fail(name, n_jobs, "a non-zero integer (joblib: -1 = all cores)")
    return n_jobs


def check_where(n_jobs=None, dask_address=None, dask_client=None) -> None:
    """Where a sweep may run, each given setting checked (None: not given): ``n_jobs``, ``dask_address``, ``dask_client``."""
    if n_jobs is not None:
        check_n_jobs(n_jobs)
    if dask_address is not None:
        check_dask_address(dask_address)
    if dask_client is not None:
        check_dask_client(dask_client, "dask_client")


@dataclass(frozen=True)
class SweepPlan:
    """Where a sweep's chunks run: the backend, the local workers it starts, and which setting chose it."""

    backend: str  # one of BACKENDS
    n_workers: int | None  # local workers (processes or threads); None on Dask (the cluster's own)
    source: str  # the argument or setting that chose the backend, for messages and documentation
    address: str | None = None  # the scheduler to connect to (Dask, when no client is open)
    # an open distributed.Client (Dask)
    client: object = field(default=None, repr=False, compare=False)


def local_workers(n_jobs: int, n_chunks: int) -> int:
    """Workers to start for ``n_jobs`` (joblib's convention) and ``n_chunks`` chunks: at most the chunks and the cores."""
    n_jobs, n_chunks = check_n_jobs(n_jobs), check_int("n_chunks", n_chunks, low=0)
    cores = max(1, joblib.cpu_count())
    wanted = n_jobs if n_jobs > 0 else max(1, cores + 1 + n_jobs)
    return max(1, min(wanted, n_chunks, cores))


def sweep_plan(
    n_chunks: int,
    *,
    backend: str | None = None,
    n_jobs: int | None = None,
    dask_address: str | None = None,
    dask_client=None,
) -> SweepPlan:
    """The :class:`SweepPlan` of a sweep of ``n_chunks`` chunks (see the module docstring for the order).

    Connects to nothing: a Dask plan carries an open client (given, joblib's, or the default one) or an address.
    """
    n_chunks = check_int("n_chunks", n_chunks, low=0)
    if backend is not None:
        check_choice("backend", backend, BACKENDS)
    check_where(n_jobs, dask_address, dask_client)
    if backend == "dask" or (
        backend is None
        and (dask_client is not None or dask_address or os.environ.get(DASK_ADDRESS_ENV))
    ):
        return _dask_plan(dask_client, dask_address)
    if backend is not None:
        return _local_plan(backend, n_jobs or -1, n_chunks, "backend= argument")
    if n_jobs is not None:
        return _local_plan("loky", n_jobs, n_chunks, "n_jobs= argument")
    configured = _joblib_config()
    if configured is not None:
        name, configured_jobs, client = configured
        if name == "dask":
            return SweepPlan("dask", None, "joblib.parallel_config(backend='dask')", client=client)
        return _local_plan(
            name, configured_jobs, n_chunks, f"joblib.parallel_config(backend={name!r})"
        )
    return _ambient_dask() or SweepPlan("sequential", 1, "default (no parallel setting)")


def _local_plan(backend: str, n_jobs: int, n_chunks: int, source: str) -> SweepPlan:
    workers = 1 if backend == "sequential" else local_workers(n_jobs, n_chunks)
    return SweepPlan("sequential" if workers == 1 else backend, workers, source)


def _dask_plan(client, address) -> SweepPlan:
    """The Dask plan of the settings: the arguments first, then the ambient ones; an error if there is none."""
    if client is not None:
        return SweepPlan("dask", None, "dask_client= argument", client=client)
    if address:
        return SweepPlan("dask", None, "dask_address= argument", address=address)
    if os.environ.get(DASK_ADDRESS_ENV):
        return _address_plan(DASK_ADDRESS_ENV, os.environ[DASK_ADDRESS_ENV])
    configured = _joblib_config()
    if configured is not None and configured[0] == "dask":
        return SweepPlan(
            "dask", None, "joblib.parallel_config(backend='dask')", client=configured[2]
        )
    ambient = _ambient_dask()
    if ambient is None:
        raise ValueError(
            f"backend='dask' needs a scheduler: dask_address= or dask_client=, {DASK_ADDRESS_ENV} or "
            f"{DASK_SCHEDULER_ENV}, joblib.parallel_config(backend='dask') or an active distributed.Client"
        )
    return ambient


def _address_plan(source: str, address: str) -> SweepPlan:
    return SweepPlan("dask", None, source, address=check_dask_address(address, source))


def _joblib_config():
    """``(backend name, n_jobs, dask client or None)`` of an active ``joblib.parallel_config(backend=…)``, else None.

    joblib keeps the context's settings in a thread-local (``joblib.parallel._backend.config``) whose unset
    entries are sentinels; only a context that names a backend counts.
    """
    from joblib import parallel

    config = getattr(parallel._backend, "config", None)
    if config is None or config["backend"] is parallel.default_parallel_config["backend"]:
        return None
    backend = config["backend"]
    n_jobs = config["n_jobs"]
    if n_jobs is parallel.default_parallel_config["n_jobs"] or n_jobs is None:
        n_jobs = -1
    if type(backend).__name__ == "DaskDistributedBackend":
        return "dask", n_jobs, backend.client
    name = {
        "LokyBackend": "loky",
        "ThreadingBackend": "threading",
        "SequentialBackend": "sequential",
        "MultiprocessingBackend": "loky",
    }.get(type(backend).__name__, "loky")
    return name, n_jobs, None


def _ambient_dask() -> SweepPlan | None:
    """An active default :class:`distributed.Client`, else the address of ``DASK_SCHEDULER_ADDRESS`` / dask's config."""
    if "distributed" in sys.modules:
        from distributed import default_client

        try:
            client = default_client()
        except ValueError:  # no client has been started in this process
            client = None
        if client is not None and client.status == "running":
            return SweepPlan("dask", None, "the active distributed.Client", client=client)
    if os.environ.get(DASK_SCHEDULER_ENV):
        return _address_plan(DASK_SCHEDULER_ENV, os.environ[DASK_SCHEDULER_ENV])
    if "dask" in sys.modules or _dask_config_files():
        try:
            import dask.config
        except ImportError:
            return None
        address = dask.config.get("scheduler-address", None)
        if address:
            return _address_plan("dask config 'scheduler-address'", address)
    return None


def _dask_config_files() -> bool:
    """Whether dask would find a YAML config file (``$DASK_CONFIG``, ``~/.config/dask``, ``/etc/dask``)."""
    folders = [
        os.environ.get("DASK_CONFIG"),
        Path.home() / ".config" / "dask",
        "/etc/dask",
        Path(sys.prefix) / "etc" / "dask",
    ]
    return any(
        folder and Path(folder).exists() and any(Path(folder).glob("*.y*ml")) for folder in folders
    )


def connect_dask(address: str, *, timeout: float = 10.0):
    """A :class:`distributed.Client` on the scheduler at ``address``; a clear ``ConnectionError`` if unreachable."""
    check_dask_address(address)
    timeout = check_real("timeout", timeout, low=0.0)
    from distributed import Client

    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ConnectionError(
            f"cannot reach the Dask scheduler at dask_address={address!r} within "
            f"{timeout:g} s ({type(exc).__name__}: {exc}); start one (dask scheduler) or unset "
            f"{DASK_ADDRESS_ENV} / {DASK_SCHEDULER_ENV}"
        ) from exc
