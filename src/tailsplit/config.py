"""Run configuration: one dataclass per step, loadable from a TOML recipe.

A recipe has the sections ``[data]``, ``[scoring]``, ``[split]`` and ``[output]``; keys are
the field names below. Relative paths in a recipe are relative to the recipe's folder.
CLI options override recipe values. Example::

    [data]
    paths = ["snli/dev.jsonl.gz", "snli/test.jsonl.gz"]
    text = "hypothesis"
    context = "premise"
    label = "label"

    [scoring]
    template = "snli"

    [split]
    balance_labels = true
    dev_size = 0.1
    test_size = 0.1

    [output]
    out = "snli-likelihood"
"""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tailsplit.core import FieldMap
from tailsplit.errors import ConfigError, declare_switches, keyword_spelling


@dataclass(frozen=True)
class Bounds:
    """The allowed range of a numeric option (each value of a list option), declared once on
    its config field; NaN and infinities are never allowed."""

    low: float | None = None
    high: float | None = None

    def describe(self) -> str:
        if self.low is None and self.high is None:
            return "a finite number"
        if self.low is not None and self.high is not None:
            return f"between {self.low} and {self.high}"
        return f"at least {self.low}" if self.low is not None else f"at most {self.high}"

    def allows(self, value: float) -> bool:
        return (
            math.isfinite(value)
            and (self.low is None or value >= self.low)
            and (self.high is None or value <= self.high)
        )


def bounded(default: Any, low: float | None = None, high: float | None = None) -> Any:
    """A dataclass field whose numbers must lie in [low, high] (see :func:`check_bounds`)."""
    return field(default=default, metadata={"bounds": Bounds(low, high)})


def check_bounds(config: Any) -> None:
    """Refuse a numeric option outside its declared range, naming the option and the range.

    >>> check_bounds(OverlapConfig(k=0))
    Traceback (most recent call last):
    tailsplit.errors.ConfigError: k=0 must be at least 1; give a value at least 1
    """
    for f in dataclasses.fields(config):
        bounds = f.metadata.get("bounds")
        if bounds is None:
            continue
        value = getattr(config, f.name)
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if item is None or isinstance(item, bool) or not isinstance(item, (int, float)):
                continue  # absent, or a type error that the type checks report
            if not bounds.allows(item):
                flag = "--" + f.name.replace("_", "-")
                raise ConfigError(f"{flag}={value!r} must be {bounds.describe()}; give a value {bounds.describe()}")


class Checked:
    """Config classes whose fields declare their ranges: checked when built (and again by the
    pipeline, since fields may be set afterwards)."""

    def __post_init__(self) -> None:
        keyword_spelling(check_bounds)(self)


NULL_SPLITS = 500  # random splits in each null distribution, unless asked otherwise
SCORING_METHODS = ("prompted", "ngram", "kfold")
SCORING_ENGINES = ("local", "ray")
ANALYSIS_TEXTS = ("query", "pair")


@dataclass
class DataConfig(Checked):
    """Where the examples come from — files (``paths``), a table in memory (``table``: a pandas
    DataFrame, pyarrow Table, datasets Dataset or DatasetDict, or a list of dicts; Python only)
    or a Hugging Face hub dataset (``dataset = "NAME[:CONFIG]"``, needs network) — and which
    fields play which role (a field may be a dotted path into nested records)."""

    paths: list[str] = field(default_factory=list)
    table: Any = field(default=None, repr=False)
    dataset: str | None = None
    text: str = "text"
    context: str | None = None
    label: str | None = None
    group: str | None = None
    id: str = "id"
    program: str | None = None
    program_kind: str = "sql"
    count: str = "examples"  # how atoms/compounds count in divergences: examples or occurrences
    score_column: str | None = None  # scores already in the data (total log-probability per example)
    model_name: str | None = None  # the model that made scores given from elsewhere, for the manifest

    def field_map(self) -> FieldMap:
        return FieldMap(
            text=self.text, context=self.context, label=self.label, group=self.group, id=self.id, program=self.program
        )


