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
    OverlapConfig,
    SimilarityConfig,
)
from tailsplit.config.declare import (
    Option,
    check_values,
    config_from_keywords,
    declared_option,
    flag_of,
    option,
    path_text,
    refuse_unknown,
)
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
from tailsplit.errors import declare_switches

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
    LmEvalExportConfig,
    HfExportConfig,
)

declare_switches(f.name for cls in COMMAND_CONFIGS for f in dataclasses.fields(cls) if f.type in (bool, "bool"))

__all__ = [
    "AnalyzeConfig",
    "CONFIG_SECTIONS",
    "COMMAND_CONFIGS",
    "CorrelateConfig",
    "CurveConfig",
    "DataConfig",
    "EvaluateConfig",
    "HfExportConfig",
    "LmEvalExportConfig",
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
    "config_from_keywords",
    "declared_option",
    "describe_table",
    "flag_of",
    "load_command_config",
    "load_config",
    "option",
    "path_text",
    "refuse_unknown",
]
