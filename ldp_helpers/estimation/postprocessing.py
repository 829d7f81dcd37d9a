"""Post-processing of unbiased frequency estimates, as an explicit choice.

* ``"unbiased"`` (the default): the raw estimates ĉ(i), unbiased but possibly negative and not
  summing to n.
* ``"clip"``: clip negatives to 0 and rescale to total n (what multi-freq-ldpy does by default):
  a valid histogram, biased.
* ``"simplex"``: the Euclidean projection onto {x ≥ 0, Σx = n} (Duchi et al. 2008), the
  closest valid histogram in L2; biased too, usually less than clipping for small counts.

Post-processing never costs privacy (it only touches the aggregate).

References
----------
[tutorial] "Frequency Oracles" (the unbiased estimates may be negative); [duchi2008].
"""

from __future__ import annotations

import numpy as np

from ldp_helpers._validation import check_ndim, check_real, check_real_array, fail

METHODS = ("unbiased", "clip", "simplex")


def _check_estimates(estimates) -> np.ndarray:
    return check_real_array("estimates", check_ndim("estimates", estimates, 1, what="of estimates"))


def clip_and_renormalize(estimates, total) -> np.ndarray:
    """max(ĉ, 0) rescaled to sum to ``total`` (uniform if every estimate is ≤ 0).

    ``estimates`` is one survey's vector, or a 2-D array of surveys × values (each survey rescaled on
    its own, exactly as the one-survey call would).

    References
    ----------
    [tutorial] "Frequency Oracles" (multi-freq-ldpy's default post-processing).
    """
    est = check_real_array("estimates", estimates, ndim=(1, 2), what="of estimates")
    total = check_real("total", total, low=0.0, low_open=False)
    clipped = np.clip(est, 0.0, None)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # far or empty: below
        mass = clipped.sum(axis=-1, keepdims=True)
        scale = total / mass
        out = clipped * scale
    # (1e308, 1e308) gave 0s, total 1e300 over (1e-10, 0) a NaN: the largest becomes 1 first
    far = (mass > 0) & ~(np.isfinite(mass) & np.isfinite(scale))
    if far.any():
        rows = far[..., 0]
        unit = clipped[rows] / clipped[rows].max(axis=-1, keepdims=True)
        out[rows] = unit * (total / unit.sum(axis=-1, keepdims=True))
    return np.where(mass == 0.0, total / est.shape[-1], out)


def project_to_simplex(estimates, total) -> np.ndarray:
    """Euclidean projection of ĉ onto {x ≥ 0, Σx = total} (sort-based, O(d log d)).

    References
    ----------
    [duchi2008] Fig. 1 (Duchi, Shalev-Shwartz, Singer, Chandra, ICML 2008).
    """
    est = _check_estimates(estimates)
    total = check_real("total", total, low=0.0, low_open=False)
    # the simplex is the single point 0 (and the sort-based threshold has no candidate)
    if total == 0.0:
        return np.zeros(est.size)
    shift = _simplex_shift(est, total)
    if shift is None:  # rounding lost every candidate (|ĉ| ≫ total): ĉ − max ĉ projects alike
        with np.errstate(over="ignore"):
            est = est - est.max()
        shift = _simplex_shift(est, total)
    return np.maximum(est - shift, 0.0)


def _simplex_shift(est: np.ndarray, total: float) -> float | None:
    """Duchi et al.'s threshold θ (the projection is max(ĉ − θ, 0)), None when rounding leaves no candidate
    ρ (the largest ĉ is always one in exact arithmetic; ĉ = (1e17, 0) with total 1 loses it, 1e17 − 1 = 1e17)."""
    ordered = np.sort(est)[::-1]
    with np.errstate(over="ignore", invalid="ignore"):  # overflow to ±∞, ∞ − ∞: no candidate
        cumulative = np.cumsum(ordered) - total
        index = np.arange(1, est.size + 1)
        rho = np.nonzero(ordered - cumulative / index > 0)[0]
    return float(cumulative[rho[-1]] / (rho[-1] + 1)) if rho.size else None


def postprocess(estimates, total, method: str = "unbiased") -> np.ndarray:
    """Apply one of :data:`METHODS` to count (or frequency) estimates summing ideally to ``total``.

    References
    ----------
    [tutorial] "Frequency Oracles"; [duchi2008] Fig. 1 (for ``"simplex"``).
    """
    if method not in METHODS:
        fail("method", method, f"one of {METHODS}")
    if method == "clip":
        return clip_and_renormalize(estimates, total)
    if method == "simplex":
        return project_to_simplex(estimates, total)
    return _check_estimates(estimates).copy()
