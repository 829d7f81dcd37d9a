"""Every mechanism of ``ALL_MECHANISMS`` (the registry plus the protocols' entries) refuses bad input
on every method of the contract, and is reproducible per seed.

The constructor (same field values, one replaced by a bad value of its kind), ``perturb``,
``aggregate``, ``sample_aggregate`` (truth, ``n_draws``, ``rng``), ``estimate`` (aggregate, n),
``variance``, ``expand``, ``estimand``, ``n_reports`` and ``expected_estimate`` (truth) are probed with the strategies of ``strategies.py``.
"""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp_helpers.protocols.registry import ALL_MECHANISMS

from .harness import REFUSAL_BYTES, Hang, call_refused
from .strategies import _Opaque, bad_values, seeds

MECHANISM_KEYS = sorted(ALL_MECHANISMS)
#: refusals the protocols (owned by another helper) still get wrong: strict xfail, so a fix turns them red
#: until the entry is removed here
KNOWN_DEFECTS: dict = {}  # key -> reason: a strict xfail until the mechanism is fixed (none open)


def _keys_with_defects():
    return [
        pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=KNOWN_DEFECTS[k]))
        if k in KNOWN_DEFECTS
        else k
        for k in MECHANISM_KEYS
    ]


#: a frequency oracle's truth is its vector of true counts, named so in its messages
ALIASES = {"truth": ("truth", "true_counts")}
BAD_TRUTHS = st.sampled_from(
    [
        None,
        "x",
        _Opaque(),
        np.array([]),
        np.array([-1, 2]),
        np.array([np.nan, 1.0]),
        np.zeros((2, 2, 2, 2)),
    ]
)
BAD_N_DRAWS = st.sampled_from([0, -1, 2.5, "x", 10**12, 2**63, np.nan])
BAD_RNGS = st.sampled_from([None, 0, "x", np.random.SeedSequence(0)])
#: bad per-user inputs: 0-based domain values for every family but "mean", whose inputs are reals in [−r, r]
BAD_VALUES = [None, "x", np.array([]), np.array([-1]), np.array([10**9]), np.array([0.5])]
BAD_MEAN_VALUES = [None, "x", np.array([]), np.array([-1.5]), np.array([10**9]), np.array([np.nan])]


def _example(key):
    entry = ALL_MECHANISMS[key]
    mech = entry.example()
    return mech, entry.example_truth(mech)


def _refused(func, kwargs, name, shown):
    outcome, seconds, peak = call_refused(func, kwargs)
    assert not isinstance(outcome, Hang), f"{shown} hangs"
    assert isinstance(outcome, (ValueError, TypeError)), (
        f"{shown}: {type(outcome).__name__}: {outcome!r:.200}"
    )
    names = ALIASES.get(name, (name,))
    assert any(n in str(outcome) for n in names), f"{shown} blames the wrong parameter: {outcome}"
    assert peak < REFUSAL_BYTES, f"{shown}: allocated {peak} bytes before refusing"


def _fields(mech):
    return {f.name: getattr(mech, f.name) for f in dataclasses.fields(mech) if f.init}


@pytest.mark.parametrize("key", MECHANISM_KEYS)
@given(data=st.data())
def test_constructor_refuses_bad_fields(key, data):
    mech, _ = _example(key)
    fields = _fields(mech)
    probed = [n for n, v in fields.items() if not isinstance(v, (str, bool))]
    name = data.draw(st.sampled_from(probed), label="field")
    default = inspect.signature(type(mech)).parameters[name].default
    bad = data.draw(bad_values(name, fields[name], none_ok=default is None), label=name)
    _refused(type(mech), {**fields, name: bad}, name, f"{type(mech).__name__}({name}={bad!r})")


@pytest.mark.parametrize("key", MECHANISM_KEYS)
@given(data=st.data())
def test_sampler_refuses_bad_input(key, data):
    mech, truth = _example(key)
    which = data.draw(st.sampled_from(["truth", "n_draws", "rng"]))
    kwargs = {"truth": truth, "rng": np.random.default_rng(0), "n_draws": 2}
    kwargs[which] = data.draw(
        {"truth": BAD_TRUTHS, "n_draws": BAD_N_DRAWS, "rng": BAD_RNGS}[which], label=which
    )
    _refused(
        mech.sample_aggregate,
        kwargs,
        which,
        f"{key}.sample_aggregate({which}={kwargs[which]!r:.60})",
    )


