"""Null-distribution speed: 500 random splits of pooled SNLI (19,666 hypotheses).

tailsplit computes per-example counts once, then every split's ratio statistics with one
gather-and-sum. Baselines in the same run: (1) the usual script, which recomputes the
statistics from the evaluation texts of each random split (timed on ``--baseline-splits``
splits and extrapolated to ``--splits``); (2) a loop over random permutations that reuses
tailsplit's per-example counts (to show that the null step itself is not the cost).

    python -m benchmarks.speed.bench_null --data ../shared/data/snli --splits 500
"""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.harness import write_results
from tailsplit.analysis.null import RatioStatistic, random_eval_rows, ratio_statistics_null
from tailsplit.analysis.text_counts import compute_text_counts, fk_grade


def load_hypotheses(folder: Path) -> list[str]:
    texts = []
    for name in ("dev.jsonl.gz", "test.jsonl.gz"):
        with gzip.open(folder / name, "rt", encoding="utf-8") as f:
            texts += [json.loads(line)["hypothesis"] for line in f]
    return texts


def main() -> None:
    parser = harness.parser(__doc__, "write the timings to this results file")
    parser.add_argument("--data", type=Path, default=Path("../shared/data/snli"))
    parser.add_argument("--splits", type=int, default=500)
    parser.add_argument("--baseline-splits", type=int, default=3)
    args = parser.parse_args()
    texts = load_hypotheses(args.data)
    n = len(texts)

    clock = time.perf_counter()
    text = compute_text_counts(texts)
    features_s = time.perf_counter() - clock
    columns = {
        "one": np.ones(n),
        "words": text.words,
        "alpha_words": text.alpha_words,
        "rare_words": text.rare_words,
        "sentences": text.sentences,
        "syllables": text.syllables,
    }
    stats = [
        RatioStatistic("mean_words", "", ("words", "one"), np.divide),
        RatioStatistic("rare_word_fraction", "", ("rare_words", "alpha_words"), np.divide),
        RatioStatistic("fk_grade", "", ("alpha_words", "sentences", "syllables"), fk_grade),
    ]
    eval_mask = np.zeros(n, dtype=bool)
    eval_mask[np.argsort(-text.words, kind="stable")[: n // 5]] = True

    clock = time.perf_counter()
    rows = random_eval_rows(eval_mask, None, args.splits, seed=0)
    result = ratio_statistics_null(stats, columns, eval_mask, rows)
    ours_s = time.perf_counter() - clock

    clock = time.perf_counter()
    rng = np.random.default_rng(0)
    n_eval = int(eval_mask.sum())
    baseline = {s.name: [] for s in stats}
    for _ in range(args.splits):
        rows = rng.permutation(n)[:n_eval]
        baseline["mean_words"].append(text.words[rows].mean())
        baseline["rare_word_fraction"].append(text.rare_words[rows].sum() / text.alpha_words[rows].sum())
        baseline["fk_grade"].append(
            fk_grade(text.alpha_words[rows].sum(), text.sentences[rows].sum(), text.syllables[rows].sum())
        )
    baseline_s = time.perf_counter() - clock

    clock = time.perf_counter()
    for _ in range(args.baseline_splits):
        rows = rng.permutation(n)[:n_eval]
        per_split = compute_text_counts([texts[i] for i in rows])
        fk_grade(per_split.alpha_words.sum(), per_split.sentences.sum(), per_split.syllables.sum())
    from_texts_s = (time.perf_counter() - clock) / args.baseline_splits * args.splits

    total = features_s + ours_s
    print(f"{n} texts, {args.splits} random splits of {n_eval} evaluation examples")
    print(
        f"recompute from texts per split (usual script): ~{from_texts_s:.0f} s "
        f"(measured on {args.baseline_splits} splits, extrapolated)"
    )
    print(
        f"tailsplit: counts once {features_s:.1f} s + {args.splits} splits {ours_s:.2f} s = {total:.1f} s "
        f"({from_texts_s / total:.0f}x faster)"
    )
    print(f"loop over tailsplit's counts instead of its gather-and-sum: {baseline_s:.2f} s vs {ours_s:.2f} s")
    if args.json:
        write_results(
            args.json,
            {
                "texts": n,
                "splits": args.splits,
                "baseline_splits": args.baseline_splits,
                "counts_s": round(features_s, 2),
                "null_s": round(ours_s, 3),
                "total_s": round(total, 2),
                "from_texts_s": round(from_texts_s, 1),
                "speedup": round(from_texts_s / total, 1),
                "loop_over_counts_s": round(baseline_s, 3),
            },
        )
    for c in result:
        other = np.array(baseline[c.name])
        print(
            f"  {c.name}: observed {c.observed:.4f}, null {c.null_mean:.4f} ± {c.null_std:.4f} "
            f"(baseline {other.mean():.4f} ± {other.std(ddof=1):.4f}), percentile {c.percentile:.1f}"
        )


if __name__ == "__main__":
    main()
