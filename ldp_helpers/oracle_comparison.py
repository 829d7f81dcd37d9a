"""Which frequency oracle to use: approximate variances over (d, ε) and the DE/OUE boundary.

Wang et al.'s approximate variance of one count (per user, i.e. divided by n) is
Var* = q*(1−q*)/(p*−q*)²: for DE (GRR) (e^ε+d−2)/(e^ε−1)², for OUE 4e^ε/(e^ε−1)² (no d), for
OLH with the integer g = round(e^ε)+1 slightly above OUE.  DE wins iff
e^ε + d − 2 < 4e^ε, i.e. d < 3e^ε + 2 (tutorial, "まとめ").
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import check_epsilon, check_int
from .grr import GRR
from .local_hashing import OLH
from .unary_encoding import OUE, SUE

#: the protocols compared in the phase diagram, by name
PROTOCOLS = {"DE": GRR, "SUE": SUE, "OUE": OUE, "OLH": OLH}


def de_threshold(epsilon) -> float:
    """The domain size 3e^ε + 2 below which DE (GRR) has the smaller approximate variance than OUE."""
    return 3.0 * math.exp(check_epsilon(epsilon)) + 2.0


def approx_variance_per_user(name: str, d: int, epsilon: float) -> float:
    """Wang et al.'s approximate Var[ĉ(i)]/n of protocol ``name`` (one of :data:`PROTOCOLS`)."""
    if name not in PROTOCOLS:
        raise ValueError(f"name must be one of {tuple(PROTOCOLS)}; got {name!r}")
    return PROTOCOLS[name](epsilon, check_int("d", d, low=2)).approx_count_variance(1)


def best_protocol_grid(domain_sizes, epsilons, names=("DE", "OUE", "OLH")) -> tuple[np.ndarray, np.ndarray]:
    """For each (ε, d): the index in ``names`` of the smallest approximate variance, and that variance.

    Returns arrays of shape (len(epsilons), len(domain_sizes)).
    """
    variances = np.array([[[approx_variance_per_user(name, int(d), float(eps)) for name in names] for d in domain_sizes] for eps in epsilons])
    return variances.argmin(axis=2), variances.min(axis=2)
