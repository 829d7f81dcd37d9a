"""Dying workers, generated: sweeps whose chunks kill their worker process (``os._exit``) or raise, on local processes
and on a Dask cluster, end in a ChunkError (never a hang) that lists every chunk without a result with its seed,
keeps every finished one (correct), and resumes to the undisturbed numbers (issue 27 item 4).

Hypothesis draws the number of chunks, which chunks die and which raise; derandomized like the rest of the suite,
with a small example budget (each example starts and loses worker processes).
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweep_tasks import Faulty, Sleeper, healthy

from ldp_helpers.sweeps import ChunkError, chunk_seeds, run_chunks

#: a sweep that loses workers must still answer within this many seconds
BOUND_SECONDS = 180


@st.composite
def faulty_sweeps(draw):
    n_chunks = draw(st.integers(min_value=2, max_value=6))
    dying = draw(st.sets(st.integers(0, n_chunks - 1), min_size=1, max_size=2))
    raising = draw(st.sets(st.integers(0, n_chunks - 1), max_size=1)) - dying
    return n_chunks, dying, raising, draw(st.integers(min_value=0, max_value=2**32))


def _check(error: ChunkError, n_chunks: int, dying, raising, seed: int) -> None:
    failed = {f.index for f in error.failures}
    assert dying | raising <= failed and not failed & set(error.completed)
    assert failed | set(error.completed) == set(range(n_chunks))
    seeds = chunk_seeds(seed, n_chunks)
    for f in error.failures:
        assert (f.entropy, f.spawn_key) == (seed, tuple(seeds[f.index].spawn_key)) and f.error
    assert all(error.completed[i] == healthy(i, seeds[i]) for i in error.completed)
    assert run_chunks(healthy, n_chunks, seed=seed, completed=error.completed) == run_chunks(
        healthy, n_chunks, seed=seed
    )


def _run(n_chunks, dying, raising, seed, **where):
    start = time.monotonic()
    with pytest.raises(ChunkError) as info:
        run_chunks(Faulty(dying, raising), n_chunks, seed=seed, **where)
    assert time.monotonic() - start < BOUND_SECONDS
    _check(info.value, n_chunks, dying, raising, seed)


@settings(max_examples=3)
@given(sweep=faulty_sweeps())
def test_dying_loky_workers_end_the_sweep(sweep):
    """Two loky processes; a chunk that kills its process fails (TerminatedWorkerError), the rest are kept or listed."""
    _run(*sweep, n_jobs=2, backend="loky")


@pytest.fixture(scope="module")
def dask_client():
    import dask
    from distributed import Client, LocalCluster

    with dask.config.set(
        {"distributed.scheduler.allowed-failures": 1}
    ):  # a dying task kills 2 workers, not 4
        cluster = LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        )
    with cluster, Client(cluster, set_as_default=False) as client:
        yield client


def test_a_chunk_that_hangs_on_a_live_dask_worker_ends_the_sweep(dask_client, tmp_path):
    """Issue 39 item 13: a chunk sleeping on a live worker made run_chunks wait for ever; with chunk_timeout it is
    cancelled and listed with its seed once no chunk finishes for chunk_timeout seconds, the others kept.  (Run
    before the dying-worker tests: both workers are live, none restarting.)"""
    dask_client.wait_for_workers(2, timeout=60)  # chunk 0 holds only one
    run_chunks(healthy, 4, seed=5, dask_client=dask_client)  # the workers have imported the package
    release = tmp_path / "release"
    start = time.monotonic()
    try:
        with pytest.raises(ChunkError) as info:
            run_chunks(Sleeper(str(release)), 4, seed=5, dask_client=dask_client, chunk_timeout=3.0)
        assert time.monotonic() - start < 20
    finally:
        release.touch()
    assert [f.index for f in info.value.failures] == [
        0
    ] and "chunk_timeout=3 s" in info.value.failures[0].error
    seeds = chunk_seeds(5, 4)
    assert info.value.completed == {i: healthy(i, seeds[i]) for i in (1, 2, 3)}
    with pytest.raises(ValueError, match=r"^chunk_timeout must be a real number"):
        run_chunks(healthy, 2, seed=5, chunk_timeout=None)


@settings(max_examples=2)
@given(sweep=faulty_sweeps())
def test_dying_dask_workers_end_the_sweep(dask_client, sweep):
    """A 2-worker LocalCluster with nannies; a chunk that kills its worker fails with KilledWorker (no hang)."""
    _run(*sweep, dask_client=dask_client)
