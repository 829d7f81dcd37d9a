"""Chunked sweeps: same numbers on local backends (Dask: tests/sweeps/test_sweeps_backends.py), failed chunks reported
with their seeds, a crashed worker losing no completed chunk, resume from the completed chunks, unreachable schedulers refused."""

import os
import time

import numpy as np
import pytest

from ldp_helpers.audit.auditor import run_audit
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.sweeps import ChunkError, _collect_outcomes, chunk_seeds, run_chunks


def draw(index, seed):
    return float(np.random.default_rng(seed).standard_normal(3).sum()) + index


def test_local_backends_give_the_same_numbers():
    """Local processes and threads give the in-process numbers (Dask: tests/sweeps/test_sweeps_backends.py and
    tests/sweeps/test_dask_cluster.py)."""
    sequential = run_chunks(draw, 12, seed=42)
    assert run_chunks(draw, 12, seed=42, n_jobs=2) == sequential  # loky processes
    assert run_chunks(draw, 12, seed=42, backend="threading", n_jobs=3) == sequential
    m = REGISTRY["oue"].example()
    local = run_audit(m, 0, 1, n_trials=40_000, seed=9, chunk_size=5_000)
    on_loky = run_audit(m, 0, 1, n_trials=40_000, seed=9, chunk_size=5_000, n_jobs=2)
    assert (local.count0, local.count1, local.epsilon_lb) == (
        on_loky.count0,
        on_loky.count1,
        on_loky.epsilon_lb,
    )


def test_seeds_are_a_fixed_function_of_seed_and_index():
    a, b = chunk_seeds(1, 4), chunk_seeds(1, 4)
    assert [s.spawn_key for s in a] == [(0,), (1,), (2,), (3,)]
    assert [s.generate_state(2).tolist() for s in a] == [s.generate_state(2).tolist() for s in b]


class FailOnce:
    def __init__(self, bad):
        self.bad = set(bad)

    def __call__(self, index, seed):
        if index in self.bad:
            raise RuntimeError(f"worker lost on chunk {index}")
        return draw(index, seed)


def test_failed_chunk_reported_with_its_seed_and_resumed():
    with pytest.raises(ChunkError) as info:
        run_chunks(FailOnce({2, 5}), 8, seed=3)
    err = info.value
    assert [f.index for f in err.failures] == [2, 5]
    assert err.failures[0].spawn_key == (2,) and err.failures[0].entropy == 3
    assert "chunk 2 (seed: SeedSequence(entropy=3, spawn_key=(2,)))" in str(
        err
    ) and "worker lost" in str(err)
    assert sorted(err.completed) == [0, 1, 3, 4, 6, 7]
    calls = []

    def counting(index, seed):
        calls.append(index)
        return draw(index, seed)

    resumed = run_chunks(counting, 8, seed=3, completed=err.completed)
    assert sorted(calls) == [2, 5]  # only the missing chunks ran
    assert resumed == run_chunks(draw, 8, seed=3)


class ExitOn:
    """A task whose worker process dies (os._exit) on the given chunks, after a delay: a crashed loky worker."""

    def __init__(self, dying, delay=1.0):
        self.dying, self.delay = set(dying), delay

    def __call__(self, index, seed):
        if index in self.dying:
            time.sleep(self.delay)  # the fast chunks finish first
            os._exit(3)
        return draw(index, seed)


def test_backend_failure_keeps_what_was_yielded():
    """_collect_outcomes (run_chunks's drain): a result generator that raises mid-way keeps its prefix and names the error."""

    def results():
        yield (0, True, 1.0)
        yield (2, False, "boom")
        raise OSError("worker died")

    outcomes, lost = _collect_outcomes(results())
    assert outcomes == [(0, True, 1.0), (2, False, "boom")] and lost == "OSError: worker died"
    assert _collect_outcomes(iter([(1, True, 2.0)])) == ([(1, True, 2.0)], None)


def test_crashed_worker_loses_no_completed_chunk():
    """A loky worker that dies: completed chunks kept, every chunk without a result listed with its seed; resume."""
    with pytest.raises(ChunkError) as info:
        run_chunks(ExitOn({5}), 6, seed=4, n_jobs=2, backend="loky")
    err = info.value
    assert set(err.completed) == {0, 1, 2, 3, 4}, (
        err
    )  # chunk 5 sleeps 1 s before dying: the others are done
    assert [f.index for f in err.failures] == [5]
    assert "no result: the sweep's backend failed (TerminatedWorkerError" in err.failures[0].error
    assert err.failures[0].spawn_key == (5,) and err.failures[0].entropy == 4
    assert run_chunks(draw, 6, seed=4, completed=err.completed) == run_chunks(draw, 6, seed=4)


def test_bad_sweep_input():
    with pytest.raises(ConnectionError, match="dask_address='tcp://127.0.0.1:9'"):
        run_chunks(draw, 2, seed=0, dask_address="tcp://127.0.0.1:9", timeout=1.0)
    with pytest.raises(ValueError, match="n_chunks"):
        run_chunks(draw, 0, seed=0)
    with pytest.raises(ValueError, match="backend"):
        run_chunks(draw, 2, seed=0, backend="spark")
    with pytest.raises(ValueError, match="dask_address"):
        run_chunks(draw, 2, seed=0, backend="dask")
    with pytest.raises(TypeError, match="completed"):
        run_chunks(draw, 2, seed=0, completed={7: 1.0})


class FlakyClient:
    """Our GRR client that fails on its n-th batch (a lost worker), else the mechanism's perturb.  The batches are
    counted in a file: each runs in a forked child (issue 39 item 2), where an attribute's count would not last."""

    def __init__(self, fail_at, counter):
        self.mechanism, self.fail_at, self.counter = REGISTRY["grr"].example(), fail_at, counter
        counter.write_text("0")

    def sample(self, value, n, *, rng):
        calls = int(self.counter.read_text()) + 1
        self.counter.write_text(str(calls))
        if calls == self.fail_at:
            raise OSError("worker lost")
        return self.mechanism.perturb(np.full(n, value), rng=rng).reshape(n, 1).astype(float)


def test_audit_resumes_from_completed_chunks(tmp_path):
    kwargs = dict(n_trials=8_000, seed=6, chunk_size=1_000, n_pilot=500)
    counter = tmp_path / "calls"
    with pytest.raises(ChunkError, match=r"chunk 1 \(seed: SeedSequence") as info:
        run_audit(
            FlakyClient(5, counter), 0, 1, **kwargs
        )  # calls 1-2: pilot, 3-4: chunk 0, 5: chunk 1
    assert len(info.value.completed) == 7
    resumed = run_audit(FlakyClient(-1, counter), 0, 1, completed=info.value.completed, **kwargs)
    fresh = run_audit(FlakyClient(-1, counter), 0, 1, **kwargs)
    assert (resumed.count0, resumed.count1, resumed.event) == (
        fresh.count0,
        fresh.count1,
        fresh.event,
    )
