"""The task models ``tailsplit evaluate`` trains that load weights: the sentence encoder of
``embed``, the fine-tuned ``encoder`` and the fine-tuned scoring LM (``lm``) — checked before
anything trains, loaded lazily, their runs cached."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tailsplit.cache import default_cache_dir
from tailsplit.config import EvaluateConfig
from tailsplit.config.recorded import recorded_run
from tailsplit.errors import ConfigError
from tailsplit.evaluation.baselines import BaselineResult, PartInputs, baselines_for
from tailsplit.evaluation.encoder import EncoderRecipe, check_encoder_spec, finetune_encoder
from tailsplit.evaluation.encoder_cache import cache_key, cached_run, store_run
from tailsplit.io.manifest import Manifest
from tailsplit.scoring.models import check_device, local_folder, resolve_model
from tailsplit.shift.encoder import SentenceEncoder, encoder_name


class TaskModels:
    """The encoders the embed and encoder baselines share across split folders (loaded lazily)."""

    def __init__(
        self, config: EvaluateConfig, location: str, identity: str, recipe: Any, lm: tuple[str, str] = ("", "")
    ) -> None:
        self.config, self.location, self.identity, self.recipe = config, location, identity, recipe
        self.lm = lm  # (folder, identity) of the scoring LM, for the lm baseline
        self._sentence: Any = None

    def describe(self) -> dict[str, Any]:
        """The models the baselines start from, for the manifest: the encoder's name and
        identity (sha256 of its name and its folder's files; of the name alone for a hub id),
        and the scoring LM's weights hash (its name is in the splits' manifests)."""
        models: dict[str, Any] = {}
        if self.identity:
            models["encoder"] = {"name": encoder_name(self.config.encoder), "identity_sha256": self.identity}
        if self.lm[1]:
            models["lm"] = {"weights_sha256": self.lm[1].removeprefix("lm:")}
        return models

    def sentence_encoder(self) -> Any:

        if self._sentence is None:
            self._sentence = SentenceEncoder(
                self.config.encoder, device=None if self.config.device == "auto" else self.config.device
            )
        return self._sentence

    def fine_tuned(
        self, manifest: Manifest, train: PartInputs, dev: PartInputs, test: PartInputs, which: str = "encoder"
    ) -> BaselineResult:
        """The fine-tuned classifier's result (``which``: the cross-encoder, or the scoring LM
        with a classification head), from the cache when this split, model, input and recipe
        were trained before."""

        if train.labels is None:
            raise ConfigError(f"the {which} baseline needs labels; split with --label")
        location, identity = (self.location, self.identity) if which == "encoder" else self.lm
        outputs = manifest.outputs
        parts = [outputs[n] for p in ("train", "dev", "test") for n in sorted(outputs) if n.split(".")[0] == p]
        key = cache_key(parts, identity, [str(len(train.columns))], self.recipe)
        cache_dir = default_cache_dir()
        run = cached_run(cache_dir, key)
        if run is None or len(run.test_correct) != len(test):
            run = finetune_encoder(
                train.columns,
                train.labels,
                dev.columns,
                dev.labels or (),
                test.columns,
                test.labels or (),
                location=location,
                recipe=self.recipe,
                device=self.config.device,
            )
            store_run(cache_dir, key, run)
        return BaselineResult(
            which,
            run.dev,
            run.test,
            "accuracy",
            {
                "steps": run.steps,
                "best_step": run.best_step,
                "max_length": run.max_length,
                "train_examples_per_s": run.train_examples_per_s,
                "inference_examples_per_s": run.inference_examples_per_s,
            },
            run.test_correct,
            run.test_predicted,
            run.test_probability,
        )

    def close(self) -> None:
        if self._sentence is not None:
            self._sentence.close()


def check_models(config: EvaluateConfig, manifests: list[Manifest]) -> TaskModels:
    """Baselines, encoder, scoring LM, recipe and device checked before anything trains."""

    requested = set()
    for data in (recorded_run(m).data for m in manifests):
        requested.update(baselines_for(data, config.baselines, config.input_fields))
    location = identity = ""
    recipe = None
    if requested & {"embed", "encoder", "lm"}:  # labels were checked by _check_trainable
        check_device(config.device)
        recipe = EncoderRecipe(max_steps=config.max_steps, max_train=config.max_train, seed=config.seed)
    if requested & {"embed", "encoder"}:
        location, identity = check_encoder_spec(config.encoder)
    lm = _scoring_lm(manifests) if "lm" in requested else ("", "")
    return TaskModels(config, location, identity, recipe, lm)


def _scoring_lm(manifests: list[Manifest]) -> tuple[str, str]:
    """(folder, identity) of the one causal LM that scored the compared splits (random splits
    have none; they are trained with the likelihood split's model)."""

    found = {}
    for manifest in manifests:
        scoring = recorded_run(manifest).scoring
        model = manifest.model or {}
        if manifest.method == "prompted" and scoring.backend == "hf" and model.get("weights_sha256"):
            found[model["weights_sha256"]] = (str(scoring.model), scoring.cache_dir)
    if not found:
        raise ConfigError(
            "--baseline='lm' fine-tunes the LM that scored the splits, but none of them was scored by a "
            "transformers model (prompted); include the likelihood split made with tailsplit run"
        )
    if len(found) > 1:
        raise ConfigError("--baseline='lm': the splits were scored by different models; compare splits of one model")
    digest, (spec, cache_dir) = next(iter(found.items()))
    folder = local_folder(resolve_model(spec), Path(cache_dir) if cache_dir else default_cache_dir())
    return str(folder), f"lm:{digest}"
