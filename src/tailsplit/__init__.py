"""tailsplit: Likelihood Splits and split analysis for NLP benchmarks.

>>> import tailsplit
>>> result = tailsplit.likelihood_split("snli.jsonl", text="hypothesis", context="premise",
...                                     label="label", template="snli")  # doctest: +SKIP
>>> frame = result.to_pandas()  # doctest: +SKIP
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
from tailsplit.pipeline import (
    AnalysisResult,
    EvaluationResult,
    RunResult,
    ScoreResult,
    run,
    score_dataset,
    split_dataset,
)
from tailsplit.pipeline.correlate import CorrelateResult
from tailsplit.pipeline.curve import CurveResult
from tailsplit.pipeline.export_hf import HfExportResult
from tailsplit.pipeline.export_lm_eval import LmEvalExportResult
from tailsplit.pipeline.export_weights import WeightsExportResult
from tailsplit.pipeline.ood_rank import OodRankResult
from tailsplit.pipeline.overlap import OverlapResult
from tailsplit.pipeline.signatures import (
    analyze,
    audit_overlap,
    correlate,
    curve,
    evaluate,
    export_hf,
    export_lm_eval,
    export_weights,
    likelihood_split,
    ood_rank,
    score,
    similarity,
    split,
)
from tailsplit.pipeline.similarity import SimilarityResult
from tailsplit.prompts import BUILTIN_TEMPLATES, PromptTemplate, resolve_template
from tailsplit.registry import SCORERS
from tailsplit.scoring import score_examples
from tailsplit.splits import LikelihoodSplitter, RandomSplitter, SplitInputs

__all__ = [
    "__version__",
    "AnalysisResult",
    "BUILTIN_TEMPLATES",
    "CorrelateResult",
    "CurveResult",
    "HfExportResult",
    "LmEvalExportResult",
    "OodRankResult",
    "OverlapResult",
    "SimilarityResult",
    "WeightsExportResult",
    "ConfigError",
    "DataConfig",
    "Dataset",
    "EvaluationResult",
    "FieldMap",
    "InputError",
    "LikelihoodSplitter",
    "OutputConfig",
    "PromptTemplate",
    "RandomSplitter",
    "RunConfig",
    "RunResult",
    "ScoreResult",
    "SCORERS",
    "ScoreTable",
    "ScoringConfig",
    "ScoringError",
    "SplitConfig",
    "SplitIndices",
    "SplitInputs",
    "TailsplitError",
    "analyze",
    "audit_overlap",
    "correlate",
    "curve",
    "evaluate",
    "export_hf",
    "export_lm_eval",
    "export_weights",
    "likelihood_split",
    "load_config",
    "load_examples",
    "ood_rank",
    "resolve_template",
    "run",
    "score",
    "score_dataset",
    "score_examples",
    "similarity",
    "split",
    "split_dataset",
]
