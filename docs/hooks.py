"""MkDocs hook: the command-line reference is generated, at build time, from the declarations
the CLI itself is built from (each command's options come from its config fields), so the
page cannot drift from ``tailsplit COMMAND -h``."""

from __future__ import annotations

from typing import Any

MARKER = "<!-- command-line reference -->"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER not in markdown:
        return markdown
    from tailsplit.cli.reference import cli_reference_markdown

    return markdown.replace(MARKER, cli_reference_markdown())
