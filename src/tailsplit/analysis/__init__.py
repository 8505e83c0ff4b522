"""Describing splits: per-part summaries, the statistics of a split against its null
distribution of random splits (:mod:`.split_analysis`, :mod:`.null`), leakage and near
duplicates, program metrics, comparisons between splits, and the reports and figures that
show them."""

from tailsplit.analysis.summary import PartStatistics, summarize_split

__all__ = ["PartStatistics", "summarize_split"]
