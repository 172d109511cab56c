"""KV cache and recurrent state: bytes per layer kind, as each engine allocates them."""

from __future__ import annotations

import dataclasses
import math

from generator.content.schema import EngineProfile, LayerKind, Model
from generator.sizing.params import layer_count, layer_kinds


def pad(n: int, unit: int) -> int:
    """``n`` rounded up to a multiple of ``unit``."""
    return -(-n // unit) * unit


def kv_bytes_per_token_layer(model: Model, kv_bytes: float) -> float:
    """Bytes of KV cache one token takes in one softmax-attention layer.

    GQA/MHA keep K and V for every KV head; MLA keeps one compressed latent plus the shared RoPE
    key (no ×2, no heads).
    """
    mla = model.attention.mla
    if mla is not None:
        return (mla.kv_lora_rank + mla.qk_rope_head_dim) * kv_bytes
    a = model.architecture
    return 2 * a.num_kv_heads * a.head_dim * kv_bytes


def state_bytes_per_seq_layer(model: Model, kind: LayerKind, engine: EngineProfile) -> float:
    """Bytes of fixed recurrent state one sequence holds in one linear-attention or Mamba layer."""
    if kind is LayerKind.LINEAR:
        lin = model.attention.linear
        assert lin is not None
        conv = (2 * lin.num_key_heads * lin.key_head_dim + lin.num_value_heads * lin.value_head_dim) * (
            lin.conv_kernel - 1
        )
        ssm = lin.num_value_heads * lin.value_head_dim * lin.key_head_dim
        return conv * engine.state_conv_bytes + ssm * engine.state_ssm_bytes
    if kind is LayerKind.MAMBA:
        m = model.attention.mamba
        assert m is not None
        conv = (m.d_conv - 1) * (m.d_inner + 2 * m.n_groups * m.d_state)
        return conv * engine.state_conv_bytes + m.d_state * m.d_inner * engine.state_ssm_bytes
    return 0.0


def state_bytes_per_seq(model: Model, engine: EngineProfile) -> float:
    """Bytes of recurrent state one sequence holds over all layers (read in full every step)."""
    if model.attention.linear is None and model.attention.mamba is None:
        return 0.0  # attention layers only: no state (the sum below would add up zeros)
    return sum(state_bytes_per_seq_layer(model, kind, engine) for kind in layer_kinds(model))


def cached_tokens(kind: LayerKind, model: Model, engine: EngineProfile, context: int, seqs: int) -> int:
    """Token slots an engine allocates in one attention layer for ``seqs`` sequences of ``context``.

    llama.cpp / Ollama share one pool of n_ctx cells padded to 256; a sliding layer holds at most
    window·n_seq + n_ubatch cells. vLLM / SGLang page each sequence in 16-token blocks; a sliding
    layer keeps window − 1 + max_num_batched_tokens tokens (+1 block). MLX keeps each sequence's
    cache in 256-token steps and a rotating buffer of the window for sliding layers.
    """
    unit = engine.context_pad_tokens
    window = model.attention.sliding_window
    pool = engine.kv_allocation
    if kind is LayerKind.FULL or window is None:
        return pad(context * seqs, unit) if pool == "shared_pool" else seqs * pad(context, unit)
    if pool == "shared_pool":
        return pad(min(context * seqs, window * seqs + engine.batch_tokens), unit)
    if pool == "paged":
        return seqs * (pad(min(window - 1 + engine.batch_tokens, context), unit) + unit)
    return seqs * min(pad(context, unit), window)


@dataclasses.dataclass(frozen=True)
class KVCache:
    """KV cache and state bytes for one scenario, with the per-token figure for display."""

    attention_bytes: int
    state_bytes: int
    bytes_per_token: float
    full_layers: int
    sliding_layers: int
    recurrent_layers: int

    @property
    def total(self) -> int:
        """Bytes of KV cache plus recurrent state."""
        return self.attention_bytes + self.state_bytes


def kv_cache(model: Model, engine: EngineProfile, kv_bytes: float, context: int, seqs: int) -> KVCache:
    """KV cache for ``seqs`` sequences of ``context`` tokens each, as ``engine`` allocates it."""
    per_layer = kv_bytes_per_token_layer(model, kv_bytes)
    attention = 0.0
    state = 0.0
    # A fixed order (the enum's: full, sliding, linear, mamba) keeps the float sums identical run to run
    # (and in the browser's sizing model).
    for kind in LayerKind:
        n = layer_count(model, kind)
        if not n:
            continue
        if kind in (LayerKind.FULL, LayerKind.SLIDING):
            attention += n * per_layer * cached_tokens(kind, model, engine, context, seqs)
        else:
            state += n * seqs * state_bytes_per_seq_layer(model, kind, engine)
    full = layer_count(model, LayerKind.FULL)
    sliding = layer_count(model, LayerKind.SLIDING)
    return KVCache(
        attention_bytes=math.ceil(attention),
        state_bytes=math.ceil(state),
        bytes_per_token=per_layer * (full + sliding),
        full_layers=full,
        sliding_layers=sliding,
        recurrent_layers=model.architecture.num_layers - full - sliding,
    )


def kv_read_per_token(model: Model, kv_bytes: float, context: int, state_bytes: float) -> float:
    """Bytes of cache one decode step reads for one sequence holding ``context`` tokens."""
    per_layer = kv_bytes_per_token_layer(model, kv_bytes)
    window = model.attention.sliding_window or context
    full, sliding = layer_count(model, LayerKind.FULL), layer_count(model, LayerKind.SLIDING)
    return per_layer * (full * context + sliding * min(context, window)) + state_bytes
