"""Illustration: padding-and-sampling frequency oracles (PSFO) for set-valued data.

Each user holds a set S ⊆ [0, d).  She pads it with dummy items d, ..., d+ℓ−1 up to size ℓ
(or keeps a uniform ℓ-subset if |S| > ℓ), samples ONE item of the padded set uniformly and
reports it with a frequency oracle over [0, d+ℓ); the server multiplies counts by ℓ.

Privacy amplification for GRR: the output probability of y is q' + (p'−q')·[y ∈ S]/ℓ, so the
worst ratio is 1 + (e^{ε'}−1)/ℓ; running GRR at ε' = ln(ℓ(e^ε−1)+1) therefore gives ε-LDP for
the whole set (checked exactly from the table in the tests).  OLH gets no such gain in Wang
et al.'s analysis, and comparing ℓ²·Var: GRR at ε' beats OLH at ε iff
|I| < (4ℓ² − ℓ)e^ε + 1 (with the domain I of real items; d' = |I| + ℓ).  At ℓ = 1 this is the
DE rule d' < 3e^ε + 2.

References
----------
[tutorial] "Itemset mining" (PSFO/SVIM of Wang, Li, Jha, IEEE S&P 2018; LDPMiner of Qin et al.,
CCS 2016); [wang2017] §4.1 (GRR); [wang2017] §4.4 (OLH).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ldp_helpers._validation import (
    Described, check_allocation, check_choice, check_domain_values, check_epsilon, check_int, check_real_array,
    check_rng, fail, fail_type)
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.local_hashing import OLH
from ldp_helpers.estimation.pure import count_variance
from ldp_helpers.mechanisms.unary_encoding import OUE


def amplified_grr_epsilon(epsilon: float, ell: int) -> float:
    """ε' = ln(ℓ(e^ε − 1) + 1): the GRR budget that padding-and-sampling turns into ε.

    Evaluated as ε + ln(ℓ − (ℓ − 1)e^{−ε}) (the same number, no overflow at large ε).

    References
    ----------
    [tutorial] "Itemset mining" (privacy amplification by sampling).
    """
    epsilon = check_epsilon(epsilon)
    ell = check_int("ell", ell, low=1)
    return epsilon + math.log(ell - (ell - 1) * math.exp(-epsilon))


def grr_preferred(n_items: int, epsilon: float, ell: int) -> bool:
    """True iff PSFO with GRR (at ε') has a smaller approximate variance than with OLH (at ε).

    Computed from the two variances, not from the closed-form threshold (tested to agree).

    References
    ----------
    [tutorial] "Itemset mining"; [wang2017] Eq. (2) (approximate variances).
    """
    d = check_int("n_items", n_items, low=1) + check_int("ell", ell, low=1)
    grr_var = GRR(amplified_grr_epsilon(epsilon, ell), d).approx_variance(1)
    olh_var = OUE(epsilon, d).approx_variance(1)  # OLH at the ideal g = e^ε + 1
    return grr_var < olh_var


def grr_threshold(epsilon: float, ell: int) -> float:
    """(4ℓ² − ℓ)e^ε + 1: GRR is preferred for |I| below it (the tutorial prints '>': reversed).

    At ℓ = 1 this is the DE rule: |I| + 1 (the one dummy item) <
    :func:`~ldp_helpers.bounds.wang2017.de_threshold` (tested).

    References
    ----------
    [tutorial] "Itemset mining" (SVIM's choice of oracle).
    """
    ell = check_int("ell", ell, low=1)
    log_threshold = math.log(4 * ell**2 - ell) + check_epsilon(epsilon)
    return math.inf if log_threshold > 709.0 else (4 * ell**2 - ell) * math.exp(check_epsilon(epsilon)) + 1


def pad_and_sample(sets, d: int, ell: int, *, rng: np.random.Generator) -> np.ndarray:
    """One sampled item per user from her set padded with dummies d..d+ℓ−1 to size ℓ.

    References
    ----------
    [tutorial] "Itemset mining" (padding and sampling).
    """
    d, ell = check_int("d", d, low=1), check_int("ell", ell, low=1)
    check_allocation("ell", ell, ell, what="one padded set of ell items")
    rng = check_rng(rng)
    if isinstance(sets, (str, bytes, dict)) or not hasattr(sets, "__len__") or not hasattr(sets, "__iter__"):
        fail_type("sets", sets, "a sequence of per-user sets (arrays of items in [0, d))")
    if len(sets) == 0:
        fail("sets", Described("no sets"), "at least one user's set")
    out = np.empty(len(sets), dtype=np.int64)
    for u, items in enumerate(sets):
        if isinstance(items, (str, bytes, dict)) or items is None:
            fail_type(f"sets[{u}]", items, f"an array of items in [0, {d})")
        items = np.asarray(items)
        if items.size:
            items = np.unique(check_domain_values(f"sets[{u}]", items, d))
        else:
            items = np.empty(0, dtype=np.int64)
        if items.size > ell:
            items = rng.choice(items, size=ell, replace=False)
        padded = np.concatenate([items, d + np.arange(ell - items.size)])
        out[u] = padded[rng.integers(ell)]
    return out


def psfo_output_table(d: int, ell: int, epsilon_prime: float) -> np.ndarray:
    """Exact table of pad-and-sample + GRR(ε') over all sets of size ≤ ℓ (rows) and outputs in [0, d+ℓ).

    References
    ----------
    [tutorial] Eq. (2) (ε-LDP, checked on the whole table).
    """
    d, ell = check_int("d", d, low=1, high=16), check_int("ell", ell, low=1, high=d)
    grr = GRR(check_epsilon(epsilon_prime, "epsilon_prime"), d + ell)
    rows = []
    for size in range(ell + 1):
        for items in itertools.combinations(range(d), size):
            padded = list(items) + [d + j for j in range(ell - size)]
            rows.append(grr.output_table()[padded].mean(axis=0))
    return np.array(rows)


def psfo_count_variance(holders, n: int, d: int, ell: int, epsilon: float) -> np.ndarray:
    """Exact Var[ℓ·ĉ(i)] of PSFO with GRR at ε' for items held by ``holders[i]`` users (all sets of size ≤ ℓ).

    The sampled count S_i is a sum of ``holders[i]`` Bernoulli(1/ℓ) draws; given S, GRR's estimate
    is unbiased with variance ``count_variance(S_i)``, which is linear in S_i.  Hence
    Var[ℓ·ĉ(i)] = ℓ²(h_i (1/ℓ)(1 − 1/ℓ) + count_variance(h_i/ℓ, n)).

    References
    ----------
    [wang2017] Theorem 2 (its proof: the exact variance of GRR's count).
    """
    n, d, ell = check_int("n", n, low=1), check_int("d", d, low=1), check_int("ell", ell, low=1)
    holders = check_real_array("holders", holders, low=0.0, high=n, low_open=False, high_open=False)
    epsilon = check_epsilon(epsilon)
    grr = GRR(amplified_grr_epsilon(epsilon, ell), d + ell)
    return ell**2 * (holders / ell * (1 - 1 / ell) + count_variance(holders / ell, n, grr.p, grr.q))


def psfo_estimate(sampled, d: int, ell: int, epsilon: float, protocol: str, *, rng: np.random.Generator) -> np.ndarray:
    """ℓ·ĉ(i) for i < d from the sampled items perturbed by 'GRR' (at ε') or 'OLH' (at ε).

    The support counts are drawn with the oracle's exact aggregate sampler from the counts of
    the sampled items (same law as perturbing each user's item and counting).

    References
    ----------
    [tutorial] "Itemset mining"; [wang2017] Eq. (1).
    """
    d, ell = check_int("d", d, low=1), check_int("ell", ell, low=1)
    check_allocation("d", d + ell, 3 * (d + ell), what="counts over the d + ell padded items")
    epsilon = check_epsilon(epsilon)
    check_choice("protocol", protocol, ("GRR", "OLH"))
    if protocol == "GRR":
        oracle = GRR(amplified_grr_epsilon(epsilon, ell), d + ell)
    elif protocol == "OLH":
        oracle = OLH(epsilon, d + ell)
    else:
        fail("protocol", protocol, "'GRR' or 'OLH'")
    sampled = check_domain_values("sampled", sampled, d + ell).ravel()
    counts = oracle.sample_aggregate(np.bincount(sampled, minlength=d + ell), rng=check_rng(rng))
    return ell * oracle.estimate(counts, sampled.size)[:d]
