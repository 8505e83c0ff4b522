"""Run and command configuration: one dataclass per step or command, each field the single
declaration of an option (:mod:`.declare`), loadable from a TOML recipe (:mod:`.recipes`).

A run's recipe has the sections ``[data]``, ``[scoring]``, ``[split]`` and ``[output]``; keys
are the field names of :mod:`.run`. Relative paths in a recipe are relative to the recipe's
folder. CLI options override recipe values. Example::

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

from tailsplit.config.commands import (
    AnalyzeConfig,
    CorrelateConfig,
    CurveConfig,
    EvaluateConfig,
    HfExportConfig,
    LmEvalExportConfig,
    OodRankConfig,
    SimilarityConfig,
    WeightsExportConfig,
)
from tailsplit.config.declare import (
    Option,
    check_values,
    declare_field_flags,
    declared_option,
    field_types,
    flag_of,
    option,
    refuse_unknown,
)
from tailsplit.config.explore import ExploreConfig
from tailsplit.config.overlap import OverlapConfig
from tailsplit.config.recipes import load_command_config, load_config
from tailsplit.config.run import (
    CONFIG_SECTIONS,
    NULL_SPLITS,
    DataConfig,
    OutputConfig,
    RunConfig,
    ScoringConfig,
    SplitConfig,
    describe_table,
)
from tailsplit.errors import declare_flag_keywords, declare_switches

COMMAND_CONFIGS: tuple[type, ...] = (
    DataConfig,
    ScoringConfig,
    SplitConfig,
    OutputConfig,
    AnalyzeConfig,
    EvaluateConfig,
    OverlapConfig,
    SimilarityConfig,
    OodRankConfig,
    CorrelateConfig,
    CurveConfig,
    ExploreConfig,
    LmEvalExportConfig,
    HfExportConfig,
    WeightsExportConfig,
)

declare_switches(f.name for cls in COMMAND_CONFIGS for f in dataclasses.fields(cls) if f.type in (bool, "bool"))


def _flag_keywords() -> dict[str, str]:
    """Each flag named otherwise than its field (``--label-word``: ``label_words``), unless
    another field has the flag's name (``--encoder`` is curve's ``encoders`` and others' ``encoder``)."""
    fields = {f.name: f for cls in COMMAND_CONFIGS for f in dataclasses.fields(cls)}
    keywords: dict[str, str] = {}
    for name, f in fields.items():
        declared = declared_option(f)
        if declared is None or declared.flag is None:
            continue
        flag = declared.flag.split("/")[0].removeprefix("--")
        if flag.replace("-", "_") != name and flag.replace("-", "_") not in fields:
            keywords[flag] = name
    return keywords


declare_flag_keywords(_flag_keywords())
declare_field_flags({name: f"--{flag}" for flag, name in _flag_keywords().items()})

__all__ = [
    "AnalyzeConfig",
    "CONFIG_SECTIONS",
    "COMMAND_CONFIGS",
    "CorrelateConfig",
    "CurveConfig",
    "DataConfig",
    "EvaluateConfig",
    "ExploreConfig",
    "HfExportConfig",
    "LmEvalExportConfig",
    "WeightsExportConfig",
    "NULL_SPLITS",
    "OodRankConfig",
    "Option",
    "OutputConfig",
    "OverlapConfig",
    "RunConfig",
    "ScoringConfig",
    "SimilarityConfig",
    "SplitConfig",
    "check_values",
    "declared_option",
    "field_types",
    "describe_table",
    "flag_of",
    "load_command_config",
    "load_config",
    "option",
    "refuse_unknown",
]
