"""Valid input gives finite results, no warnings, and the same result for the same seed.

Beyond the specs' examples (``test_valid_calls_are_finite_and_reproducible``, per seed), each
parameter kind draws other valid values (``strategies.valid_values``: budgets, probabilities,
sizes, seeds, reals, arrays, populations) into one parameter at a time
(``test_valid_values_of_every_kind``): the result must be finite and the same for the same seed,
or a clean refusal in the contract's form when a drawn value leaves a range coupled to another
argument (a bound's condition, an array's length).  One test per family (a subpackage's spec
table) and property; its failure lists every failing call.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .harness import assert_no_problems, families, figures_in, materialize, resolve, time_limit
from .specs import RNG, SPECS
from .strategies import seeds, valid_values

CASES = sorted(name for name, sp in SPECS.items() if sp.valid)
STOCHASTIC = {name for name in CASES if any(v is RNG for v in SPECS[name].kwargs.values())}


def _leaves(value):
    """The numbers and arrays inside a result (dataclasses, dicts, tuples, lists are walked)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _leaves(getattr(value, f.name))
    elif isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, (np.ndarray, float, np.floating, int, np.integer)) and not isinstance(
        value, bool
    ):
        yield np.asarray(value)


def numbers(result) -> list[np.ndarray]:
    """The numeric arrays inside ``result``."""
    return [a for a in _leaves(result) if a.dtype.kind in "fiu"]


def run_strictly(func, kwargs: dict):
    """``func(**kwargs)`` with warnings as errors, within the harness' time limit."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with time_limit(30):
            return func(**kwargs)


def reproducible_problem(first, again, shown: str) -> str | None:
    """``None`` when the numbers of two runs with one seed are identical, else what differs."""
    if len(again) != len(first):
        return f"{shown}: same seed, different result ({len(first)} vs {len(again)} arrays)"
    for a, b in zip(first, again):
        try:
            np.testing.assert_array_equal(a, b)  # NaN where NaN was: the same result
        except AssertionError:
            return f"{shown}: same seed, different result ({a!r:.100} vs {b!r:.100})"
    return None


def valid_call_problem(func, sp, seed: int, stochastic: bool, shown: str) -> str | None:
    """``None`` when the spec's call with ``seed`` is finite (where it must be) and reproducible."""
    try:
        first = numbers(run_strictly(func, materialize(sp.kwargs, seed)))
        again = numbers(run_strictly(func, materialize(sp.kwargs, seed))) if stochastic else first
    except Exception as exc:  # noqa: BLE001 - a valid call must answer: whatever came out is reported
        return f"{shown}: expected an answer; got {type(exc).__name__}: {exc!s:.300}"
    if sp.finite and not all(np.all(np.isfinite(a)) for a in first):
        return f"{shown}: expected finite numbers; got {first!r:.300}"
    return reproducible_problem(first, again, shown)


FAMILIES = families(CASES)


@pytest.mark.parametrize("family", FAMILIES)
def test_valid_calls_are_finite_and_reproducible(family, tmp_path):
    """Each spec's valid call, for two seeds: finite (where the spec says so), and the same again for the same
    seed (stochastic callables)."""
    problems = []

    @settings(max_examples=2, deadline=None)
    @given(seed=seeds())
    def probe(seed):
        for qualname in FAMILIES[family]:
            with figures_in(tmp_path, qualname):
                problems.append(
                    valid_call_problem(
                        resolve(qualname),
                        SPECS[qualname],
                        seed,
                        qualname in STOCHASTIC,
                        f"{qualname}(seed={seed})",
                    )
                )

    probe()
    assert_no_problems(problems, len(problems), f"{family}: valid calls")


BUDGETED = families(n for n in CASES if isinstance(SPECS[n].kwargs.get("epsilon"), float))


