"""The ``tailsplit`` command: ``score``, ``split``, ``run``, ``analyze``, ``overlap``; the shift
commands (``cli_shift``) and ``evaluate`` (``cli_evaluate``).

Every error the library raises on purpose is printed as its message (no traceback) and the
command exits with status 2.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text as RichText

from tailsplit.cli_evaluate import register_evaluate_command
from tailsplit.cli_shift import register_shift_commands
from tailsplit.config import NULL_SPLITS, RunConfig, load_config
from tailsplit.errors import ConfigError, TailsplitError

app = typer.Typer(
    add_completion=False, no_args_is_help=True, rich_markup_mode="markdown",
    help="Likelihood Splits for NLP benchmarks: put the long tail in the test set.",
)
# Markup off: labels, ids, field names and messages are the user's text and print literally.
stderr = Console(stderr=True, markup=False)
stdout = Console(markup=False)

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

Paths = Annotated[list[Path] | None, typer.Argument(help="Data files (JSONL/CSV/TSV/Parquet, .gz ok) or a datasets folder; several are pooled.", show_default=False)]
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="TOML recipe; options given here override it.")]
Text = Annotated[str | None, typer.Option("--text", help="Field holding the query that is scored.")]
Context = Annotated[str | None, typer.Option("--context", help="Field holding the first text of a pair (premise, passage).")]
Label = Annotated[str | None, typer.Option("--label", help="Label field.")]
Group = Annotated[str | None, typer.Option("--group", help="Field whose equal values stay in one part.")]
Program = Annotated[str | None, typer.Option("--program", help="Field holding the program (e.g. SQL): enables atoms, compounds, templates, hardness.")]
ProgramKind = Annotated[str | None, typer.Option("--program-kind", help="Program extractor [default: sql].")]
Count = Annotated[str | None, typer.Option("--count", help="Atoms and compounds in divergences (TMCD, metrics): examples (once per example, default) or occurrences (every occurrence, as the published TMCD code).")]
AtomConstraint = Annotated[bool | None, typer.Option("--atom-constraint/--no-atom-constraint", help="Every dev/test program atom also occurs in train (swaps keep sizes).")]
LengthOf = Annotated[str | None, typer.Option("--length-of", help="length splitter: rank by 'text' (word tokens) or 'program' tokens.")]
MaxIterations = Annotated[int | None, typer.Option("--max-iterations", help="tmcd splitter: most swaps [default: until the best swap stops helping].")]
IdField = Annotated[str | None, typer.Option("--id", help="Id field [default: id; generated when absent].")]
Method = Annotated[str | None, typer.Option("--method", help="prompted (frozen LM, default), kfold (LM fine-tuned on the other folds) or ngram (cross-fitted Kneser-Ney n-gram LM).")]
FinetunePreset = Annotated[str | None, typer.Option("--finetune-preset", help="cpu (small recipe, default), or the paper's spider, boolq, snli.")]
FinetuneSteps = Annotated[int | None, typer.Option("--finetune-steps", help="Fine-tuning steps per fold (overrides the preset).")]
FinetuneBatch = Annotated[int | None, typer.Option("--finetune-batch-size", help="Fine-tuning batch size (overrides the preset).")]
FinetuneLR = Annotated[float | None, typer.Option("--finetune-learning-rate", help="Constant AdamW learning rate (overrides the preset).")]
FinetuneLora = Annotated[int | None, typer.Option("--finetune-lora-rank", help="LoRA rank (the CPU recipe uses 16).")]
FinetuneFull = Annotated[bool, typer.Option("--finetune-full", help="Train all weights instead of LoRA adapters.")]
FinetuneEval = Annotated[int | None, typer.Option("--finetune-eval-every", help="Steps between held-out perplexity checks.")]
Folds = Annotated[int | None, typer.Option("--folds", help="Folds for cross-fitted scoring [default: 3].")]
FoldSeed = Annotated[int | None, typer.Option("--fold-seed", min=0, help="Seed of the fold assignment [default: 0].")]
FoldMatch = Annotated[str | None, typer.Option("--fold-match", help="Queries that share a fold: exact (equal texts, default) or normalized (also equal after case, punctuation and spaces).")]
NgramOrder = Annotated[int | None, typer.Option("--ngram-order", help="n of the n-gram LM [default: 3].")]
Model = Annotated[str | None, typer.Option("--model", help="'smollm2' (bundled), a model folder, a .gguf file or a hub id.")]
Template = Annotated[str | None, typer.Option("--template", help="plain, spider, boolq, snli, or a string ending in {text}.")]
LabelWord = Annotated[list[str] | None, typer.Option("--label-word", help="LABEL=WORD for {label} in the prompt (repeatable).")]
Backend = Annotated[str | None, typer.Option("--backend", help="Scoring backend [default: hf].")]
StartToken = Annotated[str | None, typer.Option("--start-token", help="Token before each input: bos (default; <|im_start|> for the bundled model), eos, none, or a token of the vocabulary such as '<|endoftext|>'.")]
ScoreEos = Annotated[bool | None, typer.Option("--score-eos/--no-score-eos", help="Append the model's EOS token after the query and score it (the paper's code does for SNLI and BoolQ).")]
EndToken = Annotated[str | None, typer.Option("--end-token", help="With --score-eos: eos (the model's EOS, default; <|im_end|> for the bundled model) or a token of the vocabulary such as '<|endoftext|>'.")]
Device = Annotated[str | None, typer.Option("--device", help="auto, cpu, cuda, cuda:1 ...")]
Dtype = Annotated[str | None, typer.Option(
    "--dtype", help="float32, bfloat16, float16, or mixed-bfloat16 / mixed-float16 (float32 weights, half-precision matrix products; mixed-float16 stays within 0.05 nats of float32).")]
BatchTokens = Annotated[int | None, typer.Option("--batch-tokens", help="Padded tokens per batch [default: 4096].")]
MaxTokens = Annotated[int | None, typer.Option("--max-tokens", help="Longest input in tokens [default: the model's context].")]
Truncation = Annotated[str | None, typer.Option("--truncation", help="left (cut and flag) or error.")]
SharePrefix = Annotated[str | None, typer.Option("--share-prefix", help="auto (when it saves ≥15% of tokens), always or never.")]
CacheDir = Annotated[str | None, typer.Option("--cache-dir", help="Score and model cache [default: ~/.cache/tailsplit].")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the score cache.")]
ScoreEngine = Annotated[str | None, typer.Option("--engine", help="Where prompted scoring runs: local (this process) or ray (a Ray Data pipeline of model actors over Parquet shards; resumes by shard).")]
RayAddress = Annotated[str | None, typer.Option("--ray-address", help="Ray cluster to join ('auto' finds a running one) [default: start a local one].")]
Workers = Annotated[int | None, typer.Option("--workers", help="Model actors for --engine ray [default: 1].")]
CpusPerWorker = Annotated[float | None, typer.Option("--cpus-per-worker", help="CPUs per model actor; also its torch threads [default: 1].")]
GpusPerWorker = Annotated[float | None, typer.Option("--gpus-per-worker", help="GPUs per model actor, e.g. 1 on a GPU cluster [default: 0].")]
ShardTokens = Annotated[int | None, typer.Option("--shard-tokens", help="Tokens per Parquet shard for --engine ray [default: 2000000].")]
Splitter = Annotated[str | None, typer.Option("--splitter", help="likelihood (default), random, length, template or tmcd (the last two need --program).")]
DevSize = Annotated[str | None, typer.Option("--dev-size", help="Fraction (0.1) or count (1000) [default: 0.1].")]
TestSize = Annotated[str | None, typer.Option("--test-size", help="Fraction (0.1) or count (1000) [default: 0.1].")]
Rank = Annotated[str | None, typer.Option("--rank", help="logprob_sum (total) or logprob_mean (per token).")]
Reverse = Annotated[bool | None, typer.Option("--reverse/--no-reverse", help="Most likely examples to evaluation (control split).")]
LengthBuckets = Annotated[str | None, typer.Option("--length-buckets", help="N quantile buckets of word length, or 'exact'.")]
Balance = Annotated[bool | None, typer.Option("--balance-labels/--no-balance-labels", help="Keep label proportions in every part.")]
Seed = Annotated[int | None, typer.Option("--seed", min=0, help="Seed for the dev/test division and random splits [default: 0].")]
OutDir = Annotated[Path | None, typer.Option("--out", help="Output folder (written atomically).")]
Overwrite = Annotated[bool, typer.Option("--overwrite", help="Replace a non-empty output folder.")]
NoAnalyze = Annotated[bool, typer.Option("--no-analyze", help="Skip the analysis report (report.html, report.md).")]
NullSplits = Annotated[int | None, typer.Option("--null-splits", min=1, help=f"Random splits in each null distribution [default: {NULL_SPLITS}].")]
AnalysisText = Annotated[str | None, typer.Option("--analysis-text", help="What text statistics read: query (default) or pair (context + query, as the paper's appendix).")]
Syntax = Annotated[bool | None, typer.Option("--syntax/--no-syntax", help="Dependency-tree depth in the analysis when a spaCy English pipeline is installed (the syntax extra) [default: on].")]
Quiet = Annotated[bool, typer.Option("--quiet", help="No progress bar.")]


def friendly_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Print library errors as one line and exit 2; Ctrl-C exits 130 (cached scores are kept)."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except TailsplitError as exc:
            stderr.print(RichText("error:", style="bold red") + RichText(" " + str(exc)), highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            stderr.print("interrupted; scores computed so far are cached and a rerun resumes")
            raise typer.Exit(130) from None
    return wrapper


def parse_size(value: str, option: str) -> float | int:
    """``"0.1"`` → 0.1, ``"1000"`` → 1000."""
    try:
        return int(value) if value.strip().lstrip("-").isdigit() else float(value)
    except ValueError:
        raise ConfigError(f"{option}={value!r} is not a number; give a fraction like 0.1 or a count like 1000") from None


def parse_label_words(items: list[str]) -> dict[str, str]:
    words = {}
    for item in items:
        label, sep, word = item.partition("=")
        if not sep or not label:
            raise ConfigError(f"--label-word={item!r} is not LABEL=WORD; e.g. --label-word contradiction='a contradiction'")
        words[label] = word
    return words


_PLAIN_FLAGS = {"finetune_full", "overwrite"}   # False there means "not given", not "off"
# Options that are not a config field of the same name, or need converting first.
_CONVERTED = {"paths", "label_words", "no_cache", "dev_size", "test_size", "length_buckets", "out", "no_analyze"}


def _config_sections() -> dict[str, str]:
    """Config field name → the section holding it (field names are unique across sections)."""
    from tailsplit.config import CONFIG_SECTIONS

    return {f.name: section for section, cls in CONFIG_SECTIONS.items() for f in dataclasses.fields(cls)}


def build_config(config_path: Path | None, paths: list[Path] | None, **opts: Any) -> RunConfig:
    """A recipe (or defaults) with every option that was given laid over it; an option is the
    config field of the same name."""
    config = load_config(config_path) if config_path else RunConfig()
    if paths:
        config.data.paths = [str(p) for p in paths]
    sections = _config_sections()
    for name, value in opts.items():
        if name in _CONVERTED or value is None or (value is False and name in _PLAIN_FLAGS):
            continue
        if name not in sections:
            raise TypeError(f"option {name!r} is not a config field; add it to the config or to _CONVERTED")
        setattr(getattr(config, sections[name]), name, value)
    if opts.get("label_words"):
        config.scoring.label_words.update(parse_label_words(opts["label_words"]))
    if opts.get("no_cache"):
        config.scoring.use_cache = False
    for name in ("dev_size", "test_size"):
        if opts.get(name) is not None:
            setattr(config.split, name, parse_size(opts[name], f"--{name.replace('_', '-')}"))
    if opts.get("length_buckets") is not None:
        value = opts["length_buckets"]
        if value != "exact" and not value.strip().isdigit():
            raise ConfigError(f"--length-buckets={value!r} is neither a whole number of buckets (e.g. 10) nor 'exact'")
        config.split.length_buckets = value if value == "exact" else int(value)
    if opts.get("out") is not None:
        config.output.out = str(opts["out"])
    if opts.get("no_analyze"):
        config.output.analyze = False
    return config


def print_summary(result: Any) -> None:
    from rich.table import Table

    table = Table(title="split summary (means per example)")
    for column in ("part", "size", "labels", "words", "logprob_sum", "logprob_mean"):
        table.add_column(column, justify="left" if column in ("part", "labels") else "right",
                         no_wrap=True)
    for s in result.summaries:
        total = max(s.size, 1)
        labels = "\n".join(f"{k} {100 * v / total:.1f}%" for k, v in s.label_counts.items()) or "-"
        table.add_row(s.part, str(s.size), labels, f"{s.mean_words:.2f}",
                      "-" if s.mean_logprob_sum is None else f"{s.mean_logprob_sum:.3f}",
                      "-" if s.mean_logprob_mean is None else f"{s.mean_logprob_mean:.3f}")
    stdout.print(table)
    from tailsplit.pipeline.runs import scoring_note

    if scoring_note(result.manifest):
        stdout.print(f"scores: {scoring_note(result.manifest)}", highlight=False)
    if result.program_metrics:
        print_program_metrics(result.program_metrics, result.programs)
    if result.analysis is not None:
        from tailsplit.analysis.report import headlines

        for line in headlines(result.analysis):
            stdout.print("• " + line.replace("**", ""), highlight=False)
    if result.out_dir is not None:
        stdout.print(f"wrote {result.out_dir}/ ({', '.join(result.manifest['outputs'])}, manifest.json)")


def print_program_metrics(metrics: list[Any], programs: Any) -> None:
    from rich.table import Table

    from tailsplit.analysis.program_metrics import divergence_note

    levels = list(next((m.hardness for m in metrics if m.hardness), {}))
    table = Table(title="programs, against train",
                  caption=f"hardness %: {'/'.join(levels)}" if levels else None)
    for column in ("part", "atom div", "cmpd div", "novel cmpd", "unseen atoms", "hardness %"):
        table.add_column(column, justify="left" if column == "part" else "right", no_wrap=True)
    for m in metrics:
        total = max(m.size, 1)
        table.add_row(m.part, "-" if m.atom_divergence is None else f"{m.atom_divergence:.3f}",
                      "-" if m.compound_divergence is None else f"{m.compound_divergence:.3f}",
                      "-" if m.novel_compound_share is None else f"{100 * m.novel_compound_share:.1f}%",
                      "-" if m.atoms_missing_from_train is None else str(m.atoms_missing_from_train),
                      "/".join(f"{100 * m.hardness[level] / total:.0f}" for level in levels) or "-")
    stdout.print(table)
    stdout.print(divergence_note(programs.count, programs.extractor), highlight=False)


@app.command(epilog=RUN_EXAMPLES)
@friendly_errors
def run(paths: Paths = None, config: ConfigOpt = None, text: Text = None, context: Context = None,
        label: Label = None, group: Group = None, id: IdField = None, program: Program = None,
        program_kind: ProgramKind = None, count: Count = None, method: Method = None,
        folds: Folds = None, fold_seed: FoldSeed = None, fold_match: FoldMatch = None, ngram_order: NgramOrder = None,
        finetune_preset: FinetunePreset = None, finetune_steps: FinetuneSteps = None,
        finetune_batch_size: FinetuneBatch = None, finetune_learning_rate: FinetuneLR = None,
        finetune_eval_every: FinetuneEval = None, finetune_lora_rank: FinetuneLora = None,
        finetune_full: FinetuneFull = False, model: Model = None, template: Template = None, label_word: LabelWord = None, backend: Backend = None,
        start_token: StartToken = None, score_eos: ScoreEos = None, end_token: EndToken = None,
        device: Device = None, dtype: Dtype = None, batch_tokens: BatchTokens = None,
        max_tokens: MaxTokens = None, truncation: Truncation = None, share_prefix: SharePrefix = None,
        cache_dir: CacheDir = None,
        no_cache: NoCache = False, engine: ScoreEngine = None, ray_address: RayAddress = None,
        workers: Workers = None, cpus_per_worker: CpusPerWorker = None, gpus_per_worker: GpusPerWorker = None,
        shard_tokens: ShardTokens = None, splitter: Splitter = None, dev_size: DevSize = None,
        test_size: TestSize = None, rank: Rank = None, reverse: Reverse = None,
        length_buckets: LengthBuckets = None, balance_labels: Balance = None,
        atom_constraint: AtomConstraint = None, length_of: LengthOf = None,
        max_iterations: MaxIterations = None, seed: Seed = None,
        out: OutDir = None, overwrite: Overwrite = False, no_analyze: NoAnalyze = False,
        null_splits: NullSplits = None, analysis_text: AnalysisText = None, syntax: Syntax = None,
        quiet: Quiet = False) -> None:
    """Score every example with a causal LM, then split: the least likely go to dev/test."""
    from tailsplit import pipeline

    opts = {k: v for k, v in locals().items() if k not in ("paths", "config", "quiet", "pipeline")}
    opts["label_words"] = opts.pop("label_word")
    cfg = build_config(config, paths, **opts)
    print_summary(pipeline.run(cfg, progress=not quiet, command=sys.argv))


@app.command(epilog=SCORE_EXAMPLES)
@friendly_errors
def score(paths: Paths = None, out: Annotated[Path, typer.Option("--out", help="Score file to write (Parquet).")] = Path("scores.parquet"),
          config: ConfigOpt = None, text: Text = None, context: Context = None, label: Label = None,
          group: Group = None, id: IdField = None, method: Method = None, folds: Folds = None,
          fold_seed: FoldSeed = None, fold_match: FoldMatch = None, ngram_order: NgramOrder = None,
          finetune_preset: FinetunePreset = None,
          finetune_steps: FinetuneSteps = None, finetune_batch_size: FinetuneBatch = None,
          finetune_learning_rate: FinetuneLR = None, finetune_eval_every: FinetuneEval = None,
          finetune_lora_rank: FinetuneLora = None, finetune_full: FinetuneFull = False,
          model: Model = None, template: Template = None,
          label_word: LabelWord = None, backend: Backend = None, start_token: StartToken = None,
          score_eos: ScoreEos = None, end_token: EndToken = None, device: Device = None,
          dtype: Dtype = None, batch_tokens: BatchTokens = None, max_tokens: MaxTokens = None,
          truncation: Truncation = None, share_prefix: SharePrefix = None,
          cache_dir: CacheDir = None, no_cache: NoCache = False, engine: ScoreEngine = None,
          ray_address: RayAddress = None, workers: Workers = None, cpus_per_worker: CpusPerWorker = None,
          gpus_per_worker: GpusPerWorker = None, shard_tokens: ShardTokens = None,
          overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing score file (never an input).")] = False,
          quiet: Quiet = False) -> None:
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
def split(paths: Paths = None, scores: Annotated[Path | None, typer.Option("--scores", help="Score file from tailsplit score.")] = None,
          config: ConfigOpt = None, text: Text = None, context: Context = None, label: Label = None,
          group: Group = None, id: IdField = None, program: Program = None,
          program_kind: ProgramKind = None, count: Count = None, splitter: Splitter = None, dev_size: DevSize = None,
          test_size: TestSize = None, rank: Rank = None, reverse: Reverse = None,
          length_buckets: LengthBuckets = None, balance_labels: Balance = None,
          atom_constraint: AtomConstraint = None, length_of: LengthOf = None,
          max_iterations: MaxIterations = None, seed: Seed = None,
          out: OutDir = None, overwrite: Overwrite = False, no_analyze: NoAnalyze = False,
          null_splits: NullSplits = None, analysis_text: AnalysisText = None, syntax: Syntax = None) -> None:
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
def analyze(split_dir: Annotated[Path, typer.Argument(help="A folder written by tailsplit run or split.")],
            compare: Annotated[list[Path] | None, typer.Option("--compare", help="Another split of the same examples (repeatable).")] = None,
            null_splits: NullSplits = None, seed: Seed = None, analysis_text: AnalysisText = None,
            syntax: Syntax = None,
            agreement_field: Annotated[str | None, typer.Option("--agreement-field", help="Field holding each example's annotator labels (a list): agreement with the gold label and label entropy, against random splits.")] = None) -> None:
    """Analyse a split against random splits; writes report.html, report.md and analysis.json into it."""
    from tailsplit import pipeline

    analysis, comparisons = pipeline.analyze(split_dir, null_splits=null_splits,
                                             seed=seed or 0, compare=compare, text_kind=analysis_text, syntax=syntax,
                                             agreement_field=agreement_field)
    print_analysis(analysis, comparisons)
    stdout.print(f"wrote {split_dir}/report.html, report.md, analysis.json")


def print_analysis(analysis: Any, comparisons: list[Any]) -> None:
    from rich.table import Table

    from tailsplit.analysis.report import headlines

    for line in headlines(analysis):
        stdout.print("• " + line.replace("**", ""), highlight=False)
    table = Table(title=f"evaluation against {analysis.n_null_splits} random splits")
    for column in ("statistic", "observed", "random mean", "percentile", "z"):
        table.add_column(column, justify="left" if column == "statistic" else "right")
    for c in analysis.null:
        table.add_row(c.name, f"{c.observed:.4g}", f"{c.null_mean:.4g}", f"{c.percentile:.1f}", f"{c.z_score:.2f}")
    stdout.print(table)
    for comparison, _ in comparisons:
        stdout.print(f"vs {comparison.other}: Pearson r {comparison.pearson_r}, Spearman ρ {comparison.spearman_rho}, "
                     f"shared evaluation examples {100 * comparison.eval_shared_share:.1f}%", highlight=False)


OVERLAP_EXAMPLES = """
**Examples**

