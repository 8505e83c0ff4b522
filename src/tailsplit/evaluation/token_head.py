"""The NER task model: an encoder fine-tuned with a token-classification head.

Each sentence's words go to the tokenizer as pre-split words; a word's tag is learnt and
predicted at its first sub-token (the others are ignored in the loss, as in Hugging Face's
token-classification recipe); a sentence longer than the model is cut, and the words past the
cut are predicted ``O``. The recipe, seeds, batching, early stopping (on dev entity F1) and
resumable checkpoints are the classifier's (:class:`~tailsplit.evaluation.encoder.PairClassifier`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tailsplit.errors import ConfigError
from tailsplit.evaluation.encoder import EncoderRecipe, PairClassifier
from tailsplit.shift.task_metrics import entity_counts, entity_f1

IGNORED = -100  # the loss's ignore index: sub-tokens after a word's first, and special tokens


class TokenTagger(PairClassifier):
    """Rows are ``[*ids, *labels]``: the token ids, then one label per token — at a word's first
    sub-token the tag's index (training rows) or the word's index (rows to predict), and
    :data:`IGNORED` elsewhere."""

    auto_class = "AutoModelForTokenClassification"
    head = "a token classifier"

    def encode_words(
        self, sentences: Sequence[Sequence[str]], tags: Sequence[Sequence[str]] | None, max_length: int
    ) -> list[list[int]]:
        """Rows of ``sentences`` (without ``tags``: rows to predict, each first sub-token marked
        with its word's index)."""
        if not sentences:
            return []
        if not getattr(self.tokenizer, "is_fast", False):
            raise ConfigError(
                f"the task encoder's tokenizer ({type(self.tokenizer).__name__}) maps no words to tokens; give an encoder with a fast tokenizer"
            )
        index = {label: i for i, label in enumerate(self.labels)}
        batch = self.tokenizer(
            [list(s) for s in sentences], is_split_into_words=True, truncation=True, max_length=max_length
        )
        rows = []
        for i, ids in enumerate(batch["input_ids"]):
            labels, previous = [IGNORED] * len(ids), None
            for position, word in enumerate(batch.word_ids(i)):
                if word is not None and word != previous:
                    labels[position] = index.get(tags[i][word], 0) if tags is not None else word
                previous = word
            rows.append([*ids, *labels])
        return rows

    def _tensors(self, rows: Sequence[list[int]]) -> dict[str, Any]:
        torch = self.torch
        width = max(len(r) // 2 for r in rows)
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            n = len(row) // 2
            ids[i, :n] = torch.tensor(row[:n])
            mask[i, :n] = 1
        tensors = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.tokenizer.model_input_names:
            tensors["token_type_ids"] = torch.zeros_like(ids)
        return {k: v.to(self.device) for k, v in tensors.items()}

    def _row_labels(self, rows: Sequence[list[int]]) -> Any:
        torch = self.torch
        width = max(len(r) // 2 for r in rows)
        labels = torch.full((len(rows), width), IGNORED, dtype=torch.long)
        for i, row in enumerate(rows):
            n = len(row) // 2
            labels[i, :n] = torch.tensor(row[n:])
        return labels.to(self.device)

    def _loss(self, rows: Sequence[list[int]], labels: Any) -> Any:
        return self.model(**self._tensors(rows), labels=self._row_labels(rows)).loss  # a row carries its labels

    def predict_tags(
        self, rows: Sequence[list[int]], words: Sequence[int], batch_tokens: int = 16384
    ) -> list[tuple[str, ...]]:
        """The tag of every word of every row to predict (``words``: each sentence's word count;
        a word cut off by the model's length, or with no sub-token, is ``O``), in length-sorted
        batches."""
        out: list[tuple[str, ...]] = [()] * len(rows)
        for chunk, result in self.outputs(rows, batch_tokens):
            predicted = result.logits.float().argmax(-1).cpu().numpy()
            for k, i in enumerate(chunk):
                n, tags = len(rows[i]) // 2, ["O"] * words[i]
                for p in range(n):
                    word = rows[i][n + p]
                    if 0 <= word < words[i]:
                        tags[word] = self.labels[int(predicted[k, p])]
                out[i] = tuple(tags)
        return out

    def dev_score(self, dev: Sequence[list[int]], dev_labels: Any) -> float:
        """Dev entity F1 (``dev_labels``: the dev sentences' gold tags)."""
        if not len(dev):
            return 0.0
        predicted = self.predict_tags(dev, [len(t) for t in dev_labels])
        counts = np.array([entity_counts(p, g) for p, g in zip(predicted, dev_labels)], dtype=np.float64)
        return float(entity_f1(counts.sum(axis=0)))


def tag_labels(train_tags: Sequence[Sequence[str]]) -> list[str]:
    """The tags the head predicts: ``O`` first, then every tag of train, sorted."""
    seen = {tag for tags in train_tags for tag in tags} - {"O"}
    if not seen:
        raise ConfigError("ID train holds no entity (every tag is O); the NER task model needs entities to learn")
    return ["O", *sorted(seen)]


def prepared_tagger(
    words: Sequence[Sequence[str]],
    tags: Sequence[Sequence[str]],
    *,
    location: str,
    recipe: EncoderRecipe,
    device: str = "auto",
) -> tuple[TokenTagger, list[list[int]], np.ndarray]:
    """The tagger, the tokenised training rows (the seeded ``max_train`` sample when set) and
    placeholder labels (a row carries its own)."""
    keep = np.arange(len(words))
    if recipe.max_train is not None and recipe.max_train < len(keep):
        keep = np.sort(np.random.default_rng(recipe.seed).choice(len(keep), recipe.max_train, replace=False))
    tagger = TokenTagger(location, tag_labels(tags), recipe, device)
    rows = tagger.encode_words([words[i] for i in keep.tolist()], [tags[i] for i in keep.tolist()], recipe.max_length)
    return tagger, rows, np.zeros(len(rows), dtype=np.int64)
