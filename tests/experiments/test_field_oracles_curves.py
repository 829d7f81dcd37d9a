"""The curves and crossovers (``field_oracles.privacy_utility_curves``, ``crossovers``).

Held against [wang2017]'s exact variance of a pure oracle written out from p* and q* (proof of
Theorem 2), its approximation (Eq. 2), the root of the exact GRR–OUE difference written from the
papers' p* and q*, and Monte-Carlo surveys of a sketch's per-user client.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from ldp_helpers.experiments import field_oracles as fo
from ldp_helpers.mechanisms.base import PureFrequencyOracle
from ldp_helpers.simulate.populations import flat_counts

ONE_SHOT = fo.oracle_groups()["one-shot"]
LISTED = ONE_SHOT + fo.oracle_groups()["sketch"]


def wang_variance(p, q, counts):
    """[wang2017] proof of Theorem 2: Var[ĉ(i)] = (f_i p*(1−p*) + (n − f_i) q*(1−q*))/(p* − q*)²."""
    n = counts.sum()
    return (counts * p * (1 - p) + (n - counts) * q * (1 - q)) / (p - q) ** 2


def grr_oue_log_ratio(epsilon, counts):
    """ln(MSE_GRR / MSE_OUE) on ``counts``.

    GRR: p* = e^ε/(e^ε + d − 1), q* = 1/(e^ε + d − 1); OUE: p* = ½, q* = 1/(e^ε + 1) ([wang2017]).
    """
    d, e = counts.size, math.exp(epsilon)
    grr = wang_variance(e / (e + d - 1), 1 / (e + d - 1), counts).mean()
    oue = wang_variance(0.5, 1 / (e + 1), counts).mean()
    return math.log(grr / oue)


@pytest.mark.parametrize("d, n", [(5, 1000), (43, 10**5)])
def test_the_curves_are_wangs_exact_variance_and_approximation(d, n):
    grid = np.linspace(0.2, 5.0, 13)
    curves = fo.privacy_utility_curves(LISTED, grid, d, n)
    flat = flat_counts(n, d)
    assert list(curves.exact) == list(LISTED) and np.array_equal(curves.epsilons, grid)
    for key in ("grr", "oue", "sue", "olh", "blh"):
        for j, epsilon in enumerate(grid):
            oracle = fo.build_oracle(key, float(epsilon), d)
            assert isinstance(oracle, PureFrequencyOracle)
            p, q = oracle.p, oracle.q
            assert curves.exact[key][j] == pytest.approx(
                float(np.mean(wang_variance(p, q, flat))), rel=1e-12
            )
            assert curves.approx[key][j] == pytest.approx(n * q * (1 - q) / (p - q) ** 2)
        assert np.all(curves.bias_sq[key] == 0)
    assert "she" not in curves.approx and np.all(curves.bias_sq["cms"] > 0)
    table = np.array([curves.exact[k] for k in LISTED])
    best = [LISTED[int(np.flatnonzero(col <= col.min() * (1 + 1e-9))[0])] for col in table.T]
    changes = [(a, b) for a, b in zip(best, best[1:]) if a != b]  # ties: the first listed
    assert [(a, b) for _, a, b in curves.crossovers] == changes


def test_a_sketchs_mse_is_its_bias_squared_plus_variance():
    """A fixed-hash sketch's point is the mean over values of (E[ĉ(x)] − f_x)² + Var[ĉ(x)]."""
    grid = np.linspace(0.2, 6.0, 59)
    curves = fo.privacy_utility_curves(LISTED, grid, 43, 10_000, structure={"k": 16, "m": 256})
    counts = flat_counts(10_000, 43)
    for key in LISTED:
        oracle = fo.build_oracle(key, float(grid[10]), 43, structure={"k": 16, "m": 256})
        bias = oracle.expected_estimate(counts) - counts
        assert curves.exact[key][10] == pytest.approx(
            float(np.mean(bias**2 + oracle.variance(counts))), rel=1e-12
        )
        assert curves.bias_sq[key][10] == pytest.approx(float(np.mean(bias**2)), abs=1e-9)
    # GRR is best at large ε for d = 43; subset selection then takes k = 1, which is GRR itself: a
    # tie, which the ranking gives to GRR (registered first)
    last = max(curves.crossovers, key=lambda c: c[0])
    assert last[2] == "grr"
    j = int(np.searchsorted(grid, last[0]))
    assert curves.exact["grr"][j] <= curves.exact[last[1]][j]
    assert curves.exact["grr"][j - 1] > curves.exact[last[1]][j - 1]


