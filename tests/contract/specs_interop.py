"""Contract specs of issue 31: ldp_helpers.interop (google/rappor's files, the peers' OLH reports, xxh32), the
external hash designs of RAPPOR, the decoder on bit counts with empty cohorts, where sweeps run (sweeps.backends,
seeded global generators, sessions) and the peers' OLH clients (merged into specs.SPECS)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ldp_helpers.mechanisms.local_hashing import OLH
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams, RapporReports
from ldp_helpers.mechanisms.registry import REGISTRY

from .specs import RNG, spec

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "google_rappor"
PARAMS_FILE, COUNTS_FILE, MAP_FILE = (
    str(FIXTURES / name) for name in ("params.csv", "counts.csv", "map.csv")
)
REPORTS_FILE = str(FIXTURES / "sample_reports.csv")
GOOGLE = RapporParams(k=16, h=2, m=64, f=0.5, p=0.5, q=0.75)
SMALL = RapporParams(k=8, h=2, m=2, f=0.5, p=0.25, q=0.75)
BLOOMS = REGISTRY["rappor"].example().blooms
SMALL_BLOOMS = np.zeros((2, 3, 8), dtype=np.int8)
SMALL_BLOOMS[:, 0, [0, 1]] = SMALL_BLOOMS[:, 1, [2, 5]] = SMALL_BLOOMS[:, 2, [7]] = 1
SMALL_RAPPOR = Rappor.from_design(SMALL, SMALL_BLOOMS)
REPORTS = RapporReports(np.array([0, 1, 1]), np.array([[1, 0, 0, 1, 0, 0, 0, 1], [0] * 8, [1] * 8]))
OLH_REPORTS = np.array([[0, 5], [3, 2**40 + 7], [1, 12345]])
NOT_CSV = "not-a-file.txt"  # a writer's path must end in .csv: the probes never write into the working folder


class _FakeClient:
    """Stands for a distributed.Client in the checks of where a sweep runs (never connected)."""

    def submit(self, *args, **kwargs):
        raise RuntimeError("not a cluster")

    cancel = nthreads = submit


GI, PR, XX = (
    "ldp_helpers.interop.google_rappor.",
    "ldp_helpers.interop.peer_reports.",
    "ldp_helpers.interop.xxhash32.",
)
SW, PE = "ldp_helpers.sweeps.", "ldp_tools.peers."
SPECS = {
    # mechanisms: external hash designs, google's MD5 design; the decoder on bit counts
    "ldp_helpers.mechanisms.rappor.Rappor.from_design": spec(
        params=SMALL, design=SMALL_BLOOMS, _extra={"design": [np.zeros((2, 3, 8)), np.ones((5, 3))]}
    ),
    "ldp_helpers.mechanisms.rappor_client.design_blooms": spec(
        design=SMALL_BLOOMS, m=2, h=2, k=8, _extra={"design": [np.ones((5, 3)), np.full((2, 2), 2)]}
    ),
    "ldp_helpers.mechanisms.rappor_client.md5_bloom_bits": spec(
        word="v1", cohort=3, h=2, k=16, _free={"word"}, _extra={"h": [17], "cohort": [-1]}
    ),
    "ldp_helpers.mechanisms.rappor_client.md5_bloom_filters": spec(
        candidates=["v1", "v2"],
        m=2,
        h=2,
        k=16,
        _huge={"m"},
        _extra={"candidates": [[], "v1", [1, 2]], "h": [17]},
    ),
    "ldp_helpers.estimation.rappor_decoding.decode_aggregate": spec(
        mechanism=SMALL_RAPPOR,
        aggregate=np.array([[30, 25, 10, 8, 9, 12, 7, 20], [0] * 8]),
        n=np.array([40, 0]),
        alpha=0.05,
        correction=None,
        lasso_alpha=0.1,
        drop_below=1e-3,
        _extra={
            "aggregate": [np.full((2, 8), 50), np.zeros((3, 8), int)],
            "n": [np.array([0, 0]), np.array([40])],
            "correction": ["fdr"],
        },
    ),
    # interop.google_rappor (writers write files: no valid run; their refusals come before any write)
    GI + "read_params": spec(path=PARAMS_FILE, _extra={"path": [COUNTS_FILE, str(FIXTURES)]}),
    GI + "write_params": spec(params=GOOGLE, path=NOT_CSV, _valid=False),
    GI + "read_counts": spec(
        path=COUNTS_FILE, params=GOOGLE, _extra={"path": [MAP_FILE, PARAMS_FILE], "params": [SMALL]}
    ),
    GI + "write_counts": spec(
        bit_counts=np.array([[1, 2], [0, 3]]),
        cohort_sizes=np.array([4, 3]),
        path=NOT_CSV,
        _valid=False,
        _extra={"bit_counts": [np.array([[5, 2], [0, 3]])]},
    ),
    GI + "read_map": spec(
        path=MAP_FILE, params=GOOGLE, _extra={"path": [COUNTS_FILE], "params": [SMALL]}
    ),
    GI + "write_map": spec(
        candidates=["a", "b", "c"],
        blooms=SMALL_BLOOMS,
        path=NOT_CSV,
        _valid=False,
        _extra={"candidates": [["a"], [1, 2, 3]], "blooms": [np.zeros((2, 3, 8), int)]},
    ),
    GI + "read_reports": spec(
        path=REPORTS_FILE, params=GOOGLE, _extra={"path": [MAP_FILE], "params": [SMALL]}
    ),
    # reports (a NamedTuple of two arrays) is not a kind the strategies know: its refusals are in test_interop_google_rappor
    GI + "write_reports": spec(
        reports=REPORTS,
        path=NOT_CSV,
        clients=None,
        _valid=False,
        _free={"reports"},
        _extra={"clients": [["a"], "abc"]},
    ),
    GI + "read_rappor_files": spec(
        counts_file=COUNTS_FILE,
        map_file=MAP_FILE,
        params=PARAMS_FILE,
        _extra={"counts_file": [MAP_FILE], "map_file": [COUNTS_FILE], "params": [SMALL]},
    ),
    # interop.peer_reports and xxhash32
    PR + "check_olh_reports": spec(
        reports=OLH_REPORTS,
        g=4,
        _extra={"reports": [np.array([[4, 1]]), np.zeros((0, 2), int), [(1, 2, 3)], [(0, -1)]]},
    ),
    PR + "olh_support": spec(
        reports=OLH_REPORTS, d=5, g=4, _huge={"d"}, _extra={"reports": [np.array([[4, 1]])]}
    ),
    PR + "olh_support_counts": spec(
        reports=OLH_REPORTS, d=5, g=4, _huge={"d"}, _extra={"reports": [[(9, 1)]]}
    ),
    PR + "estimate_olh_reports": spec(
        reports=OLH_REPORTS,
        mechanism=OLH(1.0, 5),
        _extra={"reports": [np.array([[7, 1]])], "mechanism": [REGISTRY["grr"].example()]},
    ),
    XX + "xxh32_decimal": spec(
        values=np.array([0, 1, 10]), seeds=np.array([3, 2**40]), _extra={"seeds": [np.array([-1])]}
    ),
    # sweeps: where the chunks run
    SW + "backends.check_dask_client": spec(client=_FakeClient()),
    SW + "backends.check_n_jobs": spec(n_jobs=2, _extra={"n_jobs": [0]}),
    SW + "backends.check_where": spec(
        n_jobs=2,
        dask_address="tcp://127.0.0.1:8786",
        dask_client=None,
        _extra={"n_jobs": [0], "dask_address": ["no address"]},
    ),
    SW + "backends.local_workers": spec(
        n_jobs=-1, n_chunks=3, _extra={"n_jobs": [0], "n_chunks": [-1]}
    ),
    SW + "backends.sweep_plan": spec(
        n_chunks=3,
        backend=None,
        n_jobs=2,
        dask_address=None,
        dask_client=None,
        _extra={
            "n_chunks": [-1],
            "backend": ["spark"],
            "n_jobs": [0],
            "dask_address": ["no address"],
        },
    ),
    SW + "global_rngs.seeded_globals": spec(rng=RNG, _valid=False),
    SW + "sweep_session": spec(
        backend=None,
        n_jobs=2,
        dask_address=None,
        dask_client=None,
        timeout=10.0,
        _valid=False,
        _extra={"n_jobs": [0], "timeout": [0.0, -1.0], "dask_address": ["no address"]},
    ),
    # peers: their OLH clients (the peers are imported when called: constructed only here)
    PE + "PureLdpOLH": spec(epsilon=1.0, d=4, _extra={"d": [1], "epsilon": [50.0]}),
    PE + "MultiFreqOLH": spec(epsilon=1.0, d=4, _extra={"d": [1], "epsilon": [50.0]}),
}
RECORDS = {GI + "RapporFiles", SW + "backends.SweepPlan"}
