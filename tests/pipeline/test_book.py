"""The book as `make book` builds it (issues 13 and 28), opened page by page in headless Chromium; never skipped.

`make book` builds from the notebooks that `make figures` executed with papermill (``build/paper``).
`make test` runs before `make figures`, so this test executes one chapter (``RUNNER_CHAPTER``: a live
panel's widget views, an exercise, papermill's injected parameters) with the same runner
(:mod:`ldp_tools.pipeline.reproduce`) at the smoke profile into a temporary folder, takes every other
notebook's smoke outputs from ``notebooks/*.ipynb`` (nbval re-executes each of them in the same
`make test` and fails on any difference in their text outputs; it does not compare images), and builds the book from
there with the same ``book/build.py``: what it checks is what `make book` renders, widget metadata,
progress bars and profile banner included.  (Executing all nine notebooks a second time here cost
a quarter of `make test`'s wall time and checked nothing nbval does not.)  On every page: no raw Markdown pipe table, no
script, stylesheet, font or image from outside, no output or code block wider than the page, maths
typeset (in printed outputs too), images loaded, links resolved, no console error, every exercise's
solution hidden until its toggle is clicked, no claims-writing code shown, and no word of a table
broken across lines (issue 36: "rep/rod/uce/d").  Every API page is checked for width too.

The same browser checks run on the book `make book` built (paper profile), with a full-page screenshot
of every page (1280 px wide): ``python tests/pipeline/test_book.py build/book`` (to build/book-screenshots-paper/).
`make test` takes no screenshot: they assert nothing, and capturing the long chapters was a quarter of
this file's browser time.
"""

from __future__ import annotations

import ast
import base64
import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from browser.harness import chromium  # noqa: E402

MATHJAX = ROOT / "build" / "mathjax" / "node_modules" / "mathjax" / "es5" / "tex-chtml-full.js"
#: every notebook page (a banner and an .ipynb download each)
NOTEBOOKS = [p.stem for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))]
#: the course's chapters (issues 28, 36): each has a coding exercise checked by ldp_helpers.teaching and a class in a plan
CHAPTERS = [p.stem for p in sorted((ROOT / "notebooks").glob("0[0-8]_*.py"))]
#: the chapter executed by the runner here: live panels (widget views in the runner's output), an exercise
RUNNER_CHAPTER = "01_grr_vs_oue"
EXECUTE = """
import sys
from pathlib import Path
from ldp_tools.pipeline import paths, reproduce
paths.BUILD_DIR = Path(sys.argv[1])  # executed notebooks and staging go to the temporary folder
sys.exit(reproduce.main(["--profile", "smoke", "--only", sys.argv[2]]))
"""
ALARMING = re.compile(r"ERROR|WARNING|Warning:|Traceback|KeyboardInterrupt|Exception")


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> Path:
    """Every notebook's smoke outputs in a temp folder: ``RUNNER_CHAPTER`` executed by the runner behind
    `make figures`, the others as committed (nbval checks those against a fresh execution)."""
    build = tmp_path_factory.mktemp("executed")
    run = subprocess.run(
        [sys.executable, "-c", EXECUTE, str(build), RUNNER_CHAPTER],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, f"executing the notebooks failed:\n{run.stdout}\n{run.stderr}"
    # a successful run prints its progress and summary, nothing that looks like an error (a kernel's
    # "ERROR | KeyboardInterrupt" at shutdown, a traceback, a warning)
    assert not ALARMING.search(run.stdout + run.stderr), (
        f"the runner printed an alarming line:\n{run.stdout}\n{run.stderr}"
    )
    for committed in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        if committed.stem != RUNNER_CHAPTER:
            shutil.copy(committed, build / "smoke" / committed.name)
    return build / "smoke"


@pytest.fixture(scope="module")
def book(executed, tmp_path_factory) -> Path:
    assert MATHJAX.exists(), "local MathJax missing: run `make test` (it installs build/mathjax)"
    out = tmp_path_factory.mktemp("book") / "html"
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "book" / "build.py"),
            str(out),
            "--from",
            str(executed),
            "--profile",
            "smoke",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, f"book/build.py failed:\n{run.stdout}\n{run.stderr}"
    # a successful build prints nothing that looks like an error (docutils, Sphinx warnings)
    assert not ALARMING.search(run.stdout + run.stderr), run.stdout + run.stderr
    return out


