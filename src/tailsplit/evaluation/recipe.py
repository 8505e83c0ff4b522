"""The task encoder's training recipe — every field part of a cache key — and which of its
weights a recipe tunes (BOSS's axis of tunable parameters: the top N layers and the head)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from tailsplit.errors import ConfigError


@dataclass(frozen=True)
class EncoderRecipe:
    """Training settings; every field is part of the cache key."""

    max_steps: int = 800
    batch_size: int = 32
    learning_rate: float = 1e-4
    warmup_fraction: float = 0.1
    weight_decay: float = 0.01
    eval_every: int = 200
    patience: int = 3
    max_length: int = 256  # cap; the length used is the longest training pair, up to this
    max_train: int | None = None  # subsample train (seeded) for quick looks
    seed: int = 0
    # Tune only the top N transformer layers and the head (embeddings and lower layers frozen):
    # BOSS's axis of tunable parameters; None tunes every weight.
    trainable_layers: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_steps", "batch_size", "eval_every", "patience", "max_length"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"encoder {name}={value!r} must be a whole number ≥ 1")
        if self.max_train is not None and (
            isinstance(self.max_train, bool) or not isinstance(self.max_train, int) or self.max_train < 2
        ):
            raise ConfigError(f"--max-train={self.max_train!r} must be a whole number ≥ 2")
        if self.trainable_layers is not None and (
            isinstance(self.trainable_layers, bool)
            or not isinstance(self.trainable_layers, int)
            or self.trainable_layers < 0
        ):
            raise ConfigError(f"--trainable-layers={self.trainable_layers!r} must be a whole number ≥ 0")
        if not self.learning_rate > 0:
            raise ConfigError(f"encoder learning_rate={self.learning_rate!r} must be positive")
        if not 0.0 <= self.warmup_fraction < 1.0:
            raise ConfigError(f"warmup_fraction={self.warmup_fraction!r} must lie in [0, 1)")

    def as_dict(self) -> dict[str, Any]:
        """Every field (the cache key); ``trainable_layers`` only when set, so a recipe that
        tunes every weight keeps the key it had before the option existed."""
        fields = asdict(self)
        if fields["trainable_layers"] is None:
            del fields["trainable_layers"]
        return fields


_LAYER = re.compile(r"\.layers?\.(\d+)\.")


def frozen_below(named: Sequence[tuple[str, Any]], layers: int, trainable: int | None) -> int:
    """Freeze the embeddings and every transformer layer below the top ``trainable`` of
    ``layers`` (their parameters' ``requires_grad`` off; the head and top layers stay tuned).
    Returns the parameters still tuned. ``None`` freezes nothing.

    >>> import types
    >>> p = lambda n: types.SimpleNamespace(requires_grad=True, numel=lambda: n)
    >>> named = [("bert.embeddings.word", p(10)), ("bert.encoder.layer.0.w", p(3)), ("bert.encoder.layer.1.w", p(4)),
    ...          ("classifier.weight", p(2))]
    >>> frozen_below(named, 2, 1), [x.requires_grad for _, x in named]
    (6, [False, False, True, True])
    """
    if trainable is not None and trainable > layers:
        raise ConfigError(
            f"--trainable-layers={trainable} exceeds the encoder's {layers} layers; give at most {layers}"
        )
    tuned = 0
    for name, parameter in named:
        layer = _LAYER.search(name)
        if trainable is not None and (
            "embed" in name or (layer is not None and int(layer.group(1)) < layers - trainable)
        ):
            parameter.requires_grad = False
        if parameter.requires_grad:
            tuned += parameter.numel()
    return tuned
