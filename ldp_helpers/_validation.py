"""Validation at the package boundary: one place, one message format — the bad-input contract (docs/reference.md, "Bad input").

Every public function, method and constructor checks its arguments once, before any work; private
cores trust their callers.  A value out of range raises ``ValueError``; a wrong type raises
:class:`ParameterTypeError` (a ``TypeError`` that is also a ``ValueError``).  One message form:
``"<parameter> must be <what is allowed>; got <value>"`` — never a NaN, a silent clip, a wrapped count
or a traceback from inside numpy.  Ceilings are refused before allocating, with the estimate in the
message (:func:`check_allocation`): ``MAX_BYTES`` per array, ``MAX_N_DRAWS`` repetitions per call,
``MAX_N_ROUNDS`` rounds of a stream; integers beyond int64 are refused (:func:`check_int`,
:func:`check_int_array`, :func:`check_counts`).  File inputs: :mod:`ldp_helpers._files`.
``tests/contract/`` enforces this over every public function and method.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np


class _Described(str):
    """A description of a bad value (e.g. "an empty array"), shown as is rather than repr'd."""


class ParameterTypeError(TypeError, ValueError):
    """A parameter of the wrong type: a ``TypeError`` that ``except ValueError`` also catches."""


def _message(name: str, value, allowed: str) -> str:
    shown = str(value) if isinstance(value, _Described) else repr(value)
    return f"{name} must be {allowed}; got {shown[:200] + '…' if len(shown) > 200 else shown}"


def _fail(name: str, value, allowed: str) -> None:
    raise ValueError(_message(name, value, allowed))


def fail_type(name: str, value, allowed: str) -> None:
    """Raise :class:`ParameterTypeError` for a value of the wrong type (same message format)."""
    if not isinstance(value, _Described):
        value = _Described(f"{value!r:.120} of type {type(value).__name__}")
    raise ParameterTypeError(_message(name, value, allowed))


def _bad_dtype(name: str, arr: np.ndarray, allowed: str) -> None:
    shown = _Described(f"an array of dtype {arr.dtype}")
    if arr.dtype.kind in "biuf":
        _fail(name, shown, allowed)
    fail_type(name, shown, allowed)


def check_instance(name: str, value, cls, allowed: str | None = None):
    if not isinstance(value, cls):
        fail_type(
            name,
            value,
            allowed
            or "a " + " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,))),
        )
    return value


def check_callable(name: str, value, allowed: str):
    if not callable(value):
        fail_type(name, value, allowed)
    return value


def check_choice(name: str, value, choices) -> str:
    if not isinstance(value, str) or value not in choices:
        (_fail if isinstance(value, str) else fail_type)(name, value, f"one of {sorted(choices)}")
    return value


# Public names for checks not listed here (same message format); prefer a general check below.
Described = _Described
fail = _fail


def fail_shape(name: str, shape, allowed: str) -> None:
    """Refuse an array by its shape: ``<name> must be <allowed>; got an array of shape <shape>``."""
    _fail(name, _Described(f"an array of shape {shape}"), allowed)


def _interval(low, high, low_open, high_open) -> str:
    lo = "-inf" if low is None else f"{low:g}"
    hi = "inf" if high is None else f"{high:g}"
    return f"{'(' if low_open or low is None else '['}{lo}, {hi}{')' if high_open or high is None else ']'}"


#: the exact types that need no abstract-base-class check (bool is neither: it is refused below)
_FLOAT_OR_INT = (float, int)


def check_real(name: str, value, *, low=None, high=None, low_open=True, high_open=True) -> float:
    """Return ``value`` as a float, checking it is finite and inside the given interval."""
    if type(value) not in _FLOAT_OR_INT and (
        isinstance(value, (bool, np.timedelta64)) or not isinstance(value, Real)
    ):  # numpy counts a timedelta as an integer
        fail_type(name, value, "a real number")
    try:
        value = float(value)
    except OverflowError:  # an integer beyond float's range (10**400)
        _fail(name, value, f"finite and in {_interval(low, high, low_open, high_open)}")
    if not math.isfinite(value):
        _fail(name, value, f"finite and in {_interval(low, high, low_open, high_open)}")
    if (low is not None and (value < low or (low_open and value == low))) or (
        high is not None and (value > high or (high_open and value == high))
    ):
        _fail(name, value, f"in {_interval(low, high, low_open, high_open)}")
    return value


#: the smallest budget accepted: below it report probabilities agree to ~12 digits
MIN_EPSILON = 1e-12


