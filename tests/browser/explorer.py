"""Serving the explorer for the browser tests, the screenshots and the benchmarks: the guarded server of ``make explore``.

:func:`serve` starts ``python -m ldp_tools.explore.serve`` (loopback, Host/Origin guard, token, one
pre-heated kernel) on a free port in its own process group and always stops the whole group (its
kernels included), also on failure.  :func:`wait_idle` waits until the server and its kernels stop
using the CPU — the pre-heated kernel has then rendered the page.  The small ``js_*`` helpers read the
page in one script call (a panel replaces its elements on every redraw).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "browser-test-token"
PANELS = ("playground", "privacy_utility", "rappor", "continual", "m_shot", "shuffle")
#: a number each panel's summary shows once rendered
RENDERED = {
    "playground": "MSE",
    "privacy_utility": "MSE",
    "rappor": "ε∞",
    "continual": "Err",
    "m_shot": "m*",
    "shuffle": "exact central",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(url: str, headers: dict | None = None) -> int:
    """The HTTP status of a GET (no redirects followed); 0 when nothing answers."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(urllib.request.Request(url, headers=headers or {}), timeout=60) as r:
            return r.status
    except urllib.error.HTTPError as err:
        return err.code
    except OSError:  # nothing listening (yet)
        return 0


@contextlib.contextmanager
def serve(
    log_path: Path,
    *,
    port: int | None = None,
    preheat: bool = True,
    max_pages: int | None = None,
    retry_seconds: int | None = None,
    timeout: float = 90.0,
):
    """The guarded explorer on ``port`` (free by default): yields (process, base URL); stops its process group."""
    port = port or free_port()
    argv = [
        sys.executable,
        "-m",
        "ldp_tools.explore.serve",
        "--port",
        str(port),
        *([] if preheat else ["--no-preheat"]),
        *([] if max_pages is None else ["--max-pages", str(max_pages)]),
        *([] if retry_seconds is None else ["--retry-seconds", str(retry_seconds)]),
    ]
    env = {**os.environ, "LDP_EXPLORE_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            argv, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        proc.log_path = log_path  # what the server printed: `make explore`'s output
        try:
            url = f"http://127.0.0.1:{port}/"
            deadline = time.monotonic() + timeout
            while status(url) not in (302, 403):  # up: a page without the token is refused
                assert proc.poll() is None, (
                    f"the explorer exited with {proc.returncode}:\n{log_path.read_text()}"
                )
                assert time.monotonic() < deadline, (
                    f"the explorer did not answer on {url} in {timeout} s"
                )
                time.sleep(0.3)
            yield proc, url
        finally:
            stop(proc)


def stop(proc: subprocess.Popen) -> None:
    """Stop the server's whole process group (Voilà and its kernels), by its pid."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def wait_idle(proc: subprocess.Popen, *, quiet: float = 1.5, timeout: float = 120.0) -> None:
    """Wait until the server and its kernels use under 5 % of a core for ``quiet`` seconds (the pool has rendered)."""
    import psutil

    server = psutil.Process(proc.pid)
    deadline, calm_since = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        procs = [server, *server.children(recursive=True)]
        busy = sum(p.cpu_times().user + p.cpu_times().system for p in procs if p.is_running())
        time.sleep(0.5)
        after = sum(p.cpu_times().user + p.cpu_times().system for p in procs if p.is_running())
        if after - busy < 0.025:
            calm_since = calm_since or time.monotonic()
            if time.monotonic() - calm_since >= quiet:
                return
        else:
            calm_since = None
    raise AssertionError(f"the explorer's kernels were still busy after {timeout} s")


def js_text(driver, css: str) -> str:
    return (
        driver.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", css
        )
        or ""
    )


def js_img(driver, name: str) -> str:
    """The src of a panel's figure (a blob: URL, renewed on every redraw) once it has loaded, else ''."""
    return (
        driver.execute_script(
            "const e = document.querySelector(arguments[0]); const i = e && (e.tagName === 'IMG' ? e : e.querySelector('img'));"
            " return i && i.complete && i.naturalWidth > 0 ? i.src : '';",
            f".ldp-{name}-output",
        )
        or ""
    )


def js_value(driver, name: str, control: str) -> str:
    """What a control's typed-value box (or dropdown) shows."""
    return (
        driver.execute_script(
            "const e = document.querySelector(arguments[0]); const i = e && e.querySelector('input[type=text], select');"
            " return i ? i.value : null;",
            f".ldp-{name}-{control}",
        )
        or ""
    )


def type_into(driver, name: str, control: str, text: str) -> None:
    """Type ``text`` into a control's box and press Enter (what a user does)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = driver.find_element(By.CSS_SELECTOR, f".ldp-{name}-{control} input[type=text]")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE)
    box.send_keys(text, Keys.ENTER)


def kernel_process(proc: subprocess.Popen, kernel_id: str):
    """The live process (``psutil.Process``) of the server's kernel ``kernel_id``, or None (read from the
    process table, so that asking leaves no trace in the server's output)."""
    import psutil

    def named(p):
        with contextlib.suppress(psutil.Error):
            return any(f"kernel-{kernel_id}" in arg for arg in p.cmdline())
        return False

    return next((p for p in psutil.Process(proc.pid).children(recursive=True) if named(p)), None)


def kernel_running(proc: subprocess.Popen, kernel_id: str) -> bool:
    """Whether the server's kernel ``kernel_id`` still has a process."""
    return kernel_process(proc, kernel_id) is not None


def process_alive(process) -> bool:
    """Whether a ``psutil.Process`` still runs (an exited kernel not yet reaped is a zombie: ended).

    One look at that process alone: polling it is cheap, where :func:`kernel_running` scans the
    process table."""
    import psutil

    with contextlib.suppress(psutil.Error):
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    return False


def page_kernel(driver) -> str:
    """The kernel id the open explorer page uses ('' before the page has one)."""
    return (
        driver.execute_script(
            "const e = document.getElementById('jupyter-config-data'); return e ? JSON.parse(e.textContent).kernelId : '';"
        )
        or ""
    )


#: how long a navigation may take before :func:`navigate` reports it (a page view takes seconds)
NAVIGATION_SECONDS = 90


def navigate(driver, go, what: str, proc: subprocess.Popen | None = None) -> None:
    """Run ``go()`` (``driver.get``, ``driver.refresh``), a navigation, within :data:`NAVIGATION_SECONDS`.

    A navigation that does not finish fails at once with what Chromium was still waiting for: its
    requests that got no response (the driver stops the page when its wait ends, so they are listed
    with that error; the unload beacons of pages already left are listed too, as DevTools reports no
    response for them) and its open WebSockets (the driver needs ``chromium(network=True)``), and the
    tail of the server's output; a hung navigation would otherwise hold the driver for four read
    timeouts of two minutes and say nothing."""
    import json

    from selenium.common.exceptions import TimeoutException

    driver.set_page_load_timeout(NAVIGATION_SECONDS)
    try:
        go()
    except TimeoutException:
        sent, sockets = {}, {}
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            method, params = message["method"], message.get("params", {})
            key = params.get("requestId")
            if method == "Network.requestWillBeSent":
                sent[key] = f"{params['request']['method']} {params['request']['url'][:120]}"
            elif method == "Network.responseReceived":
                sent.pop(key, None)
            elif method == "Network.loadingFailed" and key in sent:
                sent[key] += f" ({params.get('errorText')})"
            elif method == "Network.webSocketCreated":
                sockets[key] = params["url"][:120]
            elif method == "Network.webSocketClosed":
                sockets.pop(key, None)
        server = proc.log_path.read_text()[-3000:] if proc is not None else ""
        raise AssertionError(
            f"{what}: not finished in {NAVIGATION_SECONDS} s; requests without a response: "
            f"{list(sent.values())}; open WebSockets: {list(sockets.values())}; the server's "
            f"output ends:\n{server}"
        ) from None
