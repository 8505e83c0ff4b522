"""``tailsplit score``: every example scored (:func:`score`, and :func:`score_data` the command
line calls), and its result: the scores, the scoring report, and the score file they make
(``write``: the bytes the command writes, but for the command it records)."""

from __future__ import annotations

import html
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit._version import __version__
from tailsplit.config import RunConfig
from tailsplit.config.arguments import path_argument, switch_argument
from tailsplit.core import Dataset, ScoreTable
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.io.claims import released_on_error
from tailsplit.io.outputs import check_output_file, write_output_file
from tailsplit.io.scores import score_file_bytes
from tailsplit.log import logger
from tailsplit.pipeline.manifest import input_records, recorded_command
from tailsplit.pipeline.runs import changed_options
from tailsplit.pipeline.scoring import load_dataset, plan_scoring, score_dataset
from tailsplit.pipeline.split import SECTION_OF, run_config
from tailsplit.progress import watched
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
        return [Line(f"scored {self.report['n_requests']} examples{cached} in {self.report['seconds']:.1f} s{wrote}")]

    def _repr_html_(self) -> str:
        sums = self.scores.logprob_sum
        return (
            f"<p><b>tailsplit scores</b>: {len(self.scores):,} examples by {html.escape(self.model_name)}; "
            f"logprob_sum from {sums.min():.2f} to {sums.max():.2f} (median {np.median(sums):.2f})"
            + (f"; written to <code>{html.escape(str(self.path))}</code>" if self.path is not None else "")
            + "</p>"
        )


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


@keyword_spelling
def score(
    data: Any,
    *,
    out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    progress: bool | None = None,
    **options: Any,
) -> ScoreResult:
    """Score every example's query with a causal LM (the bundled SmolLM2 unless ``model=``), or
    cross-fitted (``method="kfold"`` or ``"ngram"``): ``tailsplit score``. ``options`` are the
    data and scoring config fields (``text``, ``context``, ``template``, ``model``, ``dtype``,
    ...). With ``out``, the score file is written there (Parquet), as the command writes it;
    ``result.write(out)`` writes it later.

    >>> scores = score("snli.jsonl", text="hypothesis", context="premise", template="snli")  # doctest: +SKIP
    >>> scores.to_pandas().sort_values("logprob_sum").head()  # doctest: +SKIP
    """
    elsewhere = sorted(name for name in options if SECTION_OF.get(name) in ("split", "output"))
    if elsewhere:
        raise ConfigError(
            f"{elsewhere[0]}= does not apply to score, which scores without splitting; split with "
            "tailsplit.split(data, 'likelihood', scores=...) or tailsplit.likelihood_split"
        )
    switch_argument("progress", progress)
    config, _ = run_config(data, options)
    config.output.overwrite = switch_argument("overwrite", overwrite) or False
    out = None if out is None else path_argument("out", out, "a score file to write")
    return score_data(config, out_path=out, progress=watched() if progress is None else progress)
