"""Extremes of T round errors: the max of T Gaussians and the √log(2T/β) rates of union bounds.

Theorem 9 of [m_shot] bounds the *maximum* error over T rounds by a union bound, which adds a
factor √log(2T/β) to a per-round rate.  These functions give the rate's shape through a first
point, and the exact extremes of T independent standard normals, to measure how much of the
maximum's growth in T that factor accounts for (what a fitted exponent keeps of it).

References
----------
[m_shot] Theorem 9; [m_shot] Eq. (8).
"""

from __future__ import annotations

import math
import sys

import numpy as np
from scipy import integrate, special

from ldp_helpers._numeric import union_log
from ldp_helpers._validation import (
    check_int,
    check_probability,
    check_real,
    check_real_array,
    fail,
)


def rate_guide(rounds, first_value: float, exponent: float, beta: float) -> np.ndarray:
    """A guide ``∝ T^e √log(2T/β)`` through ``first_value`` (> 0) at the first T (Theorem 9 with the max over T).

    An ``exponent`` whose guide exceeds double precision at some T (beyond about ±308/log10(T/T₀)) is
    refused with the range of exponents that keeps it finite.
    """
    beta = check_probability(beta, "beta", open_low=True, open_high=True)
    first_value = check_real("first_value", first_value, low=0.0)
    exponent = check_real("exponent", exponent)
    # a scalar raised IndexError at shape[0]; a 2-D array was divided by its first row
    t = check_real_array("rounds", rounds, low=beta / 2, ndim=1, what="(T of each point)")
    log_term = union_log(2 * t, beta)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        shape = t**exponent * np.sqrt(log_term)
        guide = first_value * shape / shape[0]
    if not np.all(np.isfinite(guide)):  # T^e beyond double range (0/0, ∞/∞): the ratio in logs
        with np.errstate(over="ignore"):
            logs = exponent * np.log(t / t[0]) + 0.5 * np.log(log_term / log_term[0])
            guide = np.where(np.isfinite(guide), guide, first_value * np.exp(logs))
            if not np.all(np.isfinite(guide)):  # e^logs beyond 1e308, first_value·e^logs maybe not
                guide = np.where(np.isfinite(guide), guide, np.exp(logs + math.log(first_value)))
        if not np.all(np.isfinite(guide)):  # the guide itself beyond 1e308: no double holds it
            # log first_value + e·log(T/T₀) + ½ log(L/L₀) ≤ log(max double) at every T bounds e
            r = np.log(t / t[0])
            room = (
                math.log(sys.float_info.max)
                - math.log(first_value)
                - 0.5 * np.log(log_term / log_term[0])
            )
            high = float(np.min(room[r > 0] / r[r > 0], initial=math.inf))
            low = float(np.max(room[r < 0] / r[r < 0], initial=-math.inf))
            allowed = f"in [{low:.6g}, {high:.6g}]" if low > -math.inf else f"at most {high:.6g}"
            fail(
                "exponent",
                exponent,
                f"a real {allowed} for these rounds and first_value (beyond it "
                "the guide first_value·(T/T₀)^exponent·√(log(2T/β)/log(2T₀/β)) exceeds double "
                "precision)",
            )
    return guide


def max_abs_normal(n_rounds: int, beta: float | None = None) -> float:
    """max_{t ≤ T} |Z_t| of T independent standard normals: its mean, or its (1 − β)-quantile if ``beta``.

    The quantile solves ``erf(a/√2)^T = 1 − β``; the mean is ``∫_0^∞ 1 − erf(x/√2)^T dx``.  Both grow
    like √(2 ln T); :func:`~ldp_helpers.experiments.m_shot.log_correction_residual` measures what
    √log(2T/β) leaves of that growth.
    """
    T = check_int("n_rounds", n_rounds, low=1)
    if beta is not None:
        beta = check_probability(beta, "beta", open_low=True, open_high=True)
        # erfc(a/√2) = 1 − (1 − β)^{1/T}
        tail = -math.expm1(math.log1p(-beta) / T)
        if tail < sys.float_info.min:  # subnormal or 0 (β/T below 1e-308): Φ̄(a) = tail/2 in logs
            return float(-special.ndtri_exp(math.log(beta) - math.log(T) - math.log(2)))
        return float(math.sqrt(2) * special.erfcinv(tail))
    # 1 − erf^T < 2T·e^{−x²/2} is below 1e-20 beyond
    upper = 2 * math.sqrt(2 * math.log(2 * T)) + 10
    return float(
        integrate.quad(
            lambda x: -math.expm1(T * math.log1p(-math.erfc(x / math.sqrt(2)))) if x > 0 else 1.0,
            0.0,
            upper,
            limit=200,
            epsabs=1e-12,
        )[0]
    )
