"""The README's benchmark prose, written from the very rows of the table (``run.py --write-readme``).

Every figure quoted in the README's benchmark notes and in its sweep-cost paragraph is computed here from the
measured :class:`~timing.Timing` rows, so the prose cannot disagree with the table printed beside it.
"""

from __future__ import annotations

import re

from timing import Timing

DRAW_RATIO = re.compile(r"^([\d.]+)x its draws")
PEER_VARIANTS = ("pure-ldp per-user", "multi-freq-ldpy per-user")
AGGREGATE_TARGET, DRAWS_TARGET = 1000.0, 1.3


def _span(values, digits: int = 2) -> str:
    low, high = (f"{v:,.{digits}f}" for v in (min(values), max(values)))
    return f"{low}x" if low == high else f"{low}–{high}x"


def _draw_ratio(row: Timing) -> float | None:
    found = DRAW_RATIO.match(row.note)
    return float(found.group(1)) if found else None


def _frequency_oracle_notes(rows: list[Timing]) -> list[str]:
    fo = [r for r in rows if re.match(r"(GRR|OUE|OLH) eps=", r.benchmark)]
    ours = {r.benchmark: r for r in fo if r.variant == "our aggregate sampler"}
    per_user = {r.benchmark: r for r in fo if r.variant == "our per-user path"}
    peers = [r for r in fo if r.variant in PEER_VARIANTS]
    if not ours or not peers:
        return [
            "- The peers were not installed when this table was measured (`make peers`): no comparison."
        ]
    agreement = (
        fo[0].note.split("; ", 1)[1] if "; " in fo[0].note else "no agreement check recorded"
    )
    closest = min(peers, key=lambda r: r.median_seconds / ours[r.benchmark].median_seconds)
    ratio = closest.median_seconds / ours[closest.benchmark].median_seconds
    verdict = "met" if ratio >= AGGREGATE_TARGET else "**NOT met**"
    speedups = [
        r.median_seconds / per_user[r.benchmark].median_seconds
        for r in peers
        if r.benchmark in per_user
    ]
    heaviest = max(per_user.values(), key=lambda r: r.median_seconds)
    return [
        f"- **Peers** (GRR, OUE and OLH; pure-ldp and multi-freq-ldpy, timed on 2,000–20,000 users and scaled to n): "
        f"{agreement}. For GRR and OUE the peers' servers read our reports; for OLH each peer's own reports "
        f"(its xxhash and seeds) go through our adapter (`ldp_helpers.interop.peer_reports`).",
        f"- **Aggregate samplers against the peers' per-user loops** (target at least {AGGREGATE_TARGET:,.0f}x, "
        f"{verdict}): the closest case is {closest.benchmark} against {closest.variant.replace(' per-user', '')}, "
        f"{ratio:,.0f}x.",
        f"- **Per-user paths: information only** (the specification, one uniform per report bit): "
        f"{_span(speedups, 0)} faster than the peers'; the heaviest, {heaviest.benchmark}, takes "
        f"{heaviest.median_seconds:.1f} s.",
    ]


def _sampler_notes(rows: list[Timing]) -> list[str]:
    lines = [
        f"- **Aggregate sampler vs its draws** (target at most {DRAWS_TARGET}x; median of paired runs):"
    ]
    workloads = sorted({r.benchmark for r in rows if r.benchmark.startswith("aggregate samplers")})
    for workload in workloads:
        found = {
            r.variant: _draw_ratio(r)
            for r in rows
            if r.benchmark == workload and _draw_ratio(r) is not None
        }
        single = {v: x for v, x in found.items() if v.endswith("sampler / its draws")}
        plain = [x for v, x in single.items() if not v.startswith(("SHE", "CountMeanSketch"))]
        batched = [x for v, x in found.items() if "n_draws=" in v]
        others = "; ".join(
            f"{v.split(' sampler')[0]} {x:.2f}x"
            for v, x in single.items()
            if v.startswith(("SHE", "CountMeanSketch"))
        )
        lines.append(
            f"  - {workload.removeprefix('aggregate samplers, ')}: single calls {_span(plain)} "
            f"({others}); batched (`n_draws`) {_span(batched)}."
        )
    rappor = [
        r
        for r in rows
        if r.benchmark.startswith("RAPPOR bit counts") and r.variant == "sample_aggregate"
    ]
    if rappor:
        lines.append(f"  - {rappor[0].benchmark}: {_draw_ratio(rappor[0]):.2f}x.")
    lines.append(
        "  - A single call spends a fixed few µs validating the truth and in call overhead, which weighs on "
        "the small workload and on SHE's few gamma variates; for many small surveys, use `n_draws`."
    )
    return lines


FIELD_SAMPLERS, FIELD_DRAWS_TARGET = "field oracles' samplers", 1.5
OUTPUT_RATIO = re.compile(r"([\d,.]+)x two binomials over its")
FIELD_PEER = re.compile(r"^(\w+) eps=1, n=([\d,]+), d=(\d+)$")
#: the speed-up a peer row's note gives (the median of the paired ratios; older rows: the ratio of the medians)
PAIRED_SPEEDUP = re.compile(r"([\d,.]+)x our aggregate")


