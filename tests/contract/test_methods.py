"""Public instance methods meet the same contract as functions (``method_specs.METHOD_SPECS``).

Each call gets a fresh instance from the spec's factory.  Bad values of each probed parameter
(``strategies.bad_values`` plus the spec's ``extra_bad``) must be refused with ``ValueError`` /
``TypeError`` naming the parameter, within a second, before allocating; the valid call must give
finite results, no warnings, and the same result for the same seed, also with other valid values
of each parameter's kind (``strategies.valid_values``).  One test per family (the methods of a
subpackage) and property; its failure lists every failing call.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import EXAMPLES_PER_PARAMETER
from .harness import assert_no_problems, families, figures_in, materialize, resolve
from .method_specs import METHOD_SPECS
from .specs import RNG
from .strategies import seeds, special_values
from .test_bad_input import bad_strategy, check_refusal, probed
from .test_valid_input import _variable, valid_call_problem, variation_probe


def _bound(qualname: str, tmp_path):
    """``instance.method`` on a fresh valid instance, as a keyword-only callable."""
    meth = qualname.rsplit(".", 1)[1]

    def call(**kwargs):
        with figures_in(tmp_path, qualname):
            return getattr(METHOD_SPECS[qualname].make(), meth)(**kwargs)

    return call


def _probed(qualname: str) -> list[str]:
    return probed(METHOD_SPECS[qualname].spec)


PROBED = families(q for q in METHOD_SPECS if _probed(q))


def _strategies(qualname: str) -> dict[str, st.SearchStrategy]:
    func, sp = resolve(qualname), METHOD_SPECS[qualname].spec
    return {name: bad_strategy(sp, func, name) for name in _probed(qualname)}


@pytest.mark.parametrize("family", PROBED)
def test_methods_refuse_special_bad_values(family, tmp_path):
    """Each parameter's kind's fixed bad values, each of them, for every method of the family."""
    problems = []
    for qualname in PROBED[family]:
        kwargs, func = (
            materialize(METHOD_SPECS[qualname].spec.kwargs, 0),
            _bound(qualname, tmp_path),
        )
        for name, strategy in _strategies(qualname).items():
            for bad in special_values(strategy):
                problems.append(check_refusal(qualname, name, kwargs, bad, func=func))
    assert_no_problems(problems, len(problems), f"{family}: methods' special bad values")


@pytest.mark.parametrize("family", PROBED)
def test_methods_refuse_bad_values(family, tmp_path):
    """Hypothesis draws of each parameter's kind (EXAMPLES_PER_PARAMETER per parameter)."""
    problems = []
    strategies = {qualname: _strategies(qualname) for qualname in PROBED[family]}

    @settings(max_examples=EXAMPLES_PER_PARAMETER)
    @given(data=st.data())
    def probe(data):
        for qualname, by_name in strategies.items():
            kwargs = materialize(METHOD_SPECS[qualname].spec.kwargs, 0)
            func = _bound(qualname, tmp_path)
            for name, strategy in by_name.items():
                bad = data.draw(strategy, label=f"{qualname}:{name}")
                problems.append(check_refusal(qualname, name, kwargs, bad, func=func))

    probe()
    assert_no_problems(problems, len(problems), f"{family}: methods' generated bad values")


VALID = families(q for q, ms in METHOD_SPECS.items() if ms.spec.valid)


@pytest.mark.parametrize("family", VALID)
def test_valid_method_calls_are_finite_and_reproducible(family, tmp_path):
    """Each method's valid call, for two seeds: finite (where the spec says so) and reproducible."""
    problems = []

    @settings(max_examples=2, deadline=None)
    @given(seed=seeds())
    def probe(seed):
        for qualname in VALID[family]:
            sp = METHOD_SPECS[qualname].spec
            stochastic = any(v is RNG for v in sp.kwargs.values())
            shown = f"{qualname}(seed={seed})"
            problems.append(
                valid_call_problem(_bound(qualname, tmp_path), sp, seed, stochastic, shown)
            )

    probe()
    assert_no_problems(problems, len(problems), f"{family}: valid method calls")


VARIED = families(
    q
    for qs in VALID.values()
    for q in qs
    if _variable(METHOD_SPECS[q].spec.kwargs, METHOD_SPECS[q].spec.free)
)


@pytest.mark.parametrize("family", VARIED)
def test_valid_method_values_of_every_kind(family, tmp_path):
    """Other valid values of one parameter at a time (``strategies.valid_values``), as for functions."""
    problems = []
    specs = {qualname: METHOD_SPECS[qualname].spec for qualname in VARIED[family]}
    variation_probe(specs, lambda qualname: _bound(qualname, tmp_path), problems)()
    assert_no_problems(problems, len(problems), f"{family}: valid values of every method's kind")
