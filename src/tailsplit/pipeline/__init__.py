"""The only layer that wires steps together; one module per family of commands."""

from tailsplit.pipeline.analyses import AnalysisResult
from tailsplit.pipeline.curve import curve_config
from tailsplit.pipeline.evaluation import EvaluationResult
from tailsplit.pipeline.overlap import audit_overlap_config
from tailsplit.pipeline.result import RunResult, write_split
from tailsplit.pipeline.runs import run, split_dataset
from tailsplit.pipeline.score_result import ScoreResult
from tailsplit.pipeline.scoring import load_dataset, score_data, score_dataset
from tailsplit.pipeline.shift import correlate_config, ood_rank_config, similarity_config
from tailsplit.pipeline.signatures import (
    analyze,
    audit_overlap,
    correlate,
    curve,
    evaluate,
    export_hf,
    export_lm_eval,
    likelihood_split,
    ood_rank,
    score,
    similarity,
    split,
)
from tailsplit.pipeline.split_folder import output_records

__all__ = [
    "AnalysisResult",
    "EvaluationResult",
    "RunResult",
    "ScoreResult",
    "analyze",
    "audit_overlap",
    "audit_overlap_config",
    "correlate",
    "correlate_config",
    "curve",
    "curve_config",
    "evaluate",
    "export_hf",
    "export_lm_eval",
    "likelihood_split",
    "load_dataset",
    "ood_rank",
    "ood_rank_config",
    "output_records",
    "run",
    "score",
    "score_data",
    "score_dataset",
    "similarity",
    "similarity_config",
    "split",
    "split_dataset",
    "write_split",
]
