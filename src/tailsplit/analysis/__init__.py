"""Describing splits: per-part summaries (more metrics arrive with the analysis report)."""

from tailsplit.analysis.summary import PartSummary, summarize_split

__all__ = ["PartSummary", "summarize_split"]
