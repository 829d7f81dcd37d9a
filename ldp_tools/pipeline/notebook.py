"""What a notebook's import cell sets up: the collection's style, its claims table, its figure saver.

A notebook starts with::

    claims, publish = start_notebook("03_m_shot", save_figures=save_figures)

and shows each figure with one call, ``publish(fig, "fig1_g_of_m_over_epsilon")``, which saves it
under ``figures/<notebook>/`` when the profile asks for it and then shows it.

**Claims-only runs.**  The reseeded runs of ``reproduce``'s robustness pass read the claims only:
``reproduce`` sets :data:`CLAIMS_ONLY_ENV` for their kernels and drops the cells tagged
:data:`NO_CLAIMS_TAG` (cells whose work no claim reads: figures, panels, checks that are only printed).
There ``publish`` closes the figure it is given: nothing is rendered, saved or shown, and the claims
table does not miss the rows of the cells tagged ``seed-free`` that the run leaves out
(:data:`LEFT_OUT_ENV`, :mod:`~ldp_tools.pipeline._reseeds`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import matplotlib.pyplot as plt

from ldp_helpers._validation import check_bool
from ldp_tools.pipeline import paths
from ldp_tools.pipeline.claims import ClaimsTable
from ldp_tools.pipeline.figures import _figure_path, save_figure, use_style

#: set to "1" in the environment of a claims-only run (the robustness pass's reseeded runs)
CLAIMS_ONLY_ENV = "LDP_CLAIMS_ONLY"
#: in a claims-only run, the JSON list of the claims-file names it leaves out (cells tagged ``seed-free``)
LEFT_OUT_ENV = "LDP_LEFT_OUT_ROWS"
#: the tag of a cell whose work no claim reads (a figure, a panel, a printed check) and whose random numbers, if
#: any, come from its own stream (no later cell's draws change without it): a claims-only run leaves it out
NO_CLAIMS_TAG = "no-claims"


@dataclass(frozen=True)
class FigureSaver:
    """``publish(fig, name)``: :func:`~ldp_tools.pipeline.figures.save_figure` (only when ``write``), then show.

    With ``draw=False`` (a claims-only run) it closes ``fig`` instead: nothing is rendered or written.
    """

    notebook: str
    write: bool
    draw: bool = True

    def __post_init__(self):
        paths.check_notebook_stem(self.notebook)
        check_bool("write", self.write)
        check_bool("draw", self.draw)

    def __call__(self, fig, name: str) -> None:
        if not self.draw:
            _figure_path(self.notebook, name)  # the name is still checked
            plt.close(fig)
            return
        save_figure(fig, self.notebook, name, write=self.write)
        plt.show()


def start_notebook(notebook: str, *, save_figures: bool) -> tuple[ClaimsTable, FigureSaver]:
    """Apply the style; return the notebook's claims table and its figure saver (writing iff ``save_figures``,
    drawing nothing in a claims-only run: :data:`CLAIMS_ONLY_ENV` set to "1")."""
    check_bool("save_figures", save_figures)
    claims_only = os.environ.get(CLAIMS_ONLY_ENV) == "1"
    saver = FigureSaver(notebook, save_figures, draw=not claims_only)
    use_style()
    table = ClaimsTable(notebook)
    if claims_only:
        table.left_out = frozenset(json.loads(os.environ.get(LEFT_OUT_ENV) or "[]"))
    return table, saver
