"""The explorer page as a person uses it, in headless Chromium driven through its WebDriver
(Selenium and Debian's chromedriver; no network): it loads from the file alone, typing in the
search box filters the rows, a filter by label or part changes the count to what the data
says, a token's shade is the one its log-probability gives, a label's tail button shows that
label's least likely example first, and hostile text shows as text and runs nothing."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from helpers import EXPLORE_HOSTILE, chromium, explore_examples, explore_folders, external_tool, invoke, write_jsonl

from tailsplit.render.explorer import COLOUR, shade_alpha

pytestmark = pytest.mark.browser
pytest.importorskip("itables")
webdriver = pytest.importorskip("selenium.webdriver")


@pytest.fixture(scope="module")
def driver():
    browser = chromium()
    chromedriver = external_tool("chromedriver", required_by="TAILSPLIT_REQUIRE_BROWSER")
    if browser is None or chromedriver is None:
        pytest.skip("Chromium and its chromedriver are not installed")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--window-size=1400,1000"):  # fmt: skip
        options.add_argument(argument)
    session = webdriver.Chrome(service=Service(chromedriver), options=options)
    yield session
    session.quit()


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("explorer")
    folders = explore_folders(root)
    assert invoke(["explore", folders["ll"], folders["rnd"], "--out", root / "x"]).exit_code == 0
    return root / "x" / "explorer.html"


def opened(driver, page: Path) -> None:
    """``page`` loaded afresh (from a blank page: the last test's page is never taken for it)."""
    driver.get("about:blank")
    driver.get(page.as_uri())
    deadline = time.time() + 60
    while driver.execute_script("return window.explorerReady === undefined"):
        assert time.time() < deadline, "the page never got ready"
        time.sleep(0.05)


def shown(driver) -> int:
    """The rows the table's info line says it shows after filtering."""
    info = driver.find_element("css selector", ".dt-info").text
    found = re.search(r"of ([\d,]+) entr(?:ies|y)", info)
    assert found is not None, info
    return int(found.group(1).replace(",", ""))


def wait_for(driver, count: int) -> None:
    deadline = time.time() + 10
    while shown(driver) != count:
        assert time.time() < deadline, (shown(driver), count)
        time.sleep(0.05)


def test_typing_in_the_search_box_filters_the_rows(driver, page) -> None:
    opened(driver, page)
    assert shown(driver) == 60
    box = driver.find_element("css selector", "input[type=search]")
    box.send_keys("e1")  # ids e1 and e10 to e19; no text, label or number holds it
    wait_for(driver, 11)
    box.send_keys(" neutral")  # every word, somewhere in the row
    wait_for(
        driver, sum(r["label"] == "neutral" and re.fullmatch(r"e1\d?", r["id"]) is not None for r in explore_examples())
    )


def test_a_filter_by_label_or_part_changes_the_count(driver, page) -> None:
    from selenium.webdriver.support.ui import Select

    opened(driver, page)
    Select(driver.find_element("css selector", 'select[data-column="label"]')).select_by_value("neutral")
    wait_for(driver, sum(r["label"] == "neutral" for r in explore_examples()))
    test_ids = {json.loads(line)["id"] for line in (page.parent.parent / "ll" / "test.jsonl").open()}
    Select(driver.find_element("css selector", 'select[data-column="part:ll"]')).select_by_value("test")
    wait_for(driver, sum(r["label"] == "neutral" and r["id"] in test_ids for r in explore_examples()))
    Select(driver.find_element("css selector", 'select[data-column="label"]')).select_by_value("")
    wait_for(driver, len(test_ids))


def test_each_tokens_shade_is_its_log_probabilitys(driver, page) -> None:
    opened(driver, page)
    tokens = driver.find_elements("css selector", "#explorer tbody span.tok")
    assert len(tokens) > 50
    for token in tokens[:80]:
        logprob = float(token.get_attribute("data-logprob"))
        alpha = shade_alpha(logprob)
        colour = token.value_of_css_property("background-color")
        expected = f"rgba({COLOUR}, {alpha:g})" if alpha < 1 else f"rgba({COLOUR}, 1)"
        assert colour.replace(" ", "") == expected.replace(" ", ""), (logprob, colour)
        assert token.get_attribute("title") == f"log p = {logprob:.2f}"


def test_a_labels_tail_starts_at_its_least_likely_example(driver, page) -> None:
    opened(driver, page)
    driver.find_element("css selector", 'button[data-tail="contradiction"]').click()
    wait_for(driver, sum(r["label"] == "contradiction" for r in explore_examples()))
    first = driver.find_element("css selector", "#explorer tbody tr").find_elements("css selector", "td")
    keys = driver.execute_script(
        "return JSON.parse(document.getElementById('explorer-spec').textContent).columns.map(c => c.key)"
    )
    rows = driver.execute_script("return JSON.parse(document.getElementById('explorer-rows').textContent)")
    label, score = keys.index("label"), keys.index("logprob_sum")
    lowest = min((r for r in rows if r[label] == "contradiction"), key=lambda r: r[score])
    assert first[0].text == lowest[0]


def test_hostile_text_shows_as_text_and_runs_nothing(driver, page) -> None:
    opened(driver, page)
    driver.find_element("css selector", "input[type=search]").send_keys("e7 bold")
    wait_for(driver, 1)
    cell = driver.find_elements("css selector", "#explorer tbody td")[2]
    assert cell.text == EXPLORE_HOSTILE
    assert driver.execute_script("return window.pwned") is None
    assert not driver.find_elements("css selector", "#explorer tbody img, #explorer tbody b")


def test_a_hostile_column_title_shows_as_text_and_runs_nothing(driver, tmp_path) -> None:
    """A title made from the user's files (here a score file's membership column name) is the
    header cell's text: the table library writes a column's given title as HTML, so none is given."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = explore_examples()
    data = write_jsonl(tmp_path / "data.jsonl", rows)
    scores = {"id": [r["id"] for r in rows], "logprob_sum": [-1.0 - i for i in range(len(rows))]}
    pq.write_table(pa.table({**scores, f"membership_{EXPLORE_HOSTILE}": [0.5] * len(rows)}), tmp_path / "s.parquet")
    common = [data, "--text", "hypothesis", "--label", "label", "--no-analyze"]
    assert invoke(["split", *common, "--scores", tmp_path / "s.parquet", "--out", tmp_path / "ll"]).exit_code == 0
    assert invoke(["explore", tmp_path / "ll", "--out", tmp_path / "x"]).exit_code == 0
    opened(driver, tmp_path / "x" / "explorer.html")
    headers = [h.text for h in driver.find_elements("css selector", "#explorer thead th")]
    assert f"membership: {EXPLORE_HOSTILE}" in headers
    assert driver.execute_script("return window.pwned") is None
    assert not driver.find_elements("css selector", "#explorer thead img, #explorer thead b")
