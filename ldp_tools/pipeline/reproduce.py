"""Run the collection's notebooks with papermill under a profile.

Usage::

    python -m ldp_tools.pipeline.reproduce [--profile smoke|paper] [--only NAME ...] [--list] [--jobs N]

Executed notebooks go to ``build/<profile>/<stem>.ipynb`` (git-ignored).  Under the paper
profile the notebooks write their figures and ``claims.csv`` to a staging folder
(``build/staging/<profile>/<stem>/``, via ``LDP_FIGURES_DIR``); they are moved into
``figures/<stem>/`` only when the notebook succeeded, so a failed run leaves ``figures/`` untouched
and the notebooks that finished keep their outputs.  A failing notebook is reported with its name and failing cell, and the
command exits with status 1; bad arguments exit with status 2 and list the valid names.

**Robustness pass.**  When the profile lists ``robustness_seeds`` (the paper profile does), every notebook
with a ``seed`` parameter is also run under each of those seeds at the same sizes (executed copies in
``build/<profile>/robustness/seed<seed>/``).  A reseeded run computes the claims that can move with the seed
only (:mod:`~ldp_tools.pipeline._reseeds`): its cells tagged ``no-claims`` (figures, panels, printed checks),
those after the claims are written and those tagged ``seed-free`` that no kept cell reads are left out, and
``publish`` draws nothing; a notebook's seeds run one after the other in one kernel (one job).
The published ``claims.csv`` gets each row's ``stability`` (:mod:`~ldp_tools.pipeline.stability`) in the
same run, so a rerun writes the same bytes.  A reseeded run that fails fails its notebook.
Each notebook is two jobs (its run, its reseeded runs) on ``max(--jobs, --robustness-jobs)`` workers, the
longest first by the last run's times.

**Times.**  The run ends with its wall time and each notebook's seconds (its run under the profile's seed, each
reseeded run, and apart the cells tagged ``peer-clients``: audits that call the peers' own clients as black boxes,
which run at those clients' speed); they are also written to ``build/<profile>/timings.json`` (:func:`_read_timings`),
never to ``figures/``: a rerun must write the same bytes there.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import math
import multiprocessing
import os
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from ldp_helpers._validation import check_choice, check_int, check_real, fail
from ldp_tools.pipeline import paths
from ldp_tools.pipeline._reseeds import reseeds_notebook, segment
from ldp_tools.pipeline.claim_rows import _read_claims_csv, claims_csv
from ldp_tools.pipeline.claim_texts import _load_claim_texts
from ldp_tools.pipeline.notebook import CLAIMS_ONLY_ENV, LEFT_OUT_ENV
from ldp_tools.pipeline.profiles import (
    load_profile,
    notebook_parameters,
    parameters_source,
    profile_names,
    robustness_seeds,
)
from ldp_tools.pipeline.stability import _stability_counts, _with_stability

#: notebooks whose stem starts with this summarize the others (they run after them)
REPORT_PREFIX = "99_"
#: the tag of the cells that run the peers' own clients as black boxes (their time is reported apart)
PEER_TAG = "peer-clients"


@dataclass
class RunResult:
    stem: str
    ok: bool
    seconds: float
    detail: str
    #: seconds of the cells tagged PEER_TAG (the peers' clients as black boxes)
    peer_seconds: float = 0.0
    #: CPU seconds of the kernel and the processes it started (a measure that the machine's load hardly moves)
    cpu_seconds: float = 0.0


def _summarize_outputs(stem: str, wrote_outputs: bool) -> str:
    if not wrote_outputs:
        return "figures not written (profile leaves save_figures off)"
    folder = paths.FIGURES_DIR / stem
    n_figures = len(list(folder.glob("*.png")))
    claims_file = folder / "claims.csv"
    if not claims_file.exists():
        return f"{n_figures} figures, no claims.csv"
    rows = _read_claims_csv(claims_file)
    verdicts = collections.Counter(r.verdict for r in rows)
    detail = ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items()))
    stable = ", ".join(f"{n} {kind}" for kind, n in _stability_counts(rows).items() if n)
    return f"{n_figures} figures, {len(rows)} claims ({detail}; {stable})"


def _kernel_config():
    """Traitlets config for the kernels we start: CurveZMQ-encrypted transport, required.

    ipykernel ≥ 7.3 warns on stderr at every start of an unencrypted TCP kernel; requiring
    encryption (pyzmq ships libsodium) removes the warning for the right reason.  The kernel manager
    does not interrupt an idle kernel at shutdown, which made ipykernel log "ERROR | KeyboardInterrupt"
    now and then (:mod:`ldp_tools.pipeline._kernels`).
    """
    from traitlets.config import Config

    return Config(
        {
            "KernelManager": {"transport_encryption": "required"},
            "NotebookClient": {
                "kernel_manager_class": "ldp_tools.pipeline._kernels.QuietShutdownKernelManager"
            },
        }
    )


def _staging(stem: str, profile_name: str, seed=None) -> Path:
    base = paths.BUILD_DIR / "staging" / profile_name
    return base / stem if seed is None else base / "robustness" / f"{stem}.seed{seed}"


def _environment(staging: Path, left_out=None):
    """Set the kernel's environment (this worker process only): its outputs' folder, and for a claims-only
    run the claims-file names it leaves out (``left_out``; None: not claims-only); returns the previous
    values for :func:`_restore`."""
    claims_only = left_out is not None
    environment = {
        "LDP_FIGURES_DIR": str(staging),
        CLAIMS_ONLY_ENV: "1" if claims_only else None,
        LEFT_OUT_ENV: json.dumps(sorted(left_out)) if claims_only else None,
    }
    previous = {name: os.environ.get(name) for name in environment}
    _restore(environment)
    return previous


def _restore(values: dict) -> None:
    for name, value in values.items():
        os.environ.pop(name, None) if value is None else os.environ.update({name: value})


def _run_staged(stem: str, profile_name: str, parameters: dict) -> RunResult:
    """The run under the profile's seed, its outputs in a staging folder (``LDP_FIGURES_DIR``)."""
    staging = _staging(stem, profile_name)
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    out_dir = paths.BUILD_DIR / profile_name
    previous = _environment(staging)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        return _execute(stem, _with_parameters(stem, parameters, out_dir), out_dir)
    finally:
        _restore(previous)


