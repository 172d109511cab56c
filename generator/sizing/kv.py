"""KV cache and recurrent state: bytes per block kind, as each engine allocates them."""

from __future__ import annotations

import dataclasses
import math

from generator.content.blocks import AttentionBlock, CompressedMLABlock, MLABlock
from generator.content.schema import EngineProfile, Model
from generator.sizing.layout import (
    compressed_state_bytes,
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


def ngram_state_bytes(model: Model, engine: EngineProfile) -> float:
    """Bytes of state one sequence holds for the n-gram tables' convolutions: (kernel − 1) · dilation
    positions of the residual streams per table (Qwen3.8-Flash-Next: 9 × 4 × 2560; vLLM short_conv_state)."""
    ng = model.network.ngram
    if ng is None or not ng.conv_kernel:
        return 0.0
    hc = model.network.hyper_connections
    width = (hc.streams if hc else 1) * model.architecture.hidden_size
    positions = (ng.conv_kernel - 1) * ng.conv_dilation
    return len(ng.tables) * positions * width * engine.state_conv_bytes


def state_bytes_per_seq(model: Model, engine: EngineProfile) -> float:
    """Bytes of recurrent (and compressor, and n-gram conv) state one sequence holds over all layers (read
    every step)."""
    laid = layout(model)
    if not laid.recurrent and not laid.compressed and model.network.ngram is None:
        return 0.0  # attention layers only: no state
    total = float(sum(n * state_bytes_per_seq_layer(block, engine) for block, n in laid.recurrent))
    total += sum(n * compressed_state_bytes(block, engine) for block, n in laid.compressed)
    return total + ngram_state_bytes(model, engine)


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
    """The page size a sparse MLA layer's kernels require on ``engine`` (None: the engine's own)."""
    ix = engine.indexed_mla
    return ix.block_tokens if ix and isinstance(block, MLABlock) and block.indexer is not None else None


@dataclasses.dataclass(frozen=True)
class KVCache:
    """KV cache and state bytes for one scenario, with the per-token figure for display."""

    attention_bytes: int
    state_bytes: int
    bytes_per_token: float
    # Attention cache bytes by the block that holds them, for the share of them a tensor-parallel rank
    # keeps (blocks whose KV heads split alike are summed together; None: index keys every rank keeps
    # whole, a QSA indexer's): see ``per_rank_attention``.
    by_block: tuple[tuple[float, AttentionBlock | MLABlock | CompressedMLABlock | None], ...] = ()

    @property
    def total(self) -> int:
        """Bytes of KV cache plus recurrent state."""
        return self.attention_bytes + self.state_bytes

    def per_rank_attention(self, gpus: int, kept: float) -> float:
        """Attention cache bytes one of ``gpus`` tensor-parallel ranks holds, of the ``kept`` fraction
        left on the devices: heads split, replicated past the KV head count, MLA latents whole."""
        shares: dict[float, float] = {}
        for nbytes, block in self.by_block:
            share = 1.0 if block is None else kv_split_share(block, gpus)
            shares[share] = shares.get(share, 0.0) + nbytes
        if len(shares) == 1:
            ((share, _),) = shares.items()
            return self.attention_bytes * kept * share
        return sum(math.ceil(nbytes) * kept * share for share, nbytes in shares.items())


def _paged(tokens: int, rows_per_page: int, block: int, row: float, align: int | None) -> float:
    """Bytes of ``tokens`` tokens in pages of ``block`` tokens holding ``rows_per_page`` rows, each page
    rounded up to ``align`` bytes."""
    page = rows_per_page * row
    if align:
        page = -(-page // align) * align
    return -(-tokens // block) * page


def compressed_cache(
    block: CompressedMLABlock, engine: EngineProfile, kv_bytes: float, context: int, seqs: int
) -> float:
    """Bytes one DeepSeek V4 layer caches for ``seqs`` sequences of ``context`` tokens: its window rows,
    one compressed row per ``ratio`` tokens, and (with an indexer) one index key per ``ratio`` tokens.

    llama.cpp keeps K-only rows of head_dim at the cache's type: the window in its sliding-window pool
    (n_swa·n_seq + n_ubatch cells, padded to 256), the compressed rows and index keys in a stream per
    sequence of ceil(context / ratio) cells padded to 256 (llama-kv-cache-dsv4.cpp). vLLM stores
    fp8_ds_mla rows of 584 B and 132-byte index keys in pages of 256 tokens (64 for the window), each
    rounded up to 576 B (kv_cache_interface.py, sparse_swa.py)."""
    rec = engine.compressed_mla
    record = rec.fp8_record_bytes if rec and rec.fp8_record_bytes and kv_bytes == 1 else None
    row = float(record) if record is not None else block.head_dim * kv_bytes
    # A layer that shares another's compressed entries keeps only its window (DeepSeek V4.1).
    ratio = block.ratio if block.cache == "own" else 0
    index_row = 0.0
    if block.indexer is not None and ratio:
        index_row = rec.index_key_bytes if rec and rec.index_key_bytes else block.indexer.head_dim * kv_bytes
    unit = engine.context_pad_tokens
    if rec and rec.block_tokens and rec.window_block_tokens:
        wb, cb, align = rec.window_block_tokens, rec.block_tokens, rec.page_align_bytes
        window_tokens = min(block.window - 1 + engine.batch_tokens, context)
        total = seqs * _paged(pad(window_tokens, wb) + wb, wb, wb, row, align)
        if ratio:
            per_page = cb // ratio
            total += seqs * _paged(context, per_page, cb, row, align)
            if index_row:
                total += seqs * _paged(context, per_page, cb, index_row, align)
        return total
    if engine.kv_allocation == "shared_pool":
        total = pad(min(context * seqs, block.window * seqs + engine.batch_tokens), unit) * row
    else:
        total = seqs * min(pad(context, unit), block.window) * row
    if ratio:
        entries = seqs * pad(-(-context // ratio), unit)
        total += entries * (row + index_row)
    return total


def kv_cache(model: Model, engine: EngineProfile, kv_bytes: float, context: int, seqs: int) -> KVCache:
    """KV cache for ``seqs`` sequences of ``context`` tokens each, as ``engine`` allocates it."""
    laid = layout(model)
    attention = 0.0
    per_token = 0.0
    by_block: list[tuple[float, AttentionBlock | MLABlock | CompressedMLABlock | None]] = []
    # A fixed order (layout's: full, windowed, MLA; then the recurrent kinds) keeps the float sums
    # identical run to run (and in the browser's sizing model).
    for block, n in laid.attention:
        per_layer = kv_bytes_per_token_layer(block, kv_bytes, engine)
        window = _window(block)
        nbytes = n * per_layer * cached_tokens(window, engine, context, seqs, _page(block, engine))
        attention += nbytes
        if isinstance(block, AttentionBlock) and block.indexer is not None:
            # The QSA indexer's keys: one head, replicated on every tensor-parallel rank.
            index = n * index_key_bytes(block, kv_bytes, engine) * cached_tokens(window, engine, context, seqs)
            by_block += [(nbytes - index, block), (index, None)]
        else:
            by_block.append((nbytes, block))
        per_token += per_layer * n
    for cblock, n in laid.compressed:
        nbytes = n * compressed_cache(cblock, engine, kv_bytes, context, seqs)
        attention += nbytes
        by_block.append((nbytes, cblock))
        if cblock.ratio and cblock.cache == "own":
            index = cblock.indexer.head_dim * kv_bytes if cblock.indexer else 0.0
            per_token += n * (cblock.head_dim * kv_bytes + index) / cblock.ratio
    state = 0.0
    for rblock, n in laid.recurrent:
        state += n * seqs * state_bytes_per_seq_layer(rblock, engine)
    for cblock, n in laid.compressed:
        state += n * seqs * compressed_state_bytes(cblock, engine)
    state += seqs * ngram_state_bytes(model, engine)
    return KVCache(
        attention_bytes=math.ceil(attention),
        state_bytes=math.ceil(state),
        bytes_per_token=per_token,
        by_block=tuple(by_block),
    )


def kv_read_per_token(model: Model, kv_bytes: float, context: int, state_bytes: float) -> float:
    """Bytes of cache one decode step reads for one sequence holding ``context`` tokens."""
    read = 0.0
    for block, n in layout(model).attention:
        window = _window(block)
        top_k = sparse_top_k(block)
        if top_k is not None:
            # Sparse attention: the indexer scores every cached key (a QSA indexer one pooled key per pool
            # tokens), the attention reads the top_k latents (or K and V rows).
            latent = kv_elements_per_token(block) * kv_bytes
            index = index_key_bytes(block, kv_bytes, None)
            if isinstance(block, AttentionBlock) and block.indexer is not None:
                index /= block.indexer.pool
            read += n * (latent * min(context, top_k) + index * context)
            continue
        read += kv_bytes_per_token_layer(block, kv_bytes) * n * (context if window is None else min(context, window))
    for cblock, n in layout(model).compressed:
        row = cblock.head_dim * kv_bytes
        read += n * row * min(context, cblock.window)
        if cblock.ratio:
            entries = -(-context // cblock.ratio)
            ix = cblock.indexer
            if ix is not None:
                # Compressed sparse attention: every index key scored (by a layer that selects for itself),
                # the top_k compressed rows read.
                scored = ix.head_dim * kv_bytes * entries if ix.selection == "own" else 0.0
                read += n * (row * min(entries, ix.top_k) + scored)
            else:
                read += n * row * entries
    return read + state_bytes
