"""Describing splits: per-part summaries (more metrics arrive with the analysis report)."""

from tailsplit.analysis.summary import PartStatistics, summarize_split

__all__ = ["PartStatistics", "summarize_split"]
