"""Illustration: heavy hitters by prefix extension over OLH (the tutorial only names the problem).

Values are ``bits``-bit integers.  Users are split into one group per round; in round r the
group reports the first L_r bits of its value with OLH over [2^{L_r}] (each user reports once,
so the protocol is ε-LDP).  The server scores only the candidate prefixes, the extensions of
the previous round's ``top_k`` by every ``step_bits`` suffix, and keeps the best ``top_k``.
This is the skeleton of prefix-tree protocols (TreeHist, PEM); it is a sketch for the notebook,
not a tuned implementation.

References
----------
[tutorial] "Heavy Hitter Identification" (the problem only); [wang2017] §4.4 (OLH).
"""

from __future__ import annotations

import numpy as np

from ldp_helpers._validation import Described, check_domain_values, check_epsilon, check_int, check_rng, fail
from ldp_helpers.mechanisms.local_hashing import OLH
from ldp_helpers.estimation.pure import unbiased_count


def prefix_lengths(bits: int, start_bits: int, step_bits: int) -> list[int]:
    """L_1 = start_bits, L_{r+1} = L_r + step_bits, ending exactly at ``bits``.

    References
    ----------
    [tutorial] "Heavy Hitter Identification" (illustration).
    """
    bits = check_int("bits", bits, low=1, high=30)
    start_bits = check_int("start_bits", start_bits, low=1, high=bits)
    step_bits = check_int("step_bits", step_bits, low=1, high=bits)
    if (bits - start_bits) % step_bits:
        fail("step_bits", step_bits, f"a divisor of bits - start_bits = {bits - start_bits}")
    return list(range(start_bits, bits + 1, step_bits))


def prefix_extension_heavy_hitters(values, bits: int, epsilon: float, *, top_k: int, start_bits: int, step_bits: int,
                                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Return the ``top_k`` candidate values and their estimated counts (scaled to all n users).

    References
    ----------
    [tutorial] "Heavy Hitter Identification" (illustration); [wang2017] §4.4 (OLH).
    """
    values = check_domain_values("values", values, 2**check_int("bits", bits, low=1, high=30)).ravel()
    epsilon = check_epsilon(epsilon)
    top_k = check_int("top_k", top_k, low=1)
    rng = check_rng(rng)
    lengths = prefix_lengths(bits, start_bits, step_bits)
    if values.size < len(lengths):
        fail("values", Described(f"{values.size} users"), f"at least one user per round ({len(lengths)} rounds)")
    groups = np.array_split(rng.permutation(values.size), len(lengths))
    candidates = np.arange(2 ** lengths[0])
    for r, (length, members) in enumerate(zip(lengths, groups)):
        if r > 0:
            candidates = (candidates[:, None] * 2**step_bits + np.arange(2**step_bits)).ravel()
        olh = OLH(epsilon, max(2**length, 2))
        reports = olh.perturb(values[members] >> (bits - length), rng=rng)
        counts = olh.aggregate(reports, candidates=candidates)
        estimates = unbiased_count(counts, members.size, olh.p, olh.q) * (values.size / members.size)
        keep = np.argsort(-estimates, kind="stable")[:top_k]
        candidates, kept_estimates = candidates[keep], estimates[keep]
    return candidates, kept_estimates
