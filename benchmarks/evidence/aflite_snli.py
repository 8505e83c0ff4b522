"""Likelihood split against adversarial filtering (AFLite) and random splits, on real SNLI pairs.

Usage: python -m benchmarks.evidence.aflite_snli [--data examples/data/snli_dev_3000.jsonl.gz] [--out bench-out/aflite] [--json FILE]

Splits the data five ways, each label-balanced with 10% + 10% held out: the likelihood split
of the demo (bundled SmolLM2, SNLI prompt), AFLite (bundled MiniLM embeddings, the paper's
m = 64 and τ = 0.75), and three random splits (seeds 0–2). Then ``tailsplit evaluate`` scores
each with the TF-IDF baseline and with the scoring LM as a zero-shot classifier (the model in
the loop of the likelihood split), and prints the table, the conclusions and how long each
step took. Nothing here is tuned: the numbers are what the defaults give.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import write_results

SPLITS = {
    "likelihood": ["--template", "snli"],
    "aflite": ["--splitter", "aflite"],
    **{f"random-{seed}": ["--splitter", "random", "--seed", str(seed)] for seed in range(3)},
}


def tailsplit(*args: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tailsplit.cli", *args], check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = harness.parser(__doc__, "write the table, conclusions and timings to this results file")
    parser.add_argument("--data", type=Path, default=Path("examples/data/snli_dev_3000.jsonl.gz"))
    parser.add_argument("--out", type=Path, default=Path("bench-out/aflite"))
    args = parser.parse_args()
    common = ["--text", "hypothesis", "--context", "premise", "--label", "label", "--balance-labels",
              "--dev-size", "0.1", "--test-size", "0.1", "--no-analyze", "--overwrite"]  # fmt: skip
    seconds = {}
    for name, extra in SPLITS.items():
        command = "run" if name == "likelihood" else "split"
        seconds[name] = tailsplit(command, str(args.data), *common, *extra, "--out", str(args.out / name))
    folders = [str(args.out / name) for name in SPLITS]
    seconds["evaluate"] = tailsplit(
        "evaluate", *folders, "--baseline", "tfidf", "--zero-shot", "--zero-shot-template", "snli",
        "--overwrite", "--out", str(args.out / "evaluation"),
    )  # fmt: skip
    report = json.loads((args.out / "evaluation" / "evaluation.json").read_text(encoding="utf-8"))
    print("| model | split | test accuracy | difference to random (95% interval) |")
    print("|---|---|---:|---|")
    for row in report["table"]:
        spread = f" ± {100 * row['test_std']:.1f}" if row.get("test_std") else ""
        interval = row.get("difference_ci")
        difference = (
            f"{100 * row['difference']:+.1f} [{100 * interval[0]:+.1f}, {100 * interval[1]:+.1f}]" if interval else "–"
        )
        print(f"| {row['baseline']} | {row['split']} | {100 * row['test']:.1f}{spread} | {difference} |")
    for found in report["conclusions"]:
        print(f"- {found['baseline']}: {found['question']} — {found['outcome']} ({found['evidence']})")
    print("seconds:", {k: round(v, 1) for k, v in seconds.items()})
    if args.json:
        write_results(args.json, evaluation_results(report, seconds))


def evaluation_results(report: dict, seconds: dict[str, float]) -> dict:
    """What the docs show of an evaluation: its table, fairness rows, conclusions, and timings."""
    return {
        "table": report["table"],
        "fairness": report.get("fairness"),
        "conclusions": report["conclusions"],
        "seconds": {k: round(v, 1) for k, v in seconds.items()},
    }


if __name__ == "__main__":
    main()
