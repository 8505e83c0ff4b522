"""The Hugging Face scorer's own check of its options: it is built from Python too, not
only from a checked config (the allowed values are the config's, from :mod:`tailsplit.choices`);
and the warning an option earns on this machine (bfloat16 on a CPU that emulates it)."""

from __future__ import annotations

from typing import Any

from tailsplit.choices import ATTENTIONS, DTYPES, IMPLEMENTATIONS, PLANNERS, SHARE_PREFIX, TRUNCATIONS
from tailsplit.errors import ConfigError
from tailsplit.log import logger
from tailsplit.scoring.models import check_device

SCORER_VERSION = "hf-causal-lm/2"  # 2: the prompt's trailing whitespace is scored with the query

PADDING_SIDES = ("right", "left")


def check_options(
    *,
    start_token: str,
    score_eos: bool,
    end_token: str,
    truncation: str,
    padding_side: str,
    share_prefix: str,
    head_dtype: str,
    dtype: str,
    implementation: str,
    torch_compile: bool,
    fused: bool,
    attention: str,
    planner: str,
    device: str,
    batch_tokens: int | None,
    max_batch_size: int | None,
    max_tokens: int | None,
) -> None:
    """The scorer's own check of its options (it is built from Python too, not only from a
    checked config; the allowed values are the config's, from :mod:`tailsplit.choices`)."""
    if not isinstance(start_token, str) or not start_token:
        raise ConfigError(f"--start-token={start_token!r} must be bos, eos, none or a token of the vocabulary")
    if not isinstance(score_eos, bool):
        raise ConfigError(f"--score-eos={score_eos!r} must be true or false")
    if not isinstance(end_token, str) or not end_token or end_token in ("bos", "none"):
        raise ConfigError(f"--end-token={end_token!r} must be eos or a token of the vocabulary")
    _check_choice("truncation", truncation, TRUNCATIONS)
    _check_choice("padding_side", padding_side, PADDING_SIDES)
    _check_choice("share_prefix", share_prefix, SHARE_PREFIX)
    _check_choice("head_dtype", head_dtype, ("float32", "model"))
    _check_choice("dtype", dtype, DTYPES)
    _check_choice("implementation", implementation, IMPLEMENTATIONS)
    if not isinstance(torch_compile, bool):
        raise ConfigError(f"torch_compile={torch_compile!r} must be true or false")
    if torch_compile and implementation == "transformers":
        raise ConfigError("torch_compile compiles tailsplit's native model; use implementation auto or native")
    if not isinstance(fused, bool):
        raise ConfigError(f"--fused={fused!r} must be true or false")
    if fused and implementation == "transformers":
        raise ConfigError("--fused compiles regions of tailsplit's native model; use --implementation auto or native")
    _check_choice("attention", attention, ATTENTIONS)
    _check_choice("planner", planner, PLANNERS)
    if attention != "dense" and (implementation == "transformers" or torch_compile):
        raise ConfigError(
            f"--attention={attention!r} runs in tailsplit's native model, eager; use --implementation auto or "
            "native, without --compile"
        )
    if fused and torch_compile:
        raise ConfigError("--fused and --compile both compile the layers' element-wise work; give one of them")
    check_device(device)
    for name, value in (("batch_tokens", batch_tokens), ("max_batch_size", max_batch_size)):
        if value is not None and (not isinstance(value, int) or value < 1):
            raise ConfigError(f"{name}={value!r} must be a whole number ≥ 1")
    if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 2):
        raise ConfigError(
            f"--max-tokens={max_tokens!r} must be a whole number ≥ 2, or None for the model's context length"
        )


def _check_choice(name: str, value: str, options: tuple[str, ...]) -> None:
    if value not in options:
        raise ConfigError(f"{name}={value!r} is unknown; use one of {list(options)}")


def warn_if_bfloat16_is_emulated() -> None:
    """Warn, as a model loads, when this CPU has no bfloat16 instructions (AVX-512 BF16 or AMX): bfloat16
    arithmetic is then emulated, and ``--dtype mixed-bfloat16`` measured 0.15× the speed of
    float32 on an AVX2 CPU (2.4× faster than float32 on one with AVX-512 BF16)."""
    import torch

    checks = [getattr(torch.cpu, name, None) for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")]
    if all(callable(check) for check in checks) and not any(check() for check in checks):  # type: ignore[misc]
        logger.warning(
            "this CPU has no bfloat16 instructions (AVX-512 BF16 or AMX): bfloat16 arithmetic is emulated and "
            "runs several times slower than float32 here; leave --dtype at float32 on this machine"
        )


def scorer_identity(scorer: Any) -> dict[str, Any]:
    """What makes an :class:`~tailsplit.scoring.hf.HFScorer`'s scores what they are — the
    cache namespace of its scores: the model, the scorer's version, precision and token rules,
    and every choice that changes the arithmetic (each named only where it is not the
    default, so caches made before it existed stay valid)."""
    identity = {
        **scorer.source.identity(),
        "scorer": SCORER_VERSION,
        "dtype": scorer.dtype,
        "start_token": scorer.start_token,
        "max_tokens": scorer.context_limit(),
        "truncation": scorer.truncation,
    }
    if scorer.dtype != "float32":
        identity["head_dtype"] = scorer.head_dtype
    if scorer.resolved_implementation() == "native":  # so caches made by transformers stay theirs
        identity["implementation"] = "native"
    if matmul := scorer.cpu_matmul():  # oneDNN's products sum in another order than MKL's
        identity["matmul"] = matmul
    if scorer.torch_compile:  # fused kernels round differently
        identity["torch_compile"] = True
    if scorer.fused:  # so do the compiled element-wise regions
        identity["kernels"] = "fused-regions"
    if scorer.attention != "dense":  # and attention by segments
        identity["attention"] = scorer.attention
    if scorer.score_eos:
        identity["score_eos"] = True
        identity["end_token"] = scorer.end_token
    return identity
