"""Coverage cannot rot: every public callable and method of every public module has a spec (or a stated reason not to).

A function, class or alternate constructor (classmethod/staticmethod) added to the package without
an entry in ``specs.SPECS`` (or ``RECORDS``, ``ABSTRACT``, ``CLI``, or a ``PENDING`` module) fails
here, so it cannot escape the bad-input properties; so does a public instance method without an entry
in ``method_specs.METHOD_SPECS`` (``test_methods.py`` probes them).  The registry's mechanisms and the protocols'
are covered by ``test_registry_contract.py``, which enumerates ``ALL_MECHANISMS`` itself.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import ldp_helpers
import ldp_tools
from ldp_helpers.mechanisms.base import FrequencyOracle, Mechanism, PureFrequencyOracle
from ldp_helpers.protocols.registry import ALL_MECHANISMS

from .harness import resolve
from .method_specs import METHOD_SPECS
from .specs import ABSTRACT, CLI, PENDING, RECORDS, SPECS


def _pending(qualname: str) -> bool:
    return any(qualname == p or qualname.startswith(p + ".") for p in PENDING)


def public_callables() -> list[str]:
    """Qualified names of the public API (the science's and the tooling's): module-level callables and
    their public alternate constructors."""
    names = []
    infos = [
        info
        for top in (ldp_helpers, ldp_tools)
        for info in pkgutil.walk_packages(top.__path__, top.__name__ + ".")
    ]
    for info in infos:
        if any(part.startswith("_") for part in info.name.split(".")[1:]) or _pending(info.name):
            continue
        module = importlib.import_module(info.name)
        for attr, value in vars(module).items():
            if (
                attr.startswith("_")
                or not callable(value)
                or getattr(value, "__module__", None) != info.name
            ):
                continue
            names.append(f"{info.name}.{attr}")
            if inspect.isclass(value):
                for meth, raw in vars(value).items():
                    if not meth.startswith("_") and isinstance(raw, (classmethod, staticmethod)):
                        names.append(f"{info.name}.{attr}.{meth}")
    return sorted(names)


#: the mechanisms' contract methods (of the base classes), probed over ALL_MECHANISMS by test_registry_contract.py
CONTRACT_METHODS = {
    name
    for cls in (Mechanism, FrequencyOracle, PureFrequencyOracle)
    for name in vars(cls)
    if not name.startswith("_")
}


def public_methods() -> list[str]:
    """Qualified names of the public instance methods of every public class (not exceptions, not abstract bases).

    Properties take no input and are skipped; so are a mechanism's contract methods (``CONTRACT_METHODS``),
    which ``test_registry_contract.py`` probes over ``ALL_MECHANISMS``.  A method added later without an
    entry in ``method_specs.METHOD_SPECS`` fails ``test_every_public_method_has_a_spec``.
    """
    names = []
    for qualname in public_callables():
        cls = resolve(qualname)
        if not inspect.isclass(cls) or issubclass(cls, BaseException) or qualname in ABSTRACT:
            continue
        for meth, raw in vars(cls).items():
            if meth.startswith("_") or not inspect.isfunction(raw):
                continue
            if issubclass(cls, Mechanism) and meth in CONTRACT_METHODS:
                continue
            names.append(f"{qualname}.{meth}")
    return sorted(names)


def test_every_public_method_has_a_spec():
    missing = [name for name in public_methods() if name not in METHOD_SPECS and not _pending(name)]
    assert not missing, (
        "public methods without a contract spec (add them to tests/contract/method_specs.py):\n"
        + "\n".join(missing)
    )


def test_no_stale_method_specs():
    stale = sorted(set(METHOD_SPECS) - set(public_methods()))
    assert not stale, f"method specs for names that no longer exist: {stale}"


def test_every_public_callable_has_a_spec():
    covered = set(SPECS) | RECORDS | ABSTRACT | CLI
    missing = [name for name in public_callables() if name not in covered and not _pending(name)]
    assert not missing, (
        "public callables without a contract spec (add them to tests/contract/specs.py):\n"
        + "\n".join(missing)
    )


def test_no_stale_specs():
    """Every spec names something that exists (a renamed function must move its spec too)."""
    api = set(public_callables())
    stale = sorted(set(SPECS) - api)
    assert not stale, f"specs for names that no longer exist: {stale}"


def test_every_registry_mechanism_is_probed():
    from .test_registry_contract import MECHANISM_KEYS

    assert set(MECHANISM_KEYS) == set(ALL_MECHANISMS)


def test_pending_names_an_issue():
    """PENDING is temporary: each entry says which issue owns it (the integrator empties it)."""
    assert all("issue" in why for why in PENDING.values())
