"""Debian's chromium, headless and quiet, driven by selenium through the system chromedriver.

Shared by the browser tests and ``bench/report_html.py``. A driver path is always given,
so selenium-manager is never asked to find (or fetch) a driver or a browser.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
#: Flags that keep the browser from reaching out on its own (updates, sync, first-run pages).
QUIET_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def start_chromium(profile: Path, *, window: str = "1280,800", log_network: bool = False) -> Any:
    """A fresh browser with its own user-data-dir; with ``log_network``, DevTools network events
    are kept for ``driver.get_log("performance")``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    if CHROMIUM is None or CHROMEDRIVER is None:
        raise RuntimeError(
            "chromium and chromedriver are needed: apt-get install chromium chromium-driver"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*QUIET_FLAGS, f"--user-data-dir={profile}", f"--window-size={window}"):
        options.add_argument(flag)
    if log_network:
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    return webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
