"""The explorer (tooling): widgets and layout over the science's pure functions.

Public: :func:`~ldp_tools.explore.panels.show_panel` (a notebook's or the app's panel),
:mod:`~ldp_tools.explore.share` (the share bar and link) and :mod:`~ldp_tools.explore.serve` (the
Voilà server); the other modules are the panels' parts.
"""

__all__ = ["panels", "serve", "share"]
