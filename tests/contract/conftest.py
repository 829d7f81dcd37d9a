"""Hypothesis profile of the contract suite: deterministic, a fixed example budget, no database.

``derandomize=True`` makes every run draw the same examples (CI is reproducible without an example
database).  Every parameter of every spec'd callable gets its kind's fixed special bad values, each of them
(``test_every_special_bad_value_is_refused``), plus :data:`EXAMPLES_PER_PARAMETER` generated ones.
The generated tests run one test per family (``harness.families``); the calls that write figures resolve
figures/ under the test's tmp dir (``harness.figures_in``).  No
wall-clock limit: timings belong to ``make bench`` (a hang still fails, see ``harness.HARD_TIMEOUT``).
"""

from hypothesis import HealthCheck, settings

#: generated bad values per parameter, beyond the fixed special ones
EXAMPLES_PER_PARAMETER = 5

settings.register_profile(
    "contract",
    derandomize=True,
    database=None,
    max_examples=EXAMPLES_PER_PARAMETER,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.filter_too_much,
    ],
    print_blob=True,
)
settings.load_profile("contract")


import pytest  # noqa: E402

from ldp_tools.pipeline import paths  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def _figures_untouched():
    """The figure specs' files (figures/00_tutorial/fig.png, .pdf) are never created in the committed figures/."""
    stray = [paths.REPO_ROOT / "figures" / "00_tutorial" / f"fig.{ext}" for ext in ("png", "pdf")]
    before = {p for p in stray if p.exists()}
    claims = (
        paths.REPO_ROOT / "figures" / "00_tutorial" / "claims.csv"
    )  # ClaimsTable.write_csv's target
    claims_before = claims.read_bytes() if claims.exists() else None
    yield
    created = [str(p.relative_to(paths.REPO_ROOT)) for p in stray if p.exists() and p not in before]
    assert not created, f"the contract suite wrote into figures/: {created}"
    assert (claims.read_bytes() if claims.exists() else None) == claims_before, (
        f"the contract suite rewrote {claims}"
    )
