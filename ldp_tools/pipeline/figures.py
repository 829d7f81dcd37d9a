"""Saving figures reproducibly: one style, one saver, byte-identical files on regeneration.

Byte-identical across machines too: numpy's SIMD paths and OpenBLAS's kernels are chosen per CPU,
so a computed curve can differ in its last bit from one machine to the next — and Agg's
rasterizer turns such a difference into a changed pixel (seen: RAPPOR's detection threshold, whose
leverages come from a pseudo-inverse).  Before saving, every plotted coordinate and the axis limits
are rounded to :data:`PLOT_BITS` significant bits (relative precision 1.5e-11, far below a pixel).
That absorbs differences in the *data*; drawing itself applies numpy (``log10`` on a log-scale axis)
and so also differs per CPU, which is why the Makefile pins one numpy/OpenBLAS code path for
``make figures`` (``NPY_DISABLE_CPU_FEATURES``, ``OPENBLAS_CORETYPE``).
"""

from __future__ import annotations

import logging
import re
from contextlib import contextmanager
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from ldp_tools.pipeline import paths

STYLE_FILE = Path(__file__).with_name("ldp.mplstyle")
_FIGURE_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
# Metadata that would change from run to run (dates, versions) is dropped.
_PNG_METADATA = {"Software": None}
_PDF_METADATA = {"CreationDate": None, "Creator": None, "Producer": None}
#: significant bits kept of every plotted coordinate (see the module docstring)
PLOT_BITS = 36


def _round_to_bits(values, bits: int = PLOT_BITS):
    """Floats rounded to ``bits`` significant bits (exactly: frexp/ldexp); other values unchanged.

    Two inputs that differ only in their last bits give the same output (unless they straddle a
    rounding boundary, a chance of about 2^(bits−52) per value).
    """
    if isinstance(values, np.ma.MaskedArray):
        return np.ma.array(_round_to_bits(values.data, bits), mask=values.mask)
    a = np.asarray(values)
    if a.dtype.kind != "f" or a.size == 0:
        return values
    mantissa, exponent = np.frexp(a)
    rounded = np.ldexp(np.rint(np.ldexp(mantissa, bits)), exponent - bits)
    return np.where(np.isfinite(a), rounded, a)


def _round_plotted_coordinates(fig) -> None:
    """Round the data of lines, collections and patches and the axis limits (:func:`_round_to_bits`), in place."""
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Polygon, Rectangle
    from matplotlib.path import Path as MplPath

    for ax in fig.get_axes():
        for artist in ax.get_children():
            if isinstance(artist, Line2D):
                artist.set_data(
                    _round_to_bits(artist.get_xdata(orig=True)),
                    _round_to_bits(artist.get_ydata(orig=True)),
                )
            elif isinstance(artist, Rectangle) and artist is not ax.patch:
                bounds = [artist.get_x(), artist.get_y(), artist.get_width(), artist.get_height()]
                artist.set_bounds(*_round_to_bits(np.array(bounds, dtype=float)))
            elif isinstance(artist, Polygon):
                artist.set_xy(_round_to_bits(np.asarray(artist.get_xy(), dtype=float)))
            elif isinstance(artist, Collection):
                offsets = artist.get_offsets()
                if np.size(offsets):
                    artist.set_offsets(_round_to_bits(np.asarray(offsets, dtype=float)))
                paths = artist.get_paths()
                if isinstance(paths, list):
                    for i, path in enumerate(paths):
                        if np.asarray(path.vertices).dtype.kind == "f":
                            paths[i] = MplPath(_round_to_bits(path.vertices), path.codes)
        for axis, get, set_ in (("x", ax.get_xlim, ax.set_xlim), ("y", ax.get_ylim, ax.set_ylim)):
            if getattr(ax, f"get_{axis}scale")() in ("linear", "log"):
                set_(*_round_to_bits(np.array(get(), dtype=float)), auto=None)


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
    """Apply the collection's matplotlib style (``ldp_tools/pipeline/ldp.mplstyle``)."""
    plt.style.use(STYLE_FILE)


def _figure_path(notebook: str, name: str) -> Path:
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
    png = _figure_path(notebook, name)
    if not isinstance(write, bool):
        raise TypeError(f"write must be True or False; got {write!r:.80}")
    if write:
        _round_plotted_coordinates(fig)
        png.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(png, format="png", metadata=_PNG_METADATA)
        with _quiet_font_timestamps():
            fig.savefig(png.with_suffix(".pdf"), format="pdf", metadata=_PDF_METADATA)
    return png
