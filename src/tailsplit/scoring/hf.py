"""Score queries with a Hugging Face causal language model — the hot path.

How a request is scored:

1. ``prompt + query`` is tokenised *together* (so merges across the boundary are the
   model's real tokenisation) with character offsets. The scored text is the query with
   the whitespace that ends the prompt — lm-evaluation-harness' continuation, which moves a
   context's trailing whitespace into the continuation — and the scored tokens are those
   that contain at least one of its characters. So every query pays for the space before
   it, whether the tokenizer merges that space into the query's first word (`` Men``) or
   keeps it apart (`` `` + ``2``), and lm-eval given the same prompt and query computes the
   same sum.
2. Start-token policy: ``start_token="bos"`` (default) puts the tokenizer's BOS token (else
   its EOS token) first, so even the first query token of an unprompted text is conditioned
   and scored; ``"eos"`` puts its EOS token there; any other string names one token of the
   vocabulary literally (``"<|endoftext|>"``, GPT-2's and the paper's). ``"none"`` adds
   nothing; an unprompted query then loses its first token. For SmolLM2-Instruct the BOS
   token is the chat token ``<|im_start|>`` and the EOS token ``<|im_end|>``.
   ``score_eos=True`` appends an end token after the query and scores it too (the paper's
   code does for SNLI and BoolQ): ``end_token="eos"`` (default) the tokenizer's EOS token,
   or a literal token of the vocabulary.
3. Inputs longer than ``max_tokens`` (default: the model's context) are cut from the left
   (``truncation="left"``: prompt first, then the start of the query) and flagged
   ``truncated``; ``truncation="error"`` refuses them instead.

Speed: requests are sorted by length and packed into batches by a padded-token budget
(small on a CPU, where small batches run fastest). Requests that share a prompt prefix
(the three hypotheses of an SNLI premise, or every Spider question after its fixed prompt)
are packed into one row — the prefix once, then each suffix — with a mask that hides
siblings from each other (see :mod:`tailsplit.scoring.batching`); sharing is used when it
saves at least 15% of the tokens. The vocabulary projection runs only at the scored
positions, in chunks (never a whole ``[batch, seq, vocab]`` tensor). Batches are planned
from the requests alone (and the budget, which on a GPU the card's memory sets), so scores
do not depend on what was cached or on input order; each batch's arrays are laid out by
:mod:`tailsplit.scoring.layout`, cross to the device in one copy and back in another
(:mod:`tailsplit.scoring.transfer`), and packed rows' attention masks are built on the
scoring device.
"""

from __future__ import annotations

import contextlib
import inspect
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.cache import default_cache_dir
from tailsplit.choices import BATCH_TOKENS, MAX_BATCH_ROWS
from tailsplit.errors import ConfigError, ScoringError
from tailsplit.log import logger
from tailsplit.scoring.base import Batch, BatchScores, ScoreRequest
from tailsplit.scoring.batching import Encoded
from tailsplit.scoring.encoding import TokenRules, end_id, start_id
from tailsplit.scoring.head import PROJECTION_ELEMENTS, VocabularyHead
from tailsplit.scoring.hf_options import (
    check_options,
    scorer_identity,
    warn_if_bfloat16_is_emulated,
)
from tailsplit.scoring.layout import (
    BatchLayout,
    packed_attention_mask,
    packed_layout,
    padded_layout,
)
from tailsplit.scoring.memory import activation_bytes_per_token, budget_from_memory, halves
from tailsplit.scoring.models import (
    ModelSource,
    context_length,
    load_model,
    load_tokenizer,
    local_folder,
    model_config,
    resolve_model,
)
from tailsplit.scoring.planner import Planner, planned_in_process
from tailsplit.scoring.segments import flat_layout
from tailsplit.scoring.transfer import HostCopy, to_device

START_TOKENS = ("bos", "eos", "none")  # or a literal token of the vocabulary


