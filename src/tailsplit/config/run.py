"""The sections of a run (``tailsplit run``, ``score``, ``split``): data, scoring, split and
output, each field declared once as an option (:mod:`tailsplit.config.declare`)."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tailsplit.choices import (
    ANALYSIS_TEXTS,
    ATTENTIONS,
    BATCH_TOKENS,
    DTYPES,
    ENGINES,
    FOLD_MATCHES,
    IMPLEMENTATIONS,
    LABEL_QUOTAS,
    LABEL_TOLERANCE,
    LENGTH_OF,
    MAX_BATCH_ROWS,
    OUTPUT_FORMATS,
    PLANNERS,
    RANKS,
    SCORING_METHODS,
    SHARE_PREFIX,
    TRUNCATIONS,
)
from tailsplit.config.data import DataConfig
from tailsplit.config.declare import Applies, Checked, flag_of, option, out_option, overwrite_option, seed_option
from tailsplit.config.values import parse_label_words, parse_length_buckets, parse_size, value_has_type, wrong_type
from tailsplit.errors import ConfigError
from tailsplit.registry import SPLITTER_CLASSES

NULL_SPLITS = 500  # random splits in each null distribution, unless asked otherwise
MAX_NULL_SPLITS = 100_000  # a p-value's resolution of 1e-5; each split is analysed in full
SIZE_HELP = "Fraction (0.1) or count (1000)."


CROSS_FITTED = Applies(lambda c: c.method != "prompted", "with --method kfold or ngram (cross-fitted scores)")
FINE_TUNED = Applies(lambda c: c.method == "kfold", "with --method kfold")
PROMPTED_LM = Applies(
    lambda c: c.method != "ngram", "with an LM (--method prompted or kfold; an n-gram LM reads the query alone)"
)
WITH_MEMBERSHIP = Applies(lambda c: c.membership_k is not None, "with --membership-k")
ON_RAY = Applies(lambda c: c.engine == "ray", "with --engine ray")
KEEPS_TOKENS = Applies(lambda c: c.method == "prompted" and c.backend == "hf" and c.engine == "local",
                       "with --method prompted, --backend hf and --engine local (the scorer that hands back each token)")  # fmt: skip


def _on_device(defaults: dict[str, int]) -> str:
    return f"{defaults['cpu']} on a CPU, {defaults['gpu']} on a GPU"


def _finetune(help: str, **declared: Any) -> Any:
    return option(None, help + " (overrides the preset)", **declared)


@dataclass
class ScoringConfig(Checked):
    PANEL: ClassVar[str] = "Scoring"
    # Options most runs leave alone, each panel shown by --help-all (-h shows the rest).
    MORE_PANELS: ClassVar[dict[str, tuple[str, ...]]] = {
        "Scoring: k-fold and n-gram": (
            "folds", "fold_seed", "fold_match", "ngram_order", "finetune_preset", "finetune_steps",
            "finetune_batch_size", "finetune_learning_rate", "finetune_eval_every", "finetune_lora_rank",
            "finetune_full",
        ),
        "Scoring: batches and tokens": (
            "batch_tokens", "max_batch_size", "start_token", "score_eos", "end_token", "max_tokens", "truncation",
            "share_prefix", "implementation", "torch_compile", "fused", "attention", "planner",
        ),
        "Scoring: Ray": ("engine", "ray_address", "workers", "cpus_per_worker", "gpus_per_worker", "shard_tokens"),
        "Scoring: tokens and membership": (
            "token_scores", "membership_k", "membership_reference", "members", "non_members",
        ),
    }  # fmt: skip

    method: str = option(
        "prompted",
        "prompted (frozen LM), kfold (LM fine-tuned on the other folds) or ngram (cross-fitted Kneser-Ney n-gram LM).",
        choices=SCORING_METHODS,
    )
    folds: int = option(3, "Folds for cross-fitted scoring.", low=2, applies=CROSS_FITTED)
    fold_seed: int = option(0, "Seed of the fold assignment.", low=0, applies=CROSS_FITTED)
    fold_match: str = option(
        "exact",
        "Queries that share a fold: exact (equal texts) or normalized (also equal after case, punctuation and spaces).",
        choices=FOLD_MATCHES,
        applies=CROSS_FITTED,
    )
    ngram_order: int = option(
        3, "n of the n-gram LM.", low=1, applies=Applies(lambda c: c.method == "ngram", "with --method ngram")
    )
    finetune_preset: str | None = option(
        None, "cpu (small recipe), or the paper's spider, boolq, snli.", shown_default="cpu", applies=FINE_TUNED
    )
    finetune_steps: int | None = _finetune("Fine-tuning steps per fold", low=1, applies=FINE_TUNED)
    finetune_batch_size: int | None = _finetune("Fine-tuning batch size", low=1, applies=FINE_TUNED)
    finetune_learning_rate: float | None = _finetune("Constant AdamW learning rate", low=0, applies=FINE_TUNED)
    finetune_eval_every: int | None = _finetune("Steps between held-out perplexity checks", low=1, applies=FINE_TUNED)
    finetune_lora_rank: int | None = _finetune("LoRA rank (the CPU recipe uses 16)", low=1, applies=FINE_TUNED)
    finetune_full: bool = option(False, "Train all weights instead of LoRA adapters.", applies=FINE_TUNED)
    backend: str = option("hf", "Scoring backend (a registered name).")
    model: str = option("smollm2", "'smollm2' (bundled), a model folder, a .gguf file or a hub id.")
    template: str = option("plain", "plain, spider, boolq, snli, or a string ending in {text}.", applies=PROMPTED_LM)
    label_words: dict[str, str] = option(
        {}, "LABEL=WORD for {label} in the prompt (repeatable).", flag="--label-word", metavar="LABEL=WORD",
        parse=parse_label_words, applies=PROMPTED_LM)  # fmt: skip
    device: str = option("auto", "auto, cpu, cuda, cuda:1 ...")
    dtype: str = option(
        "float32",
        "float32, bfloat16, float16, or mixed-bfloat16 / mixed-float16 (float32 weights, half-precision matrix "
        "products; mixed-float16 stays within 0.05 nats of float32).",
        choices=DTYPES,
    )
    batch_tokens: int | None = option(
        None,
        "Padded tokens per batch.",
        low=1,
        shown_default=f"{BATCH_TOKENS['cpu']} on a CPU; on a GPU from its free memory (a power of two, "
        f"{BATCH_TOKENS['gpu']} where planning has no GPU)",
    )
    max_batch_size: int | None = option(None, "Most rows per batch.", low=1, shown_default=_on_device(MAX_BATCH_ROWS))
    start_token: str = option(
        "bos",
        "Token before each input: bos (<|im_start|> for the bundled model), eos, none, or a token of the "
        "vocabulary such as '<|endoftext|>'.",
    )
    score_eos: bool = option(
        False,
        "Append the model's EOS token after the query and score it (the paper's code does for SNLI and BoolQ).",
        flag="--score-eos/--no-score-eos",
    )
    end_token: str = option(
        "eos",
        "With --score-eos: eos (the model's EOS; <|im_end|> for the bundled model) or a token of the vocabulary "
        "such as '<|endoftext|>'.",
        applies=Applies(lambda c: c.score_eos, "with --score-eos"),
    )
    max_tokens: int | None = option(None, "Longest input in tokens.", low=1, shown_default="the model's context")
    truncation: str = option("left", "left (cut and flag) or error.", choices=TRUNCATIONS)
    share_prefix: str = option("auto", "auto (when it saves ≥15% of tokens), always or never.", choices=SHARE_PREFIX)
    implementation: str = option(
        "auto",
        "auto (tailsplit's plain-torch Llama where it measured faster, for a plain Llama checkpoint: on a CPU with "
        "float32 weights, on a CUDA GPU with bfloat16/float16 weights; same scores), native (anywhere), or transformers.",
        choices=IMPLEMENTATIONS,
    )
    torch_compile: bool = option(
        False,
        "Run the native model's layers through torch.compile (fused norms, rotary embeddings and activations; "
        "for GPUs: a minute of compiling first).",
        flag="--compile/--no-compile",
    )
    fused: bool = option(
        False,
        "Run the native model's element-wise work — residual add and RMSNorm, rotary embeddings, SiLU·up — as one "
        "compiled kernel each on flat token tensors, reused by every batch size (for GPUs: seconds of compiling "
        "first; float32 scores within 1e-4 nats of eager per example: summation order differs).",
        flag="--fused/--no-fused",
        applies=PROMPTED_LM,
    )
    attention: str = option(
        "dense",
        "dense (masked attention over padded rows) or varlen (no padding: each prefix once, each suffix attending "
        "its prefix and itself, through variable-length flash attention on a CUDA GPU; a per-segment reference "
        "elsewhere, slower).",
        choices=ATTENTIONS,
        applies=PROMPTED_LM,
    )
    planner: str = option(
        "inline",
        "inline (tokenise and plan every batch first) or process (a child process plans chunks of about 50,000 "
        "requests while the model scores the chunks before: for large GPU runs).",
        choices=PLANNERS,
        applies=PROMPTED_LM,
    )
    cache_dir: str | None = option(
        None, "Score and model cache.", metavar="DIR", shown_default="$TAILSPLIT_CACHE_DIR, else ~/.cache/tailsplit"
    )
    use_cache: bool = option(True, "Read and write the score cache.", flag="--cache/--no-cache")
    token_scores: bool = option(False, "Keep each query token's text and log-probability in the score file (for "
                                "tailsplit explore; from the same forward passes, cached).", applies=KEEPS_TOKENS)  # fmt: skip
    membership_k: float | None = option(None, "Add membership scores as score-file columns — loss, zlib, Min-K% and "
        "Min-K%++ at this k, a percent of each text's tokens (e.g. 20); larger = more like training data, from the "
        "same forward passes (no verdict).", low=0, high=100, exclusive="low", metavar="K", shown_default="none",
        applies=KEEPS_TOKENS)  # fmt: skip
    membership_reference: str | None = option(None, "A reference LM (as --model) for the membership score "
        "reference: the mean token log-probability under the model minus under this one, each with its own tokenizer.",
        metavar="MODEL", applies=WITH_MEMBERSHIP)  # fmt: skip
    members: list[str] = option([], "Files of texts known to be in the model's training data, with the data's "
        "fields: with --non-members, each membership score's AUC and TPR at 5% FPR for this model.", metavar="FILE",
        applies=WITH_MEMBERSHIP)  # fmt: skip
    non_members: list[str] = option([], "Files of texts known not to be in the model's training data (as "
        "--members).", metavar="FILE", applies=WITH_MEMBERSHIP)  # fmt: skip
    engine: str = option(
        "local",
        "Where prompted scoring runs: local (this process) or ray (a Ray Data pipeline of model actors over "
        "Parquet shards; resumes by shard).",
        choices=ENGINES,
    )
    ray_address: str | None = option(
        None, "Ray cluster to join ('auto' finds a running one).", shown_default="start a local one", applies=ON_RAY
    )
    workers: int = option(1, "Model actors for --engine ray.", low=1, applies=ON_RAY)
    cpus_per_worker: float = option(1.0, "CPUs per model actor; also its torch threads.", low=0, applies=ON_RAY)
    gpus_per_worker: float = option(0.0, "GPUs per model actor, e.g. 1 on a GPU cluster.", low=0, applies=ON_RAY)
    shard_tokens: int = option(2_000_000, "Tokens per Parquet shard for --engine ray.", low=1, applies=ON_RAY)

    def scorer_params(self, factory: Any) -> dict[str, Any]:
        """Keyword arguments for the backend ``factory``: the config fields its signature names
        (as ``Splitter.get_params`` does for splitters), so a scorer option is declared once, in
        the scorer's constructor, and here as a field."""
        named = set(inspect.signature(factory).parameters)
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name in named}


