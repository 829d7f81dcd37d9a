"""Which frequency oracle to use: approximate variances over (d, ε) and the DE/OUE boundary.

Wang et al.'s approximate variance of one count (per user, i.e. divided by n) is
Var* = q*(1−q*)/(p*−q*)²: for DE (GRR) (e^ε+d−2)/(e^ε−1)², for OUE 4e^ε/(e^ε−1)² (no d), for
OLH with the integer g = round(e^ε)+1 slightly above OUE.  DE wins iff
e^ε + d − 2 < 4e^ε, i.e. d < 3e^ε + 2 (tutorial, "まとめ").
"""

from __future__ import annotations

import math

import numpy as np

from ldp_helpers._validation import check_epsilon, check_int, check_int_array, check_real_array
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.local_hashing import OLH
from ldp_helpers.mechanisms.unary_encoding import OUE, SUE

#: the protocols compared in the phase diagram, by name
PROTOCOLS = {"DE": GRR, "SUE": SUE, "OUE": OUE, "OLH": OLH}


def de_threshold(epsilon) -> float:
    """The domain size 3e^ε + 2 below which DE (GRR) has the smaller approximate variance than OUE."""
    epsilon = check_epsilon(epsilon)
    return math.inf if epsilon > 709.0 else 3.0 * math.exp(epsilon) + 2.0  # e^ε overflows beyond ε ≈ 709.78


def approx_variance_per_user(name: str, d: int, epsilon: float) -> float:
    """Wang et al.'s approximate Var[ĉ(i)]/n of protocol ``name`` (one of :data:`PROTOCOLS`)."""
    if name not in PROTOCOLS:
        raise ValueError(f"name must be one of {tuple(PROTOCOLS)}; got {name!r}")
    return PROTOCOLS[name](epsilon, check_int("d", d, low=2)).approx_count_variance(1)


def best_protocol_grid(domain_sizes, epsilons, names=("DE", "OUE", "OLH")) -> tuple[np.ndarray, np.ndarray]:
    """For each (ε, d): the index in ``names`` of the smallest approximate variance, and that variance.

    Returns arrays of shape (len(epsilons), len(domain_sizes)).
    """
    domain_sizes = check_int_array("domain_sizes", domain_sizes, low=2).ravel()
    epsilons = check_real_array("epsilons", epsilons, low=0.0).ravel()
    variances = np.array([[[approx_variance_per_user(name, int(d), float(eps)) for name in names] for d in domain_sizes] for eps in epsilons])
    return variances.argmin(axis=2), variances.min(axis=2)


def first_d_where_oue_wins(epsilon: float, *, max_d: int = 10**6) -> int:
    """The smallest d ≥ 2 at which OUE's approximate variance is below DE's, found by bisection.

    Var_DE − Var_OUE is increasing in d (DE's variance grows by 1/(e^ε−1)² per value, OUE's is
    constant), so bisection on the computed variances finds the switch without the closed form.
    """
    epsilon = check_epsilon(epsilon)
    max_d = check_int("max_d", max_d, low=3)

    def oue_wins(d):
        return approx_variance_per_user("DE", d, epsilon) > approx_variance_per_user("OUE", d, epsilon)

    if not oue_wins(max_d):
        raise ValueError(f"max_d must exceed the switch point 3e^epsilon + 2 = {de_threshold(epsilon):.6g}; got {max_d}")
    low, high = 2, max_d  # invariant: the switch lies in (low, high], or at 2
    if oue_wins(low):
        return low
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if oue_wins(mid) else (mid, high)
    return high
