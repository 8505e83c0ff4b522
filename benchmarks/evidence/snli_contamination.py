"""Where a likelihood split meets contamination, on the bundled SNLI sample: is the likely head
(train) more often "seen" than the tail (dev + test)? The label-balanced likelihood split, and
the one with length control (``--length-buckets 10``: is it length?), from one score file. Two
measures, each tested against 1,000 random splits of the same sizes (label counts kept) with
the analysis's Holm correction:

- the bundled model's membership scores (``--membership-k 20``: loss, zlib, Min-K%, Min-K%++)
  of each hypothesis given its premise, from the scoring passes of the split itself;
- an infini-gram index (``words``) of every other text of the shared data — SNLI test's
  premises and hypotheses, MNLI dev-matched, ANLI test, BoolQ, Spider, SemEval-2017 — none of
  the sample's own pairs: the share of hypotheses it holds whole, the mean share of their
  tokens inside an 8-gram it holds, and the mean longest match.

    python -m benchmarks.evidence.snli_contamination --data ../shared/data \\
        --json benchmarks/results/snli_contamination.json
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from benchmarks import harness
from benchmarks.evidence.aflite_snli import tailsplit  # one subprocess call of the CLI, timed
from benchmarks.harness import SNLI_SAMPLE, write_results
from benchmarks.speed.bench_overlap import SOURCES, source_texts

CORPUS = {  # the overlap benchmark's sources but the sample's own (SNLI dev), and SNLI test
    **{name: fields for name, fields in SOURCES.items() if name != "snli/dev.jsonl.gz"},
    "snli/test.jsonl.gz": ("premise", "hypothesis"),
}
SPLITS = {"likelihood": [], "likelihood-len": ["--length-buckets", "10"]}  # length control: is it length?
STATISTICS = (
    "mean_membership_loss", "mean_membership_zlib", "mean_membership_min_k", "mean_membership_min_k_plus_plus",
    "corpus_whole_share", "corpus_8gram_share", "corpus_longest_match", "mean_logprob_mean",
)  # fmt: skip


def write_corpus(data: Path, path: Path) -> int:
    """Every text of ``CORPUS``'s fields, once each, one JSON line per text."""
    seen = dict.fromkeys(text.strip() for text in source_texts(data, CORPUS) if text.strip())
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in seen), encoding="utf-8")
    return len(seen)


def main() -> None:
    parser = harness.parser(__doc__, "write the statistics to this results file")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--null-splits", type=int, default=1000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="snli-contamination-"))
    try:
        fields = ["--text", "hypothesis", "--context", "premise", "--label", "label"]
        seconds: dict[str, float] = {}
        seconds["score"] = tailsplit(
            "score", str(SNLI_SAMPLE), *fields, "--template", "snli", "--membership-k", "20",
            "--out", str(work / "scores.parquet"),
        )  # fmt: skip
        entries = write_corpus(args.data, work / "corpus.jsonl")
        probe = work / "probe.jsonl"
        probe.write_text('{"id": "p", "text": "a"}\n')
        seconds["index"] = tailsplit(
            "overlap", "--test", str(probe), "--corpus", str(work / "corpus.jsonl"), "--infini-gram", str(work / "ig")
        )
        splits: dict[str, Any] = {}
        for name, extra in SPLITS.items():
            folder = work / name
            tailsplit(
                "split", str(SNLI_SAMPLE), *fields, "--scores", str(work / "scores.parquet"), "--balance-labels", *extra,
                "--no-analyze", "--out", str(folder),
            )  # fmt: skip
            seconds[f"analyze {name}"] = tailsplit(
                "analyze", str(folder), "--infini-gram", str(work / "ig"), "--null-splits", str(args.null_splits),
                "--no-syntax",
            )  # fmt: skip
            splits[name] = kept_statistics(json.loads((folder / "analysis.json").read_text(encoding="utf-8")))
        if args.json:
            write_results(
                args.json,
                {
                    "examples": splits["likelihood"]["examples"],
                    "null_splits": args.null_splits,
                    "corpus_entries": entries,
                    "splits": splits,
                    "seconds": {k: round(v, 1) for k, v in seconds.items()},
                },
            )
    finally:
        shutil.rmtree(work)


def kept_statistics(report: dict[str, Any]) -> dict[str, Any]:
    """What the results file keeps of an analysis: the ``STATISTICS`` against the null, printed."""
    rows = {row["name"]: row for row in report["against_null"]}
    kept = {name: {k: rows[name][k] for k in _KEPT if k in rows[name]} for name in STATISTICS if name in rows}
    for name, row in kept.items():
        print(f"{name:34} observed {row['observed']:.4f}  random {row['null_mean']:.4f}  p_holm {row['p_holm']:.3g}")
    return {"examples": report["examples"], "correction": report["correction"], "against_null": kept}


_KEPT = ("observed", "null_mean", "null_std", "percentile", "z_score", "p_value", "p_holm", "differs", "description")


if __name__ == "__main__":
    main()
