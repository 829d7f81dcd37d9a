"""Where sweeps run: the standard joblib and Dask settings honoured, each giving the sequential numbers; local workers
capped by the work and the machine; a dying Dask worker ends the sweep with a ChunkError; black-box clients that draw
from Python's ``random`` or NumPy's global generator give the same numbers on every backend (issue 31 item 3,
issue 27 item 4)."""

import random
import time

import joblib
import numpy as np
import pytest
from sweep_tasks import (
    DyingClient,
    ExitOn,
    draw,
    global_rr,
    sizeof_draws_from_the_global_random,
)

from ldp_helpers.audit.auditor import BlackBoxClient, run_audit
from ldp_helpers.experiments.privacy_audit import (
    epsilon_lb_curve,
    longitudinal_curves,
    registry_audits,
)
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.sweeps import (
    DASK_ADDRESS_ENV,
    DASK_SCHEDULER_ENV,
    ChunkError,
    local_workers,
    run_chunks,
    seeded_globals,
    sweep_plan,
)


@pytest.fixture(scope="module")
def cluster():
    """Two single-threaded worker processes; a task may kill 2 workers (not Dask's default 4) before it fails."""
    import dask
    from distributed import Client, LocalCluster

    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        lc = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    with lc, Client(lc, set_as_default=False) as client:
        yield lc, client


@pytest.fixture(autouse=True)
def no_ambient_dask(monkeypatch):
    for name in (DASK_ADDRESS_ENV, DASK_SCHEDULER_ENV):
        monkeypatch.delenv(name, raising=False)


def test_local_workers_are_capped_by_the_work_and_the_cores():
    """n_jobs=1000 starts at most one worker per chunk and per core; one worker runs in-process (nothing started)."""
    cores = joblib.cpu_count()
    assert (
        local_workers(1000, 3) == min(3, cores)
        and local_workers(-1, 50) == cores
        and local_workers(4, 1) == 1
    )
    assert sweep_plan(1, n_jobs=1000).backend == "sequential"
    plan = sweep_plan(100, n_jobs=1000)
    assert plan.n_workers == cores and plan.backend == ("loky" if cores > 1 else "sequential")
    assert sweep_plan(5).backend == "sequential" and sweep_plan(5).source.startswith("default")


def test_run_audit_with_a_thousand_jobs_starts_no_more_workers_than_chunks():
    """run_audit(n_jobs=1000) on two chunks: the same numbers as in-process, on a loky pool of at most two workers."""
    from joblib.externals.loky import reusable_executor

    m = REGISTRY["grr"].example()
    local = run_audit(m, 0, 1, n_trials=4_000, seed=3, chunk_size=2_000)
    wide = run_audit(m, 0, 1, n_trials=4_000, seed=3, chunk_size=2_000, n_jobs=1000)
    assert (local.count0, local.count1) == (wide.count0, wide.count1)
    executor = reusable_executor._executor
    assert executor is None or executor._max_workers <= 2


def test_the_environment_and_dask_config_choose_dask(monkeypatch):
    """LDP_DASK_ADDRESS, DASK_SCHEDULER_ADDRESS and dask's 'scheduler-address' give a Dask plan; n_jobs= beats them."""
    import dask

    monkeypatch.setenv(DASK_SCHEDULER_ENV, "tcp://127.0.0.1:8786")
    plan = sweep_plan(4)
    assert (plan.backend, plan.address, plan.source) == (
        "dask",
        "tcp://127.0.0.1:8786",
        DASK_SCHEDULER_ENV,
    )
    assert sweep_plan(4, n_jobs=2).backend in ("loky", "sequential")
    monkeypatch.setenv(DASK_ADDRESS_ENV, "tcp://127.0.0.1:9999")
    assert (
        sweep_plan(4).address == "tcp://127.0.0.1:9999" and sweep_plan(4).source == DASK_ADDRESS_ENV
    )
    monkeypatch.delenv(DASK_ADDRESS_ENV)
    monkeypatch.delenv(DASK_SCHEDULER_ENV)
    with dask.config.set({"scheduler-address": "tcp://127.0.0.1:8788"}):
        plan = sweep_plan(4)
    assert (plan.backend, plan.address) == (
        "dask",
        "tcp://127.0.0.1:8788",
    ) and "dask config" in plan.source
    with pytest.raises(ValueError, match="DASK_SCHEDULER_ADDRESS"):
        sweep_plan(4, backend="dask")


