"""Contract specs of issue 29 part B (sketches and heavy hitters): the sketches' constructors, SFP, our
PrivateExpanderSketch's code and protocol, the heavy-hitter scaling driver and its figure (merged into specs.SPECS).

The registered mechanisms' contract methods are probed through the registries (test_registry_contract.py)."""

from __future__ import annotations

import numpy as np

from ldp_helpers.experiments.heavy_hitter_scaling import Scaling
from ldp_helpers.experiments.tutorial_protocols import Curve
from ldp_helpers.mechanisms.registry import REGISTRY
from ldp_helpers.protocols.registry import PROTOCOL_REGISTRY

from .specs import RNG, spec

M = "ldp_helpers.mechanisms."
P = "ldp_helpers.protocols."
E = "ldp_helpers.experiments.heavy_hitter_scaling."
HCMS, HT, PCS, SR = (
    REGISTRY[key].example() for key in ("hcms", "hashtogram", "pcs", "sketch_response")
)
SFP = PROTOCOL_REGISTRY["sfp"].example()
A, B = (
    Curve(np.array([0.5, 0.6]), np.array([0.01, 0.02])),
    Curve(np.array([0.04, 0.03]), np.array([0.01, 0.01])),
)
SCALING = Scaling(np.array([8, 12]), {"PEM": A}, {"PEM": B})
VALUES = np.arange(300) % 256

