"""``tailsplit score`` as a result: every example's scores, the scoring report, and the score
file they make (``write``: the bytes the command writes, but for the command it records)."""

from __future__ import annotations

import html
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.config.arguments import path_argument, switch_argument
from tailsplit.core import Dataset, ScoreTable
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.io.outputs import check_output_file, write_output_file
from tailsplit.io.scores import score_file_bytes
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


def check_score_path(out: str | Path, *, overwrite: bool, inputs: Any, caches: Any = ()) -> Path:
    """``out`` as a score file may be written: not an input, not a folder, a ``.parquet`` name."""
    path = check_output_file(out, overwrite=overwrite, inputs=inputs, caches=caches)
    if Path(out).suffix.lower() != ".parquet":
        raise ConfigError(
            f"--out={str(out)!r} names a {Path(out).suffix or 'suffix-less'} file, but a score file "
            f"is Parquet; name it {Path(out).stem + '.parquet'!r}"
        )
    return path
