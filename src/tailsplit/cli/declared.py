"""Each command's options, generated from the config fields that declare them.

A command names the config classes it reads (``@declared_options(EvaluateConfig)``); its
typer signature is built from their fields (flag, help, panel, allowed values, metavar and the
true default, all from the field's :class:`~tailsplit.config.Option`), plus ``--config`` (a
recipe of the same fields), ``-v``/``-q`` and any option of the command's own. When the
command runs, the options given on the command line are laid over the recipe (or the
defaults), parsed by the field's parser and checked by the config (:class:`Given`)."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import logging
import types
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperOption

from tailsplit.cli.app import friendly_errors
from tailsplit.config import RunConfig, check_values, declared_option, flag_of, load_command_config, load_config
from tailsplit.errors import ConfigError
from tailsplit.log import configure, logger

_METAVARS = {int: "N", float: "NUMBER", str: "TEXT"}
COMMON = ("config", "verbose", "quiet")  # options of every command that are not config fields


def _base_type(hint: Any) -> Any:
    """``int | None`` → ``int``; ``float | int`` → ``float``; ``list[str]`` → ``list``."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return float if float in args else _base_type(args[0])
    return typing.get_origin(hint) or hint


def _cli_type(hint: Any, parsed: bool) -> Any:
    """The type the command line reads for a field: text for parsed fields, a list of text
    for repeatable ones."""
    base = _base_type(hint)
    if base in (list, dict):
        return list[str]
    if parsed or base is tuple:
        return str
    return base


def _shown_default(f: dataclasses.Field[Any], default: Any) -> str | bool:
    declared = declared_option(f)
    assert declared is not None
    if declared.shown_default is not None:
        return declared.shown_default
    if isinstance(default, bool):
        return ("on" if default else "off") if declared.flag and "/" in declared.flag else False
    if default is None or default == "" or default == [] or default == {}:
        return False
    if isinstance(default, tuple):
        return ",".join(str(v) for v in default)
    return str(default)


# The longest list of choices shown as an option's metavar ("[exact|normalized]").
_CHOICES_SHOWN = 20


def option_parameter(f: dataclasses.Field[Any], hint: Any, panel: str | None, more: bool = False) -> inspect.Parameter:
    """The typer parameter of one declared field (named as the field); ``more``: shown by
    ``--help-all`` only."""
    declared = declared_option(f)
    assert declared is not None
    default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
    cli_type = _cli_type(hint, declared.parse is not None)
    metavar = declared.metavar
    help = declared.help
    if metavar is None and declared.choices:
        metavar = "[" + "|".join(declared.choices) + "]"
        if len(metavar) > _CHOICES_SHOWN:  # a long list would wrap inside its words: named in the help instead
            metavar = "NAME"
            if not all(choice in help for choice in declared.choices):
                help += f" One of {', '.join(declared.choices)}."
    elif metavar is None:
        metavar = _METAVARS.get(str if cli_type == list[str] else cli_type)
    shown = _shown_default(f, default)
    help += f" [default: {shown}]" if shown else ""
    if declared.argument:
        info: Any = typer.Argument(help=help, metavar=metavar, show_default=False)
    else:
        info = typer.Option(
            declared.flag or flag_of(f.name),
            help=help,
            rich_help_panel=declared.panel or panel,
            metavar=metavar,
            show_default=False,
            hidden=more,
        )
    return inspect.Parameter(
        f.name, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[cli_type | None, info], default=None
    )


def declared_fields(cls: type) -> list[dataclasses.Field[Any]]:
    """The fields of ``cls`` that the command line sets."""
    return [
        f for f in dataclasses.fields(cls) if (declared := declared_option(f)) is not None and declared.command_line
    ]


def option_parameters(classes: Iterable[type], leave_out: Iterable[str] = ()) -> list[inspect.Parameter]:
    left_out = set(leave_out)
    params = []
    for cls in classes:
        hints = typing.get_type_hints(cls)
        more = {name: panel for panel, names in getattr(cls, "MORE_PANELS", {}).items() for name in names}
        for f in declared_fields(cls):
            if f.name not in left_out:
                panel = more.get(f.name) or getattr(cls, "PANEL", None)
                params.append(option_parameter(f, hints[f.name], panel, more=f.name in more))
    return params


def _show_every_option(ctx: typer.Context, param: Any, value: bool) -> None:
    """``--help-all``: the help with the options ``-h`` leaves out, then exit."""
    if not value or ctx.resilient_parsing:
        return
    hidden = [p for p in ctx.command.params if isinstance(p, TyperOption) and p.hidden]
    for p in hidden:
        p.hidden = False
    try:
        typer.echo(ctx.get_help(), color=ctx.color)
    finally:
        for p in hidden:  # the command object outlives this call (in-process runners, tests)
            p.hidden = True
    raise typer.Exit()


