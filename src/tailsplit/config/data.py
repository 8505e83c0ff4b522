"""Where a run's examples come from and which fields play which role: the data section of a
run (``tailsplit run``, ``score``, ``split``), each field declared once (:mod:`.declare`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from tailsplit.choices import COUNTS
from tailsplit.config.declare import Checked, option
from tailsplit.core import FieldMap


@dataclass
class DataConfig(Checked):
    """Where the examples come from — files (``paths``), a table in memory (``table``: a pandas
    DataFrame, pyarrow Table, datasets Dataset or DatasetDict, or a list of dicts; Python only)
    or a Hugging Face hub dataset (``dataset = "NAME[:CONFIG]"``, needs network) — and which
    fields play which role (a field may be a dotted path into nested records)."""

    PANEL: ClassVar[str] = "Data"

    paths: list[str] = option(
        [], "Data files (JSONL/CSV/TSV/Parquet, .gz ok) or a datasets folder; several are pooled.",
        argument=True, metavar="FILE",
    )  # fmt: skip
    table: Any = field(default=None, repr=False)
    dataset: str | None = option(
        None,
        "Load a Hugging Face dataset (hub id or local dataset folder/script) instead of files; every split is "
        "pooled with a source_split column (needs network for hub ids and the hf extra).",
        metavar="NAME[:CONFIG]",
    )
    text: str = option(
        "text", "Field holding the query that is scored; nested fields by dotted path (example.hypothesis).",
        metavar="FIELD",
    )  # fmt: skip
    context: str | None = option(None, "Field holding the first text of a pair (premise, passage).", metavar="FIELD")
    label: str | None = option(None, "Label field.", metavar="FIELD")
    group: str | None = option(None, "Field whose equal values stay in one part.", metavar="FIELD")
    id: str = option("id", "Id field (generated when absent).", metavar="FIELD")
    program: str | None = option(
        None, "Field holding the program (e.g. SQL): enables atoms, compounds, templates, hardness.", metavar="FIELD"
    )
    program_kind: str = option("sql", "Program extractor (a registered name).")
    count: str = option(
        "examples",
        "Atoms and compounds in divergences (TMCD, metrics): examples (once per example) or occurrences "
        "(every occurrence, as the published TMCD code).",
        choices=COUNTS,
    )
    score_column: str | None = option(
        None,
        "Field already holding each example's score (total log-probability, e.g. from vLLM or lm-eval): "
        "no model is loaded.",
        metavar="FIELD",
    )
    model_name: str | None = option(
        None,
        "The model that made scores given as a score file (split --scores) or a field (--score-column), "
        "recorded in the manifest.",
    )

    def field_map(self) -> FieldMap:
        return FieldMap(
            text=self.text, context=self.context, label=self.label, group=self.group, id=self.id, program=self.program
        )
