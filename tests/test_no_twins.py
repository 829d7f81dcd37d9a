"""No twins: a public function is not written twice as a checking ``f`` and a trusting ``_f`` (issue 35.2).

"Validate once" had been met by doubling functions: a public ``f`` that checks its arguments and a
private ``_f`` that computes the same thing without the checks, for the package's own callers.  One
function is enough: it checks at the top (the checks are cheap) or the caller that is public checks.
These tests scan the package's source with :mod:`ast`: module-level functions, and class methods.
"""

from __future__ import annotations

import ast
from pathlib import Path

from test_public_surface import MAX_PRIVATE_CROSS_IMPORTS, private_cross_imports

import ldp_helpers

ROOT = Path(ldp_helpers.__file__).parent.parent
PACKAGES = (ROOT / "ldp_helpers", ROOT / "ldp_tools")

#: pairs that stay, each with its reason (``module: name``, name the public one)
ALLOWED = {
    # the private one is the lru_cache over the canonical key (structure as a tuple, hash_family
    # blanked where the oracle ignores it) that build_oracle computes: a memo, not a second recipe
    "ldp_helpers/experiments/field_oracles.py: build_oracle",
    # the event search evaluates up to ~30,000 candidate events on one checked pilot matrix: checking
    # (a float copy and a finiteness pass of the whole matrix) per candidate would multiply its cost
    "ldp_helpers/audit/events.py: Event.mask",
    # not twins: the public method returns the private cached_property (the table is computed once
    # per object, its allocation checked there)
    "ldp_helpers/mechanisms/count_mean_sketch.py: CountMeanSketch.hash_table",
    "ldp_helpers/mechanisms/fast_local_hashing.py: FastLocalHashing.hash_table",
}


def twins(source: str) -> list[str]:
    """``name`` for every public function (``Class.name`` for a method) with a private ``_name`` beside it."""
    found = []
    tree = ast.parse(source)
    scopes = [("", tree.body)] + [
        (node.name + ".", node.body) for node in tree.body if isinstance(node, ast.ClassDef)
    ]
    for prefix, body in scopes:
        names = {n.name for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        found += [prefix + n for n in sorted(names) if not n.startswith("_") and "_" + n in names]
    return found


def package_twins() -> list[str]:
    return [
        f"{path.relative_to(ROOT).as_posix()}: {name}"
        for path in sorted(p for package in PACKAGES for p in package.rglob("*.py"))
        for name in twins(path.read_text(encoding="utf-8"))
    ]


def test_no_function_has_a_private_twin():
    """No module defines both ``f`` and ``_f`` (nor a class both ``m`` and ``_m``) beyond the justified ones."""
    found = package_twins()
    assert not set(found) - ALLOWED, "twins:\n" + "\n".join(sorted(set(found) - ALLOWED))
    assert not ALLOWED - set(found), f"allowed pairs that are gone: {sorted(ALLOWED - set(found))}"


def test_the_scan_sees_a_twin():
    """The scan can fail: a module-level pair and a method pair are found, lookalike names are not."""
    source = """
def g(x):
    return _g(check(x))
def _g(x):
    return x
def h_table():
    pass
class Event:
    def mask(self, m):
        return self._mask(m)
    def _mask(self, m):
        return m
"""
    assert twins(source) == ["g", "Event.mask"]


def test_no_private_twin_is_imported_across_subpackages():
    """Private names cross subpackages at most MAX_PRIVATE_CROSS_IMPORTS times (test_public_surface
    counts them), and none of them is the private twin of a public function of its module (a caller
    in another subpackage calls the public one)."""
    found = private_cross_imports()
    assert len(found) <= MAX_PRIVATE_CROSS_IMPORTS, "\n".join(found)
    twin_imports = []
    for entry in found:
        module, name = entry.split(" ", 1)[1].rsplit(".", 1)
        path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
        if path.exists() and name[1:] in twins(path.read_text(encoding="utf-8")):
            twin_imports.append(entry)
    assert not twin_imports, "\n".join(twin_imports)
