"""The explorer's pages and their kernels, driven in headless Chromium (issue 36 item 1); never skipped.

Each page view takes a kernel, which ends with the page: 20 pages opened and left in a row (reloaded,
navigated away from, the tab closed; every fifth with its unload beacon blocked) each free their kernel
within seconds, and the 21st opens; over the cap of pages at once, a page says what to do and opens
once another page closes.  The app's panels, its guard and ``make explore`` are checked in
``tests/explore/test_explore_browser.py``: a file of its own, so that the two run on both of ``make test``'s
workers (each starts its own server on a free port).
"""

from __future__ import annotations

import concurrent.futures
import re
import sys
import time
from pathlib import Path

import pytest
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from browser.explorer import (  # noqa: E402
    RENDERED,
    TOKEN,
    js_text,
    kernel_process,
    kernel_running,
    navigate,
    page_kernel,
    process_alive,
    serve,
    status,
    wait_idle,
)
from browser.harness import chromium  # noqa: E402

SHOTS = ROOT / "build" / "explorer-screenshots"
#: how each page is left, in turn: reloaded, navigated away from, its tab closed
LEAVE = ("reload", "away", "close tab")
#: where a page is navigated to when left: a document of another origin.  Not about:blank: with it, the next
#: page view hung (the driver's navigation sent no request) in 3 of 7 runs of make test this session,
#: each time right after a page was left for about:blank; with this document, 0 of 5 runs of the browser files
#: under the same load
ELSEWHERE = "data:text/html,<title>elsewhere</title><p>another site"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serve(tmp_path_factory.mktemp("explore") / "serve.log") as (proc, url):
        yield proc, url


def _when_kernel_ends(proc, kernel: str) -> concurrent.futures.Future:
    """A future of the moment (``time.monotonic()``) the process of ``kernel`` has ended (polled every 0.1 s:
    the process found once, then looked at alone, not the whole process table at every poll)."""
    process = kernel_process(proc, kernel)
    assert process is not None, f"kernel {kernel} has no process"

    def poll():
        while process_alive(process):
            time.sleep(0.1)
        return time.monotonic()

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    future = pool.submit(poll)
    pool.shutdown(wait=False)
    return future


def _log_with_shutdowns(proc, printed: int, count: int) -> str:
    """The server's output after ``printed`` characters, once it records ``count`` kernel shutdowns (or 10 s)."""
    deadline = time.monotonic() + 10
    while True:
        log = proc.log_path.read_text()[printed:]
        if log.count("Kernel shutdown") >= count or time.monotonic() > deadline:
            return log
        time.sleep(0.1)


def test_kernels_follow_pages_20_pages_then_the_21st_works(server):
    """Issue 36.1: each page's kernel ends within seconds of the page's reload, navigation away or tab close —
    by the page's unload beacon, or (every fifth page, the beacon blocked: a crashed tab) when its websocket
    closes — so 20 page views in a row never reach the cap and the 21st opens.  As a user goes on at once,
    the next page opens while the last one's kernel ends; each kernel is timed from the moment its page
    was left, and every one has ended before the 21st page's check."""
    from ldp_tools.explore.serve import CLOSED_PAGE_SECONDS

    proc, url = server
    wait_idle(proc)
    printed = len(proc.log_path.read_text())  # the server's output from here on: ordinary use
    # network=True: a navigation that does not finish says what Chromium was waiting for (navigate)
    driver = chromium(width=1300, height=1200, network=True)
    left = []  # per page left: the moment it was left, a future of the moment its kernel ended
    try:
        for i in range(21):
            if i == 0 or LEAVE[(i - 1) % 3] != "reload":  # a reload has already opened this page
                navigate(driver, lambda: driver.get(f"{url}?token={TOKEN}"), f"page {i + 1}", proc)
            WebDriverWait(driver, 120, poll_frequency=0.1).until(
                lambda d: RENDERED["playground"] in js_text(d, ".ldp-playground-summary")
            )
            kernel = page_kernel(driver)
            assert kernel_running(proc, kernel), f"page {i + 1} has no running kernel"
            if i == 20:
                break
            driver.execute_cdp_cmd("Network.enable", {})
            driver.execute_cdp_cmd(
                "Network.setBlockedURLs", {"urls": ["*/voila/api/shutdown/*"] if i % 5 == 4 else []}
            )
            left.append((time.monotonic(), _when_kernel_ends(proc, kernel)))
            if LEAVE[i % 3] == "reload":
                navigate(driver, driver.refresh, f"reloading page {i + 1}", proc)
            elif LEAVE[i % 3] == "away":
                navigate(driver, lambda: driver.get(ELSEWHERE), f"leaving page {i + 1}", proc)
            else:
                old = driver.current_window_handle
                driver.switch_to.new_window("tab")
                new = driver.current_window_handle
                driver.switch_to.window(old)
                driver.close()
                driver.switch_to.window(new)
        ended = [end.result(timeout=CLOSED_PAGE_SECONDS + 60) - at for at, end in left]
    finally:
        driver.quit()
    print(f"each page's kernel ended {[round(t, 1) for t in ended]} s after the page was left")
    assert len(ended) == 20
    late = {page: round(t, 1) for page, t in enumerate(ended, 1) if t >= CLOSED_PAGE_SECONDS + 10}
    assert not late, f"kernels ending over {CLOSED_PAGE_SECONDS + 10} s after their page: {late}"
    # issue 36.6: 21 kernels started and 20 ended, nothing alarming (no page refused: a 503 is logged)
    log = _log_with_shutdowns(proc, printed, 20)
    assert log.count("Kernel started") >= 20 and log.count("Kernel shutdown") >= 20, log[-3000:]
    alarming = [
        line
        for line in log.splitlines()
        if re.search(r"WARNING|ERROR|Traceback|\b[45]\d\d (GET|POST)", line)
    ]
    assert not alarming, "\n".join(alarming)


def test_over_the_cap_a_page_says_what_to_do_and_opens_once_a_page_closes(tmp_path):
    """Issue 36.1: with every kernel in use (here a cap of one page) a page view gets a page — not a bare 503 —
    saying what to do; it retries by itself and opens the explorer once the other page closes.  The page
    retries every 3 s here (``--retry-seconds``; 10 s by default): the test does not sit out the default."""
    retry = 3
    SHOTS.mkdir(parents=True, exist_ok=True)
    with serve(tmp_path / "serve.log", preheat=False, max_pages=1, retry_seconds=retry) as (
        proc,
        url,
    ):
        page = f"{url}?token={TOKEN}"
        driver = chromium(width=1000, height=900)
        try:
            driver.get(page)
            wait = WebDriverWait(driver, 120, poll_frequency=0.1)
            wait.until(lambda d: RENDERED["playground"] in js_text(d, ".ldp-playground-summary"))
            first = driver.current_window_handle
            assert status(page) == 503  # the page view over the cap starts no kernel
            driver.switch_to.new_window("tab")
            driver.get(page)
            # read in one script call: the page may reload itself between two WebDriver calls
            text = driver.execute_script("return document.body.innerText")
            assert "all its kernels are in use" in text and "Close an explorer tab" in text, text
            assert f"every {retry} seconds" in text and "make explore" in text, text
            driver.save_screenshot(str(SHOTS / "07_all_kernels_in_use.png"))
            second = driver.current_window_handle
            driver.switch_to.window(first)
            driver.close()
            driver.switch_to.window(second)
            wait.until(lambda d: RENDERED["playground"] in js_text(d, ".ldp-playground-summary"))
        finally:
            driver.quit()
