"""KV cache and recurrent state: bytes per block kind, as each engine allocates them."""

from __future__ import annotations

import dataclasses
import math

from generator.content.blocks import AttentionBlock, MLABlock
from generator.content.schema import EngineProfile, Model
from generator.sizing.layout import (
    index_key_bytes,
    kv_elements_per_token,
    kv_split_share,
    latent_record_bytes,
    layout,
    sparse_top_k,
    state_bytes_per_seq_layer,
)


def pad(n: int, unit: int) -> int:
    """``n`` rounded up to a multiple of ``unit``."""
    return -(-n // unit) * unit


def kv_bytes_per_token_layer(
    block: AttentionBlock | MLABlock, kv_bytes: float, engine: EngineProfile | None = None
) -> float:
    """Bytes of KV cache one token takes in one layer of ``block`` (see layout.kv_elements_per_token), with
    a sparse-attention layer's index key, in ``engine``'s own records where it has them."""
    record = latent_record_bytes(block, kv_bytes, engine)
    latent = record if record is not None else kv_elements_per_token(block) * kv_bytes
    index = index_key_bytes(block, kv_bytes, engine)
    return latent + index if index else latent


def state_bytes_per_seq(model: Model, engine: EngineProfile) -> float:
    """Bytes of recurrent state one sequence holds over all layers (read in full every step)."""
    recurrent = layout(model).recurrent
    if not recurrent:
        return 0.0  # attention layers only: no state
    return float(sum(n * state_bytes_per_seq_layer(block, engine) for block, n in recurrent))


def cached_tokens(window: int | None, engine: EngineProfile, context: int, seqs: int, unit: int | None = None) -> int:
    """Token slots an engine allocates in one attention layer for ``seqs`` sequences of ``context``.

    llama.cpp / Ollama share one pool of n_ctx cells padded to 256; a sliding layer holds at most
    window·n_seq + n_ubatch cells. vLLM / SGLang page each sequence in 16-token blocks; a sliding
    layer keeps window − 1 + max_num_batched_tokens tokens (+1 block). MLX keeps each sequence's
    cache in 256-token steps and a rotating buffer of the window for sliding layers. ``unit`` overrides
    the engine's page where a kernel needs its own (vLLM's sparse MLA: 64).
    """
    unit = unit or engine.context_pad_tokens
    pool = engine.kv_allocation
    if window is None:
        return pad(context * seqs, unit) if pool == "shared_pool" else seqs * pad(context, unit)
    if pool == "shared_pool":
        return pad(min(context * seqs, window * seqs + engine.batch_tokens), unit)
    if pool == "paged":
        return seqs * (pad(min(window - 1 + engine.batch_tokens, context), unit) + unit)
    return seqs * min(pad(context, unit), window)


def _window(block: AttentionBlock | MLABlock) -> int | None:
    return block.window if isinstance(block, AttentionBlock) else None


def _page(block: AttentionBlock | MLABlock, engine: EngineProfile) -> int | None:
    """The page size a sparse-attention layer's kernels require on ``engine`` (None: the engine's own)."""
    ix = engine.indexed_mla
    return ix.block_tokens if ix and sparse_top_k(block) is not None else None


@dataclasses.dataclass(frozen=True)
class KVCache:
    """KV cache and state bytes for one scenario, with the per-token figure for display."""

    attention_bytes: int
    state_bytes: int
    bytes_per_token: float
    full_layers: int
    sliding_layers: int
    recurrent_layers: int
    # Attention cache bytes by the share of them a tensor-parallel rank keeps for 2, 4 and 8 ranks
    # (blocks whose KV heads split alike are summed together): see ``per_rank``.
    by_block: tuple[tuple[float, AttentionBlock | MLABlock], ...] = ()

    @property
    def total(self) -> int:
        """Bytes of KV cache plus recurrent state."""
        return self.attention_bytes + self.state_bytes

    def per_rank_attention(self, gpus: int, kept: float) -> float:
        """Attention cache bytes one of ``gpus`` tensor-parallel ranks holds, of the ``kept`` fraction
        left on the devices: heads split, replicated past the KV head count, MLA latents whole."""
        shares: dict[float, float] = {}
        for nbytes, block in self.by_block:
            share = kv_split_share(block, gpus)
            shares[share] = shares.get(share, 0.0) + nbytes
        if len(shares) == 1:
            ((share, _),) = shares.items()
            return self.attention_bytes * kept * share
        return sum(math.ceil(nbytes) * kept * share for share, nbytes in shares.items())


def kv_cache(model: Model, engine: EngineProfile, kv_bytes: float, context: int, seqs: int) -> KVCache:
    """KV cache for ``seqs`` sequences of ``context`` tokens each, as ``engine`` allocates it."""
    laid = layout(model)
    attention = 0.0
    per_token = 0.0
    by_block: list[tuple[float, AttentionBlock | MLABlock]] = []
    full = sliding = 0
    # A fixed order (layout's: full, windowed, MLA; then the recurrent kinds) keeps the float sums
    # identical run to run (and in the browser's sizing model).
    for block, n in laid.attention:
        per_layer = kv_bytes_per_token_layer(block, kv_bytes, engine)
        window = _window(block)
        nbytes = n * per_layer * cached_tokens(window, engine, context, seqs, _page(block, engine))
        attention += nbytes
        by_block.append((nbytes, block))
        per_token += per_layer * n
        if window is None:
            full += n
        else:
            sliding += n
    state = 0.0
    for rblock, n in laid.recurrent:
        state += n * seqs * state_bytes_per_seq_layer(rblock, engine)
    return KVCache(
        attention_bytes=math.ceil(attention),
        state_bytes=math.ceil(state),
        bytes_per_token=per_token,
        full_layers=full,
        sliding_layers=sliding,
        recurrent_layers=laid.num_layers - full - sliding,
        by_block=tuple(by_block),
    )


def kv_read_per_token(model: Model, kv_bytes: float, context: int, state_bytes: float) -> float:
    """Bytes of cache one decode step reads for one sequence holding ``context`` tokens."""
    read = 0.0
    for block, n in layout(model).attention:
        window = _window(block)
        top_k = sparse_top_k(block)
        if top_k is not None:
            # Sparse attention: the indexer scores every cached key, the attention reads the top_k latents.
            latent = kv_elements_per_token(block) * kv_bytes
            read += n * (latent * min(context, top_k) + index_key_bytes(block, kv_bytes, None) * context)
            continue
        read += kv_bytes_per_token_layer(block, kv_bytes) * n * (context if window is None else min(context, window))
    return read + state_bytes
