"""One driver module per notebook: each paper's settings named once, parameter grid → arrays."""

__all__ = [
    "common",
    "field_deployments",
    "field_oracles",
    "glance",
    "grr_vs_oue",
    "heavy_hitter_scaling",
    "m_shot",
    "privacy_audit",
    "rappor",
    "tutorial",
    "tutorial_protocols",
]
