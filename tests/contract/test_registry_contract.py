"""Every mechanism of ``ALL_MECHANISMS`` (the registry plus the protocols' entries) refuses bad input
on every method of the contract, and is reproducible per seed.

The constructor (same field values, one replaced by a bad value of its kind), ``perturb``,
``aggregate``, ``sample_aggregate`` (truth, ``n_draws``, ``rng``), ``estimate`` (aggregate, n),
``variance``, ``expand``, ``estimand``, ``n_reports`` and ``expected_estimate`` (truth) are probed with the
strategies of ``strategies.py``.  One test per property covers every mechanism (Hypothesis draws
``EXAMPLES_PER_PARAMETER`` cases per mechanism); its failure lists every failing call.
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp_helpers.protocols.registry import ALL_MECHANISMS

from .conftest import EXAMPLES_PER_PARAMETER
from .harness import REFUSAL_BYTES, Hang, assert_no_problems, call_refused, refusal_problem
from .strategies import _Opaque, bad_values, seeds

MECHANISM_KEYS = sorted(ALL_MECHANISMS)
#: refusals the protocols (owned by another helper) still get wrong: each must still fail (a fix turns the test red
#: until the entry is removed here), the others must pass
KNOWN_DEFECTS: dict = {}  # key -> reason (none open)

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
_EXAMPLES: dict = {}


def _example(key):
    """The registry's example mechanism and truth for ``key`` (built once; the contract never mutates them)."""
    if key not in _EXAMPLES:
        entry = ALL_MECHANISMS[key]
        mech = entry.example()
        _EXAMPLES[key] = mech, entry.example_truth(mech)
    return _EXAMPLES[key]


def _refused(func, kwargs, name, shown) -> str | None:
    return refusal_problem(func, kwargs, ALIASES.get(name, (name,)), shown)


def _fields(mech):
    return {f.name: getattr(mech, f.name) for f in dataclasses.fields(mech) if f.init}


def for_every_mechanism(check, *, max_examples=EXAMPLES_PER_PARAMETER):
    """Run ``check(key, data)`` (a problem or ``None``) for every mechanism in each of ``max_examples``
    Hypothesis examples; each case's outcome (a problem or ``None``), per mechanism."""
    problems = {key: [] for key in MECHANISM_KEYS}

    @settings(max_examples=max_examples, deadline=None)
    @given(data=st.data())
    def probe(data):
        for key in MECHANISM_KEYS:
            problems[key].append(check(key, data))

    probe()
    return problems


def assert_contract(outcomes: dict, what: str) -> None:
    """Every mechanism but the known defects meets the contract (``outcomes``: each mechanism's cases, a
    problem or ``None``); each known defect still breaks it."""
    fixed = [key for key in KNOWN_DEFECTS if not any(outcomes[key])]
    assert not fixed, f"{what}: {fixed} now meet the contract: remove them from KNOWN_DEFECTS"
    found = [p for key, ps in outcomes.items() if key not in KNOWN_DEFECTS for p in ps]
    assert_no_problems(found, sum(map(len, outcomes.values())), what)


def constructor_case(key, data):
    mech, _ = _example(key)
    fields = _fields(mech)
    probed = [n for n, v in fields.items() if not isinstance(v, (str, bool))]
    name = data.draw(st.sampled_from(probed), label=f"{key}:field")
    default = inspect.signature(type(mech)).parameters[name].default
    bad = data.draw(bad_values(name, fields[name], none_ok=default is None), label=f"{key}:{name}")
    return _refused(
        type(mech), {**fields, name: bad}, name, f"{type(mech).__name__}({name}={bad!r})"
    )


def test_constructor_refuses_bad_fields():
    assert_contract(for_every_mechanism(constructor_case), "constructors")


def sampler_case(key, data):
    mech, truth = _example(key)
    which = data.draw(st.sampled_from(["truth", "n_draws", "rng"]), label=f"{key}:parameter")
    kwargs = {"truth": truth, "rng": np.random.default_rng(0), "n_draws": 2}
    kwargs[which] = data.draw(
        {"truth": BAD_TRUTHS, "n_draws": BAD_N_DRAWS, "rng": BAD_RNGS}[which],
        label=f"{key}:{which}",
    )
    shown = f"{key}.sample_aggregate({which}={kwargs[which]!r:.60})"
    return _refused(mech.sample_aggregate, kwargs, which, shown)


def test_sampler_refuses_bad_input():
    assert_contract(for_every_mechanism(sampler_case), "sample_aggregate")


