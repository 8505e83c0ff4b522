"""tailsplit: Likelihood Splits and split analysis for NLP benchmarks.

>>> import tailsplit
>>> config = tailsplit.RunConfig()
>>> config.data = tailsplit.DataConfig(paths=["snli.jsonl"], text="hypothesis", context="premise",
...                                    label="label")
>>> config.scoring.template = "snli"
>>> result = tailsplit.run(config)  # doctest: +SKIP
"""

__version__ = "0.1.0"

from tailsplit.config import (  # noqa: E402 - __version__ must exist before the pipeline imports it
    DataConfig, OutputConfig, RunConfig, ScoringConfig, SplitConfig, load_config,
)
from tailsplit.core import Dataset, FieldMap, ScoreTable, SplitIndices  # noqa: E402
from tailsplit.errors import ConfigError, InputError, ScoringError, TailsplitError  # noqa: E402
from tailsplit.io import load_examples  # noqa: E402
from tailsplit.pipeline import RunResult, run, score, score_dataset, split_dataset  # noqa: E402
from tailsplit.prompts import BUILTIN_TEMPLATES, PromptTemplate, resolve_template  # noqa: E402
from tailsplit.registry import SCORERS  # noqa: E402
from tailsplit.scoring import score_examples  # noqa: E402
from tailsplit.splits import LikelihoodSplitter, RandomSplitter, SplitInputs  # noqa: E402

__all__ = [
    "BUILTIN_TEMPLATES", "ConfigError", "DataConfig", "Dataset", "FieldMap", "InputError",
    "LikelihoodSplitter", "OutputConfig", "PromptTemplate", "RandomSplitter", "RunConfig",
    "RunResult", "SCORERS", "ScoreTable", "ScoringConfig", "ScoringError", "SplitConfig",
    "SplitIndices", "SplitInputs", "TailsplitError", "load_config", "load_examples",
    "resolve_template", "run", "score", "score_dataset", "score_examples", "split_dataset",
]
