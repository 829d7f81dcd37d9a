"""Screenshots of every explorer panel at its default and extreme settings, in headless Chromium (issue 30 item 3).

Run by hand (not by ``make test``): ``.venv/bin/python tests/browser/screenshots.py [OUT_DIR]`` (default
``build/screenshots/``).  Serves the app with ``make explore``'s guarded server, opens it, screenshots each
panel at its defaults, then applies each extreme view by pasting its share code into the page and
screenshots the panel again (``<panel>_<setting>.png``).  Look at every one: legible labels and
legends, nothing over the data, at the largest sizes the controls allow.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from browser.explorer import PANELS, TOKEN, js_img, js_text, serve, wait_idle  # noqa: E402
from browser.harness import chromium  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from ldp_tools.explore.share import _encode_view  # noqa: E402

#: extreme settings of each panel (the ends of its controls' ranges, within the work ceilings)
EXTREMES = {
    "playground": {
        "largest": {
            "mechanism_key": "oue",
            "d": 2048,
            "n": 10**10,
            "epsilon": 20.0,
            "population": "zipf",
            "zipf_s": 3.0,
        },
        "sketch_largest": {
            "mechanism_key": "cms",
            "d": 2048,
            "n": 10**10,
            "epsilon": 0.05,
            "k": 16,
            "m": 4096,
        },
        "hashtogram_most_hashes": {
            "mechanism_key": "hashtogram",
            "d": 512,
            "n": 10**10,
            "epsilon": 20.0,
            "n_hashes": 64,
            "n_buckets": 1024,
            "population": "zipf",
            "zipf_s": 1.0,
        },
        "flh_largest_g": {
            "mechanism_key": "flh",
            "d": 512,
            "n": 10**6,
            "epsilon": 5.0,
            "k": 64,
            "m": 1024,
            "g": 1024,
        },
        "dbitflip_most_bits": {
            "mechanism_key": "dbitflip",
            "d": 64,
            "n": 10**6,
            "epsilon": 4.0,
            "n_bits": 64,
            "population": "uniform",
        },
        "smallest": {
            "mechanism_key": "grr",
            "d": 2,
            "n": 10,
            "epsilon": 0.05,
            "k": 16,
            "m": 256,
            "n_bits": 1,
        },
    },
    "privacy_utility": {
        "largest": {
            "d": 2048,
            "n": 10**10,
            "epsilon": 0.05,
            "epsilon_max": 20.0,
            "k": 16,
            "m": 4096,
        },
        "smallest": {"d": 2, "n": 10, "epsilon": 20.0, "epsilon_max": 0.2},
    },
    "rappor": {
        "M1000": {
            "k": 64,
            "m": 64,
            "h": 4,
            "n_candidates": 1000,
            "n_true": 1000,
            "n_reports": 10**10,
            "shape": "linear",
            "candidate": 999,
            "cohort": 63,
            "correction": "bonferroni",
        },
        "k4096": {
            "k": 4096,
            "m": 1,
            "h": 32,
            "n_candidates": 1000,
            "n_true": 100,
            "n_reports": 10**6,
            "f": 0.0,
            "p": 0.0,
            "q": 1.0,
            "candidate": 0,
            "cohort": 0,
        },
        "tiny": {
            "k": 4,
            "m": 1,
            "h": 1,
            "n_candidates": 2,
            "n_true": 1,
            "n_reports": 100,
            "alpha": 0.001,
            "survey": False,
            "candidate": 1,
            "cohort": 0,
        },
    },
    "continual": {
        "largest": {
            "n_rounds": 100_000,
            "n_draws": 5,
            "n_users": 10**10,
            "epsilon_max": 30.0,
            "beta": 0.001,
            "mu": 1.0,
        },
        "smallest": {
            "n_rounds": 1,
            "n_draws": 2,
            "n_users": 10,
            "epsilon_max": 0.5,
            "beta": 0.99,
            "mu": 0.0,
        },
    },
    "m_shot": {
        "largest": {
            "n_rounds": 5000,
            "n_draws": 40,
            "n_users": 10**9 - 1,
            "epsilon": 500.0,
            "theta": 1.0,
        },
        "smallest": {"n_rounds": 1, "n_draws": 1, "n_users": 10, "epsilon": 0.1, "theta": 0.01},
    },
    "shuffle": {
        "largest": {"n": 10**7, "epsilon0": 0.01, "delta": 1e-15, "k": 2},
        "krr_largest": {"n": 80, "epsilon0": 1.1, "delta": 1e-6, "k": 1000},
        "smallest": {"n": 2, "epsilon0": 20.0, "delta": 0.5, "k": 3},
    },
}


def shoot(driver, name: str, path: Path) -> None:
    panel = driver.find_element(By.CSS_SELECTOR, f".ldp-panel-{name}")
    driver.execute_script("arguments[0].scrollIntoView();", panel)
    time.sleep(0.3)
    panel.screenshot(str(path))


def stack(paths: list, target: Path) -> None:
    """The panels' screenshots one under the other, with a white gap (the page scrolls inside Voilà's container)."""
    from PIL import Image

    images = [Image.open(p).convert("RGB") for p in paths]
    width, gap = max(i.width for i in images), 24
    sheet = Image.new(
        "RGB", (width, sum(i.height for i in images) + gap * (len(images) - 1)), "white"
    )
    y = 0
    for image in images:
        sheet.paste(image, (0, y))
        y += image.height + gap
    sheet.save(target, optimize=True)


def apply(driver, view: dict, name: str) -> None:
    """Paste the view's code into the share bar and wait for the panel to redraw (or refuse)."""
    before, img = js_text(driver, f".ldp-{name}-summary"), js_img(driver, name)
    box = driver.find_element(By.CSS_SELECTOR, ".ldp-share-code input")
    driver.execute_script("arguments[0].scrollIntoView();", box)
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(_encode_view({name: view}), Keys.ENTER)
    WebDriverWait(driver, 300, poll_frequency=0.2).until(
        lambda d: (
            js_text(d, f".ldp-{name}-message")
            or (js_text(d, f".ldp-{name}-summary") != before and js_img(d, name) not in ("", img))
        )
    )
    message = js_text(driver, f".ldp-{name}-message")
    print(f"{name}: {message or js_text(driver, f'.ldp-{name}-summary')[:160]}")


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    with serve(out / "serve.log") as (proc, url):
        wait_idle(proc)
        driver = chromium(width=1300, height=1400)
        try:
            driver.get(f"{url}?token={TOKEN}")
            wait = WebDriverWait(driver, 120, poll_frequency=0.2)
            for name in PANELS:
                wait.until(lambda d, n=name: js_img(d, n))
            driver.save_screenshot(str(out / "app_default.png"))
            for name in PANELS:
                shoot(driver, name, out / f"{name}_default.png")
            stack(
                [out / f"{name}_default.png" for name in PANELS], out / "app_panels.png"
            )  # docs/explorer.png
            for name, settings in EXTREMES.items():
                for label, view in settings.items():
                    apply(driver, view, name)
                    shoot(driver, name, out / f"{name}_{label}.png")
        finally:
            driver.quit()
    print(f"screenshots in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "screenshots"))
