"""Extreme but legal budgets are handled or refused, never mishandled (issue 27 item 6).

Every spec'd callable with a budget parameter (``epsilon`` …) is called with ε ∈ {1e-300, 1e-17, 700, 1e4}
in an otherwise valid call: it must return finite numbers (NaN is never a result; ±inf only where the
spec allows it) without a warning, or refuse with the contract's ValueError/TypeError naming the budget
(e.g. "p* and q* are equal in double precision: use a larger epsilon").  Before issue 27: THE(1e-17, 4)
raised ZeroDivisionError, GRR(1e-17, 4) blamed a too *large* epsilon, OUE(700, 5).privacy_loss() gave inf,
fresh_rr_count_table(800, 3) a NaN table.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from .harness import materialize, resolve, time_limit
from .specs import SPECS
from .strategies import kind_of
from .test_valid_input import _leaves

EXTREME_BUDGETS = (1e-300, 1e-17, 700.0, 1e4)
CASES = sorted(
    (q, name)
    for q, sp in SPECS.items()
    if sp.valid
    for name, v in sp.kwargs.items()
    if kind_of(name, v) == "budget"
)


@pytest.mark.parametrize(
    ("qualname", "name"), CASES, ids=[f"{q.removeprefix('ldp_helpers.')}:{n}" for q, n in CASES]
)
def test_extreme_budgets_are_handled_or_refused(qualname, name):
    sp = SPECS[qualname]
    for epsilon in EXTREME_BUDGETS:
        kwargs = {**materialize(sp.kwargs, 0), name: epsilon}
        shown = f"{qualname}({name}={epsilon!r})"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                with time_limit(30):
                    result = resolve(qualname)(**kwargs)
        except (ValueError, TypeError) as err:
            assert name in str(err), f"{shown} blames the wrong parameter: {err}"
            continue
        leaves = [a for a in _leaves(result) if a.dtype.kind in "fiu"]
        assert not any(np.any(np.isnan(a)) for a in leaves), (
            f"{shown} returned NaN: {result!r:.200}"
        )
        if sp.finite:
            assert all(np.all(np.isfinite(a)) for a in leaves), (
                f"{shown} returned a non-finite value: {result!r:.200}"
            )
