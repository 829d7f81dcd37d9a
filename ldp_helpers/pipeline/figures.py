"""Saving figures reproducibly: one style, one saver, byte-identical files on regeneration."""

from __future__ import annotations

import logging
import re
from contextlib import contextmanager
from pathlib import Path

import matplotlib.pyplot as plt

from ldp_helpers.pipeline import paths

STYLE_FILE = Path(__file__).with_name("ldp.mplstyle")
_FIGURE_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
# Metadata that would change from run to run (dates, versions) is dropped.
_PNG_METADATA = {"Software": None}
_PDF_METADATA = {"CreationDate": None, "Creator": None, "Producer": None}


@contextmanager
def _quiet_font_timestamps():
    """Silence fontTools' "'created' timestamp seems very low" log lines during PDF subsetting.

    Some glyphs (e.g. the mathtext prime) come from fonts whose ``head`` table has 1970-era
    timestamps; fontTools logs this on stderr, which a paper run treats as a failure.  The message
    concerns font metadata only and does not change the output bytes.
    """
    logger = logging.getLogger("fontTools.ttLib.tables._h_e_a_d")
    previous = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(previous)


def use_style() -> None:
    """Apply the collection's matplotlib style (``ldp_helpers/ldp.mplstyle``)."""
    plt.style.use(STYLE_FILE)


def figure_path(notebook: str, name: str) -> Path:
    """``figures/<notebook>/<name>.png`` (the PDF sits beside it); validates both names."""
    paths.check_notebook_stem(notebook)
    if not isinstance(name, str) or not _FIGURE_NAME.match(name) or name.endswith((".png", ".pdf")):
        raise ValueError(
            f"name must be a file stem of lowercase letters, digits, '_', '-' or '.' without extension "
            f"(e.g. 'fig3_err_vs_epsilon'); got {name!r}"
        )
    return paths.FIGURES_DIR / notebook / f"{name}.png"


def save_figure(fig, notebook: str, name: str, *, write: bool = True) -> Path:
    """Save ``fig`` as PNG and PDF under ``figures/<notebook>/`` with fixed metadata.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    notebook : str
        The notebook stem, e.g. ``"00_tutorial"`` (must exist in ``notebooks/``).
    name : str
        File stem named after the paper's figure, e.g. ``"fig3_err_vs_epsilon"``.
    write : bool
        When False nothing is written (smoke runs must not overwrite committed figures);
        the path is still validated and returned.

    Returns
    -------
    pathlib.Path
        The PNG path; the PDF has the same stem.  Nothing is printed.
    """
    if not hasattr(fig, "savefig"):
        raise ValueError(f"fig must be a matplotlib Figure; got {type(fig).__name__}")
    png = figure_path(notebook, name)
    if not isinstance(write, bool):
        raise TypeError(f"write must be True or False; got {write!r:.80}")
    if write:
        png.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(png, format="png", metadata=_PNG_METADATA)
        with _quiet_font_timestamps():
            fig.savefig(png.with_suffix(".pdf"), format="pdf", metadata=_PDF_METADATA)
    return png
