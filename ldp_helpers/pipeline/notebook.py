"""What a notebook's import cell sets up: the collection's style, its claims table, its figure saver.

A notebook starts with::

    claims, publish = start_notebook("03_m_shot", save_figures=save_figures)

and shows each figure with one call, ``publish(fig, "fig1_g_of_m_over_epsilon")``, which saves it
under ``figures/<notebook>/`` when the profile asks for it and then shows it.
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt

from ldp_helpers._validation import check_bool
from ldp_helpers.pipeline import paths
from ldp_helpers.pipeline.claims import ClaimsTable
from ldp_helpers.pipeline.figures import save_figure, use_style


@dataclass(frozen=True)
class FigureSaver:
    """``publish(fig, name)``: :func:`~ldp_helpers.pipeline.figures.save_figure` (only when ``write``), then show."""

    notebook: str
    write: bool

    def __post_init__(self):
        paths.check_notebook_stem(self.notebook)
        check_bool("write", self.write)

    def __call__(self, fig, name: str) -> None:
        save_figure(fig, self.notebook, name, write=self.write)
        plt.show()


def start_notebook(notebook: str, *, save_figures: bool) -> tuple[ClaimsTable, FigureSaver]:
    """Apply the style; return the notebook's claims table and its figure saver (writing iff ``save_figures``)."""
    check_bool("save_figures", save_figures)
    saver = FigureSaver(notebook, save_figures)
    use_style()
    return ClaimsTable(notebook), saver
