"""Bad input is refused: the right error type, naming the parameter, without hanging, before allocating.

For every spec'd public callable, every probed parameter gets each of its kind's special bad values and
``EXAMPLES_PER_PARAMETER`` values Hypothesis generates for the kind (``strategies.bad_values``), one at a
time, in an otherwise valid call.  Each must raise ``ValueError`` (bad value) or ``TypeError`` (wrong type)
whose message names the parameter, without hanging and allocating at most ``REFUSAL_BYTES``.  One test per
callable (its parameters in a loop): the failure names the callable, the parameter and the value.
"""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ldp_helpers._validation import format_bytes

from .harness import REFUSAL_BYTES, Hang, call_refused, materialize, resolve
from .specs import SPECS
from .strategies import bad_values, special_values


def _probed(qualname: str) -> list[str]:
    sp = SPECS[qualname]
    return [name for name in sp.kwargs if name not in sp.free]


CALLABLES = [q for q in sorted(SPECS) if _probed(q)]
IDS = [q.removeprefix("ldp_helpers.") for q in CALLABLES]


def _none_ok(func, name, sp) -> bool:
    if name in sp.none_ok:
        return True
    try:
        param = inspect.signature(func).parameters.get(name)
    except (TypeError, ValueError):
        return False
    return param is not None and param.default is None


def check_refusal(qualname: str, name: str, kwargs: dict, bad, func=None) -> None:
    """``func`` (default: the callable named ``qualname``) refuses ``name=bad`` as the contract says."""
    func = resolve(qualname) if func is None else func
    outcome, seconds, peak = call_refused(func, {**kwargs, name: bad})
    shown = f"{qualname}({name}={bad!r:.80})"
    assert not isinstance(outcome, Hang), f"{shown} hangs"
    assert isinstance(outcome, BaseException), (
        f"{shown} was accepted silently, returning {outcome!r:.200}"
    )
    assert isinstance(outcome, (ValueError, TypeError)), (
        f"{shown} raised {type(outcome).__name__}: {outcome}"
    )
    assert name in str(outcome), f"{shown} blames the wrong parameter: {outcome}"
    assert peak < REFUSAL_BYTES, f"{shown} allocated {format_bytes(peak)} before refusing"


def _strategy(qualname: str, name: str) -> st.SearchStrategy:
    sp = SPECS[qualname]
    strategy = bad_values(
        name, sp.kwargs[name], none_ok=_none_ok(resolve(qualname), name, sp), huge=name in sp.huge
    )
    extra = sp.extra_bad.get(name)
    return st.one_of(strategy, st.sampled_from(list(extra))) if extra else strategy


@pytest.mark.parametrize("qualname", CALLABLES, ids=IDS)
def test_every_special_bad_value_is_refused(qualname):
    """The kinds' fixed bad values (0, −1, NaN, ±inf, 10¹², 2⁶³, None, wrong types, …), each of them, for every parameter."""
    kwargs = materialize(SPECS[qualname].kwargs, 0)
    for name in _probed(qualname):
        for bad in special_values(_strategy(qualname, name)):
            check_refusal(qualname, name, kwargs, bad)


@pytest.mark.parametrize("qualname", CALLABLES, ids=IDS)
@given(data=st.data())
def test_generated_bad_value_is_refused(qualname, data):
    """Values Hypothesis generates for each parameter's kind (negative budgets, probabilities above 1, …)."""
    kwargs = materialize(SPECS[qualname].kwargs, 0)
    for name in _probed(qualname):
        check_refusal(qualname, name, kwargs, data.draw(_strategy(qualname, name), label=name))
