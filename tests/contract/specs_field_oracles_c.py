"""Contract specs of issue 29 part C: the longitudinal oracles, ADP, Microsoft's telemetry and multidimensional collection.

Merged into :data:`tests.contract.specs.SPECS` (see the end of ``specs.py``).  The mechanisms' contract
methods are probed over the registry by ``test_registry_contract.py``; here are their constructors and
the modules' other public callables.
"""

from __future__ import annotations

import numpy as np

from ldp_helpers.mechanisms.longitudinal import LGRR

from .specs import spec

M = "ldp_helpers.mechanisms."
SMALL = LGRR(1.0, 3, 2.5)

SPECS = {
    M + "longitudinal.LGRR": spec(
        epsilon=1.0, d=5, epsilon_permanent=3.0, _extra={"epsilon_permanent": [0.5, 1.0]}
    ),
    M + "longitudinal.LOUE": spec(
        epsilon=1.0, d=5, epsilon_permanent=3.0, _extra={"epsilon_permanent": [0.5]}
    ),
    M + "longitudinal.LOSUE": spec(
        epsilon=1.0, d=5, epsilon_permanent=3.0, _extra={"epsilon_permanent": [0.5]}
    ),
    M + "longitudinal.LSOUE": spec(
        epsilon=1.0, d=5, epsilon_permanent=3.0, _extra={"epsilon": [2.9]}
    ),
    M + "longitudinal.LSUE": spec(
        epsilon=1.0, d=5, epsilon_permanent=3.0, _extra={"epsilon_permanent": [0.5]}
    ),
    M + "longitudinal.memoized_reports_table": spec(
        permanent=SMALL.permanent_table(),
        instantaneous=SMALL.instantaneous_table(),
        n_reports=3,
        _huge={"n_reports"},
        _extra={"instantaneous": [np.eye(2)], "n_reports": [20]},
    ),
    M + "adaptive.ADP": spec(epsilon=1.0, d=5),
    M + "dbitflip.DBitFlip": spec(epsilon=1.5, d=5, n_bits=2, _extra={"n_bits": [0, 6]}),
    M + "telemetry.OneBitMean": spec(epsilon=1.0, m=8, _huge={"m"}),
    M + "multidimensional.SPL": spec(
        epsilon=1.2,
        domain_sizes=(3, 2),
        oracle="grr",
        _extra={"domain_sizes": [(3,), (1, 2)], "oracle": ["oue_z"]},
    ),
    M + "smp.SMP": spec(
        epsilon=1.2, domain_sizes=(3, 2), oracle="oue", _extra={"domain_sizes": [(3,), (1, 2)]}
    ),
    M + "rs_fd.RSFD": spec(
        epsilon=1.2,
        domain_sizes=(3, 2),
        oracle="oue_z",
        _extra={"domain_sizes": [(3,), (1, 2)], "oracle": ["oue", "adp"]},
    ),
    M + "rs_fd.RSFD.from_attribute_epsilon": spec(
        epsilon=1.0, domain_sizes=(3, 2), oracle="grr", _extra={"domain_sizes": [(3,), (1, 2)]}
    ),
}
RECORDS = {M + "longitudinal.Rounds", M + "dbitflip.DBitFlipReports", M + "smp.SampledReports"}
