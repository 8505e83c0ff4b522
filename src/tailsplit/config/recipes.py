"""Recipes: a TOML file of option values, read exactly (unknown keys and values of the wrong
type are errors that list the valid ones)."""

from __future__ import annotations

import dataclasses
import os
import tomllib
import typing
from pathlib import Path
from typing import Any

from tailsplit.config.run import RunConfig
from tailsplit.config.values import value_has_type, wrong_type
from tailsplit.errors import ConfigError
from tailsplit.io.files import MAX_NESTING, nesting_depth, read_option_text


def _read_toml(path: Path) -> dict[str, Any]:
    text = read_option_text(path, "config", "a TOML recipe")
    if (depth := nesting_depth(text)) > MAX_NESTING:
        raise ConfigError(
            f"--config={str(path)!r} nests arrays or tables more than {MAX_NESTING} levels deep ({depth} or more); "
            "a recipe is a few flat tables of option values"
        )
    try:
        return tomllib.loads(text)
    except RecursionError:  # dotted keys nested past the parser's limit
        raise ConfigError(f"--config={str(path)!r} nests keys too deeply; a recipe is a few flat tables") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"--config={str(path)!r} is not valid TOML ({exc}); fix the syntax") from None


def load_command_config(path: str | Path, cls: type, command: str) -> Any:
    """A command's recipe: ``cls``'s fields as top-level keys, or in one ``[command]`` table;
    unknown keys and values of the wrong type are errors. Paths in it are relative to the
    working directory, as on the command line."""
    path = Path(path)
    raw = _read_toml(path)
    if set(raw) == {command} and isinstance(raw[command], dict):
        raw = raw[command]
    source = f"--config={str(path)!r}"
    hints = typing.get_type_hints(cls)
    known = [f.name for f in dataclasses.fields(cls)]
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(f"{source} has key {key!r}; tailsplit {command} takes {known}")
        if not value_has_type(value, hints[key]):
            raise wrong_type(source, key, value, hints[key])
    return cls(**raw)


def load_config(path: str | Path) -> RunConfig:
    """Read a TOML recipe of a run (sections ``[data]``, ``[scoring]``, ``[split]``,
    ``[output]``); unknown sections or keys are errors that list the valid ones. Relative
    paths in it are relative to the recipe's folder."""
    path = Path(path)
    config = RunConfig.from_dict(_read_toml(path), source=f"--config={str(path)!r}")
    base = path.parent
    config.data.paths = [os.path.normpath(base / p) if not Path(p).is_absolute() else p for p in config.data.paths]
    if config.output.out is not None and not Path(config.output.out).is_absolute():
        config.output.out = os.path.normpath(base / config.output.out)
    return config
