"""The paper's fairness check (§4.3) on pooled SNLI dev + test: is a likelihood split adversarial
to the LM that made it, as adversarial filtering is to its model?

Usage: python -m benchmarks.evidence.fairness_snli [--data-dir ../shared/data/snli] [--out bench-out/fairness]
           [--baseline encoder --baseline embed] [--zero-shot] [--max-steps 400] [--max-train N] [--device auto]
           [--json FILE]

CPU (the table in the docs' Results page): --baseline encoder --baseline embed --zero-shot --max-steps 400.
GPU (the scoring LM fine-tuned, as the paper): --baseline encoder --baseline lm --max-steps 2000 --device cuda.

Scores every pair once with the bundled SmolLM2 (SNLI prompt), then makes seven label-balanced
splits with 10% + 10% held out: likelihood, likelihood with 10 length buckets, reverse, AFLite
(bundled MiniLM embeddings, the paper's m = 64 and τ = 0.75) and random (seeds 0–2). Then
``tailsplit evaluate --agreement-field annotator_labels`` trains the task models on every split —
MiniLM-L6 fine-tuned as a cross-encoder (``encoder``), frozen MiniLM embeddings with logistic
regression (``embed``, AFLite's own model family), and the scoring LM's model: fine-tuned with a
classification head (``lm``) or as a zero-shot classifier (``--zero-shot``) — and prints the
fairness table, the conclusions and how long each step took. Nothing here is tuned: the recipe
is the command line's.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import harness
from benchmarks.evidence.aflite_snli import (  # tailsplit: one subprocess call of the CLI, timed
    evaluation_results,
    tailsplit,
)
from benchmarks.harness import write_results

SPLITS = {
    "likelihood": [],
    "likelihood-len": ["--length-buckets", "10"],
    "reverse": ["--reverse"],
    "aflite": ["--splitter", "aflite"],
} | {f"random-{seed}": ["--splitter", "random", "--seed", str(seed)] for seed in range(3)}


def main() -> None:
    parser = harness.parser(__doc__, "write the table, fairness rows, conclusions and timings here")
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data/snli"))
    parser.add_argument("--out", type=Path, default=Path("bench-out/fairness"))
    parser.add_argument("--baseline", action="append", help="task model (repeatable) [default: encoder, embed]")
    parser.add_argument("--zero-shot", action="store_true", help="the scoring LM as a zero-shot classifier")
    parser.add_argument("--max-steps", default="400")
    parser.add_argument("--max-train", default=None)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--splits-only", action="store_true", help="score and split, do not evaluate")
    parser.add_argument("--fresh", action="store_true", help="split again even where a split folder exists")
    args = parser.parse_args()
    data = [str(args.data_dir / "dev.jsonl.gz"), str(args.data_dir / "test.jsonl.gz")]
    fields = ["--text", "hypothesis", "--context", "premise", "--label", "label"]
    scores = args.out / "scores.parquet"
    seconds = {}
    if args.fresh or not scores.exists():
        seconds["score"] = tailsplit("score", *data, *fields, "--template", "snli", "--overwrite", "--out", str(scores))
    common = [*fields, "--balance-labels", "--dev-size", "0.1", "--test-size", "0.1", "--no-analyze", "--overwrite"]
    for name, extra in SPLITS.items():
        if not args.fresh and (args.out / name / "manifest.json").exists():
            continue  # AFLite takes about 40 minutes on a 2-core CPU: split once
        seconds[name] = tailsplit(
            "split", *data, "--scores", str(scores), *common, *extra, "--out", str(args.out / name)
        )
    if args.splits_only:
        print("seconds:", {k: round(v, 1) for k, v in seconds.items()})
        return
    recipe = ["--max-steps", str(args.max_steps), "--device", args.device]
    for baseline in args.baseline or ["encoder", "embed"]:
        recipe += ["--baseline", baseline]
    if args.zero_shot:
        recipe += ["--zero-shot", "--zero-shot-template", "snli"]
    if args.max_train:
        recipe += ["--max-train", str(args.max_train)]
    evaluation = args.out / f"evaluation-{args.max_steps}"
    seconds["evaluate"] = tailsplit(
        "evaluate", *(str(args.out / name) for name in SPLITS), "--agreement-field", "annotator_labels", *recipe, "--overwrite", "--out", str(evaluation),
    )  # fmt: skip
    report = json.loads((evaluation / "evaluation.json").read_text(encoding="utf-8"))
    print((evaluation / "table.md").read_text(encoding="utf-8"))
    if report["fairness"] is None:
        print("no fairness table: it needs the scoring LM's model (lm or --zero-shot) and another model")
    print("seconds:", {k: round(v, 1) for k, v in seconds.items()})
    if args.json:
        write_results(args.json, evaluation_results(report, seconds))


if __name__ == "__main__":
    main()
