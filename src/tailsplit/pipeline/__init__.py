"""The only layer that wires steps together; one module per command, holding its function and
its result type (``similarity.py``: ``similarity`` and ``SimilarityResult``). A command's
Python function is hand-written in its module with explicit keyword parameters (``tailsplit``
exports them); this package exports the config-level calls the command line uses, so each
module's name (``tailsplit.pipeline.evaluate``, ``.curve``) is the module, not a function."""

from tailsplit.pipeline.analyze import AnalysisResult
from tailsplit.pipeline.correlate import correlate_config
from tailsplit.pipeline.curve import curve_config
from tailsplit.pipeline.evaluate import EvaluationResult
from tailsplit.pipeline.ood_rank import ood_rank_config
from tailsplit.pipeline.overlap import audit_overlap_config
from tailsplit.pipeline.runs.folder import output_records
from tailsplit.pipeline.runs.loading import load_dataset, score_dataset
from tailsplit.pipeline.runs.result import RunResult, write_split
from tailsplit.pipeline.runs.steps import run, split_dataset
from tailsplit.pipeline.score import ScoreResult, score_data
from tailsplit.pipeline.similarity import similarity_config

__all__ = [
    "AnalysisResult",
    "EvaluationResult",
    "RunResult",
    "ScoreResult",
    "audit_overlap_config",
    "correlate_config",
    "curve_config",
    "load_dataset",
    "ood_rank_config",
    "output_records",
    "run",
    "score_data",
    "score_dataset",
    "similarity_config",
    "split_dataset",
    "write_split",
]
