"""The top-level package re-exports its public names, lazily, and the layers import one way.

Two packages: the science (``ldp_helpers``) and the tooling beside it (``ldp_tools``), which imports
the science and is never imported by it.
"""

import ast
import importlib
from pathlib import Path

import pytest

import ldp_helpers
import ldp_tools

PACKAGE = Path(ldp_helpers.__file__).parent
TOOLS = Path(ldp_tools.__file__).parent
ROOT = PACKAGE.parent
#: top to bottom: a module imports only from its own layer or the layers after it, with no exception.
#: The tooling (ldp_tools: explore, pipeline, peers) stands apart: nothing in ldp_helpers imports it.
TOOLING = ["ldp_tools.explore", "ldp_tools.pipeline", "ldp_tools.peers"]
SCIENCE = [
    "teaching",
    "experiments",
    "audit",
    "sweeps",
    "interop",
    "protocols",
    "bounds",
    "estimation",
    "mechanisms",
    "simulate",
]
BOTTOM = ["_files", "_validation", "_numeric", "_paths"]
LAYERS = TOOLING + [f"ldp_helpers.{layer}" for layer in SCIENCE + BOTTOM]
#: the science core: ``import ldp_helpers`` and these subpackages load none of :data:`HEAVY`
CORE = ["mechanisms", "simulate", "estimation", "bounds", "protocols"]
HEAVY = (
    "matplotlib",
    "ipywidgets",
    "papermill",
    "nbformat",
    "nbclient",
    "jupytext",
    "dask",
    "distributed",
    "voila",
    "selenium",
    "IPython",
    "tqdm",
    "yaml",
)


@pytest.mark.parametrize("name", ldp_helpers.__all__)
def test_every_export_resolves(name):
    """Each name of __all__ is importable from the top level and is the module's own object."""
    value = getattr(ldp_helpers, name)
    module = importlib.import_module(ldp_helpers._MODULE_OF[name])
    assert value is getattr(module, name)


def test_unknown_name_is_an_attribute_error():
    """A misspelt name fails as an AttributeError naming it."""
    with pytest.raises(AttributeError, match="no_such_name"):
        ldp_helpers.no_such_name  # noqa: B018


def _modules(package: Path) -> list[tuple[Path, str]]:
    """Every module file of ``package`` (not its ``__init__``) with its dotted name."""
    return [
        (path, ".".join(path.relative_to(ROOT).with_suffix("").parts))
        for path in sorted(package.rglob("*.py"))
        if path != package / "__init__.py"
    ]


def _layer(module: str) -> int:
    module = module.removesuffix(".__init__")
    matches = [layer for layer in LAYERS if module == layer or module.startswith(layer + ".")]
    assert len(matches) == 1, f"{module} belongs to no layer of {LAYERS}: add it to one"
    return LAYERS.index(matches[0])


def _imported_modules(node: ast.ImportFrom) -> list[str]:
    """``from a.b import c`` imports module a.b.c when c is a submodule, else module a.b."""
    folder = ROOT.joinpath(*node.module.split("."))
    subs = [
        f"{node.module}.{alias.name}"
        for alias in node.names
        if (folder / f"{alias.name}.py").exists()
    ]
    return subs or [node.module]


def test_imports_point_one_way():
    """No module imports from a layer above its own, with no exception (tooling → science → bottom)."""
    violations = []
    for path, module in _modules(PACKAGE) + _modules(TOOLS):
        if path.name == "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith(("ldp_helpers.", "ldp_tools."))
            ):
                for imported in _imported_modules(node):
                    if _layer(imported) < _layer(module):
                        violations.append(f"{module} imports {imported}")
    assert not violations, "\n".join(violations)


def _tooling_imports(source: str) -> list[str]:
    """Every import of ``ldp_tools`` in ``source``: ``import``, ``from … import`` (absolute) or a
    string handed to ``importlib.import_module`` / ``__import__``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "ldp_tools"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "ldp_tools":
            found.append(node.module)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).split(".")[0] == "ldp_tools"
        ):
            found.append(node.args[0].value)
    return found


def test_the_science_never_imports_the_tooling():
    """Imports one way between the packages: no module of ldp_helpers (its ``__init__`` files
    included) imports ldp_tools, in any form."""
    found = {
        module: hits
        for path, module in _modules(PACKAGE) + [(PACKAGE / "__init__.py", "ldp_helpers")]
        if (hits := _tooling_imports(path.read_text()))
    }
    assert len(_modules(PACKAGE)) > 100 and not found, f"the science imports the tooling: {found}"


def test_the_tooling_import_check_can_fail():
    """The scan above sees each form of import (a synthetic source), and not a mere mention."""
    source = (
        "import ldp_tools\nimport ldp_tools.pipeline as p\nfrom ldp_tools.explore import panels\n"
        "import importlib\nimportlib.import_module('ldp_tools.peers')\n"
        "from ldp_helpers import GRR\nx = 'ldp_tools is beside us'\n"
    )
    assert _tooling_imports(source) == [
        "ldp_tools",
        "ldp_tools.pipeline",
        "ldp_tools.explore",
        "ldp_tools.peers",
    ]


def test_every_module_has_a_layer():
    """A new subpackage or top-level module must be placed in LAYERS (so the layer test sees it)."""
    for _, module in _modules(PACKAGE) + _modules(TOOLS):
        _layer(module)


def test_the_science_loads_no_tooling():
    """In a fresh interpreter, importing ldp_tools (the tooling's package alone), ldp_helpers, every
    module of the science and the public names loads none of the notebook, widget, cluster or
    browser stacks (nor their helpers)."""
    import subprocess
    import sys

    modules = sorted(
        "ldp_helpers."
        + ".".join(p.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
        for layer in SCIENCE
        for p in PACKAGE.glob(f"{layer}/**/*.py")
        if p.name != "__init__.py"
    )
    modules += [f"ldp_helpers.{layer}" for layer in SCIENCE if (PACKAGE / f"{layer}.py").exists()]
    code = (
        "import sys, importlib, ldp_tools, ldp_helpers\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "[getattr(ldp_helpers, n) for n in ldp_helpers.__all__]\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert len(modules) > 40 and out.strip() == "[]", f"the science loaded {out.strip()}"
