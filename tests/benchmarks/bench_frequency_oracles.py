"""GRR, OUE and OLH: our exact aggregate sampler and per-user path vs the draws alone and two PyPI peers.

The per-user path is the specification (it reads like the paper: one uniform per report bit);
its rows against the peers are information only.  The targets are the aggregate sampler's:
at most 1.3x its draws and at least 1000x faster than the peers' per-user loops.

Peers (benchmark-only, pinned in ``requirements.txt``; their own dependencies numba, xxhash,
bitarray are *not* in the project lock, so they live outside ``.venv``)::

    .venv/bin/pip install --no-deps --target build/bench-peers -r tests/benchmarks/requirements.txt

* ``pure-ldp`` (DEClient/DEServer, UEClient/UEServer with use_oue=True) is fed 1-based values,
  its default convention (its index_mapper is ``x - 1``); its server keeps unbiased estimates.
* ``multi-freq-ldpy`` (GRR_Client, UE_Client, *_Aggregator_MI) is 0-based; its MI estimator
  clips negatives and renormalizes, so it is compared with our ``postprocess(..., "clip")``.
* OLH: pure-ldp's ``LHClient(use_olh=True)`` / ``LHServer`` and multi-freq-ldpy's ``LH_Client`` /
  ``LH_Aggregator_MI``; their reports ``(y, seed)`` are estimated by our OLH through the adapter
  (:func:`ldp_helpers.interop.peer_reports.estimate_olh_reports`), on the peers' own xxhash 3.8.2.
  OLH's per-user rows (ours and the peers', n·d hashes at the server) run at the first workload only.

Before timing, both peers' aggregators are run on *our* per-user reports and must agree with
our estimates (an AssertionError stops the benchmark otherwise).  The peers loop over users
in Python, so they are timed on ``PEER_USERS`` users and scaled linearly to n (the note says so).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
from bench_aggregate_samplers import pure_oracle_draws
from timing import Timing, median_time, paired_times

from ldp_helpers.estimation.postprocessing import postprocess
from ldp_helpers.interop.peer_reports import estimate_olh_reports
from ldp_helpers.mechanisms.grr import GRR
from ldp_helpers.mechanisms.local_hashing import OLH
from ldp_helpers.mechanisms.unary_encoding import OUE

PEERS_DIR = Path(__file__).resolve().parents[2] / "build" / "bench-peers"
PEER_USERS = {
    "GRR": 20_000,
    "OUE": 2_000,
    "OLH": 2_000,
}  # users per timed peer run (then scaled to n)
WORKLOADS = ((49_742, 43), (10**6, 1024))
EPSILON = 1.0
STREAM_USERS = 16_384  # users per block of the streamed per-user path


def _import_peers():
    if PEERS_DIR.is_dir() and str(PEERS_DIR) not in sys.path:
        sys.path.append(str(PEERS_DIR))
    try:
        from multi_freq_ldpy.pure_frequency_oracles import GRR as mf_grr
        from multi_freq_ldpy.pure_frequency_oracles import LH as mf_lh
        from multi_freq_ldpy.pure_frequency_oracles import UE as mf_ue
        from pure_ldp.frequency_oracles.direct_encoding import DEClient, DEServer
        from pure_ldp.frequency_oracles.local_hashing import LHClient, LHServer
        from pure_ldp.frequency_oracles.unary_encoding import UEClient, UEServer
    except ImportError as err:  # the table then lacks the peer rows and says why
        print(
            f"peers not importable ({err}); install them as the module docstring says",
            file=sys.stderr,
        )
        return None
    return {
        "DEClient": DEClient,
        "DEServer": DEServer,
        "UEClient": UEClient,
        "UEServer": UEServer,
        "mf_grr": mf_grr,
        "mf_ue": mf_ue,
        "LHClient": LHClient,
        "LHServer": LHServer,
        "mf_lh": mf_lh,
    }


def _pure_ldp_server_estimates(server, reports):
    server.aggregate_all(list(reports))
    server.check_and_update_estimates()
    return np.asarray(server.estimated_data, dtype=float)


def check_peers_agree(peers, rng) -> str:
    """On the same reports, pure-ldp's unbiased estimates and multi-freq-ldpy's clipped ones equal ours."""
    n, d = WORKLOADS[0]
    values = rng.integers(0, d, size=n)
    grr, oue = GRR(EPSILON, d), OUE(EPSILON, d)
    grr_reports, oue_reports = grr.perturb(values, rng=rng), oue.perturb(values, rng=rng)
    ours = {
        "GRR": grr.estimate(grr.aggregate(grr_reports), n),
        "OUE": oue.estimate(oue.aggregate(oue_reports), n),
    }
    pure = {
        "GRR": _pure_ldp_server_estimates(peers["DEServer"](EPSILON, d), grr_reports.tolist()),
        "OUE": _pure_ldp_server_estimates(
            peers["UEServer"](EPSILON, d, use_oue=True), oue_reports.astype(float)
        ),
    }
    multi = {
        "GRR": peers["mf_grr"].GRR_Aggregator_MI(grr_reports, d, EPSILON),
        "OUE": peers["mf_ue"].UE_Aggregator_MI(oue_reports.astype(float), EPSILON),
    }
    worst = 0.0
    for name in ("GRR", "OUE"):
        gap_pure = np.max(np.abs(pure[name] - ours[name]))
        gap_multi = np.max(np.abs(multi[name] * n - postprocess(ours[name], n, "clip")))
        assert gap_pure < 1e-6 and gap_multi < 1e-6, (
            f"{name}: peers disagree with ours ({gap_pure:.3g}, {gap_multi:.3g})"
        )
        worst = max(worst, gap_pure, gap_multi)
    # OLH: each peer's own reports (their hash and seeds), estimated by their server and by our OLH (the adapter)
    sub, olh = values[: PEER_USERS["OLH"]], OLH(EPSILON, d)
    pure_olh = [peers["LHClient"](EPSILON, d, use_olh=True).privatise(v + 1) for v in sub.tolist()]
    gap_pure = np.max(
        np.abs(
            _pure_ldp_server_estimates(peers["LHServer"](EPSILON, d, use_olh=True), pure_olh)
            - estimate_olh_reports(pure_olh, olh)
        )
    )
    multi_olh = [peers["mf_lh"].LH_Client(v, d, EPSILON, True) for v in sub.tolist()]
    gap_multi = np.max(
        np.abs(
            peers["mf_lh"].LH_Aggregator_MI(multi_olh, d, EPSILON, True) * sub.size
            - postprocess(estimate_olh_reports(multi_olh, olh), sub.size, "clip")
        )
    )
    assert gap_pure < 1e-6 and gap_multi < 1e-6, (
        f"OLH: peers' reports estimated apart ({gap_pure:.3g}, {gap_multi:.3g})"
    )
    worst = max(worst, gap_pure, gap_multi)
    return f"peers agree on the same reports (max |diff| {worst:.1e} counts)"


def _peer_runs(peers, oracle_name, values, d):
    """Per-user client + server of each peer on ``values`` (0-based), in each peer's convention."""
    if oracle_name == "GRR":

        def pure_ldp():
            client, server = peers["DEClient"](EPSILON, d), peers["DEServer"](EPSILON, d)
            server.aggregate_all(
                [client.privatise(v + 1) for v in values.tolist()]
            )  # 1-based input
            return server.estimate_all(range(1, d + 1), suppress_warnings=True)

        def multi_freq():
            reports = [peers["mf_grr"].GRR_Client(v, d, EPSILON) for v in values.tolist()]
            return peers["mf_grr"].GRR_Aggregator_MI(reports, d, EPSILON)
    elif oracle_name == "OLH":

        def pure_ldp():
            client, server = (
                peers["LHClient"](EPSILON, d, use_olh=True),
                peers["LHServer"](EPSILON, d, use_olh=True),
            )
            server.aggregate_all([client.privatise(v + 1) for v in values.tolist()])
            return server.estimate_all(range(1, d + 1), suppress_warnings=True)

        def multi_freq():
            reports = [peers["mf_lh"].LH_Client(v, d, EPSILON, True) for v in values.tolist()]
            return peers["mf_lh"].LH_Aggregator_MI(reports, d, EPSILON, True)
    else:

        def pure_ldp():
            client, server = (
                peers["UEClient"](EPSILON, d, use_oue=True),
                peers["UEServer"](EPSILON, d, use_oue=True),
            )
            server.aggregate_all([client.privatise(v + 1) for v in values.tolist()])
            return server.estimate_all(range(1, d + 1), suppress_warnings=True)

        def multi_freq():
            reports = [peers["mf_ue"].UE_Client(v, d, EPSILON, True) for v in values.tolist()]
            return peers["mf_ue"].UE_Aggregator_MI(reports, EPSILON, True)

    return {"pure-ldp per-user": pure_ldp, "multi-freq-ldpy per-user": multi_freq}


