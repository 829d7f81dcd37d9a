"""Contract specs of [grr_vs_oue]'s newer public functions (notebook 01): figures, worked examples, §2.2.

Merged into ``specs.SPECS`` by ``specs._merge_per_paper_specs``.  The figure functions build a
matplotlib Figure, so like the other plots they are probed with bad input only (``_valid=False``).
"""

from __future__ import annotations

import numpy as np

from ldp_helpers.experiments.grr_vs_oue import PerturbedExample
from ldp_helpers.simulate.datasets import CategoryCounts
from ldp_helpers.simulate.survey import tea_survey_standin

from .specs import COUNTS, GRR5, spec

PLOTS = "ldp_tools.pipeline.plots.grr_vs_oue."
EXAMPLE = PerturbedExample(
    "GRR", np.array([3, 2, 5]), np.array([3, 2, 5]), np.array([2.8, 1.4, 5.8])
)
CLICKS = CategoryCounts(("A1", "A2", "A3"), np.array([3, 2, 5]), "clicks")
CURVE_ARGS = dict(epsilons=np.array([0.5, 2.0]), curves={}, d=5, n_draws=3)

SPECS = {
    "ldp_helpers.bounds.grr_vs_oue.section_2_2_expectation": spec(true_counts=COUNTS, p=0.7, q=0.3),
    "ldp_helpers.bounds.grr_vs_oue.section_2_2_estimate": spec(support=COUNTS, p=0.7, q=0.3),
    "ldp_helpers.experiments.grr_vs_oue.worked_examples": spec(),
    "ldp_helpers.experiments.grr_vs_oue.support_tails": spec(
        protocol=GRR5, true_counts=COUNTS, support=np.array([20, 10, 5, 0, 10])
    ),
    PLOTS + "mse_figure": spec(_valid=False, title="Fig. 3.7", _free={"title"}, **CURVE_ARGS),
    PLOTS + "dataset1_figure": spec(_valid=False, survey=tea_survey_standin()),
    PLOTS + "dataset2_figure": spec(_valid=False, data=CLICKS),
    PLOTS + "perturbed_figure": spec(
        _valid=False,
        example=EXAMPLE,
        labels=("A", "B", "C"),
        xlabel="rating",
        title="Fig. 3.3",
        _free={"xlabel", "title"},
    ),
}
#: the worked examples' record (a result, not an input boundary)
RECORDS = {"ldp_helpers.experiments.grr_vs_oue.WorkedExample"}
