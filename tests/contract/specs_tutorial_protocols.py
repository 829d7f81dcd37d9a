"""Contract specs of notebook 05's helpers: ldp_helpers.experiments.tutorial_protocols (the ones added by issue 25)
and the figure functions of ldp_tools.pipeline.plots.tutorial_protocols (merged into specs.SPECS)."""

from __future__ import annotations

import numpy as np

from ldp_helpers.experiments.tutorial_protocols import Curve
from ldp_helpers.protocols.taxonomy import Taxonomy

from .specs import RNG, spec

TP = "ldp_helpers.experiments.tutorial_protocols."
PL = "ldp_tools.pipeline.plots.tutorial_protocols."
EPS = np.array([0.5, 1.0])
A, B = (
    Curve(np.array([0.5, 0.6]), np.array([0.01, 0.02])),
    Curve(np.array([0.4, 0.5]), np.array([0.01, 0.01])),
)
SHORT = Curve(np.array([0.5]), np.array([0.01]))
TREE = Taxonomy((-1, 0, 0, 1, 1, 2, 2))  # root 0; regions 1, 2; locations 3-6
ONE_REGION = Taxonomy((-1, 0, 1, 1))  # root 0; region 1; locations 2, 3
PSDA = {
    name: {
        "max_error": A,
        "quantile": np.array([3.0, 4.0]),
        "bound": np.array([5.0, 6.0]),
        "covered": np.array([1.0, 0.9]),
    }
    for name in ("personal", "root")
}

SPECS = {
    TP + "check_curves": spec(
        name="curves",
        curves={"a": A},
        size=2,
        _free={"name"},
        _extra={"curves": [{"a": SHORT}, {}, {"a": 1.0}], "size": [0]},
    ),
    TP + "rise": spec(curve=A, _extra={"curve": [SHORT]}),
    TP + "lead_over_random_picks": spec(curve=A, _extra={"pool_items": [1, 25], "max_size": [7]}),
    TP + "gap": spec(a=A, b=B, index=0, _extra={"b": [SHORT], "index": [2, -3]}),
    TP + "smallest_margin": spec(
        a=A,
        b=B,
        where=np.array([True, False]),
        _extra={"b": [SHORT], "where": [np.array([False, False]), np.array([True])]},
    ),
    TP + "ends": spec(curve=A, grid=EPS, _extra={"grid": [np.array([0.5, 1.0, 2.0])]}),
    TP + "recall_by_n": spec(
        n_grid=np.array([50, 80]),
        bits=6,
        k=2,
        exponent=1.2,
        epsilon=2.0,
        n_draws=2,
        rng=RNG,
        _huge={"n_draws"},
        _extra={"bits": [0, 21], "k": [65], "n_grid": [np.array([10**9])]},
    ),
    TP + "tree_users": spec(
        taxonomy=TREE,
        n_users=10,
        hot_share=0.5,
        rng=RNG,
        _huge={"n_users"},
        _extra={"taxonomy": [ONE_REGION], "hot_share": [0.0, 1.0, 1.5]},
    ),
    TP + "worst_coverage": spec(
        psda_curves=PSDA,
        betas=np.array([0.1, 0.05]),
        n_draws=5,
        _extra={
            "psda_curves": [{}, {"root": {}}],
            "betas": [np.array([0.1]), np.array([1.5, 0.1])],
        },
    ),
    TP + "curve_table": spec(
        curves={"a": A, ("b", "c"): B},
        grid=EPS,
        what="recall at eps",
        _free={"what"},
        _extra={"grid": [np.array([1.0])]},
    ),
    # the figure functions draw a new Figure (not run here: tests/experiments/test_experiments_tutorial_protocols.py draws each)
    PL + "heavy_hitters_figure": spec(
        recall={"PEM": A, "TreeHist": B},
        epsilons=EPS,
        pem_by_n=A,
        n_grid=np.array([100, 200]),
        k=2,
        bits=6,
        exponent=1.5,
        n_users=100,
        epsilon_by_n=2.0,
        _valid=False,
        _extra={"recall": [{"PEM": SHORT}], "pem_by_n": [SHORT], "epsilon_by_n": [0.0]},
    ),
    PL + "itemset_figure": spec(
        mining={("SVIM", "precision"): A, ("LDPMiner", "precision"): B},
        epsilons=EPS,
        k=2,
        d=4,
        n_users=30,
        _valid=False,
        _extra={"mining": [{"SVIM": A}, {("SVIM", "NCR"): SHORT}]},
    ),
    PL + "svsm_figure": spec(
        precision=A,
        epsilons=EPS,
        k=2,
        n_users=30,
        max_size=3,
        _valid=False,
        _extra={"precision": [SHORT], "max_size": [1]},
    ),
    PL + "psda_figure": spec(
        psda_curves=PSDA,
        betas=np.array([0.1, 0.05]),
        n_users=30,
        epsilon=1.0,
        n_locations=4,
        _valid=False,
        _extra={
            "psda_curves": [{"personal": PSDA["personal"]}],
            "betas": [np.array([0.1]), np.array([0.0, 0.1])],
        },
    ),
}
