"""Checkers for the coding exercises: a student's function against the exact law, answered in words.

Every mechanism of the collection has an exact output table and an exact ε, so a student's code can
be checked exactly rather than eyeballed:

* :func:`~ldp_helpers.teaching.client.check_client` runs a student's randomizer on one batch of
  users with *mixed* inputs and checks the law per input, the ε and the independence of the reports;
* :func:`check_output_table` takes a student's own output table, checks that it is one (rows are
  distributions), computes its exact ε and compares it, and the table cell by cell, with the asked ones;
* :func:`check_estimator` draws exact surveys with the mechanism's aggregate sampler, applies a
  student's estimator and compares the mean *and* the variance of its estimates with the exact ones;
* :func:`check_chernoff_bound` compares a student's multiplicative Chernoff bound with the exact
  binomial tail (it must bound it) and with the formula ([mitzenmacher2005] Theorem 4.4).

The student's code runs in a child process with a time limit and a memory limit
(:mod:`ldp_helpers.teaching._sandbox`); what it returns is checked by its shape and type before any
conversion.  Each checker returns a :class:`Check`: ``passed`` and a ``message`` that says what is
wrong and for which input, naming a scale or type error when it sees one (a frequency where a count
is asked, a transposed table, a missing ``return``).  Fixed seeds make every verdict reproducible;
the thresholds (χ² p-value ``ALPHA`` over all rows, ``Z_MAX`` standard errors) make a correct
solution pass with overwhelming probability.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import (
    Described,
    check_instance,
    check_int,
    check_probabilities,
    check_real,
    fail,
    fail_type,
)
from ldp_helpers.bounds.chernoff import tail_comparison
from ldp_helpers.bounds.chernoff import upper as chernoff_upper
from ldp_helpers.mechanisms.base import Mechanism
from ldp_helpers.mechanisms.privacy import max_privacy_loss
from ldp_helpers.teaching._sandbox import Failed, run_limited

ALPHA = 1e-4  # a correct client fails the χ² test of some row with probability at most ALPHA
Z_MAX = 5.0  # a statistic may sit this many standard errors from its exact value
EPS_RTOL = 1e-9  # relative tolerance on the exact ε of a student's table
MAX_CALLS = 10**6  # reports (or surveys) one check may ask of the student's function
MAX_TABLE = 10**7  # entries of a student's table
TIME_LIMIT = 60.0  # seconds the student's code may take in one check


@dataclass(frozen=True)
class Check:
    """A checker's answer: did the student's function pass, and why (or why not), in words."""

    passed: bool
    message: str

    def __str__(self) -> str:
        return ("PASSED: " if self.passed else "NOT YET: ") + self.message


def _callable(name: str, fn):
    if not callable(fn) or isinstance(fn, type):
        fail_type(name, fn, "a function (the one you wrote)")
    return fn


def _time_limit(time_limit) -> float:
    return check_real("time_limit", time_limit, low=0.0, high=3600.0, high_open=False)


def _failed(outcome) -> Check | None:
    """NOT YET, saying why, when the student's code failed (:class:`Failed`) or returned a sentence."""
    if isinstance(outcome, Failed | str):
        return Check(False, outcome if isinstance(outcome, str) else outcome.message)
    return None


