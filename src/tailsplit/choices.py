"""The allowed values of every option with a fixed list, and the defaults that depend on the
device, declared once: the config fields show and check them (:mod:`tailsplit.config`), and
the implementations that act on them import them from here."""

from __future__ import annotations

SCORING_METHODS = ("prompted", "ngram", "kfold")
ENGINES = ("local", "ray")  # where scoring or index shards run: this process, or a Ray cluster
ANALYSIS_TEXTS = ("query", "pair")  # what text statistics read: the query, or context + query
RANKS = ("logprob_sum", "logprob_mean")
LENGTH_OF = ("text", "program")
# Label balance's quotas: each label's share of the data (the paper), or an equal share each
# (the authors' gen_ll_split.py); with whole groups, the largest miss of a label's share of a
# part that passes without --label-tolerance (splits/label_quotas.py).
LABEL_QUOTAS = ("proportional", "equal")
LABEL_TOLERANCE = 0.02
COUNTS = ("examples", "occurrences")  # how atoms and compounds count in divergences
FOLD_MATCHES = ("exact", "normalized")
TRUNCATIONS = ("left", "error")
SHARE_PREFIX = ("auto", "always", "never")
# "native": tailsplit's plain-torch Llama (scoring/llama.py; fast start, fused projections, any
# device and weight type); "auto": native on a CPU for a plain Llama checkpoint with float32
# weights (or when torch_compile asks for it), else transformers.
IMPLEMENTATIONS = ("auto", "native", "transformers")
ATTENTIONS = ("dense", "varlen")
PLANNERS = (
    "inline",
    "process",
)  # where a scorer tokenises and plans: in its own process, or a child beside it  # attention of a batch: dense masks over padded rows, or unpadded segments
# "mixed-*": float32 weights, residual stream, norms and vocabulary projection; the layers'
# matrix products in the named type (torch.autocast).
DTYPES = ("float32", "bfloat16", "float16", "mixed-bfloat16", "mixed-float16")
# ``hf`` writes a ``save_to_disk`` folder (no suffix).
OUTPUT_SUFFIX = {"jsonl": ".jsonl", "csv": ".csv", "tsv": ".tsv", "parquet": ".parquet", "hf": ""}
OUTPUT_FORMATS = tuple(OUTPUT_SUFFIX)
# The scorer's batch budget when not given: padded tokens and rows per batch (a CPU runs
# small batches fastest; on a GPU the token budget binds first, and is read from the card's
# free memory — scoring/memory.py — the "gpu" value only where planning has no GPU).
BATCH_TOKENS = {"cpu": 1024, "gpu": 32768}
MAX_BATCH_ROWS = {"cpu": 64, "gpu": 8192}

# BOSS's tasks the task model of ood-rank and curve learns (tailsplit.shift.task_kinds registers them).
SHIFT_TASKS = ("classification", "ner", "qa")
