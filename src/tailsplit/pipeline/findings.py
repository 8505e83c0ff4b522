"""The surface every command's result shares, and the base of the results that are findings
(overlap, similarity, ood-rank, correlate, curve, the exports): read like the JSON the
command writes (``result["groups"]``), turned into its main table (``rows()``,
``to_pandas()``), shown as that table in a notebook and as its console view on a terminal
(``console()``, what the command line prints). Each command's own result type lives in the
command's module."""

from __future__ import annotations

import html
from abc import abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from tailsplit.render import html_table
from tailsplit.render.console import Line, View


def rows_of(found: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    """A list of dicts under ``key`` as rows; a mapping of dicts as rows keyed by its names."""
    value = found.get(key) or []
    if isinstance(value, Mapping):
        return [
            {"name": name, **(entry if isinstance(entry, Mapping) else {"value": entry})}
            for name, entry in value.items()
        ]
    return [dict(entry) for entry in value]


@dataclass(frozen=True)
class Findings(Mapping[str, Any]):
    """A command's findings (``content``: what its JSON holds), read as a mapping; its main
    table by :meth:`rows` and :meth:`to_pandas`, its console view by :meth:`console`;
    ``out_dir`` is the folder written (``None`` when nothing was)."""

    content: Mapping[str, Any]
    out_dir: Path | None = None

    command: ClassVar[str] = "findings"
    # What the command writes into its folder, as the console's last line says.
    written: ClassVar[str] = "manifest.json"

    def __getitem__(self, key: str) -> Any:
        return self.content[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.content)

    def __len__(self) -> int:
        return len(self.content)

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

    def to_pandas(self) -> Any:
        import pandas

        return pandas.DataFrame(self.rows())

    def __repr__(self) -> str:
        return f"{type(self).__name__}(keys={list(self.content)})"

    def _repr_html_(self) -> str:
        return f"<div><b>tailsplit {html.escape(self.command)}</b>{html_table(self.rows())}</div>"
