"""Accuracy at equal central ε: shuffled GRR against local GRR/OUE/OLH and the central Laplace/geometric.

At a central guarantee (ε_c, δ) every protocol is given its largest budget:

* **shuffled GRR** runs k-RR locally at the largest ε₀ whose shuffled view is (ε_c, δ)-DP
  (:func:`local_epsilon_for_central`: the exact ε_c of :mod:`ldp_helpers.bounds.shuffle` for k ≤ 3,
  or FMT's numerical bound, valid for every ε₀-LDP randomizer, with ``calibration="fmt"``);
* **local** GRR, OUE, OLH at ε = ε_c (an ε-LDP protocol is ε-DP for the server);
* **central** Laplace (scale 2/ε_c) or two-sided geometric (α = e^{−ε_c/2}) noise added to each count
  of the true histogram (one user's change moves two counts by 1: L1 sensitivity 2), pure ε_c-DP.

Every MSE is exact: each estimator is unbiased and its variance is known in closed form (the
mechanisms' ``variance``; Laplace 2b², geometric 2α/(1 − α)²).  The MSE of the frequency estimates
is the mean over the k values of Var[ĉ(v)]/n².

References
----------
[wang2017] Theorem 2 (GRR, OUE, OLH variances); [dwork2006] (the Laplace mechanism);
[ghosh2012] (the geometric mechanism); [erlingsson2019], [feldman2021clones] (the shuffle model).
"""

from __future__ import annotations

import math

from scipy.optimize import brentq

from ldp_helpers._validation import (
    check_choice,
    check_counts,
    check_epsilon,
    check_int,
    check_probability,
    fail,
)
from ldp_helpers.bounds.grr_vs_oue import theoretical_mse
from ldp_helpers.bounds.shuffle import grr_profile
from ldp_helpers.bounds.shuffle_bounds import clone_profile
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.histogram_encoding import laplace_scale
from ldp_helpers.mechanisms.local_hashing import OLH
from ldp_helpers.mechanisms.unary_encoding import OUE

MAX_LOCAL_EPSILON = 20.0  # ε₀ searched in [ε_c, 20]


def local_epsilon_for_central(
    n: int, epsilon_c: float, delta: float, k: int, *, calibration: str = "exact"
) -> float:
    """The largest ε₀ (to 1e-4) at which shuffled k-RR among n users is (ε_c, δ)-DP.

    ``calibration="exact"`` uses the exact profile (k ≤ 3 at n in the thousands; its cost is
    :func:`~ldp_helpers.bounds.shuffle.grr_profile`'s, about 15 profiles); ``"fmt"`` uses FMT's
    numerical bound (any k, n up to about 6000), hence a smaller, still valid, ε₀.
    """
    n, k = check_int("n", n, low=2), check_int("k", k, low=2)
    epsilon_c = check_epsilon(epsilon_c, "epsilon_c", high=MAX_LOCAL_EPSILON)
    delta = check_probability(delta, "delta", open_low=True, open_high=True)
    check_choice("calibration", calibration, {"exact", "fmt"})

    def f(e0):
        profile = grr_profile(n, e0, k) if calibration == "exact" else clone_profile(n, e0)
        return profile.epsilon(delta) - epsilon_c

    if f(MAX_LOCAL_EPSILON) <= 0:
        return MAX_LOCAL_EPSILON
    return float(brentq(f, epsilon_c, MAX_LOCAL_EPSILON, xtol=1e-4))


def frequency_mse_at_central_epsilon(
    truth, epsilon_c: float, delta: float, *, calibration: str = "exact"
) -> dict[str, float]:
    """Exact MSE of the frequency estimates of each protocol at the central guarantee (ε_c, δ).

    Parameters
    ----------
    truth : array of int
        The true count of each of the k values (n = its sum ≥ 2, k ≥ 2).
    epsilon_c, delta : float
        The central guarantee every protocol meets.
    calibration : {"exact", "fmt"}
        How shuffled GRR's ε₀ is found (:func:`local_epsilon_for_central`).

    Returns
    -------
    dict
        ``{"shuffled GRR", "local GRR", "local OUE", "local OLH", "central Laplace",
        "central geometric": MSE}``, plus ``"epsilon0"``, the shuffled protocol's local ε₀.
    """
    counts = check_counts("truth", truth)
    k, n = counts.size, int(counts.sum())
    if counts.ndim != 1 or k < 2 or n < 2:
        fail("truth", truth, "a 1-D array of k ≥ 2 counts of at least 2 users in all")
    epsilon_c = check_epsilon(epsilon_c, "epsilon_c", high=MAX_LOCAL_EPSILON)
    eps0 = local_epsilon_for_central(n, epsilon_c, delta, k, calibration=calibration)
    alpha = math.exp(-epsilon_c / 2)
    return {
        "shuffled GRR": theoretical_mse(GRR(eps0, k), counts),
        "local GRR": theoretical_mse(GRR(epsilon_c, k), counts),
        "local OUE": theoretical_mse(OUE(epsilon_c, k), counts),
        "local OLH": theoretical_mse(OLH(epsilon_c, k), counts),
        "central Laplace": 2 * laplace_scale(epsilon_c) ** 2 / n**2,  # Var Laplace(β) = 2β²
        "central geometric": 2 * alpha / (1 - alpha) ** 2 / n**2,
        "epsilon0": eps0,
    }
