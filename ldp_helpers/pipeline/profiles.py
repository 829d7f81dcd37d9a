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


#: a profile larger than this is refused (profiles are a few hundred bytes)
MAX_PROFILE_BYTES = 1024**2


def notebook_parameters(stem: str) -> dict:
    """The parameters declared in a notebook's ``parameters`` cell, with their defaults."""
    import papermill

    paths.check_notebook_stem(stem, "stem")

    return {name: info["default"] for name, info in papermill.inspect_notebook(str(paths.NOTEBOOKS_DIR / f"{stem}.ipynb")).items()}


def load_profile(name: str) -> dict[str, dict]:
    """Read and validate a profile: every notebook and parameter it names must exist.

    Returns a mapping ``stem -> {parameter: value}`` with an entry for every notebook.
    """
    path = profile_path(name)
    raw, lines = _read_yaml(path)
    if not isinstance(raw, dict):
        raise ValueError(f"{path.name}: must be a mapping from notebook name to parameters")
    stems = paths.notebook_stems()
    profile = {stem: {} for stem in stems}
    for stem, params in raw.items():
        if stem not in stems:
            raise ValueError(f"{path.name}: unknown notebook {stem!r}; valid names: {', '.join(stems)}")
        params = params or {}
        if not isinstance(params, dict):
            raise ValueError(f"{path.name}:{lines.get(stem, '?')}: the entry for {stem} must be a mapping of parameters")
        empty = [p for p, v in params.items() if v is None]
        if empty:
            raise ValueError(f"{path.name}:{lines.get((stem, empty[0]), '?')}: parameter {empty[0]} of {stem} has no value "
                             "(a truncated or garbled profile?)")
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
    """``notebooks/profiles/<name>.yaml`` for a profile that exists (no other path can be named)."""
    valid = profile_names()
    if not isinstance(name, str) or name not in valid:
        raise ValueError(f"unknown profile {name!r}; valid profiles: {', '.join(valid)} (name must be one of them)")
    return paths.PROFILES_DIR / f"{name}.yaml"


def _read_yaml(path: Path) -> tuple[object, dict]:
    """The document and the line of each key (``stem`` or ``(stem, parameter)``); refuses truncated or garbled files.

    All or nothing: a YAML error, a file that does not end with a newline (cut off mid-line) or
    one over MAX_PROFILE_BYTES is refused with its file and line, never half-read.
    """
    if path.stat().st_size > MAX_PROFILE_BYTES:
        raise ValueError(f"{path.name}: larger than {MAX_PROFILE_BYTES} bytes; not a profile")
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        raise ValueError(f"{path.name}:{text.count(chr(10)) + 1}: the file ends mid-line (truncated?)")
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        raw = yaml.safe_load(text) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise ValueError(f"{path.name}{where}: not valid YAML ({getattr(err, 'problem', None) or err})") from None
    lines = {}
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            lines[key.value] = key.start_mark.line + 1
            if isinstance(value, yaml.MappingNode):
                lines.update({(key.value, k.value): k.start_mark.line + 1 for k, _ in value.value})
    return raw, lines