BALANCED = Applies(lambda c: c.balance_labels, "with --balance-labels")


def _aflite(help: str, default: Any, **declared: Any) -> Any:
    return option(default, "aflite splitter: " + help, **declared)


@dataclass
class SplitConfig(Checked):
    PANEL: ClassVar[str] = "Split"
    MORE_PANELS: ClassVar[dict[str, tuple[str, ...]]] = {
        "Split: one splitter's options": (
            "atom_constraint", "length_of", "max_iterations", "partitions", "train_share", "removals_per_round",
            "predictability_threshold", "rounds", "encoder",
        ),
    }  # fmt: skip

    splitter: str = option(
        "likelihood",
        "likelihood, random, length, template or tmcd (the last two need --program), or aflite "
        "(adversarial filtering).",
        choices=SPLITTER_CLASSES.listed(),
    )
    dev_size: float | int = option(0.1, SIZE_HELP, metavar="SIZE", parse=parse_size, size=True, low=0)
    test_size: float | int = option(0.1, SIZE_HELP, metavar="SIZE", parse=parse_size, size=True, low=0)
    rank: str = option("logprob_sum", "logprob_sum (total) or logprob_mean (per token).", choices=RANKS)
    reverse: bool = option(False, "Most likely examples to evaluation (control split).", flag="--reverse/--no-reverse")
    length_buckets: int | str | None = option(
        None, "N quantile buckets of word length, or 'exact'.", metavar="N|exact", parse=parse_length_buckets, low=1,
        choices=("exact",),
    )  # fmt: skip
    balance_labels: bool = option(
        False, "Give every label its quota of dev and test (--label-quota).",
        flag="--balance-labels/--no-balance-labels",
    )  # fmt: skip
    label_quota: str = option(
        "proportional",
        "With --balance-labels: proportional (each label's share of the data, as the paper) or equal (the same "
        "count for every label, as the authors' gen_ll_split.py).",
        choices=LABEL_QUOTAS, metavar="RULE", applies=BALANCED,
    )  # fmt: skip
    label_tolerance: float = option(
        LABEL_TOLERANCE,
        "With --balance-labels and --group: the largest miss of a label's share of dev or test that whole "
        "groups may leave beyond one typical group (0.02 = 2 points); a larger one is refused, 1 accepts any.",
        low=0.0, high=1.0, applies=BALANCED,
    )  # fmt: skip
    atom_constraint: bool = option(
        False,
        "Every dev/test program atom also occurs in train (swaps keep sizes).",
        flag="--atom-constraint/--no-atom-constraint",
    )
    length_of: str = option("text", "length splitter: rank by 'text' (word tokens) or 'program' tokens.",
                            choices=LENGTH_OF)  # fmt: skip
    max_iterations: int | None = option(
        None, "tmcd splitter: most swaps.", low=0, shown_default="until the best swap stops helping"
    )
    partitions: int = _aflite("random partitions per round (m).", 64, low=1)
    train_share: float = _aflite(
        "share of each partition its classifier trains on.", 0.5, low=0.0, high=1.0, exclusive=True
    )
    removals_per_round: float | int = _aflite(
        "most predictable examples removed per round (k), a fraction or a count.", 0.05, metavar="SIZE",
        parse=parse_size, size=True, low=0, exclusive=True,
    )  # fmt: skip
    predictability_threshold: float = _aflite(
        "only examples at least this predictable are removed (τ).", 0.75, low=0.0, high=1.0
    )
    rounds: int | None = _aflite("most filtering rounds.", None, low=1, shown_default="until done")
    encoder: str | None = _aflite(
        "sentence-transformers folder or hub id for its features.", None, shown_default="bundled all-MiniLM-L6-v2"
    )
    seed: int = seed_option()

    def splitter_params(self, accepted: list[str]) -> dict[str, Any]:
        """Parameters for a splitter that accepts ``accepted``; a non-default value it does not
        accept is an error rather than silently ignored."""
        defaults = SplitConfig()
        params = {}
        for f in dataclasses.fields(self):
            if f.name in ("splitter", "encoder"):  # encoder: the pipeline's, for splitters that need features
                continue
            value = getattr(self, f.name)
            if f.name in accepted:
                params[f.name] = value
            elif value != getattr(defaults, f.name):
                raise ConfigError(
                    f"{flag_of(f.name)}={value!r} does not apply to --splitter={self.splitter!r}; it accepts {accepted}"
                )
        return params