@pytest.mark.parametrize("key", _keys_with_defects())
@given(data=st.data())
def test_estimate_and_variance_refuse_bad_input(key, data):
    mech, truth = _example(key)
    agg = mech.sample_aggregate(truth, rng=np.random.default_rng(0))
    n = mech.n_reports(truth)
    which = data.draw(
        st.sampled_from(["aggregate", "n", "variance", "perturb", "aggregate_reports"])
    )
    if which == "aggregate":
        bad = data.draw(
            st.sampled_from(
                [
                    None,
                    "x",
                    np.array([]),
                    np.full(np.shape(agg) or (1,), np.nan),
                    np.zeros((3, 3, 3, 3)),
                ]
            )
        )
        _refused(
            mech.estimate,
            {"aggregate": bad, "n": n},
            "aggregate",
            f"{key}.estimate(aggregate={bad!r:.60})",
        )
    elif which == "n":
        bad = data.draw(st.sampled_from([None, "x", 0, -5, np.nan, 2.5]))
        _refused(mech.estimate, {"aggregate": agg, "n": bad}, "n", f"{key}.estimate(n={bad!r})")
    elif which == "variance":
        bad = data.draw(BAD_TRUTHS)
        _refused(mech.variance, {"truth": bad}, "truth", f"{key}.variance(truth={bad!r:.60})")
    elif which == "perturb":
        bad = data.draw(
            st.sampled_from(BAD_MEAN_VALUES if ALL_MECHANISMS[key].family == "mean" else BAD_VALUES)
        )
        _refused(
            mech.perturb,
            {"values": bad, "rng": np.random.default_rng(0)},
            "values",
            f"{key}.perturb(values={bad!r:.60})",
        )
    else:
        bad = data.draw(st.sampled_from([None, "x", 3.5]))
        _refused(mech.aggregate, {"reports": bad}, "reports", f"{key}.aggregate(reports={bad!r})")


TRUTH_METHODS = ("expand", "estimand", "n_reports", "expected_estimate")


@pytest.mark.parametrize("key", MECHANISM_KEYS)
@given(data=st.data())
def test_truth_methods_refuse_bad_truths(key, data):
    """The contract's other truth-taking methods (``expand``, ``estimand``, ``n_reports``, ``expected_estimate``)."""
    mech, _ = _example(key)
    which = data.draw(st.sampled_from(TRUTH_METHODS), label="method")
    bad = data.draw(BAD_TRUTHS, label="truth")
    _refused(getattr(mech, which), {"truth": bad}, "truth", f"{key}.{which}(truth={bad!r:.60})")


@pytest.mark.parametrize("key", MECHANISM_KEYS)
@settings(max_examples=2, deadline=None)
@given(seed=seeds())
def test_sampler_and_estimate_are_finite_and_reproducible(key, seed):
    mech, truth = _example(key)
    first = mech.sample_aggregate(truth, rng=np.random.default_rng(seed), n_draws=3)
    again = mech.sample_aggregate(truth, rng=np.random.default_rng(seed), n_draws=3)
    np.testing.assert_array_equal(first, again)
    est = mech.estimate(first, mech.n_reports(truth))
    assert np.all(np.isfinite(est)) and np.all(np.isfinite(mech.variance(truth)))


def _map_reports(reports, change):
    """``reports`` with ``change`` applied to every numeric array in it (a named tuple's fields too)."""
    if isinstance(reports, tuple):
        return (
            type(reports)(*(_map_reports(r, change) for r in reports))
            if hasattr(reports, "_fields")
            else tuple(_map_reports(r, change) for r in reports)
        )
    arr = np.asarray(reports)
    return change(arr) if arr.dtype.kind in "biuf" else reports


