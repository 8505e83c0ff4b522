from __future__ import annotations

import pytest

from tailsplit.config import ScoringConfig
from tailsplit.errors import ConfigError
from tailsplit.scoring.finetune import PAPER_PRESETS, FinetuneConfig, finetune_preset, finetune_recipe


def test_cpu_recipe_uses_lora_and_paper_presets_train_all_weights() -> None:
    assert finetune_preset(None).lora_rank == 16
    assert finetune_preset("spider") == PAPER_PRESETS["spider"]
    assert PAPER_PRESETS["spider"].lora_rank is None and PAPER_PRESETS["spider"].learning_rate == 2e-5
    assert [PAPER_PRESETS[n].max_steps for n in ("spider", "boolq", "snli")] == [2000, 3000, 15000]


def test_overrides_apply_only_where_given() -> None:
    config = ScoringConfig(finetune_steps=5, finetune_full=True)
    recipe = finetune_recipe(config)
    assert recipe.max_steps == 5 and recipe.lora_rank is None and recipe.batch_size == 16
    assert finetune_recipe(ScoringConfig(finetune_lora_rank=4)).lora_rank == 4


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_steps": 0}, "max_steps=0"),
        ({"heldout_fraction": 0.7}, "heldout_fraction=0.7"),
        ({"lora_rank": 0}, "lora_rank=0"),
        ({"learning_rate": -1.0}, "learning_rate=-1.0"),
    ],
)
def test_bad_recipes_are_refused(kwargs, message) -> None:
    with pytest.raises(ConfigError, match=message):
        FinetuneConfig(**kwargs)
    with pytest.raises(ConfigError, match="--finetune-preset='huge'"):
        finetune_preset("huge")


@pytest.mark.model
def test_fold_scorers_keep_every_option_of_the_base_scorer(model_cache) -> None:
    """A fold's fine-tuned scorer is built from the base scorer's own constructor parameters,
    so no scoring option (here the scored end token) is dropped on the way."""
    from tailsplit.scoring.finetune import FinetuneConfig
    from tailsplit.scoring.hf import HFScorer
    from tailsplit.scoring.kfold import FinetunedScorer

    base = HFScorer(
        cache_dir=model_cache,
        score_eos=True,
        end_token="<|endoftext|>",
        start_token="eos",
        share_prefix="never",
        max_tokens=64,
    )
    fold = FinetunedScorer(base, [], "0" * 64, FinetuneConfig())
    assert fold.constructor_params() == base.constructor_params()
    assert fold.score_eos and fold.end_token == "<|endoftext|>"
