"""Contract specs of the reproduction report's figure (ldp_tools/pipeline/plots/report.py)."""

from .specs import spec

SPECS = {
    "ldp_tools.pipeline.plots.report.claims_by_verdict": spec(
        collected=[], _valid=False, _extra={"collected": [[], [1], "x"]}
    ),
}