#: aggregates no n reports can produce (issue 39 item 12): each server's estimate refuses every one, naming it
HOSTILE_AGGREGATES = {
    "1e300": lambda a: np.full(a.shape, 1e300),
    "2^64-1": lambda a: np.full(a.shape, 2**64 - 1, np.uint64),
    "-2^62": lambda a: np.full(a.shape, -(2**62)),
    "2^62 (above n)": lambda a: np.full(a.shape, 2**62),
    "an extra axis": lambda a: a[None, None],
}


def _answered_or_refused(call, shown):
    """``call()`` answers or refuses (ValueError/TypeError; NotImplementedError: a continuous report has no table)
    within the harness' time limit, never a MemoryError."""
    outcome, _, peak = call_refused(call, {})
    assert not isinstance(outcome, Hang), f"{shown} hangs"
    if isinstance(outcome, BaseException):
        assert isinstance(outcome, (ValueError, TypeError, NotImplementedError)), (
            f"{shown}: {type(outcome).__name__}: {outcome!r:.200}"
        )
        assert peak < REFUSAL_BYTES, f"{shown}: allocated {peak} bytes before refusing"


@pytest.mark.parametrize("key", MECHANISM_KEYS)
def test_hostile_server_and_size_inputs_are_refused(key):
    """Issue 39, generated once per registered mechanism (a fixed handful of calls each):

    * one check per server entry point: ``estimate`` refuses aggregates of 1e300, 2^64 − 1, ±2^62 (negative, far
      above n) and an extra axis; ``aggregate`` refuses reports whose numbers are shifted by −2^40 (a negative 0/1
      report, a ±1 sign or a Laplace report no client sends);
    * sums that wrap: an integer truth of entries 2^62 (each a valid count, their int64 total negative) is refused
      by the sampler and by n_reports;
    * sizes computed before their ceiling: with d = 10^12, building the mechanism, ``output_table``,
      ``privacy_loss`` and ``report_bits`` answer or refuse at once, never a MemoryError or minutes of work.
    """
    mech, truth = _example(key)
    agg, n = (
        np.asarray(mech.sample_aggregate(truth, rng=np.random.default_rng(0))),
        mech.n_reports(truth),
    )
    for label, make in HOSTILE_AGGREGATES.items():
        _refused(
            mech.estimate,
            {"aggregate": make(agg), "n": n},
            "aggregate",
            f"{key}.estimate(aggregate={label})",
        )
    reports = mech.perturb(mech.expand(truth), rng=np.random.default_rng(1))
    shifted = _map_reports(
        reports, lambda a: a.astype(np.float64 if a.dtype.kind == "f" else np.int64) - 2**40
    )
    _refused(
        mech.aggregate,
        {"reports": shifted},
        "reports",
        f"{key}.aggregate(reports shifted by -2^40)",
    )
    if isinstance(truth, np.ndarray) and truth.dtype.kind in "iu" and truth.size >= 2:
        wrapping = np.full(truth.shape, 2**62, dtype=np.int64)
        for method, kwargs in (
            ("sample_aggregate", {"rng": np.random.default_rng(0)}),
            ("n_reports", {}),
        ):
            outcome = call_refused(getattr(mech, method), {"truth": wrapping, **kwargs})[0]
            assert isinstance(outcome, ValueError) and "totalling at most 2^62" in str(outcome), (
                f"{key}.{method}(truth of entries 2^62) must refuse the wrapping total: {outcome!r:.200}"
            )
    if "d" in _fields(mech):
        outcome, _, _ = call_refused(lambda: dataclasses.replace(mech, d=10**12), {})
        assert not isinstance(outcome, Hang), f"{key}(d=10^12) hangs"
        if isinstance(outcome, BaseException):
            assert isinstance(outcome, (ValueError, TypeError)), (
                f"{key}(d=10^12): {type(outcome).__name__}: {outcome}"
            )
            return
        for method in ("output_table", "privacy_loss", "report_bits"):
            if method == "report_bits" and not hasattr(type(outcome), "report_bits"):
                continue
            _answered_or_refused(
                lambda: (
                    getattr(outcome, method)() if method != "report_bits" else outcome.report_bits
                ),
                f"{key}(d=10^12).{method}",
            )
