"""Contract specs of the explorer (``ldp_tools.explore``): its pure functions, share codes, server guard and panels.

Merged into :data:`tests.contract.specs.SPECS` (see the end of ``specs.py``).  The panel builders make
live widgets (``_valid=False``: their valid calls run in ``tests/explore/test_explore*.py``) and check their
defaults with the pure functions specified here, so only the panel name of ``show_panel`` is probed on them (every probed pair adds a parametrization).
"""

from __future__ import annotations

import numpy as np

from ldp_helpers.mechanisms.rappor import Rappor, RapporParams

from .specs import spec

COUNTS = np.array([30, 10, 5, 0, 15], dtype=np.int64)
_DESIGN = Rappor.create(
    RapporParams(k=8, h=2, m=2, f=0.5, p=0.25, q=0.75), 4, rng=np.random.default_rng(0)
)
BLOOMS = np.asarray(_DESIGN.blooms)
BIT_COUNTS = np.array([[40, 35, 30, 50, 20, 25, 45, 30], [38, 33, 29, 51, 22, 27, 44, 31]])
REPORTS = np.array([100, 100])
RAPPOR = dict(
    k=8, h=2, m=2, f=0.5, p=0.25, q=0.75, n_reports=1000, n_candidates=6, n_true=3, zipf_s=1.0
)
CODE = "v1.q1YqyEmsTC_KL81LUbKqVgISpjpKqQXFmTn5eUpWRnoGtbUA"  # {"playground": {"epsilon": 2.0, "d": 5}}

EO, EU, ER, ES = (
    "ldp_tools.explore.oracles.",
    "ldp_tools.explore.utility.",
    "ldp_tools.explore.rappor.",
    "ldp_tools.explore.rappor_sim.",
)
ESH = "ldp_tools.explore.shuffle."
SH, SV, ST = (
    "ldp_tools.explore.share.",
    "ldp_tools.explore.serve.",
    "ldp_tools.explore.streams.",
)
PANELS = {
    "k",
    "h",
    "m",
    "f",
    "p",
    "q",
    "n_reports",
    "n_candidates",
    "n_true",
    "zipf_s",
    "alpha",
    "correction",
    "simulate",
    "mu",
    "n_users",
    "n_rounds",
    "beta",
    "epsilon_max",
    "n_draws",
    "seed",
    "epsilon",
    "theta",
    "mechanism_key",
    "hash_family",
    "d",
    "n",
    "population",
    "shape",
    "candidate",
    "cohort",
    "user",
    "report",
    "survey",
    "shown",
    "epsilon0",
    "delta",
}

