"""A command's ``manifest.json`` as a type: the one module that reads and writes it.

Every command writes one (what ran, on what, with which settings, and the sha256 of each
file written); later commands read it back (``analyze``, ``evaluate`` and the exports read a
split folder's). Readers go through :class:`Manifest`, whose properties are the keys, so a
renamed key is a type error rather than a silent ``.get()`` default; a key of the wrong JSON
type is refused when the file is read, naming the file and the key.

>>> m = Manifest.from_record({"tailsplit_version": "1", "config": {"data": {"text": "q"}},
...                           "outputs": {"train.jsonl": "ab"}, "splitter": {"name": "random"}})
>>> m.config.data["text"], m.splitter.name, list(m.outputs), m.seed
('q', 'random', ['train.jsonl'], None)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tailsplit.errors import InputError
from tailsplit.io.values import strict_json

MANIFEST = "manifest.json"

# The JSON type of each key a reader uses (absent keys read as empty / None).
_KEY_TYPES: dict[str, type | tuple[type, ...]] = {
    "tailsplit_version": str,
    "command": list,
    "config": dict,
    "inputs": list,
    "outputs": dict,
    "method": str,
    "model": dict,
    "template": dict,
    "backend": str,
    "folds": dict,
    "splitter": dict,
    "seed": int,
    "sizes": dict,
    "class_labels": dict,
    "modified_files": list,
    "scores_file": dict,
}


# Keys inside a section, by their dotted path: the splitter's parts and a run's config sections
# (their fields are checked against their declarations where a run's config is read back).
_NESTED_TYPES: dict[str, type | tuple[type, ...]] = {
    "splitter.name": str,
    "splitter.params": dict,
    "splitter.details": dict,
    **{f"config.{section}": dict for section in ("data", "scoring", "split", "output")},
}


def _nested(record: Mapping[str, Any], dotted: str) -> Any:
    """The value at a dotted path, or ``None`` where a step is missing or not a mapping."""
    value: Any = record
    for step in dotted.split("."):
        value = value.get(step) if isinstance(value, Mapping) else None
    return value


def _section(values: Mapping[str, Any], name: str) -> dict[str, Any]:
    value = values.get(name)
    return dict(value) if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class ConfigRecord:
    """The configuration a command recorded; a run's has the sections ``data``, ``scoring``,
    ``split`` and ``output`` (empty when absent, as in other commands' manifests)."""

    values: Mapping[str, Any] = field(default_factory=dict)

    @property
    def data(self) -> dict[str, Any]:
        return _section(self.values, "data")

    @property
    def scoring(self) -> dict[str, Any]:
        return _section(self.values, "scoring")

    @property
    def split(self) -> dict[str, Any]:
        return _section(self.values, "split")

    @property
    def output(self) -> dict[str, Any]:
        return _section(self.values, "output")

    @property
    def seed(self) -> Any:
        """A command's own ``seed`` setting (a run's is under ``split``)."""
        return self.values.get("seed")

    def roles(self, names: tuple[str, ...]) -> dict[str, Any]:
        """The data fields recorded for the roles ``names`` (a role not recorded left out: an
        older file says nothing of it). Typed reads go through ``tailsplit.config.recorded``;
        this one asks what was recorded at all."""
        data = self.data
        return {name: data[name] for name in names if name in data}


@dataclass(frozen=True)
class InputRecord:
    """One input: a file with its sha256 and rows, or an in-memory table with its kind and
    content hash."""

    path: str | None
    sha256: str | None
    rows: int | None
    in_memory: str | None = None
    content_sha256: str | None = None
    about: Mapping[str, str] = field(default_factory=dict)

    @property
    def identity(self) -> str:
        """What names the input's content: its file's sha256, else the table's content hash."""
        return str(self.sha256 or self.content_sha256)

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> InputRecord:
        return cls(
            path=record.get("path"),
            sha256=record.get("sha256"),
            rows=record.get("rows"),
            in_memory=record.get("in_memory"),
            content_sha256=record.get("content_sha256"),
            about=dict(record.get("about") or {}),
        )


@dataclass(frozen=True)
class SplitterRecord:
    """The splitter a run used, its parameters and what it reported."""

    name: str = "?"
    params: Mapping[str, Any] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Manifest:
    """A manifest read back: typed keys over ``record``, the JSON as written (every key,
    including a command's own, which its result type reads)."""

    record: Mapping[str, Any]

    @classmethod
    def of(cls, manifest: Manifest | Mapping[str, Any]) -> Manifest:
        """A manifest as it is, or one a command has just built (a dict), typed."""
        return manifest if isinstance(manifest, Manifest) else cls(dict(manifest))

    @classmethod
    def from_record(cls, record: Mapping[str, Any], *, path: Path | None = None) -> Manifest:
        """Check each known key's JSON type; a wrong one is refused, naming the key."""
        for key, kind in (*_KEY_TYPES.items(), *_NESTED_TYPES.items()):
            value = _nested(record, key)
            if value is not None and (not isinstance(value, kind) or (kind is int and isinstance(value, bool))):
                raise InputError(
                    f"has {key!r} of the wrong type ({type(value).__name__})",
                    path=path or Path(MANIFEST),
                    fix="rewrite the folder with the tailsplit command that made it",
                )
        return cls(dict(record))

    @property
    def tailsplit_version(self) -> str | None:
        return self.record.get("tailsplit_version")

    @property
    def command(self) -> list[str]:
        return [str(part) for part in self.record.get("command") or []]

    @property
    def config(self) -> ConfigRecord:
        config = self.record.get("config")
        return ConfigRecord(config if isinstance(config, Mapping) else {})

    @property
    def inputs(self) -> list[InputRecord]:
        return [InputRecord.from_record(r) for r in self.record.get("inputs") or [] if isinstance(r, Mapping)]

    @property
    def input_records(self) -> list[dict[str, Any]]:
        """The inputs as recorded (every key), for a manifest that copies them."""
        return [dict(r) for r in self.record.get("inputs") or []]

    @property
    def outputs(self) -> dict[str, str]:
        """sha256 of each file the command wrote, by its path in the folder."""
        return dict(self.record.get("outputs") or {})

    @property
    def method(self) -> str | None:
        """How the scores were made (``prompted``, ``kfold``, ...), as the score file recorded."""
        return self.record.get("method")

    @property
    def model(self) -> dict[str, Any] | None:
        return self.record.get("model") or None

    @property
    def template(self) -> dict[str, Any] | None:
        return self.record.get("template") or None

    @property
    def folds(self) -> dict[str, Any]:
        return dict(self.record.get("folds") or {})

    @property
    def splitter(self) -> SplitterRecord:
        s = self.record.get("splitter") or {}
        return SplitterRecord(str(s.get("name", "?")), dict(s.get("params") or {}), dict(s.get("details") or {}))

    @property
    def has_splitter(self) -> bool:
        return bool(self.record.get("splitter"))

    @property
    def seed(self) -> int | None:
        """The run's seed (another command's is :attr:`ConfigRecord.seed`)."""
        return self.record.get("seed")

    @property
    def has_seed(self) -> bool:
        return "seed" in self.record

    @property
    def sizes(self) -> dict[str, int]:
        return dict(self.record.get("sizes") or {})

    @property
    def class_labels(self) -> dict[str, list[str]]:
        return dict(self.record.get("class_labels") or {})

    @property
    def modified_files(self) -> list[str]:
        """Data files changed since tailsplit wrote them, read anyway (``--accept-modified``)."""
        return list(self.record.get("modified_files") or [])

    @property
    def scores_file(self) -> dict[str, Any] | None:
        return self.record.get("scores_file") or None

    def scoring_meta(self) -> dict[str, Any]:
        """What says how the scores were made: method, model, template, backend, folds."""
        return {k: self.record.get(k) for k in ("method", "model", "template", "backend", "folds")}

    def with_modified(self, names: list[str]) -> Manifest:
        """This manifest, listing ``names`` (besides any already listed) as modified."""
        if not names:
            return self
        listed = [*self.modified_files, *(n for n in names if n not in self.modified_files)]
        return Manifest({**self.record, "modified_files": listed})

    def with_sizes(self, sizes: Mapping[str, int]) -> Manifest:
        """This manifest with each part's size as ``sizes`` says (what an export holds)."""
        return Manifest({**self.record, "sizes": dict(sizes)})

    def with_output(self, **values: Any) -> Manifest:
        """This manifest with ``values`` set in its configuration's ``output`` section (a run
        written to another folder), or as it is when it records none."""
        config = self.record.get("config")
        if not isinstance(config, Mapping) or not isinstance(config.get("output"), Mapping):
            return self
        return Manifest({**self.record, "config": {**config, "output": {**config["output"], **values}}})

    def as_dict(self) -> dict[str, Any]:
        return dict(self.record)


def manifest_text(record: Mapping[str, Any]) -> str:
    """The JSON a manifest is written as (strict: NaN and infinities as null)."""
    return strict_json(dict(record))


def read_manifest_file(path: Path) -> Manifest:
    """The manifest at ``path``: valid JSON, an object, each known key of its type."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(
            f"is not valid JSON ({exc.msg})", path=path, line=exc.lineno, fix="rewrite the split with tailsplit split"
        ) from None
    except UnicodeDecodeError:
        raise InputError("is not UTF-8 text", path=path, fix="rewrite the split with tailsplit split") from None
    if not isinstance(record, dict):
        raise InputError("is not a tailsplit manifest", path=path, fix="rewrite the split with tailsplit split")
    return Manifest.from_record(record, path=path)
