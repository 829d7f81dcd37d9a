"""Contract specs of notebook 07's helpers: ldp_helpers.experiments.field_oracles and .field_deployments, the peers'
parameter rules in ldp_tools.peers, and the figure functions of ldp_tools.pipeline.plots.field_oracles (merged
into specs.SPECS)."""

from __future__ import annotations

import numpy as np

from ldp_helpers.mechanisms.telemetry import OneBitMean
from ldp_helpers.mechanisms.unary_encoding import OUE

from .specs import RNG, spec

FO = "ldp_helpers.experiments.field_oracles."
FD = "ldp_helpers.experiments.field_deployments."
PE = "ldp_tools.peers."
PL = "ldp_tools.pipeline.plots.field_oracles."
KEYS = ["grr", "ss"]
EPS = np.array([0.5, 2.0])
TABLE = np.array([[1.0, 2.0], [0.5, 1.5]])
JOINT = np.array([[30, 10, 5], [20, 5, 0]])
TAUS = np.array([1, 2, 4])
LONG_EPS = {"l_grr": np.array([1.0, 1.5, 2.0]), "fresh": np.array([1.0, 2.0, 4.0])}
LONG_VAR = {"l_grr": (3.0, 2.5)}
OUE5 = OUE(1.2, 5)
COUNTS = np.array([30, 10, 5, 0, 15], dtype=np.int64)