def _pages(book: Path) -> list[Path]:
    pages = sorted(
        p
        for p in book.glob("*.html")
        if p.name not in {"genindex.html", "search.html", "py-modindex.html"}
    )
    return pages + sorted((book / "notebooks").glob("*.html"))


class _Resources(HTMLParser):
    """Every src/href that makes the browser fetch something: scripts, stylesheets, fonts, icons, images."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in {"script", "img", "source", "iframe", "embed", "video", "audio"} and a.get("src"):
            self.urls.append(a["src"])
        if tag == "link" and a.get("href") and a.get("rel", "") != "canonical":
            self.urls.append(a["href"])
        if tag == "object" and a.get("data"):
            self.urls.append(a["data"])


EXTERNAL = re.compile(r"^(?:https?:)?//", re.I)


def test_no_external_resources_on_any_page(book: Path) -> None:
    bad = {}
    for page in book.rglob("*.html"):
        parser = _Resources()
        parser.feed(page.read_text(encoding="utf-8"))
        outside = [u for u in parser.urls if EXTERNAL.match(u)]
        if outside:
            bad[str(page.relative_to(book))] = outside[:3]
    for css in (book / "_static").rglob("*.css"):  # fonts and images pulled in by stylesheets
        found = re.findall(
            r"""(?:url\(\s*['"]?|@import\s+['"])((?:https?:)?//[^'")\s]+)""",
            css.read_text(encoding="utf-8"),
        )
        if found:
            bad[str(css.relative_to(book))] = found[:3]
    assert not bad, f"pages or stylesheets load resources from outside: {bad}"


def test_no_widget_state_or_progress_bar_in_the_executed_notebooks(executed: Path) -> None:
    """Progress bars belong to interactive runs: no tqdm widget or text bar in any stored or executed output."""
    for nb_path in [
        *sorted(executed.glob("[0-9][0-9]_*.ipynb")),
        *sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")),
    ]:
        if ".input" in nb_path.suffixes:
            continue
        text = nb_path.read_text(encoding="utf-8")
        assert "HBox(children=(HTML(value=" not in text and not re.search(
            r"\d+%\|[█▏▎▍▌▋▊▉ ]*\|", text
        ), f"{nb_path.name}: a progress bar is stored in its outputs"


def test_notation_matches_the_notebooks_and_docstrings() -> None:
    """One vocabulary: every row of book/notation.yaml (the glossary's table) is the definition its sources write."""
    rows = yaml.safe_load((ROOT / "book" / "notation.yaml").read_text(encoding="utf-8"))
    symbols = {row["symbol"] for row in rows}
    for needed in (
        "$k$ (RAPPOR)",
        "$m$ (RAPPOR)",
        "$h$",
        "$f$",
        "$N$, $T$",
        "$\\mu_t$, $\\mu$",
        "$\\theta$",
        "$\\beta$",
        "$p, q$ (RAPPOR)",
        "$\\varepsilon_1$, $\\varepsilon_\\infty$",
        "$m$ (m-shot)",
    ):
        assert needed in symbols, f"the glossary lacks {needed}"
    for row in rows:
        assert row["where"], f"{row['symbol']}: no source"
        for path, text in row["where"].items():
            assert text in (ROOT / path).read_text(encoding="utf-8"), (
                f"glossary row {row['symbol']!r} cites {path} for {text!r}, which it no longer says: "
                "update book/notation.yaml or the source"
            )
    glossary = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    assert "<!-- notation table: generated from book/notation.yaml by book/build.py -->" in glossary


def _wait_for_maths(drv) -> None:
    drv.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const hasMath = document.querySelectorAll('.math').length > 0;"
        "const poll = (k) => {"
        "  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {"
        "    MathJax.startup.promise.then(() => MathJax.typesetPromise()).then(() => done(1)); }"
        "  else if (!hasMath || k > 100) { done(0); } else { setTimeout(() => poll(k + 1), 100); } };"
        "poll(0);"
    )