class HFScorer:
    """Causal-LM scorer; configuration is keyword arguments, the model loads on first use.

    ``batch_tokens`` bounds padded tokens per forward pass (default: 1024 on a CPU, where
    small batches are fastest; on a GPU, from the memory free once the model is loaded —
    :mod:`tailsplit.scoring.memory`, which also halves a batch that runs out of memory);
    ``max_batch_size`` bounds the rows (default: 64 on a CPU, 8192 on a GPU). In a bf16 or
    fp16 model the vocabulary projection still gives float32 logits (``head_dtype="float32"``,
    :mod:`tailsplit.scoring.head`). ``dtype="mixed-float16"`` / ``"mixed-bfloat16"`` keep
    float32 weights and run only the layers' matrix products in half precision (autocast):
    on the bundled model, per-example error against float32 drops from 0.58 nats (pure
    bfloat16) to 0.25 (mixed bfloat16) and 0.046 (mixed float16). ``implementation`` picks
    tailsplit's native Llama or transformers' model (``auto``: native on a CPU with float32
    weights); ``torch_compile`` runs the native model's layers through ``torch.compile``;
    ``fused`` compiles only their element-wise regions (:mod:`.fused`); ``head_moments`` has the
    head give each position's next-token μ and σ² too (Min-K%++, :mod:`.membership`).
    """

    def __init__(
        self,
        model: str = "smollm2",
        *,
        device: str = "auto",
        dtype: str = "float32",
        batch_tokens: int | None = None,
        max_batch_size: int | None = None,
        start_token: str = "bos",
        score_eos: bool = False,
        end_token: str = "eos",
        max_tokens: int | None = None,
        truncation: str = "left",
        padding_side: str = "right",
        share_prefix: str = "auto",
        head_dtype: str = "float32",
        head_moments: bool = False,
        implementation: str = "auto",
        torch_compile: bool = False,
        fused: bool = False,
        attention: str = "dense",
        planner: str = "inline",
        cache_dir: str | Path | None = None,
    ) -> None:
        check_options(
            start_token=start_token, score_eos=score_eos, end_token=end_token, truncation=truncation,
            padding_side=padding_side, share_prefix=share_prefix, head_dtype=head_dtype, dtype=dtype,
            implementation=implementation, torch_compile=torch_compile, fused=fused, attention=attention,
            planner=planner, device=device, batch_tokens=batch_tokens, max_batch_size=max_batch_size,
            max_tokens=max_tokens,
        )  # fmt: skip
        self.model_spec = model
        self.device = device
        self.dtype = dtype
        self.batch_tokens = batch_tokens
        self.max_batch_size = max_batch_size
        self.start_token = start_token
        self.score_eos = score_eos
        self.end_token = end_token
        self.max_tokens = max_tokens
        self.truncation = truncation
        self.padding_side, self.share_prefix = padding_side, share_prefix
        self.head_dtype, self.head_moments = head_dtype, head_moments
        self.implementation, self.torch_compile = implementation, torch_compile
        self.fused, self.attention = fused, attention
        self.planner_kind = planner
        self.head = VocabularyHead(head_dtype, moments=head_moments)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self._source: ModelSource | None = None
        self._folder: Path | None = None
        self._auto_device: str | None = None
        self._identity: dict[str, Any] | None = None
        self._tokenizer: Any = None
        self._model: Any = None
        self._transformers_model: Any = None
        self._implementation: str | None = None
        self._batch_tokens: int | None = None

    def constructor_params(self) -> dict[str, Any]:
        """The keyword arguments that rebuild this scorer elsewhere (a Ray worker, a fold's
        fine-tuned copy): every parameter of the constructor, read from its attribute."""
        names = [name for name in inspect.signature(HFScorer.__init__).parameters if name != "self"]
        attribute = {"model": "model_spec", "planner": "planner_kind"}
        params = {name: getattr(self, attribute.get(name, name)) for name in names}
        params["cache_dir"] = str(self.cache_dir)
        return params

    # -- identity -----------------------------------------------------------------------------
    @property
    def source(self) -> ModelSource:
        if self._source is None:
            self._source = resolve_model(self.model_spec)
        return self._source

    def identity(self) -> dict[str, Any]:
        if self._identity is None:
            self._identity = scorer_identity(self)
        return self._identity

    def context_limit(self) -> int:
        """Tokens one input may have: ``max_tokens``, capped by the model's context length."""
        context = context_length(self.folder)
        if self.max_tokens is not None and context is not None and self.max_tokens > context:
            raise ConfigError(
                f"--max-tokens={self.max_tokens} is beyond the model's context of {context} tokens; "
                f"give at most {context}, or leave it out to use the whole context"
            )
        limits = [x for x in (self.max_tokens, context) if x]
        return min(limits) if limits else 2048

    # -- lazy loading -------------------------------------------------------------------------
    @property
    def folder(self) -> Path:
        if self._folder is None:
            self._folder = local_folder(self.source, self.cache_dir)
        return self._folder

    @property
    def tokenizer(self) -> Any:
        if self._tokenizer is None:
            self._tokenizer = load_tokenizer(self.folder, self.model_spec)
        return self._tokenizer

    def load(self) -> None:
        """Load the model now (it otherwise loads with the first batch)."""
        self.model  # noqa: B018 - the property loads it

    @property
    def model(self) -> Any:
        if self._model is None:
            started = time.perf_counter()
            if self.resolved_device() == "cpu" and self.dtype.removeprefix("mixed-") == "bfloat16":
                warn_if_bfloat16_is_emulated()
            if self.resolved_implementation() == "native":
                import torch

                from tailsplit.scoring.llama import NativeLlama  # imports torch: only when a model loads

                weights = self.dtype if self.dtype in ("bfloat16", "float16") else "float32"
                self._model = NativeLlama(
                    self.folder,
                    dtype=getattr(torch, weights),
                    device=self.resolved_device(),
                    compiled=self.torch_compile,
                    onednn=self.cpu_matmul() == "onednn",
                    fused=self.fused,
                ).eval()
            else:
                self._model = self.transformers_model()
            logger.debug(
                "loaded %s (%s implementation, %s, %s) in %.2f s; batches of up to %d padded tokens, %d rows",
                self.folder, self.resolved_implementation(), self.resolved_device(), self.dtype,
                time.perf_counter() - started, self.resolved_batch_tokens(), self.resolved_max_rows(),
            )  # fmt: skip
        return self._model

    def transformers_model(self) -> Any:
        """The model as transformers loads it (fine-tuning trains this one)."""
        if self._transformers_model is None:
            weights = "float32" if self.dtype.startswith("mixed-") else self.dtype
            self._transformers_model = load_model(self.folder, dtype=weights, device=self.resolved_device())
            if self.resolved_implementation() == "transformers":
                self._model = self._transformers_model
        return self._transformers_model

    def resolved_implementation(self) -> str:
        """``native`` or ``transformers``. ``auto`` runs the native model where it was measured
        faster (a CPU with float32 weights; a CUDA GPU with bf16 or fp16 weights, measured in
        bf16 on an H200: Performance page) and when ``torch_compile`` asks for it; ``native``
        (or ``torch_compile``) on a checkpoint the native model does not cover is an error naming why."""
        if self._implementation is None:
            self._implementation = "transformers"
            if self.implementation != "transformers":
                from tailsplit.scoring.llama import unsupported  # imports torch

                reason = unsupported(self.folder)
                compiles = self.torch_compile or self.fused or self.attention != "dense"
                asked = "implementation=native" if self.implementation == "native" else "--compile or --fused"
                if reason is not None and (self.implementation == "native" or compiles):
                    fix = "use auto" if self.implementation == "native" else "leave --compile and --fused off"
                    raise ConfigError(f"{asked} cannot run --model={self.model_spec!r}: {reason}; {fix}")
                device, half = self.resolved_device(), self.dtype in ("bfloat16", "float16")
                measured = (device == "cpu" and not half) or (device.startswith("cuda") and half)
                if reason is None and (self.implementation == "native" or compiles or measured):
                    self._implementation = "native"
        return self._implementation

    def cpu_matmul(self) -> str | None:
        """``"onednn"`` where the native model's products run through oneDNN (:mod:`.llama`)."""
        from tailsplit.scoring.llama import cpu_matmul  # imports torch

        native = self.resolved_implementation() == "native"
        return cpu_matmul(self.resolved_device(), self.dtype, self.torch_compile) if native else None

    def resolved_device(self) -> str:
        if self.device != "auto":
            return self.device
        if self._auto_device is None:
            import torch

            self._auto_device = "cuda" if torch.cuda.is_available() else "cpu"
        return self._auto_device

    # -- planning -----------------------------------------------------------------------------
    def plan(self, requests: Sequence[ScoreRequest]) -> list[Batch]:
        """Tokenise every request, then plan length-sorted (and shared-prefix) batches."""
        return self.planner().plan(requests)

    def planned(self, requests: Sequence[ScoreRequest]) -> Iterable[Batch]:
        """The batches to score: :meth:`plan` (``planner="inline"``), or the chunked plan made
        in a child process and handed over chunk by chunk (``"process"``, :mod:`.planner`)."""
        if self.planner_kind == "process":
            return planned_in_process(self.planner(), requests)
        return self.plan(requests)

    def encode(self, requests: Sequence[ScoreRequest]) -> list[Encoded]:
        """Every request tokenised as scoring tokenises it (:meth:`.Planner.encode`)."""
        return self.planner().encode(requests)

    def planner(self) -> Planner:
        """What tokenising and planning need (picklable: a planning process gets it whole)."""
        rules = TokenRules(
            start_id(self.tokenizer, self.start_token, self.model_spec),
            end_id(self.tokenizer, self.end_token, self.model_spec) if self.score_eos else None,
            self.context_limit(),
            self.truncation,
        )
        return Planner(
            self.tokenizer.backend_tokenizer, rules, self.resolved_batch_tokens(), self.resolved_max_rows(),
            self.share_prefix,
        )  # fmt: skip

    # -- scoring ------------------------------------------------------------------------------
    def score_batch(self, batch: Batch) -> BatchScores:
        return self.collect(self.launch(batch))

    def score_batches(self, batches: Iterable[Batch]) -> Iterator[BatchScores]:
        """Scores of each batch in order, one batch in flight ahead: on a GPU, the host
        prepares and launches batch ``i + 1`` before waiting for batch ``i``'s numbers."""
        pending: Launched | None = None
        for batch in batches:
            launched = self.launch(batch)
            if pending is not None:
                yield self.collect(pending)
            pending = launched
        if pending is not None:
            yield self.collect(pending)

    def launch(self, batch: Batch) -> Launched:
        """Queue a batch's forward pass; returns before the device has finished it. A batch
        that runs out of GPU memory is scored as two halves in its place (:mod:`.memory`),
        once the failed pass's tensors are freed: they live as long as its exception's frames,
        so the halves run after the handler, not inside it (inside, every level of halving
        kept its failed pass's memory, and halving ran out at one request on an H200)."""
        import torch

        model = self.model  # load (or, for a fine-tuned scorer, train) outside inference mode
        try:
            kind, payload = batch.payload
            segments = None
            if self.attention == "varlen":
                layout, segments = flat_layout(kind, payload)
            else:
                layout = padded_layout(payload, self.padding_side) if kind == "plain" else packed_layout(payload)
            with torch.inference_mode():
                return Launched([(layout, HostCopy(self.layout_logprobs(layout, model, True, segments)))])
        except torch.OutOfMemoryError:
            pass
        parts = halves(batch)
        if parts is None:
            raise ScoringError(
                f"one input of {batch.n_tokens} tokens does not fit in the memory of {self.resolved_device()}; "
                "lower --max-tokens or use a smaller --dtype"
            )
        if self.resolved_device().startswith("cuda"):
            torch.cuda.empty_cache()
        logger.debug("a batch of %d tokens ran out of memory; scoring it in two halves", batch.n_tokens)
        return Launched([part for half in parts for part in self.launch(half).parts])

    def collect(self, launched: Launched) -> BatchScores:
        """Wait for a launched batch; its token log-probabilities summed per request, and kept."""
        layouts = [layout for layout, _ in launched.parts]
        rows = np.concatenate([np.atleast_2d(copy.numpy()) for _, copy in launched.parts], 1)  # [1 or 3, tokens]
        offsets = np.cumsum([0] + [len(p.n_tokens) for p in layouts])  # each part's rows after the parts before
        token_rows = np.concatenate([p.example_idx + o for p, o in zip(layouts, offsets)])
        return BatchScores(
            np.bincount(token_rows, weights=rows[0], minlength=int(offsets[-1])),
            np.concatenate([p.n_tokens for p in layouts]),
            np.concatenate([p.truncated for p in layouts]),
            token_values=rows[0],
            token_rows=token_rows,
            token_moments=rows[1:] if len(rows) == 3 else None,
        )

    def query_logprobs(self, rows: list[Encoded], model: Any = None) -> tuple[Any, np.ndarray]:
        """log p of every scored token of ``rows`` (one padded batch) and the row of each;
        differentiable unless called under ``torch.inference_mode`` (fine-tuning uses this)."""
        layout = padded_layout(rows, self.padding_side)
        return self.layout_logprobs(layout, self.model if model is None else model), layout.example_idx

    def layout_logprobs(self, layout: BatchLayout, model: Any, mixed: bool = False, segments: Any = None) -> Any:
        """One forward pass over a laid-out batch; log p of each scored token, in order.
        ``mixed``: the layers run under autocast when ``dtype`` is ``mixed-*`` (scoring; a
        fine-tuning step trains the float32 weights as they are). The batch's arrays cross
        to the device in one copy; a padded batch without padding passes no mask at all, an
        unpadded one its attention ``segments`` (:mod:`.segments`)."""
        import torch

        masked = segments is None and (layout.packed or not bool(layout.attention.all()))
        arrays = [layout.input_ids, layout.position_ids, layout.row_idx, layout.pos_idx, layout.targets]
        input_ids, position_ids, row_idx, pos_idx, targets, *mask = to_device(
            arrays + [layout.attention] * masked, self.resolved_device()
        )
        attention = (packed_attention_mask(mask[0]) if layout.packed else mask[0]) if masked else None
        autocast: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
        if mixed and self.dtype.startswith("mixed-"):
            autocast = torch.autocast(
                torch.device(self.resolved_device()).type, dtype=getattr(torch, self.dtype.removeprefix("mixed-"))
            )
        with autocast:
            on_device = {}
            if segments is not None:
                from tailsplit.scoring.varlen import DeviceSegments  # imports torch, as this method does

                on_device["segments"] = DeviceSegments.of(segments, input_ids.device)
            hidden = model.base_model(
                input_ids=input_ids, attention_mask=attention, position_ids=position_ids, use_cache=False, **on_device
            ).last_hidden_state
        device_kind = "cpu" if self.resolved_device() == "cpu" else "gpu"
        return self.head.target_logprobs(model, hidden[row_idx, pos_idx], targets, device_kind)

    def resolved_batch_tokens(self) -> int:
        """``batch_tokens``, or a device default: small batches are fastest on a CPU; on a GPU
        the budget follows the memory free once the model is loaded (:mod:`.memory`)."""
        if self.batch_tokens is not None:
            return self.batch_tokens
        if self.resolved_device() == "cpu":
            return BATCH_TOKENS["cpu"]
        if self._batch_tokens is None:
            import torch

            if not torch.cuda.is_available():  # planning where the scoring GPU is not (a Ray driver)
                return BATCH_TOKENS["gpu"]
            self.model  # noqa: B018 - the budget is what is free once the weights are on the card
            free, _ = torch.cuda.mem_get_info(torch.device(self.resolved_device()))
            value_bytes = 4 if self.dtype == "float32" else 2
            per_token = activation_bytes_per_token(model_config(self.folder), value_bytes)
            reserve = 3 * PROJECTION_ELEMENTS["gpu"] * 4  # the projection's float32 logits and their temporaries
            self._batch_tokens = budget_from_memory(free, per_token, reserve)
            logger.debug("batches of up to %d padded tokens (%.1f GiB free)", self._batch_tokens, free / 2**30)
        return self._batch_tokens

    def resolved_max_rows(self) -> int:
        """``max_batch_size``, or a device default (on a GPU the token budget binds first)."""
        if self.max_batch_size is not None:
            return self.max_batch_size
        return MAX_BATCH_ROWS["cpu" if self.resolved_device() == "cpu" else "gpu"]


@dataclass(frozen=True)
class Launched:
    """A batch whose forward pass is queued: the layout of each part (one, or two halves and
    so on after running out of memory) and its log-probabilities on their way to the host."""

    parts: list[tuple[BatchLayout, HostCopy]]