# ---------------------------------------------------------------- a table: a distribution per row, its exact ε
def check_output_table(table, *, epsilon: float, reference=None) -> Check:
    """Is a student's ``table`` an output table with exact ε equal to ``epsilon`` (and the ``reference``)?

    The exact ε (the largest log-ratio within a column) must equal ``epsilon`` within the relative
    tolerance ``EPS_RTOL``; with ``reference`` every cell must equal the exact one within 1e-9.

    Parameters
    ----------
    table : array_like, shape (n_inputs, n_outputs)
        The student's table ``P[x, y] = Pr[report y | input x]``.
    epsilon : float
        The exact ε the table should have.
    reference : array_like or None
        The exact table, to name the first cell where the student's differs.

    Returns
    -------
    Check

    References
    ----------
    [tutorial] Eq. (2) (ε-LDP as a bound on the ratios within each column).
    """
    epsilon = check_real("epsilon", epsilon, low=0.0)
    if reference is not None:
        reference = check_probabilities("reference", reference, ndim=2)
    if table is None:
        return Check(False, "your table is None (is a `return` missing?)")
    try:
        arr = table if isinstance(table, np.ndarray) else np.asarray(table)
    except ValueError:
        return Check(False, "your table is a ragged list: every row needs one entry per output")
    if arr.dtype.kind not in "biuf":
        return Check(False, f"your table holds {arr.dtype} entries, not numbers (probabilities)")
    if arr.ndim != 2:
        return Check(
            False,
            f"your table has shape {arr.shape}; an output table has one row per input and one "
            f"column per output",
        )
    if reference is not None and arr.shape != reference.shape:
        turned = (
            " — it looks transposed: rows are inputs, columns outputs"
            if arr.shape == reference.shape[::-1]
            else ""
        )
        return Check(
            False, f"your table has shape {arr.shape}, the exact one {reference.shape}{turned}"
        )
    if arr.size > MAX_TABLE:
        return Check(
            False, f"your table has {arr.size} entries, more than a checker reads ({MAX_TABLE})"
        )
    student = arr.astype(float)
    sums = student.sum(axis=1)
    if np.all(np.isfinite(student)) and student.min() >= 0 and np.allclose(sums, 100.0, atol=1e-6):
        return Check(
            False,
            "your rows sum to 100: these look like percentages; an output table holds "
            "probabilities (divide by 100)",
        )
    if not np.all(np.isfinite(student)) or student.min() < 0 or student.max() > 1:
        return Check(False, "your table has an entry outside [0, 1]: every entry is a probability")
    if not np.allclose(sums, 1.0, atol=1e-9):
        row = int(np.argmax(np.abs(sums - 1)))
        turned = (
            " (its columns do: transposed?)"
            if np.allclose(student.sum(axis=0), 1.0, atol=1e-9)
            else ""
        )
        return Check(
            False,
            f"row {row} of your table sums to {sums[row]:.6g}; each row is a distribution over "
            f"the outputs and must sum to 1{turned}",
        )
    loss = max_privacy_loss(student, atol=1e-9) if student.shape[0] > 1 else 0.0
    if not math.isclose(loss, epsilon, rel_tol=EPS_RTOL, abs_tol=1e-12):
        return Check(
            False,
            f"the exact ε of your table is {loss:.6g} (largest log-ratio within a column), "
            f"not {epsilon:.6g} (relative tolerance {EPS_RTOL:g})",
        )
    if reference is not None:
        off = np.abs(student - reference) > 1e-9
        if off.any():
            x, y = (int(i) for i in np.argwhere(off)[0])
            return Check(
                False,
                f"row {x}, column {y} of your table is {student[x, y]:.6g}; the exact "
                f"probability is {reference[x, y]:.6g} ({int(off.sum())} cells differ; your "
                f"table has the right ε but is another table)",
            )
    return Check(
        True,
        f"your table is {'the exact' if reference is not None else 'an'} output table; its "
        f"exact ε is {loss:.6g} (relative tolerance {EPS_RTOL:g}).",
    )


