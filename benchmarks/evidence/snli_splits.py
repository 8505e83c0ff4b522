"""The pooled SNLI splits (dev + test, 19,666 pairs) and what `tailsplit analyze` finds in them.

Usage: python -m benchmarks.evidence.snli_splits [--data-dir ../shared/data/snli] [--out bench-out/fairness]
           [--json benchmarks/results/snli_splits.json]

Makes (or reuses) the label-balanced 10% + 10% splits of ``fairness_snli.py --splits-only``:
likelihood, likelihood with 10 length buckets, reverse and random (seed 0; seeds 1 and 2 too).
It then analyses the likelihood, length-controlled, reverse and seed-0 random splits against
500 random splits each (label counts kept), once on the hypotheses and once on premise +
hypothesis (``--analysis-text pair``), the likelihood split compared with the other two, and
with annotator agreement (``--agreement-field annotator_labels``: SNLI dev's five labels).
The results file holds each split's parts (size, mean words, mean log-likelihoods, label
counts) and each analysis's statistics against the null distribution as ``analyze`` wrote
them (observed value, null mean and spread, z, percentile, Holm-adjusted p).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import harness
from benchmarks.evidence.aflite_snli import tailsplit  # one subprocess call of the CLI, timed
from benchmarks.harness import write_results

ANALYSED = ("likelihood", "likelihood-len", "reverse", "random-0")


def split_parts(folder: Path) -> list[dict[str, Any]]:
    """The manifest's per-part summary of a split folder."""
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["summary"]


def analysis(folder: Path, text: str, compare: list[Path]) -> dict[str, Any]:
    """``tailsplit analyze`` on ``folder`` reading ``text``; what the results file keeps of it."""
    seconds = tailsplit(
        "analyze", str(folder), "--analysis-text", text, "--agreement-field", "annotator_labels",
        *(f"--compare={c}" for c in compare),
    )  # fmt: skip
    report = json.loads((folder / "analysis.json").read_text(encoding="utf-8"))
    return {
        "seconds": round(seconds, 1),
        "null_splits": report["null_splits"],
        "correction": report["correction"],
        "parts": report["parts"],
        "against_null": {row["name"]: row for row in report["against_null"]},
        "compared_with": report["compared_with"],
        "agreement": report.get("agreement"),
        "leakage": report["leakage"],
    }


def main() -> None:
    parser = harness.parser(__doc__, "write the parts and analyses to this results file")
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data/snli"))
    parser.add_argument("--out", type=Path, default=Path("bench-out/fairness"))
    args = parser.parse_args()
    clock = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "benchmarks.evidence.fairness_snli", "--splits-only",
         "--data-dir", str(args.data_dir), "--out", str(args.out)],
        check=True,
    )  # fmt: skip
    split_seconds = time.perf_counter() - clock
    scoring = json.loads((args.out / "likelihood" / "manifest.json").read_text(encoding="utf-8"))["scoring"]
    result: dict[str, Any] = {
        "examples": sum(part["size"] for part in split_parts(args.out / "likelihood")),
        "scoring": scoring,
        "splits": {name: split_parts(args.out / name) for name in ANALYSED},
        "analysis": {},
    }
    for text in ("query", "pair"):
        result["analysis"][text] = {
            name: analysis(
                args.out / name,
                text,
                [args.out / "likelihood-len", args.out / "random-0"] if name == "likelihood" else [],
            )
            for name in ANALYSED
        }
    result["seconds"] = {"splits": round(split_seconds, 1)}
    for text, by_split in result["analysis"].items():
        for name, found in by_split.items():
            print(f"{text:5} {name:15}", {k: round(v["z_score"], 1) for k, v in found["against_null"].items()})
    if args.json:
        write_results(args.json, result)


if __name__ == "__main__":
    main()
