"""The options of ``tailsplit explore``, each declared once (:mod:`tailsplit.config.declare`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tailsplit.config.declare import Checked, accept_modified_option, option, out_option, overwrite_option


@dataclass
class ExploreConfig(Checked):
    """``tailsplit explore``: every example of one or more splits of the same data in one page."""

    PANEL: ClassVar[str | None] = None

    split_dirs: list[str] = option(
        [], "Split folders of the same data (one, or several side by side).", argument=True, metavar="DIR"
    )
    predictions: list[str] = option(
        [], "A predictions.jsonl written by tailsplit evaluate (repeatable): each model's answers beside the "
        "examples of the splits it names.", metavar="FILE",
    )  # fmt: skip
    accept_modified: bool = accept_modified_option()
    out: str | None = out_option("Folder to write explorer.html and its manifest into (required).")
    overwrite: bool = overwrite_option()
