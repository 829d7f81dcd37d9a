"""environment.yml (the lock) and pyproject.toml (the ranges) describe the same environment."""

import re
import sys
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from ldp_tools.pipeline.paths import REPO_ROOT


def _pins():
    text = (REPO_ROOT / "environment.yml").read_text()
    pins = {}
    for name, version in re.findall(
        r"^ +- ([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)\s*$", text, flags=re.M
    ):
        key = canonicalize_name(name)
        assert key not in pins, f"{name} is pinned twice in environment.yml"
        pins[key] = version
    return text, pins


def test_every_direct_dependency_is_pinned_inside_its_range():
    """Each pyproject dependency has exactly one pin in environment.yml, and the pin satisfies the range."""
    _, pins = _pins()
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    deps = project["dependencies"] + [
        dep for extra in project["optional-dependencies"].values() for dep in extra
    ]
    for dep in map(Requirement, deps):
        key = canonicalize_name(dep.name)
        assert key in pins, (
            f"{dep.name} is declared in pyproject.toml but not pinned in environment.yml"
        )
        assert dep.specifier.contains(pins[key]), (
            f"{dep.name}=={pins[key]} is outside the range {dep.specifier}"
        )


def test_python_version_agrees():
    """Both files ask for Python 3.11, which is what runs the tests."""
    text, _ = _pins()
    assert re.search(r"^ +- python=3\.11\s*$", text, flags=re.M)
    requires = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"][
        "requires-python"
    ]
    assert ">=3.11" in requires and "<3.12" in requires
    assert sys.version_info[:2] == (3, 11)


def test_installed_versions_match_the_lock():
    """The running environment is the locked one (so figures are reproducible)."""
    from importlib.metadata import PackageNotFoundError, version

    _, pins = _pins()
    wrong = {}
    for name, pinned in pins.items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            wrong[name] = ("missing", pinned)
            continue
        if installed != pinned:
            wrong[name] = (installed, pinned)
    assert not wrong, f"installed != locked: {wrong}"


def test_the_lock_leaves_out_the_iri_parser():
    """rfc3987-syntax (with lark) is left out of the lock (environment.yml says why): it builds an Earley
    parser at import, 2 s of CPU in every process that imports jsonschema.  A lock pasted from a `pip
    freeze` brings it back; the running environment must not have it either (`make setup` uninstalls
    it after installing the lock), and jsonschema, nbformat and jupyter-events work without it."""
    from importlib.util import find_spec

    _, pins = _pins()
    assert not {"rfc3987-syntax", "lark"} & set(pins), (
        "remove rfc3987-syntax and lark from the lock"
    )
    assert find_spec("rfc3987_syntax") is None, (
        "rfc3987-syntax is installed: `.venv/bin/pip uninstall rfc3987-syntax lark`"
    )
    import jupyter_events  # noqa: F401  (its schemas validate without the optional "iri" checker)
    import nbformat

    nbformat.validate(nbformat.v4.new_notebook())
