"""Run every ``bench_*.py`` module in this folder and print one table of medians and ratios.

Usage: ``make bench`` (or ``.venv/bin/python tests/benchmarks/run.py [NAME ...]``).
Each module defines ``run(rng) -> list[Timing]``; the first variant of each benchmark is the
baseline of its ratios.
"""

import importlib
import platform
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from timing import format_table  # noqa: E402


def main(argv: list[str]) -> int:
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
    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, python {platform.python_version()}, numpy {np.__version__}")
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
