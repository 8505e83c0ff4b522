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


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a byte-order mark is dropped
    except (FileNotFoundError, IsADirectoryError):
        raise ConfigError(f"config={str(path)!r} does not exist or is not a file; check the path") from None
    except UnicodeDecodeError:
        raise ConfigError(f"config={str(path)!r} is not UTF-8 text; save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config={str(path)!r} is not valid TOML ({exc}); fix the syntax") from None


def load_command_config(path: str | Path, cls: type, command: str) -> Any:
    """A command's recipe: ``cls``'s fields as top-level keys, or in one ``[command]`` table;
    unknown keys and values of the wrong type are errors. Paths in it are relative to the
    working directory, as on the command line."""
    path = Path(path)
    raw = _read_toml(path)
    if set(raw) == {command} and isinstance(raw[command], dict):
        raw = raw[command]
    source = f"config={str(path)!r}"
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
    config = RunConfig.from_dict(_read_toml(path), source=f"config={str(path)!r}")
    base = path.parent
    config.data.paths = [os.path.normpath(base / p) if not Path(p).is_absolute() else p for p in config.data.paths]
    if config.output.out is not None and not Path(config.output.out).is_absolute():
        config.output.out = os.path.normpath(base / config.output.out)
    return config