@dataclass
class ScoringConfig(Checked):
    method: str = "prompted"
    folds: int = bounded(3, 2)
    fold_seed: int = 0
    fold_match: str = "exact"
    ngram_order: int = bounded(3, 1)
    finetune_preset: str | None = None
    finetune_steps: int | None = bounded(None, 1)
    finetune_batch_size: int | None = bounded(None, 1)
    finetune_learning_rate: float | None = bounded(None, 0)
    finetune_eval_every: int | None = bounded(None, 1)
    finetune_lora_rank: int | None = bounded(None, 1)
    finetune_full: bool = False
    backend: str = "hf"
    model: str = "smollm2"
    template: str = "plain"
    label_words: dict[str, str] = field(default_factory=dict)
    device: str = "auto"
    dtype: str = "float32"
    batch_tokens: int | None = bounded(None, 1)
    max_batch_size: int | None = bounded(None, 1)
    start_token: str = "bos"
    score_eos: bool = False
    end_token: str = "eos"
    max_tokens: int | None = bounded(None, 1)
    truncation: str = "left"
    share_prefix: str = "auto"
    implementation: str = "auto"
    cache_dir: str | None = None
    use_cache: bool = True
    engine: str = "local"
    ray_address: str | None = None
    workers: int = bounded(1, 1)
    cpus_per_worker: float = bounded(1.0, 0)
    gpus_per_worker: float = bounded(0.0, 0)
    shard_tokens: int = bounded(2_000_000, 1)

    def scorer_params(self, factory: Any) -> dict[str, Any]:
        """Keyword arguments for the backend ``factory``: the config fields its signature names
        (as ``Splitter.get_params`` does for splitters), so a scorer option is declared once, in
        the scorer's constructor, and here as a field."""
        import inspect

        named = set(inspect.signature(factory).parameters)
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name in named}


@dataclass
class SplitConfig(Checked):
    splitter: str = "likelihood"
    dev_size: float | int = 0.1
    test_size: float | int = 0.1
    rank: str = "logprob_sum"
    reverse: bool = False
    length_buckets: int | str | None = None
    balance_labels: bool = False
    atom_constraint: bool = False
    length_of: str = "text"
    max_iterations: int | None = bounded(None, 0)
    partitions: int = bounded(64, 1)
    train_share: float = bounded(0.5, 0.0, 1.0)
    removals_per_round: float | int = 0.05
    predictability_threshold: float = bounded(0.75, 0.0, 1.0)
    rounds: int | None = bounded(None, 0)
    encoder: str | None = None  # feature vectors for the aflite splitter [default: the bundled encoder]
    seed: int = 0

    def splitter_params(self, accepted: list[str]) -> dict[str, Any]:
        """Parameters for a splitter that accepts ``accepted``; a non-default value it does not
        accept is an error rather than silently ignored."""
        defaults = SplitConfig()
        params = {}
        for f in dataclasses.fields(self):
            if f.name in ("splitter", "encoder"):  # encoder: the pipeline's, for splitters that need features
                continue
            value = getattr(self, f.name)
            if f.name in accepted:
                params[f.name] = value
            elif value != getattr(defaults, f.name):
                raise ConfigError(
                    f"{f.name}={value!r} does not apply to splitter={self.splitter!r}; it accepts {accepted}"
                )
        return params


@dataclass
class OutputConfig(Checked):
    out: str | None = None
    overwrite: bool = False
    analyze: bool = True
    null_splits: int = NULL_SPLITS
    analysis_text: str = "query"  # what text statistics read: query, or pair (context + query)
    syntax: bool = True  # dependency depth, when a spaCy English pipeline is installed
    format: str | None = None  # jsonl, csv, tsv, parquet or hf (save_to_disk folders); default: the input's


@dataclass
class OverlapConfig(Checked):
    """``tailsplit overlap``: a test set audited against a corpus."""

    test: list[str] = field(default_factory=list)
    text: str = "text"
    id: str = "id"
    label: str | None = None
    corpus: list[str] = field(default_factory=list)
    corpus_field: str = "text"
    index_dir: str | None = None
    query_kind: str = "generic"
    required_fields: list[str] = field(default_factory=list)
    window: int = bounded(10, 0)
    k: int = bounded(5, 1)
    ngram_orders: tuple[int, ...] = bounded((8, 13), 1)
    k1: float = bounded(1.5, 0)
    b: float = bounded(0.75, 0, 1)
    threshold: float | None = bounded(None)
    top_quantile: float | None = bounded(None, 0, 1)
    predictions: str | None = None
    prediction_field: str = "prediction"
    shards: int = bounded(1, 1)
    engine: str = "local"
    ray_address: str | None = None
    seed: int = 0
    out: str | None = None
    overwrite: bool = False


