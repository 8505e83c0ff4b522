"""Full-dataset scale: split (and optionally analyse) the paper's 570k SNLI pairs.

Builds ``--rows`` SNLI-shaped pairs from the shared SNLI dev + test (every copy after the
first gets a distinct hypothesis: the copy number appended as a word) and a minimal score
file (``id``, ``logprob_sum``, ``n_tokens``; seeded random numbers — the split step's cost
does not depend on their values), then times as subprocesses, in one run:

1. word lengths of every hypothesis: NLTK's ``NLTKWordTokenizer`` (the previous path) against
   ``tailsplit.words.word_lengths`` — counts checked identical;
2. ``tailsplit split --scores S --length-buckets 10 --balance-labels --dev-size 10000
   --test-size 10000 --no-analyze`` (and ``--splitter random``), with peak memory;
3. with ``--baseline-src DIR`` (a checkout's ``src`` folder of an earlier version), the same
   commands on that version, for the ratio — outputs compared byte for byte;
4. with ``--analyze``, ``tailsplit analyze`` of the likelihood split (500 null splits; and on
   the baseline version — its near-duplicate shares differ where its MinHash LSH missed pairs),
   then the likelihood split with its analysis in one command (outputs checked identical);
5. with ``--ngram``, ``tailsplit score --method ngram`` (3 folds, trigram Kneser–Ney; and on
   the baseline version) — scores compared;
6. with ``--reference``, a plain pandas script of the same likelihood split (the paper's recipe
   with NLTK's Treebank tokenizer — not the authors' code), and how much of tailsplit's
   evaluation set it shares;
7. with ``--read``, reading the rows as JSON Lines and as CSV (best of 3; and on the baseline).

Run (about 11 minutes with the baseline, ``--analyze``, ``--reference`` and ``--read``):

    python -m benchmarks.speed.bench_scale --rows 570000 [--baseline-src ../old/src] [--analyze] [--reference] [--read]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.harness import write_results

SHARED = harness.ROOT.parent / "shared" / "data" / "snli"
TAILSPLIT = Path(sys.executable).with_name("tailsplit")


def build(folder: Path, rows: int) -> tuple[Path, Path]:
    base = []
    for name in ("dev.jsonl.gz", "test.jsonl.gz"):
        with gzip.open(SHARED / name, "rt", encoding="utf-8") as handle:
            base += [json.loads(line) for line in handle]
    base = [{k: r[k] for k in ("premise", "hypothesis", "label")} for r in base]
    data, ids = folder / "snli_large.jsonl", []
    with open(data, "w", encoding="utf-8") as out:
        for i in range(rows):
            record = dict(base[i % len(base)])
            copy = i // len(base)
            if copy:
                record["hypothesis"] = f"{record['hypothesis']} {copy}"
            record["id"] = f"p{i}"
            ids.append(record["id"])
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    n_tokens = rng.integers(3, 30, rows)
    scores = folder / "scores.parquet"
    pq.write_table(
        pa.table({"id": ids, "logprob_sum": -n_tokens * rng.gamma(4.0, 1.0, rows), "n_tokens": n_tokens}), scores
    )
    return data, scores


def timed(args: list[str], src: str | None = None) -> tuple[float, float]:
    """(seconds, peak resident MiB) of a subprocess (GNU time's maximum resident set size)."""
    env = {**os.environ, "TQDM_DISABLE": "1"}
    if src:
        env["PYTHONPATH"] = src
    with tempfile.NamedTemporaryFile("r") as peak_file:
        start = time.perf_counter()
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", peak_file.name, *args], capture_output=True, text=True, env=env
        )
        seconds = time.perf_counter() - start
        if done.returncode:
            raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr[-2000:]}")
        peak_kib = float(peak_file.read().strip().splitlines()[-1])
    return seconds, peak_kib / 1024


def folder_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.name not in ("manifest.json",) and path.suffix not in (".html", ".md"):
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


LENGTHS = """
import json, sys, time
texts = [json.loads(line)["hypothesis"] for line in open(sys.argv[1], encoding="utf-8")]
start = time.perf_counter()
if sys.argv[2] == "nltk":
    from nltk.tokenize import NLTKWordTokenizer
    from tailsplit.words import split_sentences
    tok = NLTKWordTokenizer()
    counts = [sum(len(tok.tokenize(s)) for s in split_sentences(t)) for t in texts]
else:
    from tailsplit.words import word_lengths
    counts = word_lengths(texts).tolist()
print(json.dumps({"seconds": time.perf_counter() - start, "counts": counts}))
"""


