"""Execution profiles: ``notebooks/profiles/<name>.yaml``, keyed by notebook stem.

A profile maps each notebook to the parameters that override the notebook's stored defaults.
The ``smoke`` profile overrides nothing: it *is* the defaults stored in each notebook (fast
settings, used by nbval and CI).  The ``paper`` profile sets the papers' sizes and turns on
``save_figures`` so that figures and claims are written under ``figures/``.

One top-level key is not a notebook: ``robustness_seeds``, a list of other seeds under which
``reproduce`` re-runs every notebook that has a ``seed`` parameter, to record whether each claim's
verdict survives a reseed (:mod:`~ldp_tools.pipeline.stability`).
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import yaml

from ldp_helpers._files import read_text_file
from ldp_tools.pipeline import paths


def profile_names() -> list[str]:
    return sorted(p.stem for p in paths.PROFILES_DIR.glob("*.yaml"))


#: a profile larger than this is refused (profiles are a few hundred bytes)
MAX_PROFILE_BYTES = 1024**2


#: the deepest nesting of mappings and lists a profile may have (a profile needs 3: notebook, parameter, list)
MAX_PROFILE_DEPTH = 8

#: the longest text and list a parameter may hold (profiles hold seeds, sizes and short grids)
MAX_PARAMETER_TEXT, MAX_PARAMETER_ITEMS = 1000, 1000


def notebook_parameters(stem: str) -> dict:
    """The parameters declared in a notebook's ``parameters`` cell, with their defaults (source text)."""
    import papermill

    paths.check_notebook_stem(stem, "stem")
    return {
        name: info["default"]
        for name, info in papermill.inspect_notebook(
            str(paths.NOTEBOOKS_DIR / f"{stem}.ipynb")
        ).items()
    }


#: the kind of a parameter value by its type (bool before int in bool's MRO); another type's kind is its name
_KINDS = {t: t.__name__ for t in (bool, int, float, str, list)} | {tuple: "list"}
_KINDS[type(None)] = "none"


def _kind(value) -> str:
    """The kind of a parameter value: bool, int, float, str, none, or list (anything else: unsupported)."""
    return next((_KINDS[t] for t in type(value).__mro__ if t in _KINDS), type(value).__name__)


def _check_parameters(stem: str, parameters: dict, *, where: str = "parameters") -> dict:
    """Parameters for a notebook, as data: each name declared in its ``parameters`` cell, each value
    a plain literal (bool, int, float, text, or a list of numbers or text) of its default's kind.

    Nothing from a profile or a caller becomes code: the names are checked against the declared
    ones (so no other identifier, and no code, can be named) and :func:`parameters_source` writes the
    values with ``repr``, which for these types is a literal that evaluates back to the same value.
    ``where`` names the source in messages (a profile file and notebook, or ``parameters``).
    """
    declared = notebook_parameters(stem)
    checked = {}
    for name, value in parameters.items():
        if not isinstance(name, str) or name not in declared:
            raise ValueError(
                f"{where}: {name!r:.80} is not a parameter of {stem}; its parameters are: {', '.join(declared)}"
            )
        default = ast.literal_eval(declared[name])
        kind, expected = _kind(value), _kind(default)
        allowed = {
            "int": {"int"},
            "float": {"int", "float"},
            "none": {"bool", "int", "float", "str", "list"},
        }.get(expected, {expected})
        if kind not in allowed:
            raise ValueError(
                f"{where}: parameters[{name!r}] must be {' or '.join(sorted(allowed))} like its default {declared[name]}; "
                f"got {value!r:.80} of type {type(value).__name__}"
            )
        items = list(value) if kind == "list" else [value]
        if kind == "list" and len(items) > MAX_PARAMETER_ITEMS:
            raise ValueError(
                f"{where}: parameters[{name!r}] must hold at most {MAX_PARAMETER_ITEMS} items; got {len(items)}"
            )
        for item in items:
            if _kind(item) not in ("bool", "int", "float", "str"):
                raise ValueError(
                    f"{where}: parameters[{name!r}] must hold numbers or text; got an item {item!r:.80} of "
                    f"type {type(item).__name__}"
                )
            if isinstance(item, float) and not math.isfinite(item):
                raise ValueError(f"{where}: parameters[{name!r}] must be finite; got {item!r}")
            if isinstance(item, str) and len(item) > MAX_PARAMETER_TEXT:
                raise ValueError(
                    f"{where}: parameters[{name!r}] must be text of at most {MAX_PARAMETER_TEXT} characters; "
                    f"got {len(item)}"
                )
        checked[name] = list(value) if kind == "list" else value
    return checked


