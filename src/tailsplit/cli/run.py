"""``score``, ``split``, ``run`` and ``analyze``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from tailsplit.cli.app import app, friendly_errors, stdout
from tailsplit.cli.options import (
    AcceptModified,
    AgreementField,
    AnalysisText,
    AtomConstraint,
    Backend,
    Balance,
    BatchTokens,
    CacheDir,
    ConfigOpt,
    Context,
    Count,
    CpusPerWorker,
    DatasetOpt,
    Device,
    DevSize,
    Dtype,
    EndToken,
    FinetuneBatch,
    FinetuneEval,
    FinetuneFull,
    FinetuneLora,
    FinetuneLR,
    FinetunePreset,
    FinetuneSteps,
    FoldMatch,
    Folds,
    FoldSeed,
    GpusPerWorker,
    Group,
    IdField,
    Implementation,
    Label,
    LabelWord,
    LengthBuckets,
    LengthOf,
    MaxIterations,
    MaxTokens,
    Method,
    Model,
    ModelName,
    NgramOrder,
    NoAnalyze,
    NoCache,
    NullSplits,
    OutDir,
    OutputFormat,
    Overwrite,
    Partitions,
    Paths,
    PredictabilityThreshold,
    Program,
    ProgramKind,
    Quiet,
    Rank,
    RayAddress,
    RemovalsPerRound,
    Reverse,
    Rounds,
    ScoreColumn,
    ScoreEngine,
    ScoreEos,
    Seed,
    ShardTokens,
    SharePrefix,
    SplitEncoder,
    Splitter,
    StartToken,
    Syntax,
    Template,
    TestSize,
    Text,
    TrainShare,
    Truncation,
    Workers,
)
from tailsplit.cli.recipes import build_config
from tailsplit.cli.render import print_analysis, print_summary

RUN_EXAMPLES = """
**Examples**

SNLI pairs, gold label in the prompt, label-balanced 10% dev + 10% test:

    tailsplit run dev.jsonl.gz test.jsonl.gz --text hypothesis --context premise --label label --template snli --balance-labels --out snli-ll

Spider questions, length-controlled, exact sizes:

    tailsplit run train.jsonl.gz dev.jsonl.gz --text question --template spider --length-buckets 10 --dev-size 1034 --test-size 1034 --out spider-ll

The same from a recipe (CLI options override it):

    tailsplit run --config recipe.toml
"""

SCORE_EXAMPLES = """
**Examples**

    tailsplit score dev.jsonl.gz --text hypothesis --context premise --label label --template snli --out scores.parquet

    tailsplit score questions.csv --text question --model ./my-model-folder --out scores.parquet
"""

SPLIT_EXAMPLES = """
**Examples**

Spider challenge splits (no scores needed), exact sizes:

    tailsplit split train.jsonl.gz dev.jsonl.gz --text question --program query --splitter tmcd --dev-size 1034 --test-size 1034 --out spider-tmcd

    tailsplit split train.jsonl.gz dev.jsonl.gz --text question --program query --splitter template --dev-size 1034 --test-size 1034 --out spider-template

A likelihood split of programs whose dev/test atoms all occur in train:

    tailsplit split train.jsonl.gz dev.jsonl.gz --text question --program query --scores scores.parquet --atom-constraint --dev-size 1034 --test-size 1034 --out spider-ll

    tailsplit split dev.jsonl.gz --text hypothesis --label label --scores scores.parquet --balance-labels --out snli-ll

    tailsplit split dev.jsonl.gz --text hypothesis --label label --splitter random --seed 3 --out snli-random-3
