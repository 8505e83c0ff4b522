"""tailsplit: Likelihood Splits and split analysis for NLP benchmarks.

>>> import tailsplit
>>> config = tailsplit.RunConfig()
>>> config.data = tailsplit.DataConfig(paths=["snli.jsonl"], text="hypothesis", context="premise",
...                                    label="label")
>>> config.scoring.template = "snli"
>>> result = tailsplit.run(config)  # doctest: +SKIP
"""

from tailsplit._version import __version__
from tailsplit.config import (
    DataConfig,
    OutputConfig,
    RunConfig,
    ScoringConfig,
    SplitConfig,
    load_config,
)
from tailsplit.core import Dataset, FieldMap, ScoreTable, SplitIndices
from tailsplit.errors import ConfigError, InputError, ScoringError, TailsplitError
from tailsplit.io import load_examples
from tailsplit.pipeline import RunResult, run, score, score_dataset, split_dataset
from tailsplit.prompts import BUILTIN_TEMPLATES, PromptTemplate, resolve_template
from tailsplit.registry import SCORERS
from tailsplit.scoring import score_examples
from tailsplit.splits import LikelihoodSplitter, RandomSplitter, SplitInputs

__all__ = [
    "__version__",
    "BUILTIN_TEMPLATES",
    "ConfigError",
    "DataConfig",
    "Dataset",
    "FieldMap",
    "InputError",
    "LikelihoodSplitter",
    "OutputConfig",
    "PromptTemplate",
    "RandomSplitter",
    "RunConfig",
    "RunResult",
    "SCORERS",
    "ScoreTable",
    "ScoringConfig",
    "ScoringError",
    "SplitConfig",
    "SplitIndices",
    "SplitInputs",
    "TailsplitError",
    "load_config",
    "load_examples",
    "resolve_template",
    "run",
    "score",
    "score_dataset",
    "score_examples",
    "split_dataset",
]
