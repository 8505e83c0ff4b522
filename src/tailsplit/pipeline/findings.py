"""The surface every command's result shares, and the base of the results that are findings
(overlap, similarity, ood-rank, correlate, curve, the exports): the JSON the command writes
as typed content (``result.content``, a ``TypedDict`` per command, as lm-eval types its
results), its main table (``rows()``, ``to_pandas()``), shown as that table in a notebook and
as its console view on a terminal (``console()``, what the command line prints), and written
as the command writes it (``write(out, overwrite=...)``). Each command's own result type and
content type live in the command's module."""

from __future__ import annotations

import dataclasses
import html
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, TypedDict, TypeVar

from tailsplit.config.arguments import path_argument, switch_argument
from tailsplit.errors import ConfigError
from tailsplit.render import html_table
from tailsplit.render.console import Line, View

C = TypeVar("C", bound=Mapping[str, Any])
F = TypeVar("F", bound="Findings[Any]")

# What writes a result's files into a folder (``overwrite`` as given): the command's own writer.
Writer = Callable[[Path, bool], None]


def config_writer(write: Callable[..., None], config: Any, *args: Any) -> Writer:
    """The writer of a command's files: ``write(out, config, *args)`` with the command's
    config saying ``out`` and ``overwrite`` as given (its manifest records them)."""

    def writer(out: Path, overwrite: bool) -> None:
        write(out, dataclasses.replace(config, out=str(out), overwrite=overwrite), *args)

    return writer


def rows_of(value: Any) -> list[dict[str, Any]]:
    """A list of dicts as rows; a mapping of dicts as rows keyed by its names."""
    if isinstance(value, Mapping):
        return [
            {"name": name, **(entry if isinstance(entry, Mapping) else {"value": entry})}
            for name, entry in value.items()
        ]
    return [dict(entry) for entry in value or []]


@dataclass(frozen=True)
class Findings(ABC, Generic[C]):
    """A command's findings: ``content``, what its JSON holds (typed); its main table by
    :meth:`rows` and :meth:`to_pandas`, its console view by :meth:`console`; ``out_dir`` is
    the folder written (``None`` when nothing was)."""

    content: C
    out_dir: Path | None = None
    writer: Writer | None = field(default=None, repr=False, compare=False)

    command: ClassVar[str] = "findings"
    # What the command writes into its folder, as the console's last line says.
    written: ClassVar[str] = "manifest.json"

    @abstractmethod
    def rows(self) -> list[dict[str, Any]]:
        """The main table as rows (each command's own)."""

    @abstractmethod
    def view(self) -> View:
        """What the console shows of the findings (each command's own)."""

    def console(self) -> View:
        """The console view the command line prints: the findings, then what was written."""
        wrote = [] if self.out_dir is None else [Line(f"wrote {self.out_dir}/ ({self.written})")]
        return [*self.view(), *wrote]

    def write(self: F, out: str | Path, *, overwrite: bool = False) -> F:
        """The folder the command writes with ``out=`` — the same files, all or nothing,
        never over an input (``overwrite`` replaces an earlier tailsplit folder only); the
        result with ``out_dir`` set."""
        folder = Path(path_argument("out", out, "a folder to write"))
        replace = bool(switch_argument("overwrite", overwrite))
        if self.writer is None:
            raise ConfigError(
                f"this {self.command} result was built without its files; run the command again to write them"
            )
        self.writer(folder, replace)
        return dataclasses.replace(self, out_dir=folder)

    def to_dict(self) -> dict[str, Any]:
        """The content as the plain dict the command's JSON holds."""
        return dict(self.content)

    def to_pandas(self) -> Any:
        import pandas

        return pandas.DataFrame(self.rows())

    def __repr__(self) -> str:
        where = f", out_dir={str(self.out_dir)!r}" if self.out_dir is not None else ""
        return f"{type(self).__name__}(keys={list(self.content)}{where})"

    def _repr_html_(self) -> str:
        return f"<div><b>tailsplit {html.escape(self.command)}</b>{html_table(self.rows())}</div>"


class ExportContent(TypedDict):
    """What every export's manifest records: the version, the command, the kind of export and
    each file's sha256 (``outputs``)."""

    tailsplit_version: str
    command: Any
    export: str
    outputs: dict[str, str]


class SplitExportContent(ExportContent):
    """An export of a split: the folder exported and its manifest's sha256."""

    split_dir: str
    split_manifest_sha256: str


E = TypeVar("E", bound=ExportContent)


class ExportResult(Findings[E]):
    """What an export wrote: its manifest (``content["outputs"]``, each file's sha256); its
    table has one row per file; ``write(out)`` exports the same split again into ``out``."""

    def rows(self) -> list[dict[str, Any]]:
        return [{"file": name, "sha256": digest} for name, digest in self.content["outputs"].items()]

    def console(self) -> View:
        return self.view()  # the view says what was written, and where