SPECS = {
    EO + "check_structure": spec(
        structure={"k": 4},
        d=64,
        _extra={"structure": [{"k": 0}, {"zz": 1}, {"m": 10**6}], "d": [1, 4096]},
    ),
    EO + "population_counts": spec(
        population="zipf", n=100, d=5, zipf_s=1.1, _extra={"d": [1], "zipf_s": [-1.0, 11.0]}
    ),
    EO + "playground_state": spec(
        mechanism_key="grr",
        epsilon=1.0,
        d=5,
        n=100,
        population="uniform",
        zipf_s=1.1,
        seed=0,
        structure={"k": 2},
        hash_family="sha256",
        _extra={"d": [1], "seed": [-1]},
    ),
    EU + "oracle_ranking": spec(
        epsilon=1.0,
        d=5,
        n=100,
        population="uniform",
        zipf_s=1.1,
        structure={"k": 2},
        seed=0,
        hash_family="sha256",
        _extra={"d": [1]},
    ),
    EU + "phase_diagram": spec(
        epsilons=np.array([0.5, 2.0]), ds=np.array([2, 8]), _extra={"ds": [np.array([1])]}
    ),
    ER + "rappor_guide": spec(
        **RAPPOR,
        alpha=0.05,
        correction="bh",
        seed=0,
        shape="linear",
        _extra={
            "f": [1.0],
            "q": [0.1],
            "n_reports": [1],
            "n_true": [7],
            "seed": [-1],
            "n_candidates": [1001],
        },
    ),
    ER + "simulated_precision_recall": spec(
        **RAPPOR,
        alpha=0.05,
        correction="bonferroni",
        n_draws=2,
        seed=0,
        shape="zipf",
        _extra={"n_draws": [0, 65]},  # the rest: as rappor_guide's
        _free=set(RAPPOR) | {"alpha", "correction", "shape"},
    ),
    ES + "user_report": spec(
        k=8,
        h=2,
        m=2,
        f=0.5,
        p=0.25,
        q=0.75,
        candidate=1,
        cohort=1,
        n_candidates=6,
        seed=0,
        user=0,
        report=0,
        _extra={"candidate": [6, -1], "cohort": [2], "user": [-1], "report": [-1]},
    ),
    ES + "decode_counts": spec(
        counts=BIT_COUNTS,
        reports_per_cohort=REPORTS,
        blooms=BLOOMS,
        f=0.5,
        p=0.25,
        q=0.75,
        alpha=0.05,
        correction="bh",
        names=["a", "b", "c", "d"],
        _extra={"counts": [BIT_COUNTS + 100], "blooms": [BLOOMS[:, :, :4]], "names": [["a"]]},
    ),
    ES + "simulated_survey": spec(
        **RAPPOR,
        shape="constant",
        alpha=0.05,
        correction="none",
        seed=0,
        _free=set(RAPPOR) | {"shape"},
    ),  # as rappor_guide's, probed there
    ST + "continual_counting_curves": spec(
        mu=0.5,
        n_users=2000,
        n_rounds=4,
        beta=0.1,
        epsilon_max=4.0,
        n_draws=3,
        seed=0,
        _extra={"mu": [1.5], "n_users": [10], "n_rounds": [200_000]},
    ),
    ST + "m_shot_curves": spec(
        epsilon=4.0,
        n_rounds=8,
        n_users=500,
        theta=0.5,
        n_draws=3,
        seed=0,
        _extra={"theta": [0.0, 1.5], "n_rounds": [5001], "n_draws": [200_001]},
    ),
    ESH + "n_max": spec(k=3),
    ESH + "n_grid": spec(k=3),
    ESH + "shuffle_state": spec(
        n=50,
        epsilon0=1.0,
        delta=1e-6,
        k=3,
        _finite=False,
        _nan_ok=True,  # ShuffleRow and the curves: NaN where a bound does not apply (the panel: n/a)
        _extra={"n": [401], "k": [1001]},
    ),
    SH + "share_bar": spec(),
    SV + "long_lived": spec(),  # a context manager, no arguments
    SV + "refusal": spec(
        headers={"Host": "127.0.0.1:8866"},
        port=8866,
        path="/",
        page=False,
        pages=0,
        max_pages=5,
        _free={"path"},
        _extra={"port": [0], "pages": [-1], "max_pages": [0, 65]},
    ),
    SV + "main": spec(argv=["--help"], _valid=False, _free={"argv"}),
    # the panels: live widgets, defaults checked by the functions above
    "ldp_tools.explore.panels.playground_panel": spec(
        mechanism_key="grr", epsilon=1.0, d=5, n=100, _valid=False, _free=PANELS
    ),
    "ldp_tools.explore.panels.privacy_utility_panel": spec(
        epsilon=1.0, d=5, n=100, _valid=False, _free=PANELS
    ),
    "ldp_tools.explore.panels.show_panel": spec(name="playground", _valid=False),
    "ldp_tools.explore.paper_panels.continual_panel": spec(
        mu=0.5, n_users=2000, n_rounds=4, _valid=False, _free=PANELS
    ),
    "ldp_tools.explore.paper_panels.m_shot_panel": spec(
        epsilon=4.0, n_rounds=8, _valid=False, _free=PANELS
    ),
    "ldp_tools.explore.rappor_panel.rappor_panel": spec(**RAPPOR, _valid=False, _free=PANELS),
    "ldp_tools.explore.shuffle_panel.shuffle_panel": spec(
        n=50, epsilon0=1.0, delta=1e-6, k=2, _valid=False, _free=PANELS
    ),
}

RECORDS = {
    EO + "PlaygroundState",
    EO + "Structure",
    ER + "RapporGuide",
    ES + "ReportSteps",
    ES + "DecodedCounts",
    ES + "SimulatedSurvey",
    ST + "ContinualCurves",
    ST + "MShotCurves",
    ESH + "ShuffleRow",
    ESH + "ShuffleState",
}
