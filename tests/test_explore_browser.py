"""The explorer app served by Voilà, driven in headless Chromium (issue 17 item 5); never skipped.

Starts Voilà on a free loopback port, waits for every panel, changes one control in each, checks
that its numbers and its plot change, that no traceback shows and the console has no SEVERE error,
saves screenshots under build/explorer-screenshots/ and always stops the server (by its pid).
Also: ``make lab`` and ``make explore`` come up and answer on loopback (issue 17 item 6), each
started on a free port with a timeout and stopped with its whole process group, also on failure.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from browser.harness import chromium  # noqa: E402

SHOTS = ROOT / "build" / "explorer-screenshots"
PANELS = ("playground", "privacy_utility", "rappor", "continual", "m_shot")
#: per panel: the control changed, its new value, and the text the summary must then show
CHANGES = {"playground": ("epsilon", "2.5", "ε = 2.5"), "privacy_utility": ("epsilon", "4.5", "ε = 4.5"),
           "rappor": ("f", "0.25", "f = 0.25"), "continual": ("mu", "0.9", "μ = 0.9"),
           "m_shot": ("theta", "0.3", "θ = 0.3")}
#: a number each panel's summary shows once rendered
RENDERED = {"playground": "MSE", "privacy_utility": "MSE", "rappor": "ε∞", "continual": "Err", "m_shot": "m*"}
# JupyterLab-only extensions in .venv (jupytext, Voila's Lab preview) fail to load inside Voila ("The getter
# for the shared module is not a function"); the app and `make explore` deny them.
DENYLIST = ['--VoilaConfiguration.extension_denylist=["jupyterlab-jupytext", "@voila-dashboards/jupyterlab-preview"]']
# As `make explore`: Voila's lab template without its CDN stylesheets (app/jupyter/voila/templates/offline), and
# the book served beside the app, so that every panel links to its chapter.
OFFLINE = ["--template=offline", f"--Voila.root_dir={ROOT}", '--VoilaConfiguration.file_allowlist=["build/book/.*"]']
OFFLINE_ENV = {"JUPYTER_PATH": str(ROOT / "app" / "jupyter")}
#: the chapter of each panel (the explorer's Markdown links to the book's page of it)
CHAPTERS = {"playground": "01_grr_vs_oue", "privacy_utility": "00_tutorial", "rappor": "02_rappor",
            "continual": "04_glance", "m_shot": "03_m_shot"}


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
    """The src of the panel's figure (an Image widget: a blob: URL, renewed on every redraw) once it has loaded."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); const i = e && (e.tagName === 'IMG' ? e : e.querySelector('img'));"
        " return i && i.complete && i.naturalWidth > 0 ? i.src : '';", f".ldp-{name}-output") or ""


def _set_value(driver, name: str, control: str, value: str) -> None:
    box = driver.find_element(By.CSS_SELECTOR, f".ldp-{name}-{control} input")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(value, Keys.ENTER)


