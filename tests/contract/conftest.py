"""Hypothesis profile of the contract suite: deterministic, a fixed example budget, no database.

``derandomize=True`` makes every run draw the same examples (CI is reproducible without an example
database); ``max_examples`` is fixed so the whole suite takes about a minute on one core.
"""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "contract",
    derandomize=True,
    database=None,
    max_examples=25,
    deadline=1000,  # ms: every refusal must come back within a second
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
    print_blob=True,
)
settings.load_profile("contract")