def budget_problem(qualname: str, seed: int, epsilon: float) -> str | None:
    """``None`` when ``qualname`` with ``epsilon`` gives finite numbers or refuses naming a stated limit."""
    sp, shown = SPECS[qualname], f"{qualname}(epsilon={epsilon}, seed={seed})"
    try:
        result = run_strictly(
            resolve(qualname), {**materialize(sp.kwargs, seed), "epsilon": epsilon}
        )
    except (
        ValueError
    ) as err:  # a stated domain limit (e.g. a bound's condition) is a refusal, not a crash
        if "epsilon" in str(err) or "must" in str(err):
            return None
        return f"{shown}: expected an answer or a refusal naming its limit; got {err!s:.300}"
    except Exception as exc:  # noqa: BLE001 - reported with the call
        return f"{shown}: expected an answer; got {type(exc).__name__}: {exc!s:.300}"
    if sp.finite and not all(np.all(np.isfinite(a)) for a in numbers(result)):
        return f"{shown}: expected finite numbers; got {result!r:.300}"
    return None


@pytest.mark.parametrize("family", BUDGETED)
def test_valid_budgets_give_finite_results(family, tmp_path):
    """Budgets drawn from the valid range (not only the spec's example) give finite results: four draws of
    (seed, ε ∈ [0.25, 4]) for every budgeted callable of the family."""
    problems = []

    @settings(max_examples=4, deadline=None)
    @given(data=st.data())
    def probe(data):
        for qualname in BUDGETED[family]:
            seed = data.draw(seeds(), label=f"{qualname}:seed")
            epsilon = data.draw(st.floats(0.25, 4.0), label=f"{qualname}:epsilon")
            with figures_in(tmp_path, qualname):
                problems.append(budget_problem(qualname, seed, epsilon))

    probe()
    assert_no_problems(problems, len(problems), f"{family}: valid budgets")


def _variable(params: dict, free) -> list[str]:
    return [
        n
        for n, v in params.items()
        if n not in free and v is not RNG and valid_values(n, v) is not None
    ]


def check_valid_variation(func, sp, name, value, seed, shown) -> str | None:
    """``func`` with ``name=value`` (else the spec's call): finite and reproducible, or a clean refusal;
    ``None`` when so, else what is wrong."""

    def run():
        return numbers(run_strictly(func, {**materialize(sp.kwargs, seed), name: value}))

    try:
        first = run()
    except (
        ValueError
    ) as err:  # a drawn value outside a range coupled to another argument: refused cleanly
        if "must" in str(err) and any(n in str(err) for n in sp.kwargs):
            return None
        return f"{shown}: expected an answer or a refusal naming a parameter; got {err!s:.300}"
    except Exception as exc:  # noqa: BLE001 - reported with the call
        return f"{shown}: expected an answer; got {type(exc).__name__}: {exc!s:.300}"
    if sp.finite and not all(np.all(np.isfinite(a)) for a in first):
        return f"{shown}: expected finite numbers; got {first!r:.300}"
    try:
        again = run()
    except Exception as exc:  # noqa: BLE001 - reported with the call
        return f"{shown}: answered once, then raised {type(exc).__name__}: {exc!s:.300}"
    return reproducible_problem(first, again, shown)


def variation_probe(specs: dict, bound, problems: list):
    """A Hypothesis test drawing, for each spec, a seed, one variable parameter and another valid value of it."""

    @settings(max_examples=2, deadline=None)
    @given(data=st.data())
    def probe(data):
        for qualname, sp in specs.items():
            seed = data.draw(seeds(), label=f"{qualname}:seed")
            name = data.draw(st.sampled_from(_variable(sp.kwargs, sp.free)), label=qualname)
            value = data.draw(valid_values(name, sp.kwargs[name]), label=f"{qualname}:{name}")
            shown = f"{qualname}({name}={value!r:.80}, seed={seed})"
            problems.append(check_valid_variation(bound(qualname), sp, name, value, seed, shown))

    return probe


VARIED = families(n for n in CASES if _variable(SPECS[n].kwargs, SPECS[n].free))


@pytest.mark.parametrize("family", VARIED)
def test_valid_values_of_every_kind(family, tmp_path):
    """Two draws per callable of the family: a seed, a variable parameter and another valid value of it."""
    problems = []
    specs = {qualname: SPECS[qualname] for qualname in VARIED[family]}

    def bound(qualname):
        func = resolve(qualname)

        def call(**kwargs):
            with figures_in(tmp_path, qualname):
                return func(**kwargs)

        return call

    variation_probe(specs, bound, problems)()
    assert_no_problems(problems, len(problems), f"{family}: valid values of every kind")
