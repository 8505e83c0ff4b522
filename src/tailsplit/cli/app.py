"""The typer application, its consoles, and one-line errors (exit 2) for every command."""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

import typer
from rich.console import Console, ConsoleDimensions
from rich.text import Text as RichText
from typer.core import TyperGroup

from tailsplit._version import __version__
from tailsplit.errors import TailsplitError, command_line_call
from tailsplit.log import configure, logger
from tailsplit.render import console_text
from tailsplit.render.console import print_view

_TYPED: ContextVar[list[str] | None] = ContextVar("tailsplit_typed_args", default=None)


class _TypedGroup(TyperGroup):
    """The command group, keeping the arguments as typed: a manifest records ``tailsplit`` and
    these, not ``sys.argv``, whose first item is the executable's path on this machine (and,
    when the app runs inside another program such as a test runner, that program's arguments)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        _TYPED.set(list(args))
        return super().parse_args(ctx, args)


def typed_command() -> list[str]:
    """The running command as a reader would type it: ``["tailsplit", "run", "data.jsonl", ...]``."""
    typed = _TYPED.get()
    return ["tailsplit", *(sys.argv[1:] if typed is None else typed)]


app = typer.Typer(
    cls=_TypedGroup,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode="markdown",
    help="Likelihood Splits for NLP benchmarks: put the long tail in the test set.",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _types_as_words() -> None:
    """Typer's help shows Python types (``<list[str]>``, ``<bool>``) beside names; tailsplit
    names every argument with a metavar (``FILE``, ``DIR``), which says it already, and a
    switch takes no value to describe."""
    from typer.core import TyperArgument, TyperOption

    shown_argument = getattr(TyperArgument, "display_type_rich", None)
    shown_option = getattr(TyperOption, "display_type_rich", None)
    if shown_argument is None or shown_option is None:
        return

    def argument_type(self: TyperArgument, ctx: Any) -> str | None:
        return None if self.metavar else shown_argument(self, ctx)

    def option_type(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag and self.metavar is None else shown_option(self, ctx)

    TyperArgument.display_type_rich = argument_type  # type: ignore[method-assign,assignment]
    TyperOption.display_type_rich = option_type  # type: ignore[method-assign]


_types_as_words()

# Away from a terminal, a line is as long as it needs to be (a line of rich tables or text wider
# than this is not expected).
LOG_WIDTH = 10_000


class _Console(Console):
    """rich's console, laid out to the window on a terminal; elsewhere (a log, a pipe, ``| tee``,
    CI) nothing wraps or is cut short: text on one line, tables as wide as their cells. rich
    would lay out to COLUMNS or 80 columns there, or to the terminal a pipe's other end runs in."""

    @property
    def size(self) -> ConsoleDimensions:
        measured = Console.size.fget(self)  # type: ignore[attr-defined]
        return measured if self.is_terminal else ConsoleDimensions(LOG_WIDTH, measured.height)

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:  # Console's size stays settable, as its callers expect
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]


# Markup off: labels, ids, field names and messages are the user's text and print literally.
stderr = _Console(stderr=True, markup=False)
stdout = _Console(markup=False)


def show(result: Any) -> None:
    """Print a result's console view (every command prints through here)."""
    print_view(stdout, result.console(), warn=logger.warning)


def _print_version(value: bool) -> None:
    if value:
        print(f"tailsplit {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also print debugging messages."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print warnings and errors only (no notes)."),
) -> None:
    """Likelihood Splits for NLP benchmarks: put the long tail in the test set."""
    import logging

    _survive_any_locale()
    usable_columns()

    configure(logging.DEBUG if verbose else logging.WARNING if quiet else logging.INFO)


# The narrowest layout help and tables are drawn in: below it rich breaks words into letters.
MIN_COLUMNS = 40


def usable_columns() -> None:
    """A ``COLUMNS`` that rich can lay out in: one that is not a whole number (``COLUMNS=0``,
    ``abc``) is dropped — rich would print an empty help — and a narrower one than
    :data:`MIN_COLUMNS` is raised to it."""
    import os

    value = os.environ.get("COLUMNS")
    if value is None:
        return
    if not value.strip().isdigit() or int(value) < 1:
        del os.environ["COLUMNS"]
    elif int(value) < MIN_COLUMNS:
        os.environ["COLUMNS"] = str(MIN_COLUMNS)


def _survive_any_locale() -> None:
    """Under a locale whose encoding cannot spell every character (``LC_ALL=C`` without UTF-8
    mode, as in many containers and cluster jobs), print what it cannot as ``\\u`` escapes
    instead of failing with UnicodeEncodeError."""
    import sys

    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding != "utf8" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


class Terminated(BaseException):
    """SIGTERM, raised where the command is, so that it unwinds as Ctrl-C does: staging
    folders and claims are given up on the way out (a plain SIGTERM would leave them)."""


@contextlib.contextmanager
def terminated_as_exception() -> Iterator[None]:
    """While the command runs, SIGTERM raises :class:`Terminated` (main thread only; the
    previous handler comes back afterwards)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_terminated(signum: int, frame: Any) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def friendly_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Print library errors as one line and exit 2; Ctrl-C exits 130 (cached scores are kept)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with command_line_call(), terminated_as_exception():  # messages keep naming flags
                return func(*args, **kwargs)
        except Terminated:
            stderr.print("terminated; nothing was published, staging folders were removed, cached scores are kept")
            raise typer.Exit(143) from None
        except TailsplitError as exc:
            stderr.print(
                RichText("error:", style="bold red") + RichText(" " + console_text(str(exc))),
                highlight=False,
                soft_wrap=True,
            )
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            stderr.print("interrupted; scores computed so far are cached and a rerun resumes")
            raise typer.Exit(130) from None

    return wrapper
