"""Valid input gives finite results, no warnings, and the same result for the same seed."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .harness import materialize, resolve, time_limit
from .specs import RNG, SPECS
from .strategies import seeds

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
    elif isinstance(value, (np.ndarray, float, np.floating, int, np.integer)) and not isinstance(value, bool):
        yield np.asarray(value)


def _call(qualname: str, seed: int):
    sp = SPECS[qualname]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with time_limit(30):
            return resolve(qualname)(**materialize(sp.kwargs, seed))


@pytest.mark.parametrize("qualname", CASES, ids=[c.removeprefix("ldp_helpers.") for c in CASES])
@settings(max_examples=2, deadline=None)
@given(seed=seeds())
def test_valid_call_is_finite_and_reproducible(qualname, seed):
    first = _call(qualname, seed)
    leaves = [a for a in _leaves(first) if a.dtype.kind in "fiu"]
    if SPECS[qualname].finite:
        assert all(np.all(np.isfinite(a)) for a in leaves), f"{qualname} returned a non-finite value: {first!r:.300}"
    if qualname in STOCHASTIC:
        again = [a for a in _leaves(_call(qualname, seed)) if a.dtype.kind in "fiu"]
        assert len(again) == len(leaves)
        for a, b in zip(leaves, again):
            np.testing.assert_array_equal(a, b, err_msg=f"{qualname}: same seed, different result")


BUDGETED = sorted(name for name in CASES if isinstance(SPECS[name].kwargs.get("epsilon"), float))


@pytest.mark.parametrize("qualname", BUDGETED, ids=[c.removeprefix("ldp_helpers.") for c in BUDGETED])
@settings(max_examples=4, deadline=None)
@given(seed=seeds(), epsilon=st.floats(min_value=0.25, max_value=4.0))
def test_valid_budgets_give_finite_results(qualname, seed, epsilon):
    """Budgets drawn from the valid range (not only the spec's example) give finite, reproducible results."""
    sp = SPECS[qualname]
    kwargs = {**materialize(sp.kwargs, seed), "epsilon": epsilon}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            result = resolve(qualname)(**kwargs)
        except ValueError as err:  # a stated domain limit (e.g. a bound's condition) is a refusal, not a crash
            assert "epsilon" in str(err) or "must" in str(err), f"{qualname}(epsilon={epsilon}): {err}"
            return
    if sp.finite:
        assert all(np.all(np.isfinite(a)) for a in _leaves(result) if a.dtype.kind in "fiu"), f"{qualname}(epsilon={epsilon})"
