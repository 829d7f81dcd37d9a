"""The theoretical bounds, one module per paper (its key), each named quantity a short function."""

__all__ = [
    "chernoff",
    "extremes",
    "glance",
    "grr_vs_oue",
    "m_shot",
    "rappor",
    "shuffle",
    "shuffle_accuracy",
    "shuffle_bounds",
    "tutorial",
    "wang2017",
]
