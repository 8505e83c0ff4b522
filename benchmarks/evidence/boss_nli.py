"""BOSS end to end on NLI: MNLI dev-matched as the ID data, ANLI test and SNLI dev as OOD candidates.

Usage: python -m benchmarks.evidence.boss_nli [--data ../shared/data] [--out bench-out/boss]
           [--curve-examples 2000] [--train-sizes 2000] [--max-steps 800] [--checkpoint-every 100]
           [--encoder FOLDER] [--device auto] [--seed 0] [--json benchmarks/results/boss_nli.json]

CPU (the Results page's first BOSS table): the defaults. GPU (a task model trained to its plateau):
--max-steps 2000 --checkpoint-every 200 --device cuda (benchmarks/gpu/gpu_evidence.sh).

Two commands, timed:

1. ``tailsplit ood-rank``: MNLI dev-matched divided by a seeded random split (20% ID test, 10%
   of the rest dev), the bundled MiniLM-L6 fine-tuned on ID train (the encoder recipe: up to
   800 steps of 32 pairs, dev accuracy every 200, early stop), then ID test accuracy and each
   candidate's accuracy and drop with 95% bootstrap intervals, the centroid similarity, and
   BOSS's decision (``--min-drop 0.05``, one per source).
2. ``tailsplit curve``: the same ID data; one run on all of ID train and one per
   ``--train-sizes``, ``--max-steps`` each, ID test and both OOD sets (a seeded sample of
   ``--curve-examples`` each) evaluated every ``--checkpoint-every`` steps; the ID–OOD relation
   per OOD set.

The results file is written after each command, so a run stopped after ``ood-rank`` keeps it.

About 40 minutes on 2 CPU cores with empty caches; seconds from the caches.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

from benchmarks import harness
from benchmarks.evidence.aflite_snli import tailsplit  # one subprocess call of the CLI, timed
from benchmarks.harness import write_results

ID = "mnli/dev_matched.jsonl.gz"
CANDIDATES = {  # name: (file, text source)
    "anli": ("anli/test.jsonl.gz", "Wikipedia and mixed (adversarial)"),
    "snli": ("snli/dev.jsonl.gz", "Flickr30k image captions"),
}
FIELDS = "premise+hypothesis"


def _id_range(points: str) -> list[float]:
    """The lowest and highest ID test accuracy over the curve's points."""
    values = [float(row["id_acc"]) for row in csv.DictReader(io.StringIO(points))]
    return [round(min(values), 4), round(max(values), 4)]


def main() -> None:
    parser = harness.parser(__doc__, "write the decision table and the curve types to this file")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--out", type=Path, default=Path("bench-out/boss"))
    parser.add_argument("--curve-examples", type=int, default=2000, help="seeded sample of each OOD set in curve")
    parser.add_argument("--train-sizes", default="2000", help="extra curve runs on this many ID examples")
    parser.add_argument("--max-steps", type=int, default=800, help="training steps of 32 pairs (both commands)")
    parser.add_argument("--checkpoint-every", type=int, default=100, help="curve: evaluate every this many steps")
    parser.add_argument("--encoder", help="the encoder folder (both commands) [default: the bundled MiniLM-L6]")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-examples", type=int, help="ood-rank: seeded sample of each dataset (a quick check)")
    args = parser.parse_args()
    training = ["--max-steps", str(args.max_steps), "--device", args.device, "--seed", str(args.seed)]
    args.out.mkdir(parents=True, exist_ok=True)
    candidates = args.out / "candidates.csv"
    candidates.write_text(
        "name,path,fields,source\n"
        + "".join(
            f"{name},{os.path.relpath(args.data / path, args.out)},{FIELDS},{source}\n"
            for name, (path, source) in CANDIDATES.items()
        ),
        encoding="utf-8",
    )
    id_spec = f"mnli={args.data / ID}@{FIELDS}"
    seconds = {
        "ood_rank": tailsplit(
            "ood-rank",
            "--id",
            id_spec,
            "--candidates",
            str(candidates),
            "--min-drop",
            "0.05",
            *training,
            *(["--encoder", args.encoder, "--task-encoder", args.encoder] if args.encoder else []),
            *(["--max-examples", str(args.max_examples)] if args.max_examples else []),
            "--overwrite",
            "--out",
            str(args.out / "ood"),
        )  # fmt: skip
    }
    ood = json.loads((args.out / "ood" / "ood.json").read_text(encoding="utf-8"))
    results = {
        "id": ood["id"],
        "task_model": ood["task_model"],
        "decisions": {d["name"]: d for d in ood["decisions"]},
        "kept": ood["kept"],
        "recipe": {"max_steps": args.max_steps, "checkpoint_every": args.checkpoint_every, "seed": args.seed,
                   "device": args.device, "curve_examples": args.curve_examples, "train_sizes": args.train_sizes},
        "embedding": json.loads((args.out / "ood" / "manifest.json").read_text(encoding="utf-8"))["embedding"],
        "seconds": {k: round(v, 1) for k, v in seconds.items()},
    }  # fmt: skip
    if args.json:
        write_results(args.json, results)
    sizes = (
        ["--train-sizes", f"{args.train_sizes},{ood['task_model']['id_parts']['train']}"] if args.train_sizes else []
    )
    seconds["curve"] = tailsplit(
        "curve", "--id", id_spec,
        *(a for name, (path, _) in CANDIDATES.items() for a in ("--ood", f"{name}={args.data / path}@{FIELDS}")),
        "--max-examples", str(args.curve_examples), *sizes, *training, "--checkpoint-every", str(args.checkpoint_every),
        *(["--encoder", args.encoder] if args.encoder else []), "--overwrite", "--out", str(args.out / "curve"),
    )  # fmt: skip
    curve = json.loads((args.out / "curve" / "curve.json").read_text(encoding="utf-8"))
    points = (args.out / "curve" / "points.csv").read_text(encoding="utf-8")
    print("| candidate | similarity | accuracy | drop (95% CI) | decision |")
    print("|---|---:|---:|---|---|")
    for d in ood["decisions"]:
        print(
            f"| {d['name']} | {d['similarity']:.1f} | {d['accuracy']:.3f} | {d['drop']:+.3f} "
            f"({d['drop_ci'][0]:+.3f} to {d['drop_ci'][1]:+.3f}) | {'; '.join(d['reasons'])} |"
        )
    for group, rel in curve["groups"].items():
        print(f"{group}: Type {rel['type']} ({rel['reason']})")
    print({k: round(v, 1) for k, v in seconds.items()})
    if args.json:
        results["curve"] = {
            "runs": curve["runs"],
            "ood": curve["ood"],
            "groups": curve["groups"],
            "points": points.count("\n") - 1,
            "id_range": _id_range(points),
        }
        results["seconds"] = {k: round(v, 1) for k, v in seconds.items()}
        write_results(args.json, results)


if __name__ == "__main__":
    main()