def _ours(oracle, values, true_counts, rng):
    """Our four timed callables: the aggregate sampler, the draws it needs, the per-user path, its draws.

    The per-user path streams users in blocks of ``STREAM_USERS`` (perturb every report with the
    reference client, count, discard): the (n, d) OUE report matrix would otherwise cost more in
    page faults than in random numbers.
    """
    n, d = values.size, oracle.d
    blocks = [slice(start, start + STREAM_USERS) for start in range(0, n, STREAM_USERS)]
    aggregate = lambda: oracle.sample_aggregate(true_counts, rng=rng)  # noqa: E731

    def per_user():
        return oracle.estimate(
            sum(oracle.aggregate(oracle.perturb(values[b], rng=rng)) for b in blocks), n
        )  # noqa: E731

    draws_aggregate = pure_oracle_draws(oracle, true_counts, n, rng)
    if isinstance(oracle, GRR):
        draws_per_user = lambda: (rng.random(n), rng.integers(0, d - 1, size=n))  # noqa: E731
    elif isinstance(oracle, OLH):  # a hash function and a GRR over [g] per user

        def draws_per_user():
            return (
                rng.integers(0, 2**63 - 1, size=(n, 2)),
                rng.random(n),
                rng.integers(0, oracle.g - 1, size=n),
            )  # noqa: E731
    else:
        draws_per_user = lambda: [rng.random((values[b].size, d)) for b in blocks]  # noqa: E731
    return aggregate, per_user, draws_aggregate, draws_per_user


