"""A real Dask cluster: `dask scheduler` and two `dask worker` processes started on loopback by this test (and stopped
by it), reached the ways Dask users reach one; every sweep gives the sequential numbers, and workers that die
without a nanny end the sweep with a ChunkError instead of a hang (issue 31 item 3, issue 27 item 4)."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from sweep_tasks import draw, exit_on_two, global_rr

from ldp_helpers.audit.auditor import BlackBoxClient, run_audit
from ldp_helpers.experiments.privacy_audit import registry_audits
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.sweeps import DASK_ADDRESS_ENV, DASK_SCHEDULER_ENV, ChunkError, run_chunks

REPO = Path(__file__).resolve().parents[2]
DASK = Path(sys.executable).parent / "dask"


def _env() -> dict:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests")])
    )  # ldp_helpers, these tasks
    for name in (DASK_ADDRESS_ENV, DASK_SCHEDULER_ENV):
        env.pop(name, None)
    return env


def _start(folder: Path, workers: int, nanny: bool):
    """A scheduler and ``workers`` single-threaded worker processes on 127.0.0.1; (address, processes, log)."""
    assert DASK.exists(), (
        f"the dask command-line tool is missing ({DASK}): install the 'dask' extra (distributed)"
    )
    log = open(folder / "cluster.log", "w")
    scheduler_file = folder / "scheduler.json"
    processes = [
        subprocess.Popen(
            [
                str(DASK),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(scheduler_file),
            ],
            env=_env(),
            stdout=log,
            stderr=log,
        )
    ]
    deadline = time.monotonic() + 60
    while not scheduler_file.exists() or not scheduler_file.read_text().strip():
        assert processes[0].poll() is None and time.monotonic() < deadline, (
            f"the scheduler did not start: {(folder / 'cluster.log').read_text()[-2000:]}"
        )
        time.sleep(0.2)
    address = json.loads(scheduler_file.read_text())["address"]
    processes += _start_workers(address, folder, workers, nanny, log)
    return address, processes, log


def _start_workers(address: str, folder: Path, workers: int, nanny: bool, log) -> list:
    """``workers`` single-threaded worker processes of the scheduler at ``address``."""
    return [
        subprocess.Popen(
            [
                str(DASK),
                "worker",
                address,
                "--nworkers",
                "1",
                "--nthreads",
                "1",
                "--host",
                "127.0.0.1",
                "--no-dashboard",
                "--local-directory",
                str(folder),
                *([] if nanny else ["--no-nanny"]),
            ],
            env=_env(),
            stdout=log,
            stderr=log,
        )
        for _ in range(workers)
    ]


def _stop(processes, log) -> None:
    """The workers first, then the scheduler (a worker whose scheduler is gone spends ~8 s retrying it)."""
    for group in (processes[1:], processes[:1]):
        for process in group:
            process.terminate()
        for process in group:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    log.close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    from distributed import Client

    folder = tmp_path_factory.mktemp("dask-cluster")
    address, processes, log = _start(folder, 2, nanny=True)
    try:
        with Client(address, timeout=60, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=120)
            assert len(client.nthreads()) == 2
            yield address, client, processes, log, folder
    finally:
        _stop(processes, log)


def test_sweeps_on_a_separate_scheduler_give_the_sequential_numbers(cluster, monkeypatch):
    """dask_address=, dask_client=, LDP_DASK_ADDRESS and DASK_SCHEDULER_ADDRESS reach the two workers; same numbers."""
    address, client, *_ = cluster
    sequential = run_chunks(draw, 10, seed=7)
    assert run_chunks(draw, 10, seed=7, dask_address=address) == sequential
    assert run_chunks(draw, 10, seed=7, dask_client=client) == sequential
    for name in (DASK_ADDRESS_ENV, DASK_SCHEDULER_ENV):
        monkeypatch.setenv(name, address)
        assert run_chunks(draw, 10, seed=7) == sequential
        monkeypatch.delenv(name)
    workers = client.run(os.getpid)
    assert len(set(workers.values())) == 2 and os.getpid() not in workers.values()


def test_audits_on_the_cluster_give_the_sequential_numbers(cluster):
    """Our mechanisms' audits and a black-box client on global generators: identical counts on the cluster."""
    address, client, *_ = cluster
    m = REGISTRY["oue"].example()
    local = run_audit(m, 0, 1, n_trials=20_000, seed=9, chunk_size=2_500)
    remote = run_audit(m, 0, 1, n_trials=20_000, seed=9, chunk_size=2_500, dask_address=address)
    assert (local.count0, local.count1, local.epsilon_lb) == (
        remote.count0,
        remote.count1,
        remote.epsilon_lb,
    )
    kwargs = dict(n_trials=3_000, seed=8, chunk_size=500, n_pilot=500)
    here = run_audit(BlackBoxClient(global_rr), 0, 1, **kwargs)
    there = run_audit(BlackBoxClient(global_rr), 0, 1, **kwargs, dask_client=client)
    assert (here.count0, here.count1) == (there.count0, there.count1)
    a = registry_audits(
        n_trials=2_000, seed=4, confidence=0.9, keys=["grr", "rappor"], chunk_size=500
    )
    b = registry_audits(
        n_trials=2_000,
        seed=4,
        confidence=0.9,
        keys=["grr", "rappor"],
        chunk_size=500,
        dask_address=address,
    )
    assert [(r.result.count0, r.result.count1) for r in a] == [
        (r.result.count0, r.result.count1) for r in b
    ]


def test_workers_without_nanny_that_die_end_the_sweep(cluster):
    """Two workers started with --no-nanny: a chunk that kills its worker is retried on the other, which dies too;
    the cluster is then empty and, after ``timeout`` seconds, the waiting chunks fail with a ChunkError (no hang).
    (The last test of the module: the module's scheduler, its nanny workers stopped first.)"""
    address, client, processes, log, folder = cluster
    nannies = processes[1:]
    for process in nannies:
        process.terminate()
    for process in nannies:
        process.wait(timeout=30)
    deadline = time.monotonic() + 60
    while client.nthreads() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not client.nthreads(), "the nanny workers did not leave the scheduler"
    processes += _start_workers(address, folder, 2, False, log)  # stopped with the module's cluster
    client.wait_for_workers(2, timeout=120)
    start = time.monotonic()
    with pytest.raises(ChunkError) as info:
        run_chunks(exit_on_two, 6, seed=3, dask_client=client, timeout=2.0)
    assert time.monotonic() - start < 90
    err = info.value
    assert 2 in {f.index for f in err.failures} and 2 not in err.completed
    assert all("no worker for 2 s" in f.error or "KilledWorker" in f.error for f in err.failures)
    assert all(
        err.completed[i] == draw(i, s)
        for i, s in zip(range(6), np.random.SeedSequence(3).spawn(6))
        if i in err.completed
    )
