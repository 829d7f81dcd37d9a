"""Python's ``random`` and NumPy's legacy global generator, seeded for a block of calls to third-party code.

Our code never draws from global generators (a test scans the package); black-box clients from other libraries
often do (pure-ldp and multi-freq-ldpy call ``np.random`` and ``random``).  A chunk of a sweep runs such a client
inside :func:`seeded_globals`: both generators are seeded from the chunk's own Generator before the block and
restored after it, so the client's draws are a fixed function of the chunk's seed — the same numbers in this
process, in a loky worker or on a Dask worker, whichever ran the chunk before — and the caller's global state
is left as it was.  The blocks of one process run one at a time (a process-wide lock): threads share the global
generators, so two overlapping blocks could not both be reproducible.

Another thread drawing from the global generators during a block would change the block's draws.  On a Dask
worker one does: ``dask.sizeof`` samples large collections with ``random.sample`` on the worker's event loop, so
:mod:`~ldp_helpers.sweeps.dask_futures` gives it a generator of its own on every worker that runs our chunks.
(The module functions are not swapped for thread-local ones here: numba's nopython mode compiles calls to
``np.random.*`` and ``random.*`` by identity, and peers' jitted clients would stop compiling.)
"""

from __future__ import annotations

import os
import random
import threading
from contextlib import contextmanager

import numpy as np

from ldp_helpers._validation import check_rng

_LOCK = threading.RLock()


def _fresh_lock() -> None:
    """In a forked child (an audit's black-box batch), a lock another parent thread held would never be released."""
    global _LOCK
    _LOCK = threading.RLock()


os.register_at_fork(after_in_child=_fresh_lock)


def seeded_globals(rng: np.random.Generator):
    """Seed ``random`` and ``np.random``'s legacy generator from ``rng`` (two draws) for the block; restore after.

    A context manager: ``with seeded_globals(rng): client(value)``.
    """
    rng = check_rng(rng)
    return _seeded(int(rng.integers(2**63)), int(rng.integers(2**32)))


@contextmanager
def _seeded(python_seed: int, numpy_seed: int):
    with _LOCK:
        python_state, numpy_state = random.getstate(), np.random.get_state()
        random.seed(python_seed)
        np.random.seed(numpy_seed)
        try:
            yield
        finally:
            random.setstate(python_state)
            np.random.set_state(numpy_state)
