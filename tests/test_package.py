"""The top-level package re-exports its public names, lazily, and the layers import one way."""

import ast
import importlib
from pathlib import Path

import pytest

import ldp_helpers

PACKAGE = Path(ldp_helpers.__file__).parent
#: top to bottom: a module imports only from its own layer or the layers after it, with no exception.
#: The tooling (explore, pipeline, peers) stands apart: nothing below it imports it.
TOOLING = ["explore", "pipeline", "peers"]
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
BOTTOM = ["_files", "_validation", "_paths"]
LAYERS = TOOLING + SCIENCE + BOTTOM
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


def _layer(module: str) -> int:
    relative = module.removeprefix("ldp_helpers.")
    matches = [layer for layer in LAYERS if relative == layer or relative.startswith(layer + ".")]
    assert len(matches) == 1, f"{module} belongs to no layer of {LAYERS}: add it to one"
    return LAYERS.index(matches[0])


def _imported_modules(node: ast.ImportFrom) -> list[str]:
    """``from a.b import c`` imports module a.b.c when c is a submodule, else module a.b."""
    folder = PACKAGE.joinpath(*node.module.split(".")[1:])
    subs = [
        f"{node.module}.{alias.name}"
        for alias in node.names
        if (folder / f"{alias.name}.py").exists()
    ]
    return subs or [node.module]


def test_imports_point_one_way():
    """No module imports from a layer above its own, with no exception (tooling → science → bottom)."""
    violations = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "__init__.py":
            continue
        module = "ldp_helpers." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("ldp_helpers.")
            ):
                for imported in _imported_modules(node):
                    if _layer(imported) < _layer(module):
                        violations.append(f"{module} imports {imported}")
    assert not violations, "\n".join(violations)


def test_every_module_has_a_layer():
    """A new subpackage or top-level module must be placed in LAYERS (so the layer test sees it)."""
    for path in PACKAGE.rglob("*.py"):
        if path != PACKAGE / "__init__.py":
            _layer(
                "ldp_helpers."
                + ".".join(path.relative_to(PACKAGE).with_suffix("").parts).removesuffix(
                    ".__init__"
                )
            )


def test_the_science_loads_no_tooling():
    """In a fresh interpreter, importing ldp_helpers, every module of the science and the public
    names loads none of the notebook, widget, cluster or browser stacks (nor their helpers)."""
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
        "import sys, importlib, ldp_helpers\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "[getattr(ldp_helpers, n) for n in ldp_helpers.__all__]\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert len(modules) > 40 and out.strip() == "[]", f"the science loaded {out.strip()}"