def test_explorer_app_in_chromium(tmp_path):
    SHOTS.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    log = (tmp_path / "voila.log").open("w")
    proc = subprocess.Popen([str(Path(sys.executable).parent / "voila"), "app/explorer.ipynb", "--no-browser",
                             "--Voila.ip=127.0.0.1", f"--port={port}", *DENYLIST, *OFFLINE], cwd=ROOT, stdout=log,
                            stderr=subprocess.STDOUT, env={**os.environ, **OFFLINE_ENV})
    driver = None
    try:
        _wait_until_answering(url, proc)
        driver = chromium(width=1300, height=1800)
        driver.get(url)
        wait = WebDriverWait(driver, 40, poll_frequency=0.2)
        for name in PANELS:  # rendered: numbers and a plot image
            wait.until(lambda d, n=name: RENDERED[n] in _text(d, f".ldp-{n}-summary") and _img_src(d, n))
        driver.save_screenshot(str(SHOTS / "01_loaded.png"))
        for name, (control, value, shown) in CHANGES.items():
            summary, img = _text(driver, f".ldp-{name}-summary"), _img_src(driver, name)
            _set_value(driver, name, control, value)
            wait.until(lambda d, n=name, s=summary: _text(d, f".ldp-{n}-summary") != s)
            wait.until(lambda d, n=name, i=img: _img_src(d, n) not in ("", i))
            assert shown in _text(driver, f".ldp-{name}-summary"), (name, _text(driver, f".ldp-{name}-summary"))
            driver.execute_script("document.querySelector(arguments[0]).scrollIntoView();", f".ldp-panel-{name}")
            driver.save_screenshot(str(SHOTS / f"02_changed_{name}.png"))
        for name in ("rappor", "continual", "m_shot"):  # ε = 0 / μ out of range: the library's message
            control, bad, message = {"rappor": ("q", "0.4", "q must be"), "continual": ("mu", "1.5", "mu must be"),
                                     "m_shot": ("epsilon", "0", "epsilon must be in [1e-12, inf)")}[name]
            _set_value(driver, name, control, bad)
            wait.until(lambda d, n=name, m=message: m in _text(d, f".ldp-{n}-message"))
        _set_value(driver, "playground", "epsilon", "0")  # refused: the library's message, no traceback
        wait.until(lambda d: "refused: epsilon must be in [1e-12, inf)" in _text(d, ".ldp-playground-message"))
        driver.execute_script("window.scrollTo(0, 0);")
        driver.save_screenshot(str(SHOTS / "03_refused.png"))
        _set_value(driver, "m_shot", "epsilon", "12")  # and the panels keep working
        wait.until(lambda d: _text(d, ".ldp-m_shot-message") == "" and "ε = 12" in _text(d, ".ldp-m_shot-summary"))
        _set_value(driver, "playground", "epsilon", "1.5")
        wait.until(lambda d: _text(d, ".ldp-playground-message") == "" and "ε = 1.5" in _text(d, ".ldp-playground-summary"))
        page = driver.find_element(By.TAG_NAME, "body").text
        assert "Traceback" not in page and "Error" not in page, page[:2000]
        # Offline: no script, stylesheet, font or image from anywhere but this server (the DOM's src/href and
        # every resource the page fetched, fonts from stylesheets included); no SEVERE console entry at all.
        outside = driver.execute_script(
            "const here = location.origin;"
            "const urls = [...document.querySelectorAll('script[src], link[href], img[src]')].map(e => e.src || e.href)"
            "  .concat(performance.getEntriesByType('resource').map(r => r.name));"
            "return urls.filter(u => /^https?:/.test(u) && !u.startsWith(here));")
        assert not outside, f"the explorer page loads resources from outside: {sorted(set(outside))[:5]}"
        severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not severe, severe
        links = driver.execute_script("return [...document.links].map(a => a.getAttribute('href'))")
        for name, stem in CHAPTERS.items():
            assert f"/voila/files/build/book/notebooks/{stem}.html" in links, f"the {name} panel links to no chapter {stem}"
        book_page = ROOT / "build" / "book" / "index.html"
        if book_page.exists():  # after `make book`, the links land on the book itself
            with urllib.request.urlopen(f"{url}voila/files/build/book/index.html", timeout=10) as r:
                assert r.status == 200
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


# ------------------------------------------------------------------------------------ make lab, make explore


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status < 500
    except urllib.error.HTTPError as err:  # an HTTP answer (e.g. 403 without a token) is an answer
        return err.code < 500
    except OSError:
        return False


def _make_target_answers(target: list[str], port: int, env: dict, tmp_path, timeout: float = 90.0) -> str:
    """Start ``make <target>`` in its own process group, poll loopback, always stop the group; return its log."""
    log_path = tmp_path / f"{target[0]}.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(["make", "--no-print-directory", *target], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                env={**os.environ, **env}, start_new_session=True)
        try:
            deadline = time.monotonic() + timeout
            while not _answers(f"http://127.0.0.1:{port}/"):
                assert proc.poll() is None, f"make {target[0]} exited with {proc.returncode}:\n{log_path.read_text()}"
                assert time.monotonic() < deadline, f"make {target[0]} did not answer on port {port} in {timeout} s"
                time.sleep(0.5)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
    return log_path.read_text()


def test_make_lab_comes_up_on_loopback(tmp_path):
    port = _free_port()
    env = {"JUPYTER_PORT": str(port), "JUPYTER_PORT_RETRIES": "0", "BROWSER": "true",
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    log = _make_target_answers(["lab"], port, env, tmp_path)
    if os.geteuid() == 0:
        assert "running as root, starting JupyterLab with --allow-root" in log, log


def test_make_explore_comes_up_on_loopback(tmp_path):
    port = _free_port()
    log = _make_target_answers(["explore", f"PORT={port}"], port, {"BROWSER": "true"}, tmp_path)
    assert f"http://127.0.0.1:{port}/" in log, log