@dataclass
class RunConfig:
    data: DataConfig = field(default_factory=DataConfig)
    scoring: ScoringConfig = field(default_factory=ScoringConfig)
    split: SplitConfig = field(default_factory=SplitConfig)
    output: OutputConfig = field(default_factory=OutputConfig)

    def as_dict(self) -> dict[str, Any]:
        """Plain values for a manifest; an in-memory table is described (kind), not copied."""
        table = self.data.table
        if table is None:
            return dataclasses.asdict(self)
        self.data.table = None
        try:
            out = dataclasses.asdict(self)
        finally:
            self.data.table = table
        out["data"]["table"] = {"in_memory": describe_table(table)}
        return out

    @staticmethod
    def from_dict(raw: dict[str, Any], *, source: str = "config", strict: bool = True) -> RunConfig:
        """A config from its sections (a TOML recipe, or a manifest's ``config``). ``strict``
        refuses unknown sections and keys and values of the wrong type, naming ``source``;
        otherwise (a manifest written by another version) unknown keys are left out."""
        sections: dict[str, Any] = {}
        for name, values in raw.items():
            if name not in _SECTIONS or not isinstance(values, dict):
                if strict:
                    raise ConfigError(f"{source} has section [{name}]; use {sorted(_SECTIONS)}")
                continue
            hints = typing.get_type_hints(_SECTIONS[name])
            known = [f.name for f in dataclasses.fields(_SECTIONS[name])]
            kept = {}
            for key, value in values.items():
                if name == "data" and key == "table":
                    if strict and value is not None:
                        raise ConfigError(f"{source} [data] sets table; a table in memory is passed from Python")
                    continue
                if key not in known:
                    if strict:
                        raise ConfigError(f"{source} [{name}] has key {key!r}; use one of {known}")
                    continue
                if strict and not value_has_type(value, hints[key]):
                    raise ConfigError(
                        f"{source} [{name}] {key} = {value!r} is not of type "
                        f"{_type_name(hints[key])}; write e.g. {key} = {_example(hints[key])}"
                    )
                kept[key] = value
            sections[name] = _SECTIONS[name](**kept)
        return RunConfig(**sections)


def describe_table(table: Any) -> str:
    """What an in-memory table is, for manifests and messages: ``"pandas.DataFrame"``..."""
    if isinstance(table, (list, tuple)):
        return "list[dict]"
    return f"{type(table).__module__.split('.')[0]}.{type(table).__name__}"


CONFIG_SECTIONS: dict[str, type] = {
    "data": DataConfig,
    "scoring": ScoringConfig,
    "split": SplitConfig,
    "output": OutputConfig,
}
_SECTIONS = CONFIG_SECTIONS


def value_has_type(value: Any, hint: Any) -> bool:
    """Whether a TOML value fits a field's annotation (``bool`` is not a number here).

    >>> value_has_type("file", list[str]), value_has_type(["a"], list[str]), value_has_type(0.1, float | int)
    (False, True, True)
    """
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(value_has_type(value, a) for a in args)
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin in (list, tuple):
        return isinstance(value, list) and all(value_has_type(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            value_has_type(k, args[0]) and value_has_type(v, args[1]) for k, v in value.items()
        )
    return True


def _type_name(hint: Any) -> str:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in args)
    origin = typing.get_origin(hint)
    if origin in (list, tuple):
        return f"a list of {_type_name(args[0])}"
    if origin is dict:
        return "a table of text"
    return {bool: "true/false", int: "a whole number", float: "a number", str: "text"}.get(hint, str(hint))


