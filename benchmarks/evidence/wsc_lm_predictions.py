"""Zero-shot WSC273 predictions from the bundled LM, for the overlap audit's per-subset accuracy.

The usual LM recipe for Winograd schemas (Trinh & Le 2018, "partial scoring"): put each
candidate in place of the pronoun and compare the log-likelihood of the words *after* the
pronoun given everything before — the candidate with the more likely continuation wins.
Writes one ``{"prediction": 0 or 1}`` line per example, in file order.

    python -m benchmarks.evidence.wsc_lm_predictions --data ../shared/data/wsc273/test.jsonl.gz --out wsc_predictions.jsonl
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np

from benchmarks import harness
from tailsplit.cache import ScoreCache, default_cache_dir
from tailsplit.registry import SCORERS
from tailsplit.scoring.base import ScoreRequest
from tailsplit.scoring.driver import score_requests


def main() -> None:
    parser = harness.parser(__doc__, results=None)
    parser.add_argument("--data", type=Path, default=Path("../shared/data/wsc273/test.jsonl.gz"))
    parser.add_argument("--out", type=Path, default=Path("wsc_predictions.jsonl"))
    args = parser.parse_args()
    with gzip.open(args.data, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    requests = []
    for row in rows:
        start, end = row["pronoun_char_offset"], row["pronoun_char_offset"] + len(row["pronoun"])
        for option in row["options"][:2]:
            requests.append(ScoreRequest(prompt=row["text"][:start] + option, query=row["text"][end:]))
    scorer = SCORERS.create("hf")
    with ScoreCache(default_cache_dir()) as cache:
        logprob_sum = score_requests(requests, scorer, cache, progress=True).logprob_sum
    pairs = logprob_sum.reshape(len(rows), 2)
    predictions = np.argmax(pairs, axis=1)
    args.out.write_text("".join(json.dumps({"prediction": int(p)}) + "\n" for p in predictions))
    accuracy = float(np.mean(predictions == np.array([r["label"] for r in rows])))
    print(f"{len(rows)} schemas, accuracy {100 * accuracy:.1f}%; wrote {args.out}")


if __name__ == "__main__":
    main()