def _run_reseeds(stem: str, profile_name: str, parameters: dict, seeds: list) -> tuple:
    """The robustness pass of one notebook: its claims-only runs under ``seeds``, one after the other in one
    kernel (:func:`~ldp_tools.pipeline._reseeds.reseeds_notebook`): ``({seed: RunResult}, ids of the rows left
    out)``.  Each seed's claims land in its own staging folder, its executed cells in
    ``build/<profile>/robustness/seed<seed>/<stem>.ipynb``; its CPU time is its share of the kernel's."""
    import nbformat

    staging = _staging(stem, profile_name, "s")
    targets = {seed: _staging(stem, profile_name, seed) for seed in seeds}
    for folder in [staging, *targets.values()]:
        shutil.rmtree(folder, ignore_errors=True)
    staging.mkdir(parents=True)
    out_dir = paths.BUILD_DIR / profile_name / "robustness"
    out_dir.mkdir(parents=True, exist_ok=True)
    nb, left_out = reseeds_notebook(
        nbformat.read(paths.NOTEBOOKS_DIR / f"{stem}.ipynb", as_version=4),
        seeds,
        lambda seed: parameters_source({**parameters, "seed": seed}),
        staging,
        targets,
    )
    source = out_dir / f"{stem}.input.ipynb"
    nbformat.write(nb, source)
    previous = _environment(staging, left_out)
    try:
        combined = _execute(stem, source, out_dir)
    finally:
        _restore(previous)
        shutil.rmtree(staging, ignore_errors=True)
    executed = out_dir / f"{stem}.ipynb"
    ran = nbformat.read(executed, as_version=4) if executed.exists() else None
    results, failed = {}, None
    for seed in seeds:
        if failed is not None or ran is None:
            results[seed] = RunResult(
                stem,
                False,
                0.0,
                combined.detail
                if ran is None
                else f"not run: seed {failed} failed before it in the same kernel",
            )
            continue
        cells = segment(ran, seed)
        (out_dir / f"seed{seed}").mkdir(exist_ok=True)
        nbformat.write(cells, out_dir / f"seed{seed}" / f"{stem}.ipynb")
        seconds = _tagged_seconds(cells)
        detail = _failure(cells) or ("" if targets[seed].exists() else combined.detail)
        results[seed] = RunResult(
            stem,
            not detail,
            seconds,
            detail,
            _tagged_seconds(cells, PEER_TAG),
            combined.cpu_seconds * seconds / max(combined.seconds, 1e-9),  # its share
        )
        failed = seed if detail else None
    return results, _row_ids(stem, left_out)


