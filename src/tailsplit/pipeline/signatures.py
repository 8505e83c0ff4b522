"""Every command as one Python function with an explicit signature: each option a keyword
parameter with its type and the command line's default, so ``help()``, a notebook's completion
and a type checker see them. Generated from the config declarations by ``tests/pipeline/test_signatures.py``
(``TAILSPLIT_UPDATE_SNAPSHOTS=1 pytest tests/pipeline/test_signatures.py`` rewrites it; the test fails
when it is out of date). Each function passes the options given — those not left at their
default — to the command's own call (in :mod:`.calls`, :mod:`.overlap`, :mod:`.shift`, ...), which checks
them as the command line's; an unknown keyword is refused naming the nearest ones (:mod:`.keywords`).
"""

# fmt: off
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from tailsplit.pipeline.analyze import AnalysisResult
from tailsplit.pipeline.analyze import analyze as _analyze
from tailsplit.pipeline.correlate import CorrelateResult
from tailsplit.pipeline.correlate import correlate as _correlate
from tailsplit.pipeline.curve import CurveResult
from tailsplit.pipeline.curve import curve as _curve
from tailsplit.pipeline.evaluate import EvaluationResult
from tailsplit.pipeline.evaluate import evaluate as _evaluate
from tailsplit.pipeline.export_hf import HfExportResult
from tailsplit.pipeline.export_hf import export_hf as _export_hf
from tailsplit.pipeline.export_lm_eval import LmEvalExportResult
from tailsplit.pipeline.export_lm_eval import export_lm_eval as _export_lm_eval
from tailsplit.pipeline.export_weights import WeightsExportResult
from tailsplit.pipeline.export_weights import export_weights as _export_weights
from tailsplit.pipeline.keywords import changed as _changed
from tailsplit.pipeline.keywords import defaults_of as _defaults
from tailsplit.pipeline.keywords import known_keywords as _known_keywords
from tailsplit.pipeline.ood_rank import OodRankResult
from tailsplit.pipeline.ood_rank import ood_rank as _ood_rank
from tailsplit.pipeline.overlap import OverlapResult
from tailsplit.pipeline.overlap import audit_overlap as _audit_overlap
from tailsplit.pipeline.result import RunResult
from tailsplit.pipeline.score import ScoreResult
from tailsplit.pipeline.score import score as _score
from tailsplit.pipeline.similarity import SimilarityResult
from tailsplit.pipeline.similarity import similarity as _similarity
from tailsplit.pipeline.split import likelihood_split as _likelihood_split
from tailsplit.pipeline.split import split as _split
from tailsplit.splits import Splitter

_DEFAULTS: dict[str, dict[str, Any]] = {}

@_known_keywords(_likelihood_split)
def likelihood_split(
    data: Any,
    *,
    text: str = 'text', context: str | None = None, label: str | None = None, group: str | None = None,
    id: str = 'id', program: str | None = None, program_kind: str = 'sql', count: str = 'examples',
    score_column: str | None = None, model_name: str | None = None, method: str = 'prompted', folds: int = 3,
    fold_seed: int = 0, fold_match: str = 'exact', ngram_order: int = 3, finetune_preset: str | None = None,
    finetune_steps: int | None = None, finetune_batch_size: int | None = None,
    finetune_learning_rate: float | None = None, finetune_eval_every: int | None = None,
    finetune_lora_rank: int | None = None, finetune_full: bool = False, backend: str = 'hf', model: str = 'smollm2',
    template: str = 'plain', label_words: Mapping[str, str] | None = None, device: str = 'auto',
    dtype: str = 'float32', batch_tokens: int | None = None, max_batch_size: int | None = None,
    start_token: str = 'bos', score_eos: bool = False, end_token: str = 'eos', max_tokens: int | None = None,
    truncation: str = 'left', share_prefix: str = 'auto', implementation: str = 'auto', torch_compile: bool = False,
    fused: bool = False, attention: str = 'dense', planner: str = 'inline',
    cache_dir: str | os.PathLike[str] | None = None, use_cache: bool = True, engine: str = 'local',
    ray_address: str | None = None, workers: int = 1, cpus_per_worker: float = 1.0, gpus_per_worker: float = 0.0,
    shard_tokens: int = 2000000, dev_size: float | int = 0.1, test_size: float | int = 0.1,
    rank: str = 'logprob_sum', reverse: bool = False, length_buckets: int | str | None = None,
    balance_labels: bool = False, label_quota: str = 'proportional', label_tolerance: float = 0.02,
    atom_constraint: bool = False, length_of: str = 'text', max_iterations: int | None = None, partitions: int = 64,
    train_share: float = 0.5, removals_per_round: float | int = 0.05, predictability_threshold: float = 0.75,
    rounds: int | None = None, encoder: str | None = None, seed: int = 0, out: str | os.PathLike[str] | None = None,
    overwrite: bool = False, analyze: bool | None = None, null_splits: int = 500, analysis_text: str = 'query',
    syntax: bool = True, format: str | None = None, progress: bool | None = None,
) -> RunResult:
    given = _changed(locals(), _DEFAULTS['likelihood_split'])
    return _likelihood_split(data, progress=progress, **given)


