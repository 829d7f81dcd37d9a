"""Python's ``random`` and NumPy's legacy global generator, seeded for a block of calls to third-party code.

Our code never draws from global generators (a test scans the package); black-box clients from other libraries
often do (pure-ldp and multi-freq-ldpy call ``np.random`` and ``random``).  A chunk of a sweep runs such a client
inside :func:`seeded_globals`: both generators are seeded from the chunk's own Generator before the block and
restored after it, so the client's draws are a fixed function of the chunk's seed — the same numbers in this
process, in a loky worker or on a Dask worker, whichever ran the chunk before — and the caller's global state
is left as it was.

Other threads of the process may draw from the same global generators while the block runs (a Dask worker's
event loop calls ``random`` between tasks).  So, inside the block, the module-level functions (``random.random``,
``np.random.randint``, …) draw, **in the block's own thread only**, from private generators seeded as above;
every other thread keeps the process's generators.  (A client that bound a function at import time, ``from
random import random``, draws from the process's generator, which is seeded too: reproducible unless another
thread draws at the same time.)  The blocks of one process run one at a time (a process-wide lock).
"""

from __future__ import annotations

import random
import threading
from contextlib import contextmanager

import numpy as np

from ldp_helpers._validation import check_rng

_LOCK = threading.RLock()
#: the thread inside a block and its private generators (a stack: blocks may nest in one thread)
_OWNER: dict = {"thread": None, "stack": []}


def seeded_globals(rng: np.random.Generator):
    """Seed ``random`` and ``np.random``'s legacy generator from ``rng`` (two draws) for the block; restore after.

    A context manager: ``with seeded_globals(rng): client(value)``.
    """
    rng = check_rng(rng)
    return _seeded(int(rng.integers(2**63)), int(rng.integers(2**32)))


def _default_instances() -> tuple:
    return random._inst, np.random.mtrand._rand


def _bound_names(module, instance) -> list[str]:
    """The module's public functions that are bound methods of its default generator instance."""
    return [name for name in dir(module) if not name.startswith("_")
            and getattr(getattr(module, name), "__self__", None) is instance]


def _dispatcher(slot: int, name: str, default):
    def draw(*args, **kwargs):
        if _OWNER["stack"] and threading.get_ident() == _OWNER["thread"]:
            return getattr(_OWNER["stack"][-1][slot], name)(*args, **kwargs)
        return default(*args, **kwargs)
    draw.__name__ = draw.__qualname__ = name
    draw.__doc__ = default.__doc__
    return draw


@contextmanager
def _dispatching():
    """The module-level functions of ``random`` and ``np.random`` routed through :func:`_dispatcher` for the block."""
    patched = []
    for slot, (module, instance) in enumerate(zip((random, np.random), _default_instances())):
        # np.random.seed is a plain function (it seeds the default instance): routed like the bound methods
        for name in _bound_names(module, instance) + (["seed"] if module is np.random else []):
            patched.append((module, name, getattr(module, name)))
            setattr(module, name, _dispatcher(slot, name, getattr(module, name)))
    try:
        yield
    finally:
        for module, name, original in patched:
            setattr(module, name, original)


@contextmanager
def _seeded(python_seed: int, numpy_seed: int):
    with _LOCK:
        python_inst, numpy_inst = _default_instances()
        python_state, numpy_state = python_inst.getstate(), numpy_inst.get_state()
        python_inst.seed(python_seed)
        numpy_inst.seed(numpy_seed)
        outermost = not _OWNER["stack"]
        _OWNER["thread"] = threading.get_ident()
        _OWNER["stack"].append((random.Random(python_seed), np.random.RandomState(numpy_seed)))
        try:
            if outermost:
                with _dispatching():
                    yield
            else:
                yield
        finally:
            _OWNER["stack"].pop()
            python_inst.setstate(python_state)
            numpy_inst.set_state(numpy_state)