def parameters_source(parameters: dict) -> str:
    """The injected-parameters cell for :func:`_check_parameters`' result: one ``name = literal`` line each.

    Each literal is ``repr(value)``, checked to evaluate back to the value (``ast.literal_eval``).
    """
    if not isinstance(parameters, dict):
        raise TypeError(
            f"parameters must be a dict of parameter -> value; got {type(parameters).__name__}"
        )
    lines = []
    for name, value in parameters.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"parameters: {name!r:.80} is not an identifier")
        literal = repr(value)
        try:
            same = ast.literal_eval(literal) == value
        except (ValueError, SyntaxError):
            same = False
        if not same:
            raise ValueError(
                f"parameters[{name!r}]={value!r:.80} is not a literal that evaluates back to itself"
            )
        lines.append(f"{name} = {literal}")
    return "# Parameters (injected by ldp_tools.pipeline.reproduce)\n" + "\n".join(lines) + "\n"


#: the profile's top-level key that is not a notebook: the extra seeds of the robustness pass
ROBUSTNESS_KEY = "robustness_seeds"


def robustness_seeds(name: str) -> list[int]:
    """The profile's ``robustness_seeds`` (distinct integers ≥ 0), or [] when it lists none."""
    path = _profile_path(name)
    raw, lines = _read_yaml(path)
    seeds = raw.get(ROBUSTNESS_KEY, []) if isinstance(raw, dict) else []
    where = f"{path.name}:{lines.get(ROBUSTNESS_KEY, '?')}"
    if (
        not isinstance(seeds, list)
        or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in seeds)
        or len(set(seeds)) != len(seeds)
        or len(seeds) > MAX_PARAMETER_ITEMS
    ):
        raise ValueError(
            f"{where}: {ROBUSTNESS_KEY} must be a list of distinct integers >= 0; got {seeds!r:.80}"
        )
    return list(seeds)


def load_profile(name: str) -> dict[str, dict]:
    """Read and validate a profile: every notebook and parameter it names must exist.

    Returns a mapping ``stem -> {parameter: value}`` with an entry for every notebook.
    """
    path = _profile_path(name)
    raw, lines = _read_yaml(path)
    if not isinstance(raw, dict):
        raise ValueError(f"{path.name}: must be a mapping from notebook name to parameters")
    stems = paths._notebook_stems()
    profile = {stem: {} for stem in stems}
    for stem, params in raw.items():
        if stem == ROBUSTNESS_KEY:
            continue  # not a notebook: read by robustness_seeds()
        if stem not in stems:
            raise ValueError(
                f"{path.name}: unknown notebook {stem!r}; valid names: {', '.join(stems)}"
            )
        params = params or {}
        if not isinstance(params, dict):
            raise ValueError(
                f"{path.name}:{lines.get(stem, '?')}: the entry for {stem} must be a mapping of parameters"
            )
        empty = [p for p, v in params.items() if v is None]
        if empty:
            raise ValueError(
                f"{path.name}:{lines.get((stem, empty[0]), '?')}: parameter {empty[0]} of {stem} has no value "
                "(a truncated or garbled profile?)"
            )
        profile[stem] = _check_parameters(
            stem, params, where=f"{path.name}:{lines.get(stem, '?')} ({stem})"
        )
    return profile


def _profile_path(name: str) -> Path:
    """``notebooks/profiles/<name>.yaml`` for a profile that exists (no other path can be named)."""
    valid = profile_names()
    if not isinstance(name, str) or name not in valid:
        raise ValueError(
            f"unknown profile {name!r}; valid profiles: {', '.join(valid)} (name must be one of them)"
        )
    return paths.PROFILES_DIR / f"{name}.yaml"


def _check_events(path: Path, text: str) -> None:
    """Refuse anchors and aliases (``&a`` / ``*a``: a 357-byte alias bomb expands exponentially) and nesting deeper
    than MAX_PROFILE_DEPTH (PyYAML composes recursively), from the parser's flat event stream, before composing."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        line = f"{path.name}:{event.start_mark.line + 1}"
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise ValueError(
                f"{line}: anchors and aliases (&name, *name) are not allowed in a profile"
            )
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_PROFILE_DEPTH:
                raise ValueError(
                    f"{line}: mappings and lists nested deeper than MAX_PROFILE_DEPTH = {MAX_PROFILE_DEPTH}"
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _read_yaml(path: Path) -> tuple[object, dict]:
    """The document and the line of each key (``stem`` or ``(stem, parameter)``); refuses truncated or garbled files.

    All or nothing: a YAML error, a file that does not end with a newline (cut off mid-line) or
    one over MAX_PROFILE_BYTES is refused with its file and line, never half-read.
    """
    text = read_text_file("profile", path, max_bytes=MAX_PROFILE_BYTES)  # a regular file, UTF-8
    if text and not text.endswith("\n"):
        raise ValueError(
            f"{path.name}:{text.count(chr(10)) + 1}: the file ends mid-line (truncated?)"
        )
    try:
        _check_events(path, text)  # before any node is built: no alias bomb, no recursion
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        raw = yaml.safe_load(text) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise ValueError(
            f"{path.name}{where}: not valid YAML ({getattr(err, 'problem', None) or err})"
        ) from None
    lines = {}
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            lines[key.value] = key.start_mark.line + 1
            if isinstance(value, yaml.MappingNode):
                lines.update({(key.value, k.value): k.start_mark.line + 1 for k, _ in value.value})
    return raw, lines
