"""Run every ``bench_*.py`` module in this folder and print one table of medians and ratios.

Usage: ``make bench`` (or ``.venv/bin/python tests/benchmarks/run.py [--write-readme] [NAME ...]``).
Each module defines ``run(rng) -> list[Timing]``; the first variant of each benchmark is the
baseline of its ratios.  With ``--write-readme`` (every benchmark, no names) the table (with the machine it was
measured on and the date) replaces the README's benchmark section, and the prose around it is written from the
same rows (:mod:`prose`): no figure in the README can disagree with the table.
"""

import datetime
import importlib
import json
import os
import platform
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from prose import BLOCKS  # noqa: E402
from timing import format_table  # noqa: E402

README = Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md"  # its benchmark section
#: the rows behind the README's table and prose (tests/test_benchmark_prose.py regenerates both from them)
RESULTS = Path(__file__).resolve().parent / "results.json"
BEGIN, END = "<!-- BEGIN benchmarks (written by `make bench`) -->", "<!-- END benchmarks -->"


def machine_description() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}"


def _replace(text: str, begin: str, end: str, body: str) -> str:
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise ValueError(f"README.md lacks the markers {begin} ... {end}")
    return text[:start] + f"{begin}\n{body}\n{end}" + text[stop + len(end) :]


def readme_text(text: str, rows, machine: str, date: str) -> str:
    """``text`` (the README) with the table and every prose block of :data:`prose.BLOCKS` written from ``rows``."""
    text = _replace(
        text, BEGIN, END, f"Measured on {machine}, {date}:\n\n```\n{format_table(rows)}\n```"
    )
    for begin, end, writer in BLOCKS:
        text = _replace(text, begin, end, writer(rows))
    return text


def write_readme(rows, machine: str) -> None:
    """The README's table and prose, and :data:`RESULTS` (the rows, the machine and the date they come from)."""
    date = datetime.date.today().isoformat()
    RESULTS.write_text(
        json.dumps(
            {"machine": machine, "date": date, "rows": [asdict(r) for r in rows]},
            indent=1,
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    README.write_text(
        readme_text(README.read_text(encoding="utf-8"), rows, machine, date), encoding="utf-8"
    )


def main(argv: list[str]) -> int:
    write = "--write-readme" in argv
    argv = [a for a in argv if a != "--write-readme"]
    here = Path(__file__).parent
    modules = sorted(p.stem for p in here.glob("bench_*.py"))
    if argv:
        unknown = [a for a in argv if a not in modules]
        if unknown:
            print(
                f"unknown benchmark(s) {', '.join(unknown)}; valid names: {', '.join(modules)}",
                file=sys.stderr,
            )
            return 2
        modules = argv
        if write:
            print(
                "--write-readme needs every benchmark (the README's prose quotes them all); give no names",
                file=sys.stderr,
            )
            return 2
    rows, start = [], time.perf_counter()
    for name in modules:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        begun = time.perf_counter()
        rows += importlib.import_module(name).run(np.random.default_rng(20261121))
        print(f"  {name}: {time.perf_counter() - begun:.0f} s", file=sys.stderr, flush=True)
    print(
        f"every benchmark: {time.perf_counter() - start:.0f} s of wall time, load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores",
        file=sys.stderr,
        flush=True,
    )
    machine, table = machine_description(), format_table(rows)
    print(f"machine: {machine}")
    print(table)
    if write:
        write_readme(rows, machine)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
