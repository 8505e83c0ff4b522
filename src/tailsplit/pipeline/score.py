"""``tailsplit score``: every example scored (:func:`score`, and :func:`score_data` the command
line calls), and its result: the scores, the scoring report, and the score file they make
(``write``: the bytes the command writes, but for the command it records)."""

from __future__ import annotations

import html
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit._version import __version__
from tailsplit.config import DataConfig, OutputConfig, RunConfig, ScoringConfig
from tailsplit.config.arguments import known_paths, path_argument, switch_argument
from tailsplit.core import Dataset, ScoreTable
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.io.claims import released_on_error
from tailsplit.io.outputs import check_output_file, write_output_file
from tailsplit.io.scores import score_file_bytes
from tailsplit.log import logger
from tailsplit.pipeline.keywords import data_fields, known_keywords, label_words_of, not_for_score, progress_shown
from tailsplit.pipeline.recording import input_records, recorded_command
from tailsplit.pipeline.runs.loading import load_dataset, plan_scoring, score_dataset
from tailsplit.pipeline.runs.steps import changed_options
from tailsplit.render.console import Line, View


@dataclass(frozen=True)
class ScoreResult:
    """The scores of ``dataset`` (``scores``: total log-probability, token count, truncation per
    example), how they were made (``report``: tokens, seconds, cache hits), the score file's
    metadata (``meta``) and, once written, its ``path``."""

    dataset: Dataset
    scores: ScoreTable
    report: dict[str, Any]
    meta: dict[str, Any]
    path: Path | None = None

    def to_pandas(self) -> Any:
        """One row per example: ``id``, ``text``, ``logprob_sum``, ``n_tokens``, ``logprob_mean``, ``truncated``."""
        import pandas as pd

        return pd.DataFrame(
            {
                "id": list(self.dataset.ids),
                "text": list(self.dataset.texts),
                "logprob_sum": self.scores.logprob_sum,
                "n_tokens": self.scores.n_tokens,
                "logprob_mean": self.scores.logprob_mean,
                "truncated": self.scores.truncated,
            }
        )

    @keyword_spelling
    def write(self, out: str | Path, *, overwrite: bool = False) -> ScoreResult:
        """The score file at ``out`` (Parquet, written atomically; an input is never replaced),
        which ``tailsplit split --scores`` and ``split(..., scores=)`` read."""
        out = path_argument("out", out, "a score file to write")
        overwrite = bool(switch_argument("overwrite", overwrite))
        check_score_path(out, overwrite=overwrite, inputs=self.dataset.input_paths)
        data = score_file_bytes(self.dataset, self.scores, self.meta)
        path = write_output_file(out, data, overwrite=overwrite, inputs=self.dataset.input_paths)
        return replace(self, path=path)

    def __repr__(self) -> str:
        where = f", path={str(self.path)!r}" if self.path is not None else ""
        return f"ScoreResult(n={len(self.scores)}, model={self.model_name!r}{where})"

    @property
    def model_name(self) -> str:
        model = self.meta.get("model")
        return str(model.get("name", "?")) if isinstance(model, dict) else str(model or "?")

    def console(self) -> View:
        """What ``tailsplit score`` prints: how many examples were scored, in how long, and where."""
        cached = f" ({self.report['n_cached']} cached)" if "n_cached" in self.report else ""
        wrote = "" if self.path is None else f"; wrote {self.path}"
        lines: View = [
            Line(f"scored {self.report['n_requests']} examples{cached} in {self.report['seconds']:.1f} s{wrote}")
        ]
        membership = self.meta.get("membership")
        if membership:
            lines += membership_lines(membership)
        return lines

    def _repr_html_(self) -> str:
        sums = self.scores.logprob_sum
        return (
            f"<p><b>tailsplit scores</b>: {len(self.scores):,} examples by {html.escape(self.model_name)}; "
            f"logprob_sum from {sums.min():.2f} to {sums.max():.2f} (median {np.median(sums):.2f})"
            + (f"; written to <code>{html.escape(str(self.path))}</code>" if self.path is not None else "")
            + "</p>"
        )


