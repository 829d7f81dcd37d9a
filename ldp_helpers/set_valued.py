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
Wang, Li, Jha (IEEE S&P 2018), PSFO/SVIM; Qin et al. (CCS 2016), LDPMiner; tutorial seed (003),
"Itemset mining".
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ._validation import check_epsilon, check_int, check_rng
from .grr import GRR
from .local_hashing import OLH
from .unary_encoding import OUE


def amplified_grr_epsilon(epsilon: float, ell: int) -> float:
    """ε' = ln(ℓ(e^ε − 1) + 1): the GRR budget that padding-and-sampling turns into ε."""
    epsilon = check_epsilon(epsilon)
    return math.log(check_int("ell", ell, low=1) * math.expm1(epsilon) + 1)


def grr_preferred(n_items: int, epsilon: float, ell: int) -> bool:
    """True iff PSFO with GRR (at ε') has a smaller approximate variance than with OLH (at ε).

    Computed from the two variances, not from the closed-form threshold (tested to agree).
    """
    d = check_int("n_items", n_items, low=1) + check_int("ell", ell, low=1)
    grr_var = GRR(amplified_grr_epsilon(epsilon, ell), d).approx_count_variance(1)
    olh_var = OUE(epsilon, d).approx_count_variance(1)  # OLH at the ideal g = e^ε + 1
    return grr_var < olh_var


def grr_threshold(epsilon: float, ell: int) -> float:
    """(4ℓ² − ℓ)e^ε + 1: GRR is preferred for |I| below it (the tutorial prints '>': reversed)."""
    ell = check_int("ell", ell, low=1)
    return (4 * ell**2 - ell) * math.exp(check_epsilon(epsilon)) + 1


def pad_and_sample(sets, d: int, ell: int, *, rng: np.random.Generator) -> np.ndarray:
    """One sampled item per user from her set padded with dummies d..d+ℓ−1 to size ℓ."""
    d, ell = check_int("d", d, low=1), check_int("ell", ell, low=1)
    rng = check_rng(rng)
    out = np.empty(len(sets), dtype=np.int64)
    for u, items in enumerate(sets):
        items = np.unique(np.asarray(items, dtype=np.int64))
        if items.size and (items.min() < 0 or items.max() >= d):
            raise ValueError(f"sets must hold items in [0, {d}); user {u} has {items.tolist()}")
        if items.size > ell:
            items = rng.choice(items, size=ell, replace=False)
        padded = np.concatenate([items, d + np.arange(ell - items.size)])
        out[u] = padded[rng.integers(ell)]
    return out


def psfo_output_table(d: int, ell: int, epsilon_prime: float) -> np.ndarray:
    """Exact table of pad-and-sample + GRR(ε') over all sets of size ≤ ℓ (rows) and outputs in [0, d+ℓ)."""
    grr = GRR(epsilon_prime, d + ell)
    rows = []
    for size in range(ell + 1):
        for items in itertools.combinations(range(d), size):
            padded = list(items) + [d + j for j in range(ell - size)]
            rows.append(grr.output_table()[padded].mean(axis=0))
    return np.array(rows)


def psfo_estimate(sampled, d: int, ell: int, epsilon: float, protocol: str, *, rng: np.random.Generator) -> np.ndarray:
    """Perturb the sampled items with 'GRR' (at ε') or 'OLH' (at ε) and return ℓ·ĉ(i) for i < d."""
    if protocol == "GRR":
        oracle = GRR(amplified_grr_epsilon(epsilon, ell), d + ell)
    elif protocol == "OLH":
        oracle = OLH(epsilon, d + ell)
    else:
        raise ValueError(f"protocol must be 'GRR' or 'OLH'; got {protocol!r}")
    counts = oracle.support_counts(oracle.perturb(sampled, rng=rng))
    return ell * oracle.estimate_counts(counts, len(sampled))[:d]
