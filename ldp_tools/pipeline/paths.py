"""Repository paths, anchored on this file (never on the working directory)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ldp_helpers._paths import BUILD_DIR, DATA_DIR, NOTEBOOKS_DIR, REPO_ROOT, SHARED_DATA_DIR  # noqa: F401

PROFILES_DIR = NOTEBOOKS_DIR / "profiles"
# A run under ``reproduce`` points LDP_FIGURES_DIR at a staging folder: a notebook's outputs reach
# figures/ only when the whole notebook succeeded (reproduce moves them), never half-written.
FIGURES_DIR = Path(os.environ.get("LDP_FIGURES_DIR") or REPO_ROOT / "figures")


def _published_figures_dir() -> Path:
    """Where committed outputs are *read* from: ``figures/``, also while a run writes to staging.

    The report reads every notebook's published claims; under ``reproduce`` its own outputs go to
    the staging folder (:data:`FIGURES_DIR`), but the claims it summarizes are the published ones.
    """
    return REPO_ROOT / "figures" if os.environ.get("LDP_FIGURES_DIR") else FIGURES_DIR


_NOTEBOOK_STEM = re.compile(r"^\d\d_[a-z0-9_]+$")


def _notebook_stems() -> list[str]:
    """The collection's notebooks, ``NN_slug``, in order (paired ``.ipynb`` / ``.py`` files)."""
    found = {p.stem for pattern in ("*.ipynb", "*.py") for p in NOTEBOOKS_DIR.glob(pattern)}
    return sorted(stem for stem in found if _NOTEBOOK_STEM.match(stem))


def check_notebook_stem(notebook: str, name: str = "notebook") -> str:
    """Return ``notebook`` if it names a notebook of the collection, else raise ValueError."""
    valid = _notebook_stems()
    if not isinstance(notebook, str) or notebook not in valid:
        raise ValueError(
            f"unknown notebook {notebook!r}; valid names: {', '.join(valid) or '(none)'} ({name} must be one of them)"
        )
    return notebook


def _select_notebooks(stems: list[str], only) -> list[str]:
    """``stems`` in order, only those named in ``only`` unless it is empty (a runner's ``--only``);
    ValueError naming the unknown names and the valid ones."""
    unknown = [name for name in only or () if name not in stems]
    if unknown:
        raise ValueError(
            f"unknown notebook(s) {', '.join(unknown)}; valid names: {', '.join(stems)}"
        )
    return [stem for stem in stems if not only or stem in only]