# ---------------------------------------------------------------- an estimator: mean and variance
def check_estimator(
    estimate,
    mechanism,
    truth,
    *,
    n_draws: int = 2000,
    seed: int = 0,
    time_limit: float = TIME_LIMIT,
) -> Check:
    """Do ``estimate(aggregate, n)``'s estimates have the exact mean and variance on ``truth``?

    ``n_draws`` exact surveys are drawn with ``mechanism.sample_aggregate`` (fixed ``seed``) and the
    student's estimator is applied to each.  Per entry, the mean of its estimates must be within
    ``Z_MAX`` standard errors ``sqrt(variance / n_draws)`` of the exact mean of the mechanism's
    estimator (``expected_estimate``), and their sample variance within ``Z_MAX`` standard errors of
    the exact variance (``variance``; the standard error of a sample variance,
    ``sqrt(max(m4 - s⁴, 2σ⁴) / n_draws)``).  A mean off by a factor n is named a frequency given for
    a count (or the reverse); a mean equal to the raw aggregate, a missing debiasing.

    Parameters
    ----------
    estimate : callable
        The student's estimator, ``estimate(aggregate, n) -> estimates`` (one per value or round).
    mechanism : Mechanism
        The mechanism whose aggregates are drawn.
    truth : object
        The population summary the mechanism samples (e.g. the true counts).
    n_draws : int
        Simulated surveys.
    seed : int
        Seed of the sampler.
    time_limit : float
        Seconds the ``n_draws`` calls may take together.

    Returns
    -------
    Check
    """
    estimate = _callable("estimate", estimate)
    check_instance(
        "mechanism",
        mechanism,
        Mechanism,
        "a mechanism of the collection (e.g. ldp_helpers.GRR(epsilon, d))",
    )
    n_draws = check_int("n_draws", n_draws, low=100, high=MAX_CALLS)
    time_limit = _time_limit(time_limit)
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    try:  # the mechanism validates its truth
        target = np.asarray(mechanism.expected_estimate(truth), dtype=float)
    except ValueError as err:
        fail("truth", Described(f"{truth!r:.80}"), f"a truth of {type(mechanism).__name__} ({err})")
    variance = np.asarray(mechanism.variance(truth), dtype=float)
    n = int(np.sum(mechanism.n_reports(truth)))
    aggregates = mechanism.sample_aggregate(truth, rng=rng, n_draws=n_draws)
    what = f"your estimator (called on {n_draws} exact surveys of n = {n} users)"
    values = run_limited(
        lambda: _estimates(estimate, aggregates, n, target.shape), time_limit=time_limit, what=what
    )
    if (failed := _failed(values)) is not None:
        return failed
    if not np.all(np.isfinite(values)):
        return Check(
            False,
            "your estimator returned a NaN or an infinity on some survey (a division by zero?)",
        )
    mean, se = values.mean(axis=0), np.sqrt(variance / n_draws)
    z = (mean - target) / np.maximum(se, 1e-12 * np.maximum(np.abs(target), 1.0))
    i = int(np.argmax(np.abs(z)))
    if abs(z.flat[i]) > Z_MAX:
        return Check(
            False,
            f"your estimator is biased: for estimate [{i}] its mean over {n_draws} exact "
            f"surveys is {mean.flat[i]:.6g}, the exact mean is {target.flat[i]:.6g} "
            f"({abs(z.flat[i]):.1f} standard errors off; at most {Z_MAX:g} allowed)"
            + _scale_hint(mean, target, se, n, aggregates.mean(axis=0)),
        )
    s2 = values.var(axis=0, ddof=1)
    m4 = np.mean((values - mean) ** 4, axis=0)
    se_var = np.sqrt(np.maximum(m4 - s2**2, 2 * variance**2) / n_draws)
    z_var = (s2 - variance) / np.maximum(se_var, 1e-300)
    j = int(np.argmax(np.abs(z_var)))
    if abs(z_var.flat[j]) > Z_MAX:
        ratio = s2.flat[j] / variance.flat[j] if variance.flat[j] > 0 else math.inf
        hint = (
            " — your estimates hardly vary between surveys: does your estimator use the aggregate?"
            if ratio < 0.01
            else " — an error that changes sign from survey to survey cancels in the "
            "mean but not in the variance"
            if ratio > 100
            else ""
        )
        return Check(
            False,
            f"your estimator's spread is wrong: for estimate [{j}] the variance of its "
            f"estimates over {n_draws} exact surveys is {s2.flat[j]:.4g}, the exact "
            f"variance is {variance.flat[j]:.4g} ({ratio:.3g} times; "
            f"{abs(z_var.flat[j]):.1f} standard errors off, at most {Z_MAX:g}){hint}",
        )
    return Check(
        True,
        f"your estimator has the exact mean and variance on every entry ({n_draws} exact "
        f"surveys; largest deviations {np.abs(z).max():.2f} SE in the mean, "
        f"{np.abs(z_var).max():.2f} SE in the variance).",
    )


def _estimates(estimate, aggregates, n: int, shape: tuple):
    """In the child: the student's estimates of every survey, shape (n_draws, *shape), or a sentence."""
    out = np.empty((len(aggregates), *shape))
    for r, aggregate in enumerate(aggregates):
        value = _numbers(estimate(aggregate.copy(), n), shape, "your estimator")
        if isinstance(value, str):
            return value
        out[r] = value
    return out


def _numbers(value, shape: tuple, what: str):
    """``value`` as floats of ``shape``, or a sentence naming the type or shape error (checked first)."""
    if value is None:
        return f"{what} returned None (is a `return` missing?)"
    if isinstance(value, str | bytes | dict | set):
        return f"{what} returned a {type(value).__name__}; expected numbers of shape {shape}"
    try:
        arr = value if isinstance(value, np.ndarray) else np.asarray(value)
    except ValueError:
        return f"{what} returned a ragged list; expected numbers of shape {shape}"
    if arr.shape != shape:
        kind = "one number" if arr.ndim == 0 else f"an array of shape {arr.shape}"
        turned = " (transposed?)" if arr.ndim > 1 and arr.shape == shape[::-1] else ""
        return f"{what} returned {kind}{turned}; expected shape {shape}: one estimate per entry"
    if arr.dtype.kind not in "biuf":
        return f"{what} returned {arr.dtype} values (e.g. {arr.flat[0]!r:.40}); expected numbers"
    return arr.astype(float)


