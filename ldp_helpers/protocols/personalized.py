"""Illustration: personalized LDP by grouping users on their chosen ε.

Each user picks her own budget ε_u.  Grouping users by ε and running one oracle per group
gives every user exactly her ε-LDP; the server combines the group estimates of the *fraction*
of each value with inverse-variance weights w_g ∝ n_g / Var*_g, where Var*_g is Wang et al.'s
approximate per-user variance at ε_g.  This is a minimal stand-in for the personalized
(τ, ε)-PLDP of Chen et al. (ICDE 2016) that the tutorial describes, without its safe regions.
"""

from __future__ import annotations

import numpy as np

from ldp_helpers._validation import (
    Described, check_allocation, check_domain_values, check_epsilon, check_int, check_real_array, check_rng, fail)
from ldp_helpers.bounds.wang2017 import prefers_direct_encoding
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.unary_encoding import OUE


def oracle_for(epsilon: float, d: int):
    """GRR when d < 3e^ε + 2, else OUE (the tutorial's rule, :func:`~ldp_helpers.bounds.wang2017.prefers_direct_encoding`).

    References
    ----------
    [tutorial] "Summary"; [wang2017] §4.
    """
    epsilon, d = check_epsilon(epsilon), check_int("d", d, low=2)
    return GRR(epsilon, d) if prefers_direct_encoding(d, epsilon) else OUE(epsilon, d)


def grouped_frequency_estimate(values, user_epsilons, d: int, *, rng: np.random.Generator):
    """Per-group unbiased fraction estimates combined by inverse approximate variance.

    Returns (combined fractions, {ε: group fractions}, {ε: weight}).  Each group's support
    counts are drawn by its oracle's exact aggregate sampler from the group's value counts.

    References
    ----------
    [tutorial] "Personalized LDP" (illustration: Chen et al.'s PLDP without safe regions).
    """
    d = check_int("d", d, low=2)
    check_allocation("d", d, 3 * d, what="a count vector and its estimates per group")
    values = check_domain_values("values", values, d).ravel()
    eps = check_real_array("user_epsilons", user_epsilons, low=0.0).ravel()
    if eps.shape != values.shape:
        fail("user_epsilons", Described(f"{eps.size} budgets"), f"one budget per user ({values.size})")
    rng = check_rng(rng)
    groups, precision = {}, {}
    for level in np.unique(eps):
        members = values[eps == level]
        oracle = oracle_for(float(level), d)
        counts = oracle.sample_aggregate(np.bincount(members, minlength=d), rng=rng)
        groups[float(level)] = oracle.estimate(counts, members.size) / members.size
        precision[float(level)] = members.size / oracle.approx_variance(1)  # 1 / Var of a fraction
    total = sum(precision.values())
    weights = {level: w / total for level, w in precision.items()}
    combined = sum(weights[level] * groups[level] for level in groups)
    return combined, groups, weights
