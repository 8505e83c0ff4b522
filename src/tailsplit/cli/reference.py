"""The command-line reference as Markdown, read from the commands themselves (their options
come from the config fields that declare them), for the documentation site."""

from __future__ import annotations

import inspect
from typing import Any

import typer

from tailsplit.cli.app import app
from tailsplit.render import markdown_code, markdown_text


def cli_reference_markdown() -> str:
    """One section per command (``export``'s subcommands included): what it does, its usage,
    its options by panel (flag, value, help with the default), and its examples."""
    root = typer.main.get_command(app)
    lines: list[str] = []
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        subcommands = getattr(command, "commands", None)
        for path, leaf in (
            [(f"{name} {sub}", c) for sub, c in subcommands.items()] if subcommands else [(name, command)]
        ):
            lines += _command_section(path, leaf)
    return "\n".join(lines)


def _command_section(path: str, command: Any) -> list[str]:
    usage = " ".join(command.collect_usage_pieces(typer.Context(command, info_name=path)))
    lines = [f"## tailsplit {path}", "", inspect.cleandoc(command.help or "").split("\n\n")[0], ""]
    lines += ["```text", f"tailsplit {path} {usage}", "```", ""]
    panels: dict[str, list[str]] = {}
    for param in command.params:
        if param.name in ("help", "ctx"):
            continue
        flags = ", ".join([*param.opts, *param.secondary_opts]) if param.param_type_name == "option" else ""
        name = flags or (param.metavar or param.name).upper()
        value = "" if getattr(param, "is_flag", False) else (param.metavar or "")
        panel = getattr(param, "rich_help_panel", None) or ("Arguments" if not flags else "Options")
        row = f"| {markdown_code(name)} | {markdown_text(value)} | {markdown_text(param.help or '')} |"
        panels.setdefault(panel, []).append(row)
    for panel, rows in panels.items():
        lines += [f"**{panel}**", "", "| option | value | what it does |", "|---|---|---|", *rows, ""]
    if command.epilog:
        lines += [inspect.cleandoc(command.epilog), ""]
    return lines