def _field_oracle_notes(rows: list[Timing]) -> list[str]:
    """SS, HR, HM, FLH and the sketches (``bench_field_oracles``): sampler vs its draws, vs its output, vs the peers."""
    samplers = [r for r in rows if r.benchmark.startswith(FIELD_SAMPLERS)]
    if not samplers:
        return []
    ratios = {
        f"{r.variant.split(' sampler')[0]} d={r.benchmark.rsplit('=', 1)[1]}": _draw_ratio(r)
        for r in samplers
    }
    over = [f"{name} {x:.2f}x" for name, x in ratios.items() if x > FIELD_DRAWS_TARGET]
    output = [float(OUTPUT_RATIO.search(r.note).group(1).replace(",", "")) for r in samplers]
    lines = [
        f"- **The field's oracles and the sketches** (SS, HR, HM, FLH, CMS, HCMS, PCS, Hashtogram, SR at d = 43 "
        f"and 1024): sampler vs its own draws replayed {_span(ratios.values())} (target at most "
        f"{FIELD_DRAWS_TARGET}x: "
        + (f"**NOT met** by {', '.join(over)}" if over else "met")
        + "); vs numpy "
        f"drawing two binomials over the cells of its output {_span(output, 1)} (SS's tree of histograms, "
        f"the sketches' per-value row split and the Hadamard halvings need more draws than the output has cells)."
    ]
    names = {r.variant.split(" sampler")[0] for r in samplers}
    ours = {
        r.benchmark: r.median_seconds
        for r in rows
        if r.variant == "our aggregate sampler"
        and (found := FIELD_PEER.match(r.benchmark))
        and found[1] in names
    }
    peers = [r for r in rows if r.benchmark in ours and r.variant in PEER_VARIANTS]
    if peers:
        speedup = {
            r: float(found[1].replace(",", ""))
            if (found := PAIRED_SPEEDUP.search(r.note))
            else r.median_seconds / ours[r.benchmark]
            for r in peers
        }
        under = [
            f"{m[1]} d={m[3]} n={m[2]} vs {r.variant.removesuffix(' per-user')} {x:,.0f}x"
            for r, x in speedup.items()
            if x < AGGREGATE_TARGET
            for m in [FIELD_PEER.match(r.benchmark)]
        ]
        lines.append(
            f"- **Their samplers against the peers that ship them** (n = 1e5 and 1e6, the peer timed on 1,000 users and "
            f"scaled, alternately with ours; target at least {AGGREGATE_TARGET:,.0f}x): {len(peers) - len(under)} of {len(peers)} rows "
            f"met, {_span(speedup.values(), 0)}"
            + (f"; under the target: {'; '.join(under)}." if under else ".")
        )
    return lines


def benchmark_notes(rows: list[Timing]) -> str:
    """The bullet list under the README's table."""
    return "\n".join(
        _frequency_oracle_notes(rows) + _sampler_notes(rows) + _field_oracle_notes(rows)
    )


def sweep_cost(rows: list[Timing]) -> str:
    """The README's "how the cost scales" paragraph, from ``bench_sweeps``' rows."""
    found = {r.variant: r.median_seconds for r in rows if r.benchmark.startswith("sweep: ")}
    if not found:
        return "(`make bench` did not run `bench_sweeps`.)"
    label = next(r.benchmark for r in rows if r.benchmark.startswith("sweep: "))
    one, four = found["in-process, 1 chunk"], found["in-process, 4 chunks"]
    loky = found["2 loky processes, 4 chunks"]
    dask = sorted(
        (int(re.search(r"(\d+) chunks", v).group(1)), t) for v, t in found.items() if "Dask" in v
    )
    (c_few, t_few), (c_mid, t_mid), (c_many, t_many) = dask
    per_chunk = (t_many - t_mid) / (c_many - c_mid) * 1e3
    load = re.search(
        r"load average ([\d.]+) on (\d+) cores", next(r.note for r in rows if r.benchmark == label)
    )
    busy = load is not None and float(load.group(1)) >= int(load.group(2))
    context = (
        f" The machine's load average was {load.group(1)} on {load.group(2)} cores while measuring"
        + (
            ": other processes held the CPUs, so the workers hardly ran side by side."
            if busy
            else "."
        )
        if load
        else ""
    )
    return (
        f"Measured ({label.removeprefix('sweep: ')} per input, a per-user Python client; the `sweep:` rows of "
        f"the benchmark table): in-process {one:.2f} s as one chunk and {four:.2f} s as 4; on 2 local processes "
        f"{loky:.2f} s ({one / loky:.1f}x the in-process speed); on a 2-worker Dask LocalCluster {t_few:.2f} s "
        f"with {c_few} chunks, {t_mid:.2f} s with {c_mid} and {t_many:.2f} s with {c_many} ({per_chunk:+.1f} ms "
        f"of wall time per extra chunk from {c_mid} to {c_many}).{context} On free cores the wall time divides "
        f"by the workers as long as there are at least as many chunks as workers and each chunk takes much "
        f"longer than the per-chunk overhead: a black-box client's batch runs in a forked child process (killed "
        f"if it hangs), once per chunk and input, plus Dask's scheduling; the numbers never depend on where "
        f"the chunks run, only on `chunk_size`."
    )


#: README blocks: (begin marker, end marker, writer)
BLOCKS = (
    (
        "<!-- BEGIN benchmark notes (written by `make bench`) -->",
        "<!-- END benchmark notes -->",
        benchmark_notes,
    ),
    ("<!-- BEGIN sweep cost (written by `make bench`) -->", "<!-- END sweep cost -->", sweep_cost),
)
