"""The protocols' registry entries: the tutorial's named protocols that are mechanisms of the contract.

Each protocol module that has a mechanism under the contract of
:class:`~ldp_helpers.mechanisms.base.Mechanism` (one user's whole report, an exact output table
on a small example, a per-user client, an exact aggregate sampler) lists its
:class:`~ldp_helpers.mechanisms.registry.RegistryEntry` objects in a module-level ``ENTRIES``.
:data:`PROTOCOL_REGISTRY` collects them; :data:`ALL_MECHANISMS` is the mechanisms' registry plus
these, which ``tests/mechanisms/test_conformance.py`` runs the conformance suite over.  (The mechanisms'
registry cannot list them itself: protocols build on mechanisms, never the other way round.)
"""

from __future__ import annotations

from ldp_helpers.mechanisms.registry import REGISTRY, RegistryEntry
from ldp_helpers.protocols import personalized, set_valued, sfp

_MODULES: tuple = (
    personalized,
    set_valued,
    sfp,
)  # protocol modules with an ENTRIES list, appended as they land

#: the protocols' entries, by key
PROTOCOL_REGISTRY: dict[str, RegistryEntry] = {
    entry.key: entry for module in _MODULES for entry in module.ENTRIES
}

if set(PROTOCOL_REGISTRY) & set(
    REGISTRY
):  # pragma: no cover - a programming error, caught at import
    raise RuntimeError(
        f"protocol keys clash with mechanism keys: {sorted(set(PROTOCOL_REGISTRY) & set(REGISTRY))}"
    )

#: every mechanism of the collection and every protocol registered under the contract
ALL_MECHANISMS: dict[str, RegistryEntry] = {**REGISTRY, **PROTOCOL_REGISTRY}
