"""The overlap audit's retrieval against the Winograd study's: which WSC273 schemas each flags.

Usage: python -m benchmarks.fidelity.overlap_whoosh ../shared/data --n 200000 --json benchmarks/results/overlap_whoosh.json

The published audit searched its corpus with Whoosh's BM25F; tailsplit's uses bm25s's
weights with Lucene's IDF. Both here search one corpus — the real sentences of the shared
data other than SNLI test, topped up to ``--n`` with sentences joined from two halves (as
``benchmarks.speed.bench_overlap`` builds it) — for the same WSC273 queries: tailsplit's rule-
based predicates (``--query-kind winograd``), required in order within 10 tokens, with the
schema's content words scoring. Whoosh gets them as ``AndMaybe(Sequence(required, slop=10),
Or(content words))`` over the same tokens, scored by ``BM25F(K1=1.5, B=0.75)``. Each side's
best score per schema is cut at its own median (tailsplit's default partition), and the
flags compared: how many schemas both call overlapping, both clean, and where they differ.
The other half of the published skeleton — predicates from a CoreNLP parse — is not
measured: CoreNLP is a Java service with downloaded models, not on PyPI.
"""

from __future__ import annotations

import gzip
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.speed.bench_overlap import real_sentences, write_corpus
from tailsplit.overlap.audit import audit_all, partition_overlap
from tailsplit.overlap.corpus import iter_corpus
from tailsplit.overlap.index import build_index
from tailsplit.overlap.query import WinogradQueryExtractor
from tailsplit.overlap.tokens import overlap_tokens


def whoosh_best(corpus: Path, queries: list, work: Path) -> np.ndarray:
    """Each query's best BM25F score over the corpus (0 where no entry passes its filter)."""
    from whoosh import index as whoosh_index
    from whoosh import scoring
    from whoosh.analysis import RegexTokenizer
    from whoosh.fields import ID, TEXT, Schema
    from whoosh.query import AndMaybe, Or, Sequence, Term

    folder = work / "whoosh"
    folder.mkdir()
    # the corpus goes in as tailsplit's tokens joined by spaces, split on spaces: both sides see one tokenisation
    schema = Schema(id=ID(stored=True), text=TEXT(analyzer=RegexTokenizer(r"\S+")))
    ix = whoosh_index.create_in(str(folder), schema)
    writer = ix.writer(limitmb=512)
    with open(corpus, encoding="utf-8") as f:
        for i, line in enumerate(f):
            writer.add_document(id=str(i), text=" ".join(overlap_tokens(line.strip())))
    writer.commit()
    best = np.zeros(len(queries))
    with ix.searcher(weighting=scoring.BM25F(B=0.75, K1=1.5)) as searcher:
        for i, query in enumerate(queries):
            required = [Term("text", w) for phrase in query.required for w in phrase]
            optional = Or([Term("text", w) for w in query.optional]) if query.optional else None
            if required:
                must = required[0] if len(required) == 1 else Sequence(required, slop=query.window)
                q = AndMaybe(must, optional) if optional is not None else must
            elif optional is not None:
                q = optional
            else:
                continue
            hits = searcher.search(q, limit=1)
            best[i] = hits[0].score if len(hits) else 0.0
    return best


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("data", type=Path)
    parser.add_argument("--n", type=int, default=200_000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="overlap-whoosh-"))
    try:
        corpus = work / "corpus.txt"
        write_corpus(real_sentences(args.data), args.n, corpus)
        with gzip.open(args.data / "wsc273" / "test.jsonl.gz", "rt", encoding="utf-8") as f:
            records = [json.loads(line) for line in f]
        extractor = WinogradQueryExtractor(window=10)
        texts = [r["text"] for r in records]
        queries = [extractor.query(r, t) for r, t in zip(records, texts)]
        index = build_index(iter_corpus([str(corpus)]), work / "index")
        audits = audit_all(index, [str(i) for i in range(len(texts))], texts, queries)
        ours = np.array([a.best_score for a in audits])
        theirs = whoosh_best(corpus, queries, work)
    finally:
        shutil.rmtree(work)
    passing = (ours > 0) & (theirs > 0)
    result = {
        "corpus_entries": args.n,
        "schemas": len(texts),
        "passing": {"tailsplit": int((ours > 0).sum()), "whoosh": int((theirs > 0).sum()), "both": int(passing.sum())},
        # the default median cut (below the passing schemas here: every passing schema overlaps),
        # and a cut among the passing ones, where the two scorings' orders decide
        "cuts": {"median": _cut(ours, theirs, 0.5), "top_tenth": _cut(ours, theirs, 0.1)},
        "spearman_best_scores_of_passing": round(_spearman(ours[passing], theirs[passing]), 4),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        harness.write_results(args.json, result)


def _cut(ours: np.ndarray, theirs: np.ndarray, top_quantile: float) -> dict:
    ours_flag, ours_cut = partition_overlap(ours, top_quantile=top_quantile)
    theirs_flag, theirs_cut = partition_overlap(theirs, top_quantile=top_quantile)
    both = int((ours_flag & theirs_flag).sum())
    return {
        "overlap": {"tailsplit": int(ours_flag.sum()), "whoosh": int(theirs_flag.sum())},
        "score_cut": {"tailsplit": round(ours_cut, 4), "whoosh": round(theirs_cut, 4)},
        "both_overlap": both,
        "both_clean": int((~ours_flag & ~theirs_flag).sum()),
        "only_tailsplit": int((ours_flag & ~theirs_flag).sum()),
        "only_whoosh": int((~ours_flag & theirs_flag).sum()),
        "agreement": round(float((ours_flag == theirs_flag).mean()), 4),
        "jaccard_overlap": round(both / max(int((ours_flag | theirs_flag).sum()), 1), 4),
    }


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    ranks = [np.argsort(np.argsort(x, kind="stable"), kind="stable").astype(float) for x in (a, b)]
    return float(np.corrcoef(*ranks)[0, 1])


if __name__ == "__main__":
    main()
