"""Overlap-index speed: tailsplit against bm25s used directly and against Whoosh (the search
library the published overlap audit used), on the same sentence corpus and queries.

The corpus: every distinct real sentence of the shared data except SNLI test (SNLI dev,
MNLI, ANLI, BoolQ passages and questions, Spider questions, SemEval tweets), then — to reach
``--n`` — synthetic sentences, each the first half of one real sentence joined to the second
half of another (seeded). Queries: SNLI test hypotheses, plain BM25 top-5 (no filter).
Whoosh indexes at most ``--whoosh-n`` entries (it is pure Python); its speed is reported on
that many. Peak memory is the process's maximum resident set size after each step (the
driver's; Ray workers are separate processes). With ``--shards N`` the same corpus is also
indexed in N shards, in this process and on a local Ray cluster, and their audits are
checked equal to the one-index audit.

    python -m benchmarks.speed.bench_overlap --data ../shared/data --n 1000000 --queries 1000 --shards 4
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import resource
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.harness import write_results
from tailsplit.overlap.audit import audit_all
from tailsplit.overlap.corpus import iter_corpus
from tailsplit.overlap.index import build_index
from tailsplit.overlap.query import GenericQueryExtractor
from tailsplit.overlap.tokens import overlap_tokens

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
SOURCES = {
    "snli/dev.jsonl.gz": ("premise", "hypothesis"),
    "mnli/dev_matched.jsonl.gz": ("premise", "hypothesis"),
    "anli/test.jsonl.gz": ("premise", "hypothesis"),
    "boolq/dev.jsonl.gz": ("passage", "question"),
    "boolq/train_questions_only.jsonl.gz": ("question",),
    "spider/train.jsonl.gz": ("question",),
    "semeval2017_sentiment/test.jsonl.gz": ("text",),
}


def source_texts(data: Path, sources: dict[str, tuple[str, ...]]) -> Iterator[str]:
    """The text of every named field of every record of the ``sources`` files, in order."""
    for name, fields in sources.items():
        with gzip.open(data / name, "rt", encoding="utf-8") as f:
            for line in f:
                record = json.loads(line)
                yield from (str(record.get(field) or "") for field in fields)


def real_sentences(data: Path) -> list[str]:
    seen: dict[str, None] = {}
    for text in source_texts(data, SOURCES):
        for sentence in _SENTENCE.split(text):
            if len(sentence.split()) >= 3:
                seen.setdefault(sentence.strip(), None)
    return list(seen)


def write_corpus(sentences: list[str], n: int, path: Path, seed: int = 0) -> int:
    rng = np.random.default_rng(seed)
    halves = [s.split() for s in sentences]
    with open(path, "w", encoding="utf-8") as f:
        for s in sentences[:n]:
            f.write(s + "\n")
        for _ in range(max(0, n - len(sentences))):
            a, b = halves[rng.integers(len(halves))], halves[rng.integers(len(halves))]
            f.write(" ".join(a[: len(a) // 2] + b[len(b) // 2 :]) + "\n")
    return min(n, len(sentences))


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = harness.parser(__doc__, "write the rows to this results file")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--whoosh-n", type=int, default=100_000)
    parser.add_argument("--shards", type=int, default=0, help="also index in this many shards (local and Ray)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-overlap-"))
    try:
        run(args, work)
    finally:
        shutil.rmtree(work)


def run(args: argparse.Namespace, work: Path) -> None:
    sentences = real_sentences(args.data)
    corpus = work / "corpus.txt"
    n_real = write_corpus(sentences, args.n, corpus)
    with gzip.open(args.data / "snli/test.jsonl.gz", "rt", encoding="utf-8") as f:
        queries = [json.loads(line)["hypothesis"] for line in f][: args.queries]
    print(
        f"corpus: {args.n:,} entries ({n_real:,} real sentences, {args.n - n_real:,} recombined); "
        f"{len(queries)} queries (SNLI test hypotheses)"
    )
    rows = []

    clock = time.perf_counter()
    index = build_index(iter_corpus([corpus]), work / "tailsplit-index", ngram_orders=(8, 13))
    build_s = time.perf_counter() - clock
    extractor = GenericQueryExtractor()
    ids, structured = [str(i) for i in range(len(queries))], [extractor.query({}, q) for q in queries]
    clock = time.perf_counter()
    reference = [a.as_dict() for a in audit_all(index, ids, queries, structured, k=5)]
    rows.append(
        (
            "tailsplit (BM25 + 8/13-gram index, snippets)",
            args.n,
            build_s,
            len(queries) / (time.perf_counter() - clock),
            peak_mib(),
        )
    )
    del index
    if args.shards:
        rows += sharded_rows(corpus, ids, queries, structured, args.shards, work, reference)

    import bm25s

    texts = corpus.read_text(encoding="utf-8").splitlines()
    clock = time.perf_counter()
    retriever = bm25s.BM25(k1=1.5, b=0.75)
    retriever.index(bm25s.tokenize(texts, stopwords=None, show_progress=False), show_progress=False)
    direct_build = time.perf_counter() - clock
    clock = time.perf_counter()
    retriever.retrieve(bm25s.tokenize(queries, stopwords=None, show_progress=False), k=5, show_progress=False)
    rows.append(
        (
            "bm25s directly (in memory, BM25 only)",
            args.n,
            direct_build,
            len(queries) / (time.perf_counter() - clock),
            peak_mib(),
        )
    )
    del texts, retriever

    rows.append(whoosh_row(corpus, queries, args.whoosh_n, work))
    print("\n| tool | entries | index build (s) | entries/s | queries/s | peak RSS (MiB, cumulative) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, n, build, qps, mem in rows:
        print(f"| {name} | {n:,} | {build:.1f} | {n / build:,.0f} | {qps:,.0f} | {mem:,.0f} |")
    disk = sum(p.stat().st_size for p in (work / "tailsplit-index").rglob("*") if p.is_file()) / 2**20
    print(f"\ntailsplit index on disk: {disk:.0f} MiB")
    if args.json:
        write_results(
            args.json,
            {
                "entries": args.n,
                "queries": len(queries),
                "index_on_disk_mib": round(disk),
                "rows": [
                    {"tool": name, "entries": n, "build_s": round(build, 1), "entries_per_s": round(n / build),
                     "queries_per_s": round(qps), "peak_rss_mib": round(mem)}
                    for name, n, build, qps, mem in rows
                ],
            },
        )  # fmt: skip


def sharded_rows(
    corpus: Path, ids: list[str], queries: list[str], structured: list, shards: int, work: Path, reference: list[dict]
) -> list[tuple[str, int, float, float, float]]:
    from tailsplit.config import OverlapConfig
    from tailsplit.overlap.sharded import LocalExecutor, RayExecutor, audit_sharded, open_or_build_sharded

    rows = []
    for name, make in (("in this process", LocalExecutor), ("local Ray cluster", RayExecutor)):
        executor = make()
        config = OverlapConfig(corpus=[str(corpus)], index_dir=str(work / f"sharded-{make.__name__}"), shards=shards)
        clock = time.perf_counter()
        index = open_or_build_sharded(config, executor)
        build = time.perf_counter() - clock
        clock = time.perf_counter()
        audits = [a.as_dict() for a in audit_sharded(index, executor, ids, queries, structured, k=5)]
        qps = len(queries) / (time.perf_counter() - clock)
        assert audits == reference, f"{shards} shards ({name}) disagree with the one-index audit"
        rows.append(
            (
                f"tailsplit, {shards} shards, {name} (audit equal to one index)",
                index.info["entries"],
                build,
                qps,
                peak_mib(),
            )
        )
        if hasattr(executor, "close"):
            executor.close()
    return rows


def whoosh_row(corpus: Path, queries: list[str], limit: int, work: Path) -> tuple[str, int, float, float, float]:
    from whoosh import index as whoosh_index
    from whoosh import qparser, scoring
    from whoosh.fields import ID, TEXT, Schema

    folder = work / "whoosh"
    folder.mkdir()
    ix = whoosh_index.create_in(str(folder), Schema(id=ID(stored=True), text=TEXT))
    clock = time.perf_counter()
    writer = ix.writer(limitmb=512)
    with open(corpus, encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i >= limit:
                break
            writer.add_document(id=str(i), text=line.strip())
    writer.commit()
    build = time.perf_counter() - clock
    parser = qparser.QueryParser("text", ix.schema, group=qparser.OrGroup)
    clock = time.perf_counter()
    with ix.searcher(weighting=scoring.BM25F(B=0.75, K1=1.5)) as searcher:
        for q in queries:
            searcher.search(parser.parse(" ".join(overlap_tokens(q))), limit=5)
    qps = len(queries) / (time.perf_counter() - clock)
    return (
        "Whoosh 2.7 (BM25F, on disk)",
        min(limit, sum(1 for _ in open(corpus, encoding="utf-8"))),
        build,
        qps,
        peak_mib(),
    )


if __name__ == "__main__":
    main()