"""


@app.command(epilog=RUN_EXAMPLES)
@friendly_errors
def run(
    paths: Paths = None,
    config: ConfigOpt = None,
    dataset: DatasetOpt = None,
    text: Text = None,
    context: Context = None,
    label: Label = None,
    group: Group = None,
    id: IdField = None,
    program: Program = None,
    program_kind: ProgramKind = None,
    count: Count = None,
    score_column: ScoreColumn = None,
    model_name: ModelName = None,
    method: Method = None,
    folds: Folds = None,
    fold_seed: FoldSeed = None,
    fold_match: FoldMatch = None,
    ngram_order: NgramOrder = None,
    finetune_preset: FinetunePreset = None,
    finetune_steps: FinetuneSteps = None,
    finetune_batch_size: FinetuneBatch = None,
    finetune_learning_rate: FinetuneLR = None,
    finetune_eval_every: FinetuneEval = None,
    finetune_lora_rank: FinetuneLora = None,
    finetune_full: FinetuneFull = False,
    model: Model = None,
    template: Template = None,
    label_word: LabelWord = None,
    backend: Backend = None,
    start_token: StartToken = None,
    score_eos: ScoreEos = None,
    end_token: EndToken = None,
    device: Device = None,
    dtype: Dtype = None,
    batch_tokens: BatchTokens = None,
    max_tokens: MaxTokens = None,
    truncation: Truncation = None,
    share_prefix: SharePrefix = None,
    implementation: Implementation = None,
    cache_dir: CacheDir = None,
    no_cache: NoCache = False,
    engine: ScoreEngine = None,
    ray_address: RayAddress = None,
    workers: Workers = None,
    cpus_per_worker: CpusPerWorker = None,
    gpus_per_worker: GpusPerWorker = None,
    shard_tokens: ShardTokens = None,
    splitter: Splitter = None,
    dev_size: DevSize = None,
    test_size: TestSize = None,
    rank: Rank = None,
    reverse: Reverse = None,
    length_buckets: LengthBuckets = None,
    balance_labels: Balance = None,
    atom_constraint: AtomConstraint = None,
    length_of: LengthOf = None,
    max_iterations: MaxIterations = None,
    partitions: Partitions = None,
    train_share: TrainShare = None,
    removals_per_round: RemovalsPerRound = None,
    predictability_threshold: PredictabilityThreshold = None,
    rounds: Rounds = None,
    encoder: SplitEncoder = None,
    seed: Seed = None,
    out: OutDir = None,
    overwrite: Overwrite = False,
    format: OutputFormat = None,
    no_analyze: NoAnalyze = False,
    null_splits: NullSplits = None,
    analysis_text: AnalysisText = None,
    syntax: Syntax = None,
    quiet: Quiet = False,
) -> None:
    """Score every example with a causal LM, then split: the least likely go to dev/test."""
    from tailsplit import pipeline

    opts = {k: v for k, v in locals().items() if k not in ("paths", "config", "quiet", "pipeline")}
    opts["label_words"] = opts.pop("label_word")
    cfg = build_config(config, paths, **opts)
    print_summary(pipeline.run(cfg, progress=not quiet, command=sys.argv))


@app.command(epilog=SCORE_EXAMPLES)
@friendly_errors
def score(
    paths: Paths = None,
    out: Annotated[Path, typer.Option("--out", help="Score file to write (Parquet).")] = Path("scores.parquet"),
    config: ConfigOpt = None,
    dataset: DatasetOpt = None,
    text: Text = None,
    context: Context = None,
    label: Label = None,
    group: Group = None,
    id: IdField = None,
    method: Method = None,
    folds: Folds = None,
    fold_seed: FoldSeed = None,
    fold_match: FoldMatch = None,
    ngram_order: NgramOrder = None,
    finetune_preset: FinetunePreset = None,
    finetune_steps: FinetuneSteps = None,
    finetune_batch_size: FinetuneBatch = None,
    finetune_learning_rate: FinetuneLR = None,
    finetune_eval_every: FinetuneEval = None,
    finetune_lora_rank: FinetuneLora = None,
    finetune_full: FinetuneFull = False,
    model: Model = None,
    template: Template = None,
    label_word: LabelWord = None,
    backend: Backend = None,
    start_token: StartToken = None,
    score_eos: ScoreEos = None,
    end_token: EndToken = None,
    device: Device = None,
    dtype: Dtype = None,
    batch_tokens: BatchTokens = None,
    max_tokens: MaxTokens = None,
    truncation: Truncation = None,
    share_prefix: SharePrefix = None,
    implementation: Implementation = None,
    cache_dir: CacheDir = None,
    no_cache: NoCache = False,
    engine: ScoreEngine = None,
    ray_address: RayAddress = None,
    workers: Workers = None,
    cpus_per_worker: CpusPerWorker = None,
    gpus_per_worker: GpusPerWorker = None,
    shard_tokens: ShardTokens = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace an existing score file (never an input).")
    ] = False,
    quiet: Quiet = False,
) -> None:
    """Score every example's query and write a score file (no split)."""
    from tailsplit import pipeline

    opts = {k: v for k, v in locals().items() if k not in ("paths", "config", "quiet", "out", "pipeline")}
    opts["label_words"] = opts.pop("label_word")
    cfg = build_config(config, paths, **opts)
    scores, report = pipeline.score(cfg, out, progress=not quiet, command=sys.argv)
    cached = f" ({report['n_cached']} cached)" if "n_cached" in report else ""
    stdout.print(f"scored {report['n_requests']} examples{cached} in {report['seconds']:.1f} s; wrote {out}")


