"""The tutorial's named protocols built on the mechanisms: heavy hitters, set-valued data, SFP, PCEP."""

__all__ = [
    "expander_code",
    "expander_sketch",
    "heavy_hitters",
    "itemset_mining",
    "personalized",
    "registry",
    "set_valued",
    "sfp",
    "sketch_heavy_hitters",
    "taxonomy",
]
