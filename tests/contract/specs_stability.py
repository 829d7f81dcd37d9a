"""Contract specs of the robustness pass (issue 26): the ``stability`` column, its computation and the report's
fragile rows (ldp_tools/pipeline/{stability,claim_rows,profiles,report}.py), and the pooled margin that made
notebook 05's SVIM rows stable (ldp_helpers/experiments/tutorial_protocols.py)."""

import numpy as np

from ldp_helpers.experiments.tutorial_protocols import Curve
from ldp_tools.pipeline.claim_rows import Claim
from ldp_tools.pipeline.decisions import close

from .specs import spec

ROW = Claim(
    "00-01",
    "a number",
    "§1",
    "1",
    "1.01",
    "reproduced",
    tolerance="±0.1",
    decision=str(close(1.01, 1.0, 0.1)),
)
MOVED = Claim(
    "00-01",
    "a number",
    "§1",
    "1",
    "1.02",
    "reproduced",
    tolerance="±0.1",
    decision=str(close(1.02, 1.0, 0.1)),
)
P = "ldp_tools.pipeline."
A, B = (
    Curve(np.array([0.5, 0.6]), np.array([0.01, 0.02])),
    Curve(np.array([0.4, 0.5]), np.array([0.01, 0.01])),
)

SPECS = {
    P + "claim_rows.claims_csv": spec(rows=[ROW]),
    P + "profiles.robustness_seeds": spec(name="paper"),
    P + "report.fragile_claims": spec(collected=[], _valid=False),
    "ldp_helpers.experiments.tutorial_protocols.pooled_margin": spec(
        a=A, b=B, _extra={"b": [Curve(np.array([0.5]), np.array([0.01]))]}
    ),
}