@pytest.mark.parametrize("d, n", [(43, 10_000), (100, 10**6)])
def test_the_grr_oue_crossover_is_the_root_of_the_exact_mse_ratio(d, n):
    """Linear interpolation of ln MSE_GRR − ln MSE_OUE: its error falls as the grid step squared."""
    counts = flat_counts(n, d)
    root = optimize.brentq(grr_oue_log_ratio, 0.05, 10.0, args=(counts,), xtol=1e-14)
    errors = []
    for step in (0.2, 0.02):
        grid = np.arange(1.0, 6.0, step)
        curves = fo.privacy_utility_curves(["grr", "oue"], grid, d, n)
        assert [(a, b) for _, a, b in curves.crossovers] == [("oue", "grr")]
        errors.append(abs(curves.crossovers[0][0] - root))
    # the interpolation error is at most step²/8 · max|g''| / |g'| (g the log ratio): second order
    assert errors[0] < 5e-3 and errors[1] < 5e-5 and errors[1] < errors[0] / 30


@pytest.mark.statistical
def test_a_sketchs_curve_matches_its_per_user_client():
    """The MSE of 100 surveys of the CMS's per-user client is within 5 SE of the curve's point.

    At n = 20,000 the collisions' bias² is 83 % of the CMS's MSE: a curve
    of the variance alone would fail (bias² is 2.5 times 5 SE).
    """
    structure, d, n, epsilon, surveys = {"k": 4, "m": 16}, 6, 20_000, 1.0, 100
    curves = fo.privacy_utility_curves(
        ["oue", "cms"], [0.5, epsilon, 2.0], d, n, structure=structure
    )
    truth = flat_counts(n, d)
    rng = np.random.default_rng(20)
    for key in ("oue", "cms"):
        oracle = fo.build_oracle(key, epsilon, d, structure=structure)
        values = oracle.expand(truth)
        estimates = np.array(
            [
                oracle.estimate(oracle.aggregate(oracle.perturb(values, rng=rng)), n)
                for _ in range(surveys)
            ]
        )
        sigma2 = oracle.variance(truth)
        bias = (oracle.expected_estimate(truth) if not oracle.unbiased else truth) - truth
        sd_squared = np.sqrt(
            2 * sigma2**2 + 4 * sigma2 * bias**2
        )  # Var[(X − f)²], X ~ N(f + b, σ²)
        mse = float(np.mean((estimates - truth) ** 2))
        assert abs(mse - curves.exact[key][1]) < 5 * sd_squared.mean() / np.sqrt(surveys), key
    assert curves.bias_sq["cms"][1] > 0.8 * curves.exact["cms"][1]  # the collisions dominate


@pytest.mark.parametrize("n", [43 * 1000, 43 * 10**6])
def test_at_large_n_the_biased_sketches_never_cross_into_the_best(n):
    """The fixed-hash sketches' bias² grows as n², their variance as n: never the best oracle."""
    curves = fo.privacy_utility_curves(LISTED, np.linspace(0.5, 4.0, 8), 43, n)
    biased = {key for key in LISTED if np.any(curves.bias_sq[key] > 0)}
    assert "cms" in biased and not biased & set(ONE_SHOT)
    assert biased.isdisjoint({k for _, a, b in curves.crossovers for k in (a, b)})


def test_a_refused_budget_is_nan_on_its_curve_and_no_crossover():
    """HR's variance rounds to 0 at ε = 700 (issue 36): refused there, never an MSE of 0."""
    curves = fo.privacy_utility_curves(["grr", "hr"], [1.0, 700.0], 8, 100)
    assert math.isnan(curves.exact["hr"][1]) and np.isfinite(curves.exact["hr"][0])
    assert curves.crossovers == ()  # every oracle refused at ε = 700: no best there
    assert fo.crossovers(["hr", "grr"], [1.0, 2.0], {"hr": [1.0, math.nan], "grr": [2.0, 1.0]}) == (
        (1.5, "hr", "grr"),
    )  # a refused point gives no log difference: the midpoint


