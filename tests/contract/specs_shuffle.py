"""Contract specs of the shuffle model's public names (issue 38; merged into ``specs.SPECS``)."""

from __future__ import annotations

from .specs import spec

SH = "ldp_helpers.bounds.shuffle."
SB = "ldp_helpers.bounds.shuffle_bounds."

SPECS = {
    SH + "mixture_pair": spec(
        n=5, user_p=[0.6, 0.4], user_q=[0.4, 0.6], pi=[0.6, 0.4], _free={"user_p", "user_q", "pi"}
    ),
    SH + "binary_rr_profile": spec(n=50, epsilon0=1.0, others="any"),
    SH + "grr_profile": spec(n=20, epsilon0=1.0, k=4, others="worst"),
    SB + "erlingsson_epsilon": spec(n=2000, epsilon0=0.4, delta=1e-6),
    SB + "blanket_hoeffding_delta": spec(epsilon=0.3, n=2000, epsilon0=1.0, k=3, _none_ok={"k"}),
    SB + "blanket_hoeffding_epsilon": spec(n=2000, epsilon0=1.0, delta=1e-6, k=3, _none_ok={"k"}),
    SB + "fmt_closed_epsilon": spec(n=2000, epsilon0=1.0, delta=1e-6),
    SB + "clone_profile": spec(n=50, epsilon0=1.0),
    SB + "grr_blanket_beta": spec(epsilon0=1.0, k=3, _none_ok={"k"}),
    SB + "variation_ratio_profile": spec(n=50, epsilon0=1.0, k=3, _none_ok={"k"}),
    SB + "wang_closed_epsilon": spec(n=2000, epsilon0=1.0, delta=1e-6, k=3, _none_ok={"k"}),
    SB + "closed_form_ranges": spec(n=2000, epsilon0=1.0, delta=1e-6, k=3, _none_ok={"k"}),
}

#: the exact profile (its arrays come from the constructors above, which validate)
RECORDS = {SH + "ShuffleProfile"}

SPECS |= {
    "ldp_helpers.audit.shuffle.epsilon_lower_bound_at_delta": spec(
        p0_low=0.5, p1_high=0.1, delta=1e-3
    ),
    "ldp_helpers.audit.shuffle.ShuffledGRRClient": spec(
        n=10, epsilon0=1.0, k=3, others=0, leak_order=False
    ),
}

SPECS |= {
    "ldp_helpers.bounds.shuffle_accuracy.local_epsilon_for_central": spec(
        n=50, epsilon_c=0.8, delta=1e-3, k=2, calibration="exact"
    ),
    "ldp_helpers.bounds.shuffle_accuracy.frequency_mse_at_central_epsilon": spec(
        truth=[30, 20], epsilon_c=0.8, delta=1e-3, calibration="exact", _free={"truth"}
    ),
}

SPECS |= {
    "ldp_tools.pipeline.plots.shuffle.epsilon_vs_n_figure": spec(
        n_grid=[10, 100],
        exact=[0.5, 0.2],
        bounds={"b": [0.6, 0.3]},
        epsilon0=1.0,
        delta=1e-6,
        _valid=False,
    ),
    "ldp_tools.pipeline.plots.shuffle.mse_vs_epsilon_figure": spec(
        epsilons=[0.5, 1.0], mse={"a": [0.1, 0.01]}, n=100, k=2, _valid=False
    ),
}
