"""Centroid similarity and MMD between the shared datasets, as `tailsplit similarity` reports them.

Usage: python -m benchmarks.evidence.shift_matrix [--data ../shared/data] [--out bench-out/shift-matrix]
           [--json benchmarks/results/shift_matrix.json]

Embeds every text of SNLI test, MNLI dev-matched, ANLI test (premise + hypothesis), SemEval-2017
sentiment test and BoolQ dev (question + passage) with the bundled MiniLM encoder (about 8
minutes on 2 CPU cores, then seconds from the embedding cache) and writes the pairwise matrix.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.evidence.aflite_snli import tailsplit  # one subprocess call of the CLI, timed
from benchmarks.harness import write_results

SETS = {
    "snli": "snli/test.jsonl.gz@premise+hypothesis",
    "mnli": "mnli/dev_matched.jsonl.gz@premise+hypothesis",
    "anli": "anli/test.jsonl.gz@premise+hypothesis",
    "semeval": "semeval2017_sentiment/test.jsonl.gz",
    "boolq": "boolq/dev.jsonl.gz@question+passage",
}


def main() -> None:
    parser = harness.parser(__doc__, "write the matrix to this results file")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--out", type=Path, default=Path("bench-out/shift-matrix"))
    parser.add_argument(
        "--splits",
        type=Path,
        default=Path("bench-out/fairness"),
        help="folder of fairness_snli.py's splits: also compare the parts of likelihood and random-0",
    )
    args = parser.parse_args()
    clock = time.perf_counter()
    seconds = tailsplit(
        "similarity",
        *(f"{name}={args.data / spec}" for name, spec in SETS.items()),
        "--overwrite",
        "--out",
        str(args.out),
    )
    report = json.loads((args.out / "similarity.json").read_text(encoding="utf-8"))
    print(json.dumps({k: v for k, v in report.items() if k != "pairs"}, indent=1)[:2000])
    result = {**report, "seconds": round(seconds or time.perf_counter() - clock, 1)}
    if (args.splits / "likelihood").is_dir():
        parts = args.out.with_name(args.out.name + "-splits")
        tailsplit("similarity", "--split", str(args.splits / "likelihood"), "--split", str(args.splits / "random-0"),
                  "--overwrite", "--out", str(parts))  # fmt: skip
        result["splits"] = json.loads((parts / "similarity.json").read_text(encoding="utf-8"))
        print("splits:", result["splits"]["names"], result["splits"]["centroid_similarity"])
    if args.json:
        write_results(args.json, result)


if __name__ == "__main__":
    main()
