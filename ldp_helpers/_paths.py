"""Where the repository's folders are, anchored on this file (never on the working directory).

The bottom layer, beside :mod:`ldp_helpers._validation`: the science reads its shipped data from
here (``data/``) and the notebook pipeline adds its own folders (:mod:`ldp_tools.pipeline.paths`).
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT / "data"
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
BUILD_DIR = REPO_ROOT / "build"
# The shared, read-only data folder that sits beside the repository on the project's machines.
SHARED_DATA_DIR = REPO_ROOT.parent / "shared" / "data"
