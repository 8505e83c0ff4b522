"""Fine-tune a causal LM to maximise p(query | prompt), keeping the best checkpoint.

The loss is the mean negative log-likelihood of the *query* tokens only — the same tokens,
tokenisation and start-token policy the scorer uses. A random 10% of the training requests
is held out; every ``eval_every`` steps the held-out perplexity is measured and the weights
with the lowest one are kept (step 0, the base model, included, so fine-tuning can never make
the chosen model worse on held-out data than the base model).

``FinetuneConfig()`` is the small CPU recipe (LoRA rank 16, 60 steps); :data:`PAPER_PRESETS` hold the paper's settings
(AdamW, constant learning rate 2e-5, batch 32, best checkpoint by perplexity on 10% of the
fold's training data, at most 2,000 / 3,000 / 15,000 steps for Spider / BoolQ / SNLI).
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import asdict, dataclass, replace
from typing import Any

from tailsplit.errors import ConfigError, MissingDependencyError
from tailsplit.rng import FINETUNE_HELDOUT, seeded_rng
from tailsplit.scoring.batching import Encoded
from tailsplit.torch_state import forked_torch_rng


@dataclass(frozen=True)
class FinetuneConfig:
    """Training settings; every field changes the fine-tuned scores (and their cache key)."""

    max_steps: int = 60
    batch_size: int = 16
    learning_rate: float = 1e-4
    eval_every: int = 20
    heldout_fraction: float = 0.1
    weight_decay: float = 0.0
    lora_rank: int | None = 16
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("max_steps", "batch_size", "eval_every"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name}={value!r} must be a whole number ≥ 1")
        if not 0.0 < self.heldout_fraction < 0.5:
            raise ConfigError(f"heldout_fraction={self.heldout_fraction!r} must lie in (0, 0.5)")
        if not self.learning_rate > 0:
            raise ConfigError(f"learning_rate={self.learning_rate!r} must be positive")
        if self.lora_rank is not None and (
            isinstance(self.lora_rank, bool) or not isinstance(self.lora_rank, int) or self.lora_rank < 1
        ):
            raise ConfigError(f"lora_rank={self.lora_rank!r} must be a whole number ≥ 1, or None for full fine-tuning")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


PAPER_PRESETS = {
    name: FinetuneConfig(
        max_steps=steps, batch_size=32, learning_rate=2e-5, eval_every=max(steps // 20, 1), lora_rank=None
    )
    for name, steps in (("spider", 2000), ("boolq", 3000), ("snli", 15000))
}


def finetune_preset(name: str | None, *, full: bool = False, **overrides: Any) -> FinetuneConfig:
    """The CPU recipe (``None``/``"cpu"``) or a paper preset, with the fields that are not
    ``None`` overridden; ``full=True`` trains all weights instead of LoRA adapters."""
    if name in (None, "cpu"):
        base = FinetuneConfig()
    elif name in PAPER_PRESETS:
        base = PAPER_PRESETS[name]
    else:
        raise ConfigError(f"--finetune-preset={name!r} is unknown; use 'cpu' or one of {sorted(PAPER_PRESETS)}")
    config = replace(base, **{k: v for k, v in overrides.items() if v is not None})
    return replace(config, lora_rank=None) if full else config


def describe_recipe(name: str | None, config: FinetuneConfig) -> str:
    """One line saying whose recipe the fold models were trained with.

    >>> describe_recipe(None, FinetuneConfig())
    "CPU recipe (LoRA rank 16, 60 steps, batch 16, lr 0.0001), not the paper's (all weights, lr 2e-05, batch 32, 2,000-15,000 steps)"
    >>> describe_recipe("snli", PAPER_PRESETS["snli"])
    "the paper's snli settings (all weights, 15,000 steps, batch 32, lr 2e-05)"
    """
    weights = "all weights" if config.lora_rank is None else f"LoRA rank {config.lora_rank}"
    settings = f"{weights}, {config.max_steps:,} steps, batch {config.batch_size}, lr {config.learning_rate:g}"
    if name in PAPER_PRESETS and config == replace(PAPER_PRESETS[name], seed=config.seed):
        return f"the paper's {name} settings ({settings})"
    base = "CPU recipe" if name in (None, "cpu") else f"the paper's {name} settings changed"
    return f"{base} ({settings}), not the paper's (all weights, lr 2e-05, batch 32, 2,000-15,000 steps)"


@dataclass
class TrainingCurve:
    """Held-out perplexity per evaluation step, training loss per step, the chosen step."""

    eval_steps: list[int]
    heldout_perplexity: list[float]
    train_loss: list[float]
    chosen_step: int
    tokens_per_s: float
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def finetune(
    scorer: Any, base_model: Any, encoded: list[Encoded], config: FinetuneConfig, progress: Any = None
) -> tuple[Any, TrainingCurve]:
    """A copy of ``base_model`` fine-tuned on ``encoded`` with ``scorer``'s forward pass.

    ``scorer`` is an :class:`~tailsplit.scoring.hf.HFScorer` (it knows how to compute the
    query log-probabilities of a batch); ``base_model`` is left untouched.
    """
    import torch

    with torch.inference_mode(False), torch.enable_grad():
        return _train(scorer, base_model, encoded, config, progress)


def _train(
    scorer: Any, base_model: Any, encoded: list[Encoded], config: FinetuneConfig, progress: Any
) -> tuple[Any, TrainingCurve]:

    with forked_torch_rng(config.seed):  # the caller's torch random state is left alone
        return _train_seeded(scorer, base_model, encoded, config, progress)


def _train_seeded(
    scorer: Any, base_model: Any, encoded: list[Encoded], config: FinetuneConfig, progress: Any
) -> tuple[Any, TrainingCurve]:
    import torch

    rng = seeded_rng(config.seed, FINETUNE_HELDOUT)
    order = rng.permutation(len(encoded))
    n_heldout = max(1, int(round(config.heldout_fraction * len(encoded))))
    heldout = [encoded[i] for i in order[:n_heldout]]
    train = [encoded[i] for i in order[n_heldout:]]
    if not train:
        raise ConfigError("fine-tuning needs more than one training example per fold")
    model, merge = trainable_copy(base_model, config.lora_rank)
    optimizer = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], lr=config.learning_rate, weight_decay=config.weight_decay
    )
    best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    best = _perplexity(scorer, model, heldout)
    curve = TrainingCurve([0], [best], [], 0, 0.0, 0.0)
    started, trained_tokens = time.perf_counter(), 0
    for step in range(1, config.max_steps + 1):
        batch = [train[i] for i in rng.choice(len(train), size=min(config.batch_size, len(train)), replace=False)]
        logprobs, _ = scorer.query_logprobs(batch, model=model)
        loss = -logprobs.mean()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        trained_tokens += sum(len(e.ids) for e in batch)
        curve.train_loss.append(round(float(loss.item()), 5))
        if step % config.eval_every == 0 or step == config.max_steps:
            perplexity = _perplexity(scorer, model, heldout)
            curve.eval_steps.append(step)
            curve.heldout_perplexity.append(perplexity)
            if perplexity < best:
                best, curve.chosen_step = perplexity, step
                best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        if progress is not None:
            progress(step, config.max_steps)
    curve.seconds = round(time.perf_counter() - started, 2)
    curve.tokens_per_s = round(trained_tokens / max(curve.seconds, 1e-9), 1)
    model.load_state_dict(best_state)
    return merge().eval(), curve


def trainable_copy(base_model: Any, lora_rank: int | None) -> tuple[Any, Any]:
    """(model to train, function returning the plain model to score with afterwards).

    With ``lora_rank``, low-rank adapters on every attention and MLP projection (via peft)
    are trained instead of all weights — about 2× faster per step on a CPU — and merged into
    the weights at the end, so scoring costs the same as with the base model.
    """
    model = copy.deepcopy(base_model)
    if lora_rank is None:
        model.train()
        return model, lambda: model
    try:
        from peft import LoraConfig, get_peft_model
    except ImportError:
        raise MissingDependencyError("peft", "lm", "LoRA fine-tuning (lora_rank)") from None
    names = {
        name.rsplit(".", 1)[-1]
        for name, module in model.named_modules()
        if type(module).__name__ == "Linear" and "lm_head" not in name
    }
    peft_model = get_peft_model(
        model, LoraConfig(r=lora_rank, lora_alpha=2 * lora_rank, lora_dropout=0.0, target_modules=sorted(names))
    )
    inner = peft_model.get_base_model().train()
    return inner, peft_model.merge_and_unload


def _perplexity(scorer: Any, model: Any, heldout: list[Encoded]) -> float:
    """exp(− mean log-probability per query token) over ``heldout``, without gradients."""
    import torch

    total, count = 0.0, 0
    was_training = model.training
    model.eval()
    with torch.inference_mode():
        for start in range(0, len(heldout), 32):
            logprobs, _ = scorer.query_logprobs(heldout[start : start + 32], model=model)
            total += float(logprobs.double().sum())
            count += logprobs.numel()
    model.train(was_training)
    return round(math.exp(-total / max(count, 1)), 5)


def finetune_recipe(scoring: Any) -> FinetuneConfig:
    """The fine-tuning recipe of a :class:`tailsplit.config.ScoringConfig`: its preset (the CPU
    recipe by default) with the options it sets."""
    return finetune_preset(
        scoring.finetune_preset,
        full=scoring.finetune_full,
        lora_rank=scoring.finetune_lora_rank,
        max_steps=scoring.finetune_steps,
        batch_size=scoring.finetune_batch_size,
        learning_rate=scoring.finetune_learning_rate,
        eval_every=scoring.finetune_eval_every,
        seed=scoring.fold_seed,
    )
