"""Timing helpers for the benchmarks (run by `make bench`, never by `make test`)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Timing:
    benchmark: str  # the workload, e.g. "RR count, n=1e6"
    variant: str  # e.g. "aggregate sampler", "per-user reference", "random draws alone"
    median_seconds: float
    note: str = ""


def median_time(fn, *, repeat: int = 7, number: int = 1, warmup: bool = True) -> float:
    """Median wall time of ``fn()`` over ``repeat`` runs of ``number`` calls each (seconds per call).

    ``warmup=False`` skips the untimed first call (when the caller has just run ``fn`` itself, or one run of
    ``fn`` takes seconds and has nothing to warm).
    """
    if warmup:
        fn()
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - start) / number)
    return float(np.median(runs))


def paired_times(fn, baseline, *, repeat: int = 15, number: int = 50) -> tuple[float, float, float]:
    """Time ``fn`` and ``baseline`` in alternating runs; return both medians and the median ratio.

    Alternating the two and taking the median of the per-run ratios cancels the drift of a
    shared machine, which two separate medians (taken seconds apart) do not.
    """
    fn(), baseline()  # warm-up
    times = {fn: [], baseline: []}
    for _ in range(repeat):
        for f in (fn, baseline):
            start = time.perf_counter()
            for _ in range(number):
                f()
            times[f].append((time.perf_counter() - start) / number)
    ratios = np.array(times[fn]) / np.array(times[baseline])
    return float(np.median(times[fn])), float(np.median(times[baseline])), float(np.median(ratios))


def format_table(rows: list[Timing]) -> str:
    """One table: each variant's median and its ratio to the first variant of the same benchmark."""
    lines = [f"{'benchmark':<34} {'variant':<30} {'median':>12} {'ratio':>10}  note", "-" * 100]
    baseline: dict[str, float] = {}
    for r in rows:
        base = baseline.setdefault(r.benchmark, r.median_seconds)
        lines.append(
            f"{r.benchmark:<34} {r.variant:<30} {r.median_seconds * 1e3:>9.3f} ms {r.median_seconds / base:>9.2f}x  {r.note}"
        )
    return "\n".join(lines)


_DRAWS = (
    "binomial",
    "multinomial",
    "hypergeometric",
    "multivariate_hypergeometric",
    "integers",
    "random",
    "gamma",
    "normal",
    "poisson",
    "geometric",
    "choice",
    "permutation",
    "shuffle",
)


class _Recorder(np.random.Generator):
    """A Generator that logs every draw call with a copy of its arguments (then draws as usual)."""

    def __init__(self, rng: np.random.Generator):
        super().__init__(rng.bit_generator)
        self.calls = []

    def __getattribute__(self, name):
        method = super().__getattribute__(name)
        if name not in _DRAWS:
            return method
        calls = super().__getattribute__("calls")

        def logged(*args, **kwargs):
            calls.append(
                (
                    name,
                    [np.copy(a) if isinstance(a, np.ndarray) else a for a in args],
                    {k: np.copy(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()},
                )
            )
            return method(*args, **kwargs)

        return logged


def recorded_draws(sampler, rng: np.random.Generator):
    """``sampler(rng)``'s random draws alone: a callable making the very same Generator calls, arguments precomputed.

    One call of ``sampler`` on a recording Generator logs each draw with a copy of its arguments; the returned
    callable replays that log on ``rng`` (the draws' cost without the sampler's bookkeeping).  Returns the
    callable and the number of calls logged.
    """
    recorder = _Recorder(rng)
    sampler(recorder)
    calls = [(getattr(rng, name), args, kwargs) for name, args, kwargs in recorder.calls]

    def replay():
        for method, args, kwargs in calls:
            method(*args, **kwargs)

    return replay, len(calls)