def _failure(nb) -> str:
    """How an executed notebook failed: its first cell with an error, or its text on stderr; "" if neither."""
    for index, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                return f"failed in cell {index}: {out.get('ename')}: {out.get('evalue')}"
    stderr = "".join(
        o.get("text", "")
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.get("output_type") == "stream" and o.get("name") == "stderr"
    )
    # the paper profile must run warning-free
    return f"wrote to stderr (a warning?): {stderr.splitlines()[0][:200]}" if stderr else ""


def _row_ids(stem: str, names: set) -> set:
    """The ids of the claims-yaml entries ``names`` of a notebook (names without an entry: none)."""
    texts = _load_claim_texts(stem) or {}
    return {texts[name].id for name in names if name in texts}


def _finish(
    stem: str,
    profile_name: str,
    parameters: dict,
    result: RunResult,
    reseeded: dict,
    seed_free: set = frozenset(),
) -> RunResult:
    """Publish a successful run (its claims with their stability over the reseeded runs ``{seed: RunResult}``;
    ``seed_free``: the ids of the rows those runs left out, cells tagged ``seed-free``), or report the first
    failure; the staging folders are removed either way."""
    try:
        failed = [("", result)] * (not result.ok) + [
            (f"reseeded run (seed {s}) ", r) for s, r in reseeded.items() if not r.ok
        ]
        if failed:
            return RunResult(stem, False, result.seconds, failed[0][0] + failed[0][1].detail)
        claims_file = _staging(stem, profile_name) / stem / "claims.csv"
        if reseeded:
            try:
                runs = {
                    s: _read_claims_csv(_staging(stem, profile_name, s) / stem / "claims.csv")
                    for s in reseeded
                }
                rows = _with_stability(_read_claims_csv(claims_file), runs, seed_free=seed_free)
            except (OSError, ValueError) as err:
                return RunResult(stem, False, result.seconds, f"robustness pass failed: {err}")
            claims_file.write_text(claims_csv(rows), encoding="utf-8")
        _publish(_staging(stem, profile_name) / stem, paths.FIGURES_DIR / stem)
        extra = sum(r.seconds for r in reseeded.values())
        detail = _summarize_outputs(stem, bool(parameters.get("save_figures")))
        return RunResult(
            stem,
            True,
            result.seconds,
            detail + (f"; {len(reseeded)} reseeded runs, {extra:.0f} s" if reseeded else ""),
        )
    finally:
        for seed in [None, *reseeded]:
            shutil.rmtree(_staging(stem, profile_name, seed), ignore_errors=True)


def _publish(staged, target) -> None:
    """Move every staged file into ``target`` (each move is an atomic rename on one file system)."""
    if not staged.is_dir():
        return
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(staged.iterdir()):
        shutil.move(str(path), str(target / path.name))


def _execute(stem: str, source: Path, out_dir: Path) -> RunResult:
    """Execute the notebook ``source`` (parameters already injected) to ``out_dir/<stem>.ipynb``."""
    import nbformat
    import papermill
    from papermill.exceptions import PapermillExecutionError

    start, cpu_start = time.perf_counter(), _children_cpu_seconds()
    try:
        papermill.execute_notebook(
            str(source),
            str(out_dir / f"{stem}.ipynb"),
            parameters=None,  # injected as literals, never by papermill's translator
            cwd=str(paths.NOTEBOOKS_DIR),
            progress_bar=False,
            log_output=False,
            config=_kernel_config(),
        )
    except PapermillExecutionError as err:
        detail = f"failed in cell {err.cell_index} (execution count {err.exec_count}): {err.ename}: {err.evalue}"
        return RunResult(stem, False, time.perf_counter() - start, detail)
    except Exception as err:  # kernel died, notebook unreadable, ...: still report by name
        return RunResult(
            stem, False, time.perf_counter() - start, f"failed: {type(err).__name__}: {err}"
        )
    seconds = time.perf_counter() - start
    executed = nbformat.read(out_dir / f"{stem}.ipynb", as_version=4)
    if detail := _failure(executed):  # a warning on stderr
        return RunResult(stem, False, seconds, detail)
    return RunResult(
        stem,
        True,
        seconds,
        "",
        peer_seconds=_tagged_seconds(executed, PEER_TAG),
        cpu_seconds=_children_cpu_seconds() - cpu_start,
    )


