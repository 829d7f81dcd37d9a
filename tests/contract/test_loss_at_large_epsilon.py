"""No registered mechanism's whole-report table loses more than its ε at any accepted ε.

For every entry of ``ALL_MECHANISMS`` (the mechanisms' registry and the protocols'), the budget knob of its class
(ε, or ε₁ with ε∞ for the memoized oracles, or RAPPOR's f, p) is pushed to the largest value the class accepts
(found by bisection over the floats), and on a grid below it ``privacy_loss() ≤ epsilon + tolerance``.  The
tolerance, 1e-12·max(1, ε), is rounding: a table's log-probabilities are accurate to ~|ln P|·2⁻⁵² ≈ ε·2e-16 each,
so an honest table's loss sits within ~1e-15·ε of ε; the defects this guards against were ≥ 2e-11 (L-GRR at ε =
14.85), mostly 1e-6 to ln 2 (Q_Bin at ε = 36: a p that rounded up to 1 − 2·2⁻⁵³ against a q of 2.09·2⁻⁵³ lost
ε + 0.044; L-OUE(496, ε∞ = 709) lost ε₁ + 212; PCEP's table read ∞ from ε ≈ 745).  Tables at the registry's
tiny examples (d ≤ 8): the whole test takes about a second.
"""

from __future__ import annotations

import dataclasses
import math
import struct

from ldp_helpers.mechanisms.randomized_response import BinaryRR
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams
from ldp_helpers.protocols.registry import ALL_MECHANISMS

from .harness import assert_no_problems

#: the largest finite float: classes that accept every finite budget are checked there
LARGEST = 1.7976931348623157e308
#: per-key settings that keep the table tiny at every ε (HM's t and FLH's g grow with ε otherwise)
FIXED = {"hm": {"t": 1}, "flh": {"g": 4}}
#: ε₁ of the memoized oracles' knobs, as a share of the largest reachable: well below, near, and within 1e-9
MEMOIZED_RATIOS = (0.5, 0.99, 1 - 1e-9)


def _rappor(entry, x):
    """RAPPOR with PRR ε∞ = 2h·x (f = 2/(1 + e^x)) and IRR p = e^{−x}/4 (``rappor``), or IRR only at ε = x."""
    example = entry.example()
    par = example.params
    if par.f == 0.0:
        params = RapporParams.basic_one_time_at_epsilon(x, par.k, par.h, par.m)
    else:
        shrink = math.exp(-x)
        params = dataclasses.replace(par, f=2 * shrink / (1 + shrink), p=shrink / 4)
    return Rappor(params, example.blooms, example.secret)


def _memoized(example, x, r):
    """The memoized oracle at ε∞ = x and ε₁ = r·epsilon_ceiling (ε∞ itself for GRR and SUE second rounds)."""
    ceiling = dataclasses.replace(example, epsilon=x / 4, epsilon_permanent=x).epsilon_ceiling
    return dataclasses.replace(example, epsilon=r * ceiling, epsilon_permanent=x)


def knobs(key):
    """(label, build(x) -> mechanism) of every budget knob of ``key``'s class; the ε promised is the
    mechanism's ``epsilon``, but BinaryRR.from_epsilon's is x (its ``epsilon`` is computed from p and q)."""
    entry = ALL_MECHANISMS[key]
    example = entry.example()
    if isinstance(example, BinaryRR):
        return [("from_epsilon", BinaryRR.from_epsilon)]  # promised: x
    if isinstance(example, Rappor):
        return [("f, p", lambda x: _rappor(entry, x))]
    fixed = FIXED.get(key, {})
    if hasattr(example, "epsilon_permanent"):  # ε∞ = x, ε₁ = r × the largest ε₁ reachable after it
        return [
            (
                f"epsilon_permanent (epsilon = {r!r} × its ceiling)",
                lambda x, r=r: _memoized(example, x, r),
            )
            for r in MEMOIZED_RATIOS
        ]
    return [("epsilon", lambda x: dataclasses.replace(example, epsilon=x, **fixed))]


def _bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _float(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<q", bits))[0]


def _accepted(build, x):
    try:
        return build(x)
    except ValueError:
        return None


def largest_accepted(build, start: float) -> float:
    """The largest float x ≥ ``start`` (accepted) with build(x) accepted and build(next float) refused, by bisection."""
    if _accepted(build, LARGEST) is not None:
        return LARGEST
    low, high = _bits(start), _bits(LARGEST)  # accepted, refused
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (
            (middle, high) if _accepted(build, _float(middle)) is not None else (low, middle)
        )
    return _float(low)


def grid_below(top: float) -> list:
    """The ceiling, the floats just below it, and a grid from 1 up to it (every integer to 80, then coarser)."""
    near = [top, math.nextafter(top, 0.0), top * (1 - 1e-9), top * 0.999, top - 0.5, top - 1]
    coarse = [*range(1, 81), 100, 150, 200, 300, 400, 500, 600, 700, 709, 745, 1e4, 1e100]
    return sorted({float(x) for x in (*near, *coarse) if 0 < x <= top})


def loss_problems(key) -> list:
    """For every accepted budget of the grids of ``key``'s knobs: a problem where the table loses more than
    ε + tolerance (or its loss cannot be computed), else ``None``."""
    problems = []
    for label, build in knobs(key):
        assert _accepted(build, 1.0) is not None, f"{key} ({label}): 1.0 is refused"
        top = largest_accepted(build, 1.0)
        for x in grid_below(top):
            mechanism = _accepted(build, x)
            if mechanism is None:
                continue
            shown = f"{key} ({label} = {x!r}, accepted up to {top!r})"
            try:  # an accepted budget whose loss cannot be checked is a problem too
                loss = mechanism.privacy_loss()
            except (ValueError, RuntimeWarning) as error:
                problems.append(f"{shown}: privacy_loss() fails: {type(error).__name__}: {error}")
                continue
            epsilon = x if isinstance(mechanism, BinaryRR) else mechanism.epsilon
            if not loss <= epsilon + 1e-12 * max(1.0, epsilon):
                problems.append(
                    f"{shown}: privacy_loss() = {loss!r} exceeds epsilon = {epsilon!r} by "
                    f"{loss - epsilon:.3g}"
                )
            else:
                problems.append(None)
    return problems


def test_no_table_loses_more_than_its_epsilon_up_to_the_accepted_ceiling():
    outcomes = [p for key in sorted(ALL_MECHANISMS) for p in loss_problems(key)]
    assert_no_problems(outcomes, len(outcomes), "whole-report loss ≤ ε at large accepted ε")
    # the bisection finds Q_Bin's ceiling: e^ε/(e^ε + 1) rounds to 1 from ε ≈ ln 2^53 = 36.7368
    assert abs(largest_accepted(BinaryRR.from_epsilon, 1.0) - 53 * math.log(2)) < 1e-3