def check_epsilon(epsilon, name: str = "epsilon", *, high=None) -> float:
    """A privacy budget in [MIN_EPSILON, high] (``high``: where the caller's formulas overflow, e.g. e^ε at 709)."""
    return check_real(name, epsilon, low=MIN_EPSILON, high=high, low_open=False, high_open=False)


def check_epsilons(epsilons, name: str = "epsilons", *, high=None) -> np.ndarray:
    """An array of budgets, each as :func:`check_epsilon` requires, as ``float64``."""
    return check_real_array(
        name, epsilons, low=MIN_EPSILON, high=high, low_open=False, high_open=False
    )


def check_probability(p, name: str, *, open_low=False, open_high=False) -> float:
    """A probability in [0, 1] (either end can be made open)."""
    return check_real(name, p, low=0.0, high=1.0, low_open=open_low, high_open=open_high)


#: the integers every check accepts at most: int64's range (a larger count would wrap when numpy stores it)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _as_int64(name: str, arr: np.ndarray, allowed: str) -> None:
    """Integers, or finite integral floats, that int64 can hold (2^64 − 1 as uint64 would read as −1)."""
    if arr.dtype.kind not in "iu" and (
        arr.dtype.kind != "f" or not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr))
    ):
        _bad_dtype(name, arr, allowed)
    if arr.size and (
        (arr.dtype.kind == "u" and arr.max() > INT64_MAX)
        or (arr.dtype.kind == "f" and np.max(np.abs(arr)) >= 2.0**63)
    ):
        _fail(
            name,
            _Described(f"an array containing {arr.flat[np.argmax(np.abs(arr.astype(float)))]!r}"),
            f"integers in [{INT64_MIN}, {INT64_MAX}] (int64)",
        )


def check_int(name: str, value, *, low=None, high=None, any_size: bool = False) -> int:
    """An integer in the closed range [low, high], within int64's range (no count wraps later) unless
    ``any_size`` (a number only a formula uses, such as a hypothetical N of a bound, may be any Python int)."""
    if type(value) is not int and (
        isinstance(value, (bool, np.timedelta64)) or not isinstance(value, Integral)
    ):
        fail_type(name, value, "an integer")
    value, lo, hi = int(value), ("-inf" if low is None else low), ("inf" if high is None else high)
    if (low is not None and value < low) or (high is not None and value > high):
        _fail(name, value, f"an integer in [{lo}, {hi}]")
    if not any_size and not INT64_MIN <= value <= INT64_MAX:
        _fail(name, value, f"an integer in [{lo}, {hi}] that int64 can hold (|value| < 2^63)")
    return value


def check_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        fail_type(name, value, "True or False")
    return bool(value)


def check_completed(completed) -> dict:
    """``completed=`` of a resumed sweep (None or a dict chunk index → result), as a new dict: checked by
    :func:`~ldp_helpers.sweeps.run_chunks` and by the auditor before its pilot."""
    if completed is not None and not isinstance(completed, dict):
        fail_type(
            "completed", completed, "a dict (chunk index → result), e.g. ChunkError.completed"
        )
    return dict(completed or {})


def check_rng(rng) -> np.random.Generator:
    """The injected randomness: must be a ``numpy.random.Generator`` (no seeds, no globals)."""
    if not isinstance(rng, np.random.Generator):
        raise ParameterTypeError(
            f"rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)); "
            f"got {type(rng).__name__}"
        )
    return rng


def check_unmasked(name: str, values, expected: str) -> None:
    """Refuse a masked array with masked entries naming ``name``, or a list or tuple of arrays holding
    one: ``np.asarray`` would read the hidden values as data."""
    rows = isinstance(values, (list, tuple)) and values and isinstance(values[0], np.ndarray)
    if np.ma.is_masked(values) or (rows and any(np.ma.is_masked(v) for v in values)):
        _fail(name, _Described("a masked array with masked entries"), f"{expected}, none masked")


def as_array(name: str, values, expected: str) -> np.ndarray:
    """``np.asarray(values)``; a ragged nested sequence (numpy's "inhomogeneous shape") and a masked array
    with masked entries (:func:`check_unmasked`) are refused naming ``name``."""
    check_unmasked(name, values, expected)
    try:
        return np.asarray(values)
    except ValueError:
        _fail(name, _Described("a ragged nested sequence"), expected)