def test_joblib_parallel_config_is_honoured():
    """Inside joblib.parallel_config(backend=...) a sweep runs on that backend with its n_jobs (capped)."""
    with joblib.parallel_config(backend="threading", n_jobs=2):
        plan = sweep_plan(6)
        assert plan.backend in ("threading", "sequential") and plan.source.startswith(
            "joblib.parallel_config"
        )
        assert run_chunks(draw, 6, seed=5) == run_chunks(draw, 6, seed=5, backend="sequential")


def test_standard_dask_mechanisms_give_the_sequential_numbers(cluster, monkeypatch):
    """joblib.parallel_config(backend="dask"), an active distributed.Client, DASK_SCHEDULER_ADDRESS, the dask config,
    dask_client= and dask_address=: each runs the chunks on the cluster and gives the in-process numbers."""
    import dask
    from distributed import Client

    lc, client = cluster
    sequential = run_chunks(draw, 8, seed=42)
    with joblib.parallel_config(backend="dask", client=client):
        assert sweep_plan(8).client is client
        assert run_chunks(draw, 8, seed=42) == sequential
    with Client(lc.scheduler_address, timeout=30) as default:  # set_as_default: the active client
        plan = sweep_plan(8)
        assert plan.client is default and plan.source == "the active distributed.Client"
        assert run_chunks(draw, 8, seed=42) == sequential
    monkeypatch.setenv(DASK_SCHEDULER_ENV, lc.scheduler_address)
    assert run_chunks(draw, 8, seed=42) == sequential
    monkeypatch.delenv(DASK_SCHEDULER_ENV)
    with dask.config.set({"scheduler-address": lc.scheduler_address}):
        assert run_chunks(draw, 8, seed=42) == sequential
    assert run_chunks(draw, 8, seed=42, dask_client=client) == sequential
    assert run_chunks(draw, 8, seed=42, dask_address=lc.scheduler_address) == sequential
    m = REGISTRY["oue"].example()
    local = run_audit(m, 0, 1, n_trials=40_000, seed=9, chunk_size=5_000)
    on_dask = run_audit(m, 0, 1, n_trials=40_000, seed=9, chunk_size=5_000, dask_client=client)
    assert (local.count0, local.count1, local.epsilon_lb) == (
        on_dask.count0,
        on_dask.count1,
        on_dask.epsilon_lb,
    )


def test_drivers_take_dask_client(cluster):
    """registry_audits, epsilon_lb_curve and longitudinal_curves accept dask_client= (the README offers it) and give
    the in-process numbers; their chunk_size splits each audit (a cluster shares the chunks)."""
    _, client = cluster
    kwargs = dict(n_trials=3_000, seed=4, confidence=0.9, keys=["olh", "glance"], chunk_size=1_000)
    here, there = registry_audits(**kwargs), registry_audits(**kwargs, dask_client=client)
    assert [(r.result.count0, r.result.count1) for r in here] == [
        (r.result.count0, r.result.count1) for r in there
    ]
    a = epsilon_lb_curve("grr", [500, 2_000], seed=1, confidence=0.9, chunk_size=500)
    b = epsilon_lb_curve(
        "grr", [500, 2_000], seed=1, confidence=0.9, chunk_size=500, dask_client=client
    )
    assert np.array_equal(a["epsilon_lb"], b["epsilon_lb"])
    setting = dict(
        epsilon=1.0,
        rappor_f=0.5,
        rappor_p=0.25,
        rappor_q=0.75,
        stream_epsilon=1.0,
        m=2,
        n_draws=200,
        seed=2,
        table_max_k=2,
    )
    local = longitudinal_curves([1, 2, 4], **setting)
    remote = longitudinal_curves([1, 2, 4], **setting, dask_client=client)
    assert all(np.array_equal(x.success, y.success) for x, y in zip(local, remote))


