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
   the baseline version — its near-duplicate shares differ where its MinHash LSH missed pairs);
5. with ``--ngram``, ``tailsplit score --method ngram`` (3 folds, trigram Kneser–Ney; and on
   the baseline version) — scores compared.

Run (about 9 minutes with the baseline and ``--analyze``):

    python benchmarks/bench_scale.py --rows 570000 [--baseline-src ../old/src] [--analyze]
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

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "data" / "snli"
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


def lengths(data: Path, how: str) -> tuple[float, list[int]]:
    done = subprocess.run([sys.executable, "-c", LENGTHS, str(data), how], capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    return result["seconds"], result["counts"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=570_000)
    parser.add_argument("--baseline-src", help="an earlier version's src folder, run for the ratio")
    parser.add_argument("--analyze", action="store_true", help="also time tailsplit analyze")
    parser.add_argument("--ngram", action="store_true", help="also time n-gram scoring")
    parser.add_argument("--skip-split", action="store_true", help="only the optional steps")
    parser.add_argument("--json", type=Path)
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
    finish(args, result)


def finish(args: argparse.Namespace, result: dict) -> None:
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


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
