"""The field-oracle checker (chapter 07): a student's scaled risk of a pure oracle against the exact one
(:func:`~ldp_helpers.experiments.field_oracles.scaled_risk`)."""

from __future__ import annotations

import math

import numpy as np

from ldp_helpers.experiments.field_oracles import build_oracle, scaled_risk
from ldp_helpers.mechanisms.pure import count_variance
from ldp_helpers.teaching._sandbox import run_limited
from ldp_helpers.teaching.checks import TIME_LIMIT, Check, _callable, _failed, _scalars, _time_limit

#: the grid: pure oracles (registry keys), budgets ε and domain sizes d
RISK_KEYS = ("grr", "sue", "oue", "ss")
RISK_EPSILONS = (0.5, 1.0, 2.0, 4.0)
RISK_DS = (2, 16, 1024)
RISK_RTOL = 1e-9  # relative tolerance: the formula is exact


def check_scaled_risk(risk, *, time_limit: float = TIME_LIMIT) -> Check:
    """Is ``risk(p, q, d)`` the scaled risk ``n·E‖p̂ − p‖²₂`` of a pure oracle with support probabilities p*, q*?

    At every point of ``RISK_KEYS × RISK_EPSILONS × RISK_DS`` the student's value must equal, within the
    relative tolerance ``RISK_RTOL``, the scaled risk of that oracle computed from its exact variances
    (``[d q*(1 − q*) + (p* − q*)(1 − p* − q*)] / (p* − q*)²`` for a pure oracle).  A value off by one
    constant factor everywhere, or missing the term of the users' own values, is named.

    Parameters
    ----------
    risk : callable
        The student's function, ``risk(p, q, d) -> float``.
    time_limit : float
        Seconds the calls may take together.

    Returns
    -------
    Check

    References
    ----------
    [wang2017] Eq. (1), Theorem 2 (the variance of a pure oracle's count); [ye2018] (the ℓ2² risk).
    """
    risk = _callable("risk", risk)
    points = [(key, eps, d) for key in RISK_KEYS for eps in RISK_EPSILONS for d in RISK_DS]
    oracles = [build_oracle(key, eps, d) for key, eps, d in points]
    inputs = [(float(o.p), float(o.q), int(o.d)) for o in oracles]
    values = run_limited(
        lambda: _scalars(risk, inputs, "risk(p={:.4g}, q={:.4g}, d={})"),
        time_limit=_time_limit(time_limit),
        what="your risk",
    )
    if (failed := _failed(values)) is not None:
        return failed
    exact = np.array([scaled_risk([key], [eps], d)[0, 0] for key, eps, d in points])
    values = np.asarray(values)
    off = ~np.isclose(values, exact, rtol=RISK_RTOL, atol=0.0)
    if not off.any():
        return Check(
            True,
            f"your risk equals the exact scaled risk of {', '.join(k.upper() for k in RISK_KEYS)} "
            f"at all {len(points)} points (ε in {RISK_EPSILONS}, d in {RISK_DS}; relative "
            f"tolerance {RISK_RTOL:g}).",
        )
    i = int(np.argmax(off))
    (key, eps, d), (p, q, _) = points[i], inputs[i]
    return Check(
        False,
        f"for {key.upper()} at ε = {eps:g}, d = {d} (p* = {p:.6g}, q* = {q:.6g}) your risk is "
        f"{values[i]:.6g}; the exact scaled risk (from {key.upper()}'s exact variances) is "
        f"{exact[i]:.6g}" + _hint(values, exact, inputs),
    )


def _hint(values, exact, inputs) -> str:
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = values / exact
    if np.all(np.isfinite(ratio)) and np.allclose(ratio, ratio[0], rtol=1e-6) and ratio[0] != 0:
        return f" — yours is {ratio[0]:.4g} times the exact one everywhere (a constant factor)"
    variance_only = np.array([d * count_variance(0, 1, p, q) for p, q, d in inputs])  # no f_x term
    if np.allclose(values, variance_only, rtol=1e-9):
        return (
            " — the term (p* − q*)(1 − p* − q*) of the users' own values is missing "
            "(Var ĉ(x) has an f_x part)"
        )
    if np.all(np.isfinite(ratio)) and np.allclose(ratio, [d for _, _, d in inputs], rtol=1e-6):
        return " — yours is d times too large (a sum over values counted twice?)"
    if not math.isfinite(float(np.max(np.abs(ratio)))):
        return " — yours is not a finite number everywhere"
    return ""