def estimate_case(key, data):
    mech, truth = _example(key)
    agg = mech.sample_aggregate(truth, rng=np.random.default_rng(0))
    n = mech.n_reports(truth)
    which = data.draw(
        st.sampled_from(["aggregate", "n", "variance", "perturb", "aggregate_reports"]),
        label=f"{key}:method",
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
        return _refused(
            mech.estimate,
            {"aggregate": bad, "n": n},
            "aggregate",
            f"{key}.estimate(aggregate={bad!r:.60})",
        )
    if which == "n":
        bad = data.draw(st.sampled_from([None, "x", 0, -5, np.nan, 2.5]))
        return _refused(
            mech.estimate, {"aggregate": agg, "n": bad}, "n", f"{key}.estimate(n={bad!r})"
        )
    if which == "variance":
        bad = data.draw(BAD_TRUTHS)
        return _refused(
            mech.variance, {"truth": bad}, "truth", f"{key}.variance(truth={bad!r:.60})"
        )
    if which == "perturb":
        bad = data.draw(
            st.sampled_from(BAD_MEAN_VALUES if ALL_MECHANISMS[key].family == "mean" else BAD_VALUES)
        )
        return _refused(
            mech.perturb,
            {"values": bad, "rng": np.random.default_rng(0)},
            "values",
            f"{key}.perturb(values={bad!r:.60})",
        )
    bad = data.draw(st.sampled_from([None, "x", 3.5]))
    return _refused(
        mech.aggregate, {"reports": bad}, "reports", f"{key}.aggregate(reports={bad!r})"
    )


def test_estimate_and_variance_refuse_bad_input():
    assert_contract(for_every_mechanism(estimate_case), "estimate, variance, perturb, aggregate")


TRUTH_METHODS = ("expand", "estimand", "n_reports", "expected_estimate")


def truth_method_case(key, data):
    mech, _ = _example(key)
    which = data.draw(st.sampled_from(TRUTH_METHODS), label=f"{key}:method")
    bad = data.draw(BAD_TRUTHS, label=f"{key}:truth")
    return _refused(
        getattr(mech, which), {"truth": bad}, "truth", f"{key}.{which}(truth={bad!r:.60})"
    )


def test_truth_methods_refuse_bad_truths():
    """The contract's other truth-taking methods (``expand``, ``estimand``, ``n_reports``, ``expected_estimate``)."""
    assert_contract(for_every_mechanism(truth_method_case), "truth-taking methods")


def reproducible_case(key, data):
    mech, truth = _example(key)
    seed = data.draw(seeds(), label=f"{key}:seed")
    first = mech.sample_aggregate(truth, rng=np.random.default_rng(seed), n_draws=3)
    again = mech.sample_aggregate(truth, rng=np.random.default_rng(seed), n_draws=3)
    try:
        np.testing.assert_array_equal(first, again)
    except AssertionError:
        return f"{key}.sample_aggregate(seed={seed}): same seed, different draws"
    est = mech.estimate(first, mech.n_reports(truth))
    if not (np.all(np.isfinite(est)) and np.all(np.isfinite(mech.variance(truth)))):
        return f"{key}(seed={seed}): expected a finite estimate and variance; got {est!r:.200}"
    return None


def test_sampler_and_estimate_are_finite_and_reproducible():
    assert_contract(for_every_mechanism(reproducible_case, max_examples=2), "reproducible draws")


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
#: true counts above float64's exact integers, within the 2^62 ceiling (float64 sums of them went wrong)
HUGE_TOTALS = ((3 * 2**60 + 12345, 2**58 + 3), (2**62 - 2**40, 2**39 + 1))
#: (seed, n_draws) of each call with them: batches of surveys too (their sums over the draws may wrap int64)
HUGE_CALLS = ((0, None), (1, None), (0, 3))
HOSTILE_AGGREGATES = {
    "1e300": lambda a: np.full(a.shape, 1e300),
    "2^64-1": lambda a: np.full(a.shape, 2**64 - 1, np.uint64),
    "-2^62": lambda a: np.full(a.shape, -(2**62)),
    "2^62 (above n)": lambda a: np.full(a.shape, 2**62),
    "an extra axis": lambda a: a[None, None],
}


def _answered_or_refused(call, shown) -> str | None:
    """``call()`` answers or refuses (ValueError/TypeError; NotImplementedError: a continuous report has no table)
    within the harness' time limit, never a MemoryError; ``None`` when so, else what happened."""
    outcome, _, peak = call_refused(call, {})
    if isinstance(outcome, Hang):
        return f"{shown}: expected an answer or a refusal; it hangs"
    if isinstance(outcome, BaseException):
        if not isinstance(outcome, (ValueError, TypeError, NotImplementedError)):
            return f"{shown}: expected an answer or a refusal; got {type(outcome).__name__}: {outcome!r:.200}"
        if peak >= REFUSAL_BYTES:
            return f"{shown}: expected a refusal before allocating; it allocated {peak} bytes first"
    return None


def hostile_problems(key) -> list:
    """The outcomes (a problem or ``None`` per case) of ``key``'s mechanism with issue 39's hostile server and size inputs (see below)."""
    mech, truth = _example(key)
    agg, n = (
        np.asarray(mech.sample_aggregate(truth, rng=np.random.default_rng(0))),
        mech.n_reports(truth),
    )
    problems = [
        _refused(
            mech.estimate,
            {"aggregate": make(agg), "n": n},
            "aggregate",
            f"{key}.estimate(aggregate={label})",
        )
        for label, make in HOSTILE_AGGREGATES.items()
    ]
    reports = mech.perturb(mech.expand(truth), rng=np.random.default_rng(1))
    shifted = _map_reports(
        reports, lambda a: a.astype(np.float64 if a.dtype.kind == "f" else np.int64) - 2**40
    )
    shown = f"{key}.aggregate(reports shifted by -2^40)"
    problems.append(_refused(mech.aggregate, {"reports": shifted}, "reports", shown))
    if isinstance(truth, np.ndarray) and truth.dtype.kind in "iu" and truth.size >= 2:
        wrapping = np.full(truth.shape, 2**62, dtype=np.int64)
        for method, kwargs in (
            ("sample_aggregate", {"rng": np.random.default_rng(0)}),
            ("n_reports", {}),
        ):
            outcome = call_refused(getattr(mech, method), {"truth": wrapping, **kwargs})[0]
            if not (isinstance(outcome, ValueError) and "totalling at most 2^62" in str(outcome)):
                problems.append(
                    f"{key}.{method}(truth of entries 2^62): expected a refusal of the wrapping "
                    f"total; got {outcome!r:.200}"
                )
        # accepted totals above 2^53 (float64's last exact integer): counts, or a refusal naming the truth
        for (first, last), (seed, draws) in itertools.product(HUGE_TOTALS, HUGE_CALLS):
            huge = np.zeros(truth.shape, dtype=np.int64)
            huge.flat[0], huge.flat[-1] = first, last
            shown = (
                f"{key}.sample_aggregate(truth of {first} and {last}, seed {seed}, {draws} draws)"
            )
            kwargs = {"truth": huge, "rng": np.random.default_rng(seed), "n_draws": draws}
            sampled = call_refused(mech.sample_aggregate, kwargs)[0]
            if not isinstance(sampled, BaseException) and draws is None:
                n = mech.n_reports(huge)
                problems.append(_answered_or_refused(lambda: mech.estimate(sampled, n), shown))
            elif isinstance(sampled, BaseException) and not (
                isinstance(sampled, ValueError) and "true_counts" in str(sampled)
            ):
                problems.append(
                    f"{shown}: expected counts or a refusal of true_counts; got {sampled!r:.200}"
                )
    if "d" in _fields(mech):
        outcome, _, _ = call_refused(lambda: dataclasses.replace(mech, d=10**12), {})
        if isinstance(outcome, Hang):
            return [*problems, f"{key}(d=10^12): expected an answer or a refusal; it hangs"]
        if isinstance(outcome, BaseException):
            if not isinstance(outcome, (ValueError, TypeError)):
                problems.append(f"{key}(d=10^12): {type(outcome).__name__}: {outcome}")
            return problems
        for method in ("output_table", "privacy_loss", "report_bits"):
            if method == "report_bits" and not hasattr(type(outcome), "report_bits"):
                continue
            problems.append(
                _answered_or_refused(
                    lambda: (
                        getattr(outcome, method)()
                        if method != "report_bits"
                        else outcome.report_bits
                    ),
                    f"{key}(d=10^12).{method}",
                )
            )
    return problems


def test_hostile_server_and_size_inputs_are_refused():
    """Issue 39, generated once per registered mechanism (a fixed handful of calls each):

    * one check per server entry point: ``estimate`` refuses aggregates of 1e300, 2^64 − 1, ±2^62 (negative, far
      above n) and an extra axis; ``aggregate`` refuses reports whose numbers are shifted by −2^40 (a negative 0/1
      report, a ±1 sign or a Laplace report no client sends);
    * sums that wrap: an integer truth of entries 2^62 (each a valid count, their int64 total negative) is refused
      by the sampler and by n_reports; truths of up to 2^62 − 2^39 users (accepted: above float64's exact
      integers) are sampled and estimated, or refused naming true_counts, never a numpy error from a wrong sum;
    * sizes computed before their ceiling: with d = 10^12, building the mechanism, ``output_table``,
      ``privacy_loss`` and ``report_bits`` answer or refuse at once, never a MemoryError or minutes of work.
    """
    outcomes = {key: hostile_problems(key) for key in MECHANISM_KEYS}
    assert_contract(outcomes, "hostile server and size inputs")