def check_binary_array(name: str, values, *, ndim=None, last=None, what: str = "") -> np.ndarray:
    """A non-empty array of 0/1 values (bools or integers), returned as ``int8``; with ``ndim``, its axes
    (``ndim``, ``last``, ``what``) are then checked by :func:`check_ndim`."""
    arr = as_array(name, values, "a non-empty array of 0/1 values")
    if arr.size == 0:
        _fail(name, _Described("an empty array"), "a non-empty array of 0/1 values")
    if arr.dtype != bool:
        if arr.dtype.kind not in "iu":
            if arr.dtype.kind != "f" or not np.all(np.isfinite(arr)):
                _bad_dtype(name, arr, "an array of 0/1 values")
        bad = (arr != 0) & (arr != 1)
        if np.any(bad):
            _fail(
                name,
                _Described(f"an array containing {arr[bad].flat[0].item()!r}"),
                "an array of 0/1 values",
            )
    arr = arr.astype(np.int8)
    return arr if ndim is None else check_ndim(name, arr, ndim, last=last, what=what)


def check_domain_values(name: str, values, d: int) -> np.ndarray:
    """A non-empty integer array with every entry in the 0-based domain [0, d)."""
    arr = as_array(name, values, f"a non-empty array of integers in [0, {d})")
    if arr.size == 0:
        _fail(name, _Described("an empty array"), f"a non-empty array of integers in [0, {d})")
    if arr.dtype.kind not in "iu":
        _bad_dtype(name, arr, f"an array of integers in [0, {d})")
    lo, hi = arr.min(), arr.max()
    if lo < 0 or hi >= d:
        _fail(
            name,
            _Described(f"an array with values in [{lo}, {hi}]"),
            f"integers in [0, {d}) (0-based domain)",
        )
    return arr.astype(np.int64, copy=False)


def check_counts(name: str, counts) -> np.ndarray:
    """A non-empty vector of non-negative integer counts totalling at most 2^62 (:func:`check_total`: each count may be
    valid while their int64 sum wraps), returned as ``int64``."""
    arr = as_array(name, counts, "a non-empty 1-D array of counts")
    if arr.dtype.kind not in "biuf":
        _bad_dtype(name, arr, "a non-empty 1-D array of counts")
    if arr.ndim != 1 or arr.size == 0:
        fail_shape(name, arr.shape, "a non-empty 1-D array of counts")
    _as_int64(name, arr, "a 1-D array of non-negative integer counts")
    if np.any(arr < 0):
        _fail(
            name,
            _Described(f"an array with minimum {arr.min()}"),
            "a 1-D array of non-negative integer counts",
        )
    arr = arr.astype(np.int64)
    check_total(name, arr)
    return arr


def check_count_vector(name: str, counts, length: int, *, high=None) -> np.ndarray:
    """A vector of exactly ``length`` non-negative integer counts, each ≤ ``high`` if given."""
    arr = check_counts(name, counts)
    if arr.size != length:
        _fail(
            name,
            _Described(f"an array of length {arr.size}"),
            f"a 1-D array of length {length} (one count per domain value)",
        )
    if high is not None and arr.max() > high:
        _fail(name, _Described(f"an array with maximum {arr.max()}"), f"counts in [0, {high}]")
    return arr


def check_count_array(name: str, counts, length: int, *, high=None) -> np.ndarray:
    """Counts of shape (length,) or (n_draws, length): non-negative integers, each ≤ ``high`` if given."""
    expected = f"an array of shape ({length},) or (n_draws, {length})"
    arr = as_array(name, counts, expected)
    if arr.ndim not in (1, 2) or arr.shape[-1] != length or arr.size == 0:
        fail_shape(name, arr.shape, expected)
    return check_int_array(name, arr, low=0, high=high)


#: largest number of repetitions (surveys, trials, runs) one call may draw
MAX_N_DRAWS = 10**7
#: largest array (in bytes) one call may allocate; bigger requests are refused before allocating
MAX_BYTES = 2 * 1024**3
#: largest number of rounds T of a stream (mechanisms, samplers, bounds that loop over rounds)
MAX_N_ROUNDS = 10**6
#: largest file a loader reads, longest line it accepts
MAX_FILE_BYTES, MAX_LINE_CHARS = 512 * 1024**2, 100_000


def format_bytes(n_bytes: float) -> str:
    """A byte count for humans: ``29.1 TiB``."""
    power = min(int(math.log(max(n_bytes, 1), 1024)), 6)
    return (
        f"{int(n_bytes)} B"
        if power == 0
        else f"{n_bytes / 1024**power:.3g} {'KMGTPE'[power - 1]}iB"
    )


def check_allocation(name: str, value, n_elements, *, itemsize: int = 8, what: str = "") -> None:
    """Refuse, before allocating, ``n_elements`` (a Python int: no overflow) items of ``itemsize`` bytes over MAX_BYTES."""
    n_bytes = int(n_elements) * int(itemsize)
    if n_bytes > MAX_BYTES:
        detail = f" ({what})" if what else ""
        raise ValueError(
            f"{name}={value!r} would allocate {format_bytes(n_bytes)}{detail}; "
            f"the ceiling is MAX_BYTES = {format_bytes(MAX_BYTES)}"
        )


