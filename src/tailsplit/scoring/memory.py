"""How much of a GPU one batch may use: the token budget from free memory, and halving a
batch that does not fit.

The budget: the memory free once the model is loaded, less a fixed reserve for the
vocabulary projection's chunks, shared by the activations one token needs at the widest
point of a layer (residual stream, float32 norm temporaries, query/key/value, attention
output, the MLP's gate, up and product, and a row of the attention mask), with half of it
kept back for the allocator's fragmentation and the batch in flight. Rounded down to a power
of two, so the same card gives the same budget from run to run.

Out of memory anyway (another process took memory, an unusually wide batch): the batch is
cut in two halves — rows of a padded batch, prefix groups of a packed one, or the members of
a single group, each part keeping the prefix — and each half is scored in its place, in
order, so the scores are those of the whole batch; only a single input too long for the
card is an error.
"""

from __future__ import annotations

from typing import Any

from tailsplit.scoring.base import Batch

SHARE_OF_FREE = 0.5
LOWEST_BUDGET = 4096
HIGHEST_BUDGET = 2**20
WIDEST_ROW = 1024  # packed rows are cut to at most this many tokens (batching.plan_batches)


def activation_bytes_per_token(config: dict[str, Any], value_bytes: int) -> int:
    """Bytes one token's activations take at the widest point of a layer (Llama's config
    names, else GPT-2's; an MLP four times the width where the config does not say)."""
    width = int(config.get("hidden_size") or config.get("n_embd") or config.get("d_model") or 4096)
    heads = int(config.get("num_attention_heads") or config.get("n_head") or 1)
    head_dim = int(config.get("head_dim") or width // heads)
    kv_width = int(config.get("num_key_value_heads") or heads) * head_dim
    intermediate = int(config.get("intermediate_size") or config.get("n_inner") or 4 * width)
    values = 3 * width + heads * head_dim + 2 * kv_width + 3 * intermediate
    return value_bytes * values + 4 * 2 * width + 3 * WIDEST_ROW


def budget_from_memory(free_bytes: int, per_token: int, reserve_bytes: int) -> int:
    """Padded tokens per batch: a power of two between ``LOWEST_BUDGET`` and ``HIGHEST_BUDGET``."""
    usable = max(0, free_bytes - reserve_bytes) * SHARE_OF_FREE
    tokens = int(usable // max(per_token, 1))
    budget = LOWEST_BUDGET
    while budget * 2 <= min(tokens, HIGHEST_BUDGET):
        budget *= 2
    return budget


def halves(batch: Batch) -> tuple[Batch, Batch] | None:
    """``batch`` cut in two parts scored one after the other, in order; ``None`` for a
    single input, which cannot be cut."""
    kind, payload = batch.payload
    if kind == "plain":
        if len(payload) < 2:
            return None
        cut = len(payload) // 2
        parts = [payload[:cut], payload[cut:]]
        counts = [len(part) for part in parts]
    else:
        if len(payload) >= 2:
            cut = len(payload) // 2
            parts = [payload[:cut], payload[cut:]]
        else:
            ((prefix, members),) = payload
            if len(members) < 2:
                return None
            cut = len(members) // 2
            parts = [[(prefix, members[:cut])], [(prefix, members[cut:])]]
        counts = [sum(len(members) for _, members in part) for part in parts]
    first, second = (
        Batch(indices=indices, n_tokens=_tokens(kind, part), payload=(kind, part))
        for indices, part in zip((batch.indices[: counts[0]], batch.indices[counts[0] :]), parts)
    )
    return first, second


def _tokens(kind: str, part: list[Any]) -> int:
    if kind == "plain":
        return sum(len(e.ids) for e in part)
    return sum(len(e.ids) for _, members in part for e in members)
