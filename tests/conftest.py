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


@pytest.fixture(autouse=True, scope="session")
def _committed_figures_untouched():
    """No test writes into the committed figures/ (tests that save point the figures folder at a tmp dir)."""
    from ldp_helpers.pipeline.paths import REPO_ROOT

    folder = REPO_ROOT / "figures"

    def snapshot():
        return {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}

    before = snapshot()
    yield
    after = snapshot()
    changed = sorted(str(p.relative_to(REPO_ROOT)) for p in after if before.get(p) != after[p])
    assert not changed, f"the test session wrote into the committed figures/: {changed}"
