"""The explorer app served by Voilà, driven in headless Chromium (issue 17 item 5); never skipped.

Starts Voilà on a free loopback port, waits for both panels, changes ε in each, checks that the
numbers and the plot change, that no traceback shows and the console has no SEVERE error, saves
screenshots under build/explorer-screenshots/ and always stops the server (by its pid).
"""
from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from browser.harness import chromium  # noqa: E402

SHOTS = ROOT / "build" / "explorer-screenshots"
PANELS = ("playground", "privacy_utility")
# JupyterLab-only extensions in .venv (jupytext, Voila's Lab preview) fail to load inside Voila ("The getter
# for the shared module is not a function"); the app and `make explore` deny them.
DENYLIST = ['--VoilaConfiguration.extension_denylist=["jupyterlab-jupytext", "@voila-dashboards/jupyterlab-preview"]']
CDN_FONT_AWESOME = "https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_answering(url: str, proc: subprocess.Popen, timeout: float = 40.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"voila exited with code {proc.returncode}"
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"voila did not answer at {url} within {timeout} s")


# Read in one script call: the panel replaces its elements on every redraw, so an element found by one
# WebDriver call can be gone by the next (StaleElementReferenceException).
def _text(driver, css: str) -> str:
    return driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", css) \
        or ""


def _img_src(driver, name: str) -> str:
    return driver.execute_script("const i = document.querySelector(arguments[0]); return i ? i.src : '';",
                                 f".ldp-{name}-output img") or ""


def _set_epsilon(driver, name: str, value: str) -> None:
    box = driver.find_element(By.CSS_SELECTOR, f".ldp-{name}-epsilon input")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(value, Keys.ENTER)


def test_explorer_app_in_chromium(tmp_path):
    SHOTS.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    log = (tmp_path / "voila.log").open("w")
    proc = subprocess.Popen([str(Path(sys.executable).parent / "voila"), "app/explorer.ipynb", "--no-browser",
                             "--Voila.ip=127.0.0.1", f"--port={port}", *DENYLIST], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    driver = None
    try:
        _wait_until_answering(url, proc)
        driver = chromium(width=1300, height=1800)
        driver.get(url)
        wait = WebDriverWait(driver, 40, poll_frequency=0.2)
        for name in PANELS:  # rendered: numbers and a plot image
            wait.until(lambda d, n=name: "MSE" in _text(d, f".ldp-{n}-summary") and _img_src(d, n).startswith("data:image/png"))
        driver.save_screenshot(str(SHOTS / "01_loaded.png"))
        changes = {"playground": "2.5", "privacy_utility": "4.5"}
        for name, value in changes.items():
            summary, img = _text(driver, f".ldp-{name}-summary"), _img_src(driver, name)
            _set_epsilon(driver, name, value)
            wait.until(lambda d, n=name, s=summary: _text(d, f".ldp-{n}-summary") != s)
            wait.until(lambda d, n=name, i=img: _img_src(d, n) not in ("", i))
            assert f"ε = {value}" in _text(driver, f".ldp-{name}-summary")
        driver.save_screenshot(str(SHOTS / "02_changed.png"))
        _set_epsilon(driver, "playground", "0")  # refused: the library's message, no traceback
        wait.until(lambda d: "refused: epsilon must be in (0, inf)" in _text(d, ".ldp-playground-message"))
        driver.save_screenshot(str(SHOTS / "03_refused.png"))
        _set_epsilon(driver, "playground", "1.5")  # and the panel keeps working
        wait.until(lambda d: _text(d, ".ldp-playground-message") == "" and "ε = 1.5" in _text(d, ".ldp-playground-summary"))
        page = driver.find_element(By.TAG_NAME, "body").text
        assert "Traceback" not in page and "Error" not in page, page[:2000]
        # Voila 0.5's lab template links Font Awesome from a CDN (unreachable offline; the panels use no
        # icons): that one known failure is tolerated, any other SEVERE console entry fails the test.
        severe = [e for e in driver.get_log("browser")
                  if e["level"] == "SEVERE" and not e["message"].startswith(CDN_FONT_AWESOME)]
        assert not severe, severe
    finally:
        if driver is not None:
            driver.quit()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