likelihood_split.__doc__ = _likelihood_split.__doc__  # type: ignore[attr-defined]
_DEFAULTS['likelihood_split'] = _defaults(likelihood_split, ['analysis_text', 'analyze', 'atom_constraint', 'attention', 'backend', 'balance_labels', 'batch_tokens', 'cache_dir', 'context', 'count', 'cpus_per_worker', 'dev_size', 'device', 'dtype', 'encoder', 'end_token', 'engine', 'finetune_batch_size', 'finetune_eval_every', 'finetune_full', 'finetune_learning_rate', 'finetune_lora_rank', 'finetune_preset', 'finetune_steps', 'fold_match', 'fold_seed', 'folds', 'format', 'fused', 'gpus_per_worker', 'group', 'id', 'implementation', 'label', 'label_quota', 'label_tolerance', 'label_words', 'length_buckets', 'length_of', 'max_batch_size', 'max_iterations', 'max_tokens', 'method', 'model', 'model_name', 'ngram_order', 'null_splits', 'out', 'overwrite', 'partitions', 'planner', 'predictability_threshold', 'program', 'program_kind', 'rank', 'ray_address', 'removals_per_round', 'reverse', 'rounds', 'score_column', 'score_eos', 'seed', 'shard_tokens', 'share_prefix', 'start_token', 'syntax', 'template', 'test_size', 'text', 'torch_compile', 'train_share', 'truncation', 'use_cache', 'workers'])

@_known_keywords(_split)
def split(
    data: Any, splitter: str | Splitter = "random",
    *,
    text: str = 'text', context: str | None = None, label: str | None = None, group: str | None = None,
    id: str = 'id', program: str | None = None, program_kind: str = 'sql', count: str = 'examples',
    score_column: str | None = None, model_name: str | None = None, method: str = 'prompted', folds: int = 3,
    fold_seed: int = 0, fold_match: str = 'exact', ngram_order: int = 3, finetune_preset: str | None = None,
    finetune_steps: int | None = None, finetune_batch_size: int | None = None,
    finetune_learning_rate: float | None = None, finetune_eval_every: int | None = None,
    finetune_lora_rank: int | None = None, finetune_full: bool = False, backend: str = 'hf', model: str = 'smollm2',
    template: str = 'plain', label_words: Mapping[str, str] | None = None, device: str = 'auto',
    dtype: str = 'float32', batch_tokens: int | None = None, max_batch_size: int | None = None,
    start_token: str = 'bos', score_eos: bool = False, end_token: str = 'eos', max_tokens: int | None = None,
    truncation: str = 'left', share_prefix: str = 'auto', implementation: str = 'auto', torch_compile: bool = False,
    fused: bool = False, attention: str = 'dense', planner: str = 'inline',
    cache_dir: str | os.PathLike[str] | None = None, use_cache: bool = True, engine: str = 'local',
    ray_address: str | None = None, workers: int = 1, cpus_per_worker: float = 1.0, gpus_per_worker: float = 0.0,
    shard_tokens: int = 2000000, dev_size: float | int = 0.1, test_size: float | int = 0.1,
    rank: str = 'logprob_sum', reverse: bool = False, length_buckets: int | str | None = None,
    balance_labels: bool = False, label_quota: str = 'proportional', label_tolerance: float = 0.02,
    atom_constraint: bool = False, length_of: str = 'text', max_iterations: int | None = None, partitions: int = 64,
    train_share: float = 0.5, removals_per_round: float | int = 0.05, predictability_threshold: float = 0.75,
    rounds: int | None = None, encoder: str | None = None, seed: int = 0, out: str | os.PathLike[str] | None = None,
    overwrite: bool = False, analyze: bool | None = None, null_splits: int = 500, analysis_text: str = 'query',
    syntax: bool = True, format: str | None = None, scores: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
) -> RunResult:
    given = _changed(locals(), _DEFAULTS['split'])
    return _split(data, splitter, scores=scores, progress=progress, **given)