@app.command(epilog=SPLIT_EXAMPLES)
@friendly_errors
def split(
    paths: Paths = None,
    scores: Annotated[Path | None, typer.Option("--scores", help="Score file from tailsplit score.")] = None,
    config: ConfigOpt = None,
    dataset: DatasetOpt = None,
    text: Text = None,
    context: Context = None,
    label: Label = None,
    group: Group = None,
    id: IdField = None,
    program: Program = None,
    program_kind: ProgramKind = None,
    count: Count = None,
    score_column: ScoreColumn = None,
    model_name: ModelName = None,
    splitter: Splitter = None,
    dev_size: DevSize = None,
    test_size: TestSize = None,
    rank: Rank = None,
    reverse: Reverse = None,
    length_buckets: LengthBuckets = None,
    balance_labels: Balance = None,
    atom_constraint: AtomConstraint = None,
    length_of: LengthOf = None,
    max_iterations: MaxIterations = None,
    partitions: Partitions = None,
    train_share: TrainShare = None,
    removals_per_round: RemovalsPerRound = None,
    predictability_threshold: PredictabilityThreshold = None,
    rounds: Rounds = None,
    encoder: SplitEncoder = None,
    seed: Seed = None,
    out: OutDir = None,
    overwrite: Overwrite = False,
    format: OutputFormat = None,
    no_analyze: NoAnalyze = False,
    null_splits: NullSplits = None,
    analysis_text: AnalysisText = None,
    syntax: Syntax = None,
) -> None:
    """Split using an existing score file (or no scores: random, length, template, tmcd)."""
    from tailsplit import pipeline

    opts = {k: v for k, v in locals().items() if k not in ("paths", "config", "scores", "pipeline")}
    cfg = build_config(config, paths, **opts)
    print_summary(pipeline.run(cfg, scores_path=scores, command=sys.argv, score_missing=False))


ANALYZE_EXAMPLES = """
**Examples**

    tailsplit analyze snli-likelihood

    tailsplit analyze spider-ll --compare spider-random-0 --compare spider-tmcd --null-splits 1000
"""


@app.command(epilog=ANALYZE_EXAMPLES)
@friendly_errors
def analyze(
    split_dir: Annotated[Path, typer.Argument(help="A folder written by tailsplit run or split.")],
    compare: Annotated[
        list[Path] | None, typer.Option("--compare", help="Another split of the same examples (repeatable).")
    ] = None,
    null_splits: NullSplits = None,
    seed: Seed = None,
    analysis_text: AnalysisText = None,
    syntax: Syntax = None,
    agreement_field: AgreementField = None,
    accept_modified: AcceptModified = False,
) -> None:
    """Analyse a split against random splits; writes report.html, report.md and analysis.json into it."""
    from tailsplit import pipeline

    analysis, comparisons = pipeline.analyze(
        split_dir,
        null_splits=null_splits,
        seed=seed or 0,
        compare=compare,
        text_kind=analysis_text,
        syntax=syntax,
        agreement_field=agreement_field,
        accept_modified=accept_modified,
    )
    print_analysis(analysis, comparisons)
    stdout.print(f"wrote {split_dir}/report.html, report.md, analysis.json")
