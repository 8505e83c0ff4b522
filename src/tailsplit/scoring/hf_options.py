"""The Hugging Face scorer's own check of its options: it is built from Python too, not
only from a checked config (the allowed values are the config's, from :mod:`tailsplit.choices`);
and the warning an option earns on this machine (bfloat16 on a CPU that emulates it)."""

from __future__ import annotations

from tailsplit.choices import DTYPES, IMPLEMENTATIONS, SHARE_PREFIX, TRUNCATIONS
from tailsplit.errors import ConfigError
from tailsplit.log import logger
from tailsplit.scoring.models import check_device

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
