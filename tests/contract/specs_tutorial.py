"""Contract specs of the tutorial notebook's own public functions (00_tutorial): its figures and its walkthrough text.

Merged into :data:`tests.contract.specs.SPECS`.  The figure functions draw a new Figure (no numeric
result), so they have no valid run here (``_valid=False``); their bad input is probed like every
other function's, and ``tests/experiments/test_experiments_tutorial.py`` draws them from valid data.
"""

from __future__ import annotations

import numpy as np

from ldp_helpers.mechanisms.local_hashing import BLH

from .specs import COUNTS, GRR5, RNG, RR, spec

PT = "ldp_tools.pipeline.plots.tutorial."
SIZES = np.array([100, 1000])
ERRORS = {0.5: np.array([[0.1, -0.2, 0.0], [0.01, 0.02, -0.03]])}
SIGMAS = {0.5: np.array([0.2, 0.06])}
STUDY = {"GRR": (np.array([1.0, 2.0]), np.array([1.1, 2.1]), np.array([1.0, 2.0]))}
CURVE = {"DE": np.array([0.5, 0.6, 0.7])}

SPECS = {
    "ldp_helpers.experiments.tutorial.hash_collision_rate": spec(
        oracle=BLH(1.0, 5),
        x=1,
        y=3,
        n_seeds=100,
        rng=RNG,
        _huge={"n_seeds"},
        _extra={"x": [-1, 5], "y": [1, 5], "oracle": [GRR5], "n_seeds": [1]},
    ),
    "ldp_helpers.experiments.tutorial.walkthrough_text": spec(
        oracle=GRR5, value=1, true_counts=COUNTS, rng=RNG, _extra={"value": [-1, 5], "oracle": [RR]}
    ),
    PT + "rr_errors": spec(
        _valid=False,
        sizes=SIZES,
        errors=ERRORS,
        sigmas=SIGMAS,
        true_fraction=0.3,
        _extra={"errors": [{0.5: np.zeros((3, 3))}, {}], "sigmas": [{1.0: SIGMAS[0.5]}]},
    ),
    PT + "variance_vs_epsilon": spec(
        _valid=False,
        epsilons=np.array([0.5, 2.0]),
        study=STUDY,
        n=100,
        d=5,
        share=0.3,
        n_draws=3,
        _extra={"study": [{"GRR": STUDY["GRR"][:2]}, {}], "share": [1.5]},
    ),
    PT + "phase_diagram": spec(
        _valid=False,
        grid_d=np.array([2, 10]),
        grid_eps=np.array([0.5, 2.0]),
        best=np.array([[0, 1], [1, 1]]),
        curve_d=np.array([2, 3, 4]),
        exact=CURVE,
        approx=CURVE,
        sim_d=np.array([2, 4]),
        simulated={"DE": np.array([0.5, 0.6])},
        epsilon=1.0,
        users_per_value=10,
        _extra={
            "best": [np.array([[0, 3], [1, 1]]), np.array([0, 1])],
            "approx": [{"OUE": CURVE["DE"]}],
            "curve_d": [np.array([2, 3])],
        },
    ),
}
