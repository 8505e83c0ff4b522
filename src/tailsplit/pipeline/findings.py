"""What the overlap audit and the dataset-shift commands find, as a result object: read like
the JSON the command writes (``result["groups"]``), turned into its main table
(``to_pandas()``), and shown as that table in a notebook.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tailsplit.render import html_table


def _rows_of(key: str) -> Callable[[Mapping[str, Any]], list[dict[str, Any]]]:
    """A list of dicts under ``key`` as rows; a mapping of dicts as rows keyed by its names."""

    def rows(found: Mapping[str, Any]) -> list[dict[str, Any]]:
        value = found.get(key) or []
        if isinstance(value, Mapping):
            return [
                {"name": name, **(entry if isinstance(entry, Mapping) else {"value": entry})}
                for name, entry in value.items()
            ]
        return [dict(entry) for entry in value]

    return rows


def _pairs(found: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every pair of datasets: centroid similarity ×100, MMD² and its permutation p-value."""
    names, similarity, mmd = found["names"], found["centroid_similarity"], found["mmd"]
    return [
        {
            "a": names[i],
            "b": names[j],
            "centroid_similarity": similarity[i][j],
            "mmd2": mmd["mmd2"][i][j],
            "p_value": mmd["p_value"][i][j],
        }
        for i in range(len(names))
        for j in range(i + 1, len(names))
    ]


def _overlap_counts(found: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The audit's counts as one row (accuracy by subset is under ``result["accuracy"]``)."""
    keys = ("examples", "overlap", "clean", "verbatim", "copied_below_threshold", "threshold")
    return [{k: found[k] for k in keys}]


# The main table of each command's findings.
TABLES: dict[str, Callable[[Mapping[str, Any]], list[dict[str, Any]]]] = {
    "overlap": _overlap_counts,
    "similarity": _pairs,
    "ood-rank": _rows_of("decisions"),
    "correlate": _rows_of("groups"),
    "curve": _rows_of("points"),
}


@dataclass(frozen=True)
class Findings(Mapping[str, Any]):
    """A command's findings (``content``: what its JSON holds), read as a mapping; its main
    table by :meth:`rows` and :meth:`to_pandas` (see :data:`TABLES`)."""

    command: str
    content: Mapping[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.content[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.content)

    def __len__(self) -> int:
        return len(self.content)

    def rows(self) -> list[dict[str, Any]]:
        """The main table as rows: overlap counts, pairs of datasets, ood-rank decisions,
        correlate's fit per group, curve's points."""
        return TABLES[self.command](self.content)

    def to_pandas(self) -> Any:
        import pandas

        return pandas.DataFrame(self.rows())

    def __repr__(self) -> str:
        return f"Findings(command={self.command!r}, keys={list(self.content)})"

    def _repr_html_(self) -> str:
        return f"<div><b>tailsplit {html.escape(self.command)}</b>{html_table(self.rows())}</div>"