#: prose only (code cells may hold matplotlib TeX labels and printed tables)
PROSE = (
    "const b = document.querySelector('article') || document.body; const c = b.cloneNode(true);"
    "c.querySelectorAll('pre, code, mjx-container, script, style, .cell_input').forEach(e => e.remove());"
    "return c.innerText;"
)
WIDE_API = (
    "return [...document.querySelectorAll('article h1, article section, article dl, article dt, article p')]"
    ".filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)"
    ".map(e => e.tagName + ' ' + e.scrollWidth + ' > ' + e.clientWidth).slice(0, 3)"
)
WIDE = (
    "return [...document.querySelectorAll('.cell_output, .cell_output *, article table, article pre')]"
    ".filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1 && !e.closest('.math'))"
    ".map(e => e.tagName + '.' + e.className + ' ' + e.scrollWidth + ' > ' + e.clientWidth).slice(0, 3)"
)
#: (typeset inline maths overhangs its own box by a few pixels, as in the prose; the page-width check still holds)
#: printed outputs that still hold TeX ($…\command…$): book/build.py typesets them
RAW_TEX = (
    "return [...document.querySelectorAll('.cell_output pre')].map(e => e.textContent)"
    ".filter(t => /\\$[^$\\n]{0,120}\\\\[A-Za-z]+[^$\\n]{0,120}\\$/.test(t)).map(t => t.slice(0, 80))"
)
#: the code of the cell that writes the claims (book/build.py removes it; its table stays)
WRITING_CODE = (
    "return [...document.querySelectorAll('.cell_input')].filter(e => e.textContent.includes('claims.write_csv('))"
    ".length"
)
#: letters or digits of one word laid out on two lines in a table's cell ("rep/rod/uce/d")
BROKEN_WORDS = """
const bad = [];
for (const cell of document.querySelectorAll('article table td, article table th')) {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    if (node.parentElement.closest('mjx-container')) continue;
    const re = /[A-Za-z0-9]+/g;
    let m;
    while ((m = re.exec(node.data))) {
      const r = document.createRange();
      r.setStart(node, m.index);
      r.setEnd(node, m.index + m[0].length);
      if (new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top))).size > 1) bad.push(m[0]);
    }
  }
}
return bad.slice(0, 5);"""
#: per solution cell: are its code and its output both hidden (a closed <details> keeps them laid out but unseen)?
HIDDEN = (
    "return [...document.querySelectorAll('.cell.tag_solution')].map(c => {"
    "  const parts = [...c.querySelectorAll('.cell_input, .cell_output')];"
    "  return parts.length > 0 && parts.every(p => !p.checkVisibility()); })"
)


def test_every_page_renders_offline_with_tables_hidden_answers_and_nothing_too_wide(
    book: Path,
) -> None:
    check_pages(book, profile="smoke")