def _help_all_parameter(panels: list[str]) -> inspect.Parameter:
    info = typer.Option(
        "--help-all",
        help=f"Show every option, also: {'; '.join(panels)}.",
        is_eager=True,
        callback=_show_every_option,
        expose_value=False,
    )
    return inspect.Parameter(
        "help_all", inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[bool, info], default=False
    )


def _is_argument(param: inspect.Parameter) -> bool:
    return isinstance(typing.get_args(param.annotation)[1], typer.models.ArgumentInfo)


def _common_parameters(recipe_help: str) -> list[inspect.Parameter]:
    kw = inspect.Parameter.KEYWORD_ONLY
    config = typer.Option("--config", help=recipe_help, metavar="FILE", rich_help_panel="Recipe and console")
    verbose = typer.Option(
        "--verbose", "-v", help="Also print debugging messages.", rich_help_panel="Recipe and console"
    )
    quiet = typer.Option(
        "--quiet", "-q", help="Print warnings and errors only (no notes, no progress bar).",
        rich_help_panel="Recipe and console",
    )  # fmt: skip
    return [
        inspect.Parameter("config", kw, annotation=Annotated[Path | None, config], default=None),
        inspect.Parameter("verbose", kw, annotation=Annotated[bool, verbose], default=False),
        inspect.Parameter("quiet", kw, annotation=Annotated[bool, quiet], default=False),
    ]


RUN_RECIPE_HELP = "TOML recipe ([data], [scoring], [split], [output]); options given here override it."
COMMAND_RECIPE_HELP = (
    "TOML recipe of this command's options (as top-level keys, or in a table named after the command); "
    "options given here override it."
)


class Given:
    """The options of one command call: which were given on the command line, and the
    recipe (``--config``) they are laid over."""

    def __init__(self, context: typer.Context, values: dict[str, Any], recipe: Path | None, command: str) -> None:
        self.values = values
        self.recipe = recipe
        self.command = command
        self.quiet = logger.getEffectiveLevel() > logging.INFO
        self._given = {
            name
            for name in values
            if (source := context.get_parameter_source(name)) is not None
            and source.name not in ("DEFAULT", "DEFAULT_MAP")
            and values[name] not in (None, (), [])
        }

    def lay_over(self, config: Any) -> Any:
        """``config`` with every option given on the command line for one of its fields set
        (parsed by the field's parser; a repeatable dict option adds to the recipe's)."""
        for f in declared_fields(type(config)):
            if f.name not in self._given:
                continue
            declared = declared_option(f)
            assert declared is not None
            value = self.values[f.name]
            value = [str(v) for v in value] if isinstance(value, list) else value
            if declared.parse is not None:
                try:
                    value = declared.parse(value)
                except ConfigError as exc:
                    raise ConfigError(f"{declared.flag or flag_of(f.name)}={exc}") from None
            if isinstance(value, dict):
                value = {**getattr(config, f.name), **value}
            setattr(config, f.name, value)
        check_values(config)
        return config

    def command_config(self, cls: type) -> Any:
        """``cls`` from the recipe (or its defaults) with the options given laid over it."""
        base = load_command_config(self.recipe, cls, self.command) if self.recipe is not None else cls()
        return self.lay_over(base)

    def run_config(self) -> RunConfig:
        """A run's config: the recipe (or defaults) with the options given laid over each section."""
        config = load_config(self.recipe) if self.recipe is not None else RunConfig()
        for section in (config.data, config.scoring, config.split, config.output):
            self.lay_over(section)
        return config


def declared_options(
    *classes: type, leave_out: Iterable[str] = (), run_recipe: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the options its config ``classes`` declare (less ``leave_out``) and the
    common ones. The command is called as ``body(given, **own)``: ``own`` are the options
    of its own signature (after ``given``), ``given`` a :class:`Given`."""

    def decorate(body: Callable[..., Any]) -> Callable[..., Any]:
        own = list(inspect.signature(body, eval_str=True).parameters.values())[1:]
        own = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own]
        generated = option_parameters(classes, leave_out)
        common = _common_parameters(RUN_RECIPE_HELP if run_recipe else COMMAND_RECIPE_HELP)
        more = list(dict.fromkeys(p for cls in classes for p in getattr(cls, "MORE_PANELS", {}) if p))
        common += [_help_all_parameter([m.lower() for m in more])] if more else []
        params = sorted(own + generated, key=lambda p: not _is_argument(p)) + common
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise TypeError(f"{body.__name__}: an option is declared twice: {sorted(names)}")
        command_name = body.__name__.replace("_", "-")
        checked = friendly_errors(body)

        @functools.wraps(body)
        def command(ctx: typer.Context, **values: Any) -> Any:
            verbose, quiet, recipe = values.pop("verbose"), values.pop("quiet"), values.pop("config")
            if verbose or quiet:
                configure(logging.DEBUG if verbose else logging.WARNING)
            own_values = {p.name: values.pop(p.name) for p in own}
            return checked(Given(ctx, values, recipe, command_name), **own_values)

        del command.__wrapped__
        context = inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)
        params = [context, *params]
        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command

    return decorate