split.__doc__ = _split.__doc__  # type: ignore[attr-defined]
_DEFAULTS['split'] = _defaults(split, ['analysis_text', 'analyze', 'atom_constraint', 'attention', 'backend', 'balance_labels', 'batch_tokens', 'cache_dir', 'context', 'count', 'cpus_per_worker', 'dev_size', 'device', 'dtype', 'encoder', 'end_token', 'engine', 'finetune_batch_size', 'finetune_eval_every', 'finetune_full', 'finetune_learning_rate', 'finetune_lora_rank', 'finetune_preset', 'finetune_steps', 'fold_match', 'fold_seed', 'folds', 'format', 'fused', 'gpus_per_worker', 'group', 'id', 'implementation', 'label', 'label_quota', 'label_tolerance', 'label_words', 'length_buckets', 'length_of', 'max_batch_size', 'max_iterations', 'max_tokens', 'method', 'model', 'model_name', 'ngram_order', 'null_splits', 'out', 'overwrite', 'partitions', 'planner', 'predictability_threshold', 'program', 'program_kind', 'rank', 'ray_address', 'removals_per_round', 'reverse', 'rounds', 'score_column', 'score_eos', 'seed', 'shard_tokens', 'share_prefix', 'start_token', 'syntax', 'template', 'test_size', 'text', 'torch_compile', 'train_share', 'truncation', 'use_cache', 'workers'])

@_known_keywords(_score)
def score(
    data: Any,
    *,
    text: str = 'text', context: str | None = None, label: str | None = None, group: str | None = None,
    id: str = 'id', program: str | None = None, program_kind: str = 'sql', count: str = 'examples',
    score_column: str | None = None, model_name: str | None = None, method: str = 'prompted', folds: int = 3,
    fold_seed: int = 0, fold_match: str = 'exact', ngram_order: int = 3, finetune_preset: str | None = None,
    finetune_steps: int | None = None, finetune_batch_size: int | None = None,
    finetune_learning_rate: float | None = None, finetune_eval_every: int | None = None,
    finetune_lora_rank: int | None = None, finetune_full: bool = False, backend: str = 'hf', model: str = 'smollm2',
    template: str = 'plain', label_words: Mapping[str, str] | None = None, device: str = 'auto',
    dtype: str = 'float32', batch_tokens: int | None = None, max_batch_size: int | None = None,
    start_token: str = 'bos', score_eos: bool = False, end_token: str = 'eos', max_tokens: int | None = None,
    truncation: str = 'left', share_prefix: str = 'auto', implementation: str = 'auto', torch_compile: bool = False,
    fused: bool = False, attention: str = 'dense', planner: str = 'inline',
    cache_dir: str | os.PathLike[str] | None = None, use_cache: bool = True, engine: str = 'local',
    ray_address: str | None = None, workers: int = 1, cpus_per_worker: float = 1.0, gpus_per_worker: float = 0.0,
    shard_tokens: int = 2000000, out: str | os.PathLike[str] | None = None, overwrite: bool = False,
    progress: bool | None = None,
) -> ScoreResult:
    given = _changed(locals(), _DEFAULTS['score'])
    return _score(data, out=out, overwrite=overwrite, progress=progress, **given)


score.__doc__ = _score.__doc__  # type: ignore[attr-defined]
_DEFAULTS['score'] = _defaults(score, ['attention', 'backend', 'batch_tokens', 'cache_dir', 'context', 'count', 'cpus_per_worker', 'device', 'dtype', 'end_token', 'engine', 'finetune_batch_size', 'finetune_eval_every', 'finetune_full', 'finetune_learning_rate', 'finetune_lora_rank', 'finetune_preset', 'finetune_steps', 'fold_match', 'fold_seed', 'folds', 'fused', 'gpus_per_worker', 'group', 'id', 'implementation', 'label', 'label_words', 'max_batch_size', 'max_tokens', 'method', 'model', 'model_name', 'ngram_order', 'planner', 'program', 'program_kind', 'ray_address', 'score_column', 'score_eos', 'shard_tokens', 'share_prefix', 'start_token', 'template', 'text', 'torch_compile', 'truncation', 'use_cache', 'workers'])

