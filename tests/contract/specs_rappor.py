"""Contract specs of notebook 02_rappor's own callables: the paper's setting, its drivers and its figures.

Merged into :data:`tests.contract.specs.SPECS` (see the end of ``specs.py``).  The figure functions
draw (``_valid=False``: their valid calls run in ``tests/estimation/test_rappor_decoding.py``); their bad input
is probed here like every other function's.
"""

from __future__ import annotations

import numpy as np

from ldp_helpers.mechanisms.rappor import RapporParams
from ldp_helpers.mechanisms.registry import REGISTRY

from .specs import RNG, spec

PARAMS = RapporParams(k=8, h=2, m=2, f=0.5, p=0.25, q=0.75)
RAPPOR = REGISTRY["rappor"].example()
#: one row of privacy_comparison's table (f, p, q, h, four ε and ε∞)
PRIVACY_TABLE = np.array([[0.5, 0.25, 0.75, 2.0, 1.5, 1.5, 1.2, 2.2, 2.2]])
#: decoded-survey scores (points, surveys, columns)
SCORES = np.full((2, 3, 4), 0.5)
N_FINE = np.array([100, 150, 200])

EX = "ldp_helpers.experiments.rappor."
PL = "ldp_tools.pipeline.plots.rappor."

SPECS = {
    EX + "paper_params": spec(h=4, m=8, epsilon=1.0, _none_ok={"epsilon"}),
    EX + "paper_weights": spec(exponent=1.1),
    EX + "paper_setting": spec(h=4),
    EX + "decode_grid": spec(
        params=[PARAMS, PARAMS],
        weights=np.array([0.5, 0.3, 0.2, 0.0]),
        n_draws=2,
        n_reports=200,
        rng=RNG,
        alpha=0.05,
        printed_logic=False,
    ),
    EX + "paired_gain": spec(
        after=np.array([0.3, 0.4, 0.35]), before=np.array([0.0, 0.1, 0.0]), se_floor=0.01
    ),
    EX + "client_check": spec(params=PARAMS, n_reports=50, rng=RNG, _huge={"n_reports"}),
    EX + "disjoint_filters_loss": spec(params=PARAMS),
    EX + "colliding_pairs": spec(params=PARAMS, n_candidates=6, rng=RNG, _huge={"n_candidates"}),
    EX + "privacy_row": spec(table=PRIVACY_TABLE, params=PARAMS),
    "ldp_helpers.bounds.rappor.threshold_recall": spec(
        mechanism=RAPPOR,
        weights=np.array([0.4, 0.3, 0.3, 0.0]),
        n_reports=np.array([100, 200]),
        alpha=0.05,
    ),
    "ldp_helpers.bounds.rappor.unit_threshold": spec(
        params=PARAMS, n_reports=np.array([100, 200]), _extra={"n_reports": [np.array([1])]}
    ),
    "ldp_helpers.bounds.rappor.collision_factor": spec(
        mechanism=RAPPOR, _extra={"mechanism": [PARAMS]}
    ),
    PL + "precision_recall_vs_h": spec(
        hash_values=[1, 2],
        by_h=SCORES,
        at_epsilon=SCORES,
        epsilons=np.array([1.1, 2.2]),
        equal_epsilon=4.0,
        _valid=False,
    ),
    PL + "precision_recall_vs_n_and_m": spec(
        report_grid=[100, 200],
        by_n=SCORES,
        cohort_grid=[2, 4],
        by_m=SCORES,
        n_fine=N_FINE,
        predicted_recall=np.array([0.1, 0.2, 0.3]),
        h=2,
        _valid=False,
    ),
    PL + "detection_thresholds": spec(
        n_fine=N_FINE,
        no_collisions={PARAMS: np.array([0.1, 0.08, 0.07])},
        threshold=np.array([0.2, 0.15, 0.1]),
        weights=np.full(100, 0.01),
        h=2,
        _valid=False,
    ),
}
RECORDS = {EX + "ClientCheck"}
