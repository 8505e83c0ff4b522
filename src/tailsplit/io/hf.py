"""Hugging Face ``datasets`` on the way in and out (the ``hf`` extra, imported lazily).

In: ``--dataset NAME[:CONFIG]`` through ``datasets.load_dataset`` (a hub id, a local dataset
folder or script). Out: records as a ``Dataset`` whose ``ClassLabel`` columns get their
integer codes back, for ``RunResult.to_datasets()``, ``--format hf`` and ``tailsplit export hf``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tailsplit.errors import ConfigError, InputError, MissingDependencyError
from tailsplit.io.arrow import arrow_table


def _datasets() -> Any:
    try:
        with warnings.catch_warnings():  # tqdm's notebook import warns "IProgress not found" without ipywidgets
            warnings.filterwarnings("ignore", message="IProgress not found")
            import datasets
    except ImportError:
        raise MissingDependencyError("datasets", "hf", "Reading or writing Hugging Face datasets") from None
    return datasets


@contextmanager
def quiet_datasets() -> Iterator[Any]:
    """``datasets`` with its progress bars off for the duration (the caller's setting is restored)."""
    datasets = _datasets()
    was_disabled = datasets.are_progress_bars_disabled()
    datasets.disable_progress_bars()
    try:
        with warnings.catch_warnings():  # tqdm's notebook import warns "IProgress not found" without ipywidgets
            warnings.filterwarnings("ignore", message="IProgress not found")
            yield datasets
    finally:
        if not was_disabled:
            datasets.enable_progress_bars()


def parse_dataset_spec(spec: str) -> tuple[str, str | None]:
    """``"NAME[:CONFIG]"`` → (name, config); a local folder may itself hold a colon."""
    if not spec or not spec.strip():
        raise ConfigError("--dataset is empty; give NAME or NAME:CONFIG (e.g. stanfordnlp/snli)")
    if Path(spec).exists() or ":" not in spec:
        return spec, None
    name, _, config = spec.rpartition(":")
    if not name or not config:
        raise ConfigError(f"--dataset {spec!r} is not NAME[:CONFIG]; e.g. nyu-mll/glue:mnli")
    return name, config


def load_hub_dataset(spec: str) -> Any:
    """The ``DatasetDict`` (or ``Dataset``) ``datasets.load_dataset`` returns for ``spec``;
    offline or unknown, a one-line error."""
    name, config = parse_dataset_spec(spec)
    with quiet_datasets() as datasets:
        try:
            return datasets.load_dataset(name, config)
        except Exception as exc:  # datasets raises many unrelated types (DatasetNotFoundError, ValueError...)
            network = isinstance(exc, (ConnectionError, OSError))
            raise InputError(
                f"cannot be loaded ({type(exc).__name__}: {_first_line(exc)})",
                path=spec,
                fix="check the name and your network, or save the dataset to files and pass them"
                if network
                else "check the name and configuration (NAME:CONFIG)",
            ) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else ""


def hf_dataset(
    records: Sequence[Mapping[str, Any]], schema: Any = None, class_labels: Mapping[str, list[str]] | None = None
) -> Any:
    """A ``datasets.Dataset`` of ``records``: the input's column types where it had them
    (``schema``), ``ClassLabel`` columns (``class_labels``) encoded back to integers."""

    with quiet_datasets() as datasets:
        table = arrow_table(records, schema, class_labels)
        features = datasets.Features.from_arrow_schema(table.schema)
        if class_labels:
            import pyarrow as pa

            for column, names in class_labels.items():
                if column not in table.column_names:
                    continue
                codes = {name: i for i, name in enumerate(names)}
                values = [None if v is None else codes[v] for v in table.column(column).to_pylist()]
                position = table.column_names.index(column)
                table = table.set_column(position, column, pa.array(values, type=pa.int64()))
                features[column] = datasets.ClassLabel(names=list(names))
            table = table.replace_schema_metadata(None)
        return datasets.Dataset(table).cast(features) if class_labels else datasets.Dataset(table)


def save_hf(path: Path, records: Sequence[Mapping[str, Any]], schema: Any, class_labels: Any) -> None:
    """``records`` as a ``save_to_disk`` folder at ``path``."""
    with quiet_datasets():
        hf_dataset(records, schema, class_labels).save_to_disk(str(path))
