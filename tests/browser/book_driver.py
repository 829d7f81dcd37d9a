"""Minimal headless-Chromium driver for tests/test_book.py (no shared harness existed yet)."""
from __future__ import annotations

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def chromium(*, width: int = 1280, height: int = 900) -> webdriver.Chrome:
    """Return a headless Chromium WebDriver with browser console logging enabled."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
