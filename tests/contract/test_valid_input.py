"""Valid input gives finite results, no warnings, and the same result for the same seed.

Beyond the specs' examples (``test_valid_call_is_finite_and_reproducible``, per seed), each
parameter kind draws other valid values (``strategies.valid_values``: budgets, probabilities,
sizes, seeds, reals, arrays, populations) into one parameter at a time
(``test_valid_values_of_every_kind``): the result must be finite and the same for the same seed,
or a clean refusal in the contract's form when a drawn value leaves a range coupled to another
argument (a bound's condition, an array's length).
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .harness import materialize, resolve, time_limit
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
        assert all(np.all(np.isfinite(a)) for a in leaves), (
            f"{qualname} returned a non-finite value: {first!r:.300}"
        )
    if qualname in STOCHASTIC:
        again = [a for a in _leaves(_call(qualname, seed)) if a.dtype.kind in "fiu"]
        assert len(again) == len(leaves)
        for a, b in zip(leaves, again):
            np.testing.assert_array_equal(a, b, err_msg=f"{qualname}: same seed, different result")


BUDGETED = sorted(name for name in CASES if isinstance(SPECS[name].kwargs.get("epsilon"), float))


@pytest.mark.parametrize(
    "qualname", BUDGETED, ids=[c.removeprefix("ldp_helpers.") for c in BUDGETED]
)
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
        except (
            ValueError
        ) as err:  # a stated domain limit (e.g. a bound's condition) is a refusal, not a crash
            assert "epsilon" in str(err) or "must" in str(err), (
                f"{qualname}(epsilon={epsilon}): {err}"
            )
            return
    if sp.finite:
        assert all(np.all(np.isfinite(a)) for a in _leaves(result) if a.dtype.kind in "fiu"), (
            f"{qualname}(epsilon={epsilon})"
        )


def _variable(params: dict, free) -> list[str]:
    return [
        n
        for n, v in params.items()
        if n not in free and v is not RNG and valid_values(n, v) is not None
    ]


def check_valid_variation(func, sp, name, value, seed, shown):
    """``func`` with ``name=value`` (else the spec's call): finite and reproducible, or a clean refusal."""

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with time_limit(30):
                return func(**{**materialize(sp.kwargs, seed), name: value})

    try:
        first = [a for a in _leaves(run()) if a.dtype.kind in "fiu"]
    except (
        ValueError
    ) as err:  # a drawn value outside a range coupled to another argument: refused cleanly
        assert "must" in str(err) and any(n in str(err) for n in sp.kwargs), (
            f"{shown} refused, naming no parameter: {err}"
        )
        return
    if sp.finite:
        assert all(np.all(np.isfinite(a)) for a in first), f"{shown} returned a non-finite value"
    again = [a for a in _leaves(run()) if a.dtype.kind in "fiu"]
    assert len(again) == len(first), f"{shown}: same seed, different result"
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b, err_msg=f"{shown}: same seed, different result")


VARIED = [name for name in CASES if _variable(SPECS[name].kwargs, SPECS[name].free)]


@pytest.mark.parametrize("qualname", VARIED, ids=[c.removeprefix("ldp_helpers.") for c in VARIED])
@settings(max_examples=2, deadline=None)
@given(data=st.data(), seed=seeds())
def test_valid_values_of_every_kind(qualname, data, seed):
    sp = SPECS[qualname]
    name = data.draw(st.sampled_from(_variable(sp.kwargs, sp.free)), label="parameter")
    value = data.draw(valid_values(name, sp.kwargs[name]), label=name)
    check_valid_variation(
        resolve(qualname), sp, name, value, seed, f"{qualname}({name}={value!r:.80})"
    )