def check_n_draws(n_draws, *, low: int = 1) -> int:
    """The number of independent repetitions of a draw: an integer in [low, MAX_N_DRAWS] (``low=2``
    where a standard error or a sample variance needs a spread)."""
    return check_int("n_draws", n_draws, low=low, high=MAX_N_DRAWS)


_INT64 = np.dtype(np.int64)
# largest number of users a true-count vector may describe (int64 sums stay exact)
_MAX_TOTAL = 2**62


def check_total(name: str, counts: np.ndarray, *, high: int = _MAX_TOTAL) -> int:
    """The exact total of validated non-negative int64 ``counts`` (summed as Python ints when the int64 sum
    could wrap), refused above ``high`` (2^62: every later sum of these counts stays exact in int64)."""
    wraps = counts.size and int(counts.max()) > high // counts.size
    total = sum(int(c) for c in counts.ravel()) if wraps else int(counts.sum())
    if total > high:
        _fail(
            name,
            _Described(f"counts totalling {total}"),
            f"non-negative counts totalling at most 2^62 = {high} (every sum stays exact in int64)",
        )
    return total


def check_histogram(true_counts) -> np.ndarray:
    """True counts over d ≥ 2 values (GRR and OUE need two), as ``int64``: a histogram refused naming
    ``true_counts`` (GRR(ε, 1) refused "d", a parameter the callers never pass)."""
    counts = check_counts("true_counts", true_counts)
    if counts.size < 2:
        fail(
            "true_counts",
            Described(f"an array of length {counts.size}"),
            "counts over d ≥ 2 values",
        )
    return counts


def check_true_counts(true_counts, d: int) -> tuple[np.ndarray, int]:
    """A vector of d true counts describing at least one user; returns it and n = Σ counts (an int64 array of
    shape (d,) is checked in place, two reductions: the hot path of every exact aggregate sampler)."""
    counts = true_counts
    fast = type(counts) is np.ndarray and counts.dtype == _INT64 and counts.shape == (d,)
    # one reduction checks both ends: a negative int64 reads as ≥ 2^63 in uint64, and entries
    # ≤ 2^62/d cannot overflow the int64 sum
    if not fast or np.maximum.reduce(counts.view(np.uint64)) > _MAX_TOTAL // d:
        # the general check, the total too (copies; raises)
        counts = check_count_vector("true_counts", true_counts, d)
    n = int(np.add.reduce(counts))
    if n < 1:
        raise ValueError("true_counts must describe at least one user (sum ≥ 1); got all zeros")
    return counts, n


def check_above(name: str, value, bound: float, *, what: str) -> float:
    """A finite real number strictly above a bound ``what`` names, e.g. ``"T·log(4T/β) for T=10, beta=0.1"``."""
    value = check_real(name, value)
    if not value > bound:
        _fail(name, value, f"> {what} = {bound:.6g}")
    return value


def check_real_array(
    name: str,
    values,
    *,
    low=None,
    high=None,
    low_open=True,
    high_open=True,
    ndim=None,
    last=None,
    what: str = "",
) -> np.ndarray:
    """A non-empty array (or scalar) of finite reals inside an interval, returned as ``float64``; with ``ndim``,
    its axes (``ndim``, ``last``, ``what``) are then checked by :func:`check_ndim`."""
    arr = as_array(name, values, "a non-empty array of real numbers")
    if arr.size == 0:
        _fail(name, _Described("an empty array"), "a non-empty array of real numbers")
    if arr.dtype.kind not in "iuf":  # integers or floats (not bool, complex, object, …)
        _bad_dtype(name, arr, "an array of real numbers")
    arr = arr.astype(np.float64)
    bad = ~np.isfinite(arr)
    if low is not None:
        bad |= (arr <= low) if low_open else (arr < low)
    if high is not None:
        bad |= (arr >= high) if high_open else (arr > high)
    if bad.any():
        _fail(
            name,
            _Described(f"an array containing {arr[bad].flat[0].item()!r}"),
            f"finite values in {_interval(low, high, low_open, high_open)}",
        )
    return arr if ndim is None else check_ndim(name, arr, ndim, last=last, what=what)


def check_probabilities(name: str, values, **axes) -> np.ndarray:
    """:func:`check_real_array` of values in [0, 1] (``axes``: its ``ndim``, ``last``, ``what``)."""
    return check_real_array(
        name, values, low=0.0, high=1.0, low_open=False, high_open=False, **axes
    )