def check_pages(book: Path, *, profile: str, shots: Path | None = None) -> None:
    """The browser pass over every page of a built book; full-page screenshots into ``shots`` if given."""
    pages = _pages(book)
    assert {p.stem for p in pages} >= {
        "index",
        "course",
        "explorer",
        "glossary",
        "references",
        "api",
        *NOTEBOOKS,
    }
    if shots is not None:
        shutil.rmtree(shots, ignore_errors=True)
        shots.mkdir(parents=True)
    drv = chromium(width=1280, height=900)
    drv.set_script_timeout(30)
    try:
        for page in pages:
            name = page.relative_to(book).as_posix()
            drv.get(page.as_uri())
            _wait_for_maths(drv)
            prose = drv.execute_script(PROSE)
            raw_tables = [
                line for line in prose.splitlines() if re.match(r"^\s*\|.*\|.*\|\s*$", line)
            ]
            assert not raw_tables, f"{name}: raw Markdown table text {raw_tables[:2]}"
            assert not re.search(r"\$[^$\n]{1,80}\\[a-z]+[^$\n]*\$", prose), f"{name}: raw TeX left"
            raw = drv.execute_script(
                "return [...document.querySelectorAll('.math')]"
                ".filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 60))"
            )
            assert not raw, f"{name}: untypeset maths {raw[:3]}"
            outside = drv.execute_script(
                "return performance.getEntriesByType('resource').map(r => r.name)"
                ".filter(u => !u.startsWith('file:') && !u.startsWith('data:'))"
            )
            assert not outside, f"{name}: fetched from outside {outside[:3]}"
            broken = drv.execute_script(
                "return [...document.images].filter(i => !(i.complete && i.naturalWidth > 0))"
                ".map(i => i.src)"
            )
            assert not broken, f"{name}: images not loaded {broken}"
            for h in drv.execute_script(
                "return [...document.links].map(a => a.href).filter(h => h.startsWith('file:'))"
            ):
                assert Path(h.split("#")[0].removeprefix("file://")).exists(), (
                    f"{name}: broken link {h}"
                )
            wide = drv.execute_script(WIDE)
            assert not wide, f"{name}: output wider than the page {wide}"
            assert drv.execute_script(
                "return document.documentElement.scrollWidth <= window.innerWidth"
            ), f"{name}: the page scrolls sideways"
            hidden = drv.execute_script(HIDDEN)
            assert all(hidden), f"{name}: {hidden.count(False)} solutions visible before a click"
            assert not drv.execute_script(RAW_TEX), (
                f"{name}: raw TeX printed in an output {drv.execute_script(RAW_TEX)}"
            )
            assert not drv.execute_script(WRITING_CODE), f"{name}: the claims-writing code is shown"
            broken = drv.execute_script(BROKEN_WORDS)
            assert not broken, f"{name}: words broken across lines in a table {broken}"
            errors = [e for e in drv.get_log("browser") if e["level"] == "SEVERE"]
            assert not errors, f"{name}: console errors {errors}"
            if page.parent.name == "notebooks":
                _check_notebook_page(drv, name, page, profile)
            if page.parent.name == "notebooks" and page.stem in CHAPTERS:
                _check_chapter(drv, name, hidden)
            if shots is not None:
                _full_page_screenshot(
                    drv, shots / (name.replace("/", "_").removesuffix(".html") + ".png")
                )
        for page in sorted(
            (book / "generated").glob("*.html")
        ):  # the API pages: as wide as the page at most
            drv.get(page.as_uri())
            assert drv.execute_script(
                "return document.documentElement.scrollWidth <= window.innerWidth"
            ), f"{page.name}: the API page scrolls sideways"
            wide = drv.execute_script(WIDE_API)
            assert not wide, f"{page.name}: wider than the page {wide}"
    finally:
        drv.quit()


def _full_page_screenshot(drv, path: Path) -> None:
    """The whole page at 1280 px: the viewport stretched to the page's height for the capture, then restored."""
    height = drv.execute_script("return document.documentElement.scrollHeight")
    drv.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1280, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        path.write_bytes(
            base64.b64decode(
                drv.execute_cdp_cmd(  # the same pixels, a faster (larger) PNG encoding
                    "Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True}
                )["data"]
            )
        )
    finally:
        drv.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


BANNER_TEXT = {
    "smoke": "This page shows the fast smoke profile",
    "paper": "This page shows the paper profile",
}


def _check_notebook_page(drv, name: str, page: Path, profile: str) -> None:
    """A notebook's page: the right profile banner and its .ipynb downloadable."""
    text = drv.execute_script("return document.querySelector('article').innerText")
    assert BANNER_TEXT[profile] in text and "Stored outputs are" not in text, f"{name}: banner"
    source = page.parent.parent / "_sources" / "notebooks" / f"{page.stem}.ipynb"
    assert source.exists() and drv.execute_script(
        "return [...document.querySelectorAll('.dropdown-download-buttons a')].some(a => a.href.endsWith(arguments[0]))",
        f"_sources/notebooks/{page.stem}.ipynb",
    ), f"{name}: no download of the chapter's .ipynb"


