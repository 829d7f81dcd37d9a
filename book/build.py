"""Stage the book sources and run Sphinx: ``python book/build.py OUT [--committed]``.

Paper-profile notebooks come from build/paper (written by ``make figures``); with
``--committed`` the committed notebooks (smoke outputs) are used instead, which is what
tests/test_book.py does so that ``make test`` does not need ``make figures``.
"""
from __future__ import annotations

import json
import os
import re
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
        (dest / "notebooks" / nb.name).write_text(_book_links(nb.read_text(encoding="utf-8")), encoding="utf-8")
    fig = ROOT / "figures"
    if fig.exists() and not committed:
        shutil.copytree(fig, dest / "figures")
    return dest


_NOTEBOOK_LINK = re.compile(r"\]\((\d\d_[a-z0-9_]+)\.ipynb\)")
_FOLDER_LINK = re.compile(r"\[([^\]]+)\]\(\.\./figures/[^)]*/\)")


def _book_links(text: str) -> str:
    """Links written for Jupyter, made valid in the book.

    Markdown *outputs* (notebook 99's tables) are not resolved by Sphinx: a link to a sibling
    ``NN_slug.ipynb`` becomes its page ``NN_slug.html``; a link to a figures *folder* (a file
    browser in Jupyter, nothing in a static site) becomes plain text.
    """
    nb = json.loads(text)
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            md = out.get("data", {}).get("text/markdown")
            if md is not None:
                md = "".join(md) if isinstance(md, list) else md
                md = _FOLDER_LINK.sub(r"\1", _NOTEBOOK_LINK.sub(r"](\1.html)", md))
                out["data"]["text/markdown"] = md
    return json.dumps(nb, ensure_ascii=False, indent=1)


def build(out: Path, *, committed: bool) -> None:
    src = stage(out.parent / (out.name + "-src"), committed=committed)
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-c", str(src),
                    str(src), str(out)], check=True, cwd=ROOT,
                   env={**os.environ, "BOOK_ROOT": str(ROOT)})


if __name__ == "__main__":
    build(Path(sys.argv[1]).resolve(), committed="--committed" in sys.argv)