def check_int_array(
    name: str, values, *, low=None, high=None, shape=None, ndim=None, last=None, what: str = ""
) -> np.ndarray:
    """A non-empty integer array (integral floats accepted) with entries in [low, high] and, if given, this shape;
    with ``ndim``, its axes (``ndim``, ``last``, ``what``) are then checked by :func:`check_ndim`."""
    arr = as_array(name, values, "a non-empty array of integers")
    if arr.size == 0:
        _fail(name, _Described("an empty array"), "a non-empty array of integers")
    _as_int64(name, arr, "an array of integers")
    if shape is not None and arr.shape != tuple(shape):
        fail_shape(name, arr.shape, f"an array of shape {tuple(shape)}")
    lo, hi = arr.min(), arr.max()
    if (low is not None and lo < low) or (high is not None and hi > high):
        lo_s = "-inf" if low is None else str(low)
        hi_s = "inf" if high is None else str(high)
        _fail(
            name,
            _Described(f"an array with values in [{lo:g}, {hi:g}]"),
            f"integers in [{lo_s}, {hi_s}]",
        )
    arr = arr.astype(np.int64)
    return arr if ndim is None else check_ndim(name, arr, ndim, last=last, what=what)


def check_ndim(name: str, values, ndim, *, last=None, what: str = "") -> np.ndarray:
    """An array with ``ndim`` axes (an int or a tuple of allowed counts) and, if given, a last axis of length ``last``.

    ``what`` names the axes in the message, e.g. ``"(users × rounds)"``.  Returns ``np.asarray(values)``.
    """
    allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    dims = " or ".join(f"{d}-D" for d in allowed)
    tail = "" if last is None else f" whose last axis has length {last}"
    expected = f"a {dims} array{' ' + what if what else ''}{tail}"
    arr = as_array(name, values, expected)
    if arr.ndim not in allowed or (last is not None and (arr.ndim == 0 or arr.shape[-1] != last)):
        fail_shape(name, arr.shape, expected)
    return arr


def check_weights(name: str, weights) -> np.ndarray:
    """A probability vector: a 1-D array of finite weights ≥ 0 whose sum is 1 (to 1e-9)."""
    weights = check_real_array(name, weights, low=0.0, low_open=False, ndim=1)
    total = float(weights.sum())
    check_real(f"{name}.sum()", total, low=1 - 1e-9, high=1 + 1e-9, low_open=False, high_open=False)
    return weights


def check_trailing_shape(name: str, values, shape, *, leading: int = 1) -> np.ndarray:
    """An array of shape ``shape`` or, with up to ``leading`` extra leading axes (e.g. n_draws), ``(..., *shape)``.

    Returns ``np.asarray(values)``; the message shows the allowed form, e.g. ``(2, 8) or (n_draws, 2, 8)``.
    """
    shape = tuple(shape)
    forms = " or ".join(
        str((*("n_draws",) * e, *shape)).replace("'", "") for e in range(leading + 1)
    )
    arr = as_array(name, values, f"an array of shape {forms}")
    extra = arr.ndim - len(shape)
    if not 0 <= extra <= leading or arr.shape[extra:] != shape:
        fail_shape(name, arr.shape, f"an array of shape {forms}")
    return arr


def check_aggregate(
    aggregate, shape, *, low, high, integral: bool = True, what: str = ""
) -> np.ndarray:
    """A server statistic of shape ``shape`` or ``(n_draws, *shape)`` whose entries lie in [low, high] — the
    range n reports can produce (``what`` says why, e.g. ``"|cell sum| ≤ n = 60"``): integers (integral floats
    accepted) returned as ``int64``, else finite reals returned as ``float64``.  An extra axis, 1e300, 2^64 − 1,
    a negative count or a count above n is refused here, at the server's entry point."""
    arr = check_trailing_shape("aggregate", aggregate, shape)
    if arr.size == 0 or arr.dtype == bool or arr.dtype.kind not in "iuf":
        # raises its own message
        return (check_int_array if integral else check_real_array)("aggregate", arr)
    if integral:
        _as_int64("aggregate", arr, "an array of integers")
    values = arr.astype(np.float64)
    bad = ~np.isfinite(values) | (values < low) | (values > high)
    if np.any(bad):
        why = f" ({what})" if what else ""
        kind = "integers" if integral else "finite values"
        _fail(
            "aggregate",
            _Described(f"an array containing {arr[bad].flat[0].item()!r}"),
            f"{kind} in [{low:g}, {high:g}]{why}",
        )
    return arr.astype(np.int64) if integral else values
