"""Execution profiles: ``notebooks/profiles/<name>.yaml``, keyed by notebook stem.

A profile maps each notebook to the parameters that override the notebook's stored defaults.
The ``smoke`` profile overrides nothing: it *is* the defaults stored in each notebook (fast
settings, used by nbval and CI).  The ``paper`` profile sets the papers' sizes and turns on
``save_figures`` so that figures and claims are written under ``figures/``.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ldp_helpers.pipeline import paths


def profile_names() -> list[str]:
    return sorted(p.stem for p in paths.PROFILES_DIR.glob("*.yaml"))


def notebook_parameters(stem: str) -> dict:
    """The parameters declared in a notebook's ``parameters`` cell, with their defaults."""
    import papermill

    return {name: info["default"] for name, info in papermill.inspect_notebook(str(paths.NOTEBOOKS_DIR / f"{stem}.ipynb")).items()}


def load_profile(name: str) -> dict[str, dict]:
    """Read and validate a profile: every notebook and parameter it names must exist.

    Returns a mapping ``stem -> {parameter: value}`` with an entry for every notebook.
    """
    valid = profile_names()
    if name not in valid:
        raise ValueError(f"unknown profile {name!r}; valid profiles: {', '.join(valid)}")
    path = paths.PROFILES_DIR / f"{name}.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(raw, dict):
        raise ValueError(f"{path.name}: must be a mapping from notebook name to parameters")
    stems = paths.notebook_stems()
    profile = {stem: {} for stem in stems}
    for stem, params in raw.items():
        if stem not in stems:
            raise ValueError(f"{path.name}: unknown notebook {stem!r}; valid names: {', '.join(stems)}")
        params = params or {}
        if not isinstance(params, dict):
            raise ValueError(f"{path.name}: the entry for {stem} must be a mapping of parameters")
        declared = notebook_parameters(stem)
        unknown = sorted(set(params) - set(declared))
        if unknown:
            raise ValueError(
                f"{path.name}: notebook {stem} does not declare parameter(s) {', '.join(unknown)}; "
                f"its parameters are: {', '.join(declared)}"
            )
        profile[stem] = dict(params)
    return profile


def profile_path(name: str) -> Path:
    return paths.PROFILES_DIR / f"{name}.yaml"
