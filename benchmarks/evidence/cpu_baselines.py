"""Are prompted likelihood splits harder than random for the CPU baselines? Spider, SNLI, BoolQ.

Usage: python -m benchmarks.evidence.cpu_baselines [--data ../shared/data] [--out bench-out/cpu-baselines]
           [--json benchmarks/results/cpu_baselines.json]

For each dataset: one `tailsplit run` (prompted likelihood split, bundled SmolLM2; scores come
from the score cache when present), then `tailsplit split` from its scores for the
length-controlled (10 buckets) and reverse splits and three random splits (seeds 0–2), and
`tailsplit evaluate` with the dataset's CPU baselines:

* pooled Spider (train + dev), `spider` prompt, the atom constraint, 1,034 dev / 1,034 test:
  `nn-sql` (nearest-neighbour template match, exact match);
* pooled SNLI (dev + test), `snli` prompt, labels balanced, 10% / 10%: `tfidf` (premise +
  hypothesis) and `tfidf-text` (hypothesis only);
* BoolQ dev, the question scored alone (`plain`), labels balanced, 10% / 10%: `tfidf`
  (passage + question), `tfidf-text` (question only) and `embed` (frozen MiniLM + logistic
  regression).

The results file holds each evaluation's table as `evaluate` wrote it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from benchmarks import harness
from benchmarks.evidence.aflite_snli import tailsplit  # one subprocess call of the CLI, timed
from benchmarks.harness import write_results

DATASETS: dict[str, dict[str, Any]] = {
    "spider": {
        "files": ["spider/train.jsonl.gz", "spider/dev.jsonl.gz"],
        "fields": ["--text", "question", "--program", "query"],
        "template": "spider",
        "split": ["--atom-constraint", "--dev-size", "1034", "--test-size", "1034"],
        "baselines": ["nn-sql"],
    },
    "snli": {
        "files": ["snli/dev.jsonl.gz", "snli/test.jsonl.gz"],
        "fields": ["--text", "hypothesis", "--context", "premise", "--label", "label"],
        "template": "snli",
        "split": ["--balance-labels", "--dev-size", "0.1", "--test-size", "0.1"],
        "baselines": ["tfidf", "tfidf-text"],
    },
    "boolq": {
        "files": ["boolq/dev.jsonl.gz"],
        "fields": ["--text", "question", "--context", "passage", "--label", "label"],
        "template": "plain",
        "split": ["--balance-labels", "--dev-size", "0.1", "--test-size", "0.1"],
        "baselines": ["tfidf", "tfidf-text", "embed"],
    },
}
SPLITS = {
    "ll-len": ["--length-buckets", "10"],
    "reverse": ["--reverse"],
    **{f"random-{seed}": ["--splitter", "random", "--seed", str(seed)] for seed in range(3)},
}


def evaluate_dataset(name: str, spec: dict[str, Any], data: Path, out: Path) -> dict[str, Any]:
    """Split one dataset every way and evaluate the splits; the evaluation's table and timings."""
    files = [str(data / f) for f in spec["files"]]
    common = [*spec["fields"], *spec["split"], "--no-analyze", "--overwrite"]
    seconds = {"run": tailsplit("run", *files, *common, "--template", spec["template"], "--out", str(out / "ll"))}
    for split, extra in SPLITS.items():
        seconds[split] = tailsplit(
            "split", *files, "--scores", str(out / "ll" / "scores.parquet"), *common, *extra, "--out", str(out / split)
        )
    baselines = [flag for baseline in spec["baselines"] for flag in ("--baseline", baseline)]
    folders = [str(out / split) for split in ("ll", *SPLITS)]
    seconds["evaluate"] = tailsplit("evaluate", *folders, *baselines, "--overwrite", "--out", str(out / "evaluation"))
    report = json.loads((out / "evaluation" / "evaluation.json").read_text(encoding="utf-8"))
    print(f"\n{name}\n" + (out / "evaluation" / "table.md").read_text(encoding="utf-8"))
    return {
        "table": report["table"],
        "conclusions": report["conclusions"],
        "seconds": {k: round(v, 1) for k, v in seconds.items()},
    }


def main() -> None:
    parser = harness.parser(__doc__, "write every dataset's table to this results file")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--out", type=Path, default=Path("bench-out/cpu-baselines"))
    parser.add_argument("--only", choices=sorted(DATASETS), action="append", help="these datasets only")
    args = parser.parse_args()
    clock = time.perf_counter()
    result = {
        name: evaluate_dataset(name, spec, args.data, args.out / name)
        for name, spec in DATASETS.items()
        if not args.only or name in args.only
    }
    print(f"{time.perf_counter() - clock:.0f} s")
    if args.json:
        write_results(args.json, result)


if __name__ == "__main__":
    main()