def _children_cpu_seconds() -> float:
    """User + system CPU seconds of this process's finished (waited-for) descendants: the kernels, once shut down."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _with_parameters(stem: str, parameters: dict, out_dir) -> Path:
    """The notebook with an ``injected-parameters`` cell after its ``parameters`` cell, written to
    ``out_dir/<stem>.input.ipynb``: ``name = literal`` lines from :func:`~ldp_tools.pipeline.profiles.parameters_source`
    (papermill's own injection splices names and escapes strings by hand; ours writes checked data only)."""
    import nbformat

    nb = nbformat.read(paths.NOTEBOOKS_DIR / f"{stem}.ipynb", as_version=4)
    where = next(
        i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])
    )
    if parameters:
        cell = nbformat.v4.new_code_cell(
            parameters_source(parameters), metadata={"tags": ["injected-parameters"]}
        )
        nb.cells.insert(where + 1, cell)
    target = out_dir / f"{stem}.input.ipynb"
    nbformat.write(nb, target)
    return target


def _tagged_seconds(nb, tag: str | None = None) -> float:
    """Seconds papermill recorded for the cells with ``tag`` (every cell: None) of an executed notebook."""
    return sum(
        float(c.metadata.get("papermill", {}).get("duration") or 0.0)
        for c in nb.cells
        if tag is None or tag in c.metadata.get("tags", [])
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ldp_tools.pipeline.reproduce",
        description="Execute the ldp-notebooks notebooks with papermill under a profile.",
    )
    parser.add_argument(
        "--profile", default="smoke", help="profile name (default: smoke = the notebooks' defaults)"
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="NAME",
        help="run only these notebooks (stems such as 00_tutorial)",
    )
    parser.add_argument(
        "--list", action="store_true", help="list notebooks, profiles and parameters, then exit"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="notebooks to run in parallel (default 1)"
    )
    parser.add_argument(
        "--robustness-jobs",
        type=int,
        default=2,
        help="workers when there are reseeded runs (robustness_seeds): at least this many (default 2)",
    )
    return parser


def _list(out) -> None:
    print("profiles: " + ", ".join(profile_names()), file=out)
    profiles = {}
    for name in profile_names():  # a malformed profile is reported, the others still listed
        try:
            profiles[name] = load_profile(name)
        except ValueError as err:
            print(f"profile {name}: refused ({err})", file=out)
    for stem in paths._notebook_stems():
        print(stem, file=out)
        for param, default in notebook_parameters(stem).items():
            overrides = "".join(
                f"  {name}={profiles[name][stem][param]!s}"
                for name in profiles
                if param in profiles[name][stem]
            )
            print(f"    {param} = {default}{overrides}", file=out)


def _reseeds(stem: str, parameters: dict, seeds: list) -> list:
    """The robustness pass's seeds for one notebook: the profile's ``robustness_seeds`` for a notebook that has a
    ``seed`` parameter and writes its claims (not the report), none otherwise; its own seed must not be among them."""
    declared = notebook_parameters(stem)
    if (
        not seeds
        or stem.startswith(REPORT_PREFIX)
        or "seed" not in declared
        or not parameters.get("save_figures")
    ):
        return []
    own = parameters.get("seed", ast.literal_eval(declared["seed"]))
    if own in seeds:
        raise ValueError(f"robustness_seeds must differ from {stem}'s own seed {own}; got {seeds}")
    return list(seeds)


def _estimates(timings: dict) -> dict:
    """``{(stem, "run" or "reseeds"): seconds}`` of the last runs (:func:`_read_timings`), to schedule the longest
    jobs first."""
    return {
        (stem, kind): seconds
        for stem, t in timings.get("notebooks", {}).items()
        for kind, seconds in (("run", t["seconds"]), ("reseeds", sum(t["reseeds"].values())))
    }


def _jobs(stems: list, reseeds: dict, estimate: dict) -> list:
    """Two jobs per notebook, ``(stem, "run")`` and (when it has reseeded runs, in one kernel)
    ``(stem, "reseeds")``, the longest first by ``estimate`` (:func:`_estimates`; never timed: first), so that
    the workers finish together."""
    jobs = [(stem, kind) for stem in stems for kind in ["run"] + ["reseeds"] * bool(reseeds[stem])]
    return sorted(jobs, key=lambda job: -estimate.get(job, math.inf))


def _timings_path(profile_name: str) -> Path:
    """``build/<profile>/timings.json``: the times of the last runs under a profile (git-ignored)."""
    return paths.BUILD_DIR / profile_name / "timings.json"


