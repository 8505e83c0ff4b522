"""Headless Chromium driven through Debian's chromedriver (Selenium), for the scripts that time
or photograph a page: a driver, and a page opened until the explorer's table is ready."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any


def headless_chromium(window: str = "1400,1000") -> Any:
    """A Chromium WebDriver: headless, no sandbox (root in a container), no GPU, the window size given."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={window}",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    driver.set_page_load_timeout(600)
    driver.set_script_timeout(600)
    return driver


def open_explorer(driver: Any, page: Path) -> float:
    """``page`` loaded until its table is drawn; the milliseconds that took from navigation."""
    driver.get(page.as_uri())
    while driver.execute_script("return window.explorerReady === undefined"):
        time.sleep(0.05)
    return float(driver.execute_script("return window.explorerReady"))
