"""The paper's fairness check (§4.3) on pooled SNLI dev + test: is a likelihood split adversarial
to the LM that made it, as adversarial filtering is to its model?

Usage: python -m benchmarks.evidence.fairness_snli [--data-dir ../shared/data/snli] [--out bench-out/fairness]
           [--baseline encoder --baseline embed] [--zero-shot] [--max-steps 400] [--max-train N] [--device auto]
           [--score-dtype float32] [--seeds 0,1,2] [--parallel] [--deadline-s S] [--without SPLIT] [--json FILE]

CPU (the table in the docs' Results page): --baseline encoder --baseline embed --zero-shot --max-steps 400.
GPU (the scoring LM fine-tuned, as the paper; benchmarks/gpu/gpu_fairness.sh): --baseline encoder
--baseline lm --max-steps 1000 --device cuda --score-dtype float32 --seeds 0,1,2 --parallel.

``--seeds`` repeats the training (evaluate's ``--seed``: the task models' initialisation and
batches, and the bootstrap) on the same splits; the results file keeps each seed's table beside
the first's. ``--parallel`` trains each (seed, baseline, split) in a process of its own, ``--workers`` at a
time, the first seed's first, then the other seeds', each seed's table then read back from the
training cache; ``--deadline-s`` stops the later seeds' training at that many seconds
after the start (the seeds that finished are kept). The training cache can be filled on one
machine and the tables made on another (TAILSPLIT_CACHE_DIR holding the first's
``evaluations/`` folder, the split folders made again from the first's ``scores.parquet``, the
data at the same path: the parts come out byte-identical); ``--trained-on`` then records where
the models were trained.

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
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
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
    parser.add_argument("--score-dtype", help="score with this --dtype [default: tailsplit's for the device]")
    parser.add_argument("--seeds", default="0", help="training seeds, comma-separated [default: 0]")
    parser.add_argument("--parallel", action="store_true", help="one training process per seed and baseline")
    parser.add_argument("--without", action="append", default=[], choices=list(SPLITS), help="leave this split out")
    parser.add_argument(
        "--trained-on", help="where the task models were trained, when their runs come from a cache filled elsewhere"
    )
    parser.add_argument("--workers", type=int, default=14, help="with --parallel: processes at a time")
    parser.add_argument("--deadline-s", type=float, help="stop the later seeds' training after this many seconds")
    args = parser.parse_args()
    started = time.perf_counter()
    data = [str(args.data_dir / "dev.jsonl.gz"), str(args.data_dir / "test.jsonl.gz")]
    fields = ["--text", "hypothesis", "--context", "premise", "--label", "label"]
    scores = args.out / "scores.parquet"
    seconds = {}
    if args.fresh or not scores.exists():
        dtype = ["--dtype", args.score_dtype] if args.score_dtype else []
        seconds["score"] = tailsplit(
            "score", *data, *fields, "--template", "snli", *dtype, "--overwrite", "--out", str(scores)
        )
    common = [*fields, "--balance-labels", "--dev-size", "0.1", "--test-size", "0.1", "--no-analyze", "--overwrite"]
    names = tuple(name for name in SPLITS if name not in args.without)
    for name in names:
        extra = SPLITS[name]
        if not args.fresh and (args.out / name / "manifest.json").exists():
            continue  # AFLite takes about an hour on a 2-core CPU: split once
        seconds[name] = tailsplit(
            "split", *data, "--scores", str(scores), *common, *extra, "--out", str(args.out / name)
        )
    if args.splits_only:
        print("seconds:", {k: round(v, 1) for k, v in seconds.items()})
        return
    recipe = ["--max-steps", str(args.max_steps), "--device", args.device]
    if args.zero_shot:
        recipe += ["--zero-shot", "--zero-shot-template", "snli"]
    if args.max_train:
        recipe += ["--max-train", str(args.max_train)]
    baselines = args.baseline or ["encoder", "embed"]
    seeds = [int(seed) for seed in args.seeds.split(",")]
    reports, trained = {}, set(seeds)

    def evaluate(seed: int) -> None:  # one seed's table, from the training cache where it is filled
        if seed not in trained:
            print(f"seed {seed}: not evaluated (its training did not finish)")
            return
        evaluation = _evaluation_folder(args.out, args.max_steps, seed)
        seconds[f"evaluate-seed-{seed}"] = tailsplit(
            *_evaluate_args(args.out, names, seed, baselines, recipe, evaluation)
        )
        reports[seed] = json.loads((evaluation / "evaluation.json").read_text(encoding="utf-8"))
        if args.json:  # after every seed, so a run stopped later keeps what it evaluated
            write_results(args.json, _results(reports, seconds) | {"trained_on": args.trained_on})

    first, later = seeds[0], seeds[1:]
    if args.parallel:
        seconds["train-first-seed"], trained = _train_apart(
            args.out, names, [first], baselines, recipe, None, args.workers
        )
    evaluate(first)
    if first in reports:
        print((_evaluation_folder(args.out, args.max_steps, first) / "table.md").read_text(encoding="utf-8"))
        if reports[first]["fairness"] is None:
            print("no fairness table: it needs the scoring LM's model (lm or --zero-shot) and another model")
    if args.parallel and later:
        deadline = None if args.deadline_s is None else started + args.deadline_s
        seconds["train-later-seeds"], done = _train_apart(
            args.out, names, later, baselines, recipe, deadline, args.workers
        )
        trained |= done
    for seed in later:
        evaluate(seed)
    print("seconds:", {k: round(v, 1) for k, v in seconds.items()})


def _evaluation_folder(out: Path, max_steps: str, seed: int) -> Path:
    return out / (f"evaluation-{max_steps}" + (f"-seed-{seed}" if seed else ""))


def _evaluate_args(
    out: Path, splits: tuple[str, ...], seed: int, baselines: list[str], recipe: list[str], evaluation: Path
) -> list[str]:
    chosen = [arg for baseline in baselines for arg in ("--baseline", baseline)]
    return ["evaluate", *(str(out / name) for name in splits), "--agreement-field", "annotator_labels",
            *recipe, *chosen, "--seed", str(seed), "--overwrite", "--quiet", "--out", str(evaluation)]  # fmt: skip


def _train_apart(
    out: Path,
    names: tuple[str, ...],
    seeds: list[int],
    baselines: list[str],
    recipe: list[str],
    deadline: float | None,
    workers: int,
) -> tuple[float, set[int]]:
    """Train every (seed, baseline, split) in a process of its own, ``workers`` at a time (an
    evaluation of the one split each, kept in a scratch folder: what counts is the training
    cache they fill), stopped at the deadline (a time.perf_counter() value) where one is given.
    Returns the seconds taken and the seeds whose every training finished."""
    began = time.perf_counter()
    jobs = [(seed, baseline, name) for seed in seeds for baseline in baselines for name in names]

    def train(job: tuple[int, str, str]) -> int:
        seed, baseline, name = job
        scratch = out / "scratch" / f"seed-{seed}-{baseline}-{name}"
        command = [
            sys.executable,
            "-m",
            "tailsplit.cli",
            *_evaluate_args(out, (name,), seed, [baseline], recipe, scratch),
        ]
        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0:
            return 1
        try:
            return subprocess.run(command, timeout=left, stdout=subprocess.DEVNULL).returncode
        except subprocess.TimeoutExpired:
            print(f"deadline: seed {seed}, {baseline} on {name} stopped")
            return 1

    with ThreadPoolExecutor(max_workers=workers) as pool:
        codes = list(pool.map(train, jobs))
    finished = set(seeds) - {job[0] for job, code in zip(jobs, codes) if code != 0}
    return time.perf_counter() - began, finished


def _results(reports: dict[int, dict], seconds: dict[str, float]) -> dict:
    """The first evaluated seed's results, with every seed's table (``reports`` in the order
    the seeds were evaluated: ``--seeds``' first, then the others)."""
    results = evaluation_results(next(iter(reports.values())), seconds)
    results["seeds"] = {
        str(seed): {"table": report["table"], "fairness": report.get("fairness"), "conclusions": report["conclusions"]}
        for seed, report in sorted(reports.items())
    }
    return results


if __name__ == "__main__":
    main()
