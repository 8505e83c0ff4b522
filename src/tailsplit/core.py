"""The three values every layer passes around: a dataset, its scores, and a split.

They are frozen: a step never edits its input, it returns a new value. Arrays are numpy
and aligned with the dataset's rows (row ``i`` of every column is example ``i``).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

SPLIT_PARTS = ("train", "dev", "test")


@dataclass(frozen=True)
class FieldMap:
    """Which record fields play which role.

    ``text`` is the query that is scored (the hypothesis of a pair); ``context`` is the first
    text of a pair (premise, passage); ``program`` the structured output (SQL...);
    ``label``, ``group``, ``program`` and ``id`` are optional.
    """

    text: str
    context: str | None = None
    label: str | None = None
    group: str | None = None
    id: str = "id"
    program: str | None = None

    def as_dict(self) -> dict[str, str | None]:
        return {
            "text": self.text,
            "context": self.context,
            "label": self.label,
            "group": self.group,
            "id": self.id,
            "program": self.program,
        }


@dataclass(frozen=True)
class Dataset:
    """Examples loaded from one or more files, with their roles resolved.

    Invariants: all columns have ``len(records)`` rows; ``ids`` are unique strings; ``texts``
    are non-empty strings. ``records`` keep every original field, untouched.
    """

    records: tuple[Mapping[str, Any], ...]
    fields: FieldMap
    ids: tuple[str, ...]
    texts: tuple[str, ...]
    contexts: tuple[str, ...] | None
    labels: tuple[str, ...] | None
    groups: tuple[str, ...] | None
    sources: tuple[str, ...]
    ids_generated: bool = False
    input_paths: tuple[str, ...] = field(default=())
    programs: tuple[str, ...] | None = None
    # The Hugging Face split of each row, when the input was a DatasetDict (file or memory).
    splits: tuple[str, ...] | None = None
    # What an in-memory input was (a tailsplit.io.memory.MemoryTable without its records).
    memory: Any = None

    def __len__(self) -> int:
        return len(self.records)

    def __repr__(self) -> str:  # short: the default would print every record
        return _dataset_repr(self)

    def _repr_html_(self) -> str:
        return _dataset_repr_html(self)

    def subset(self, idx: Sequence[int] | np.ndarray) -> Dataset:
        """The rows ``idx`` in that order, as a new dataset."""
        take = [int(i) for i in idx]

        def pick(col: tuple[str, ...] | None) -> tuple[str, ...] | None:
            return None if col is None else tuple(col[i] for i in take)

        return Dataset(
            records=tuple(self.records[i] for i in take),
            fields=self.fields,
            ids=tuple(self.ids[i] for i in take),
            texts=tuple(self.texts[i] for i in take),
            contexts=pick(self.contexts),
            labels=pick(self.labels),
            groups=pick(self.groups),
            sources=tuple(self.sources[i] for i in take),
            ids_generated=self.ids_generated,
            input_paths=self.input_paths,
            programs=pick(self.programs),
            splits=pick(self.splits),
            memory=self.memory,
        )

    def location(self, i: int) -> tuple[str, int]:
        """(file, record number in that file) of row ``i``, for error messages."""
        source = self.sources[i]
        return source, sum(1 for s in self.sources[:i] if s == source) + 1


@dataclass(frozen=True)
class ScoreTable:
    """Per-example language-model scores, aligned with a dataset's rows.

    ``logprob_sum`` is the total natural-log probability of the query tokens, ``n_tokens``
    how many tokens were scored, ``truncated`` whether the input had to be cut to fit the
    model's context. ``logprob_mean = logprob_sum / n_tokens`` (per-token; ``-log`` perplexity).
    When kept (``--token-scores``), ``token_pieces`` and ``token_logprobs`` hold each query's
    scored tokens in order: their text as the tokenizer decodes each alone, and their
    log-probabilities, which sum to ``logprob_sum``.
    """

    ids: tuple[str, ...]
    logprob_sum: np.ndarray
    n_tokens: np.ndarray
    truncated: np.ndarray
    token_pieces: Sequence[tuple[str, ...]] | None = field(default=None, compare=False)
    token_logprobs: Sequence[np.ndarray] | None = field(default=None, compare=False)
    membership: Mapping[str, np.ndarray] | None = field(default=None, compare=False)  # --membership-k's scores

    def __post_init__(self) -> None:
        n = len(self.ids)
        for name in ("logprob_sum", "n_tokens", "truncated", "token_pieces", "token_logprobs"):
            column = getattr(self, name)
            if column is not None and len(column) != n:
                raise ValueError(f"{name} has {len(column)} rows, ids have {n}")
        if (self.token_pieces is None) != (self.token_logprobs is None):
            raise ValueError("token_pieces and token_logprobs come together")

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def has_token_counts(self) -> bool:
        """False for scores from elsewhere that came without token counts (all ``n_tokens`` 0)."""
        return bool(np.any(self.n_tokens))

    @property
    def logprob_mean(self) -> np.ndarray:
        """Per-token log-probability; NaN where the token count is unknown (0)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.n_tokens > 0, self.logprob_sum / np.maximum(self.n_tokens, 1), np.nan)


@dataclass(frozen=True)
class SplitIndices:
    """Row indices of each part of a split; disjoint, together covering every row once.

    Each array is sorted ascending so a split is a set, whatever order it was built in.
    ``details`` holds what the splitter reports about its work (swaps made, divergence
    reached...), for the manifest; it takes no part in equality.
    """

    train_idx: np.ndarray
    dev_idx: np.ndarray
    test_idx: np.ndarray
    details: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def parts(self) -> dict[str, np.ndarray]:
        return {"train": self.train_idx, "dev": self.dev_idx, "test": self.test_idx}

    @property
    def eval_idx(self) -> np.ndarray:
        return np.sort(np.concatenate([self.dev_idx, self.test_idx]))

    def assignment(self, n: int) -> np.ndarray:
        """Part name per row (``"train"``/``"dev"``/``"test"``), for tables and checks."""
        out = np.empty(n, dtype=object)
        for name, idx in self.parts().items():
            out[idx] = name
        return out

    @staticmethod
    def from_masks(
        eval_mask: np.ndarray, test_mask: np.ndarray, details: Mapping[str, Any] | None = None
    ) -> SplitIndices:
        """Build from boolean row masks; ``test_mask`` must lie inside ``eval_mask``."""
        dev = eval_mask & ~test_mask
        return SplitIndices(
            train_idx=np.flatnonzero(~eval_mask),
            dev_idx=np.flatnonzero(dev),
            test_idx=np.flatnonzero(test_mask),
            details=dict(details or {}),
        )


def _dataset_repr(dataset: Dataset) -> str:
    roles = ", ".join(f"{k}={v!r}" for k, v in dataset.fields.as_dict().items() if v is not None)
    origin = dataset.memory.kind if dataset.memory is not None else ", ".join(dataset.input_paths) or "?"
    return f"Dataset({len(dataset):,} examples from {origin}; {roles})"


def _dataset_repr_html(dataset: Dataset) -> str:
    head = "".join(
        f"<tr><td>{html.escape(dataset.ids[i])}</td><td>{html.escape(_short(dataset.texts[i]))}</td>"
        f"<td>{'' if dataset.labels is None else html.escape(dataset.labels[i])}</td></tr>"
        for i in range(min(5, len(dataset)))
    )
    return (
        f"<div><b>tailsplit Dataset</b>: {html.escape(_dataset_repr(dataset))}"
        f"<table><tr><th>id</th><th>text</th><th>label</th></tr>{head}</table></div>"
    )


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