def _scalars(fn, points, call: str):
    """In the child: ``fn(*point)`` at every point as a float, or a sentence naming a type error (the call
    named by ``call.format(*point)``)."""
    values = []
    for point in points:
        value = _numbers(fn(*point), (), call.format(*point))
        if isinstance(value, str):
            return value
        values.append(float(value))
    return values


def _scale_hint(mean, target, se, n: int, aggregate_mean) -> str:
    """A sentence naming a scale error, when the mean is the target scaled by n, or the raw aggregate."""

    def near(a, b):
        return bool(np.all(np.abs(a - b) <= Z_MAX * se + 0.02 * np.abs(b)))

    if near(mean * n, target):
        return (
            f". Your estimates look like frequencies (counts divided by n = {n}) where counts are "
            f"asked: multiply by n"
        )
    if near(mean / n, target):
        return (
            f". Your estimates look like counts (frequencies times n = {n}) where frequencies are "
            f"asked: divide by n"
        )
    if np.shape(aggregate_mean) == np.shape(target) and near(mean, aggregate_mean):
        return (
            ". Your estimates average to the raw aggregate: the debiasing (remove the expected false "
            "reports, divide by p − q) is missing"
        )
    if near(-mean, target):
        return ". Your estimates have the wrong sign"
    return ""


# ---------------------------------------------------------------- a bound: above the exact tail, the formula
#: the grid on which a Chernoff bound is checked: deviations δ and means μ
DELTAS = (0.1, 0.5, 1.0, 2.0, 4.0)
MUS = (1.0, 5.0, 20.0, 100.0)


def check_chernoff_bound(bound, *, n_trials: int = 10_000, time_limit: float = TIME_LIMIT) -> Check:
    """Is ``bound(delta, mu)`` the multiplicative Chernoff bound ``(e^δ/(1+δ)^{1+δ})^μ``, and a bound?

    On the grid ``DELTAS × MUS``: the student's value must be at least the exact tail
    ``Pr[X ≥ (1+δ)μ]`` of ``X ~ Bin(n_trials, μ/n_trials)`` (a sum of independent Bernoullis with mean μ),
    and equal the formula.

    Parameters
    ----------
    bound : callable
        The student's bound, ``bound(delta, mu) -> float``.
    n_trials : int
        Bernoulli trials of the binomial whose exact tail the bound must dominate.
    time_limit : float
        Seconds the calls may take together.

    Returns
    -------
    Check

    References
    ----------
    [mitzenmacher2005] Theorem 4.4.
    """
    bound = _callable("bound", bound)
    n_trials = check_int("n_trials", n_trials, low=int(4 * max(MUS)), high=10**9)
    grid = [(delta, mu) for mu in MUS for delta in DELTAS]
    values = run_limited(
        lambda: _scalars(bound, grid, "bound(delta={}, mu={})"),
        time_limit=_time_limit(time_limit),
        what="your bound",
    )
    if (failed := _failed(values)) is not None:
        return failed
    # first: is it a bound at all? (above the exact tail Pr[X ≥ (1+δ)μ] everywhere)
    for (delta, mu), value in zip(grid, values, strict=True):
        exact_tail = float(tail_comparison("upper", n_trials, mu / n_trials, delta)[1])
        if not value >= exact_tail:
            return Check(
                False,
                f"at δ = {delta}, μ = {mu} your bound is {value:.4g}, below the exact tail "
                f"Pr[X ≥ {(1 + delta) * mu:g}] = {exact_tail:.4g}: it is not an upper bound",
            )
    for (delta, mu), value in zip(grid, values, strict=True):  # then: is it this bound?
        formula = float(chernoff_upper(delta, mu))
        if not math.isclose(value, formula, rel_tol=1e-9, abs_tol=1e-300):
            return Check(
                False,
                f"at δ = {delta}, μ = {mu} your bound is {value:.6g}; (e^δ/(1+δ)^(1+δ))^μ = "
                f"{formula:.6g} (yours is a valid bound on this grid, but not this one)",
            )
    return Check(
        True,
        f"your bound equals (e^δ/(1+δ)^(1+δ))^μ and lies above the exact binomial tail at all "
        f"{len(DELTAS) * len(MUS)} points (δ in {DELTAS}, μ in {MUS}).",
    )