def _check_chapter(drv, name: str, hidden: list) -> None:
    """A course chapter: a coding exercise whose checker runs, solutions that open on a click."""
    text = drv.execute_script("return document.querySelector('article').innerText")
    assert re.search(r"Exercise \d \(code", text), f"{name}: no coding exercise"
    assert len(hidden) >= 3, f"{name}: {len(hidden)} solutions"
    code = drv.execute_script(
        "return [...document.querySelectorAll('.cell.tag_solution')].map(c => c.textContent).join('\\n')"
    )
    assert "teaching.check_" in code and "PASSED" in code, (
        f"{name}: the coding exercise's checker is not run"
    )
    drv.execute_script(
        "document.querySelectorAll('.cell.tag_solution summary').forEach(s => s.click())"
    )
    opened = drv.execute_script(HIDDEN)
    assert not any(opened), f"{name}: a solution does not open on a click"
    drv.execute_script(
        "document.querySelectorAll('.cell.tag_solution summary').forEach(s => s.click())"
    )


def test_course_plan_references_and_links(book: Path) -> None:
    course = (book / "course.html").read_text(encoding="utf-8")
    for needed in (
        "Prerequisites",
        "Schedule",
        "Time per chapter",
        "explorer panel",
        "homework",
        "Six-week course",
        "Pacing",
        "extra material",
        "Project",
        "check_scaled_risk",
    ):
        assert needed in course, f"course plan lacks {needed!r}"
    six_weeks = course[course.index('id="six-week-course"') :]
    assert all(f"<td><p>{week}</p></td>" in six_weeks for week in range(1, 7)), (
        "the six-week plan lacks a week"
    )
    assert "notebooks/99_reproduction_report.html" in six_weeks, (
        "the six-week plan ends without the report"
    )
    assert all(f"notebooks/{stem}.html" in course for stem in CHAPTERS), (
        "the course plan links every chapter"
    )
    refs = (book / "references.html").read_text(encoding="utf-8")
    assert len(set(re.findall(r'href="https://doi\.org/[^"]+"', refs))) >= 8, (
        "references lack DOI links"
    )
    assert len(set(re.findall(r'href="https://arxiv\.org/abs/[^"]+"', refs))) >= 8, (
        "references lack arXiv links"
    )
    index = (book / "index.html").read_text(encoding="utf-8")
    assert 'href="explorer.html"' in index and 'href="course.html"' in index
    glossary = (book / "glossary.html").read_text(encoding="utf-8")
    assert "notation table" not in glossary and "<table" in glossary, (
        "the glossary's notation table is not rendered"
    )
    rows = yaml.safe_load((ROOT / "book" / "notation.yaml").read_text(encoding="utf-8"))
    assert glossary.count("<tr") >= len(rows) + 1


def test_staging_hides_the_claims_writing_code_and_typesets_printed_maths() -> None:
    """book/build.py: the writing cell keeps its table but not its code; a printed line with TeX becomes
    Markdown with its maths as maths and the rest escaped; a printed line without TeX stays text."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("book_build", ROOT / "book" / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    tex = "every oracle: ['grr', 'ss']\nreports of at most $\\lceil\\log_2 d\\rceil + 2$ bits: ['l_grr']\n"
    nb = {
        "metadata": {},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# Title\n"},
            {
                "cell_type": "code",
                "metadata": {},
                "source": "claims_csv = claims.write_csv(write=False)\nclaims",
                "outputs": [
                    {
                        "output_type": "display_data",
                        "metadata": {},
                        "data": {"text/markdown": "| id |"},
                    }
                ],
            },
            {
                "cell_type": "code",
                "metadata": {},
                "source": "print(x)",
                "outputs": [{"output_type": "stream", "name": "stdout", "text": [tex]}],
            },
            {
                "cell_type": "code",
                "metadata": {},
                "source": "print(y)",
                "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": ["cost: $5 and $6\n"]}
                ],
            },
        ],
    }
    page = build.book_page(nb, profile="smoke")
    writing, printed, plain = page["cells"][1:]
    assert (
        "remove-input" in writing["metadata"]["tags"]
        and writing["outputs"][0]["data"]["text/markdown"] == "| id |"
    )
    md = printed["outputs"][0]["data"]["text/markdown"]
    assert md == (
        "every oracle: \\['grr', 'ss'\\]\\\nreports of at most $\\lceil\\log_2 d\\rceil + 2$ bits: "
        "\\['l\\_grr'\\]"
    ), md
    assert (
        printed["outputs"][0]["data"]["text/plain"] == tex
        and plain["outputs"][0]["output_type"] == "stream"
    )
    assert "outputs" not in page["cells"][0]


def test_the_runners_do_not_interrupt_an_idle_kernel_at_shutdown() -> None:
    """jupyter_client SIGINTs a kernel before shutting it down; ipykernel then may log "ERROR | KeyboardInterrupt
    caught in kernel." on the runner's stderr.  The runners' kernel manager skips that interrupt (only)."""
    import asyncio

    from traitlets import import_item

    from ldp_tools.pipeline.reproduce import _kernel_config

    manager = import_item(_kernel_config()["NotebookClient"]["kernel_manager_class"])()
    manager.shutting_down = True
    asyncio.run(manager._async_interrupt_kernel())  # skipped: no signal, no error
    manager.shutting_down = False
    with pytest.raises(
        RuntimeError, match="No kernel is running"
    ):  # any other interrupt goes through
        asyncio.run(manager._async_interrupt_kernel())