def test_black_box_clients_on_global_generators_are_reproducible_everywhere(cluster):
    """A client drawing from random and np.random: the same audit in-process, on loky, on threads and on Dask; an
    in-process audit leaves the caller's global generators as they were."""
    _, client = cluster
    kwargs = dict(n_trials=4_000, seed=8, chunk_size=1_000, n_pilot=500)
    random.seed(123)
    np.random.seed(123)
    before = (random.random(), np.random.random())
    random.seed(123)
    np.random.seed(123)
    runs = [run_audit(BlackBoxClient(global_rr), 0, 1, **kwargs)]
    assert (random.random(), np.random.random()) == before
    runs += [
        run_audit(BlackBoxClient(global_rr), 0, 1, **kwargs, **where)
        for where in (
            {"n_jobs": 2},
            {"backend": "threading", "n_jobs": 2},
            {"dask_client": client},
            {"dask_client": client},
        )
    ]
    assert len({(r.count0, r.count1, r.epsilon_lb) for r in runs}) == 1
    unseeded = []
    for caller_seed in (
        1,
        2,
    ):  # unseeded, the batches (forked children) draw from whatever state the caller left
        np.random.seed(caller_seed)
        unseeded.append(run_audit(BlackBoxClient(global_rr, seed_globals=False), 0, 1, **kwargs))
    assert (
        unseeded[0].count0 != unseeded[1].count0 or unseeded[0].count1 != unseeded[1].count1
    )  # what it fixes


def test_dask_sizeof_keeps_off_the_global_random(cluster):
    """On the workers that run our chunks, dask.sizeof samples collections with a generator of its own: with the
    global one, the worker's event loop drew between a black-box client's seeded draws (run to run differences)."""
    from ldp_helpers.sweeps import _guarded
    from ldp_helpers.sweeps.dask_futures import _on_worker

    _, client = cluster
    assert client.submit(sizeof_draws_from_the_global_random, 0, None, pure=False).result() in (
        True,
        False,
    )
    assert client.submit(
        _on_worker, _guarded, sizeof_draws_from_the_global_random, 0, None, pure=False
    ).result() == (0, True, False)


def test_seeded_globals_is_a_fixed_function_of_the_generator():
    with seeded_globals(np.random.default_rng(5)):
        first = (random.random(), np.random.random())
    with seeded_globals(np.random.default_rng(5)):
        assert (random.random(), np.random.random()) == first


def test_a_dying_audit_worker_ends_run_audit_with_a_chunk_error(cluster):
    """run_audit on Dask with a client that kills its process: ChunkError naming the chunk, not a hang (issue 27
    item 4).  A black-box batch runs in a forked child (issue 39 item 2), so the client kills that child, not the
    worker: the chunk fails with the ClientError saying so (exit status 3); were the worker itself lost, the failure
    would be KilledWorker or the cluster's having no worker for ``timeout`` seconds.  (Run before the test that
    kills workers: both workers are live, none restarting.)"""
    _, client = cluster
    with pytest.raises(ChunkError, match=r"chunk 3 ") as info:
        run_audit(
            DyingClient(),
            0,
            1,
            n_trials=350,
            seed=2,
            chunk_size=100,
            n_pilot=60,
            dask_client=client,
        )
    assert 3 in {f.index for f in info.value.failures}
    assert all(
        "ended its process without an answer (exit status 3)" in f.error
        or "KilledWorker" in f.error
        or "had no worker for" in f.error
        for f in info.value.failures
    ), [f.error for f in info.value.failures]


def test_a_dying_dask_worker_ends_the_sweep_with_a_chunk_error(cluster):
    """A task that kills its worker (os._exit): the scheduler retries it on a restarted worker, then the sweep raises
    ChunkError naming the chunk (KilledWorker) and keeping the finished chunks; a resume computes only the others.
    (A chunk that was running on a worker when it died counts a failure too, so it may be listed with it.)"""
    _, client = cluster
    start = time.monotonic()
    with pytest.raises(ChunkError) as info:
        run_chunks(ExitOn({3}), 6, seed=1, dask_client=client)
    assert time.monotonic() - start < 120
    err = info.value
    assert 3 in {f.index for f in err.failures} and all(
        "KilledWorker" in f.error for f in err.failures
    )
    assert set(err.completed) | {f.index for f in err.failures} == set(range(6))
    assert run_chunks(draw, 6, seed=1, completed=err.completed) == run_chunks(draw, 6, seed=1)
