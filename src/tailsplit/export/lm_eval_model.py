"""The ``lm_eval --model hf --model_args …`` that reproduces a split's scores, read from its manifest.

tailsplit scores the query (with the whitespace that ends the prompt) after a start token,
and lm-eval's ``loglikelihood`` scores its continuation after the context the same way, so
the per-example log-likelihoods agree when lm-eval runs the very weights that scored the split
(for a GGUF model: tailsplit's float32 safetensors copy in its cache, not the hub model), in
the same precision, with the start token in front:

* start token ``bos``: ``add_bos_token=True`` (and lm-eval's default prefix token, the BOS
  token, before an empty prompt);
* ``none``: ``add_bos_token=False``, exact when every prompt is non-empty.

What lm-eval cannot do is said instead of a wrong command: k-fold scores come from one model
per fold, an EOS or literal start token cannot go before lm-eval's context, a scored end
token is not part of the task's continuation, and mixed precision has no lm-eval setting.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tailsplit.config.recorded import recorded_run
from tailsplit.io.manifest import Manifest
from tailsplit.scoring.hf_options import SCORER_VERSION
from tailsplit.scoring.models import BUNDLED, weights_digest

EXACT_DTYPES = ("float32", "bfloat16", "float16")


@dataclass(frozen=True)
class LmEvalModel:
    """``model_args`` for ``lm_eval --model hf`` (``None`` when no single model scored the split),
    whether they reproduce every ``logprob_sum`` exactly, and why not when they do not."""

    model_args: str | None
    exact: bool
    note: str
    local_weights: str | None = None  # the folder of this machine ``pretrained=`` names, if it is one
    # How another machine gets the same weights: the command that rebuilds them from the
    # packages, and the sha256 of the model.safetensors it writes (for a GGUF model).
    rebuild: str | None = None
    weights_sha256: str | None = None

    def describe(self) -> dict[str, Any]:
        described = {
            "model_args": self.model_args,
            "exact": self.exact,
            "note": self.note,
            "local_weights": self.local_weights,
        }
        if self.rebuild is not None:
            described |= {"rebuild_weights": self.rebuild, "weights_safetensors_sha256": self.weights_sha256}
        return described


def lm_eval_model(manifest: Manifest, cache_dir: Path) -> LmEvalModel:
    """What reproduces ``manifest``'s scores in lm-eval; ``cache_dir`` holds converted GGUF models."""
    scoring = recorded_run(manifest).scoring
    method = manifest.method or scoring.method
    model = manifest.model or {}
    backend = scoring.backend
    if method != "prompted" or not model:
        return LmEvalModel(None, False, f"the split's scores come from {method or 'no'} scoring, not from one model")
    if backend != "hf":
        return LmEvalModel(None, False, f"the split was scored by the {backend} backend, not a transformers model")
    pretrained, local = _weights(str(scoring.model), model, cache_dir)
    dtype = str(model.get("dtype", "float32"))
    start = str(model.get("start_token", "bos"))
    args = [f"pretrained={pretrained}", f"dtype={dtype if dtype in EXACT_DTYPES else 'float32'}"]
    problems = []
    if start == "bos":
        args.append("add_bos_token=True")
    else:
        args.append("add_bos_token=False")
        if start != "none":
            problems.append(
                f"the split put start token {start!r} before each prompt, which lm-eval puts only before an empty one"
            )
    if model.get("scorer") != SCORER_VERSION:
        problems.append(
            f"the split was scored by scorer {model.get('scorer')}, which left out the whitespace before a query "
            "when the tokenizer keeps it apart (run the split again to rescore it)"
        )
    if dtype not in EXACT_DTYPES:
        problems.append(
            f"the split was scored in {dtype}, which lm-eval has no setting for (float32 agrees within 0.05 nats)"
        )
    if model.get("score_eos"):
        problems.append("the split also scored an end token after each query, which the task's continuation leaves out")
    if "," in pretrained:
        problems.append(f"the weights' path {pretrained!r} holds a comma, which lm-eval's --model_args cannot")
    rebuild, digest = _rebuild(str(scoring.model), pretrained)
    if problems:
        return LmEvalModel(",".join(args), False, "; ".join(problems), local, rebuild, digest)
    note = "each example's log-likelihood equals its logprob_sum"
    if start == "none":
        note += " (for examples with a non-empty prompt)"
    return LmEvalModel(",".join(args), True, note, local, rebuild, digest)


def _rebuild(spec: str, converted: str) -> tuple[str | None, str | None]:
    """(the command that rebuilds a GGUF model's float32 copy on any machine, its weights'
    sha256 where the copy is here); nothing for a model folder or hub id (it is shared as it is)."""
    if spec == BUNDLED:
        command = "tailsplit export weights --out WEIGHTS"
    elif Path(spec).suffix == ".gguf":
        command = f"tailsplit export weights --model {shlex.quote(Path(spec).name)} --out WEIGHTS"
    else:
        return None, None
    folder = Path(converted)
    return command, weights_digest(folder) if (folder / "model.safetensors").is_file() else None


def _weights(spec: str, model: Mapping[str, Any], cache_dir: Path) -> tuple[str, str | None]:
    """The folder or hub id lm-eval loads (the converted copy of a GGUF model, else the model
    itself), and that folder again when it is one of this machine's rather than a hub id."""
    path = Path(spec).expanduser()
    if spec == BUNDLED or path.suffix == ".gguf":
        converted = str(Path(cache_dir).expanduser().resolve() / "models" / str(model.get("weights_sha256", ""))[:24])
        return converted, converted
    if path.is_dir():
        return str(path.resolve()), str(path.resolve())
    return spec, None