WSC273 against a text corpus, Winograd predicates as the required phrases, with a model's predictions:

    tailsplit overlap --test wsc273.jsonl.gz --text text --label label --query-kind winograd --corpus wiki.txt.gz --predictions preds.jsonl --out wsc-overlap

SNLI test hypotheses against SNLI dev (both texts) and a sentence corpus, top quarter by BM25 = overlapping:

    tailsplit overlap --test snli/test.jsonl.gz --text hypothesis --label label --corpus snli/dev.jsonl.gz --corpus-field hypothesis --corpus sentences.txt --top-quantile 0.25 --out snli-overlap
"""


@app.command(epilog=OVERLAP_EXAMPLES)
@friendly_errors
def overlap(test: Annotated[list[Path], typer.Option("--test", help="Test file(s) to audit.")],
            corpus: Annotated[list[Path], typer.Option("--corpus", help="Corpus file(s): .txt (one entry per line), .jsonl or .parquet, .gz ok.")],
            text: Text = None, id: IdField = None, label: Label = None,
            corpus_field: Annotated[str, typer.Option("--corpus-field", help="Text field of JSONL/Parquet corpus files.")] = "text",
            index_dir: Annotated[Path | None, typer.Option("--index-dir", help="Where to keep the corpus index [default: the cache].")] = None,
            query_kind: Annotated[str, typer.Option("--query-kind", help="generic or winograd (or a registered extractor).")] = "generic",
            required_field: Annotated[list[str] | None, typer.Option("--required-field", help="Test field whose value must appear in a match (repeatable, in order).")] = None,
            window: Annotated[int, typer.Option("--window", help="Most tokens between required phrases.")] = 10,
            k: Annotated[int, typer.Option("--k", help="Matches kept per test example.")] = 5,
            ngram_orders: Annotated[str, typer.Option("--ngram-orders", help="n-gram sizes, comma-separated.")] = "8,13",
            k1: Annotated[float, typer.Option("--k1", help="BM25 k1.")] = 1.5,
            b: Annotated[float, typer.Option("--b", help="BM25 b.")] = 0.75,
            threshold: Annotated[float | None, typer.Option("--threshold", help="BM25 score from which an example overlaps.")] = None,
            top_quantile: Annotated[float | None, typer.Option("--top-quantile", help="Share of examples, highest BM25 first, that overlap [default: 0.5].")] = None,
            predictions: Annotated[Path | None, typer.Option("--predictions", help="File of (id, prediction): accuracy per subset.")] = None,
            prediction_field: Annotated[str, typer.Option("--prediction-field", help="Prediction field in --predictions.")] = "prediction",
            shards: Annotated[int, typer.Option("--shards", help="Index the corpus in this many shards (map-reduce; same results).")] = 1,
            engine: Annotated[str, typer.Option("--engine", help="Where shards run: local (this process) or ray.")] = "local",
            ray_address: Annotated[str | None, typer.Option("--ray-address", help="Ray cluster to join [default: a running one, else a local one].")] = None,
            seed: Seed = None, out: OutDir = None, overwrite: Overwrite = False) -> None:
    """Audit a test set against training or pre-training text (BM25 + n-grams); split it into overlapping and clean."""
    from tailsplit import pipeline
    from tailsplit.config import OverlapConfig

    try:
        orders = tuple(int(x) for x in ngram_orders.split(",") if x.strip())
    except ValueError:
        raise ConfigError(f"--ngram-orders={ngram_orders!r} is not a comma-separated list of whole numbers; e.g. 8,13") from None
    config = OverlapConfig(test=[str(p) for p in test], text=text or "text", id=id or "id", label=label,
                           corpus=[str(p) for p in corpus], corpus_field=corpus_field,
                           index_dir=None if index_dir is None else str(index_dir), query_kind=query_kind,
                           required_fields=list(required_field or []), window=window, k=k, ngram_orders=orders,
                           k1=k1, b=b, threshold=threshold, top_quantile=top_quantile,
                           predictions=None if predictions is None else str(predictions),
                           prediction_field=prediction_field, shards=shards, engine=engine, ray_address=ray_address,
                           seed=seed or 0, out=None if out is None else str(out), overwrite=overwrite)
    summary = pipeline.audit_overlap(config, command=sys.argv)
    stdout.print(f"{summary['examples']} test examples: {summary['overlap']} overlapping (best BM25 ≥ "
                 f"{summary['threshold']}), {summary['clean']} clean; index of {summary['index']['entries']:,} entries",
                 highlight=False)
    for n, count in summary["ngram_contaminated"].items():
        stdout.print(f"sharing a {n}-gram with the corpus: {count}", highlight=False)
    for a in summary["accuracy"]:
        if a["n"]:
            stdout.print(f"accuracy {a['subset']}: {100 * a['accuracy']:.1f}% (95% CI {100 * a['ci_low']:.1f}–"
                         f"{100 * a['ci_high']:.1f}%, n = {a['n']})", highlight=False)
    if out is not None:
        stdout.print(f"wrote {out}/ (overlap, clean, audit.jsonl, summary.md, manifest.json)")


register_shift_commands(app, friendly_errors, stdout)
register_evaluate_command(app, friendly_errors, stdout)


def main() -> None:
    # OpenMP reads this when torch loads (lazily, later in the command): idle threads sleep
    # instead of spinning, which keeps a 2-core machine responsive during tokenising.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    app()


if __name__ == "__main__":
    main()
