"""``tailsplit run`` and ``tailsplit split`` as Python calls: each keyword a field of
:class:`~tailsplit.DataConfig`, :class:`~tailsplit.ScoringConfig`, :class:`~tailsplit.SplitConfig`
or :class:`~tailsplit.OutputConfig` (their names are unique across the four), built into the
run's config here and checked as the command line's options are.

``data`` is a path, a list of paths, or a table in memory (a pandas DataFrame, a pyarrow
Table, a ``datasets`` Dataset or DatasetDict, or a list of dicts). Nothing is written unless
``out`` is given; the analysis against random splits is computed in memory when
``analyze=True`` is passed (with ``out`` it is on by default, as on the command line). The
progress bar shows when a person is watching (a terminal, or a notebook); ``progress=False``
turns it off. ``tests/pipeline/test_public_functions.py`` holds each signature to the
declarations: a parameter's name, type and default are its field's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from tailsplit.config import DataConfig, OutputConfig, RunConfig, ScoringConfig, SplitConfig
from tailsplit.config.arguments import known_paths, path_argument, switch_argument
from tailsplit.pipeline.keywords import (
    data_fields,
    known_keywords,
    label_words_of,
    not_for_likelihood,
    not_for_split,
    progress_shown,
    splitter_options,
)
from tailsplit.pipeline.runs.result import RunResult
from tailsplit.pipeline.runs.steps import run
from tailsplit.splits import Splitter


# fmt: off
@known_keywords(not_for_likelihood)
def likelihood_split(
    data: Any,
    *,
    text: str = "text", context: str | None = None, label: str | None = None, group: str | None = None,
    id: str = "id", program: str | None = None, program_kind: str = "sql", count: str = "examples",  # noqa: A002
    score_column: str | None = None, model_name: str | None = None,
    method: str = "prompted", folds: int = 3, fold_seed: int = 0, fold_match: str = "exact", ngram_order: int = 3,
    finetune_preset: str | None = None, finetune_steps: int | None = None, finetune_batch_size: int | None = None,
    finetune_learning_rate: float | None = None, finetune_eval_every: int | None = None,
    finetune_lora_rank: int | None = None, finetune_full: bool = False, backend: str = "hf", model: str = "smollm2",
    template: str = "plain", label_words: Mapping[str, str] | None = None, device: str = "auto",
    dtype: str = "float32", batch_tokens: int | None = None, max_batch_size: int | None = None,
    start_token: str = "bos", score_eos: bool = False, end_token: str = "eos", max_tokens: int | None = None,
    truncation: str = "left", share_prefix: str = "auto", implementation: str = "auto", torch_compile: bool = False,
    fused: bool = False, attention: str = "dense", planner: str = "inline",
    cache_dir: str | os.PathLike[str] | None = None, use_cache: bool = True, token_scores: bool = False,
    membership_k: float | None = None, membership_reference: str | None = None,
    members: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = (),
    non_members: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = (), engine: str = "local",
    ray_address: str | None = None, workers: int = 1, cpus_per_worker: float = 1.0, gpus_per_worker: float = 0.0,
    shard_tokens: int = 2000000, dev_size: float | int = 0.1, test_size: float | int = 0.1, rank: str = "logprob_sum",
    reverse: bool = False, length_buckets: int | str | None = None, balance_labels: bool = False,
    label_quota: str = "proportional", label_tolerance: float = 0.02, atom_constraint: bool = False, seed: int = 0,
    out: str | os.PathLike[str] | None = None, overwrite: bool = False, analyze: bool | None = None,
    null_splits: int = 500, analysis_text: str = "query", syntax: bool = True, format: str | None = None,  # noqa: A002
    progress: bool | None = None,
) -> RunResult:
    """Score every example with a causal LM (the bundled SmolLM2 unless ``model=``), then put
    the least likely into dev and test: ``tailsplit run``.

    >>> result = likelihood_split("snli.jsonl", text="hypothesis", context="premise",
    ...                           label="label", template="snli")  # doctest: +SKIP
    >>> result.to_pandas().part.value_counts()  # doctest: +SKIP
    """
    config = RunConfig(
        data=DataConfig(**data_fields(data), text=text, context=context, label=label, group=group, id=id,
                        program=program, program_kind=program_kind, count=count, score_column=score_column,
                        model_name=model_name),
        scoring=ScoringConfig(
            method=method, folds=folds, fold_seed=fold_seed, fold_match=fold_match, ngram_order=ngram_order,
            finetune_preset=finetune_preset, finetune_steps=finetune_steps, finetune_batch_size=finetune_batch_size,
            finetune_learning_rate=finetune_learning_rate, finetune_eval_every=finetune_eval_every,
            finetune_lora_rank=finetune_lora_rank, finetune_full=finetune_full, backend=backend, model=model,
            template=template, label_words=label_words_of(label_words), device=device, dtype=dtype,
            batch_tokens=batch_tokens, max_batch_size=max_batch_size, start_token=start_token, score_eos=score_eos,
            end_token=end_token, max_tokens=max_tokens, truncation=truncation, share_prefix=share_prefix,
            implementation=implementation, torch_compile=torch_compile, fused=fused, attention=attention,
            planner=planner, cache_dir=cache_dir, use_cache=use_cache, token_scores=token_scores,  # type: ignore[arg-type]  # kept in its declared form when built
            membership_k=membership_k, membership_reference=membership_reference,
            members=known_paths("members", members), non_members=known_paths("non_members", non_members),
            engine=engine, ray_address=ray_address, workers=workers, cpus_per_worker=cpus_per_worker,
            gpus_per_worker=gpus_per_worker, shard_tokens=shard_tokens),
        split=SplitConfig(splitter="likelihood", dev_size=dev_size, test_size=test_size, rank=rank, reverse=reverse,
                          length_buckets=length_buckets, balance_labels=balance_labels, label_quota=label_quota,
                          label_tolerance=label_tolerance, atom_constraint=atom_constraint, seed=seed),
        output=OutputConfig(out=out, overwrite=overwrite, analyze=switch_argument("analyze", analyze) is not False,  # type: ignore[arg-type]  # kept in its declared form when built
                            null_splits=null_splits, analysis_text=analysis_text, syntax=syntax, format=format),
    )
    in_memory = analyze is True and config.output.out is None
    return run(config, progress=progress_shown(progress), analyze_in_memory=in_memory)


@known_keywords(not_for_split)
def split(
    data: Any,
    splitter: str | Splitter = "random",
    *,
    text: str = "text", context: str | None = None, label: str | None = None, group: str | None = None,
    id: str = "id", program: str | None = None, program_kind: str = "sql", count: str = "examples",  # noqa: A002
    score_column: str | None = None, model_name: str | None = None,
    dev_size: float | int = 0.1, test_size: float | int = 0.1, rank: str = "logprob_sum", reverse: bool = False,
    length_buckets: int | str | None = None, balance_labels: bool = False, label_quota: str = "proportional",
    label_tolerance: float = 0.02, atom_constraint: bool = False, length_of: str = "text",
    max_iterations: int | None = None, partitions: int = 64, train_share: float = 0.5,
    removals_per_round: float | int = 0.05, predictability_threshold: float = 0.75, rounds: int | None = None,
    encoder: str | None = None, seed: int = 0,
    out: str | os.PathLike[str] | None = None, overwrite: bool = False, analyze: bool | None = None,
    null_splits: int = 500, analysis_text: str = "query", syntax: bool = True, format: str | None = None,  # noqa: A002
    scores: str | os.PathLike[str] | None = None, progress: bool | None = None,
) -> RunResult:
    """Split without scoring: ``tailsplit split``. ``splitter`` is a splitter object — the
    typed path, its parameters on it, as scikit-learn's splitters carry theirs — or the name of
    one (``random``, ``length``, ``template``, ``tmcd``, ``aflite`` or ``likelihood``) with its
    parameters as keywords (a parameter the splitter does not take is refused). A likelihood
    split reads its scores from ``scores`` (a file of ``tailsplit score``) or ``score_column=``.

    >>> result = split("snli.jsonl", RandomSplitter(seed=3), text="hypothesis", label="label")  # doctest: +SKIP
    >>> result = split("snli.jsonl", "random", text="hypothesis", label="label", seed=3)  # doctest: +SKIP
    """
    split_config = SplitConfig(
        dev_size=dev_size, test_size=test_size, rank=rank, reverse=reverse, length_buckets=length_buckets,
        balance_labels=balance_labels, label_quota=label_quota, label_tolerance=label_tolerance,
        atom_constraint=atom_constraint, length_of=length_of, max_iterations=max_iterations, partitions=partitions,
        train_share=train_share, removals_per_round=removals_per_round,
        predictability_threshold=predictability_threshold, rounds=rounds, encoder=encoder, seed=seed)
    config = RunConfig(
        data=DataConfig(**data_fields(data), text=text, context=context, label=label, group=group, id=id,
                        program=program, program_kind=program_kind, count=count, score_column=score_column,
                        model_name=model_name),
        split=splitter_options(splitter, split_config),
        output=OutputConfig(out=out, overwrite=overwrite, analyze=switch_argument("analyze", analyze) is not False,  # type: ignore[arg-type]  # kept in its declared form when built
                            null_splits=null_splits, analysis_text=analysis_text, syntax=syntax, format=format),
    )
    return run(
        config,
        scores_path=None if scores is None else path_argument("scores", scores, "a score file"),
        progress=progress_shown(progress),
        score_missing=False,
        analyze_in_memory=analyze is True and config.output.out is None,
    )
# fmt: on
