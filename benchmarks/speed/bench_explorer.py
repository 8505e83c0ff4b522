"""What the explorer costs. First, keeping the tokens: the 3,000-pair SNLI sample scored with
the bundled model (SNLI template, no cache) with and without ``--token-scores``, in
alternating rounds — seconds and score-file bytes. Then the page at 3,000 rows (those scores)
and at 570,000 rows (the sample's rows and token scores repeated under new ids: SNLI's
training-set size): the seconds and peak resident memory of ``tailsplit explore``, the page's bytes,
and in headless Chromium (through chromedriver) the milliseconds from navigation to a usable
table and from typing a word to the filtered count.

    python -m benchmarks.speed.bench_explorer --json benchmarks/results/explorer.json
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from benchmarks.browser import headless_chromium, open_explorer
from benchmarks.harness import ROOT, SNLI_SAMPLE, in_rounds, parser, write_results

SNLI_TRAIN = 570_000
# The command line in a process of its own that prints its peak resident memory (KiB) last:
# VmHWM, which starts afresh at exec (ru_maxrss keeps the forking parent's, here gigabytes).
MEASURED = (
    "import sys\nfrom tailsplit.cli import main\nsys.argv[0] = 'tailsplit'\n"
    "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
    "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')))"
)


def token_cost(work: Path, rounds: int) -> tuple[dict[str, Any], Path, Path]:
    """Scoring with and without the tokens: seconds per round and the score files' bytes."""
    import tailsplit

    data = work / "snli.jsonl"
    with gzip.open(SNLI_SAMPLE, "rt", encoding="utf-8") as rows, data.open("w", encoding="utf-8") as out:
        for i, line in enumerate(rows):
            out.write(json.dumps({"id": f"s{i}", **json.loads(line)}) + "\n")
    common = {"text": "hypothesis", "context": "premise", "label": "label", "template": "snli", "use_cache": False}

    def scored(tokens: bool) -> Path:
        path = work / f"scores-{'tokens' if tokens else 'plain'}.parquet"
        tailsplit.score(data, **common, token_scores=tokens, out=path, overwrite=True, progress=False)
        return path

    tailsplit.score(data, **common, out=work / "warm.parquet", progress=False)  # loads and converts the model
    seconds, files = in_rounds({"plain": lambda: scored(False), "tokens": lambda: scored(True)}, rounds)
    result = {
        name: {"seconds": [round(s, 2) for s in seconds[name]], "bytes": files[name].stat().st_size} for name in seconds
    }
    best = {name: min(s) for name, s in seconds.items()}
    result["time_ratio"] = round(best["tokens"] / best["plain"], 3)
    result["size_ratio"] = round(result["tokens"]["bytes"] / result["plain"]["bytes"], 2)
    return result, data, files["tokens"]


def repeated(data: Path, scores: Path, n: int, work: Path) -> tuple[Path, Path]:
    """``n`` rows: the sample's rows and token scores over and over, each under a new id."""
    rows = [json.loads(line) for line in data.open(encoding="utf-8")]
    table = pq.read_table(scores).to_pydict()
    at = {example: i for i, example in enumerate(table["id"])}
    big = work / f"data-{n}.jsonl"
    columns: dict[str, list[Any]] = {k: [] for k in ("id", "logprob_sum", "n_tokens", "token_pieces", "token_logprobs")}
    with big.open("w", encoding="utf-8") as out:
        for i in range(n):
            row = rows[i % len(rows)]
            out.write(json.dumps({**row, "id": f"r{i}"}) + "\n")
            source = at[row["id"]]
            columns["id"].append(f"r{i}")
            for name in ("logprob_sum", "n_tokens", "token_pieces", "token_logprobs"):
                columns[name].append(table[name][source])
    path = work / f"scores-{n}.parquet"
    pq.write_table(pa.table(columns), path)
    return big, path


def page_at(n: int, data: Path, scores: Path, work: Path) -> dict[str, Any]:
    """Split (likelihood, from the scores), explore, and load the page in Chromium."""
    tailsplit = [sys.executable, "-m", "tailsplit.cli"]
    args = ["--text", "hypothesis", "--context", "premise", "--label", "label", "--no-analyze", "--quiet"]
    subprocess.run([*tailsplit, "split", str(data), *args, "--scores", str(scores), "--out", str(work / f"ll-{n}")],
                   check=True, cwd=ROOT)  # fmt: skip
    started = time.perf_counter()
    explored = subprocess.run(
        [sys.executable, "-c", MEASURED, "explore", str(work / f"ll-{n}"), "--out", str(work / f"x-{n}")],
        check=True, cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    peak_kib = int(explored.stdout.strip().splitlines()[-1])
    page = work / f"x-{n}" / "explorer.html"
    loaded = in_chromium(page)
    return {
        "rows": n,
        "explore_seconds": round(seconds, 1),
        "explore_peak_rss_mib": round(peak_kib / 1024),
        "page_bytes": page.stat().st_size,
        "page_mib": round(page.stat().st_size / 2**20, 1),
        **loaded,
    }


def in_chromium(page: Path) -> dict[str, Any]:
    """Milliseconds from navigation to the table's first draw (``window.explorerReady``), and
    from typing a word into the search box to the filtered count."""
    driver = headless_chromium()
    try:
        ready = open_explorer(driver, page)
        box = driver.find_element("css selector", "input[type=search]")
        started = time.perf_counter()
        box.send_keys("guitar")
        while "filtered" not in driver.find_element("css selector", ".dt-info").text:
            time.sleep(0.02)
        searched = time.perf_counter() - started
        shown = driver.find_element("css selector", ".dt-info").text
    finally:
        driver.quit()
    return {"ready_ms": round(ready), "search_ms": round(searched * 1000), "search_shows": shown}


def main() -> None:
    made = parser(__doc__)
    made.add_argument("--rounds", type=int, default=2, help="rounds of the token-cost timing")
    made.add_argument("--rows", type=int, nargs="+", default=[3000, SNLI_TRAIN], help="page sizes measured")
    args = made.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        os.environ.setdefault("TAILSPLIT_CACHE_DIR", str(work / "cache"))
        cost, data, scores = token_cost(work, args.rounds)
        print(f"--token-scores: {cost['time_ratio']}x the time, {cost['size_ratio']}x the score file")
        pages = []
        for n in args.rows:
            big, big_scores = (data, scores) if n == 3000 else repeated(data, scores, n, work)
            pages.append(page_at(n, big, big_scores, work))
            print(pages[-1])
    if args.json:
        write_results(args.json, {"token_scores": cost, "pages": pages})


if __name__ == "__main__":
    main()
