"""Experiment drivers of notebook 05 (the tutorial's named protocols): parameter grid → arrays.

Every run draws its surveys with the protocols' exact batched simulations (never n client calls) and
repeats ``n_draws`` times from the injected Generator; each curve comes with its standard error.

References
----------
[wang2021pem]; [bassily2017]; [wang2018svim]; [qin2016]; [chen2016pldp].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import (check_bool, check_domain_values, check_int, check_int_array, check_n_draws, check_real,
                                     check_real_array, check_rng, fail_type)
from ldp_helpers.sweeps import progress_bar
from ldp_helpers.protocols.heavy_hitters import bitstogram, pem, recall, treehist
from ldp_helpers.protocols.itemset_mining import itemset_counts, ldpminer, ncr, svim, svsm, top_k_precision
from ldp_helpers.protocols.personalized import psda_counts, psda_error_bound
from ldp_helpers.protocols.taxonomy import Taxonomy


@dataclass(frozen=True)
class Curve:
    """Mean and standard error of a metric over ``n_draws`` runs, per grid point."""

    mean: np.ndarray
    se: np.ndarray

    def margin(self, other: "Curve") -> float:
        """Smallest ``(self − other)/SE`` over the grid (independent runs): > 2 means ahead at every point."""
        if not isinstance(other, Curve) or np.shape(other.mean) != np.shape(self.mean):
            fail_type("other", other, f"a Curve over the same grid (shape {np.shape(self.mean)})")
        return float(np.min((self.mean - other.mean) / np.sqrt(self.se**2 + other.se**2 + 1e-12)))



def _curve(samples) -> Curve:
    """Mean and SE over the runs of each grid point (samples: grid × n_draws)."""
    samples = np.asarray(samples, dtype=float)
    return Curve(samples.mean(axis=1), samples.std(axis=1, ddof=1) / np.sqrt(samples.shape[1]))


def zipf_values(n_users: int, bits: int, exponent: float, *, rng: np.random.Generator) -> np.ndarray:
    """``n_users`` values over [0, 2^bits): Zipf(``exponent``) ranks mapped to random values (a seeded permutation).

    References
    ----------
    [wang2021pem] (Zipf-distributed synthetic data).
    """
    n_users, bits = check_int("n_users", n_users, low=1, high=10**8), check_int("bits", bits, low=1, high=20)
    exponent = check_real("exponent", exponent, low=0.0, low_open=False, high=10.0)
    rng = check_rng(rng)
    d = 2**bits
    weights = 1.0 / np.arange(1, d + 1) ** exponent
    counts = rng.multinomial(n_users, weights / weights.sum())
    return rng.permutation(np.repeat(rng.permutation(d), counts))


def heavy_hitter_recall(values, bits: int, k: int, epsilons, *, n_draws: int, rng: np.random.Generator,
                        progress: bool = False) -> dict:
    """Recall of the true top k for PEM, TreeHist and Bitstogram at each ε: {protocol: Curve}.

    References
    ----------
    [wang2021pem] (recall vs ε); [bassily2017].
    """
    bits = check_int("bits", bits, low=1, high=20)
    values = check_domain_values("values", values, 2**bits).ravel()
    k = check_int("k", k, low=1, high=2**bits)
    epsilons = check_real_array("epsilons", epsilons, low=0.0).ravel()
    n_draws, rng, progress = check_n_draws(n_draws), check_rng(rng), check_bool("progress", progress)
    truth = np.bincount(values, minlength=2**bits)
    runs = {"PEM": lambda e: pem(values, bits, e, k, eta=2, rng=rng).values,
            "TreeHist": lambda e: treehist(values, bits, e, rng=rng).values[:k],
            "Bitstogram": lambda e: bitstogram(values, bits, e, k, rng=rng).values}
    out = {}
    for name, run in progress_bar(runs.items(), progress, "heavy hitters"):
        out[name] = _curve([[recall(run(float(e)), truth, k) for _ in range(n_draws)] for e in epsilons])
    return out


def itemset_precision(baskets, d: int, k: int, epsilons, *, ldpminer_ell: int, n_draws: int, rng: np.random.Generator,
                      progress: bool = False) -> dict:
    """Top-k precision and NCR of SVIM and LDPMiner at each ε: {(miner, metric): Curve}.

    References
    ----------
    [wang2018svim] (precision and NCR vs ε, SVIM against LDPMiner).
    """
    from ldp_helpers.simulate.itemsets import item_counts

    epsilons = check_real_array("epsilons", epsilons, low=0.0).ravel()
    ldpminer_ell, k = check_int("ldpminer_ell", ldpminer_ell, low=1), check_int("k", k, low=1)
    n_draws, rng, progress = check_n_draws(n_draws), check_rng(rng), check_bool("progress", progress)
    truth = item_counts(baskets, d)
    miners = {"SVIM": lambda e: svim(baskets, d, e, k, rng=rng).items,
              "LDPMiner": lambda e: ldpminer(baskets, d, e, k, ell=ldpminer_ell, rng=rng).items}
    out = {}
    for name, run in progress_bar(miners.items(), progress, "itemset mining"):
        found = [[run(float(e)) for _ in range(n_draws)] for e in epsilons]
        out[name, "precision"] = _curve([[top_k_precision(f, truth, k) for f in row] for row in found])
        out[name, "NCR"] = _curve([[ncr(f, truth, k) for f in row] for row in found])
    return out


def psda_error_curves(taxonomy: Taxonomy, locations, regions, epsilon: float, betas, *, n_draws: int,
                      rng: np.random.Generator, progress: bool = False) -> dict:
    """PSDA's max count error per β, for the users' safe regions and for τ = root (ε-LDP).

    Returns ``{"personal" | "root": {"max_error": Curve, "quantile": array, "bound": array, "covered": array}}``:
    the mean max error, its empirical (1 − β) quantile, :func:`psda_error_bound` and the share of
    runs within the bound.

    References
    ----------
    [chen2016pldp] (max absolute count error vs β; personalized against uniform privacy).
    """
    if not isinstance(taxonomy, Taxonomy):
        fail_type("taxonomy", taxonomy, "a Taxonomy")
    betas = check_real_array("betas", betas, low=0.0, high=1.0).ravel()
    locations = check_int_array("locations", locations, low=0, high=len(taxonomy.parent) - 1).ravel()
    regions = check_int_array("regions", regions, low=0, high=len(taxonomy.parent) - 1).ravel()
    n_draws, rng, progress = check_n_draws(n_draws), check_rng(rng), check_bool("progress", progress)
    leaves = taxonomy.locations
    truth = np.bincount(np.searchsorted(leaves, locations), minlength=leaves.size)
    settings = {"personal": regions, "root": np.full(locations.size, taxonomy.root)}
    out = {}
    for name, reg in progress_bar(settings.items(), progress, "PSDA"):
        errors = np.array([[np.abs(psda_counts(locations, reg, taxonomy, epsilon, float(b), rng=rng) - truth).max()
                            for _ in range(n_draws)] for b in betas])
        bounds = np.array([psda_error_bound(locations, reg, taxonomy, epsilon, float(b)) for b in betas])
        out[name] = {"max_error": _curve(errors), "bound": bounds, "covered": (errors <= bounds[:, None]).mean(axis=1),
                     "quantile": np.array([np.quantile(e, 1 - b) for e, b in zip(errors, betas)])}
    return out


def itemset_mining_precision(baskets, d: int, k: int, epsilons, *, n_draws: int, rng: np.random.Generator,
                             pool_items: int = 16, max_size: int = 3, progress: bool = False) -> tuple[Curve, list]:
    """Precision of SVSM's top-k itemsets at each ε, against the true top k among the itemsets (sizes 2..max_size)
    of the ``pool_items`` most frequent items (the true top itemsets lie there for Zipf data).

    Returns the precision curve and the true top-k itemsets.

    References
    ----------
    [wang2018svim] (SVSM; itemset precision).
    """
    import itertools

    from ldp_helpers.simulate.itemsets import item_counts

    epsilons = check_real_array("epsilons", epsilons, low=0.0).ravel()
    k, pool_items = check_int("k", k, low=1), check_int("pool_items", pool_items, low=2, high=24)
    max_size = check_int("max_size", max_size, low=2, high=6)
    n_draws, rng, progress = check_n_draws(n_draws), check_rng(rng), check_bool("progress", progress)
    top_items = np.argsort(-item_counts(baskets, d), kind="stable")[:pool_items].tolist()
    pool = [c for size in range(2, max_size + 1) for c in itertools.combinations(sorted(top_items), size)]
    truth = itemset_counts(baskets, d, pool)
    true_top = {pool[i] for i in np.argsort(-truth, kind="stable")[:k]}
    rows = []
    for e in progress_bar(epsilons, progress, "SVSM"):
        rows.append([len(set(svsm(baskets, d, float(e), k, rng=rng, max_size=max_size).itemsets) & true_top) / k
                     for _ in range(n_draws)])
    return _curve(rows), sorted(true_top, key=lambda c: -truth[pool.index(c)])
