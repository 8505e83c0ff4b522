"""Centroid similarity and MMD between the shared datasets, as `tailsplit similarity` reports them.

Usage: python benchmarks/shift_matrix.py [--data ../shared/data] [--out bench-out/shift-matrix]
           [--json benchmarks/results/shift_matrix.json]

Embeds every text of SNLI test, MNLI dev-matched, ANLI test (premise + hypothesis), SemEval-2017
sentiment test and BoolQ dev (question + passage) with the bundled MiniLM encoder (about 8
minutes on 2 CPU cores, then seconds from the embedding cache) and writes the pairwise matrix.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from aflite_snli import tailsplit  # one subprocess call of the CLI, timed
from provenance import write_results

SETS = {
    "snli": "snli/test.jsonl.gz@premise+hypothesis",
    "mnli": "mnli/dev_matched.jsonl.gz@premise+hypothesis",
    "anli": "anli/test.jsonl.gz@premise+hypothesis",
    "semeval": "semeval2017_sentiment/test.jsonl.gz",
    "boolq": "boolq/dev.jsonl.gz@question+passage",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--out", type=Path, default=Path("bench-out/shift-matrix"))
    parser.add_argument("--json", type=Path, help="write the matrix to this results file")
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
    if args.json:
        write_results(args.json, {**report, "seconds": round(seconds or time.perf_counter() - clock, 1)})


if __name__ == "__main__":
    main()
