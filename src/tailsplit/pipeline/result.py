"""What a run returns, and its ways out of tailsplit: a pandas DataFrame, a Hugging Face
``DatasetDict``, and short summaries for the console and Jupyter."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tailsplit.analysis.program_metrics import ProgramMetrics
from tailsplit.analysis.summary import PartStatistics
from tailsplit.core import SPLIT_PARTS, Dataset, ScoreTable, SplitIndices
from tailsplit.errors import ConfigError
from tailsplit.programs.sets import ProgramFeatures

if TYPE_CHECKING:
    from tailsplit.analysis.split_analysis import SplitAnalysis

PART_COLUMN = "part"
# Hugging Face's name for each part (its convention calls the development set "validation").
HF_SPLIT_NAMES = {"train": "train", "dev": "validation", "test": "test"}


@dataclass
class RunResult:
    """Everything a run produced; ``out_dir`` is ``None`` when nothing was written.

    ``to_pandas()`` and ``to_datasets()`` hand the split to other tools."""

    dataset: Dataset
    scores: ScoreTable | None
    split: SplitIndices
    summaries: list[PartStatistics]
    manifest: dict[str, Any]
    out_dir: Path | None = None
    timings: dict[str, float] = field(default_factory=dict)
    programs: ProgramFeatures | None = None
    program_metrics: list[ProgramMetrics] = field(default_factory=list)
    analysis: SplitAnalysis | None = None

    def _records(self) -> list[dict[str, Any]]:
        from tailsplit.pipeline.split_folder import output_records

        return output_records(self.dataset, self.scores)

    def to_pandas(self) -> Any:
        """Every example in input order: its fields (the input's column types where it had a
        schema), the score columns, and ``part`` (train/dev/test)."""
        import pandas  # noqa: F401  (a clear ImportError before any work when pandas is missing)

        from tailsplit.io.writers import arrow_table
        from tailsplit.pipeline.split_folder import input_schema

        records = self._records()
        if records and PART_COLUMN in records[0]:
            raise ConfigError(f"the examples already have a field {PART_COLUMN!r}; rename it to get the part column")
        parts = self.split.assignment(len(self.dataset))
        for record, part in zip(records, parts):
            record[PART_COLUMN] = str(part)
        schema = input_schema(self.dataset)
        return arrow_table(records, schema.arrow, schema.class_labels).to_pandas()

    def to_datasets(self) -> Any:
        """A ``datasets.DatasetDict`` with ``train``, ``validation`` (the dev part) and ``test``,
        keeping the input's features (``ClassLabel`` columns included) where it had them."""
        from tailsplit.io.hf import hf_dataset, quiet_datasets
        from tailsplit.pipeline.split_folder import input_schema

        records = self._records()
        schema = input_schema(self.dataset)
        with quiet_datasets() as datasets:
            return datasets.DatasetDict(
                {
                    HF_SPLIT_NAMES[part]: hf_dataset([records[i] for i in idx], schema.arrow, schema.class_labels)
                    for part, idx in self.split.parts().items()
                }
            )

    def __repr__(self) -> str:
        sizes = ", ".join(f"{s.part}={s.size:,}" for s in self.summaries)
        splitter = self.manifest.get("splitter", {}).get("name", "?")
        scored = "scored" if self.scores is not None else "unscored"
        where = f", out_dir={str(self.out_dir)!r}" if self.out_dir is not None else ""
        return f"RunResult(splitter={splitter!r}, {sizes}, {scored}{where})"

    def _repr_html_(self) -> str:
        rows = "".join(
            "<tr>"
            f"<td>{html.escape(s.part)}</td><td>{s.size:,}</td>"
            f"<td>{s.mean_words:.1f}</td>"
            f"<td>{'' if s.mean_logprob_mean is None else f'{s.mean_logprob_mean:.3f}'}</td>"
            f"<td>{html.escape(_labels(s.label_counts))}</td>"
            "</tr>"
            for s in self.summaries
        )
        splitter = html.escape(str(self.manifest.get("splitter", {}).get("name", "?")))
        where = "" if self.out_dir is None else f" → <code>{html.escape(str(self.out_dir))}</code>"
        return (
            f"<div><b>tailsplit RunResult</b> ({splitter}){where}<table>"
            "<tr><th>part</th><th>examples</th><th>mean words</th><th>mean log-prob/token</th><th>labels</th></tr>"
            f"{rows}</table></div>"
        )


def _labels(counts: dict[str, int] | None) -> str:
    return "" if not counts else ", ".join(f"{k}: {v:,}" for k, v in counts.items())


assert set(HF_SPLIT_NAMES) == set(SPLIT_PARTS)
