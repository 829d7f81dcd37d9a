"""Stage the book sources and run Sphinx: ``python book/build.py OUT [--from DIR] [--profile NAME]``.

``make book`` builds from ``build/paper`` (the paper-profile executions written by ``make figures``);
tests/pipeline/test_book.py executes one chapter with the same runner at the smoke profile into a temporary folder,
adds the other notebooks' committed smoke outputs (nbval re-executes those, comparing text outputs; it does
not compare images) and builds from there (``--from DIR --profile smoke``).

Staging turns executed notebooks into book pages (nothing is executed here):

* the profile banner under each title says which profile the page shows;
* an exercise's solution (a cell tagged ``solution``) is folded, code *and* output, behind one
  "Show the solution" toggle;
* the cell that writes the claims (``claims.write_csv(``) shows its table, not its code;
* a printed output with TeX maths (``$…\\command…$``) is shown as Markdown, its maths typeset;
* saved widget state is dropped (it would make MyST-NB load require.js and the widget manager
  from a CDN); a panel's output keeps its PNG and text;
* a link to a figures *folder* (a file browser in Jupyter, nothing in a static site) becomes plain
  text; links to a sibling ``NN_slug.ipynb`` are resolved by MyST (Markdown outputs are parsed as MyST).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BANNER = re.compile(r"^> Stored outputs are [^\n]*profile[^\n]*$", re.M)
BANNERS = {
    "paper": "> This page shows the **paper profile** (the papers' sizes), executed by `make figures`; the "
    "notebook in `notebooks/` stores the fast smoke profile (download it with the button above "
    "and run it, or change its parameters).",
    "smoke": "> This page shows the fast **smoke profile** (the notebook's defaults); `make book` shows the "
    "paper profile.",
}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
SOLUTION_PROMPTS = {
    "code_prompt_show": "Show the solution",
    "code_prompt_hide": "Hide the solution",
}


def stage(dest: Path, *, source: Path, profile: str) -> Path:
    """Copy book/*.md, conf.py, _static and the executed notebooks under ``source`` into ``dest``."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for f in (ROOT / "book").iterdir():
        if f.suffix in {".md", ".py", ".bib"} and f.name != "build.py":
            shutil.copy(f, dest / f.name)
    glossary = dest / "glossary.md"
    glossary.write_text(
        glossary.read_text(encoding="utf-8").replace(NOTATION_MARK, notation_table()),
        encoding="utf-8",
    )
    for folder in ("_static", "_templates"):
        shutil.copytree(ROOT / "book" / folder, dest / folder)
    nbs = sorted(p for p in source.glob("[0-9][0-9]_*.ipynb") if ".input" not in p.suffixes)
    if not nbs:
        raise FileNotFoundError(f"no executed notebooks under {source}; run `make figures` first")
    (dest / "notebooks").mkdir()
    for nb in nbs:
        page = book_page(json.loads(nb.read_text(encoding="utf-8")), profile=profile)
        (dest / "notebooks" / nb.name).write_text(
            json.dumps(page, ensure_ascii=False, indent=1), encoding="utf-8"
        )
    fig = ROOT / "figures"
    if fig.exists():
        shutil.copytree(fig, dest / "figures", ignore=shutil.ignore_patterns("*.md"))
    return dest


NOTATION_MARK = "<!-- notation table: generated from book/notation.yaml by book/build.py -->"


def notation_table() -> str:
    """book/notation.yaml as the glossary's Markdown table: symbol, meaning, where it is defined."""
    import yaml

    rows = yaml.safe_load((ROOT / "book" / "notation.yaml").read_text(encoding="utf-8"))
    lines = ["| symbol | meaning | defined in |", "|---|---|---|"]
    for row in rows:
        where = ", ".join(
            f"[{Path(f).stem}](notebooks/{Path(f).stem}.ipynb)"
            if f.startswith("notebooks/")
            else f"`{f.removesuffix('.py').replace('/', '.')}`"
            for f in row["where"]
        )
        lines.append(f"| {row['symbol']} | {row['meaning']} | {where} |".replace("\n", " "))
    return "\n".join(lines)


_FOLDER_LINK = re.compile(r"\[([^\]]+)\]\(\.\./figures/[^)]*/\)")


def book_page(nb: dict, *, profile: str) -> dict:
    """One executed notebook made into a book page (see the module docstring)."""
    nb["metadata"].pop("widgets", None)
    banner = BANNERS.get(profile, f"> This page shows the **{profile}** profile.")
    title = next(c for c in nb["cells"] if c["cell_type"] == "markdown")
    src = "".join(title["source"])
    src = (
        BANNER.sub(banner, src)
        if BANNER.search(src)
        else re.sub(r"^(# [^\n]*\n)", rf"\1\n{banner}\n", src, 1)
    )
    title["source"] = src
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if "solution" in tags:
            cell["metadata"]["tags"] = [
                t for t in tags if t not in {"hide-input", "hide-output"}
            ] + ["hide-cell"]
            cell["metadata"].setdefault("mystnb", {}).update(SOLUTION_PROMPTS)
        if cell["cell_type"] == "code" and WRITING_CELL in "".join(cell["source"]):
            cell["metadata"]["tags"] = [
                *tags,
                "remove-input",
            ]  # the claims table shows; the code that writes it not
        if "outputs" in cell:
            cell["outputs"] = [_typeset(out) for out in cell["outputs"]]
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            data.pop(WIDGET_VIEW, None)
            md = data.get("text/markdown")
            if md is not None:
                md = "".join(md) if isinstance(md, list) else md
                data["text/markdown"] = _FOLDER_LINK.sub(r"\1", md)
    return nb


WRITING_CELL = "claims.write_csv("  # the cell that writes a chapter's claims and shows their table
_TEX = re.compile(r"\$[^$\n]*\\[A-Za-z]+[^$\n]*\$")  # $…\command…$ in a printed line
_MATH = re.compile(r"(\$[^$\n]+\$)")
_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>$~])")


def _typeset(out: dict) -> dict:
    """A printed output with TeX maths becomes Markdown (its maths typeset, the rest escaped, one line per line)."""
    text = "".join(out.get("text", "")) if out.get("output_type") == "stream" else ""
    if not _TEX.search(text):
        return out
    lines = [
        "".join(
            part if i % 2 else _PUNCTUATION.sub(r"\\\1", part)
            for i, part in enumerate(_MATH.split(line))
        )
        for line in text.rstrip("\n").split("\n")
    ]
    return {
        "output_type": "display_data",
        "metadata": {},
        "data": {"text/markdown": "\\\n".join(lines), "text/plain": text},
    }


def build(out: Path, *, source: Path, profile: str) -> None:
    src = stage(out.parent / (out.name + "-src"), source=source, profile=profile)
    subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-c", str(src), str(src), str(out)],
        check=True,
        cwd=ROOT,
        env={**os.environ, "BOOK_ROOT": str(ROOT)},
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        prog="python book/build.py", description=__doc__.splitlines()[0]
    )
    parser.add_argument("out", type=Path, help="output folder of the HTML book")
    parser.add_argument(
        "--from",
        dest="source",
        type=Path,
        default=ROOT / "build" / "paper",
        help="folder of executed notebooks (default: build/paper, written by `make figures`)",
    )
    parser.add_argument(
        "--profile", default="paper", help="the profile they were executed at (for the banner)"
    )
    args = parser.parse_args()
    build(args.out.resolve(), source=args.source.resolve(), profile=args.profile)