#: the times of each notebook's entry in timings.json (its reseeds apart)
TIMES = ("seconds", "peer_seconds", "cpu_seconds", "reseeds_cpu_seconds")


def _read_timings(profile_name: str) -> dict:
    """The times written by the last runs under a profile (the module's **Times**); {} when there are none, or when
    the file is unreadable or not of this form (a hand-edited or corrupt file is refused whole, never half-read).

    ``{"wall_seconds": s, "jobs": n, "notebooks": {stem: {"seconds": s, "reseeds": {seed: s}, "peer_seconds": s,
    "cpu_seconds": s, "reseeds_cpu_seconds": s}}}``: every time a finite number ≥ 0 (not a bool, not text), ``jobs``
    a whole number ≥ 1, each reseed keyed by its seed's digits.
    """
    check_choice("profile_name", profile_name, profile_names())
    try:  # none yet, or not ours: nothing to show
        timings = json.loads(_timings_path(profile_name).read_text(encoding="utf-8"))
        if not isinstance(timings, dict):
            return {}
        for entry in timings and timings["notebooks"].values():
            for key in TIMES:
                check_real(key, entry[key], low=0.0, low_open=False)
            for seed, value in entry["reseeds"].items():
                if not str(seed).isdigit():
                    fail("reseeds", seed, "keyed by the seeds' digits")
                check_real("reseeds", value, low=0.0, low_open=False)
        if timings:
            check_real("wall_seconds", timings["wall_seconds"], low=0.0, low_open=False)
            check_int("jobs", timings["jobs"], low=1)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}
    return timings


def _timings_text(timings: dict) -> str:
    """The times of :func:`_read_timings` as lines: each notebook (its run and its reseeded runs), the peers'
    black-box audits on a line of their own, the total wall time."""
    if not timings:
        return "(no times yet: `make figures` writes them to build/paper/timings.json)"
    lines = []
    for stem, t in sorted(timings["notebooks"].items()):
        reseeds = " + ".join(
            f"{v:.0f}" for _, v in sorted(t["reseeds"].items(), key=lambda kv: int(kv[0]))
        )
        lines.append(
            f"  {stem:<26} {t['seconds']:7.1f} s (cpu {t['cpu_seconds']:.0f} s)"
            + (
                f"   reseeded runs (claims only) {reseeds} s (cpu {t['reseeds_cpu_seconds']:.0f} s)"
                if reseeds
                else ""
            )
        )
    peers = [
        (stem, t["peer_seconds"], 1 + len(t["reseeds"]))
        for stem, t in sorted(timings["notebooks"].items())
        if t["peer_seconds"]
    ]
    lines += [
        f"peers' black-box audits ({stem}, cells tagged {PEER_TAG}, {runs} run(s)): {s:.1f} s"
        for stem, s, runs in peers
    ]
    lines.append(f"total wall time {timings['wall_seconds']:.0f} s with {timings['jobs']} job(s)")
    return "\n".join(lines)