READ = """
import gc, sys, time
from tailsplit.io import readers
best = float("inf")
for _ in range(3):
    start = time.perf_counter()
    rows = readers.read_all(sys.argv[1]) if hasattr(readers, "read_all") else list(readers.read_records(sys.argv[1]))
    best = min(best, time.perf_counter() - start)
    del rows
    gc.collect()
print(best)
"""

# A plain pandas script of the same split (the paper's recipe, not the authors' code): NLTK's
# Treebank tokenizer for lengths, 10 quantile buckets, per label and bucket the lowest
# scores to evaluation, trimmed to the exact size, dev/test at random.
REFERENCE = """
import json, sys, time
import numpy as np, pandas as pd
from nltk.tokenize import NLTKWordTokenizer
data, scores, out = sys.argv[1:4]
start = time.perf_counter()
df = pd.read_json(data, lines=True, dtype=False)
df = df.merge(pd.read_parquet(scores)[["id", "logprob_sum"]], on="id", how="left", validate="one_to_one")
clock = time.perf_counter()
tok = NLTKWordTokenizer()
df["length"] = [len(tok.tokenize(t)) for t in df["hypothesis"]]
tokenize_s = time.perf_counter() - clock
df["bucket"] = pd.qcut(df["length"].rank(method="first"), 10, labels=False)
n_eval = 20000
picked = []
for _, group in df.groupby(["label", "bucket"]):
    picked.append(group.nsmallest(int(round(n_eval / len(df) * len(group))), "logprob_sum"))
chosen = pd.concat(picked).sort_values("logprob_sum", kind="stable")
if len(chosen) > n_eval:
    chosen = chosen.iloc[:n_eval]
elif len(chosen) < n_eval:
    rest = df.drop(index=chosen.index).nsmallest(n_eval - len(chosen), "logprob_sum")
    chosen = pd.concat([chosen, rest])
order = np.random.default_rng(0).permutation(chosen.index.to_numpy())
parts = {"train": df.drop(index=chosen.index), "dev": df.loc[order[:10000]], "test": df.loc[order[10000:]]}
for name, part in parts.items():
    part.drop(columns=["length", "bucket", "logprob_sum"]).to_json(
        f"{out}/{name}.jsonl", orient="records", lines=True, force_ascii=False
    )
print(json.dumps({"seconds": time.perf_counter() - start, "tokenize_s": tokenize_s,
                  "eval_ids": sorted(df.loc[chosen.index, "id"])}))
"""


def read_rate(path: Path, src: str | None) -> float:
    env = {**os.environ, **({"PYTHONPATH": src} if src else {})}
    done = subprocess.run([sys.executable, "-c", READ, str(path)], capture_output=True, text=True, env=env, check=True)
    return float(done.stdout)


