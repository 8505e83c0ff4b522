"""The explorer's screenshots in the docs (``docs/assets/explorer-*.png``): the demo's
likelihood split of the bundled 3,000 SNLI pairs (tokens kept) beside a random split, with
the TF-IDF baseline's predictions, in headless Chromium through chromedriver.

    python docs/explorer_screenshots.py
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import tailsplit

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "data" / "snli_dev_3000.jsonl.gz"
ASSETS = ROOT / "docs" / "assets"
FIELDS = {"text": "hypothesis", "context": "premise", "label": "label"}


def page(work: Path) -> Path:
    likely = tailsplit.likelihood_split(
        SAMPLE, **FIELDS, template="snli", balance_labels=True, token_scores=True, analyze=False,
        out=work / "snli-likelihood",
    )  # fmt: skip
    random = tailsplit.split(SAMPLE, "random", **FIELDS, balance_labels=True, seed=0, out=work / "snli-random-0")
    tailsplit.evaluate([likely, random], baselines=["tfidf"], out=work / "eval")
    tailsplit.explore([likely, random], predictions=[work / "eval" / "predictions.jsonl"], out=work / "explorer")
    return work / "explorer" / "explorer.html"


def screenshots(html: Path) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import Select

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1500,1050"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        driver.get(html.as_uri())
        while driver.execute_script("return window.explorerReady === undefined"):
            time.sleep(0.05)
        driver.execute_script("document.querySelector('.filters').scrollIntoView()")
        driver.save_screenshot(str(ASSETS / "explorer-table.png"))
        driver.find_element("css selector", 'button[data-tail="neutral"]').click()
        Select(driver.find_element("css selector", 'select[data-column="part:snli-likelihood"]')).select_by_value(
            "test"
        )
        time.sleep(0.5)
        driver.execute_script("document.querySelector('.tails').scrollIntoView()")
        driver.save_screenshot(str(ASSETS / "explorer-tail.png"))
    finally:
        driver.quit()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        screenshots(page(Path(scratch)))
    print(f"wrote {ASSETS / 'explorer-table.png'} and {ASSETS / 'explorer-tail.png'}")
