"""ldp_tools: the tooling beside the science of :mod:`ldp_helpers`.

:mod:`ldp_tools.pipeline` runs the notebooks (profiles, papermill, refresh, the report), records and
checks their claims and draws the figures (``pipeline.plots``, one style file);
:mod:`ldp_tools.explore` is the explorer app (widget panels, the guarded Voilà server, the share
bar); :mod:`ldp_tools.peers` runs the published peer libraries beside ours.  The tooling imports
the science, never the reverse: nothing in ``ldp_helpers`` imports ``ldp_tools``
(``tests/test_package.py``), so importing the science loads no plotting, widget, notebook or
cluster library.
"""

__all__ = ["explore", "peers", "pipeline"]