@_known_keywords()
def analyze(
    split: Any,
    *,
    null_splits: int | None = None, seed: int = 0, analysis_text: str | None = None, syntax: bool | None = None,
    agreement_field: str | None = None, accept_modified: bool = False, compare: Any = (),
) -> AnalysisResult:
    given = _changed(locals(), _DEFAULTS['analyze'])
    return _analyze(split, compare=compare, **given)


analyze.__doc__ = _analyze.__doc__  # type: ignore[attr-defined]
_DEFAULTS['analyze'] = _defaults(analyze, ['accept_modified', 'agreement_field', 'analysis_text', 'null_splits', 'seed', 'syntax'])

@_known_keywords()
def evaluate(
    splits: Any,
    *,
    baselines: str | Sequence[str] = (), input_fields: str | Sequence[str] = (),
    predictions: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = (), bucket: str | None = None,
    zero_shot: bool = False, zero_shot_template: str | None = None, encoder: str | None = None,
    max_steps: int = 800, max_train: int | None = None, device: str = 'auto', leakage_threshold: float = 0.05,
    agreement_field: str | None = None, fairness_margin: float = 0.02, accept_modified: bool = False, seed: int = 0,
    out: str | os.PathLike[str] | None = None, overwrite: bool = False,
) -> EvaluationResult:
    given = _changed(locals(), _DEFAULTS['evaluate'])
    return _evaluate(splits, **given)


evaluate.__doc__ = _evaluate.__doc__  # type: ignore[attr-defined]
_DEFAULTS['evaluate'] = _defaults(evaluate, ['accept_modified', 'agreement_field', 'baselines', 'bucket', 'device', 'encoder', 'fairness_margin', 'input_fields', 'leakage_threshold', 'max_steps', 'max_train', 'out', 'overwrite', 'predictions', 'seed', 'zero_shot', 'zero_shot_template'])

@_known_keywords()
def audit_overlap(
    test: Any,
    *,
    text: str = 'text', id: str = 'id', label: str | None = None,
    corpus: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = (), corpus_field: str = 'text',
    index_dir: str | os.PathLike[str] | None = None, query_kind: str = 'generic',
    required_fields: str | Sequence[str] = (), window: int = 10, k: int = 5,
    ngram_orders: int | Sequence[int] = (8, 13), k1: float = 1.5, b: float = 0.75, threshold: float | None = None,
    top_quantile: float | None = None, predictions: str | os.PathLike[str] | None = None,
    prediction_field: str = 'prediction', shards: int = 1, engine: str = 'local', ray_address: str | None = None,
    seed: int = 0, out: str | os.PathLike[str] | None = None, overwrite: bool = False, progress: bool | None = None,
) -> OverlapResult:
    given = _changed(locals(), _DEFAULTS['audit_overlap'])
    return _audit_overlap(test, progress=progress, **given)


audit_overlap.__doc__ = _audit_overlap.__doc__  # type: ignore[attr-defined]
_DEFAULTS['audit_overlap'] = _defaults(audit_overlap, ['b', 'corpus', 'corpus_field', 'engine', 'id', 'index_dir', 'k', 'k1', 'label', 'ngram_orders', 'out', 'overwrite', 'prediction_field', 'predictions', 'query_kind', 'ray_address', 'required_fields', 'seed', 'shards', 'text', 'threshold', 'top_quantile', 'window'])

@_known_keywords()
def similarity(
    datasets: Any,
    *,
    splits: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = (), encoder: str | None = None,
    batch_size: int = 64, max_examples: int | None = None, mmd_sample: int = 1000, permutations: int = 200,
    seed: int = 0, out: str | os.PathLike[str] | None = None, overwrite: bool = False,
) -> SimilarityResult:
    given = _changed(locals(), _DEFAULTS['similarity'])
    return _similarity(datasets, **given)


similarity.__doc__ = _similarity.__doc__  # type: ignore[attr-defined]
_DEFAULTS['similarity'] = _defaults(similarity, ['batch_size', 'encoder', 'max_examples', 'mmd_sample', 'out', 'overwrite', 'permutations', 'seed', 'splits'])

