"""The top-level package re-exports its public names, lazily, and the layers import one way."""

import ast
import importlib
from pathlib import Path

import pytest

import ldp_helpers

PACKAGE = Path(ldp_helpers.__file__).parent
# a module may import only from its own layer or the layers listed after it
LAYERS = ["explore", "pipeline", "experiments", "audit", "protocols", "bounds", "estimation.rappor_decoding", "mechanisms",
          "simulate", "estimation", "_validation", "pipeline.paths"]


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
    return LAYERS.index(max(matches, key=len))  # the most specific layer (pipeline.paths is the bottom)


def _imported_modules(node: ast.ImportFrom) -> list[str]:
    """``from a.b import c`` imports module a.b.c when c is a submodule, else module a.b."""
    folder = PACKAGE.joinpath(*node.module.split(".")[1:])
    subs = [f"{node.module}.{alias.name}" for alias in node.names if (folder / f"{alias.name}.py").exists()]
    return subs or [node.module]


def test_imports_point_one_way():
    """No module imports from a layer above its own (pipeline and experiments sit above mechanisms and bounds)."""
    violations = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "__init__.py":
            continue
        module = "ldp_helpers." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ldp_helpers."):
                for imported in _imported_modules(node):
                    if _layer(imported) < _layer(module):
                        violations.append(f"{module} imports {imported}")
    assert not violations, "\n".join(violations)


def test_modules_are_small():
    """No module of the package is much over 300 lines (one family or one paper per module)."""
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > 330}
    assert not long, f"modules over 330 lines: {long}"
