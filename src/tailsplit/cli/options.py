"""Option types shared by the commands: names, help panels and the allowed values, taken from
the constants that check them (how options become a config: :mod:`tailsplit.cli.recipes`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tailsplit.config import ANALYSIS_TEXTS, NULL_SPLITS, SCORING_ENGINES, SCORING_METHODS
from tailsplit.io.writers import OUTPUT_FORMATS
from tailsplit.programs.sets import COUNTS
from tailsplit.scoring.crossfit import FOLD_MATCHES
from tailsplit.scoring.hf import DTYPES, IMPLEMENTATIONS, SHARE_PREFIX, TRUNCATIONS
from tailsplit.splits import SPLITTERS
from tailsplit.splits.length import LENGTH_OF
from tailsplit.splits.likelihood import RANKS

SPLITTER_NAMES = tuple(SPLITTERS)


def _choices(values: tuple[str, ...]) -> str:
    """The allowed values as the help shows them, e.g. ``[left|error]``."""
    return "[" + "|".join(values) + "]"


Paths = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Data files (JSONL/CSV/TSV/Parquet, .gz ok) or a datasets folder; several are pooled.", show_default=False
    ),
]
ConfigOpt = Annotated[
    Path | None, typer.Option("--config", rich_help_panel="Data", help="TOML recipe; options given here override it.")
]
DatasetOpt = Annotated[
    str | None,
    typer.Option(
        "--dataset",
        rich_help_panel="Data",
        metavar="NAME[:CONFIG]",
        help="Load a Hugging Face dataset (hub id or local dataset folder/script) instead of files; every split "
        "is pooled with a source_split column (needs network for hub ids and the hf extra).",
    ),
]
ScoreColumn = Annotated[
    str | None,
    typer.Option(
        "--score-column",
        rich_help_panel="Data",
        help="Field already holding each example's score (total log-probability, e.g. from vLLM or lm-eval): "
        "no model is loaded.",
    ),
]
ModelName = Annotated[
    str | None,
    typer.Option(
        "--model-name",
        rich_help_panel="Data",
        help="The model that made scores given with --scores or --score-column, recorded in the manifest.",
    ),
]
Text = Annotated[
    str | None,
    typer.Option(
        "--text",
        rich_help_panel="Data",
        help="Field holding the query that is scored; nested fields by dotted path (example.hypothesis).",
    ),
]
Context = Annotated[
    str | None,
    typer.Option(
        "--context", rich_help_panel="Data", help="Field holding the first text of a pair (premise, passage)."
    ),
]
Label = Annotated[str | None, typer.Option("--label", rich_help_panel="Data", help="Label field.")]
Group = Annotated[
    str | None, typer.Option("--group", rich_help_panel="Data", help="Field whose equal values stay in one part.")
]
Program = Annotated[
    str | None,
    typer.Option(
        "--program",
        rich_help_panel="Data",
        help="Field holding the program (e.g. SQL): enables atoms, compounds, templates, hardness.",
    ),
]
ProgramKind = Annotated[
    str | None, typer.Option("--program-kind", rich_help_panel="Data", help="Program extractor [default: sql].")
]
Count = Annotated[
    str | None,
    typer.Option(
        "--count",
        rich_help_panel="Data",
        metavar=_choices(COUNTS),
        help="Atoms and compounds in divergences (TMCD, metrics): examples (once per example, default) or occurrences (every occurrence, as the published TMCD code).",
    ),
]
AtomConstraint = Annotated[
    bool | None,
    typer.Option(
        "--atom-constraint/--no-atom-constraint",
        rich_help_panel="Split",
        help="Every dev/test program atom also occurs in train (swaps keep sizes).",
    ),
]
LengthOf = Annotated[
    str | None,
    typer.Option(
        "--length-of",
        rich_help_panel="Split",
        metavar=_choices(LENGTH_OF),
        help="length splitter: rank by 'text' (word tokens) or 'program' tokens.",
    ),
]
MaxIterations = Annotated[
    int | None,
    typer.Option(
        "--max-iterations",
        rich_help_panel="Split",
        help="tmcd splitter: most swaps [default: until the best swap stops helping].",
    ),
]
Partitions = Annotated[
    int | None,
    typer.Option(
        "--partitions", rich_help_panel="Split", help="aflite splitter: random partitions per round (m) [default: 64]."
    ),
]
TrainShare = Annotated[
    float | None,
    typer.Option(
        "--train-share",
        rich_help_panel="Split",
        help="aflite splitter: share of each partition its classifier trains on [default: 0.5].",
    ),
]
RemovalsPerRound = Annotated[
    str | None,
    typer.Option(
        "--removals-per-round",
        rich_help_panel="Split",
        help="aflite splitter: most predictable examples removed per round (k), a fraction or a count [default: 0.05].",
    ),
]
PredictabilityThreshold = Annotated[
    float | None,
    typer.Option(
        "--predictability-threshold",
        rich_help_panel="Split",
        help="aflite splitter: only examples at least this predictable are removed (τ) [default: 0.75].",
    ),
]
Rounds = Annotated[
    int | None,
    typer.Option(
        "--rounds", rich_help_panel="Split", help="aflite splitter: most filtering rounds [default: until done]."
    ),
]
SplitEncoder = Annotated[
    str | None,
    typer.Option(
        "--encoder",
        rich_help_panel="Split",
        help="aflite splitter: sentence-transformers folder or hub id for its features [default: bundled all-MiniLM-L6-v2].",
    ),
]
IdField = Annotated[
    str | None, typer.Option("--id", rich_help_panel="Data", help="Id field [default: id; generated when absent].")
]
Method = Annotated[
    str | None,
    typer.Option(
        "--method",
        rich_help_panel="Scoring",
        metavar=_choices(SCORING_METHODS),
        help="prompted (frozen LM, default), kfold (LM fine-tuned on the other folds) or ngram (cross-fitted Kneser-Ney n-gram LM).",
    ),
]
FinetunePreset = Annotated[
    str | None,
    typer.Option(
        "--finetune-preset",
        rich_help_panel="Scoring",
        help="cpu (small recipe, default), or the paper's spider, boolq, snli.",
    ),
]
FinetuneSteps = Annotated[
    int | None,
    typer.Option(
        "--finetune-steps", rich_help_panel="Scoring", help="Fine-tuning steps per fold (overrides the preset)."
    ),
]
FinetuneBatch = Annotated[
    int | None,
    typer.Option(
        "--finetune-batch-size", rich_help_panel="Scoring", help="Fine-tuning batch size (overrides the preset)."
    ),
]
FinetuneLR = Annotated[
    float | None,
    typer.Option(
        "--finetune-learning-rate",
        rich_help_panel="Scoring",
        help="Constant AdamW learning rate (overrides the preset).",
    ),
]
FinetuneLora = Annotated[
    int | None,
    typer.Option("--finetune-lora-rank", rich_help_panel="Scoring", help="LoRA rank (the CPU recipe uses 16)."),
]
FinetuneFull = Annotated[
    bool, typer.Option("--finetune-full", rich_help_panel="Scoring", help="Train all weights instead of LoRA adapters.")
]
FinetuneEval = Annotated[
    int | None,
    typer.Option("--finetune-eval-every", rich_help_panel="Scoring", help="Steps between held-out perplexity checks."),
]
Folds = Annotated[
    int | None, typer.Option("--folds", rich_help_panel="Scoring", help="Folds for cross-fitted scoring [default: 3].")
]
FoldSeed = Annotated[
    int | None,
    typer.Option("--fold-seed", rich_help_panel="Scoring", min=0, help="Seed of the fold assignment [default: 0]."),
]
FoldMatch = Annotated[
    str | None,
    typer.Option(
        "--fold-match",
        rich_help_panel="Scoring",
        metavar=_choices(FOLD_MATCHES),
        help="Queries that share a fold: exact (equal texts, default) or normalized (also equal after case, punctuation and spaces).",
    ),
]
NgramOrder = Annotated[
    int | None, typer.Option("--ngram-order", rich_help_panel="Scoring", help="n of the n-gram LM [default: 3].")
]
Model = Annotated[
    str | None,
    typer.Option(
        "--model", rich_help_panel="Scoring", help="'smollm2' (bundled), a model folder, a .gguf file or a hub id."
    ),
]
Template = Annotated[
    str | None,
    typer.Option(
        "--template", rich_help_panel="Scoring", help="plain, spider, boolq, snli, or a string ending in {text}."
    ),
]
LabelWord = Annotated[
    list[str] | None,
    typer.Option("--label-word", rich_help_panel="Scoring", help="LABEL=WORD for {label} in the prompt (repeatable)."),
]
Backend = Annotated[
    str | None, typer.Option("--backend", rich_help_panel="Scoring", help="Scoring backend [default: hf].")
]
StartToken = Annotated[
    str | None,
    typer.Option(
        "--start-token",
        rich_help_panel="Scoring",
        help="Token before each input: bos (default; <|im_start|> for the bundled model), eos, none, or a token of the vocabulary such as '<|endoftext|>'.",
    ),
]
ScoreEos = Annotated[
    bool | None,
    typer.Option(
        "--score-eos/--no-score-eos",
        rich_help_panel="Scoring",
        help="Append the model's EOS token after the query and score it (the paper's code does for SNLI and BoolQ).",
    ),
]
EndToken = Annotated[
    str | None,
    typer.Option(
        "--end-token",
        rich_help_panel="Scoring",
        help="With --score-eos: eos (the model's EOS, default; <|im_end|> for the bundled model) or a token of the vocabulary such as '<|endoftext|>'.",
    ),
]
Device = Annotated[str | None, typer.Option("--device", rich_help_panel="Scoring", help="auto, cpu, cuda, cuda:1 ...")]
Dtype = Annotated[
    str | None,
    typer.Option(
        "--dtype",
        rich_help_panel="Scoring",
        metavar=_choices(DTYPES),
        help="float32, bfloat16, float16, or mixed-bfloat16 / mixed-float16 (float32 weights, half-precision matrix products; mixed-float16 stays within 0.05 nats of float32).",
    ),
]
BatchTokens = Annotated[
    int | None,
    typer.Option("--batch-tokens", rich_help_panel="Scoring", help="Padded tokens per batch [default: 4096]."),
]
MaxTokens = Annotated[
    int | None,
    typer.Option(
        "--max-tokens", rich_help_panel="Scoring", help="Longest input in tokens [default: the model's context]."
    ),
]
Truncation = Annotated[
    str | None,
    typer.Option(
        "--truncation", rich_help_panel="Scoring", metavar=_choices(TRUNCATIONS), help="left (cut and flag) or error."
    ),
]
SharePrefix = Annotated[
    str | None,
    typer.Option(
        "--share-prefix",
        rich_help_panel="Scoring",
        metavar=_choices(SHARE_PREFIX),
        help="auto (when it saves ≥15% of tokens), always or never.",
    ),
]
Implementation = Annotated[
    str | None,
    typer.Option(
        "--implementation",
        rich_help_panel="Scoring",
        metavar=_choices(IMPLEMENTATIONS),
        help="auto (tailsplit's plain-torch Llama on a CPU when the checkpoint is a plain Llama with float32 weights: same scores, starts ~2 s sooner), native, or transformers.",
    ),
]
CacheDir = Annotated[
    str | None,
    typer.Option("--cache-dir", rich_help_panel="Scoring", help="Score and model cache [default: ~/.cache/tailsplit]."),
]
NoCache = Annotated[
    bool, typer.Option("--no-cache", rich_help_panel="Scoring", help="Neither read nor write the score cache.")
]
ScoreEngine = Annotated[
    str | None,
    typer.Option(
        "--engine",
        rich_help_panel="Scoring",
        metavar=_choices(SCORING_ENGINES),
        help="Where prompted scoring runs: local (this process) or ray (a Ray Data pipeline of model actors over Parquet shards; resumes by shard).",
    ),
]
RayAddress = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        rich_help_panel="Scoring",
        help="Ray cluster to join ('auto' finds a running one) [default: start a local one].",
    ),
]
Workers = Annotated[
    int | None, typer.Option("--workers", rich_help_panel="Scoring", help="Model actors for --engine ray [default: 1].")
]
CpusPerWorker = Annotated[
    float | None,
    typer.Option(
        "--cpus-per-worker",
        rich_help_panel="Scoring",
        help="CPUs per model actor; also its torch threads [default: 1].",
    ),
]
GpusPerWorker = Annotated[
    float | None,
    typer.Option(
        "--gpus-per-worker",
        rich_help_panel="Scoring",
        help="GPUs per model actor, e.g. 1 on a GPU cluster [default: 0].",
    ),
]
ShardTokens = Annotated[
    int | None,
    typer.Option(
        "--shard-tokens",
        rich_help_panel="Scoring",
        help="Tokens per Parquet shard for --engine ray [default: 2000000].",
    ),
]
Splitter = Annotated[
    str | None,
    typer.Option(
        "--splitter",
        rich_help_panel="Split",
        metavar=_choices(SPLITTER_NAMES),
        help="likelihood (default), random, length, template or tmcd (the last two need --program).",
    ),
]
DevSize = Annotated[
    str | None,
    typer.Option("--dev-size", rich_help_panel="Split", help="Fraction (0.1) or count (1000) [default: 0.1]."),
]
TestSize = Annotated[
    str | None,
    typer.Option("--test-size", rich_help_panel="Split", help="Fraction (0.1) or count (1000) [default: 0.1]."),
]
Rank = Annotated[
    str | None,
    typer.Option(
        "--rank",
        rich_help_panel="Split",
        metavar=_choices(RANKS),
        help="logprob_sum (total) or logprob_mean (per token).",
    ),
]
Reverse = Annotated[
    bool | None,
    typer.Option(
        "--reverse/--no-reverse", rich_help_panel="Split", help="Most likely examples to evaluation (control split)."
    ),
]
LengthBuckets = Annotated[
    str | None,
    typer.Option("--length-buckets", rich_help_panel="Split", help="N quantile buckets of word length, or 'exact'."),
]
Balance = Annotated[
    bool | None,
    typer.Option(
        "--balance-labels/--no-balance-labels", rich_help_panel="Split", help="Keep label proportions in every part."
    ),
]
Seed = Annotated[
    int | None,
    typer.Option(
        "--seed",
        rich_help_panel="Split",
        min=0,
        help="Random seed: dev/test division, random splits, samples, baselines [default: 0].",
    ),
]
OutDir = Annotated[
    Path | None, typer.Option("--out", rich_help_panel="Output", help="Output folder (written atomically).")
]
AgreementField = Annotated[
    str | None,
    typer.Option(
        "--agreement-field",
        help="Field holding each example's annotator labels (a list): agreement with the gold label per split, against random splits.",
    ),
]
AcceptModified = Annotated[
    bool,
    typer.Option(
        "--accept-modified",
        help="Read split folders whose data files changed since tailsplit wrote them (recorded in the manifest).",
    ),
]
Overwrite = Annotated[
    bool, typer.Option("--overwrite", rich_help_panel="Output", help="Replace a non-empty output folder.")
]
OutputFormat = Annotated[
    str | None,
    typer.Option(
        "--format",
        rich_help_panel="Output",
        metavar=_choices(OUTPUT_FORMATS),
        help="Format of the train/dev/test files [default: the input's; Parquet for typed in-memory tables]; "
        "hf writes save_to_disk folders; Parquet keeps the input's column types.",
    ),
]
NoAnalyze = Annotated[
    bool,
    typer.Option("--no-analyze", rich_help_panel="Output", help="Skip the analysis report (report.html, report.md)."),
]
NullSplits = Annotated[
    int | None,
    typer.Option(
        "--null-splits",
        rich_help_panel="Output",
        min=1,
        help=f"Random splits in each null distribution [default: {NULL_SPLITS}].",
    ),
]
AnalysisText = Annotated[
    str | None,
    typer.Option(
        "--analysis-text",
        rich_help_panel="Output",
        metavar=_choices(ANALYSIS_TEXTS),
        help="What text statistics read: query (default) or pair (context + query, as the paper's appendix).",
    ),
]
Syntax = Annotated[
    bool | None,
    typer.Option(
        "--syntax/--no-syntax",
        rich_help_panel="Output",
        help="Dependency-tree depth in the analysis when a spaCy English pipeline is installed (the syntax extra) [default: on].",
    ),
]
Quiet = Annotated[bool, typer.Option("--quiet", rich_help_panel="Output", help="No progress bar.")]


CommandConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="TOML recipe of this command's options (as top-level keys, or in a table named after the "
        "command); options given here override it.",
    ),
]
