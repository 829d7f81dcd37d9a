"""Shared fixtures: a named-seed Generator and a clean matplotlib state for every test."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

SEED = 20261121


@pytest.fixture
def rng():
    """A fresh Generator with the suite's fixed seed (tests never share random streams)."""
    return np.random.default_rng(SEED)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")