@_known_keywords()
def ood_rank(
    id: Any, candidates: Any,
    *,
    task: str = 'classification', id_accuracy: float | None = None, max_similarity: float | None = None,
    min_drop: float = 0.0, min_id_metric: float = 0.1, encoder: str | None = None, batch_size: int = 64,
    max_examples: int | None = None, skip_training: bool = False, label_field: str = 'label',
    label_map: str | Sequence[str] = (), id_test_size: float = 0.2, id_dev_size: float = 0.1,
    id_group: str | None = None, task_encoder: str | None = None, max_steps: int = 800,
    max_train: int | None = None, device: str = 'auto', seed: int = 0, out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
) -> OodRankResult:
    given = _changed(locals(), _DEFAULTS['ood_rank'])
    return _ood_rank(id, candidates, **given)


ood_rank.__doc__ = _ood_rank.__doc__  # type: ignore[attr-defined]
_DEFAULTS['ood_rank'] = _defaults(ood_rank, ['batch_size', 'device', 'encoder', 'id_accuracy', 'id_dev_size', 'id_group', 'id_test_size', 'label_field', 'label_map', 'max_examples', 'max_similarity', 'max_steps', 'max_train', 'min_drop', 'min_id_metric', 'out', 'overwrite', 'seed', 'skip_training', 'task', 'task_encoder'])

@_known_keywords()
def correlate(
    points: Any,
    *,
    group: str | None = None, out: str | os.PathLike[str] | None = None, overwrite: bool = False,
) -> CorrelateResult:
    given = _changed(locals(), _DEFAULTS['correlate'])
    return _correlate(points, **given)


correlate.__doc__ = _correlate.__doc__  # type: ignore[attr-defined]
_DEFAULTS['correlate'] = _defaults(correlate, ['group', 'out', 'overwrite'])

@_known_keywords()
def curve(
    id: Any, ood: Any,
    *,
    task: str = 'classification', label_field: str = 'label', label_map: str | Sequence[str] = (),
    id_test_size: float = 0.2, id_dev_size: float = 0.1, id_group: str | None = None,
    encoders: str | Sequence[str] = (), train_sizes: int | Sequence[int] = (),
    trainable_layers: int | Sequence[int] = (), max_steps: int = 800, checkpoint_every: int = 100,
    max_examples: int | None = None, device: str = 'auto', seed: int = 0, out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
) -> CurveResult:
    given = _changed(locals(), _DEFAULTS['curve'])
    return _curve(id, ood, **given)


curve.__doc__ = _curve.__doc__  # type: ignore[attr-defined]
_DEFAULTS['curve'] = _defaults(curve, ['checkpoint_every', 'device', 'encoders', 'id_dev_size', 'id_group', 'id_test_size', 'label_field', 'label_map', 'max_examples', 'max_steps', 'out', 'overwrite', 'seed', 'task', 'train_sizes', 'trainable_layers'])

@_known_keywords()
def export_hf(
    split: Any, out: Any,
    *,
    license: str | None = None, citation_file: str | os.PathLike[str] | None = None, push_to_hub: str | None = None,
    class_labels: str | None = None, task_category: str | None = None, language: str | None = None,
    overwrite: bool = False, accept_modified: bool = False,
) -> HfExportResult:
    given = _changed(locals(), _DEFAULTS['export_hf'])
    return _export_hf(split, out, **given)


export_hf.__doc__ = _export_hf.__doc__  # type: ignore[attr-defined]
_DEFAULTS['export_hf'] = _defaults(export_hf, ['accept_modified', 'citation_file', 'class_labels', 'language', 'license', 'overwrite', 'push_to_hub', 'task_category'])

@_known_keywords()
def export_lm_eval(
    split: Any, out: Any,
    *,
    task_name: str | None = None, template: str | None = None, dataset_path: str | None = None,
    overwrite: bool = False, accept_modified: bool = False,
) -> LmEvalExportResult:
    given = _changed(locals(), _DEFAULTS['export_lm_eval'])
    return _export_lm_eval(split, out, accept_modified=accept_modified, **given)


export_lm_eval.__doc__ = _export_lm_eval.__doc__  # type: ignore[attr-defined]
_DEFAULTS['export_lm_eval'] = _defaults(export_lm_eval, ['dataset_path', 'overwrite', 'task_name', 'template'])

@_known_keywords()
def export_weights(
    out: Any,
    *,
    model: str = 'smollm2', overwrite: bool = False,
) -> WeightsExportResult:
    given = _changed(locals(), _DEFAULTS['export_weights'])
    return _export_weights(out, **given)


export_weights.__doc__ = _export_weights.__doc__  # type: ignore[attr-defined]
_DEFAULTS['export_weights'] = _defaults(export_weights, ['model', 'overwrite'])
# fmt: on