def test_crossovers_place_the_change_where_the_log_difference_is_zero():
    """ln 4 − ln 1 = 2 ln 2 at ε = 1 and ln 1 − ln 4 at ε = 2: the log difference is 0 at 1.5."""
    got = fo.crossovers(["grr", "oue"], [1.0, 2.0], {"grr": [4.0, 1.0], "oue": [1.0, 4.0]})
    assert got == ((1.5, "oue", "grr"),)
    tie = fo.crossovers(["grr", "ss"], [1.0, 2.0], {"grr": [1.0, 1.0], "ss": [1.0, 1.0]})
    assert tie == ()  # a tie goes to the key listed first: no crossover


@pytest.mark.parametrize(
    "epsilons", [[1.0], [2.0, 1.0], [0.0, 1.0], [[1.0, 2.0]], list(np.linspace(0.1, 5, 401))]
)
def test_bad_grids_are_refused(epsilons):
    with pytest.raises(ValueError, match="epsilons"):
        fo.privacy_utility_curves(["grr"], epsilons, 10, 100)
    with pytest.raises(ValueError, match="epsilons"):
        fo.crossovers(["grr"], epsilons, {"grr": np.ones(np.shape(epsilons))})


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(keys=["rappor"]), "keys must be"),
        (dict(keys=["grr", "grr"]), "keys must be"),
        (dict(d=1), r"d must be an integer in \[2, "),
        (dict(n=0), r"n must be an integer in \[1, "),
        (dict(structure={"k": -1}), r"structure\['k'\] must be an integer in \[0, "),
        (dict(structure={"zz": 1}), "structure must be a dict with keys among"),
        (dict(structure={"m": 0}), r"m must be an integer in \[1, "),  # the class's refusal
        (dict(structure={"k": 0}), r"k must be an integer in \[1, "),
    ],
)
def test_bad_arguments_are_refused_never_a_curve_of_nans(kwargs, match):
    args = dict(keys=["grr", "cms"], epsilons=[0.5, 1.0], d=8, n=100, structure=None) | kwargs
    with pytest.raises(ValueError, match=match):
        fo.privacy_utility_curves(**args)


def test_a_structure_value_of_none_is_the_default():
    """``oracle_structure`` lists a parameter without a default as None; passing it back is the default."""
    with_none = fo.privacy_utility_curves(
        ["grr", "cms"], [0.5, 1.0], 8, 100, structure={"n_bits": None, "k": None}
    )
    plain = fo.privacy_utility_curves(["grr", "cms"], [0.5, 1.0], 8, 100)
    for key in ("grr", "cms"):
        np.testing.assert_array_equal(with_none.exact[key], plain.exact[key])


def test_ranking_puts_the_tie_with_the_smallest_first_in_listed_order_then_the_rest_by_risk():
    """Rows within TIE_RTOL of the smallest come first in the order listed (lowest_index's winner first),
    then the others by risk; ∞ (a refusing oracle) last; risks the tie rule refuses are refused."""
    risk = [3.0, 1.0 + 1e-12, 2.0, 1.0, np.inf, 2.0]
    assert fo.ranking(risk).tolist() == [1, 3, 2, 5, 0, 4]
    rng = np.random.default_rng(4)
    for _ in range(50):  # ties drawn on purpose: a few distinct values
        column = rng.choice([1.0, 1.0 + 1e-10, 2.0, 5.0, np.inf], size=6)
        order = fo.ranking(column)
        assert sorted(order.tolist()) == list(range(6))
        assert order[0] == fo.lowest_index(column[:, None])[0] or np.isinf(column).all()
        rest = column[order][np.sum(column <= column.min() * (1 + 1e-9)) :].tolist()
        assert rest == sorted(rest)  # after the tie: by risk
    with pytest.raises(ValueError, match="risk"):
        fo.ranking([1.0, np.nan])
