"""Stage the book sources and run Sphinx: ``python book/build.py OUT [--committed]``.

Paper-profile notebooks come from build/paper (written by ``make figures``); with
``--committed`` the committed notebooks (smoke outputs) are used instead, which is what
tests/test_book.py does so that ``make test`` does not need ``make figures``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def stage(dest: Path, *, committed: bool) -> Path:
    """Copy book/*.md, conf.py and the notebooks into ``dest``; return it."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for f in (ROOT / "book").iterdir():
        if f.suffix in {".md", ".py", ".bib"} and f.name != "build.py":
            shutil.copy(f, dest / f.name)
    src = ROOT / "notebooks" if committed else ROOT / "build" / "paper"
    nbs = sorted(src.glob("[0-9][0-9]_*.ipynb"))
    if not nbs:
        raise FileNotFoundError(f"no notebooks under {src}; run `make figures` first")
    (dest / "notebooks").mkdir()
    for nb in nbs:
        shutil.copy(nb, dest / "notebooks" / nb.name)
    fig = ROOT / "figures"
    if fig.exists() and not committed:
        shutil.copytree(fig, dest / "figures")
    return dest


def build(out: Path, *, committed: bool) -> None:
    src = stage(out.parent / (out.name + "-src"), committed=committed)
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-c", str(src),
                    str(src), str(out)], check=True, cwd=ROOT,
                   env={**os.environ, "BOOK_ROOT": str(ROOT)})


if __name__ == "__main__":
    build(Path(sys.argv[1]).resolve(), committed="--committed" in sys.argv)
