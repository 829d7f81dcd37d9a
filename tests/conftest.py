"""Shared fixtures: a named-seed Generator and a clean matplotlib state for every test."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

SEED = 20261121

#: the longest test files, longest first (seconds of wall in a `make test` on 2 idle cores: 144, 142,
#: 67, 63, 34).  Under `--dist loadfile` a file runs whole on one worker; xdist's default order (by
#: number of tests) left the 20-page browser test, two tests, for last, alone on one worker for over
#: two minutes while the other sat idle.  `make test` passes `--no-loadscope-reorder` to keep this order.
LONGEST_FIRST = (
    "tests/explore/test_explore_browser_pages.py",
    "tests/pipeline/test_book.py",
    "tests/pipeline/test_reseed.py",
    "tests/explore/test_explore_browser.py",
    "tests/bounds/test_shuffle_fixtures.py",
)


def pytest_collection_modifyitems(config, items):
    """Run the files of ``LONGEST_FIRST`` first, in that order; the rest keep their order."""
    missing = [path for path in LONGEST_FIRST if not (config.rootpath / path).is_file()]
    if missing:  # a renamed file would silently lose its place
        raise pytest.UsageError(f"tests/conftest.py LONGEST_FIRST names missing files: {missing}")
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


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
    from ldp_tools.pipeline.paths import REPO_ROOT

    folder = REPO_ROOT / "figures"

    def snapshot():
        return {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}

    before = snapshot()
    yield
    after = snapshot()
    changed = sorted(str(p.relative_to(REPO_ROOT)) for p in after if before.get(p) != after[p])
    assert not changed, f"the test session wrote into the committed figures/: {changed}"