def membership_lines(membership: Mapping[str, Any]) -> View:
    """The membership scores said with their power: the calibration table on the known members
    and non-members when given, else that no verdict is drawn and where power was measured."""
    columns = f"membership scores at K = {membership['k_percent']:g}% ({', '.join(membership['columns'])})"
    calibration = membership.get("calibration")
    if not calibration:
        return [
            Line(
                f"{columns}: no verdict is drawn from them — give --members and --non-members for their power "
                "on this model (on the Overlap guide's page: near chance, or not, by how hard it memorised)"
            )
        ]
    lines: View = [Line(f"{columns}, on the known members against the known non-members (95% bootstrap intervals):")]
    for name, row in calibration["scores"].items():
        a, t = row["auc"], row["tpr_at_5pct_fpr"]
        lines.append(
            Line(
                f"  {name}: AUC {a['value']:.3f} [{a['ci95'][0]:.3f}, {a['ci95'][1]:.3f}], TPR at 5% FPR "
                f"{t['value']:.3f} [{t['ci95'][0]:.3f}, {t['ci95'][1]:.3f}] ({row['members']} members, "
                f"{row['non_members']} non-members)"
            )
        )
    return lines


@released_on_error
def check_score_path(out: str | Path, *, overwrite: bool, inputs: Any, caches: Any = ()) -> Path:
    """``out`` as a score file may be written: not an input, not a folder, a ``.parquet`` name
    (a refused name gives back the claim it took)."""
    path = check_output_file(out, overwrite=overwrite, inputs=inputs, caches=caches)
    if Path(out).suffix.lower() != ".parquet":
        raise ConfigError(
            f"--out={str(out)!r} names a {Path(out).suffix or 'suffix-less'} file, but a score file "
            f"is Parquet; name it {Path(out).stem + '.parquet'!r}"
        )
    return path


@released_on_error
@keyword_spelling
def score_data(
    config: RunConfig, *, out_path: str | Path | None = None, progress: bool = False, command: list[str] | None = None
) -> ScoreResult:
    """``tailsplit score``: every example of the data scored; with ``out_path``, the score file
    written (atomically; checked before any model loads). ``config.output.overwrite`` allows
    replacing an existing file; an input never is."""
    started = time.perf_counter()
    dataset = load_dataset(config)
    logger.debug(
        "read %d examples in %.2f s; options: %s", len(dataset), time.perf_counter() - started, changed_options(config)
    )
    caches = [config.scoring.cache_dir] if config.scoring.cache_dir else []
    if out_path is not None:
        check_score_path(out_path, overwrite=config.output.overwrite, inputs=dataset.input_paths, caches=caches)
    plan = plan_scoring(dataset, config.scoring)
    scores, report, meta = score_dataset(dataset, config.scoring, progress=progress, plan=plan)
    meta = {
        **meta,
        "tailsplit_version": __version__,
        "command": recorded_command(command),
        "inputs": input_records(dataset),
        "config": config.as_dict(),
        "scoring": report,
    }
    result = ScoreResult(dataset, scores, report, meta)
    return result if out_path is None else result.write(out_path, overwrite=config.output.overwrite)


# fmt: off
@known_keywords(not_for_score)
def score(
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
    shard_tokens: int = 2000000,
    out: str | os.PathLike[str] | None = None, overwrite: bool = False, progress: bool | None = None,
) -> ScoreResult:
    """Score every example's query with a causal LM (the bundled SmolLM2 unless ``model=``), or
    cross-fitted (``method="kfold"`` or ``"ngram"``): ``tailsplit score``. With ``out``, the
    score file is written there (Parquet), as the command writes it; ``result.write(out)``
    writes it later.

    >>> scores = score("snli.jsonl", text="hypothesis", context="premise", template="snli")  # doctest: +SKIP
    >>> scores.to_pandas().sort_values("logprob_sum").head()  # doctest: +SKIP
    """
    shown = progress_shown(progress)
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
        output=OutputConfig(overwrite=switch_argument("overwrite", overwrite) or False),
    )
    out = None if out is None else path_argument("out", out, "a score file to write")
    return score_data(config, out_path=out, progress=shown)
# fmt: on