SPECS = {
    # mechanisms: the sketches' constructors and alternate constructors
    M + "hadamard_sketch.HadamardCountMeanSketch": spec(
        epsilon=1.5,
        d=5,
        k=3,
        m=4,
        hash_a=HCMS.hash_a,
        hash_b=HCMS.hash_b,
        _extra={"m": [6], "epsilon": [40.0]},
    ),
    M + "hashtogram.Hashtogram": spec(
        epsilon=1.5,
        d=5,
        n_hashes=2,
        n_buckets=4,
        hash_a=HT.hash_a,
        hash_b=HT.hash_b,
        _extra={"n_hashes": [0], "n_buckets": [1], "hash_a": [HT.hash_a[:1]]},
    ),
    M + "hashtogram.Hashtogram.create": spec(
        epsilon=1.5,
        d=5,
        n_hashes=2,
        n_buckets=4,
        rng=RNG,
        _huge={"n_hashes", "n_buckets"},
        _extra={"n_hashes": [0], "n_buckets": [1]},
    ),
    M + "count_sketch.PrivateCountSketch": spec(
        epsilon=1.5,
        d=5,
        k=2,
        m=4,
        hash_a=PCS.hash_a,
        hash_b=PCS.hash_b,
        sign_a=PCS.sign_a,
        sign_b=PCS.sign_b,
        _extra={"sign_b": [PCS.sign_b[:1]]},
    ),
    M + "count_sketch.PrivateCountSketch.create": spec(
        epsilon=1.5, d=5, k=2, m=4, rng=RNG, _huge={"k", "m"}
    ),
    M + "sketch_response.SketchResponse": spec(
        epsilon=1.5, d=5, k=2, m=3, hash_a=SR.hash_a, hash_b=SR.hash_b, oracle="grr"
    ),
    M + "sketch_response.SketchResponse.create": spec(
        epsilon=1.5, d=5, k=2, m=3, oracle="oue", rng=RNG, _huge={"k", "m"}
    ),
    # protocols: SFP, its search and the worst-case error
    P + "sfp.SequenceFragmentPuzzle": spec(
        epsilon=1.5,
        bits=4,
        fragment_bits=2,
        k=2,
        m=4,
        hash_a=SFP.hash_a,
        hash_b=SFP.hash_b,
        puzzle_a=SFP.puzzle_a,
        puzzle_b=SFP.puzzle_b,
        puzzle_bits=1,
        fragment_share=0.5,
        _extra={"fragment_bits": [3, 4], "bits": [1, 31], "fragment_share": [0.0, 1.0], "m": [6]},
    ),
    P + "sfp.SequenceFragmentPuzzle.create": spec(
        epsilon=1.5,
        bits=4,
        fragment_bits=2,
        k=2,
        m=4,
        puzzle_bits=1,
        fragment_share=0.5,
        rng=RNG,
        _huge={"k"},
        _extra={"fragment_bits": [3]},
    ),
    P + "sketch_heavy_hitters.sfp": spec(
        values=VALUES,
        bits=8,
        epsilon=2.0,
        k=2,
        fragment_bits=4,
        sketch_rows=4,
        sketch_width=16,
        puzzle_bits=8,
        fragments_kept=4,
        max_candidates=64,
        rng=RNG,
        per_user=False,
        _huge={"max_candidates", "sketch_rows", "sketch_width"},
        _extra={"fragment_bits": [3, 8], "sketch_width": [12], "k": [257]},
    ),
    P + "sketch_heavy_hitters.linf_error": spec(  # the counted form; counts=None: one per user
        found=np.array([1, 2]),
        estimates=np.array([45.0, 33.0]),
        values=np.array([1, 2, 3]),
        counts=np.array([50, 30, 20]),
        _none_ok=("counts",),
        _extra={
            "found": [np.array([1, 1])],
            "estimates": [np.array([1.0])],
            "values": [np.array([3, 2, 1])],
            "counts": [np.array([50, 0, 20]), np.array([50, 30])],
        },
    ),
    # protocols: our PrivateExpanderSketch's code, graph and protocol
    P + "expander_code.multiplication_table": spec(),
    P + "expander_code.code_length": spec(bits=16, _extra={"bits": [4, 40]}),
    P + "expander_code.nibbles": spec(
        values=np.array([1, 300]), bits=16, _extra={"values": [np.array([2**16])]}
    ),
    P + "expander_code.encode": spec(
        values=np.array([1, 300]), bits=16, _extra={"values": [np.array([2**16])]}
    ),
    P + "expander_code.decode_message": spec(
        message=np.array([[0, 1, 2, 3]]),
        bits=16,
        _extra={"message": [np.array([[0, 1, 2]]), np.array([[0, 1, 2, 16]])]},
    ),
    P + "expander_code.expander_edges": spec(length=8, _extra={"length": [5, 18, 2]}),
    P + "expander_sketch.private_expander_sketch": spec(
        values=VALUES,
        bits=8,
        epsilon=2.0,
        k=2,
        n_buckets=4,
        oracle_hashes=3,
        oracle_buckets=16,
        z=2.0,
        min_agreement=0.5,
        max_erasures=1,
        max_candidates=64,
        hash_seed=1,
        rng=RNG,
        per_user=False,
        _huge={"max_candidates", "oracle_hashes", "oracle_buckets"},
        _extra={
            "bits": [4, 33],
            "min_agreement": [1.5, -0.1],
            "max_erasures": [-1, 3],
            "oracle_buckets": [1],
        },
    ),
    # experiments: the scaling driver
    E + "scaling_by_n": spec(
        n_grid=np.array([200, 400]),
        bits=8,
        epsilon=2.0,
        k=2,
        exponent=1.5,
        n_draws=2,
        rng=RNG,
        protocols=["PEM"],
        progress=False,
        _huge={"n_draws"},
        _extra={
            "n_grid": [np.array([10])],
            "bits": [4, 30],
            "protocols": [["PEM", "PEM"], ["OLH"], []],
        },
    ),
    E + "scaling_by_bits": spec(
        bits_grid=np.array([8, 12]),
        n_users=300,
        epsilon=2.0,
        k=2,
        exponent=1.5,
        n_draws=2,
        rng=RNG,
        protocols=["PEM"],
        progress=False,
        _huge={"n_draws", "n_users"},
        _extra={"bits_grid": [np.array([10]), np.array([4]), np.array([32])], "n_users": [10]},
    ),
    # the figure draws a new Figure (not run here: tests/experiments/test_heavy_hitter_scaling.py draws it)
    "ldp_tools.pipeline.plots.heavy_hitter_scaling.scaling_figure": spec(
        by_n=SCALING, by_bits=SCALING, epsilon=2.0, k=2, bits=8, n_users=100, _valid=False
    ),
}

RECORDS = {
    M + "hadamard_sketch.HcmsReports",
    M + "hashtogram.HashtogramReports",
    M + "count_sketch.PcsReports",
    M + "sketch_response.SketchResponseReports",
    P + "sfp.SfpReports",
    E + "Scaling",
}
