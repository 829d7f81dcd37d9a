"""The one headless-Chromium harness of the browser tests (the book, the explorer app).

Uses Debian's ``chromium`` + ``chromium-driver`` (or ``CHROME_PATH`` / ``CHROMEDRIVER_PATH``); a
missing browser is a failure with the install command, never a skip.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

INSTALL_HINT = "apt-get install chromium chromium-driver (or set CHROME_PATH and CHROMEDRIVER_PATH)"


def _find(env: str, default: str, *names: str) -> str:
    candidates = [os.environ.get(env), default, *(shutil.which(n) for n in names)]
    for path in candidates:
        if path and Path(path).is_file() and os.access(path, os.X_OK):
            return path
    raise RuntimeError(
        f"no executable for {env} (tried {[c for c in candidates if c]}): {INSTALL_HINT}"
    )


def chromium(
    *, width: int = 1280, height: int = 900, network: bool = False, downloads: Path | None = None
) -> webdriver.Chrome:
    """Return a headless Chromium WebDriver with browser console logging enabled.

    ``network``: also log every request (``driver.get_log("performance")``); ``downloads``: save downloads there.
    """
    opts = webdriver.ChromeOptions()
    opts.binary_location = _find(
        "CHROME_PATH", "/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"
    )
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
    ):
        opts.add_argument(arg)
    opts.set_capability(
        "goog:loggingPrefs", {"browser": "ALL", **({"performance": "ALL"} if network else {})}
    )
    if downloads is not None:
        opts.add_experimental_option(
            "prefs",
            {"download.default_directory": str(downloads), "download.prompt_for_download": False},
        )
    service = Service(_find("CHROMEDRIVER_PATH", "/usr/bin/chromedriver", "chromedriver"))
    driver = webdriver.Chrome(service=service, options=opts)
    if downloads is not None:
        driver.execute_cdp_cmd(
            "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)}
        )
    return driver