@dataclass
class OutputConfig(Checked):
    PANEL: ClassVar[str] = "Output"

    out: str | None = out_option()
    overwrite: bool = overwrite_option()
    analyze: bool = option(True, "Write the analysis report (report.html, report.md).", flag="--analyze/--no-analyze")
    null_splits: int = option(NULL_SPLITS, "Random splits in each null distribution.", low=1, high=MAX_NULL_SPLITS)
    analysis_text: str = option(
        "query", "What text statistics read: query, or pair (context + query, as the paper's appendix).",
        choices=ANALYSIS_TEXTS,
    )  # fmt: skip
    syntax: bool = option(
        True,
        "Dependency-tree depth in the analysis when a spaCy English pipeline is installed (the syntax extra).",
        flag="--syntax/--no-syntax",
    )
    format: str | None = option(
        None,
        "Format of the train/dev/test files; hf writes save_to_disk folders; Parquet keeps the input's column types.",
        choices=OUTPUT_FORMATS,
        shown_default="the input's; Parquet for typed in-memory tables",
    )


CONFIG_SECTIONS: dict[str, type] = {
    "data": DataConfig,
    "scoring": ScoringConfig,
    "split": SplitConfig,
    "output": OutputConfig,
}


@dataclass
class RunConfig:
    data: DataConfig = field(default_factory=DataConfig)
    scoring: ScoringConfig = field(default_factory=ScoringConfig)
    split: SplitConfig = field(default_factory=SplitConfig)
    output: OutputConfig = field(default_factory=OutputConfig)

    def as_dict(self) -> dict[str, Any]:
        """Plain values for a manifest; an in-memory table is described (kind), not copied."""
        table = self.data.table
        if table is None:
            return dataclasses.asdict(self)
        self.data.table = None
        try:
            out = dataclasses.asdict(self)
        finally:
            self.data.table = table
        out["data"]["table"] = {"in_memory": describe_table(table)}
        return out

    @staticmethod
    def from_dict(raw: dict[str, Any], *, source: str = "config", strict: bool = True) -> RunConfig:
        """A config from its sections (a TOML recipe, or a manifest's ``config``). ``strict``
        refuses unknown sections and keys, naming ``source``; otherwise (a manifest written by
        another version) unknown keys are left out. A known key of the wrong type is refused
        either way."""
        sections: dict[str, Any] = {}
        for name, values in raw.items():
            if name not in CONFIG_SECTIONS or not isinstance(values, dict):
                if strict:
                    raise ConfigError(f"{source} has section [{name}]; use {sorted(CONFIG_SECTIONS)}")
                continue
            hints = typing.get_type_hints(CONFIG_SECTIONS[name])
            known = [f.name for f in dataclasses.fields(CONFIG_SECTIONS[name])]
            kept = {}
            for key, value in values.items():
                if name == "data" and key == "table":
                    if strict and value is not None:
                        raise ConfigError(f"{source} [data] sets table; a table in memory is passed from Python")
                    continue
                if key not in known:
                    if strict:
                        raise ConfigError(f"{source} [{name}] has key {key!r}; use one of {known}")
                    continue
                if not value_has_type(value, hints[key]):  # a manifest's known keys are checked too
                    raise wrong_type(f"{source} [{name}]", key, value, hints[key])
                kept[key] = value
            sections[name] = CONFIG_SECTIONS[name](**kept)
        return RunConfig(**sections)


def describe_table(table: Any) -> str:
    """What an in-memory table is, for manifests and messages: ``"pandas.DataFrame"``..."""
    if isinstance(table, (list, tuple)):
        return "list[dict]"
    return f"{type(table).__module__.split('.')[0]}.{type(table).__name__}"
