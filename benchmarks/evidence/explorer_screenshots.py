"""The explorer's screenshots in the docs (``docs/assets/explorer-*.png``): the demo's
likelihood split of the bundled 3,000 SNLI pairs (tokens kept) beside a random split, with
the TF-IDF baseline's predictions, in headless Chromium through chromedriver.

    python -m benchmarks.evidence.explorer_screenshots
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import tailsplit
from benchmarks.browser import headless_chromium, open_explorer
from benchmarks.harness import SNLI_SAMPLE

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "docs" / "assets"
FIELDS = {"text": "hypothesis", "context": "premise", "label": "label"}


def page(work: Path) -> Path:
    likely = tailsplit.likelihood_split(
        SNLI_SAMPLE, **FIELDS, template="snli", balance_labels=True, token_scores=True, analyze=False,
        out=work / "snli-likelihood",
    )  # fmt: skip
    random = tailsplit.split(SNLI_SAMPLE, "random", **FIELDS, balance_labels=True, seed=0, out=work / "snli-random-0")
    tailsplit.evaluate([likely, random], baselines=["tfidf"], out=work / "eval")
    tailsplit.explore([likely, random], predictions=[work / "eval" / "predictions.jsonl"], out=work / "explorer")
    return work / "explorer" / "explorer.html"


def screenshots(html: Path) -> None:
    from selenium.webdriver.support.ui import Select

    driver = headless_chromium("1500,1050")
    try:
        open_explorer(driver, html)
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
