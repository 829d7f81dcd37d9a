"""Contract specs of the field's oracles (issue 29, part A): Subset Selection, Hadamard Response, the Hadamard
mechanism, fast local hashing, Duchi et al.'s mean, and their helpers (merged into ``specs.SPECS``).

The mechanisms' contract methods are probed over the registry by ``test_registry_contract.py``; here are their
constructors, alternate constructors and module functions.
"""

from __future__ import annotations

import numpy as np

from ldp_helpers.mechanisms.registry import REGISTRY

from .specs import RNG, spec

M = "ldp_helpers.mechanisms."
FLH = REGISTRY["flh"].example()
COUNTS5 = np.array([30, 10, 5, 0, 15], dtype=np.int64)

SPECS = {
    M + "hadamard.hadamard_entries": spec(
        rows=np.array([1, 3]), columns=np.array([2, 3]), _extra={"columns": [np.array([1, 2, 3])]}
    ),
    M + "hadamard.walsh_hadamard_transform": spec(
        values=np.array([1.0, 2.0, 3.0, 4.0]), _extra={"values": [np.array([1.0, 2.0, 3.0]), 2.0]}
    ),
    M + "hadamard_response.hr_blocks": spec(epsilon=1.2, d=5),
    M + "hadamard_response.HadamardResponse": spec(
        epsilon=1.2, d=5, n_blocks=0, _extra={"n_blocks": [-1, 3, 16]}
    ),
    M + "hadamard_mechanism.coefficient_variance_factor": spec(
        epsilon=1.0, t=2, _extra={"t": [0, 31]}
    ),
    M + "hadamard_mechanism.optimal_coefficients": spec(epsilon=1.0),
    M + "hadamard_mechanism.HadamardMechanism": spec(epsilon=2.5, d=5, t=0, _extra={"t": [-1, 31]}),
    M + "subset_selection.subset_probabilities": spec(epsilon=1.0, d=8, k=2, _extra={"k": [8]}),
    M + "subset_selection.optimal_subset_size": spec(epsilon=1.0, d=8),
    M + "subset_selection.SubsetSelection": spec(
        epsilon=1.0, d=8, subset_size=0, _extra={"subset_size": [-1, 8]}
    ),
    M + "fast_local_hashing.fixed_hash_moments": spec(
        hash_table=np.array(FLH.hash_table()),
        true_counts=COUNTS5,
        epsilon=1.2,
        g=4,
        _extra={
            "hash_table": [np.array(FLH.hash_table()) + 4, np.array(FLH.hash_table())[0]],
            "true_counts": [COUNTS5[:4], np.zeros(5, dtype=np.int64)],
            "g": [1],
        },
    ),
    M + "fast_local_hashing.FastLocalHashing": spec(
        epsilon=1.2,
        d=5,
        k=8,
        hash_a=FLH.hash_a,
        hash_b=FLH.hash_b,
        g=0,
        _extra={"g": [1, -1], "hash_a": [FLH.hash_a[:3]]},
    ),
    M + "fast_local_hashing.FastLocalHashing.create": spec(
        epsilon=1.2, d=5, k=8, g=0, rng=RNG, _huge={"k"}, _extra={"g": [1]}
    ),
    M + "duchi_mean.DuchiMean": spec(
        epsilon=1.0, radius=1.0, _extra={"radius": [0.0, -1.0], "epsilon": [31.0]}
    ),
}
RECORDS = {M + "hadamard_mechanism.HadamardReports"}
