"""The public surface is decided: each package's ``__all__`` (issue 35.2).

Every package of ``ldp_helpers`` and ``ldp_tools`` lists its public names in ``__all__`` and every listed name resolves;
a science subpackage lists each of its modules not named ``_*`` (a new module is a decision); the
notebooks and the explorer app import only public names; and private names (``_*``) are imported
across subpackages at most :data:`MAX_PRIVATE_CROSS_IMPORTS` times (a private helper trusts its
callers, who live beside it).
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
from pathlib import Path

import pytest

import ldp_helpers
import ldp_tools

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(ldp_helpers.__file__).parent
SCIENCE = ["mechanisms", "bounds", "protocols", "simulate", "estimation", "experiments", "audit"]
MAX_PRIVATE_CROSS_IMPORTS = 10
#: the science and the tooling beside it
TOPS = ("ldp_helpers", "ldp_tools")
PACKAGES = [
    name
    for top in (ldp_helpers, ldp_tools)
    for name in [top.__name__]
    + [
        info.name
        for info in pkgutil.walk_packages(top.__path__, top.__name__ + ".")
        if info.ispkg and not any(part.startswith("_") for part in info.name.split("."))
    ]
]


def _resolves(package: str, name: str) -> bool:
    module = importlib.import_module(package)
    if hasattr(module, name):
        return True
    try:
        importlib.import_module(f"{package}.{name}")
    except ModuleNotFoundError:
        return False
    return True


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_lists_its_public_names_and_each_resolves(package):
    names = importlib.import_module(package).__dict__.get("__all__")
    assert isinstance(names, (list, tuple)) and names, f"{package} has no __all__"
    assert len(set(names)) == len(names), f"{package}.__all__ repeats a name"
    assert not [n for n in names if n.startswith("_")], f"{package}.__all__ lists a private name"
    missing = [n for n in names if not _resolves(package, n)]
    assert not missing, f"{package}.__all__ names what does not exist: {missing}"


@pytest.mark.parametrize("sub", SCIENCE)
def test_every_science_module_is_decided(sub):
    modules = {p.stem for p in (PACKAGE / sub).glob("*.py") if not p.stem.startswith("_")}
    listed = set(importlib.import_module(f"ldp_helpers.{sub}").__all__)
    assert modules <= listed, f"ldp_helpers.{sub}.__all__ misses {sorted(modules - listed)}"


def _is_package(name: str) -> bool:
    return hasattr(importlib.import_module(name), "__path__")


def _non_public_imports(source: str) -> list[str]:
    """``from P import a`` with ``a`` not public: not in P's ``__all__`` for a package (the top level also
    gives its subpackages), named ``_*`` for a module; and any ``_*`` part of an imported module's path."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            bad += [a.name for a in node.names if a.name.split(".")[0] in TOPS and "._" in a.name]
        if not (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in TOPS):
            continue
        if "._" in node.module:
            bad.append(node.module)
            continue
        public = importlib.import_module(node.module).__dict__.get("__all__")
        for alias in node.names:
            name = alias.name
            if name.startswith("_"):
                bad.append(f"{node.module}.{name}")
            elif _is_package(node.module) and name not in public:
                if (
                    node.module != "ldp_helpers"
                    or not (PACKAGE / name).exists()
                    and not (PACKAGE / f"{name}.py").exists()
                ):
                    bad.append(f"{node.module}.{name}")
    return bad


def _notebook_sources() -> dict[str, str]:
    sources = {p.name: p.read_text(encoding="utf-8") for p in sorted(ROOT.glob("notebooks/*.py"))}
    for app in sorted(ROOT.glob("app/*.ipynb")):
        cells = json.loads(app.read_text(encoding="utf-8"))["cells"]
        sources[app.name] = "\n".join(
            "".join(c["source"]) for c in cells if c["cell_type"] == "code"
        )
    return sources


def test_notebooks_and_the_app_import_only_public_names():
    sources = _notebook_sources()
    assert len(sources) >= 9
    bad = {name: found for name, src in sources.items() if (found := _non_public_imports(src))}
    assert not bad, f"non-public imports: {bad}"


def test_the_import_check_sees_a_private_import():
    """The check above can fail: a private name, a private module, a package name not in __all__."""
    assert _non_public_imports("from ldp_helpers.mechanisms.grr import _grr_probabilities") == [
        "ldp_helpers.mechanisms.grr._grr_probabilities"
    ]
    assert _non_public_imports("from ldp_tools.explore import oracles") == [
        "ldp_tools.explore.oracles"
    ]
    assert _non_public_imports("from ldp_tools.explore._controls import x")
    assert not _non_public_imports(
        "from ldp_helpers import GRR, teaching\nimport ldp_helpers.bounds"
    )


def private_cross_imports() -> list[str]:
    """Every ``from ... import _name`` in the packages whose module is in another subpackage than the
    importer (absolute or relative; the bottom modules ``ldp_helpers._*`` are shared by all and not
    counted; a tooling module importing a private name of the science counts)."""
    found = []
    paths = sorted(p for top in TOPS for p in (ROOT / top).rglob("*.py"))
    for path in paths:
        parts = path.relative_to(ROOT).with_suffix("").parts
        here = list(parts[:-1]) + ([] if parts[-1] == "__init__" else [parts[-1]])
        own = parts[:2] if len(parts) > 2 else None
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = here if parts[-1] == "__init__" else here[:-1]
                package = base[: len(base) - node.level + 1]
                module = ".".join(package + [node.module] if node.module else package)
            else:
                module = node.module or ""
            target = tuple(module.split(".")[:2])
            if (
                target[0] not in TOPS
                or len(target) < 2
                or target[1].startswith("_")
                or target == own
            ):
                continue
            found += [
                f"{path.relative_to(ROOT).as_posix()}:{node.lineno} {module}.{a.name}"
                for a in node.names
                if a.name.startswith("_") and not a.name.startswith("__")
            ]
    return found


def test_private_names_are_rarely_imported_across_subpackages():
    found = private_cross_imports()
    assert len(found) <= MAX_PRIVATE_CROSS_IMPORTS, "\n".join(found)


def test_the_map_lists_each_package_s_public_names():
    """docs/reference.md ("Public surface", the README's reference) lists every package's ``__all__``."""
    text = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    block = text.split("### Public surface", 1)[1].split("\n### ", 1)[0]
    entries = {}
    for item in block.split("\n- `")[1:]:
        key, names = item.split("`:", 1)
        key = key if key.split(".")[0] in TOPS else "ldp_helpers." + key
        entries[key] = [n.strip() for n in " ".join(names.split()).split(",")]
    for package in PACKAGES[1:]:
        assert entries.get(package) == list(importlib.import_module(package).__all__), package
