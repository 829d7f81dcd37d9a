"""Extreme but legal values are handled or refused, never mishandled (issue 27 item 6; issue 39).

Every spec'd callable is called with each of its budgets (``epsilon`` …) at ε ∈ {1e-300, 1e-17, 700, 1e4},
each probability at {5e-324, 1e-310, 1e-17, 1 − 2⁻⁵³} and each other real at {5e-324, 1e300, −1e300}, in an
otherwise valid call: it must return finite numbers (NaN is never a result; ±inf only where the spec allows
it; NaN only as a spec's documented marker, ``nan_ok``) without a warning, or refuse with the contract's ValueError/TypeError naming that parameter (e.g. "p* and
q* are equal in double precision: use a larger epsilon").  Before issue 27: THE(1e-17, 4) raised
ZeroDivisionError, GRR(1e-17, 4) blamed a too *large* epsilon, OUE(700, 5).privacy_loss() gave inf,
fresh_rr_count_table(800, 3) a NaN table.  Before the probabilities and reals were added: RAPPOR's ε∞ at
f = 5e-324 divided by zero, the Chernoff KL bound overflowed, m-shot's rates at β = 5e-324 blamed an inner
``y``.  One test per family (a subpackage's spec table): its failure lists every failing call.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from .harness import assert_no_problems, families, figures_in, materialize, resolve
from .specs import SPECS
from .strategies import kind_of
from .test_valid_input import numbers, run_strictly

EXTREMES = {
    "budget": (1e-300, 1e-17, 700.0, 1e4),
    "probability": (5e-324, 1e-310, 1e-17, 1 - 2**-53),
    "real": (5e-324, 1e300, -1e300),
}
CASES = {
    q: [name for name, v in sp.kwargs.items() if kind_of(name, v) in EXTREMES]
    for q, sp in SPECS.items()
    if sp.valid
}
FAMILIES = families(q for q, names in CASES.items() if names)


def extreme_value_problem(qualname: str, name: str, value: float) -> str | None:
    """``None`` when ``qualname`` with ``name=value`` answers without NaN (finite where the spec says so)
    or refuses naming ``name``."""
    sp, shown = SPECS[qualname], f"{qualname}({name}={value!r})"
    try:
        result = run_strictly(resolve(qualname), {**materialize(sp.kwargs, 0), name: value})
    except (ValueError, TypeError) as err:
        if re.search(
            rf"(?<!\w){re.escape(name)}(?!\w)", str(err)
        ):  # the name as a word: p is no epsilon
            return None
        return (
            f"{shown}: expected a refusal naming {name}; got one blaming another parameter: {err}"
        )
    except Exception as exc:  # noqa: BLE001 - reported with the call
        return f"{shown}: expected an answer or a refusal; got {type(exc).__name__}: {exc!s:.300}"
    leaves = numbers(result)
    if not sp.nan_ok and any(np.any(np.isnan(a)) for a in leaves):
        return f"{shown}: expected no NaN; got {result!r:.200}"
    if sp.finite and not all(np.all(np.isfinite(a)) for a in leaves):
        return f"{shown}: expected finite numbers; got {result!r:.200}"
    return None


@pytest.mark.parametrize("family", FAMILIES)
def test_extreme_values_are_handled_or_refused(family, tmp_path):
    problems = []
    for qualname in FAMILIES[family]:
        with figures_in(tmp_path, qualname):
            problems += [
                extreme_value_problem(qualname, name, value)
                for name in CASES[qualname]
                for value in EXTREMES[kind_of(name, SPECS[qualname].kwargs[name])]
            ]
    assert_no_problems(problems, len(problems), f"{family}: extreme values")
