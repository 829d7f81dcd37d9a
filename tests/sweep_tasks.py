"""Chunks and clients the sweep tests send to worker processes (loky, Dask), in a module of their own.

A worker unpickles a task by importing the module that defines it: here that costs NumPy alone, not the test
modules' imports (pytest, Hypothesis, the drivers), paid again by every worker a test starts or kills.
"""

import os
import random
import time

import numpy as np


def draw(index, seed):
    return float(np.random.default_rng(seed).standard_normal(3).sum()) + index


def healthy(index, seed):
    return float(np.random.default_rng(seed).random()) + index


def global_rr(value):
    """A black-box randomized response that draws from Python's random and NumPy's legacy global generator."""
    keep = random.random() < 0.75
    return float(value if keep else np.random.randint(2))


def exit_on_two(index, seed):
    if index == 2:
        time.sleep(0.5)
        os._exit(3)
    return draw(index, seed)


class ExitOn:
    """A task whose worker process dies (os._exit) on the given chunks, after a delay."""

    def __init__(self, dying, delay=0.5):
        self.dying, self.delay = set(dying), delay

    def __call__(self, index, seed):
        if index in self.dying:
            time.sleep(self.delay)
            os._exit(3)
        return draw(index, seed)


class DyingClient:
    """An audit client whose process dies on the main run's last chunk (the only one of 50 trials)."""

    def sample(self, value, n, *, rng):
        if n == 50:
            os._exit(3)
        return (rng.random((n, 1)) < 0.5 + 0.2 * value).astype(float)


class Faulty:
    """Chunks in ``dying`` kill their worker process after a short delay, chunks in ``raising`` raise; others work."""

    def __init__(self, dying, raising):
        self.dying, self.raising = frozenset(dying), frozenset(raising)

    def __call__(self, index, seed):
        if index in self.raising:
            raise RuntimeError(f"chunk {index} raised")
        if index in self.dying:
            time.sleep(0.3)
            os._exit(7)
        return healthy(index, seed)


class Sleeper:
    """Chunk 0 sleeps on its (live) worker far past the sweep's chunk_timeout (30 s, or until the test has seen the
    sweep end and creates ``release``: the worker is then free for the next tests); the others work."""

    def __init__(self, release: str):
        self.release = release

    def __call__(self, index, seed):
        if index == 0:
            end = time.monotonic() + 30
            while time.monotonic() < end and not os.path.exists(self.release):
                time.sleep(0.1)
        return healthy(index, seed)


def sizeof_draws_from_the_global_random(index, seed):
    import dask.sizeof

    return dask.sizeof.random is random
