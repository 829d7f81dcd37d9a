"""Which frequency oracle to use: approximate variances over (d, ε) and the DE/OUE boundary.

Wang et al.'s approximate variance of one count (per user, i.e. divided by n) is
Var* = q*(1−q*)/(p*−q*)²: for DE (GRR) (e^ε+d−2)/(e^ε−1)², for OUE 4e^ε/(e^ε−1)² (no d), for
OLH with the integer g = round(e^ε)+1 slightly above OUE.  DE wins iff
e^ε + d − 2 < 4e^ε, i.e. d < 3e^ε + 2 ([tutorial] "Summary"): :func:`de_threshold` is the one
place this rule is written, :func:`de_threshold_epsilon` its inverse in ε and
:func:`prefers_direct_encoding` the decision.

References
----------
[wang2017] §4 (the comparison of the pure protocols); [tutorial] "Summary".
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from ldp_helpers._validation import check_epsilon, check_epsilons, check_int, check_int_array, fail
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.local_hashing import OLH
from ldp_helpers.mechanisms.unary_encoding import OUE, SUE

#: the protocols compared in the phase diagram, by name
PROTOCOLS = {"DE": GRR, "SUE": SUE, "OUE": OUE, "OLH": OLH}
_MAX_EXP = 709.0  # e^ε overflows a double beyond ε ≈ 709.78


def de_threshold(epsilon):
    """The domain size 3e^ε + 2 below which DE (GRR) has a smaller approximate variance than OUE.

    ``epsilon`` is a number (a float is returned, ``inf`` beyond ε = 709) or an array of budgets.

    References
    ----------
    [wang2017] §4 (DE vs OUE); [tutorial] "Summary" (d < 3e^ε + 2).
    """
    if np.ndim(epsilon) == 0:
        epsilon = check_epsilon(epsilon)
        return math.inf if epsilon > _MAX_EXP else 3.0 * math.exp(epsilon) + 2.0
    eps = check_epsilons(epsilon, "epsilon")
    with np.errstate(over="ignore"):  # e^ε beyond a double is inf, as for a number
        return 3.0 * np.exp(eps) + 2.0


def de_threshold_epsilon(d) -> float:
    """The ε = ln((d − 2)/3) below which OUE beats DE for domain size d > 2 (:func:`de_threshold` solved for ε).

    A value ≤ 0 means DE is better at every ε > 0 (d ≤ 5).

    References
    ----------
    [wang2017] §4 (DE vs OUE); [grr_vs_oue] §2.3.
    """
    d = check_int("d", d, low=3)  # a domain size: d = 2 would give ln 0
    return math.log((d - 2.0) / 3.0)


def prefers_direct_encoding(d: int, epsilon: float) -> bool:
    """True iff DE (GRR) has the smaller approximate variance than OUE: d < 3e^ε + 2.

    References
    ----------
    [tutorial] "Summary"; [wang2017] §4.
    """
    return check_int("d", d, low=2) < de_threshold(epsilon)


def approx_variance_per_user(name: str, d: int, epsilon: float) -> float:
    """Wang et al.'s approximate Var[ĉ(i)]/n of protocol ``name`` (one of :data:`PROTOCOLS`).

    References
    ----------
    [wang2017] Eq. (2); [wang2017] Theorem 2.
    """
    if name not in PROTOCOLS:
        fail("name", name, f"one of {tuple(PROTOCOLS)}")
    return PROTOCOLS[name](epsilon, check_int("d", d, low=2)).approx_variance(1)  # checks ε


def best_protocol_grid(
    domain_sizes, epsilons, names=("DE", "OUE", "OLH")
) -> tuple[np.ndarray, np.ndarray]:
    """For each (ε, d): the index in ``names`` of the smallest approximate variance, and that variance.

    Returns arrays of shape (len(epsilons), len(domain_sizes)).

    References
    ----------
    [wang2017] §4 (approximate variances); [tutorial] "Summary".
    """
    domain_sizes = check_int_array("domain_sizes", domain_sizes, low=2).ravel()
    epsilons = check_epsilons(epsilons).ravel()
    if (
        not isinstance(names, (tuple, list))
        or not names
        or any(not isinstance(n, str) or n not in PROTOCOLS for n in names)
    ):
        fail("names", names, f"a non-empty tuple of protocol names among {sorted(PROTOCOLS)}")
    variances = np.array(
        [
            [
                [approx_variance_per_user(name, int(d), float(eps)) for name in names]
                for d in domain_sizes
            ]
            for eps in epsilons
        ]
    )
    return variances.argmin(axis=2), variances.min(axis=2)


def first_d_where_oue_wins(epsilon: float, *, max_d: int = 10**6) -> int:
    """The smallest d ≥ 2 at which OUE's approximate variance is below DE's, found by bisection.

    Var_DE − Var_OUE is increasing in d (DE's variance grows by 1/(e^ε−1)² per value, OUE's is
    constant), so bisection on the computed variances finds the switch without the closed form.

    References
    ----------
    [tutorial] "Summary" (checked against d < 3e^ε + 2 in the notebook).
    """
    epsilon = check_epsilon(epsilon)
    max_d = check_int("max_d", max_d, low=3)

    def oue_wins(d):
        return approx_variance_per_user("DE", d, epsilon) > approx_variance_per_user(
            "OUE", d, epsilon
        )

    if not oue_wins(max_d):
        fail("max_d", max_d, f"above the switch point 3e^epsilon + 2 = {de_threshold(epsilon):.6g}")
    if oue_wins(2):
        return 2
    ds = range(3, max_d + 1)
    return ds[bisect.bisect_left(ds, True, key=oue_wins)]  # the first d that wins