def lengths(data: Path, how: str) -> tuple[float, list[int]]:
    done = subprocess.run([sys.executable, "-c", LENGTHS, str(data), how], capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    return result["seconds"], result["counts"]


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--rows", type=int, default=570_000)
    parser.add_argument("--baseline-src", help="an earlier version's src folder, run for the ratio")
    parser.add_argument("--analyze", action="store_true", help="also time tailsplit analyze")
    parser.add_argument("--ngram", action="store_true", help="also time n-gram scoring")
    parser.add_argument("--reference", action="store_true", help="also time a plain pandas script of the split")
    parser.add_argument("--read", action="store_true", help="also time reading the rows (JSON Lines and CSV)")
    parser.add_argument("--skip-split", action="store_true", help="only the optional steps")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="tailsplit-scale-"))
    data, scores = build(folder, args.rows)
    print(f"{args.rows:,} SNLI-shaped pairs in {data} ({data.stat().st_size / 2**20:.0f} MiB)")
    result: dict = {"rows": args.rows}

    if args.ngram:
        ngram(data, folder, args.baseline_src, result)
    if args.skip_split:
        return finish(args, result)
    nltk_s, nltk_counts = lengths(data, "nltk")
    ours_s, our_counts = lengths(data, "tailsplit")
    assert nltk_counts == our_counts, "word counts differ from NLTK's"
    result["word_lengths"] = {"nltk_s": round(nltk_s, 2), "tailsplit_s": round(ours_s, 2)}
    print(f"word lengths of {args.rows:,} hypotheses: NLTK {nltk_s:.1f} s, tailsplit {ours_s:.1f} s "
          f"({nltk_s / ours_s:.1f}×), counts identical")  # fmt: skip

    common = [str(data), "--text", "hypothesis", "--context", "premise", "--label", "label", "--id", "id",
              "--dev-size", "10000", "--test-size", "10000", "--no-analyze", "--overwrite"]  # fmt: skip
    commands = {
        "likelihood": ["--scores", str(scores), "--length-buckets", "10", "--balance-labels"],
        "random": ["--splitter", "random"],
    }
    for name, extra in commands.items():
        row = {}
        for version, src in (("tailsplit", None), ("baseline", args.baseline_src)):
            if version == "baseline" and not src:
                continue
            out = folder / f"{name}-{version}"
            seconds, peak = timed([str(TAILSPLIT), "split", *common, *extra, "--out", str(out)], src)
            row[version] = {"seconds": round(seconds, 2), "peak_mib": round(peak), "digest": folder_digest(out)}
        line = f"split {name}: {row['tailsplit']['seconds']:.1f} s, peak {row['tailsplit']['peak_mib']} MiB"
        if "baseline" in row:
            same = row["baseline"]["digest"] == row["tailsplit"]["digest"]
            line += (f"; baseline {row['baseline']['seconds']:.1f} s, peak {row['baseline']['peak_mib']} MiB "
                     f"({row['baseline']['seconds'] / row['tailsplit']['seconds']:.1f}×); outputs identical: {same}")  # fmt: skip
        print(line)
        result[f"split_{name}"] = row
    if args.reference:
        reference(data, scores, folder, result)
    if args.read:
        reading(data, folder, args.baseline_src, result)
    if args.analyze:
        row = {}
        for version, src in (("tailsplit", None), ("baseline", args.baseline_src)):
            if version == "baseline" and not src:
                continue
            split = folder / f"likelihood-{version}"
            seconds, peak = timed([str(TAILSPLIT), "analyze", str(split), "--no-syntax"], src)
            analysis = json.loads((split / "analysis.json").read_text(encoding="utf-8"))
            near = {c["name"]: c["observed"] for c in analysis["against_null"] if c["name"].endswith("near_in_train")}
            row[version] = {"seconds": round(seconds, 2), "peak_mib": round(peak), "near_shares": near}
        line = (
            f"analyze (500 null splits): {row['tailsplit']['seconds']:.1f} s, peak {row['tailsplit']['peak_mib']} MiB"
        )
        if "baseline" in row:
            line += (f"; baseline {row['baseline']['seconds']:.1f} s, peak {row['baseline']['peak_mib']} MiB "
                     f"({row['baseline']['seconds'] / row['tailsplit']['seconds']:.1f}×); near-duplicate shares "
                     f"{row['tailsplit']['near_shares']} (exact join) vs {row['baseline']['near_shares']} (baseline)")  # fmt: skip
        result["analyze"] = row
        print(line)
        result["split_with_analysis"] = split_with_analysis(data, scores, folder, common)
    finish(args, result)


def _split_and_analysis(folder: Path) -> tuple[bytes, dict]:
    """A split folder's parts and its analysis, the folder's name aside."""
    analysis = json.loads((folder / "analysis.json").read_text(encoding="utf-8"))
    parts = b"".join((folder / f"{part}.jsonl").read_bytes() for part in ("train", "dev", "test"))
    return parts, {k: v for k, v in analysis.items() if k != "name"}


