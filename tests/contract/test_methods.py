"""Public instance methods meet the same contract as functions (``method_specs.METHOD_SPECS``).

Each call gets a fresh instance from the spec's factory.  Bad values of each probed parameter
(``strategies.bad_values`` plus the spec's ``extra_bad``) must be refused with ``ValueError`` /
``TypeError`` naming the parameter, within a second, before allocating; the valid call must give
finite results, no warnings, and the same result for the same seed, also with other valid values
of each parameter's kind (``strategies.valid_values``).
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .harness import materialize, resolve, time_limit
from .method_specs import METHOD_SPECS
from .specs import RNG
from .strategies import bad_values, seeds, special_values, valid_values
from .test_bad_input import check_refusal
from .test_valid_input import _leaves, _variable, check_valid_variation


def _bound(qualname: str):
    """``instance.method`` on a fresh valid instance, as a keyword-only callable."""
    meth = qualname.rsplit(".", 1)[1]
    return lambda **kwargs: getattr(METHOD_SPECS[qualname].make(), meth)(**kwargs)


def _probed(qualname: str) -> list[str]:
    sp = METHOD_SPECS[qualname].spec
    return [name for name in sp.kwargs if name not in sp.free]


PROBED = [q for q in sorted(METHOD_SPECS) if _probed(q)]
PROBED_IDS = [q.removeprefix("ldp_helpers.") for q in PROBED]


def _strategy(qualname: str, name: str) -> st.SearchStrategy:
    sp = METHOD_SPECS[qualname].spec
    param = inspect.signature(resolve(qualname)).parameters.get(name)
    none_ok = name in sp.none_ok or (param is not None and param.default is None)
    strategy = bad_values(name, sp.kwargs[name], none_ok=none_ok, huge=name in sp.huge)
    extra = sp.extra_bad.get(name)
    return st.one_of(strategy, st.sampled_from(list(extra))) if extra else strategy


@pytest.mark.parametrize("qualname", PROBED, ids=PROBED_IDS)
def test_method_refuses_special_bad_values(qualname):
    """Each parameter's kind's fixed bad values, each of them."""
    kwargs, func = materialize(METHOD_SPECS[qualname].spec.kwargs, 0), _bound(qualname)
    for name in _probed(qualname):
        for bad in special_values(_strategy(qualname, name)):
            check_refusal(qualname, name, kwargs, bad, func=func)


@pytest.mark.parametrize("qualname", PROBED, ids=PROBED_IDS)
@given(data=st.data())
def test_method_refuses_bad_values(qualname, data):
    """Hypothesis draws of each parameter's kind (EXAMPLES_PER_PARAMETER per parameter)."""
    kwargs, func = materialize(METHOD_SPECS[qualname].spec.kwargs, 0), _bound(qualname)
    for name in _probed(qualname):
        check_refusal(
            qualname, name, kwargs, data.draw(_strategy(qualname, name), label=name), func=func
        )


def _call(qualname: str, seed: int):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with time_limit(30):
            return _bound(qualname)(**materialize(METHOD_SPECS[qualname].spec.kwargs, seed))


VALID = sorted(q for q, ms in METHOD_SPECS.items() if ms.spec.valid)


@pytest.mark.parametrize("qualname", VALID, ids=[q.removeprefix("ldp_helpers.") for q in VALID])
@settings(max_examples=2, deadline=None)
@given(seed=seeds())
def test_valid_method_call_is_finite_and_reproducible(qualname, seed):
    first = [a for a in _leaves(_call(qualname, seed)) if a.dtype.kind in "fiu"]
    if METHOD_SPECS[qualname].spec.finite:
        assert all(np.all(np.isfinite(a)) for a in first), f"{qualname} returned a non-finite value"
    if any(v is RNG for v in METHOD_SPECS[qualname].spec.kwargs.values()):
        again = [a for a in _leaves(_call(qualname, seed)) if a.dtype.kind in "fiu"]
        for a, b in zip(first, again, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=f"{qualname}: same seed, different result")


VARIED = [q for q in VALID if _variable(METHOD_SPECS[q].spec.kwargs, METHOD_SPECS[q].spec.free)]


@pytest.mark.parametrize("qualname", VARIED, ids=[q.removeprefix("ldp_helpers.") for q in VARIED])
@settings(max_examples=2, deadline=None)
@given(data=st.data(), seed=seeds())
def test_valid_method_values_of_every_kind(qualname, data, seed):
    """Other valid values of one parameter at a time (``strategies.valid_values``), as for functions."""
    sp = METHOD_SPECS[qualname].spec
    name = data.draw(st.sampled_from(_variable(sp.kwargs, sp.free)), label="parameter")
    value = data.draw(valid_values(name, sp.kwargs[name]), label=name)
    check_valid_variation(
        _bound(qualname), sp, name, value, seed, f"{qualname}({name}={value!r:.80})"
    )
