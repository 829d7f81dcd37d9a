"""Measurements shared by the stream notebooks (03_m_shot, 04_glance): the maximum error and fitted rates."""

from __future__ import annotations

import numpy as np

from ldp_helpers._validation import Described, check_bool, check_ndim, check_probability, check_real_array, fail


def max_error(estimates, true_fractions) -> np.ndarray:
    """``Err = max_t |μ̂_t − μ_t|`` per survey (the last axis of ``estimates`` holds the T rounds).

    References
    ----------
    [glance] §3 (Err); [m_shot] Definition 3.1 (the α of (α, β)-accuracy).
    """
    mu = check_ndim("true_fractions", check_real_array("true_fractions", true_fractions, low=0.0, high=1.0, low_open=False, high_open=False),
                    1, what="(one fraction per round)")
    est = check_real_array("estimates", estimates)
    if est.ndim == 0 or est.shape[-1] != mu.size:
        fail("estimates", Described(f"an array of shape {est.shape}"), f"an array whose last axis has length T = {mu.size}")
    return np.max(np.abs(est - mu), axis=-1)


def fitted_slope(x, y, *, log_x: bool = True, log_correction_beta: float | None = None) -> float:
    """Least-squares slope of ``ln y`` against ``ln x`` (``log_x``) or against ``x``.

    Parameters
    ----------
    x, y : array_like
        Positive abscissae and ordinates of the same length ≥ 2.
    log_x : bool
        Fit against ``ln x`` (a power law ``y ∝ x^e``) or against ``x`` (``y ∝ e^{e x}``).
    log_correction_beta : float in (0, 1), optional
        If given, fit ``ln(y / √ln(2x/β))`` instead of ``ln y``. Needs ``x > β/2``.
        The union bound over the 2T one-sided sub-Gaussian tail events puts the factor
        ``√log(2T/β)`` in the high-probability bound on the maximum error over ``x = T`` rounds
        (the value it exceeds with probability ≤ β, the form of the rates cited below): for
        ``y ∝ T^e √log(2T/β)`` the corrected slope is exactly ``e``. For other statistics of the
        maximum it leaves a residual bias: for the maximum of T independent Gaussian errors and
        β = 0.05 over T = 100…1600 the corrected slope is ``e + 0.013`` for the exact (1 − β)-quantile
        (the ``log log`` term of the Gaussian tail) and ``e + 0.041`` for the *mean* maximum, which
        grows like ``√(2 ln T)`` (pinned in ``tests/test_continual.py``).

    References
    ----------
    [m_shot] Theorem 9; [m_shot] Eqs. (8)–(10) (rates ``O(T^e √(log(T/β)/N))``).
    """
    if log_correction_beta is not None:
        beta = check_probability(log_correction_beta, "log_correction_beta", open_low=True, open_high=True)
        x = check_real_array("x", x, low=beta / 2)
    else:
        x = check_real_array("x", x, low=0.0)
    y = check_real_array("y", y, low=0.0)
    if x.size != y.size or x.size < 2:
        fail("y", Described(f"an array of length {y.size}"), f"an array of the same length as x ({x.size}), at least 2")
    if log_correction_beta is not None:
        y = y / np.sqrt(np.log(2 * x / beta))
    return float(np.polyfit(np.log(x) if check_bool("log_x", log_x) else x, np.log(y), 1)[0])
