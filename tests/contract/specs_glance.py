"""Contract specs of the Glance notebook's own public names (merged into ``specs.SPECS``; see the end of specs.py).

The paper's equations and the drivers that existed before issue 25 keep their specs in specs.py; here are
the names issue 25 added: Figure 2's β, the notebook's measurement helpers and its figure functions
(which draw, so they have no valid run here: ``tests/experiments/test_experiments_glance.py`` draws them).
"""

from __future__ import annotations

import numpy as np

from ldp_helpers.bounds import glance as gb
from ldp_helpers.experiments.glance import sparse_round_tail

from .specs import spec

GL = "ldp_helpers.bounds.glance."
EG = "ldp_helpers.experiments.glance."
PG = "ldp_tools.pipeline.plots.glance."
EPS = np.array([1.0, 3.0, 5.0])
CURVE = np.array([0.3, 0.2, 0.1])
BY_MU = {(name, mu): CURVE for name in ("Glance", "Harmony") for mu in (0.9995, 0.5)}

SPECS = {
    GL + "theorem4_beta": spec(n_users=100, beta=0.5, _extra={"beta": [0.0, 1.0]}),
    "ldp_helpers.experiments.common.mean_and_se": spec(
        samples=np.array([[0.1, 0.2, 0.3], [0.2, 0.1, 0.4]])
    ),
    "ldp_helpers.experiments.common.bonferroni_z": spec(
        n_tests=6, confidence=0.99, two_sided=True, _extra={"confidence": [0.0, 1.0]}
    ),
    "ldp_helpers.experiments.common.mean_gap": spec(
        a=np.array([[0.2, 0.3, 0.4]]), b=np.array([[0.1, 0.2, 0.1]])
    ),
    "ldp_helpers.experiments.common.in_se": spec(
        difference=np.array([0.3, 0.0]),
        se_a=np.array([0.1, 0.0]),
        se_b=0.0,
        _finite=False,  # ±inf at SE 0
    ),
    "ldp_helpers.experiments.common.variance_ratio_se": spec(n_draws=10),
    "ldp_helpers.experiments.common.share_se": spec(p=np.array([0.25, 0.5]), n=100),
    "ldp_helpers.experiments.common.versus_exact": spec(
        estimates=np.array([[0.9, 2.1], [1.2, 1.8], [1.0, 2.3]]),
        mean=np.array([1.0, 2.0]),
        variance=0.04,
    ),
    "ldp_helpers.experiments.common.log_gap": spec(
        a=np.array([[0.2, 0.3, 0.4]]), b=np.array([[0.1, 0.2, 0.1]])
    ),
    EG + "rate_fit": spec(x=np.array([1.0, 2.0, 4.0]), mean=CURVE, se=np.full(3, 0.01), log_x=True),
    EG + "sparse_round_tail": spec(epsilon=2.0, n_reporters=50, deviations=np.array([0.1, 0.2])),
    PG + "error_decomposition": spec(
        epsilons=EPS,
        parts={k: np.full((3, 4), 0.1) for k in ("total", "rr", "sampling")},
        quantiles={"rr": CURVE, "sampling": CURVE},
        theta=CURVE,
        sampling_bound=0.1,
        mu=0.5,
        setting=gb.SEC6,
        _valid=False,
    ),
    PG + "fig1_condition2_region": spec(
        epsilons=EPS,
        mus=np.array([0.0, 0.5, 1.0]),
        regions={"caption": np.ones((3, 3), dtype=bool)},
        settings={"caption": gb.FIG1["caption"]},
        _valid=False,
    ),
    PG + "fig2_bounds_vs_epsilon": spec(
        epsilons=EPS,
        glance_upper=CURVE,
        harmony_lower=CURVE,
        limit=0.01,
        crossover=7.8,
        paper_crossover=8.0,
        _valid=False,
    ),
    PG + "fig3_err_vs_epsilon": spec(
        epsilons=EPS,
        mean_error=BY_MU,
        glance_upper=CURVE,
        harmony_lower=CURVE,
        dense_mu=0.9995,
        general_fails_from=2.5,
        setting=gb.SEC6,
        n_draws=10,
        _valid=False,
    ),
    PG + "table1_rates_in_epsilon": spec(
        epsilons=EPS,
        mean_error={
            (name, case): CURVE
            for name in ("Glance", "Harmony")
            for case in ("general", "dense/sparse")
        },
        mus={"general": 0.5, "dense/sparse": 0.9995},
        setting=gb.SEC6,
        _valid=False,
    ),
    PG + "error_vs_t_and_n": spec(
        rounds=np.array([5, 10]),
        by_rounds={"Glance": np.array([0.1, 0.2])},
        users=np.array([1000, 10000]),
        by_users={"Glance": np.array([0.1, 0.03])},
        n_users=100_000,
        n_rounds=50,
        epsilon=2.0,
        mu=0.5,
        _valid=False,
    ),
    PG + "three_mechanisms": spec(
        epsilons=EPS,
        mean_error=BY_MU,
        rappor={0.9995: CURVE, 0.5: CURVE},
        setting=gb.SEC6,
        _valid=False,
    ),
    PG + "chernoff_vs_exact_tail": spec(
        deviations=np.array([0.1, 0.2]),
        tail=sparse_round_tail(2.0, 200, np.array([0.1, 0.2])),
        theta=0.2,
        epsilon=2.0,
        n_reporters=200,
        _valid=False,
    ),
}

#: the paper's settings (N, T, β): constants of bounds.glance, never an input boundary of their own
RECORDS = {GL + "Setting"}
