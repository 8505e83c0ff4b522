"""Every challenge split of pooled Spider (8,034 = 7,000 train + 1,034 dev) at 5,966 / 1,034 /
1,034, with the atom constraint, and their program metrics next to the published values.

Splits: random (3 seeds), length, template, TMCD, prompted likelihood with and without
length control (10 quantile buckets), and — given ``--kfold-scores`` (the scores.parquet of
a ``--method kfold`` run) — the fine-tuned likelihood split. Metrics are test against train.
Prompted scores come from the score cache (or are computed: about 10 minutes on 2 CPU cores).

    python -m benchmarks.evidence.spider_splits --data ../shared/data/spider [--kfold-scores spider-kfold/scores.parquet] [--count occurrences] [--out spider-splits] [--json benchmarks/results/spider_splits.json]

With ``--out``, each split's ids per part are written to ``OUT/<split>.json``; with ``--json``,
every row of the table (and the data's hardness mix) to a results file.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import harness
from benchmarks.harness import write_results
from tailsplit import pipeline
from tailsplit.analysis.program_metrics import program_metrics
from tailsplit.config import DataConfig, RunConfig
from tailsplit.constraints import missing_atoms
from tailsplit.io.outputs import replace_file_bytes
from tailsplit.io.scores import read_score_file
from tailsplit.programs import dataset_program_features
from tailsplit.splits import (
    LengthSplitter,
    LikelihoodSplitter,
    RandomSplitter,
    SplitInputs,
    TemplateSplitter,
    TmcdSplitter,
)
from tailsplit.words import word_lengths

SIZES = {"dev_size": 1034, "test_size": 1034}
PUBLISHED = {  # Godbole & Jia (2023), Spider: atom / compound divergence, novel-compound share
    "random": ("0.077", "0.046", "25.5%"),
    "tmcd": ("0.296", "0.322", "-"),
    "likelihood (prompted)": ("-", "-", "43.6%"),
    "likelihood (fine-tuned)": ("0.083", "0.054", "-"),
}


def splitters(has_kfold: bool) -> list[tuple[str, Any, str]]:
    """(name, splitter, which scores: '', 'prompted' or 'kfold')."""
    out = [(f"random (seed {s})", RandomSplitter(atom_constraint=True, seed=s, **SIZES), "") for s in range(3)]
    out += [
        ("length", LengthSplitter(atom_constraint=True, **SIZES), ""),
        ("template", TemplateSplitter(atom_constraint=True, **SIZES), ""),
        ("tmcd", TmcdSplitter(**SIZES), ""),
        ("likelihood (prompted)", LikelihoodSplitter(atom_constraint=True, **SIZES), "prompted"),
        (
            "likelihood -len (prompted)",
            LikelihoodSplitter(atom_constraint=True, length_buckets=10, **SIZES),
            "prompted",
        ),
    ]
    if has_kfold:
        out += [
            ("likelihood (fine-tuned)", LikelihoodSplitter(atom_constraint=True, **SIZES), "kfold"),
            (
                "likelihood -len (fine-tuned)",
                LikelihoodSplitter(atom_constraint=True, length_buckets=10, **SIZES),
                "kfold",
            ),
        ]
    return out


def main() -> None:
    parser = harness.parser(__doc__, "write the rows to this results file")
    parser.add_argument("--data", type=Path, default=Path("../shared/data/spider"))
    parser.add_argument("--kfold-scores", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--count",
        choices=["examples", "occurrences"],
        default="examples",
        help="how atoms and compounds count in TMCD and the divergences",
    )
    args = parser.parse_args()

    config = RunConfig()
    config.data = DataConfig(
        paths=[str(args.data / "train.jsonl.gz"), str(args.data / "dev.jsonl.gz")], text="question", program="query"
    )
    config.scoring.template = "spider"
    dataset = pipeline.load_dataset(config)
    clock = time.perf_counter()
    programs = dataset_program_features(dataset, "sql", args.count)
    print(f"parsed {len(dataset)} SQL queries in {time.perf_counter() - clock:.1f} s (0 failures)")
    lengths = word_lengths(dataset.texts)
    scores = {"": None, "prompted": pipeline.score_dataset(dataset, config.scoring, progress=True)[0]}
    if args.kfold_scores:
        scores["kfold"] = read_score_file(args.kfold_scores, dataset)[0]

    rows = []
    for name, splitter, which in splitters(args.kfold_scores is not None):
        clock = time.perf_counter()
        split = splitter.split(SplitInputs.from_dataset(dataset, scores[which], lengths, programs))
        seconds = time.perf_counter() - clock
        sizes = [len(idx) for idx in split.parts().values()]
        train = np.zeros(len(dataset), dtype=bool)
        train[split.train_idx] = True
        unseen = len(missing_atoms(programs.atoms, train, ~train))
        test = program_metrics(programs, split)[2]
        rows.append((name, sizes, unseen, test, seconds))
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            ids = {part: [dataset.ids[i] for i in idx] for part, idx in split.parts().items()}
            replace_file_bytes(
                args.out / f"{name.replace(' ', '_').replace('(', '').replace(')', '')}.json", json.dumps(ids).encode()
            )
    print_table(rows)
    if args.json:
        write_results(args.json, results(rows, programs, args.count))


def results(rows: list[tuple[str, list[int], int, Any, float]], programs: Any, count: str) -> dict[str, Any]:
    """The table's rows as a results file: sizes, metrics and test hardness mix per split."""
    levels = list(programs.hardness_levels)
    data_mix = {level: round(float(np.mean([h == level for h in programs.hardness])), 4) for level in levels}
    splits = {}
    for name, sizes, unseen, test, seconds in rows:
        splits[name] = {
            "sizes": dict(zip(("train", "dev", "test"), sizes, strict=True)),
            "unseen_atoms": unseen,
            "atom_divergence": round(float(test.atom_divergence), 4),
            "compound_divergence": round(float(test.compound_divergence), 4),
            "novel_compound_share": round(float(test.novel_compound_share), 4),
            "test_hardness_share": {level: round(v / test.size, 4) for level, v in test.hardness.items()},
            "seconds": round(seconds, 2),
        }
    randoms = [v for k, v in splits.items() if k.startswith("random")]
    summary = {
        key: {"mean": round(float(np.mean([r[key] for r in randoms])), 4),
              "std": round(float(np.std([r[key] for r in randoms])), 4)}
        for key in ("atom_divergence", "compound_divergence", "novel_compound_share")
    }  # fmt: skip
    summary["test_hardness_share"] = {
        level: {"min": min(r["test_hardness_share"][level] for r in randoms),
                "max": max(r["test_hardness_share"][level] for r in randoms)}
        for level in levels
    }  # fmt: skip
    published = {name: dict(zip(("atom_divergence", "compound_divergence", "novel_compounds"), values, strict=True))
                 for name, values in PUBLISHED.items()}  # fmt: skip
    return {"count": count, "examples": len(programs.hardness), "data_hardness_share": data_mix,
            "splits": splits, "random": summary, "published": published}  # fmt: skip


