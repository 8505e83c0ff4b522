"""SNLI test audited against SNLI dev's hypotheses plus a 1,000,000-sentence corpus, with the
accuracy of a model trained on SNLI dev on the overlapping and the clean test examples.

The corpus is the one of ``bench_overlap.py`` (real sentences of the shared data other than
SNLI test, then recombined half-sentences). The model: TF-IDF (words, 1–2-grams) of premise
and of hypothesis, logistic regression, trained on SNLI dev — a model whose training data is
part of the corpus, so the question is whether test examples close to it are easier.

    python -m benchmarks.evidence.snli_overlap --data ../shared/data --n 1000000 [--shards 4 --engine ray]
"""

from __future__ import annotations

import gzip
import json
import resource
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import write_results
from benchmarks.speed.bench_overlap import real_sentences, write_corpus
from tailsplit import pipeline
from tailsplit.config import OverlapConfig


def read_jsonl(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def predict_snli(dev: list[dict], test: list[dict]) -> list[str]:
    import numpy as np
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    premise = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
    hypothesis = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
    train_x = hstack(
        [premise.fit_transform([r["premise"] for r in dev]), hypothesis.fit_transform([r["hypothesis"] for r in dev])]
    ).tocsr()
    test_x = hstack(
        [premise.transform([r["premise"] for r in test]), hypothesis.transform([r["hypothesis"] for r in test])]
    ).tocsr()
    model = LogisticRegression(C=2.0, max_iter=2000).fit(train_x, [r["label"] for r in dev])
    return list(np.asarray(model.predict(test_x)))


def main() -> None:
    parser = harness.parser(__doc__, "write the audit's summary to this results file")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--shards", type=int, default=1)
    parser.add_argument("--engine", default="local")
    parser.add_argument("--out", type=Path, default=Path("snli-overlap"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="snli-overlap-"))
    try:
        dev, test = read_jsonl(args.data / "snli/dev.jsonl.gz"), read_jsonl(args.data / "snli/test.jsonl.gz")
        (work / "snli_dev_hypotheses.txt").write_text("".join(r["hypothesis"] + "\n" for r in dev), encoding="utf-8")
        write_corpus(real_sentences(args.data), args.n, work / "sentences.txt")
        clock = time.perf_counter()
        predictions = predict_snli(dev, test)
        correct = sum(p == r["label"] for p, r in zip(predictions, test))
        print(
            f"TF-IDF + logistic regression trained on SNLI dev: {correct / len(test):.1%} on SNLI test "
            f"({time.perf_counter() - clock:.1f} s)"
        )
        (work / "predictions.jsonl").write_text("".join(json.dumps({"prediction": p}) + "\n" for p in predictions))
        config = OverlapConfig(
            test=[str(args.data / "snli/test.jsonl.gz")],
            text="hypothesis",
            label="label",
            corpus=[str(work / "snli_dev_hypotheses.txt"), str(work / "sentences.txt")],
            index_dir=str(work / "index"),
            top_quantile=0.25,
            predictions=str(work / "predictions.jsonl"),
            shards=args.shards,
            engine=args.engine,
            out=str(args.out),
            overwrite=True,
        )
        clock = time.perf_counter()
        summary = pipeline.audit_overlap_config(config, command=["benchmarks/evidence/snli_overlap.py"]).content
        print(
            f"audit: {time.perf_counter() - clock:.0f} s (index {summary['seconds']['index']:.0f} s), "
            f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB"
        )
        print(
            f"{summary['overlap']:,} overlapping (best BM25 ≥ {summary['threshold']}), {summary['clean']:,} clean; "
            f"sharing an n-gram: {summary['ngram_contaminated']}"
        )
        for a in summary["accuracy"]:
            print(
                f"  {a['subset']:8} n={a['n']:5,}  accuracy {a['accuracy']:.1%}  (95% CI {a['ci_low']:.1%}–{a['ci_high']:.1%})"
            )
        print(f"wrote {args.out}/")
        if args.json:
            write_results(
                args.json,
                {
                    "corpus_entries": args.n,
                    "baseline_test_accuracy": round(correct / len(test), 4),
                    "threshold": summary["threshold"],
                    "overlap": summary["overlap"],
                    "clean": summary["clean"],
                    "ngram_contaminated": summary["ngram_contaminated"],
                    "accuracy": summary["accuracy"],
                    "seconds": summary["seconds"],
                },
            )
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
