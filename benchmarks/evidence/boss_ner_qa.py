"""BOSS's NER and extractive-QA tasks end to end on a CPU: WNUT-17 → E-NER, and SQuAD by topic.

Usage: python -m benchmarks.evidence.boss_ner_qa [--data ../shared/data] [--out bench-out/boss-ner-qa]
           [--task ner,qa] [--max-steps 800] [--qa-max-steps 600] [--max-train N] [--encoder FOLDER]
           [--device auto] [--seed 0] [--json benchmarks/results/boss_ner_qa.json]

NER: ``tailsplit ood-rank --task ner`` with WNUT-17's own train, dev and test files as the ID
data (its six types; the entity F1 on WNUT's test set is the ID measure) and E-NER (legal text,
four types) as the candidate, E-NER's types mapped onto WNUT's as BOSS maps both onto Few-NERD's
(PER → person, ORG → organization, LOC → location; WNUT's group and corporation → organization,
creative-work → art), E-NER's MISC — which WNUT has no type for — removed (its entities are
no gold entities, and predictions on them neither right nor wrong). Then ``curve`` on the
same data, a point every ``--checkpoint-every`` (100) steps.

QA: the SQuAD v1.1 questions here (the official dev set, re-split by article) divided by topic:
the science and technology articles are the shifted set, every other article the ID data —
a stand-in for BOSS's OOD sets (AdversarialQA, NewsQA, SearchQA), which are not available here.
``ood-rank --task qa --id-group title``: the ID data divided by a seeded random split of
whole articles (20% test), so no ID test question shares its article — or its paragraph —
with ID train; a span extractor fine-tuned on ID train, SQuAD F1 (and exact match) on ID test
and on the shifted set.

The smoke flags reach every step: ``--max-examples`` samples every dataset, ID test included;
``--max-train`` samples ID train for ``ood-rank`` and is ``curve``'s one training size.
The results file is written after each task, with each command's seconds and the task's total
(``seconds``); from the caches a rerun takes seconds.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from benchmarks import harness
from benchmarks.evidence.aflite_snli import tailsplit  # one subprocess call of the CLI, timed
from benchmarks.harness import write_results

NER_MAP = ["group=organization", "corporation=organization", "creative-work=art", "PER=person",
           "ORG=organization", "LOC=location", "MISC="]  # fmt: skip
# The SQuAD articles on science and technology: the QA task's shifted set.
SCIENCE = {"Chloroplast", "Oxygen", "Immune_system", "Force", "Computational_complexity_theory", "Prime_number",
           "Geology", "Packet_switching", "Ctenophora", "Steam_engine", "Amazon_rainforest", "Pharmacy",
           "Intergovernmental_Panel_on_Climate_Change"}  # fmt: skip


def _squad_by_topic(data: Path, out: Path) -> tuple[Path, Path, dict[str, int]]:
    """The SQuAD questions written as two files: the ID topics and the science articles."""
    rows = [
        json.loads(line) for name in ("train", "dev") for line in gzip.open(data / "squad" / f"{name}.jsonl.gz", "rt")
    ]
    id_path, shifted = out / "squad-id.jsonl", out / "squad-science.jsonl"
    id_path.write_text("".join(json.dumps(r) + "\n" for r in rows if r["title"] not in SCIENCE), encoding="utf-8")
    shifted.write_text("".join(json.dumps(r) + "\n" for r in rows if r["title"] in SCIENCE), encoding="utf-8")
    return (
        id_path,
        shifted,
        {"id": sum(r["title"] not in SCIENCE for r in rows), "science": sum(r["title"] in SCIENCE for r in rows)},
    )


def _ood(folder: Path) -> dict:
    return json.loads((folder / "ood.json").read_text(encoding="utf-8"))


def _ner(args, results: dict) -> None:
    out, training = args.out, args.training
    (out / "candidates-ner.csv").write_text(
        f"name,path,fields,source\nener,{(args.data / 'ener' / 'test.jsonl.gz').resolve()},tokens,SEC filings (legal)\n",
        encoding="utf-8",
    )
    maps = [a for m in NER_MAP for a in ("--label-map", m)]
    wnut = f"wnut17={args.data / 'wnut17'}"
    seconds = tailsplit(
        "ood-rank", "--task", "ner", "--id", wnut, "--candidates", str(out / "candidates-ner.csv"), *maps,
        *training, "--max-steps", str(args.max_steps), "--overwrite", "--out", str(out / "ner-ood"),
    )  # fmt: skip
    ood = _ood(out / "ner-ood")
    results["ner"] = {"id": ood["id"], "task_model": ood["task_model"], "decisions": ood["decisions"],
                      "label_map": NER_MAP, "seconds": {"ood_rank": round(seconds, 1)}}  # fmt: skip
    write_results(args.json, results) if args.json else None
    seconds = tailsplit(
        "curve", "--task", "ner", "--id", wnut, "--ood", f"ener={args.data / 'ener' / 'test.jsonl.gz'}", *maps,
        "--device", args.device, "--seed", str(args.seed), *(["--encoder", args.encoder] if args.encoder else []),
        *(["--max-examples", str(args.max_examples)] if args.max_examples else []),
        *(["--train-sizes", str(args.max_train)] if args.max_train else []),
        "--max-steps", str(args.max_steps), "--checkpoint-every", str(args.checkpoint_every), "--overwrite",
        "--out", str(out / "ner-curve"),
    )  # fmt: skip
    curve = json.loads((out / "ner-curve" / "curve.json").read_text(encoding="utf-8"))
    points = (out / "ner-curve" / "points.csv").read_text(encoding="utf-8").splitlines()[1:]
    results["ner"]["curve"] = {"groups": curve["groups"], "points": len(points), "metric": curve.get("metric")}
    results["ner"]["seconds"]["curve"] = round(seconds, 1)
    results["ner"]["seconds"]["total"] = round(sum(results["ner"]["seconds"].values()), 1)


def _qa(args, results: dict) -> None:
    out = args.out
    id_path, shifted, sizes = _squad_by_topic(args.data, out)
    (out / "candidates-qa.csv").write_text(
        f"name,path,fields,source\nsquad-science,{shifted.resolve()},question+context,Wikipedia (science articles)\n",
        encoding="utf-8",
    )
    seconds = tailsplit(
        "ood-rank", "--task", "qa", "--id", f"squad-topics={id_path}", "--candidates", str(out / "candidates-qa.csv"),
        "--id-group", "title", *args.training, "--max-steps", str(args.qa_max_steps), "--overwrite", "--out", str(out / "qa-ood"),
    )  # fmt: skip
    ood = _ood(out / "qa-ood")
    results["qa"] = {"id": ood["id"], "task_model": ood["task_model"], "decisions": ood["decisions"],
                     "questions": sizes, "shifted_articles": sorted(SCIENCE),
                     "seconds": {"ood_rank": round(seconds, 1), "total": round(seconds, 1)}}  # fmt: skip


def main() -> None:
    parser = harness.parser(__doc__, "write both tasks' ID metric, drops and decisions to this file")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--out", type=Path, default=Path("bench-out/boss-ner-qa"))
    parser.add_argument("--task", default="ner,qa", help="which tasks to run (ner, qa or both)")
    parser.add_argument("--max-steps", type=int, default=800, help="NER: training steps of 32 sentences")
    parser.add_argument("--qa-max-steps", type=int, default=600, help="QA: training steps of 32 windows")
    parser.add_argument("--checkpoint-every", type=int, default=100, help="NER curve: a point every this many steps")
    parser.add_argument("--max-examples", type=int, help="seeded sample of each dataset (a quick check)")
    parser.add_argument("--max-train", type=int, help="seeded sample of ID train (a quick check)")
    parser.add_argument("--encoder", help="the task encoder folder [default: the bundled MiniLM-L6]")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.training = ["--device", args.device, "--seed", str(args.seed),
                     *(["--max-train", str(args.max_train)] if args.max_train else []),
                     *(["--max-examples", str(args.max_examples)] if args.max_examples else []),
                     *(["--task-encoder", args.encoder] if args.encoder else [])]  # fmt: skip
    results: dict = {}
    tasks = args.task.split(",")
    if "ner" in tasks:
        _ner(args, results)
        write_results(args.json, results) if args.json else None
    if "qa" in tasks:
        _qa(args, results)
        write_results(args.json, results) if args.json else None
    for task, found in results.items():
        ident = found["id"]
        print(
            f"{task}: ID {found['task_model'].get('metric', 'accuracy')} {ident['accuracy']:.3f} {ident['accuracy_ci']}"
        )
        for d in found["decisions"]:
            print(
                f"  {d['name']}: {d['accuracy']:.3f}, drop {d['drop']:+.3f} {d['drop_ci']}, similarity {d['similarity']:.1f}"
            )


if __name__ == "__main__":
    main()
