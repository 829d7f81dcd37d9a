"""Output events for the empirical audit, and their choice from a pilot run.

An audit compares ``Pr[M(x₀) ∈ E]`` with ``Pr[M(x₁) ∈ E]`` for one output event E.  Reports of any
client are first flattened to a numeric matrix (one row per report, :func:`as_report_matrix`); an
:class:`Event` is a conjunction of conditions ``column == value`` or ``column > threshold``.  The
candidates (:func:`_candidate_events`) are single conditions, pairs of conditions on two columns (the
pair "true bit set, other bit clear" is what exposes a unary-encoding client that never clears the
true bit) and whole outcomes; :func:`choose_event` keeps the one with the largest Clopper–Pearson
lower bound on a *pilot* run, so that the main run's trials are independent of the choice.

References
----------
[arcolezi2024] §4 (distinguishing events chosen from the output distribution, Clopper–Pearson bounds).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_callable,
    check_instance,
    check_int,
    check_real,
    check_real_array,
    check_unmasked,
    fail,
    fail_type,
)

MAX_DISCRETE_VALUES = 16  # a column with more distinct values is treated as continuous (thresholds)
MAX_OUTCOMES = 256  # whole outcomes are candidates only when the pilot saw at most this many
MAX_PAIR_COLUMNS = 16  # pairs of conditions are candidates only for reports this wide or narrower
N_THRESHOLDS = 9  # deciles of the pooled pilot values for a continuous column


def as_report_matrix(reports, n: int) -> np.ndarray:
    """Reports as a float matrix of shape (n, width): arrays as they are, named tuples of arrays side by side.

    Reports must be finite numbers (an event compares them with ``==`` and ``>``).
    """
    n = check_int("n", n, low=1)
    if isinstance(reports, tuple) and hasattr(reports, "_fields"):
        parts = [as_report_matrix(getattr(reports, field), n) for field in reports._fields]
        return np.hstack(parts)
    expected = f"a numeric array with {n} rows or a named tuple of such arrays"
    if not isinstance(reports, np.ndarray) or reports.dtype.kind not in "biuf":
        fail_type("reports", reports, expected)
    check_unmasked("reports", reports, expected)
    if reports.shape[:1] != (n,) or reports.ndim > 2:
        raise ValueError(
            f"reports must have shape ({n},) or ({n}, width) (got shape {reports.shape})"
        )
    matrix = reports.reshape(n, -1).astype(float)
    if not np.isfinite(matrix).all():
        fail("reports", Described("an array containing non-finite values"), "finite numbers")
    return matrix


@dataclass(frozen=True)
class Event:
    """The event ``∧_i (report[columns[i]] op_i values[i])`` with ``op_i`` ``"=="`` or ``">"``."""

    columns: tuple[int, ...]
    ops: tuple[str, ...]
    values: tuple[float, ...]

    def __post_init__(self):
        for name in ("columns", "ops", "values"):
            check_instance(name, getattr(self, name), tuple, "a tuple (one entry per condition)")
        if any(isinstance(c, bool) or not isinstance(c, Integral) or c < 0 for c in self.columns):
            fail("columns", self.columns, "a tuple of column indices (integers ≥ 0)")
        if any(
            isinstance(v, bool) or not isinstance(v, Real) or not np.isfinite(v)
            for v in self.values
        ):
            fail("values", self.values, "a tuple of finite real numbers")
        if not (len(self.columns) == len(self.ops) == len(self.values) >= 1):
            raise ValueError(
                f"an Event needs as many columns, ops and values, at least one (got {self!r})"
            )
        if any(op not in ("==", ">") for op in self.ops):
            raise ValueError(f"ops must be '==' or '>' (got {self.ops!r})")

    def mask(self, matrix: np.ndarray) -> np.ndarray:
        """Which rows of a report matrix lie in the event."""
        return self._mask(check_real_array("matrix", matrix, ndim=2, what="(reports × columns)"))

    def _mask(self, matrix: np.ndarray) -> np.ndarray:
        """:meth:`mask` of a validated report matrix.  Kept apart from :meth:`mask` on purpose: the
        event search evaluates up to ~30,000 candidates on one pilot matrix, which checking (a
        float copy and a finiteness pass of the whole matrix) per candidate would multiply."""
        inside = np.ones(matrix.shape[0], dtype=bool)
        for column, op, value in zip(self.columns, self.ops, self.values):
            if column >= matrix.shape[1]:
                raise ValueError(
                    f"matrix has {matrix.shape[1]} columns but the event uses column {column}"
                )
            inside &= (matrix[:, column] == value) if op == "==" else (matrix[:, column] > value)
        return inside

    def count(self, matrix: np.ndarray) -> int:
        """Number of reports in the event."""
        return int(np.count_nonzero(self.mask(matrix)))

    def __str__(self) -> str:
        return " and ".join(
            f"y[{c}] {op} {v:g}" for c, op, v in zip(self.columns, self.ops, self.values)
        )


def _conditions(pooled: np.ndarray) -> list[list[tuple[int, str, float]]]:
    """Per column, its candidate conditions (each observed value, or the decile thresholds)."""
    out = []
    for j in range(pooled.shape[1]):
        values = np.unique(pooled[:, j])
        if values.size <= MAX_DISCRETE_VALUES:
            out.append([(j, "==", float(v)) for v in values] if values.size > 1 else [])
        else:
            cuts = np.unique(np.quantile(pooled[:, j], np.linspace(0.1, 0.9, N_THRESHOLDS)))
            out.append([(j, ">", float(t)) for t in cuts])
    return out


def _distinct_rows(pooled: np.ndarray) -> np.ndarray | None:
    """``np.unique(pooled, axis=0)`` (the distinct rows, in lexicographic order) when there are at most
    :data:`MAX_OUTCOMES` of them, else None: each row coded column by column as its rank among the distinct
    prefixes (1-D integer sorts instead of a sort of whole rows), stopping once the prefixes are too many."""
    code = np.zeros(pooled.shape[0], np.int64)
    for column in pooled.T:
        values, rank = np.unique(column, return_inverse=True)
        kept, code = np.unique(code * values.size + rank.ravel(), return_inverse=True)
        if kept.size > MAX_OUTCOMES:
            return None
    first = np.unique(code, return_index=True)[1]
    return pooled[first]


def _candidate_events(matrix0: np.ndarray, matrix1: np.ndarray) -> list[Event]:
    """Candidate events from the pilot reports of the two inputs (singles, pairs, whole outcomes)."""
    pooled = np.vstack((matrix0, matrix1))
    per_column = _conditions(pooled)
    events = [Event((c,), (op,), (v,)) for conditions in per_column for c, op, v in conditions]
    if pooled.shape[1] <= MAX_PAIR_COLUMNS:
        for a, b in itertools.combinations(range(len(per_column)), 2):
            for (ca, oa, va), (cb, ob, vb) in itertools.product(per_column[a], per_column[b]):
                events.append(Event((ca, cb), (oa, ob), (va, vb)))
    outcomes = _distinct_rows(pooled) if pooled.shape[1] > 1 else None
    if outcomes is not None:
        width = tuple(range(pooled.shape[1]))
        events += [
            Event(width, ("==",) * len(width), tuple(float(v) for v in row)) for row in outcomes
        ]
    return events


def choose_event(
    matrix0: np.ndarray, matrix1: np.ndarray, *, confidence: float, bound
) -> tuple[Event, bool]:
    """The pilot's best event and orientation: ``(event, swap)``, ``swap`` meaning x₁ is the likelier input.

    ``bound(count0, n0, count1, n1)`` is the lower bound to maximise (the auditor's Clopper–Pearson
    ε_lb at the audit's confidence), called once per orientation with arrays of counts (one entry per
    candidate event) and returning an array.  Ties go to the earlier candidate, x₀'s orientation first.
    """
    matrix0 = check_real_array("matrix0", matrix0, ndim=2, what="(reports × columns)")
    matrix1 = check_real_array(
        "matrix1", matrix1, ndim=2, last=matrix0.shape[1], what="(reports × columns)"
    )
    check_real("confidence", confidence, low=0.0, high=1.0)
    check_callable(
        "bound", bound, "a callable bound(count0, n0, count1, n1) -> array, on count arrays"
    )
    n0, n1 = matrix0.shape[0], matrix1.shape[0]
    events = _candidate_events(matrix0, matrix1)
    if not events:
        raise ValueError(
            "the pilot reports are identical for both inputs and constant: no event distinguishes them"
        )
    k0 = np.array([np.count_nonzero(event._mask(matrix0)) for event in events])
    k1 = np.array([np.count_nonzero(event._mask(matrix1)) for event in events])
    values = np.column_stack([bound(k0, n0, k1, n1), bound(k1, n1, k0, n0)])  # (event, swap)
    if values.shape != (len(events), 2):
        raise ValueError(
            f"bound must return one number per candidate event: shape {(len(events), 2)} over both "
            f"orientations, got {values.shape}"
        )
    values = np.where(np.isnan(values), -np.inf, values)  # a NaN bound never wins, as −∞ does not
    if not (values > -np.inf).any():
        raise ValueError(
            "no event distinguishes the inputs: the bound is −∞ (or NaN) for every candidate event"
        )
    index, swap = divmod(int(np.argmax(values)), 2)
    return events[index], bool(swap)
