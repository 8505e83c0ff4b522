"""How options become a config: a recipe (``--config``) with the options given laid over it.

An option named like a config field sets that field (``build_config``, ``command_config``);
the few that are not (sizes given as text, ``--no-cache``, ``--label-word`` ...) are
converted here."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import typer

from tailsplit.config import RunConfig, load_config
from tailsplit.errors import ConfigError


def command_config(
    cls: type, path: Path | None, ctx: typer.Context, command: str, renamed: dict[str, tuple[str, Any]] | None = None
) -> Any:
    """``cls`` from the recipe at ``path`` (or its defaults) with the options laid over it:
    every option without a recipe, only those given on the command line with one. An option
    sets the config field of its own name (paths as text, a left-out option as the field's
    default); ``renamed`` maps the other fields to (their option's parameter name, value)."""
    from tailsplit.config import load_command_config

    config = load_command_config(path, cls, command) if path is not None else cls()
    defaults = cls()
    values = {
        f.name: (f.name, _as_field(ctx.params[f.name], getattr(defaults, f.name)))
        for f in dataclasses.fields(cls)
        if f.name in ctx.params
    }
    values.update(renamed or {})
    for name, (param, value) in values.items():
        source = ctx.get_parameter_source(param)  # typer's own click: compare the source by name
        if path is None or (source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")):
            setattr(config, name, value)
    return config


def _as_field(value: Any, default: Any) -> Any:
    """An option's value as its config field holds it: ``None`` (left out) is the default,
    paths are text."""
    if value is None:
        return default
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, list):
        return [str(v) if isinstance(v, Path) else v for v in value]
    return value


def parse_size(value: str, option: str) -> float | int:
    """``"0.1"`` → 0.1, ``"1000"`` → 1000."""
    try:
        return int(value) if value.strip().lstrip("-").isdigit() else float(value)
    except ValueError:
        raise ConfigError(
            f"{option}={value!r} is not a number; give a fraction like 0.1 or a count like 1000"
        ) from None


def parse_label_words(items: list[str]) -> dict[str, str]:
    words = {}
    for item in items:
        label, sep, word = item.partition("=")
        if not sep or not label:
            raise ConfigError(
                f"--label-word={item!r} is not LABEL=WORD; e.g. --label-word contradiction='a contradiction'"
            )
        words[label] = word
    return words


_PLAIN_FLAGS = {"finetune_full", "overwrite"}  # False there means "not given", not "off"
# Options that are not a config field of the same name, or need converting first.
_CONVERTED = {
    "paths", "label_words", "no_cache", "dev_size", "test_size", "removals_per_round", "length_buckets", "out", "no_analyze",
}  # fmt: skip


def _config_sections() -> dict[str, str]:
    """Config field name → the section holding it (field names are unique across sections)."""
    from tailsplit.config import CONFIG_SECTIONS

    return {f.name: section for section, cls in CONFIG_SECTIONS.items() for f in dataclasses.fields(cls)}


def build_config(config_path: Path | None, paths: list[Path] | None, **opts: Any) -> RunConfig:
    """A recipe (or defaults) with every option that was given laid over it; an option is the
    config field of the same name."""
    config = load_config(config_path) if config_path else RunConfig()
    if paths:
        config.data.paths = [str(p) for p in paths]
    sections = _config_sections()
    for name, value in opts.items():
        if name in _CONVERTED or value is None or (value is False and name in _PLAIN_FLAGS):
            continue
        if name not in sections:
            raise TypeError(f"option {name!r} is not a config field; add it to the config or to _CONVERTED")
        setattr(getattr(config, sections[name]), name, value)
    if opts.get("label_words"):
        config.scoring.label_words.update(parse_label_words(opts["label_words"]))
    if opts.get("no_cache"):
        config.scoring.use_cache = False
    for name in ("dev_size", "test_size", "removals_per_round"):
        if opts.get(name) is not None:
            setattr(config.split, name, parse_size(opts[name], f"--{name.replace('_', '-')}"))
    if opts.get("length_buckets") is not None:
        value = opts["length_buckets"]
        if value != "exact" and not value.strip().isdigit():
            raise ConfigError(f"--length-buckets={value!r} is neither a whole number of buckets (e.g. 10) nor 'exact'")
        config.split.length_buckets = value if value == "exact" else int(value)
    if opts.get("out") is not None:
        config.output.out = str(opts["out"])
    if opts.get("no_analyze"):
        config.output.analyze = False
    return config
