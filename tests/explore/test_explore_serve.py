"""The explorer server's pure guard (``ldp_tools.explore.serve``), without a server: the book's allow-list,
traversal on every route, the cap on open pages (issues 36.1 and 39.3).  The served behaviour is driven in
``tests/explore/test_explore_browser.py``."""

from __future__ import annotations

import ast
import gc
import json
import weakref

import pytest

from ldp_tools.explore.serve import APP, MAX_PAGES, _book_file, long_lived, refusal

HOST = {"Host": "127.0.0.1:8866"}


@pytest.mark.parametrize(
    "path",
    [
        "build/book/index.html",
        "build/book/notebooks/02_rappor.html",
        "build/book/_static/mathjax/tex-chtml.js",
        "build/book/_images/fig-1.png",
        "build/book/@x/a+b.css",
    ],
)
def test_book_files_are_served(path):
    assert _book_file(path)


@pytest.mark.parametrize(
    "path",
    [
        "build/book/../../.git/config",
        "build/book/../../pyproject.toml",
        "build/book/./index.html",
        "build/book//index.html",
        "build/book/..\\..\\x",
        "build/book/%2e%2e/x",
        "build/book/.buildinfo",
        "build/book/_static/.hidden",
        "build/book/",
        "build/book",
        "build/booked/index.html",
        "/build/book/index.html",
        "build/book/index.html/",
        "build/book/a:b",
        "build/book/a\x00b",
        "pyproject.toml",
        "notebooks/profiles/paper.yaml",
        "app/explorer.ipynb",
    ],
)
def test_anything_else_is_not_a_book_file(path):
    assert not _book_file(path)


@pytest.mark.parametrize(
    "path",
    [
        "/voila/files/build/book/../../.git/config",
        "/voila/files/build/book/%2e%2e/x",
        "/voila/files/build/book/%2E%2E/x",
        "/voila/files/build/book/..%2fx",
        "/voila/files/build/book/%252e%252e/x",
        "/voila/static/..\\x",
        "/voila/static/%5c..%5cx",
        "/voila/templates/lab/static/%2e%2e/%2e%2e/etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
    ],
)
def test_traversal_is_refused_on_every_route(path):
    why = refusal(HOST, 8866, path=path)
    assert why is not None and why[0] == 403 and "leaves its folder" in why[1]


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/voila/files/build/book/index.html",
        "/voila/static/voila.js",
        "/voila/labextensions/%40voila-dashboards/widgets-manager8/static/x.js",
        "/api/kernels/00000000-0000-0000-0000-000000000000/channels",
        "/login",
    ],
)
def test_ordinary_paths_pass(path):
    assert refusal(HOST, 8866, path=path) is None


def test_the_cap_counts_pages_and_says_what_to_do():
    assert refusal(HOST, 8866, page=True, pages=MAX_PAGES - 1) is None
    status, why = refusal(HOST, 8866, page=True, pages=MAX_PAGES)
    assert status == 503 and f"at most {MAX_PAGES}" in why and "close an explorer tab" in why
    assert (
        refusal(HOST, 8866, page=False, pages=MAX_PAGES) is None
    )  # only a page view takes a kernel
    assert refusal(HOST, 8866, page=True, pages=1, max_pages=1)[0] == 503
    with pytest.raises(ValueError, match="max_pages"):
        refusal(HOST, 8866, page=True, max_pages=0)


@pytest.mark.parametrize("seconds", ["0", "3601"])
def test_a_retry_interval_out_of_range_is_refused_before_serving(seconds, capsys):
    """``--retry-seconds`` (how often the page over the cap reloads itself) is checked before anything starts."""
    from ldp_tools.explore.serve import main

    with pytest.raises(
        ValueError, match=rf"retry_seconds must be an integer in \[1, 3600\]; got {seconds}"
    ):
        main(["--port", "8866", "--retry-seconds", seconds])
    assert capsys.readouterr().out == ""  # nothing printed: no server announced


def test_ordinary_warnings_are_shown_as_info_and_others_stay_warnings():
    """An unconnected kernel culled when idle, a kernel nudged under load, or a reply racing its page's closing
    websocket is not an alarm; any other warning (a dead kernel) keeps its level (the browser tests fail on
    WARNING lines)."""
    import logging
    import re

    from ldp_tools.explore.serve import _not_an_alarm

    def record(msg):  # as jupyter_server logs them: a format string and its arguments
        words = tuple(re.findall(r"'([^']*)'", msg))
        return logging.LogRecord(
            "GuardedVoila",
            logging.WARNING,
            __file__,
            1,
            re.sub(r"'[^']*'", "'%s'", msg),
            words,
            None,
        )

    ordinary = [
        record(
            "Culling 'idle' kernel 'python3' (1234) with 0 connections due to 148 seconds of inactivity."
        ),
        record("Nudge: attempt 10 on kernel 1234"),
        record("zmq message arrived on closed channel"),
    ]
    alarms = [
        record("Culling 'dead' kernel 'python3' (1234)."),
        record("Kernel 1234 died, removing from map."),
    ]
    assert all(_not_an_alarm(r) for r in ordinary + alarms)  # nothing is dropped
    assert [r.levelname for r in ordinary + alarms] == ["INFO"] * 3 + ["WARNING"] * 2


def _collections_in(block) -> tuple[int, int]:
    """(collections run inside ``block()`` under :func:`long_lived`, objects frozen at its end)."""
    runs = []

    def count(phase, _info):
        runs.append(phase)

    gc.callbacks.append(count)
    try:
        with long_lived():
            block()
        return runs.count("start"), gc.get_freeze_count()
    finally:
        gc.callbacks.remove(count)
        gc.unfreeze()


def test_long_lived_collects_nothing_inside_then_freezes():
    """No collection runs inside long_lived, even for 20,000 cyclic objects (700 start one); at its end
    they are frozen (later collections pass them by) and collection is on again."""
    assert gc.isenabled()

    def cycles():
        made = [[] for _ in range(20_000)]
        for cell in made:
            cell.append(cell)

    inside, frozen = _collections_in(cycles)
    assert inside == 0 and frozen >= 20_000
    assert gc.isenabled()


def test_long_lived_freezes_what_the_block_made():
    """A cycle made inside the block and dropped there survives a full collection after the block (it is
    frozen), and is collected once unfrozen: the freeze comes at the block's end, not at its start."""

    class Node:
        pass

    with long_lived():
        node = Node()
        node.self = node
        ref = weakref.ref(node)
        del node
    try:
        gc.collect()
        assert ref() is not None
    finally:
        gc.unfreeze()
    gc.collect()
    assert ref() is None


def test_long_lived_restores_collection_after_an_error_and_leaves_it_off_if_it_was():
    """An import that fails inside the block leaves collection on; a caller's gc.disable() stays."""

    def failing_import():
        raise ImportError("no module named x")

    with pytest.raises(ImportError):
        _collections_in(failing_import)
    assert gc.isenabled()
    gc.disable()
    try:
        _collections_in(lambda: None)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_app_imports_the_panels_inside_long_lived():
    """The app's first code cell imports the panels' modules inside ``with long_lived():``."""
    cells = json.loads(APP.read_text(encoding="utf-8"))["cells"]
    first = next("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    blocks = [node for node in ast.parse(first).body if isinstance(node, ast.With)]
    assert [ast.unparse(b.items[0].context_expr) for b in blocks] == ["long_lived()"]
    inside = {n.module for n in ast.walk(blocks[0]) if isinstance(n, ast.ImportFrom)}
    assert inside == {"ldp_tools.explore.panels", "ldp_tools.explore.share"}