def print_table(rows: list[tuple[str, list[int], int, Any, float]]) -> None:
    print(
        "\n| split | train / dev / test | unseen atoms | atom div. | compound div. | novel compounds "
        "| test easy / medium / hard / extra | published atom / compound / novel | seconds |"
    )
    print("|---|---|---:|---:|---:|---:|---|---|---:|")
    for name, sizes, unseen, test, seconds in rows:
        mix = " / ".join(f"{100 * v / test.size:.0f}%" for v in test.hardness.values())
        published = (
            " / ".join(PUBLISHED.get(name.split(" (seed")[0], ("", "", "")))
            if "seed 0" in name or "seed" not in name
            else ""
        )
        print(
            f"| {name} | {' / '.join(map(str, sizes))} | {unseen} | {test.atom_divergence:.3f} | "
            f"{test.compound_divergence:.3f} | {100 * test.novel_compound_share:.1f}% | {mix} | "
            f"{published.strip(' /')} | {seconds:.1f} |"
        )
    randoms = [r[3] for r in rows if r[0].startswith("random")]
    if randoms:
        stat = {
            k: np.array([getattr(t, k) for t in randoms])
            for k in ("atom_divergence", "compound_divergence", "novel_compound_share")
        }
        print(
            f"\nrandom, mean ± std over {len(randoms)} seeds: atom {stat['atom_divergence'].mean():.3f} ± "
            f"{stat['atom_divergence'].std():.3f}, compound {stat['compound_divergence'].mean():.3f} ± "
            f"{stat['compound_divergence'].std():.3f}, novel {100 * stat['novel_compound_share'].mean():.1f}% ± "
            f"{100 * stat['novel_compound_share'].std():.1f}%"
        )


if __name__ == "__main__":
    main()
