"""Heavy hitters as the number of users and the domain grow: our PrivateExpanderSketch against TreeHist, Bitstogram, PEM and SFP.

The driver notebook 07 calls (with :func:`~ldp_tools.pipeline.plots.heavy_hitter_scaling.scaling_figure`).
The setting, named once: n users hold values drawn from Zipf(:data:`HH_ZIPF`) over
:data:`HH_SUPPORT` ranks placed at random distinct values of [0, 2^bits), so that growing the domain
changes only the domain (the data keep their shape); the target is the top :data:`HH_K`.  Each run
reports the **recall** of the true top k among the k values returned and the **worst-case error**
max_x |f̂(x) − f(x)|/n of [bun2018] (f̂ = 0 for a value not returned: a missed heavy hitter costs its
count).  Every survey is drawn by the protocols' exact batched simulations; each grid point averages
``n_draws`` runs, each on a fresh population; each protocol draws from its own stream, so adding one
does not shift the others.

References
----------
[bun2018] (PrivateExpanderSketch, the worst-case error); [bassily2017] (TreeHist, Bitstogram,
Hashtogram); [wang2021pem] (PEM); [apple2017] (SFP).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import (
    check_epsilon,
    check_int,
    check_int_array,
    check_real,
    fail,
    fail_type,
)
from ldp_helpers.experiments.tutorial_protocols import PEM_ETA, _check_runs, _curve
from ldp_helpers.protocols.expander_sketch import private_expander_sketch
from ldp_helpers.protocols.heavy_hitters import MAX_BITS, HeavyHitters, bitstogram, pem, treehist
from ldp_helpers.protocols.sketch_heavy_hitters import linf_error, sfp
from ldp_helpers.sweeps import progress_bar

#: the top HH_K of Zipf(HH_ZIPF) over HH_SUPPORT ranks (placed at random values of the domain)
HH_K, HH_ZIPF, HH_SUPPORT = 10, 1.5, 2**16
#: the protocols compared, in the figure's order
PROTOCOLS = ("PrivateExpanderSketch", "Bitstogram", "TreeHist", "PEM", "SFP")
#: SFP's fragments and PrivateExpanderSketch's symbols are nibbles: the domain grows by 4 bits
BITS_STEP = 4


@dataclass(frozen=True)
class Scaling:
    """Recall and worst-case error per protocol over a grid (of n or of bits): ``{protocol: Curve}`` each."""

    grid: np.ndarray
    recall: dict
    error: dict


def _population(n_users, bits, exponent, support, rng) -> np.ndarray:
    weights = 1.0 / np.arange(1, support + 1) ** exponent
    counts = rng.multinomial(n_users, weights / weights.sum())
    places = rng.choice(2**bits, size=support, replace=False)
    return rng.permutation(np.repeat(places, counts))


def _run(protocol, values, bits, epsilon, k, rng) -> HeavyHitters:
    if protocol == "TreeHist":
        found = treehist(values, bits, epsilon, rng=rng)
        return HeavyHitters(found.values[:k], found.estimates[:k], found.lengths)
    if protocol == "PEM":
        return pem(values, bits, epsilon, k, eta=PEM_ETA, rng=rng)
    run = {"PrivateExpanderSketch": private_expander_sketch, "Bitstogram": bitstogram, "SFP": sfp}
    return run[protocol](values, bits, epsilon, k, rng=rng)


def _check_protocols(protocols) -> tuple:
    if protocols is None:
        return PROTOCOLS
    if (
        isinstance(protocols, str)
        or not isinstance(protocols, (list, tuple))
        or not protocols
        or any(p not in PROTOCOLS for p in protocols)
        or len(set(protocols)) != len(protocols)
    ):
        fail_type("protocols", protocols, f"None or a list of distinct names of {PROTOCOLS}")
    return tuple(protocols)


def _scaling(settings, k, exponent, n_draws, rng, protocols, progress, what) -> Scaling:
    """Run every protocol on ``n_draws`` fresh populations per (n, bits) setting."""
    # a protocol's stream is fixed by its name, whoever else runs
    data_rng, *streams = rng.spawn(len(PROTOCOLS) + 1)
    scores = {p: np.zeros((len(settings), n_draws, 2)) for p in protocols}
    for i, (n, bits, epsilon) in enumerate(
        progress_bar(settings, progress, f"heavy hitters against {what}")
    ):
        for draw in range(n_draws):
            values = _population(n, bits, exponent, min(HH_SUPPORT, 2**bits), data_rng)
            # shared by the protocols: the distinct values (sorted once), their counts, the top k
            held, counts = np.unique(values, return_counts=True)
            top = held[np.argsort(-counts, kind="stable")[:k]]  # ties: the smaller value first
            for protocol in protocols:
                found = _run(protocol, values, bits, epsilon, k, streams[PROTOCOLS.index(protocol)])
                recall = np.isin(top, found.values).mean()
                error = linf_error(found.values, found.estimates, held, counts=counts)
                scores[protocol][i, draw] = recall, error
    grid = np.array([n if what == "n" else bits for n, bits, _ in settings])
    return Scaling(
        grid,
        {p: _curve(s[..., 0]) for p, s in scores.items()},
        {p: _curve(s[..., 1]) for p, s in scores.items()},
    )


def scaling_by_n(
    n_grid,
    bits: int,
    epsilon: float,
    *,
    k: int = HH_K,
    exponent: float = HH_ZIPF,
    n_draws: int,
    rng: np.random.Generator,
    protocols=None,
    progress: bool = False,
) -> Scaling:
    """Recall and worst-case error of each protocol against the number of users n (domain 2^bits, budget ε).

    References
    ----------
    [bun2018] (error against n); [wang2021pem] (recall against n).
    """
    n_grid = check_int_array("n_grid", n_grid, low=1, high=10**8).ravel()
    bits = check_int("bits", bits, low=8, high=MAX_BITS - MAX_BITS % BITS_STEP)
    settings = [(int(n), bits, check_epsilon(epsilon)) for n in n_grid]
    return _checked_scaling(settings, k, exponent, n_draws, rng, protocols, progress, "n")


def scaling_by_bits(
    bits_grid,
    n_users: int,
    epsilon: float,
    *,
    k: int = HH_K,
    exponent: float = HH_ZIPF,
    n_draws: int,
    rng: np.random.Generator,
    protocols=None,
    progress: bool = False,
) -> Scaling:
    """Recall and worst-case error of each protocol against the domain's bits (multiples of 4 in [8, 28]; n users, ε).

    References
    ----------
    [bun2018] (error against the domain size); [bassily2017].
    """
    bits_grid = check_int_array(
        "bits_grid", bits_grid, low=8, high=MAX_BITS - MAX_BITS % BITS_STEP
    ).ravel()
    if np.any(bits_grid % BITS_STEP):
        fail(
            "bits_grid",
            bits_grid,
            f"multiples of {BITS_STEP} (SFP's fragments and the code's symbols are nibbles)",
        )
    n_users = check_int("n_users", n_users, low=1, high=10**8)
    settings = [(n_users, int(b), check_epsilon(epsilon)) for b in bits_grid]
    return _checked_scaling(settings, k, exponent, n_draws, rng, protocols, progress, "bits")


def _checked_scaling(settings, k, exponent, n_draws, rng, protocols, progress, what) -> Scaling:
    k = check_int("k", k, low=1, high=min(HH_SUPPORT, 2 ** min(bits for _, bits, _ in settings)))
    exponent = check_real("exponent", exponent, low=0.0, low_open=False, high=10.0)
    n_draws, rng, progress = _check_runs(n_draws, rng, progress)
    protocols = _check_protocols(protocols)
    smallest = min(n for n, _, _ in settings)
    if smallest < 64:
        fail(
            "n_grid" if what == "n" else "n_users",
            smallest,
            "at least 64 users (a user per group of every protocol)",
        )
    return _scaling(settings, k, exponent, n_draws, rng, protocols, progress, what)