def run(rng: np.random.Generator) -> list[Timing]:
    peers = _import_peers()
    random.seed(20261121)  # the peers draw from Python's and numpy's global generators
    np.random.seed(20261121)
    agreement = check_peers_agree(peers, rng) if peers else "peers not installed"
    rows = []
    for n, d in WORKLOADS:
        values = rng.integers(0, d, size=n)
        true_counts = np.bincount(values, minlength=d)
        for oracle in (GRR(EPSILON, d), OUE(EPSILON, d), OLH(EPSILON, d)):
            name = type(oracle).__name__
            label = f"{name} eps=1, n={n:,}, d={d}"
            heavy = (
                n * (d if name == "OUE" else 1) > 10**8
            )  # seconds per run: one timed run, no warm-up
            timed = dict(repeat=1, warmup=False) if heavy else dict(repeat=7)
            aggregate, per_user, draws_aggregate, draws_per_user = _ours(
                oracle, values, true_counts, rng
            )
            t_aggregate, t_draws, overhead = paired_times(
                aggregate, draws_aggregate, repeat=21, number=50
            )
            if (
                name == "OLH" and (n, d) != WORKLOADS[0]
            ):  # the per-user server hashes n·d pairs: first workload only
                rows.append(
                    Timing(
                        label,
                        "our aggregate sampler",
                        t_aggregate,
                        f"{overhead:.2f}x its draws (median of paired runs)",
                    )
                )
                rows.append(
                    Timing(
                        label,
                        "draws alone (aggregate)",
                        t_draws,
                        "the binomial/multinomial draws it needs",
                    )
                )
                continue
            t_per_user = median_time(per_user, **timed)
            rows.append(
                Timing(
                    label,
                    "our aggregate sampler",
                    t_aggregate,
                    f"{overhead:.2f}x its draws (median of paired runs)",
                )
            )
            rows.append(
                Timing(
                    label,
                    "draws alone (aggregate)",
                    t_draws,
                    "the binomial/multinomial draws it needs",
                )
            )
            rows.append(
                Timing(
                    label,
                    "our per-user path",
                    t_per_user,
                    f"perturb + count, streamed in blocks of {STREAM_USERS:,} users",
                )
            )
            per_user_draws = {
                "GRR": "the uniforms it needs",
                "OUE": "one uniform per report bit",
                "OLH": "a hash seed, a uniform and a GRR draw per user",
            }[name]
            rows.append(
                Timing(
                    label,
                    "draws alone (per-user)",
                    median_time(draws_per_user, **timed),
                    per_user_draws,
                )
            )
            if not peers:
                continue
            sub = values[: min(PEER_USERS[name], n)]
            for variant, fn in _peer_runs(peers, name, sub, d).items():
                t_peer = median_time(fn, repeat=3) * n / sub.size
                note = f"timed on {sub.size:,} users, scaled x{n / sub.size:.4g}; {t_peer / t_aggregate:,.0f}x our aggregate, {t_peer / t_per_user:.0f}x our per-user"
                rows.append(Timing(label, variant, t_peer, note))
    first = rows[0]
    rows[0] = Timing(
        first.benchmark, first.variant, first.median_seconds, f"{first.note}; {agreement}"
    )
    return rows
