"""The notebook pipeline, apart from the science: what a notebook uses besides the science
(claims tables, the figure style and saver, shared plots) and the tools that run notebooks
(:mod:`~ldp_tools.pipeline.reproduce`, :mod:`~ldp_tools.pipeline.refresh`,
:mod:`~ldp_tools.pipeline.report`).  Nothing in the science imports this package.

A notebook sets its tooling up in two lines::

    from ldp_tools.pipeline import start_notebook
    claims, publish = start_notebook("03_m_shot", save_figures=save_figures)
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "ldp_tools.pipeline.claims": ("ClaimsTable", "VERDICTS"),
    "ldp_tools.pipeline.figures": ("save_figure", "use_style"),
    "ldp_tools.pipeline.plots": ("plot_tail_bounds",),
    "ldp_tools.pipeline.notebook": ("start_notebook", "FigureSaver"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
#: the modules a notebook or a command line uses by name (``python -m ldp_tools.pipeline.reproduce``)
_MODULES = ("decisions", "plots", "refresh", "report", "reproduce")
__all__ = sorted(_MODULE_OF) + list(_MODULES)


def __getattr__(name: str):
    """Resolve a re-exported name from its module on first use (PEP 562)."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'ldp_tools.pipeline' has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value
