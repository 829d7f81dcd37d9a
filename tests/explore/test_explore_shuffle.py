"""The explorer's shuffle panel (issue 38 item 5): its numbers are the bounds modules', refusals, share codes."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest

from ldp_helpers.bounds import shuffle as exact
from ldp_helpers.bounds import shuffle_bounds as sb
from ldp_tools.explore import shuffle as S
from ldp_tools.explore.share import _apply_view, _decode_view, _encode_view, _view_of
from ldp_tools.explore.shuffle_panel import shuffle_panel

matplotlib.use("Agg")

#: each bound of the panel, as the bounds module computes it (the numerical ones by their exact profiles)
LIBRARY = {
    "Erlingsson": lambda n, e0, d, k: sb.erlingsson_epsilon(n, e0, d),
    "blanket (Hoeffding)": lambda n, e0, d, k: sb.blanket_hoeffding_epsilon(n, e0, d, k=k),
    "FMT closed": lambda n, e0, d, k: sb.fmt_closed_epsilon(n, e0, d),
    "Wang closed": lambda n, e0, d, k: sb.wang_closed_epsilon(n, e0, d, k),
    "FMT numerical": lambda n, e0, d, k: sb.clone_profile(n, e0).epsilon(d),
    "Wang numerical": lambda n, e0, d, k: sb.variation_ratio_profile(n, e0, k).epsilon(d),
}


def _exact(n, e0, d, k):
    profile = exact.binary_rr_profile(n, e0) if k == 2 else exact.grr_profile(n, e0, k)
    return profile.epsilon(d)


@pytest.mark.parametrize(
    "n, e0, d, k",
    [(2000, 0.4, 1e-6, 2), (300, 2.0, 1e-4, 2), (200, 1.0, 1e-6, 3), (60, 2.0, 1e-4, 5)],
)
def test_the_table_is_the_bounds_modules_numbers_or_na_with_the_reason(n, e0, d, k):
    state = S.shuffle_state(n=n, epsilon0=e0, delta=d, k=k)
    assert state.exact == _exact(n, e0, d, k)
    ranges = sb.closed_form_ranges(n, e0, d, k)
    for row in state.rows:
        if row.name in S.NUMERICAL and n > S.N_NUMERICAL:  # beyond the panel's work ceiling
            assert math.isnan(row.epsilon_c) and f"n ≤ {S.N_NUMERICAL}" in row.note
            continue
        library = LIBRARY[row.name](n, e0, d, k)
        # outside its stated range: n/a, the reason shown, and the library says ε₀
        if ranges.get(row.name):
            assert math.isnan(row.epsilon_c) and row.note == ranges[row.name] and library == e0
        else:
            assert row.epsilon_c == library, row
    below = [r.name for r in state.rows if "not a bound" in r.note]
    if k == 5:  # chapter 08 §3: Wang et al.'s k-RR parameters fall below the exact value for k ≥ 4
        assert "Wang numerical" in below
    else:
        assert not below


def test_a_bound_is_said_to_fail_only_where_the_per_user_law_refutes_it():
    """3-RR, n = 10, ε₀ = 0.5, δ = 1e-6: Wang et al.'s value ε_w is flagged, and the count law built user by user
    (others all holding 0, no reduction of ours) has δ(ε_w) > δ; binary RR: no bound is ever flagged."""
    from shuffle_reference import shuffle_delta

    state = S.shuffle_state(n=10, epsilon0=0.5, delta=1e-6, k=3)
    flagged = {r.name: r.epsilon_c for r in state.rows if "not a bound" in r.note}
    assert set(flagged) == {"Wang numerical"}
    assert shuffle_delta([0] * 9, 3, 0.5, flagged["Wang numerical"]) > 1.01e-6
    for n, e0, d in [(2, 20.0, 0.5), (10, 0.01, 1e-15), (80, 8.0, 1e-6), (400, 1.0, 0.3)]:
        state = S.shuffle_state(n=n, epsilon0=e0, delta=d, k=2)
        assert not [r for r in state.rows if "not a bound" in r.note], (n, e0, d)


def test_the_curves_are_the_bounds_modules_numbers_against_n():
    state = S.shuffle_state(n=10_000, epsilon0=2.0, delta=1e-6, k=2)
    assert state.n_grid[0] == S.N_LOW and state.n_grid[-1] == S.n_max(2) == 10**7
    for j in (0, 5, len(state.n_grid) - 1):
        n = int(state.n_grid[j])
        assert state.exact_curve[j] == _exact(n, 2.0, 1e-6, 2)
        ranges = sb.closed_form_ranges(n, 2.0, 1e-6, 2)
        for name, curve in state.bound_curves.items():
            skipped = ranges.get(name) or (name in S.NUMERICAL and n > S.N_NUMERICAL)
            assert math.isnan(curve[j]) if skipped else curve[j] == LIBRARY[name](n, 2.0, 1e-6, 2)
    assert np.all(np.diff(state.exact_curve) <= 0)  # amplification grows with n


def test_numerical_bounds_beyond_their_ceiling_say_so_and_moving_n_keeps_the_curve():
    state = S.shuffle_state(n=S.N_NUMERICAL + 1, epsilon0=1.0, delta=1e-6)
    for row in state.rows:
        if row.name in S.NUMERICAL:
            assert math.isnan(row.epsilon_c) and f"n ≤ {S.N_NUMERICAL}" in row.note
    before = S._curves.cache_info()
    S.shuffle_state(n=S.N_NUMERICAL + 2, epsilon0=1.0, delta=1e-6)
    after = S._curves.cache_info()
    assert after.hits == before.hits + 1 and after.misses == before.misses


def test_the_panel_shows_the_table_and_marks_the_chosen_n():
    panel = shuffle_panel(n=300, epsilon0=2.0, delta=1e-4)
    state = S.shuffle_state(n=300, epsilon0=2.0, delta=1e-4)
    summary = panel.summary.value
    assert f"exact central ε_c = <b>{state.exact:.4g}</b>" in summary
    assert "<td>Erlingsson</td><td style='text-align:right;padding:0 1em'>n/a</td>" in summary
    assert "needs ε₀ ≤ 1/2 and n ≥ 1000" in summary
    np.testing.assert_array_equal(panel.artists["chosen"].get_xdata(), [300, 300])
    np.testing.assert_array_equal(panel.artists["exact"].get_ydata(), state.exact_curve)
    header, rows = panel.table
    chosen = [row for row in rows if row[-1] is True]
    assert header[:2] == ("n", "exact_epsilon_c") and chosen == [
        (
            300,
            state.exact,
            *("" if math.isnan(r.epsilon_c) else r.epsilon_c for r in state.rows),
            True,
        )
    ]
    labels = [t.get_text() for t in panel.artists["legend"][1].get_texts()]
    assert labels[0] == "exact (shuffled binary RR)" and "chosen n = 300" in labels
    assert "Erlingsson" not in labels  # its range fails at every n of the curve (ε₀ = 2 > 1/2)


def test_a_refused_value_names_the_parameter_and_the_limit_reverts_and_later_changes_apply():
    panel = shuffle_panel(n=10_000, epsilon0=2.0, delta=1e-6)
    before = panel.summary.value
    panel.controls["n"].box.value = "1e8"
    assert panel.message.value.startswith(
        '<span style="color:#b00020;overflow-wrap:anywhere">refused: n = 100000000 — n must be an integer in [2, 10,000,000] '
        "for k = 2 (the exact profile of shuffled binary RR sums over about 80 √n count vectors"
    )
    assert panel.controls["n"].value == 10_000 and panel.controls["n"].box.value == "10000"
    assert panel.summary.value == before
    panel.controls["k"].value = 4  # k-RR at n = 10,000: n³/6 count vectors, refused
    assert "refused: k = 4 — n must be an integer in [2, 80] for k = 4" in panel.message.value
    assert "back to k = 2" in panel.message.value and panel.controls["k"].value == 2
    panel.controls["delta"].value = 0.0
    assert "refused: delta = 0 — delta must be" in panel.message.value
    assert panel.controls["delta"].value == 1e-6
    panel.set_values({"n": 50, "k": 4})  # a later valid change applies
    assert panel.message.value == "" and panel.applied["k"] == 4
    assert "k = 4 (4-RR)" in panel.summary.value


@pytest.mark.parametrize(
    "kwargs",
    [dict(n=1), dict(n=10**8), dict(k=1), dict(epsilon0=0), dict(epsilon0=25.0), dict(delta=1.0)],
)
def test_bad_defaults_are_refused_before_any_widget(kwargs):
    with pytest.raises(ValueError):
        shuffle_panel(**kwargs)


def test_a_share_code_holds_every_parameter_and_reproduces_the_view():
    panel = shuffle_panel()
    panel.set_values({"n": 250, "epsilon0": 1.5, "delta": 1e-5, "k": 3})
    view = _view_of([panel])
    assert view == {"shuffle": {"n": 250, "epsilon0": 1.5, "delta": 1e-5, "k": 3}}
    other = shuffle_panel()
    assert _apply_view([other], _decode_view(_encode_view(view))) == []
    assert other.summary.value == panel.summary.value and other.table == panel.table
    # a code is a whole view: one that lists nothing puts every control back to its default
    assert _apply_view([other], {}) == [] and other.settings() == other.defaults


@pytest.mark.parametrize("delta", [5e-324, 1e-310])
def test_a_subnormal_delta_gives_finite_closed_form_notes(delta):
    """4/δ overflows below δ ≈ 2.2e-308: the closed forms' ranges use ln 4 − ln δ (before: 'math domain error')."""
    state = S.shuffle_state(n=10_000, epsilon0=2.0, delta=delta, k=2)
    rows = {row.name: row for row in state.rows}
    assert rows["FMT closed"].note.startswith("needs ε₀ ≤ ln(n / (16 ln(4/δ)))")
    assert math.isfinite(rows["blanket (Hoeffding)"].epsilon_c)
    assert sb.closed_form_ranges(10_000, 2.0, delta, 2)["Wang closed"] == rows["Wang closed"].note
