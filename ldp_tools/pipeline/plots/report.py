"""The reproduction report's figure (notebook 99): claims per notebook, stacked by verdict."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from ldp_helpers._validation import fail_type
from ldp_tools.pipeline.decisions import VERDICTS
from ldp_tools.pipeline.report import NotebookClaims

#: one colour per verdict, in the order of VERDICTS
VERDICT_COLORS = {"reproduced": "C2", "differs": "C4", "paper error": "C1", "ambiguous": "C7"}


def claims_by_verdict(collected) -> Figure:
    """Horizontal bars: the number of claims each notebook checked, stacked by verdict.

    ``collected`` is :func:`~ldp_tools.pipeline.report.collect_claims`' result.
    """
    if (
        not isinstance(collected, (list, tuple))
        or not collected
        or not all(isinstance(nb, NotebookClaims) for nb in collected)
    ):
        fail_type(
            "collected", collected, "collect_claims()' result: a non-empty list of NotebookClaims"
        )
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(collected) + 1.4))
    left = np.zeros(len(collected))
    for verdict in VERDICTS:
        counts = np.array([nb.count(verdict) for nb in collected])
        ax.barh(
            [nb.stem for nb in collected],
            counts,
            left=left,
            color=VERDICT_COLORS[verdict],
            label=verdict,
        )
        left += counts
    ax.invert_yaxis()
    ax.set(xlabel="number of claims checked", title="Claims checked per paper notebook, by verdict")
    fig.legend(loc="outside lower center", ncol=4)
    return fig
