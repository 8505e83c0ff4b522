"""What a result shows on a terminal, as data: every command's result returns its console view
(:meth:`console`) as a list of these items, and the command line prints them with
:func:`print_view` — one renderer for every command's lines and tables.

>>> view = [Line("3 pairs"), Table("pairs", ["a", "b"], [["x", "0.5"]], left=1)]
>>> [type(item).__name__ for item in view]
['Line', 'Table']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tailsplit.render import console_text

View = list["Line | Table"]


@dataclass(frozen=True)
class Line:
    """One line of text. ``copyable``: printed unwrapped (a command to paste); ``warning``:
    said on standard error as a warning, not printed as a finding."""

    text: str
    copyable: bool = False
    warning: bool = False


@dataclass(frozen=True)
class Table:
    """A table: its title, column names, rows of text cells; the first ``left`` columns are
    left-aligned (names), the rest right-aligned (numbers). ``plain``: no borders."""

    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    left: int = 1
    plain: bool = False
    caption: str | None = None
    left_columns: Sequence[str] = field(default_factory=tuple)


def rich_table(table: Table) -> Any:
    """``table`` as a ``rich`` table, every cell inert text (no markup, control characters escaped)."""
    from rich.table import Table as RichTable
    from rich.text import Text

    if table.plain:
        shown = RichTable(title=table.title, caption=table.caption, box=None, title_justify="left")
    else:
        shown = RichTable(title=table.title, caption=table.caption)
    for i, column in enumerate(table.columns):
        left = i < table.left or column in table.left_columns
        shown.add_column(column, justify="left" if left else "right", no_wrap=not table.plain)
    for row in table.rows:
        shown.add_row(*(Text(console_text(cell)) for cell in row))
    return shown


def print_view(console: Any, view: View, warn: Any) -> None:
    """Print a result's console view on ``console`` (a ``rich`` console; every line and cell
    inert text: no markup, control characters shown as escapes); ``warn`` says a warning line."""
    for item in view:
        if isinstance(item, Table):
            console.print(rich_table(item), highlight=False)
        elif item.warning:
            warn(item.text)
        else:
            console.print(console_text(item.text), markup=False, highlight=False, soft_wrap=item.copyable)
