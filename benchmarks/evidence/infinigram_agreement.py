"""The overlap audit three ways on one corpus: the text audit (BM25 index with 8-/13-gram
hashes), an infini-gram index of the audit's own word tokens, and one of the bundled LM's
tokens — their counts per example compared, each path's time and peak memory (each run as a
user runs it, ``tailsplit overlap`` in its own process: a first run builds the index while
auditing ten examples, a second audits the whole test set against it).

The corpus: SNLI test's premises and dev's hypotheses, then the sentences of the shared data
other than SNLI test and recombined half-sentences (``bench_overlap``'s corpus) up to
``--n`` lines. The test set: SNLI test's hypotheses, repeated under new ids up to
``--examples`` (570,000 = SNLI train's size, the scale of the other 570k benchmarks).

    python -m benchmarks.evidence.infinigram_agreement --data ../shared/data --n 200000 --examples 3000 \\
        --json benchmarks/results/infinigram_agreement.json
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import harness
from benchmarks.harness import write_results
from benchmarks.speed.bench_overlap import real_sentences, write_corpus

PATHS = {
    "text audit (BM25 index, word n-gram hashes)": ["--index-dir", "{work}/bm25", "--top-quantile", "0.25"],
    "infini-gram index, words": ["--infini-gram", "{work}/ig-words"],
    "infini-gram index, smollm2 tokens": ["--infini-gram", "{work}/ig-smollm2", "--index-tokenizer", "smollm2"],
}


def read_jsonl(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def run_measured(command: list[str]) -> tuple[float, float]:
    """(seconds, peak resident MiB) of ``command`` in its own process."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    stderr = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{stderr[-2000:]}")
    return time.perf_counter() - started, usage.ru_maxrss / 1024


def audit(work: Path, name: str, extra: list[str], tests: tuple[Path, Path], corpus: list[Path]) -> dict[str, Any]:
    """One path: its index built (while auditing the first ten examples), then the whole test
    set audited against it; the numbers of both runs and the per-example rows."""
    out = work / f"out-{len(name)}"
    base = [sys.executable, "-m", "tailsplit.cli", "overlap", "--label", "label", "--out", str(out), "--overwrite"]
    args = [a.format(work=work) for a in extra] + [x for p in corpus for x in ("--corpus", str(p))]
    seconds, peak = run_measured([*base, "--test", str(tests[0]), *args])
    row: dict[str, Any] = {"path": name, "build_run_s": round(seconds, 1), "build_run_peak_mib": round(peak)}
    seconds, peak = run_measured([*base, "--test", str(tests[1]), *args])
    manifest = json.loads((out / "manifest.json").read_text())
    row.update(
        audit_run_s=round(seconds, 1),
        audit_run_peak_mib=round(peak),
        examples=manifest["examples"],
        verbatim=manifest["verbatim"],
        ngram_contaminated=manifest["ngram_contaminated"],
        overlap=manifest["overlap"],
        index={k: v for k, v in manifest["index"].items() if k in ("tokens", "documents", "bytes", "token_dtype")},
    )
    rows = [json.loads(line) for line in (out / "audit.jsonl").read_text().splitlines()]
    return {"row": row, "examples": {r["id"]: (r["verbatim"], r["ngram_hits"]) for r in rows}}


def agreement(a: dict[str, tuple], b: dict[str, tuple]) -> dict[str, Any]:
    """Examples on which two paths give the same verbatim flag and n-gram hits."""
    same_all = sum(a[k] == b[k] for k in a)
    same_copied = sum(_copied(a[k]) == _copied(b[k]) for k in a)
    return {"examples": len(a), "same_counts": same_all, "same_copied_flag": same_copied}


def _copied(value: tuple) -> bool:
    verbatim, hits = value
    return bool(verbatim) or any(v > 0 for v in hits.values())


def main() -> None:
    parser = harness.parser(__doc__, "write the rows to this results file")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--examples", type=int, default=3000)
    parser.add_argument("--skip", default="", help="path names (comma-separated substrings) to leave out")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="infinigram-agreement-"))
    try:
        dev, test = read_jsonl(args.data / "snli/dev.jsonl.gz"), read_jsonl(args.data / "snli/test.jsonl.gz")
        seeded = work / "snli.txt"
        premises = dict.fromkeys(r["premise"] for r in test)
        seeded.write_text("".join(p + "\n" for p in premises) + "".join(r["hypothesis"] + "\n" for r in dev))
        write_corpus(real_sentences(args.data), args.n, work / "sentences.txt")
        rows = [
            {"id": f"{i}", "text": test[i % len(test)]["hypothesis"], "label": test[i % len(test)]["label"]}
            for i in range(args.examples)
        ]
        tests = (work / "first.jsonl", work / "test.jsonl")
        tests[0].write_text("".join(json.dumps(r) + "\n" for r in rows[:10]))
        tests[1].write_text("".join(json.dumps(r) + "\n" for r in rows))
        results = {}
        skip = [s for s in args.skip.split(",") if s]
        for name, extra in PATHS.items():
            if any(s in name for s in skip):
                continue
            results[name] = audit(work, name, extra, tests, [seeded, work / "sentences.txt"])
            print(json.dumps(results[name]["row"]))
        names = list(results)
        pairs = [
            {"a": a, "b": b, **agreement(results[a]["examples"], results[b]["examples"])}
            for i, a in enumerate(names)
            for b in names[i + 1 :]
        ]
        for pair in pairs:
            print(json.dumps(pair))
        if args.json:
            write_results(
                args.json,
                {
                    "corpus_lines": args.n + len(premises) + len(dev),
                    "examples": args.examples,
                    "cores": os.cpu_count(),
                    "rows": [r["row"] for r in results.values()],
                    "agreement": pairs,
                },
            )
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
