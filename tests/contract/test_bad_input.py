"""Bad input is refused: the right error type, naming the parameter, without hanging, before allocating.

For every spec'd public callable, every probed parameter gets each of its kind's special bad values and
``EXAMPLES_PER_PARAMETER`` values Hypothesis generates for the kind (``strategies.bad_values``), one at a
time, in an otherwise valid call.  Each must raise ``ValueError`` (bad value) or ``TypeError`` (wrong type)
whose message names the parameter, without hanging and allocating at most ``REFUSAL_BYTES``.  One test per
family (a subpackage's spec table): its failure lists every failing case with the callable, the
parameter, the value and what came back.
"""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import EXAMPLES_PER_PARAMETER
from .harness import assert_no_problems, families, figures_in, materialize, refusal_problem, resolve
from .specs import SPECS
from .strategies import bad_values, special_values


def probed(sp) -> list[str]:
    """The parameters of spec ``sp`` given bad values: all but the free ones (any value of their kind is
    legal), except a free one with extra bad values of its own (then those alone)."""
    return [name for name in sp.kwargs if name not in sp.free or name in sp.extra_bad]


def _probed(qualname: str) -> list[str]:
    return probed(SPECS[qualname])


FAMILIES = families(q for q in SPECS if _probed(q))


def _none_ok(func, name, sp) -> bool:
    if name in sp.none_ok:
        return True
    try:
        param = inspect.signature(func).parameters.get(name)
    except (TypeError, ValueError):
        return False
    return param is not None and param.default is None


def check_refusal(qualname: str, name: str, kwargs: dict, bad, func=None) -> str | None:
    """What is wrong with ``func``'s (default: ``qualname``'s) refusal of ``name=bad`` (``None``: nothing)."""
    func = resolve(qualname) if func is None else func
    return refusal_problem(func, {**kwargs, name: bad}, (name,), f"{qualname}({name}={bad!r:.80})")


def bad_strategy(sp, func, name: str) -> st.SearchStrategy:
    """The bad values of parameter ``name`` of ``func`` (spec ``sp``): its kind's and the spec's extra ones
    (a free parameter's: the extra ones alone)."""
    if name in sp.free:
        return st.sampled_from(list(sp.extra_bad[name]))
    strategy = bad_values(
        name, sp.kwargs[name], none_ok=_none_ok(func, name, sp), huge=name in sp.huge
    )
    extra = sp.extra_bad.get(name)
    return st.one_of(strategy, st.sampled_from(list(extra))) if extra else strategy


def _strategies(qualname: str) -> dict[str, st.SearchStrategy]:
    func = resolve(qualname)
    return {name: bad_strategy(SPECS[qualname], func, name) for name in _probed(qualname)}


@pytest.mark.parametrize("family", FAMILIES)
def test_every_special_bad_value_is_refused(family, tmp_path):
    """The kinds' fixed bad values (0, −1, NaN, ±inf, 10¹², 2⁶³, None, wrong types, …), each of them, for every
    parameter of every callable of the family."""
    problems, n_cases = [], 0
    for qualname in FAMILIES[family]:
        kwargs = materialize(SPECS[qualname].kwargs, 0)
        with figures_in(tmp_path, qualname):
            for name, strategy in _strategies(qualname).items():
                for bad in special_values(strategy):
                    problems.append(check_refusal(qualname, name, kwargs, bad))
                    n_cases += 1
    assert_no_problems(problems, n_cases, f"{family}: special bad values")


@pytest.mark.parametrize("family", FAMILIES)
def test_generated_bad_values_are_refused(family, tmp_path):
    """Values Hypothesis generates for each parameter's kind (negative budgets, probabilities above 1, …):
    ``EXAMPLES_PER_PARAMETER`` draws for every parameter of every callable of the family."""
    problems, n_cases = [], 0
    strategies = {qualname: _strategies(qualname) for qualname in FAMILIES[family]}

    @settings(max_examples=EXAMPLES_PER_PARAMETER)
    @given(data=st.data())
    def probe(data):
        nonlocal n_cases
        for qualname, by_name in strategies.items():
            kwargs = materialize(SPECS[qualname].kwargs, 0)
            with figures_in(tmp_path, qualname):
                for name, strategy in by_name.items():
                    bad = data.draw(strategy, label=f"{qualname}:{name}")
                    problems.append(check_refusal(qualname, name, kwargs, bad))
                    n_cases += 1

    probe()
    assert_no_problems(problems, n_cases, f"{family}: generated bad values")
