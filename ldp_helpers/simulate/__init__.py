"""Populations, streams and data sets with a known truth (the simulators' inputs)."""

__all__ = [
    "datasets",
    "itemsets",
    "populations",
    "streams",
    "survey",
]
