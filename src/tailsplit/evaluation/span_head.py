"""The extractive-QA task model: an encoder fine-tuned with a span-extraction head (start and
end logits over the context's tokens).

Question and context go in as a pair; a context longer than the model is read in overlapping
windows (``stride`` tokens shared between neighbours), as Hugging Face's question-answering
recipe does. A training window whose context holds the first gold answer learns its start and
end tokens; one that does not learns to point at the first token (no answer here). An answer
is predicted as the best-scoring span (start logit + end logit, start ≤ end, at most
``max_answer_tokens``) over all of a question's windows, read back from the context by the
tokens' character offsets. The recipe, seeds, batching, early stopping (on dev F1) and
resumable checkpoints are the classifier's (:class:`~tailsplit.evaluation.encoder.PairClassifier`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.errors import ConfigError
from tailsplit.evaluation.encoder import EncoderRecipe, PairClassifier
from tailsplit.shift.task_metrics import answer_scores

STRIDE = 64  # tokens two neighbouring windows of one context share
MAX_ANSWER_TOKENS = 30
TOP_K = 20  # starts and ends tried per window


@dataclass(frozen=True)
class SpanFeatures:
    """The windows of a set of questions: rows ``[*ids, *token types]``, the question each
    window reads, and the character span of each of its context tokens (``None`` elsewhere)."""

    rows: list[list[int]]
    example: list[int]
    offsets: list[list[tuple[int, int] | None]]


class SpanReader(PairClassifier):
    auto_class = "AutoModelForQuestionAnswering"
    head = "a span extractor"

    def model_options(self) -> dict[str, Any]:
        return {}

    def features(self, questions: Sequence[str], contexts: Sequence[str], max_length: int) -> SpanFeatures:
        """Every window of every (question, context) pair."""
        if not questions:
            return SpanFeatures([], [], [])
        if not getattr(self.tokenizer, "is_fast", False) or self.tokenizer.sep_token is None:
            raise ConfigError(
                "the QA task model needs an encoder with a fast tokenizer and a pair template (BERT-like)"
            )
        try:
            batch = self.tokenizer(
                list(questions), list(contexts), truncation="only_second", max_length=max_length,
                stride=min(STRIDE, max_length // 4), return_overflowing_tokens=True, return_offsets_mapping=True,
            )  # fmt: skip
        except Exception as exc:  # a question longer than the model leaves no room for the context
            raise ConfigError(f"a question does not fit the task model's {max_length} tokens ({exc})") from None
        types = batch.get("token_type_ids") or [[0] * len(ids) for ids in batch["input_ids"]]
        offsets = [
            [tuple(o) if s == 1 else None for o, s in zip(batch["offset_mapping"][i], batch.sequence_ids(i))]
            for i in range(len(batch["input_ids"]))
        ]
        rows = [[*ids, *t] for ids, t in zip(batch["input_ids"], types)]
        return SpanFeatures(rows, list(batch["overflow_to_sample_mapping"]), offsets)  # type: ignore[arg-type]

    @staticmethod
    def span_labels(features: SpanFeatures, answers: Sequence[tuple[str, int]]) -> np.ndarray:
        """(start token, end token) of each window's answer (its first gold), (0, 0) when the
        window's context does not hold it."""
        labels = np.zeros((len(features.rows), 2), dtype=np.int64)
        for w, (example, offsets) in enumerate(zip(features.example, features.offsets)):
            text, start = answers[example]
            end = start + len(text)
            inside = [k for k, o in enumerate(offsets) if o is not None]
            if not inside or offsets[inside[0]][0] > start or offsets[inside[-1]][1] < end:  # type: ignore[index]
                continue
            first = next(k for k in inside if offsets[k][1] > start)  # type: ignore[index]
            last = next(k for k in reversed(inside) if offsets[k][0] < end)  # type: ignore[index]
            labels[w] = (first, max(first, last))
        return labels

    def _loss(self, rows: Sequence[list[int]], labels: Any) -> Any:
        labels = labels.to(self.device)
        return self.model(**self._tensors(rows), start_positions=labels[:, 0], end_positions=labels[:, 1]).loss

    def _logits(self, rows: Sequence[list[int]], batch_tokens: int = 16384) -> list[tuple[np.ndarray, np.ndarray]]:
        out: list[Any] = [None] * len(rows)
        for chunk, result in self.outputs(rows, batch_tokens):
            starts, ends = result.start_logits.float().cpu().numpy(), result.end_logits.float().cpu().numpy()
            for k, i in enumerate(chunk):
                out[i] = (starts[k], ends[k])
        return out

    def predict_answers(self, features: SpanFeatures, contexts: Sequence[str]) -> tuple[str, ...]:
        """The predicted answer of every question (``""`` when no window offers a span)."""
        best: list[tuple[float, str]] = [(-np.inf, "")] * len(contexts)
        for (starts, ends), example, offsets in zip(self._logits(features.rows), features.example, features.offsets):
            inside = np.array([o is not None for o in offsets] + [False] * (len(starts) - len(offsets)))
            s_scores, e_scores = np.where(inside, starts, -np.inf), np.where(inside, ends, -np.inf)
            for s in np.argsort(-s_scores)[:TOP_K]:
                for e in np.argsort(-e_scores)[:TOP_K]:
                    if not (inside[s] and inside[e]) or e < s or e - s + 1 > MAX_ANSWER_TOKENS:
                        continue
                    score = float(s_scores[s] + e_scores[e])
                    if score > best[example][0]:
                        text = contexts[example][offsets[s][0] : offsets[e][1]]  # type: ignore[index]
                        best[example] = (score, text)
        return tuple(text for _, text in best)

    def dev_score(self, dev: Sequence[list[int]], dev_labels: Any) -> float:
        """Dev F1 (``dev_labels``: the dev windows, contexts and gold answer texts)."""
        features, contexts, golds = dev_labels
        if not len(contexts):
            return 0.0
        predicted = self.predict_answers(features, contexts)
        return float(np.mean([answer_scores(p, g)[1] for p, g in zip(predicted, golds)]))


def prepared_reader(
    questions: Sequence[str],
    contexts: Sequence[str],
    answers: Sequence[Sequence[tuple[str, int]]],
    *,
    location: str,
    recipe: EncoderRecipe,
    device: str = "auto",
) -> tuple[SpanReader, SpanFeatures, np.ndarray]:
    """The reader, the training windows (of the seeded ``max_train`` sample of questions when
    set) and each window's (start, end) labels."""
    keep = np.arange(len(questions))
    if recipe.max_train is not None and recipe.max_train < len(keep):
        keep = np.sort(np.random.default_rng(recipe.seed).choice(len(keep), recipe.max_train, replace=False))
    reader = SpanReader(location, [], recipe, device)
    rows = keep.tolist()
    features = reader.features([questions[i] for i in rows], [contexts[i] for i in rows], recipe.max_length)
    return reader, features, SpanReader.span_labels(features, [answers[i][0] for i in rows])