SPECS = {
    FO + "oracle_keys": spec(),
    FO + "oracle_groups": spec(),
    FO + "hash_family_keys": spec(),
    FO + "build_oracle": spec(
        mechanism_key="cms",
        epsilon=1.0,
        d=5,
        structure={"k": 2, "m": 4},
        seed=0,
        hash_family="sha256",
        _extra={
            "d": [1],
            "mechanism_key": ["binary_rr"],
            "seed": [-1],
            "structure": [{"zz": 1}, {"k": -1}, [1]],
        },
    ),
    FO + "oracle_structure": spec(mechanism_key="cms", _extra={"mechanism_key": ["binary_rr"]}),
    FO + "exact_moments": spec(
        oracle=OUE5, truth=COUNTS, _extra={"truth": [np.zeros(5, dtype=np.int64), COUNTS[:4]]}
    ),
    FO + "exact_mse": spec(
        oracle=OUE5, truth=COUNTS, _extra={"truth": [np.zeros(5, dtype=np.int64)]}
    ),
    FO + "lowest_index": spec(
        risk=TABLE,
        _free={"risk"},
        _extra={"risk": [np.ones(3), np.array([[np.nan]]), TABLE.astype("timedelta64[s]")]},
    ),  # ∞: refused; a timedelta is not a risk
    FO + "ranking": spec(
        risk=np.array([2.0, np.inf, 1.0]),
        _free={"risk"},
        _extra={"risk": [TABLE, np.array([-1.0]), np.array([2, 1], dtype="timedelta64[s]")]},
    ),
    FO + "scaled_risk": spec(
        keys=KEYS,
        epsilons=EPS,
        d=5,
        _finite=False,
        _extra={"keys": [[], ["nope"], "grr"], "d": [1]},
    ),
    FO + "best_oracle_map": spec(
        keys=KEYS,
        epsilons=EPS,
        ds=np.array([2, 8]),
        max_extra_bits=2,
        _none_ok={"max_extra_bits"},
        _extra={"ds": [np.array([1])], "max_extra_bits": [-1]},
    ),
    FO + "mse_against_n": spec(
        keys=KEYS,
        epsilon=1.0,
        d=4,
        n_grid=np.array([8, 16]),
        _finite=False,
        _extra={"n_grid": [np.array([2])]},
    ),
    FO + "privacy_utility_curves": spec(
        keys=KEYS,
        epsilons=EPS,
        d=5,
        n=100,
        structure={"k": 2},
        _none_ok={"structure"},
        _extra={"d": [1], "n": [0], "structure": [{"zz": 1}, {"k": -1}, [1]]},
    ),
    FO + "crossovers": spec(
        keys=KEYS,
        epsilons=EPS,
        exact={"grr": np.array([2.0, 1.0]), "ss": np.array([1.0, 2.0])},
        _extra={
            "keys": [[], ["nope"]],
            "exact": [{"grr": np.ones(2)}, {"grr": np.ones(3), "ss": np.ones(3)}],
        },
    ),
    FO + "report_bits_table": spec(
        keys=KEYS, epsilon=1.0, ds=np.array([2, 8]), _finite=False, _extra={"ds": [np.array([1])]}
    ),
    # a machine's time, not reproducible: its valid calls run in tests/experiments/test_field_oracles_notebook.py
    FO + "server_seconds": spec(
        keys=KEYS,
        epsilon=1.0,
        d=4,
        n=8,
        rng=RNG,
        repeats=1,
        _valid=False,
        _extra={"n": [2, 2**24], "repeats": [0]},
    ),
    FD + "longitudinal_oracle": spec(
        mechanism_key="l_osue",
        epsilon=1.0,
        epsilon_permanent=3.0,
        d=5,
        _extra={"mechanism_key": ["grr"], "d": [1]},
    ),
    FD + "longitudinal_epsilons": spec(
        epsilon=1.0,
        epsilon_permanent=3.0,
        d=5,
        taus=TAUS,
        _finite=False,
        _extra={"taus": [np.array([0])]},
    ),
    FD + "whole_table_losses": spec(
        epsilon=1.0,
        epsilon_permanent=3.0,
        d=4,
        n_reports=2,
        _none_ok={"n_reports"},
        _finite=False,
        _extra={"d": [1, 7], "n_reports": [0, 5]},
    ),
    FD + "longitudinal_variances": spec(
        epsilon=1.0, epsilon_permanent=3.0, d=5, _finite=False, _extra={"d": [1]}
    ),
    FD + "memoized_history_loss": spec(
        mechanism=OneBitMean(1.0, 8),
        histories=np.array([[0, 0], [8, 8]]),
        step=2,
        _none_ok={"step"},
        _finite=False,
        _extra={"mechanism": ["grr"], "histories": [np.array([0, 1])]},
    ),
    FD + "changed_report_share": spec(
        mechanism=OneBitMean(1.0, 8),
        users_per_value=10,
        rounds=3,
        rng=RNG,
        step=2,
        _none_ok={"step"},
        _huge={"users_per_value"},
        _extra={"mechanism": ["grr"], "rounds": [1]},
    ),
    FD + "joint_zipf_counts": spec(
        n_users=100,
        domain_sizes=(2, 3),
        exponent=1.0,
        rng=RNG,
        _extra={"domain_sizes": [(2,), (1, 3)], "exponent": [-1.0]},
    ),
    FD + "multidimensional_mse": spec(
        epsilons=EPS,
        counts=JOINT,
        solutions=None,
        _none_ok={"solutions"},
        _extra={"counts": [np.array([1, 2])], "solutions": [["nope"], "SPL[GRR]"]},
    ),
    PE + "multi_freq_ldpy_subset_size": spec(epsilon=1.0, d=8, _extra={"d": [1]}),
    PE + "pure_ldp_hadamard_coefficients": spec(epsilon=1.0),
    PE + "multi_freq_ldpy_lgrr_rounds": spec(
        d=5, epsilon_permanent=3.0, epsilon=1.0, _finite=False, _extra={"d": [1]}
    ),
    # the figure functions draw a new Figure (not run here: tests/experiments/test_field_oracles_notebook.py draws each)
    PL + "risk_figure": spec(
        keys=KEYS,
        epsilons=EPS,
        risks={5: TABLE},
        _valid=False,
        _extra={"keys": [[]], "risks": [{}, {5: np.ones((3, 2))}]},
    ),
    PL + "phase_figure": spec(
        keys=KEYS,
        epsilons=EPS,
        ds=np.array([2, 8]),
        maps={"all": np.array([[0, 1], [1, 1]])},
        _valid=False,
        _extra={"maps": [{}, {"all": np.ones((3, 3))}]},
    ),
    PL + "mse_n_figure": spec(
        keys=KEYS,
        n_grid=np.array([10, 100]),
        mse=TABLE,
        epsilon=1.0,
        d=4,
        _valid=False,
        _extra={"mse": [np.ones((2, 3))]},
    ),
    PL + "bits_figure": spec(
        keys=KEYS,
        ds=np.array([2, 8]),
        bits=TABLE,
        epsilon=1.0,
        _valid=False,
        _extra={"bits": [np.ones((1, 2))]},
    ),
    PL + "server_figure": spec(
        keys=KEYS,
        ds=np.array([2, 8]),
        seconds=TABLE,
        n=10,
        epsilon=1.0,
        _valid=False,
        _extra={"seconds": [np.ones((1, 2)), -TABLE, np.full((2, 2), np.inf)], "n": [0]},
    ),
    PL + "longitudinal_figure": spec(
        taus=TAUS,
        epsilons=LONG_EPS,
        variances=LONG_VAR,
        epsilon=1.0,
        epsilon_permanent=3.0,
        d=5,
        _valid=False,
        _extra={"epsilons": [{}], "variances": [{}]},
    ),
    PL + "multidimensional_figure": spec(
        epsilons=EPS,
        mse={"SPL[GRR]": np.array([1.0, 0.5])},
        domain_sizes=(2, 3),
        n_users=100,
        _valid=False,
        _extra={"mse": [{}, {"SPL[GRR]": np.ones(3)}]},
    ),
}
RECORDS = {FO + "Moments", FO + "PrivacyUtilityCurves"}
