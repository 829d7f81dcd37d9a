"""The book machinery (issue 13): build from the committed notebooks, open every page in Chromium.

`make test` runs before `make figures`, so this builds the book into a temporary directory from
the committed notebooks (smoke outputs); `make book` builds build/book from the paper profile.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from browser.harness import chromium  # noqa: E402


MATHJAX = ROOT / "build" / "mathjax" / "node_modules" / "mathjax" / "es5" / "tex-chtml-full.js"


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    assert MATHJAX.exists(), "local MathJax missing: run `make test` (it installs build/mathjax)"
    out = tmp_path_factory.mktemp("book") / "html"
    subprocess.run([sys.executable, str(ROOT / "book" / "build.py"), str(out), "--committed"],
                   check=True, cwd=ROOT)
    return out


def test_no_remote_assets(book: Path) -> None:
    remote = re.compile(r'<(?:script|link|img)[^>]+(?:src|href)="https?://')
    bad = [p.name for p in book.rglob("*.html") if remote.search(p.read_text(encoding="utf-8"))]
    assert not bad, f"pages load remote scripts/styles: {bad}"


def test_every_page_renders(book: Path) -> None:
    pages = sorted(p for p in book.glob("*.html") if p.name not in {"genindex.html", "search.html"})
    pages += sorted((book / "notebooks").glob("*.html"))
    assert len(pages) >= 8
    shots = ROOT / "build" / "book-screenshots"
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)
    drv = chromium()
    drv.set_script_timeout(30)
    try:
        for page in pages:
            drv.get(page.as_uri())
            drv.execute_async_script(
                "const done = arguments[arguments.length - 1];"
                "const hasMath = document.querySelectorAll('.math').length > 0;"
                "const poll = (k) => {"
                "  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {"
                "    MathJax.startup.promise.then(() => MathJax.typesetPromise()).then(() => done(1)); }"
                "  else if (!hasMath || k > 100) { done(0); } else { setTimeout(() => poll(k + 1), 100); } };"
                "poll(0);")
            body = drv.execute_script(  # prose only: code cells may hold matplotlib TeX labels
                "const b = document.body.cloneNode(true);"
                "b.querySelectorAll('pre, code, mjx-container, .cell_output, script, style').forEach(e => e.remove());"
                "return b.innerText;")
            has_math = drv.execute_script("return document.querySelectorAll('.math').length")
            if has_math:
                n_mj = drv.execute_script("return document.querySelectorAll('mjx-container').length")
                assert n_mj > 0, f"{page.name}: maths not typeset"
            raw = drv.execute_script(
                "return [...document.querySelectorAll('.math')]"
                ".filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 60))")
            assert not raw, f"{page.name}: untypeset maths {raw[:3]}"
            assert not re.search(r"\$[^$\n]{1,80}\\[a-z]+[^$\n]*\$", body), \
                f"{page.name}: raw TeX left"
            broken = drv.execute_script(
                "return [...document.images].filter(i => !(i.complete && i.naturalWidth > 0))"
                ".map(i => i.src)")
            assert not broken, f"{page.name}: images not loaded {broken}"
            hrefs = drv.execute_script(
                "return [...document.links].map(a => a.href).filter(h => h.startsWith('file:'))")
            for h in hrefs:
                target = Path(h.split("#")[0].removeprefix("file://"))
                assert target.exists(), f"{page.name}: broken link {h}"
            errors = [e for e in drv.get_log("browser") if e["level"] == "SEVERE"]
            assert not errors, f"{page.name}: console errors {errors}"
            if page.stem in {"index", "glossary", "00_tutorial", "references"}:
                drv.save_screenshot(str(shots / f"{page.stem}.png"))
    finally:
        drv.quit()
