"""Checks on a loaded dataset that a run makes before any model loads: fields a template
names, and queries that repeat (a warning: random splits would leak them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tailsplit.analysis.leakage import repeated_queries
from tailsplit.errors import InputError
from tailsplit.fields import has_field
from tailsplit.log import logger

if TYPE_CHECKING:
    from tailsplit.config import RunConfig
    from tailsplit.core import Dataset
    from tailsplit.prompts import PromptTemplate


def check_template_fields(dataset: Dataset, template: PromptTemplate) -> None:
    """Every record has each field the template names besides its roles (``{example.premise}``)."""
    for name in template.placeholders:
        if name in ("text", "context", "label"):
            continue
        missing = next((i for i, record in enumerate(dataset.records) if not has_field(record, name)), None)
        if missing is not None:
            path, number = dataset.location(missing)
            raise InputError(
                f"is missing (--template={template.name!r} uses it)",
                path=path,
                row=number,
                field=name,
                fix="fill it in, or use a template whose fields every record has",
            )


REPEATED_QUERY_WARNING = 0.01  # warn when this share of rows or more shares its query with another row


def warn_repeated_queries(dataset: Dataset, config: RunConfig) -> None:
    """One warning, before any scoring, when query texts repeat and no group keeps them whole:
    a random split would then put the same query in train and test."""

    if dataset.groups is not None or len(dataset) == 0:
        return
    rows, distinct = repeated_queries(dataset.texts)
    if rows >= REPEATED_QUERY_WARNING * len(dataset):
        logger.warning(
            f"{rows} of {len(dataset)} rows ({100 * rows / len(dataset):.1f}%) share their query with "
            f"another row ({distinct} distinct queries repeat); split parts may hold the same query — keep "
            f"them whole with --group {config.data.text}"
        )
