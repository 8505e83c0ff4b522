"""How long each long command goes without a word, as a log sees it: every line it writes
(standard output and error together, no terminal) timed as it comes, and the longest gap from
its start to its exit. The commands train, fit, embed or score small inputs from ``DATA``
(``../shared/data``) with cold caches (a fresh cache folder each), so every step runs.

    python -m benchmarks.speed.silence ../shared/data --json benchmarks/results/silence.json
    python -m benchmarks.speed.silence ../shared/data --src OTHER_CHECKOUT  # another version's tailsplit
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

from benchmarks.harness import ROOT, parser, write_results

SAMPLE = ROOT / "examples" / "data" / "snli_dev_3000.jsonl.gz"


def longest_silence(args: list[str], src: Path, cache: Path) -> dict[str, Any]:
    """The command's seconds, lines and longest silence (its exit code must be 0)."""
    env = {**os.environ, "PYTHONPATH": str(src / "src"), "TAILSPLIT_CACHE_DIR": str(cache)}
    started = last = time.perf_counter()
    gaps, lines = [], 0
    with subprocess.Popen(
        [sys.executable, "-m", "tailsplit.cli", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env=env, text=True, cwd=ROOT,
    ) as process:  # fmt: skip
        for _ in process.stdout:  # type: ignore[union-attr]
            now = time.perf_counter()
            gaps.append(now - last)
            last, lines = now, lines + 1
    end = time.perf_counter()
    if process.returncode != 0:
        raise SystemExit(f"{args[0]} exited {process.returncode}")
    return {"seconds": round(end - started, 1), "lines": lines, "longest_silence_s": round(max([*gaps, end - last]), 1)}


def _take(source: Path, target: Path, n: int) -> Path:
    with gzip.open(source, "rt", encoding="utf-8") as lines, target.open("w", encoding="utf-8") as out:
        for i, line in enumerate(lines):
            if i >= n:
                break
            r = json.loads(line)
            out.write(json.dumps({k: r[k] for k in ("premise", "hypothesis", "label")}) + "\n")
    return target


def commands(data: Path, work: Path) -> dict[str, list[str]]:
    """Each command measured, on inputs written into ``work``."""
    mnli = _take(data / "mnli" / "dev_matched.jsonl.gz", work / "mnli.jsonl", 1500)
    anli = _take(data / "anli" / "test.jsonl.gz", work / "anli.jsonl", 300)
    snli = _take(data / "snli" / "test.jsonl.gz", work / "snli.jsonl", 300)
    small = _take(SAMPLE, work / "small.jsonl", 200)
    (work / "candidates.csv").write_text(
        f"name,path,fields,source\nanli,{anli},premise+hypothesis,anli\nsnli,{snli},premise+hypothesis,flickr\n",
        encoding="utf-8",
    )
    split = ["--text", "hypothesis", "--label", "label", "--no-analyze", "--quiet"]
    mnli_id = f"mnli={mnli}@premise+hypothesis"
    return {
        "split": ["split", str(small), "--splitter", "random", *split, "--out", str(work / "random")],
        "evaluate": ["evaluate", str(work / "random"), "--baseline", "encoder", "--max-train", "400",
                     "--max-steps", "60", "--out", str(work / "eval")],
        "ood_rank": ["ood-rank", "--id", mnli_id, "--candidates", str(work / "candidates.csv"), "--max-steps", "60",
                     "--max-train", "400", "--out", str(work / "ood")],
        "curve": ["curve", "--id", mnli_id, "--ood", f"anli={anli}@premise+hypothesis", "--max-steps", "60",
                  "--checkpoint-every", "20", "--max-examples", "300", "--out", str(work / "curve")],
        "score_cold": ["score", str(small), "--text", "hypothesis", "--out", str(work / "s1.parquet")],
        "score_cached": ["score", str(small), "--text", "hypothesis", "--out", str(work / "s2.parquet")],
    }  # fmt: skip


def main() -> None:
    made = parser(__doc__)
    made.add_argument("data", type=Path, help="the shared data folder (mnli, anli, snli)")
    made.add_argument("--src", type=Path, default=ROOT, help="the checkout whose tailsplit runs")
    args = made.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work, cache = Path(scratch), Path(scratch) / "cache"
        measured = {}
        for name, argv in commands(args.data.resolve(), work).items():
            if name == "split":  # evaluate's input: a split folder; not itself measured
                longest_silence(argv, args.src.resolve(), cache)
                continue
            measured[name] = longest_silence(argv, args.src.resolve(), cache)
            print(f"{name}: longest silence {measured[name]['longest_silence_s']} s of {measured[name]['seconds']} s")
    if args.json:
        write_results(args.json, {"commands": measured})


if __name__ == "__main__":
    main()
