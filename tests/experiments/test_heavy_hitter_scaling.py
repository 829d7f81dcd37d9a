"""The heavy-hitter scaling driver (notebook 07): populations, one run per protocol, reproducible and independent arms,
and its figure."""

import numpy as np
import pytest

from ldp_helpers.experiments.heavy_hitter_scaling import (
    PROTOCOLS,
    Scaling,
    _population,
    _run,
    scaling_by_bits,
    scaling_by_n,
)
from ldp_tools.pipeline.plots.heavy_hitter_scaling import scaling_figure


def test_population_keeps_its_shape_as_the_domain_grows():
    """Zipf ranks at distinct random values: the same count profile whatever the domain (here 2^12 and 2^28)."""
    small = _population(20_000, 12, 1.5, 64, np.random.default_rng(1))
    large = _population(20_000, 28, 1.5, 64, np.random.default_rng(1))
    assert small.max() < 2**12 and large.max() < 2**28 and large.max() >= 2**12
    profile = [np.sort(np.unique(v, return_counts=True)[1])[::-1] for v in (small, large)]
    np.testing.assert_array_equal(profile[0][:5], profile[1][:5])


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_protocol_returns_at_most_k_values(protocol):
    values = _population(
        5_000, 12, 1.5, 2**12, np.random.default_rng(2)
    )  # every value of [0, 2^12) ranked
    found = _run(protocol, values, 12, 2.0, 5, np.random.default_rng(3))
    assert found.values.size <= 5 and found.values.size == found.estimates.size


def test_scaling_is_reproducible_and_its_arms_independent():
    """The same seed gives the same curves; dropping a protocol leaves the others' curves unchanged."""
    kwargs = dict(n_draws=2, k=5)
    every = scaling_by_n([2_000, 8_000], 12, 2.0, rng=np.random.default_rng(4), **kwargs)
    again = scaling_by_n([2_000, 8_000], 12, 2.0, rng=np.random.default_rng(4), **kwargs)
    some = scaling_by_n(
        [2_000, 8_000],
        12,
        2.0,
        rng=np.random.default_rng(4),
        protocols=["SFP", "Bitstogram"],
        **kwargs,
    )
    assert set(every.recall) == set(PROTOCOLS)
    for name in PROTOCOLS:
        np.testing.assert_array_equal(every.recall[name].mean, again.recall[name].mean)
    for name in ("SFP", "Bitstogram"):
        np.testing.assert_array_equal(every.error[name].mean, some.error[name].mean)
    np.testing.assert_array_equal(every.grid, [2_000, 8_000])


def test_scaling_by_bits_and_its_figure():
    by_bits = scaling_by_bits([8, 12], 4_000, 2.0, k=3, n_draws=2, rng=np.random.default_rng(5))
    by_n = scaling_by_n([2_000, 4_000], 12, 2.0, k=3, n_draws=2, rng=np.random.default_rng(6))
    assert isinstance(by_bits, Scaling) and list(by_bits.grid) == [8, 12]
    for curves in (by_bits.recall, by_bits.error):
        assert all(np.all((c.mean >= 0) & np.isfinite(c.se)) for c in curves.values())
    fig = scaling_figure(by_n, by_bits, epsilon=2.0, k=3, bits=12, n_users=4_000)
    axes = fig.get_axes()
    assert len(axes) == 4 and all(ax.get_ylabel() for ax in axes)
    assert axes[2].get_xlabel() and axes[3].get_xlabel()
    assert len(axes[0].get_legend().get_texts()) == len(PROTOCOLS)


@pytest.mark.parametrize(
    "call, name",
    [
        (
            lambda: scaling_by_bits([10], 4_000, 2.0, n_draws=2, rng=np.random.default_rng(0)),
            "bits_grid",
        ),
        (lambda: scaling_by_n([10], 12, 2.0, n_draws=2, rng=np.random.default_rng(0)), "n_grid"),
        (
            lambda: scaling_by_n(
                [100], 12, 2.0, n_draws=2, protocols=["OLH"], rng=np.random.default_rng(0)
            ),
            "protocols",
        ),
        (lambda: scaling_by_n([100], 12, 2.0, n_draws=1, rng=np.random.default_rng(0)), "n_draws"),
    ],
)
def test_bad_input_is_refused(call, name):
    with pytest.raises(ValueError, match=name):
        call()
