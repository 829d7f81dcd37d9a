"""Checkers for the coding exercises: a student's function against the exact law, answered in words.

Every mechanism of the collection has an exact output table and an exact ε, so a student's code can
be checked exactly rather than eyeballed:

* :func:`check_client` runs a student's randomizer on every input at a fixed seed and compares the
  reports with the exact output table (Pearson's χ², one test per input row);
* :func:`check_output_table` takes a student's own output table, checks that it is one (rows are
  distributions), compares it with the exact table and computes its exact ε;
* :func:`check_estimator` draws exact surveys with the mechanism's aggregate sampler, applies a
  student's estimator and checks that it is unbiased within a few standard errors of the exact variance;
* :func:`check_chernoff_bound` compares a student's multiplicative Chernoff bound with the exact
  binomial tail (it must bound it) and with the formula ([mitzenmacher2005] Theorem 4.4).

Each returns a :class:`Check`: ``passed`` and a ``message`` that says what is wrong and for which input.
Fixed seeds make every verdict reproducible; the thresholds (χ² p-value ``ALPHA`` over all rows, ``Z_MAX``
standard errors) make a correct solution pass with overwhelming probability.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ldp_helpers._validation import (Described, check_int, check_int_array, check_ndim, check_real, check_real_array, fail,
                                    fail_type)
from ldp_helpers.bounds.chernoff import upper as chernoff_upper
from ldp_helpers.mechanisms.base import Mechanism
from ldp_helpers.mechanisms.privacy import max_privacy_loss

ALPHA = 1e-4  # a correct client fails the χ² test of some row with probability at most ALPHA
Z_MAX = 5.0  # an estimator's mean may sit this many standard errors from the exact mean
MAX_CALLS = 10**6  # reports (or surveys) one check may ask of the student's function


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


def _student_error(what: str, err: Exception) -> Check:
    return Check(False, f"{what} raised {type(err).__name__}: {err}")


def check_client(perturb, table, inputs, *, n_per_input: int = 4000, seed: int = 0) -> Check:
    """Does ``perturb(values, rng)`` draw its reports from the exact output ``table``?

    For each input ``inputs[x]`` the student's client perturbs ``n_per_input`` copies (one call,
    ``values`` of shape ``(n_per_input,)`` for value inputs or ``(n_per_input, k)`` for bit-vector inputs)
    with a Generator seeded by ``seed``; its reports are counted per output and compared with row x of
    ``table`` by Pearson's χ² test.  A report is a value in ``[0, n_outputs)`` or a bit vector y, the
    output ``Σ_i y_i 2^i`` (bit 0 first, the convention of the package's tables).

    Parameters
    ----------
    perturb : callable
        The student's client, ``perturb(values, rng) -> reports``.
    table : array_like, shape (n_inputs, n_outputs)
        The exact law, ``table[x, y] = Pr[report y | input x]`` (e.g. ``mechanism.output_table()``).
    inputs : array_like of int, shape (n_inputs,) or (n_inputs, k)
        The input of each row: a value, or a bit vector.
    n_per_input : int
        Reports drawn per input.
    seed : int
        Seed of the Generator handed to the student's function.

    Returns
    -------
    Check

    References
    ----------
    [tutorial] Eq. (2) (a randomizer is its output table).
    """
    perturb = _callable("perturb", perturb)
    table = check_ndim("table", check_real_array("table", table, low=0.0, high=1.0, low_open=False, high_open=False), 2)
    inputs = check_ndim("inputs", check_int_array("inputs", inputs, low=0), (1, 2), what="(one value or bit vector per row)")
    if inputs.shape[0] != table.shape[0]:
        fail("inputs", Described(f"{inputs.shape[0]} inputs"), f"one input per row of table ({table.shape[0]} rows)")
    n = check_int("n_per_input", n_per_input, low=50, high=MAX_CALLS // table.shape[0])
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    n_out, results = table.shape[1], []
    for x, value in enumerate(inputs):
        values = np.repeat(value[None, ...], n, axis=0) if inputs.ndim == 2 else np.full(n, value)
        try:
            reports = np.asarray(perturb(values.copy(), rng))
        except Exception as err:  # the student's code: say what it raised, for which input
            return _student_error(f"your client, called with {n} copies of input {_show(value)},", err)
        try:
            column = _columns(reports, n, n_out)
        except (TypeError, ValueError):
            column = "your client returned something other than integers (values or 0/1 bits)"
        if isinstance(column, str):
            return Check(False, f"for input {_show(value)}: {column}")
        observed = np.bincount(column, minlength=n_out)
        expected = n * table[x]
        impossible = (expected == 0) & (observed > 0)
        if impossible.any():
            y = int(np.flatnonzero(impossible)[0])
            return Check(False, f"for input {_show(value)} your client reported output {_show_output(y, reports)}, "
                                f"which the exact law never produces (probability 0)")
        used = expected > 0
        chi2 = float(np.sum((observed[used] - expected[used]) ** 2 / expected[used]))
        p_value = float(stats.chi2.sf(chi2, max(int(used.sum()) - 1, 1)))
        results.append((p_value, x, value, observed, expected, reports))
    p_value, x, value, observed, expected, reports = min(results, key=lambda r: r[0])
    if p_value < ALPHA / len(results):
        y = int(np.argmax(np.abs(observed - expected) / np.sqrt(np.maximum(expected, 1e-300))))
        return Check(False, f"for input {_show(value)} your reports do not follow the exact law: output "
                            f"{_show_output(y, reports)} came {observed[y] / n:.1%} of the time, the exact probability is {expected[y] / n:.1%} "
                            f"(χ² test over {n} reports, p = {p_value:.2g}).")
    return Check(True, f"your client matches the exact output table for all {len(results)} inputs "
                       f"({n} reports each; smallest χ² p-value {p_value:.2g}, threshold {ALPHA / len(results):.2g}).")


def _show(value) -> str:
    return str(int(value)) if np.ndim(value) == 0 else "bits " + "".join(str(int(b)) for b in value)


def _show_output(y: int, reports) -> str:
    return str(y) if np.ndim(reports) == 1 else f"bits {''.join(str((y >> i) & 1) for i in range(reports.shape[1]))}"


def _columns(reports: np.ndarray, n: int, n_out: int):
    """The output index of each report, or a sentence saying why the reports are malformed."""
    if reports.shape[:1] != (n,) or reports.ndim not in (1, 2):
        return f"your client returned an array of shape {reports.shape}; expected one report per user ({n} rows)"
    if reports.dtype == object or not np.all(np.isfinite(reports.astype(float))) or np.any(reports != np.round(reports)):
        return "your client returned something other than integers (values or 0/1 bits)"
    reports = reports.astype(np.int64)
    if reports.ndim == 1:
        if reports.min() < 0 or reports.max() >= n_out:
            return f"your client reported {int(reports.min() if reports.min() < 0 else reports.max())}, outside [0, {n_out})"
        return reports
    bits = reports.shape[1]
    if 2**bits != n_out:
        return f"your reports have {bits} bits each; the exact law has {n_out} outputs ({int(math.log2(n_out))} bits)"
    if reports.min() < 0 or reports.max() > 1:
        return "your reports should be bit vectors of 0s and 1s"
    return reports @ (1 << np.arange(bits))


def check_output_table(table, *, epsilon: float, reference=None) -> Check:
    """Is a student's ``table`` an output table, the exact one (``reference``), with exact ε equal to ``epsilon``?

    Parameters
    ----------
    table : array_like, shape (n_inputs, n_outputs)
        The student's table ``P[x, y] = Pr[report y | input x]``.
    epsilon : float
        The exact ε the table should have (its largest log-ratio within a column).
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
        reference = check_ndim("reference", check_real_array("reference", reference, low=0.0, high=1.0,
                                                             low_open=False, high_open=False), 2)
    arr = np.asarray(table, dtype=object)
    try:
        student = np.asarray(table, dtype=float)
    except (TypeError, ValueError):
        return Check(False, f"your table is not an array of numbers (got {type(table).__name__} of shape {arr.shape})")
    if student.ndim != 2:
        return Check(False, f"your table has shape {student.shape}; an output table has one row per input and one column per output")
    if not np.all(np.isfinite(student)) or student.min() < 0 or student.max() > 1:
        return Check(False, "your table has an entry outside [0, 1]: every entry is a probability")
    sums = student.sum(axis=1)
    if not np.allclose(sums, 1.0, atol=1e-9):
        row = int(np.argmax(np.abs(sums - 1)))
        return Check(False, f"row {row} of your table sums to {sums[row]:.6g}; each row is a distribution over the "
                            f"outputs and must sum to 1")
    if reference is not None:
        if student.shape != reference.shape:
            return Check(False, f"your table has shape {student.shape}, the exact one {reference.shape}")
        off = np.abs(student - reference) > 1e-9
        if off.any():
            x, y = (int(i) for i in np.argwhere(off)[0])
            return Check(False, f"row {x}, column {y} of your table is {student[x, y]:.6g}; the exact probability is "
                                f"{reference[x, y]:.6g} ({int(off.sum())} cells differ)")
    loss = max_privacy_loss(student, atol=1e-9)
    if not math.isclose(loss, epsilon, rel_tol=1e-9, abs_tol=1e-12):
        return Check(False, f"the exact ε of your table is {loss:.6g} (largest log-ratio within a column), "
                            f"not {epsilon:.6g}")
    return Check(True, f"your table is the exact output table; its exact ε is {loss:.6g}.")


def check_estimator(estimate, mechanism, truth, *, n_draws: int = 2000, seed: int = 0) -> Check:
    """Is ``estimate(aggregate, n)`` unbiased for ``mechanism`` on ``truth``, within ``Z_MAX`` standard errors?

    ``n_draws`` exact surveys are drawn with ``mechanism.sample_aggregate`` (fixed ``seed``); the student's
    estimator is applied to each, and its mean is compared with the exact mean of the mechanism's own
    estimator (``expected_estimate``, the true value when the mechanism is unbiased), the standard error
    being ``sqrt(variance / n_draws)`` from the exact variance.

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

    Returns
    -------
    Check
    """
    estimate = _callable("estimate", estimate)
    if not isinstance(mechanism, Mechanism):
        fail_type("mechanism", mechanism, "a mechanism of the collection (e.g. ldp_helpers.GRR(epsilon, d))")
    n_draws = check_int("n_draws", n_draws, low=100, high=MAX_CALLS)
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    try:  # the mechanism validates its truth
        target = np.asarray(mechanism.expected_estimate(truth), dtype=float)
    except ValueError as err:
        fail("truth", Described(f"{truth!r:.80}"), f"a truth of {type(mechanism).__name__} ({err})")
    se = np.sqrt(np.asarray(mechanism.variance(truth), dtype=float) / n_draws)
    n = int(np.sum(mechanism.n_reports(truth)))
    aggregates = mechanism.sample_aggregate(truth, rng=rng, n_draws=n_draws)
    values = []
    for aggregate in aggregates:
        try:
            values.append(np.asarray(estimate(aggregate.copy(), n), dtype=float))
        except Exception as err:  # the student's code
            return _student_error(f"your estimator, called with an aggregate of shape {aggregate.shape} and n = {n},", err)
        if values[-1].shape != target.shape:
            return Check(False, f"your estimator returned shape {values[-1].shape}; expected {target.shape} "
                                f"(one estimate per {'value' if target.ndim == 1 else 'entry'})")
    values = np.array(values)
    if not np.all(np.isfinite(values)):
        return Check(False, "your estimator returned a NaN or an infinity on some survey (a division by zero?)")
    mean = values.mean(axis=0)
    z = (mean - target) / np.maximum(se, 1e-12 * np.maximum(np.abs(target), 1.0))
    worst = int(np.argmax(np.abs(z)))
    if abs(z.flat[worst]) > Z_MAX:
        return Check(False, f"your estimator is biased: for estimate [{worst}] its mean over {n_draws} exact surveys is "
                            f"{mean.flat[worst]:.6g}, the exact mean is {target.flat[worst]:.6g} "
                            f"({abs(z.flat[worst]):.1f} standard errors off; at most {Z_MAX:g} allowed)")
    return Check(True, f"your estimator is unbiased within {Z_MAX:g} standard errors on every entry "
                       f"({n_draws} exact surveys; largest deviation {abs(z.flat[worst]):.2f} SE).")


#: the grid on which a Chernoff bound is checked: deviations δ and means μ
DELTAS = (0.1, 0.5, 1.0, 2.0, 4.0)
MUS = (1.0, 5.0, 20.0, 100.0)


def check_chernoff_bound(bound, *, n_trials: int = 10_000) -> Check:
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

    Returns
    -------
    Check

    References
    ----------
    [mitzenmacher2005] Theorem 4.4.
    """
    bound = _callable("bound", bound)
    n_trials = check_int("n_trials", n_trials, low=int(4 * max(MUS)), high=10**9)
    points = []
    for mu in MUS:
        for delta in DELTAS:
            try:
                value = float(bound(delta, mu))
            except Exception as err:  # the student's code
                return _student_error(f"bound(delta={delta}, mu={mu})", err)
            exact_tail = float(stats.binom.sf(math.ceil((1 + delta) * mu) - 1, n_trials, mu / n_trials))
            points.append((delta, mu, value, exact_tail, float(chernoff_upper(delta, mu))))
    for delta, mu, value, exact_tail, _ in points:  # first: is it a bound at all?
        if not value >= exact_tail:
            return Check(False, f"at δ = {delta}, μ = {mu} your bound is {value:.4g}, below the exact tail "
                                f"Pr[X ≥ {(1 + delta) * mu:g}] = {exact_tail:.4g}: it is not an upper bound")
    for delta, mu, value, _, formula in points:  # then: is it this bound?
        if not math.isclose(value, formula, rel_tol=1e-9, abs_tol=1e-300):
            return Check(False, f"at δ = {delta}, μ = {mu} your bound is {value:.6g}; (e^δ/(1+δ)^(1+δ))^μ = "
                                f"{formula:.6g} (yours is a valid bound on this grid, but not this one)")
    return Check(True, f"your bound equals (e^δ/(1+δ)^(1+δ))^μ and lies above the exact binomial tail at all "
                       f"{len(DELTAS) * len(MUS)} points (δ in {DELTAS}, μ in {MUS}).")
