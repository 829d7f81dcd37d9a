"""Deciding comparisons of claims rows: ``op(value, reference, tol)`` and the verdict of each outcome.

A claims row records the comparison that decided it, so that a test can re-decide the row with the
value moved beyond the tolerance and check that the verdict flips (no constant conditions).

References
----------
Issue 12 (claims integrity).
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, replace
from numbers import Real

import numpy as np

#: reproduced  – our computation agrees with the paper within the stated tolerance
#: differs     – our computation disagrees; the paper is not provably wrong
#: paper error – the paper is demonstrably wrong (with a severity); the claim gives the evidence
#: ambiguous   – garbled conversion or underspecified text; the claim says what each reading gives
VERDICTS = ("reproduced", "differs", "paper error", "ambiguous")
SEVERITIES = ("typo", "inconsistency", "wrong result")
OPS = ("close", "far", "le", "lt", "ge", "gt")
_ARROW, _BAR = " -> ", " | "
#: significant digits of a decision's numbers in its text: enough to re-decide it, few enough that a
#: last-bit difference between machines (numpy's SIMD reductions differ by CPU) leaves the file unchanged
DECISION_DIGITS = 12


@dataclass(frozen=True)
class Decision:
    """The comparison that decides a row: ``op(value, reference, tol)`` → ``if_true`` else ``if_false``.

    ``close``: |value − reference| ≤ tol; ``far``: > tol; ``le``/``lt``/``ge``/``gt``: value vs
    reference (tol unused).  ``op = "text"`` is a row decided otherwise; ``how`` says how.
    """

    op: str
    value: float = 0.0
    reference: float = 0.0
    tol: float = 0.0
    if_true: str = "reproduced"
    if_false: str = "differs"
    how: str = ""

    def __post_init__(self):
        if self.op not in OPS + ("text",):
            raise ValueError(f"op must be one of {OPS + ('text',)}; got {self.op!r}")
        for name in ("if_true", "if_false"):
            if getattr(self, name) not in VERDICTS:
                raise ValueError(f"{name} must be one of {VERDICTS}; got {getattr(self, name)!r}")
        if self.op == "text":
            if len(self.how.strip()) < 10:
                raise ValueError(f"a row decided otherwise must say how (how={self.how!r})")
            return
        for name in ("value", "reference", "tol"):
            raw = getattr(self, name)
            if isinstance(raw, (bool, np.bool_)) or not isinstance(raw, Real):
                raise TypeError(
                    f"{name} must be a real number; got {raw!r:.80} of type {type(raw).__name__}"
                )
            x = float(raw)
            if not math.isfinite(x) or (name == "tol" and x < 0):
                allowed = (
                    "a finite number >= 0"
                    if name == "tol"
                    else "a finite number (a comparison with inf cannot be re-decided)"
                )
                raise ValueError(f"{name} must be {allowed}; got {x!r}")
            object.__setattr__(self, name, x)

    @property
    def holds(self) -> bool:
        if self.op == "text":
            return True
        if self.op in ("close", "far"):  # value and reference are finite (checked at construction)
            close = abs(self.value - self.reference) <= self.tol
            return close if self.op == "close" else not close
        return getattr(operator, self.op)(self.value, self.reference)  # le, lt, ge, gt

    @property
    def verdict(self) -> str:
        return self.if_true if self.holds else self.if_false

    def __str__(self) -> str:
        outcome = f"{_ARROW}{self.if_true}{_BAR}{self.if_false}"
        if self.op == "text":
            return f"text({self.how}){_ARROW}{self.if_true}"
        shown = replace(
            self,
            **{
                name: float(f"{getattr(self, name):.{DECISION_DIGITS}g}")
                for name in ("value", "reference", "tol")
            },
        )
        if shown.holds != self.holds:  # within 1e-12 of the bound: the full digits decide
            shown = self
        return f"{self.op}({shown.value!r}, {shown.reference!r}, {shown.tol!r}){outcome}"

    @classmethod
    def parse(cls, text: str) -> Decision:
        """Inverse of ``str`` (numbers to :data:`DECISION_DIGITS` significant digits, same verdict); ValueError on anything else."""
        try:
            head, outcome = text.rsplit(_ARROW, 1)
            op, args = head.split("(", 1)
            if not args.endswith(")"):
                raise ValueError("no closing parenthesis")
            if op == "text":
                return cls("text", how=args[:-1], if_true=outcome, if_false=outcome)
            value, reference, tol = (float(a) for a in args[:-1].split(", "))
            if_true, if_false = outcome.split(_BAR)
            return cls(op, value, reference, tol, if_true, if_false)
        except (ValueError, TypeError) as err:
            raise ValueError(f"not a decision: {text!r} ({err})") from None


# Constructors used in the notebooks: ``claims.check_statement(..., lt(a, b), ...)``.
def close(value, reference, tol) -> Decision:
    return Decision("close", value, reference, tol)


def far(value, reference, tol) -> Decision:
    return Decision("far", value, reference, tol)


def _order(op, value, bound) -> Decision:
    try:
        return Decision(op, value, bound)
    except (TypeError, ValueError) as err:  # the bound is Decision's reference: name the bound
        raise type(err)(str(err).replace("reference", "bound", 1)) from None


def le(value, bound) -> Decision:
    """``value ≤ bound``."""
    return _order("le", value, bound)


def lt(value, bound) -> Decision:
    """``value < bound``."""
    return _order("lt", value, bound)


def ge(value, bound) -> Decision:
    """``value ≥ bound``."""
    return _order("ge", value, bound)


def gt(value, bound) -> Decision:
    """``value > bound``."""
    return _order("gt", value, bound)


def by_text(how: str) -> Decision:
    return Decision("text", how=how)