def test_the_runners_kernels_take_the_makefiles_numpy_and_openblas_settings(monkeypatch) -> None:
    """The Makefile exports DETERMINISTIC_ENV for the byte-identical figures; a runner started without make
    (the README's `python -m ldp_tools.pipeline.reproduce`) gives its kernels the same settings, and a value
    the environment sets wins (before: the direct command changed 12 pixels of 02's threshold figure)."""
    import platform

    import nbformat
    from nbclient import NotebookClient

    from ldp_tools.pipeline._kernels import DETERMINISTIC_ENV
    from ldp_tools.pipeline.reproduce import _kernel_config

    exported = dict(re.findall(r"^export (\w+) \?= (.+)$", (ROOT / "Makefile").read_text(), re.M))
    if platform.machine() == "x86_64":
        assert exported == DETERMINISTIC_ENV
    assert DETERMINISTIC_ENV.items() <= exported.items()
    for name in DETERMINISTIC_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    names = sorted(DETERMINISTIC_ENV)
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                f"import os; print({{k: os.environ.get(k) for k in {names}}})"
            )
        ]
    )
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    NotebookClient(nb, config=_kernel_config(), kernel_name="python3").execute()
    seen = ast.literal_eval(nb.cells[0].outputs[0]["text"])
    assert seen == {**DETERMINISTIC_ENV, "OPENBLAS_NUM_THREADS": "2"}


def test_the_book_build_uses_the_executed_notebooks_not_the_committed_ones(executed: Path) -> None:
    """The page of a chapter is its executed notebook (the smoke run here, build/paper under `make book`)."""
    nb = json.loads((executed / f"{RUNNER_CHAPTER}.ipynb").read_text(encoding="utf-8"))
    assert "papermill" in nb["metadata"], "not executed by the runner behind `make figures`"
    views = [
        o
        for c in nb["cells"]
        for o in c.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]
    assert views, f"{RUNNER_CHAPTER} shows no live panel: the staging of widget views goes untested"


if (
    __name__ == "__main__"
):  # the same checks on a book already built, e.g. `make book`'s: python tests/pipeline/test_book.py build/book
    import argparse

    parser = argparse.ArgumentParser(
        description="Check every page of a built book in headless Chromium."
    )
    parser.add_argument("book", type=Path, nargs="?", default=ROOT / "build" / "book")
    parser.add_argument("--profile", default="paper", choices=sorted(BANNER_TEXT))
    parser.add_argument("--shots", type=Path, default=ROOT / "build" / "book-screenshots-paper")
    args = parser.parse_args()
    args.book = args.book.resolve()
    test_no_external_resources_on_any_page(args.book)
    check_pages(args.book, profile=args.profile, shots=args.shots)
    test_course_plan_references_and_links(args.book)
    print(f"{args.book}: every page passed; screenshots in {args.shots}")
