"""Run every ``bench_*.py`` module in this folder and print one table of medians and ratios.

Usage: ``make bench`` (or ``.venv/bin/python tests/benchmarks/run.py [--write-readme] [NAME ...]``).
Each module defines ``run(rng) -> list[Timing]``; the first variant of each benchmark is the
baseline of its ratios.  With ``--write-readme`` the table (with the machine it was measured on
and the date) replaces the README's benchmark section.
"""

import datetime
import importlib
import os
import platform
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from timing import format_table  # noqa: E402


README = Path(__file__).resolve().parents[2] / "README.md"
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


def write_readme(table: str, machine: str) -> None:
    text = README.read_text(encoding="utf-8")
    start, stop = text.find(BEGIN), text.find(END)
    if start < 0 or stop < start:
        raise ValueError("README.md lacks the benchmark section markers")
    block = f"{BEGIN}\nMeasured on {machine}, {datetime.date.today().isoformat()}:\n\n```\n{table}\n```\n{END}"
    README.write_text(text[:start] + block + text[stop + len(END):], encoding="utf-8")


def main(argv: list[str]) -> int:
    write = "--write-readme" in argv
    argv = [a for a in argv if a != "--write-readme"]
    here = Path(__file__).parent
    modules = sorted(p.stem for p in here.glob("bench_*.py"))
    if argv:
        unknown = [a for a in argv if a not in modules]
        if unknown:
            print(f"unknown benchmark(s) {', '.join(unknown)}; valid names: {', '.join(modules)}", file=sys.stderr)
            return 2
        modules = argv
    rows = []
    for name in modules:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows += importlib.import_module(name).run(np.random.default_rng(20261121))
    machine, table = machine_description(), format_table(rows)
    print(f"machine: {machine}")
    print(table)
    if write:
        write_readme(table, machine)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
