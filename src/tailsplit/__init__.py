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
from tailsplit.pipeline.analyze import analyze
from tailsplit.pipeline.correlate import CorrelateResult, correlate
from tailsplit.pipeline.curve import CurveResult, curve
from tailsplit.pipeline.evaluate import evaluate
from tailsplit.pipeline.explore import ExploreResult, explore
from tailsplit.pipeline.export_hf import HfExportResult, export_hf
from tailsplit.pipeline.export_lm_eval import LmEvalExportResult, export_lm_eval
from tailsplit.pipeline.export_weights import WeightsExportResult, export_weights
from tailsplit.pipeline.ood_rank import OodRankResult, ood_rank
from tailsplit.pipeline.overlap import OverlapResult, audit_overlap
from tailsplit.pipeline.score import score
from tailsplit.pipeline.similarity import SimilarityResult, similarity
from tailsplit.pipeline.split import likelihood_split, split
from tailsplit.prompts import BUILTIN_TEMPLATES, PromptTemplate, resolve_template
from tailsplit.registry import SCORERS
from tailsplit.scoring import score_examples
from tailsplit.splits import (
    AfliteSplitter,
    LengthSplitter,
    LikelihoodSplitter,
    RandomSplitter,
    SplitInputs,
    Splitter,
    TemplateSplitter,
    TmcdSplitter,
)

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
    "LengthSplitter",
    "AfliteSplitter",
    "TemplateSplitter",
    "TmcdSplitter",
    "Splitter",
    "OutputConfig",
    "PromptTemplate",
    "RandomSplitter",
    "RunConfig",
    "RunResult",
    "ExploreResult",
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
    "explore",
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