def split_with_analysis(data: Path, scores: Path, folder: Path, common: list[str]) -> dict:
    """The likelihood split with its analysis in one process (as a user runs it: the analysis
    reuses the split's records and word counts), against the two commands apart."""
    out = folder / "likelihood-analysed"
    options = [o for o in common if o != "--no-analyze"]
    seconds, peak = timed([str(TAILSPLIT), "split", *options, "--scores", str(scores), "--length-buckets", "10",
                           "--balance-labels", "--no-syntax", "--out", str(out)])  # fmt: skip
    same = _split_and_analysis(out) == _split_and_analysis(folder / "likelihood-tailsplit")
    print(f"split with its analysis, one process: {seconds:.1f} s, peak {peak:.0f} MiB; outputs identical: {same}")
    return {"seconds": round(seconds, 2), "peak_mib": round(peak), "identical_outputs": same}


def reference(data: Path, scores: Path, folder: Path, result: dict) -> None:
    out = folder / "reference"
    out.mkdir(exist_ok=True)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", REFERENCE, str(data), str(scores), str(out)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    wall = time.perf_counter() - start
    ran = json.loads(done.stdout)
    ours = {json.loads(line)["id"] for p in ("dev", "test")
            for line in (folder / "likelihood-tailsplit" / f"{p}.jsonl").read_text(encoding="utf-8").splitlines()}  # fmt: skip
    shared = len(ours & set(ran["eval_ids"])) / len(ours)
    result["reference"] = {"seconds": round(wall, 2), "tokenize_s": round(ran["tokenize_s"], 2),
                           "eval_shared_with_tailsplit": round(shared, 4)}  # fmt: skip
    ratio = wall / result["split_likelihood"]["tailsplit"]["seconds"]
    print(
        f"reference pandas script: {wall:.1f} s ({ran['tokenize_s']:.1f} s tokenising; tailsplit {ratio:.1f}× "
        f"faster); {100 * shared:.1f}% of tailsplit's evaluation set is also its evaluation set"
    )


def reading(data: Path, folder: Path, baseline_src: str | None, result: dict) -> None:
    import csv

    table = folder / "snli_large.csv"
    with open(data, encoding="utf-8") as rows, open(table, "w", encoding="utf-8", newline="") as out:
        records = [json.loads(line) for line in rows]
        writer = csv.DictWriter(out, fieldnames=list(records[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(records)
    row: dict = {}
    for fmt, path in (("jsonl", data), ("csv", table)):
        row[fmt] = {"tailsplit_s": round(read_rate(path, None), 2)}
        if baseline_src:
            row[fmt]["baseline_s"] = round(read_rate(path, baseline_src), 2)
        line = f"reading {fmt} (best of 3): {row[fmt]['tailsplit_s']:.2f} s"
        if baseline_src:
            line += (
                f"; baseline {row[fmt]['baseline_s']:.2f} s ({row[fmt]['baseline_s'] / row[fmt]['tailsplit_s']:.1f}×)"
            )
        print(line)
    result["reading"] = row


def finish(args: argparse.Namespace, result: dict) -> None:
    if args.json:
        write_results(args.json, result)


def ngram(data: Path, folder: Path, baseline_src: str | None, result: dict) -> None:
    import pyarrow.parquet as pq

    row = {}
    for version, src in (("tailsplit", None), ("baseline", baseline_src)):
        if version == "baseline" and not src:
            continue
        out = folder / f"ngram-{version}.parquet"
        args = [str(TAILSPLIT), "score", str(data), "--text", "hypothesis", "--id", "id", "--method", "ngram",
                "--no-cache", "--overwrite", "--out", str(out)]  # fmt: skip
        seconds, peak = timed(args, src)
        row[version] = {"seconds": round(seconds, 2), "peak_mib": round(peak)}
    line = f"n-gram scoring: {row['tailsplit']['seconds']:.1f} s, peak {row['tailsplit']['peak_mib']} MiB"
    if "baseline" in row:
        ours = pq.read_table(folder / "ngram-tailsplit.parquet").column("logprob_sum").to_numpy()
        theirs = pq.read_table(folder / "ngram-baseline.parquet").column("logprob_sum").to_numpy()
        row["max_abs_diff"] = float(np.max(np.abs(ours - theirs)))
        line += (f"; baseline {row['baseline']['seconds']:.1f} s, peak {row['baseline']['peak_mib']} MiB "
                 f"({row['baseline']['seconds'] / row['tailsplit']['seconds']:.1f}×); max |Δ| {row['max_abs_diff']:.1e}")  # fmt: skip
    print(line)
    result["ngram"] = row


if __name__ == "__main__":
    main()
