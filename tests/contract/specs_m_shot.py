"""Contract specs of the m-shot notebook's drivers and figure functions (merged into ``specs.SPECS``).

The figure functions draw a whole figure (``_valid=False``: their valid calls are tested in
tests/mechanisms/test_m_shot.py); every argument is still probed with the bad values of its kind.
"""

from __future__ import annotations

import numpy as np

from ldp_helpers.bounds.chernoff import tail_check
from ldp_helpers.experiments.m_shot import PeakWindow

from .specs import RNG, spec

EX, PL = "ldp_helpers.experiments.m_shot.", "ldp_tools.pipeline.plots.m_shot."
WINDOW = PeakWindow(
    np.array([1, 2, 3]),
    np.array([0.5, 0.6, 0.55]),
    np.array([0.01, 0.01, 0.02]),
    2,
    0.1,
    np.array([2]),
)
ROUNDS = np.array([10, 20, 40])
ERRORS = {(0.0, "1-shot"): np.array([[0.10, 0.12], [0.15, 0.16], [0.21, 0.20]])}
MS = np.array([1, 2, 4])
F_VS_M = {1.0: np.array([[0.5, 0.6], [0.4, 0.5], [0.3, 0.2]])}
F_VS_T = {(1.0, "m*-shot"): F_VS_M[1.0], (1.0, "T-shot"): F_VS_M[1.0] / 2}
RATE_ERRORS = {
    (0.0, m): np.array([[0.1, 0.12], [0.15, 0.16], [0.21, 0.2]])
    for m in ("1-shot", "m*-shot", "T-shot")
}
DELTA = np.array([0.1, 0.3, 0.5])
TAIL = tail_check(("two_sided", "kl_two_sided"), 1000, 0.3, DELTA)

SPECS = {
    EX + "theorem3_checks": spec(
        settings=((2.0, 2, 0.3, "fixed V"), (2.0, 1, 0.0, "random sets")),
        n_users=12,
        n_rounds=4,
        rng=RNG,
        n_draws=3,
    ),
    EX + "gap_to_best": spec(window=WINDOW, m=1),
    EX + "fit_rates": spec(rounds=ROUNDS, errors=ERRORS, beta=0.05),
    EX + "log_correction_residual": spec(rounds=np.array([10, 100, 1000]), beta=0.1, quantile=True),
    PL + "g_and_c_star": spec(
        _valid=False, x=np.array([0.1, 0.5, 2.0]), epsilon=10.0, ms=np.array([1, 2, 3]), m_opt=6
    ),
    PL + "m_star_regimes": spec(
        _valid=False,
        epsilons=np.array([0.5, 5.0]),
        rounds=np.array([1, 10]),
        m_table=np.array([[1, 1], [1, 3]]),
        experiment_epsilons=np.array([1.0]),
        experiment_rounds=10,
    ),
    PL + "f_measure_vs_m": spec(
        _valid=False,
        ms=MS,
        f=F_VS_M,
        paper_peaks={1.0: (1, 0.7)},
        n_rounds=4,
        n_users=100,
        theta=0.8,
    ),
    PL + "f_measure_vs_rounds": spec(_valid=False, rounds=MS, f=F_VS_T, n_users=100, theta=0.8),
    PL + "max_error_rates": spec(
        _valid=False,
        rounds=ROUNDS,
        errors=RATE_ERRORS,
        slopes={k: 0.5 for k in RATE_ERRORS},
        settings=((0.0, 2.0),),
        beta=0.05,
        n_users=100,
    ),
    PL + "chernoff_vs_exact_tail": spec(
        _valid=False,
        alpha=DELTA,
        tail=TAIL,
        certified=0.2,
        beta=0.05,
        epsilon=10.0,
        n_rounds=100,
        m=6,
        n_users=1000,
    ),
}
RECORDS = {EX + "RateFit"}