def _example(hint: Any) -> str:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return _example(args[0])
    if typing.get_origin(hint) in (list, tuple):
        return f"[{_example(args[0])}]"
    if typing.get_origin(hint) is dict:
        return '{ entailment = "entailed" }'
    return {bool: "true", int: "3", float: "0.1", str: '"..."'}.get(hint, "...")


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
            raise ConfigError(
                f"{source} {key} = {value!r} is not of type {_type_name(hints[key])}; "
                f"write e.g. {key} = {_example(hints[key])}"
            )
    return cls(**raw)


def load_config(path: str | Path) -> RunConfig:
    """Read a TOML recipe; unknown sections or keys are errors that list the valid ones."""
    path = Path(path)
    config = RunConfig.from_dict(_read_toml(path), source=f"config={str(path)!r}")
    base = path.parent
    config.data.paths = [os.path.normpath(base / p) if not Path(p).is_absolute() else p for p in config.data.paths]
    if config.output.out is not None and not Path(config.output.out).is_absolute():
        config.output.out = os.path.normpath(base / config.output.out)
    return config


@dataclass
class SimilarityConfig(Checked):
    """``tailsplit similarity``: how far apart datasets (or a split's parts) are."""

    datasets: list[str] = field(default_factory=list)  # [NAME=]PATH[@FIELD[+FIELD...]]
    splits: list[str] = field(default_factory=list)  # split folders; their parts become datasets
    encoder: str | None = None
    batch_size: int = bounded(64, 1)
    max_examples: int | None = bounded(None, 2)
    mmd_sample: int = bounded(1000, 2)
    permutations: int = bounded(200, 1)
    seed: int = 0
    out: str | None = None
    overwrite: bool = False


@dataclass
class OodRankConfig(Checked):
    """``tailsplit ood-rank``: OOD candidates for an ID dataset, by BOSS's criteria."""

    id: str = ""
    candidates: str = ""  # CSV: name, path, fields, source[, accuracy]
    id_accuracy: float | None = bounded(None)
    max_similarity: float | None = bounded(None)
    min_drop: float = bounded(0.0)
    encoder: str | None = None
    batch_size: int = bounded(64, 1)
    max_examples: int | None = bounded(None, 2)
    seed: int = 0
    out: str | None = None
    overwrite: bool = False


@dataclass
class CorrelateConfig(Checked):
    """``tailsplit correlate``: Type I / II / III fits of (ID, OOD) accuracy points."""

    points: str = ""
    group: str | None = None
    out: str | None = None
    overwrite: bool = False


@dataclass
class EvaluateConfig(Checked):
    """``tailsplit evaluate``: baselines trained on each split's train part, scored on test."""

    split_dirs: list[str] = field(default_factory=list)
    baselines: list[str] = field(default_factory=list)  # default: by task (tfidf[, tfidf-text] or nn-sql)
    input_fields: list[str] = field(default_factory=list)  # default: the split's context and text; the last is "text"
    predictions: list[str] = field(default_factory=list)  # one file per split folder: id, prediction
    bucket: str | None = None  # "hardness", or a record field [default: hardness or label]
    zero_shot: bool = False  # also the split's LM as a zero-shot classifier
    zero_shot_template: str | None = None  # [default: the split's scoring template]
    encoder: str | None = None  # embed/encoder baselines [default: bundled all-MiniLM-L6-v2]
    max_steps: int = bounded(800, 1)  # encoder baseline: training steps (batch 32)
    max_train: int | None = bounded(None, 1)  # encoder baseline: subsample train (quick looks)
    device: str = "auto"  # encoder baseline: cpu, cuda, cuda:N, auto
    leakage_threshold: float = bounded(0.05, 0, 1)  # mark random baselines whose test queries overlap train more
    agreement_field: str | None = None  # each example's annotator labels: agreement per split in the fairness table
    fairness_margin: float = bounded(0.02, 0, 1)  # largest penalty to the in-the-loop model that does not matter
    accept_modified: bool = False  # read split folders whose data files changed since tailsplit wrote them
    seed: int = 0
    out: str | None = None
    overwrite: bool = False


declare_switches(
    f.name
    for value in list(globals().values())
    if dataclasses.is_dataclass(value) and isinstance(value, type)
    for f in dataclasses.fields(value)
    if f.type in (bool, "bool")
)