def _write_timings(profile_name: str, runs: dict, wall_seconds: float, jobs: int) -> dict:
    """Merge this run's ``{stem: {seed or None: RunResult}}`` (successful notebooks) into the timings file."""
    notebooks = _read_timings(profile_name).get("notebooks", {})
    for stem, by_seed in runs.items():
        notebooks[stem] = {
            "seconds": round(by_seed[None].seconds, 2),
            "reseeds": {str(s): round(r.seconds, 2) for s, r in by_seed.items() if s is not None},
            "peer_seconds": round(sum(r.peer_seconds for r in by_seed.values()), 2),
            "cpu_seconds": round(by_seed[None].cpu_seconds, 2),
            "reseeds_cpu_seconds": round(
                sum(r.cpu_seconds for s, r in by_seed.items() if s is not None), 2
            ),
        }
    timings = {"wall_seconds": round(wall_seconds, 1), "jobs": jobs, "notebooks": notebooks}
    path = _timings_path(profile_name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(timings, indent=1, sort_keys=True), encoding="utf-8")
    return timings


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        for flag, jobs in (("--jobs", args.jobs), ("--robustness-jobs", args.robustness_jobs)):
            if jobs < 1:
                raise ValueError(f"{flag} must be an integer >= 1; got {jobs}")
        if args.list:
            _list(sys.stdout)
            return 0
        profile = load_profile(args.profile)
        selected = paths._select_notebooks(paths._notebook_stems(), args.only)
        seeds = robustness_seeds(args.profile)
        reseeds = {stem: _reseeds(stem, profile[stem], seeds) for stem in selected}
    except ValueError as err:
        parser.error(str(err))

    total, started = len(selected), time.perf_counter()
    # the report notebooks (99_…) read the others' claims: they run last, after every other one finished
    waves = [
        [s for s in selected if not s.startswith(REPORT_PREFIX)],
        [s for s in selected if s.startswith(REPORT_PREFIX)],
    ]
    extra = sum(map(len, reseeds.values()))
    # the reseeded runs of the robustness pass share the pool (--robustness-jobs workers, default 2)
    workers = min(max(args.jobs, args.robustness_jobs if extra else 1), os.cpu_count() or 1)
    print(
        f"Running {total} notebook(s) under the {args.profile!r} profile with up to {workers} job(s)"
        + (
            f", plus {extra} reseeded run(s) (seeds {', '.join(map(str, seeds))})."
            if extra
            else "."
        ),
        flush=True,
    )
    results: dict[str, RunResult] = {}
    runs_of: dict[str, dict] = {}  # every run of each successful notebook, for the times
    timings: dict = {}
    estimate = _estimates(_read_timings(args.profile))
    for wave in filter(None, waves):
        jobs = _jobs(wave, reseeds, estimate)
        pending: dict[str, dict] = {stem: {} for stem in wave}
        # One worker process per running job: kernels and papermill's event loops stay isolated.
        # "fork" keeps the parent's path settings (tests point them at a sandbox).
        with ProcessPoolExecutor(
            max_workers=min(workers, len(jobs)), mp_context=multiprocessing.get_context("fork")
        ) as pool:
            futures = {
                pool.submit(_run_staged, stem, args.profile, profile[stem])
                if kind == "run"
                else pool.submit(_run_reseeds, stem, args.profile, profile[stem], reseeds[stem]): (
                    stem,
                    kind,
                )
                for stem, kind in jobs
            }
            for future in as_completed(futures):
                stem, kind = futures[future]
                try:
                    res = future.result()
                except Exception as err:  # a worker died: report this notebook, keep the others
                    failed = RunResult(stem, False, 0.0, f"failed: {type(err).__name__}: {err}")
                    res = failed if kind == "run" else ({s: failed for s in reseeds[stem]}, set())
                if kind == "run":
                    pending[stem][None] = res
                else:
                    pending[stem].update(res[0])
                    pending[stem]["seed-free"] = res[1]
                    for seed, r in res[0].items():
                        status = "ok" if r.ok else "FAILED"
                        print(
                            f"      {stem} under seed {seed}: {status} in {r.seconds:.1f} s",
                            flush=True,
                        )
                if None in pending[stem] and (not reseeds[stem] or "seed-free" in pending[stem]):
                    # every run of this notebook is in: decide and publish
                    done = pending.pop(stem)
                    seed_free = done.pop("seed-free", set())
                    results[stem] = res = _finish(
                        stem,
                        args.profile,
                        profile[stem],
                        done[None],
                        {s: r for s, r in done.items() if s is not None},
                        seed_free,
                    )
                    if res.ok:  # its times written at once: an interrupted run keeps those of the finished notebooks
                        runs_of[stem] = done
                        timings = _write_timings(
                            args.profile, {stem: done}, time.perf_counter() - started, workers
                        )
                    status = "ok" if res.ok else "FAILED"
                    print(
                        f"[{len(results)}/{total}] {stem}: {status} in {res.seconds:.1f} s ({total - len(results)} left)",
                        flush=True,
                    )
        # the wall time so far, after each wave: the report (last wave) lists the others' times
        timings = _write_timings(args.profile, {}, time.perf_counter() - started, workers)

    print("\nSummary:")
    for stem in selected:
        r = results[stem]
        print(f"  {stem:<34} {'ok' if r.ok else 'FAILED':<6} {r.seconds:7.1f} s  {r.detail}")
    this_run = {
        **timings,
        "notebooks": {s: t for s, t in timings.get("notebooks", {}).items() if s in runs_of},
    }
    print(
        f"\nTimes ({_timings_path(args.profile).relative_to(paths.BUILD_DIR.parent)}):\n"
        + _timings_text(this_run)
    )
    failed = [s for s in selected if not results[s].ok]
    if failed:
        print(
            f"\n{len(failed)} notebook(s) failed: {', '.join(failed)}; executed copies are in {paths.BUILD_DIR / args.profile}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
