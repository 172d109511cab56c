"""A model's network expanded once: which blocks its layers use and how many of each, with one rule
per block kind for every output (parameters by role, KV cache or state, attention FLOPs).

Every layer with the same block is sized the same, so the layout keeps each distinct mixer and FFN
with its layer count, in a fixed order (full attention, windowed attention, MLA, gated delta net,
Mamba-2; then in order of first use), which keeps float sums identical run to run and in the browser
(static/sizing.js walks the same order).
"""

from __future__ import annotations

import dataclasses

from generator.content.blocks import (
    FFN,
    AttentionBlock,
    CompressedMLABlock,
    DenseBlock,
    GatedDeltaNetBlock,
    KDABlock,
    Mamba2Block,
    Mixer,
    MLABlock,
    MoEBlock,
)
from generator.content.schema import EngineProfile, Model

# The order distinct mixers are summed in (a windowed attention block sorts after a full one).
_MIXER_ORDER = {
    "attention": 0,
    "attention_window": 1,
    "mla": 2,
    "gated_delta_net": 3,
    "mamba2": 4,
    "kda": 5,
    "compressed_mla": 6,
}


def _mixer_rank(block: Mixer) -> int:
    if isinstance(block, AttentionBlock) and block.window is not None:
        return _MIXER_ORDER["attention_window"]
    return _MIXER_ORDER[block.kind]


@dataclasses.dataclass(frozen=True)
class Layout:
    """Distinct blocks of a model with the number of layers using each."""

    hidden: int
    num_layers: int
    mixers: tuple[tuple[Mixer, int], ...]
    ffns: tuple[tuple[FFN, int], ...]
    # MTP layers' blocks (counted in the checkpoint, never loaded by the engines sized here).
    mtp_mixers: tuple[tuple[Mixer, int], ...]
    mtp_ffns: tuple[tuple[FFN, int], ...]
    mtp_layers: int
    mtp_modules: int
    mtp_own_head: bool

    @property
    def attention(self) -> tuple[tuple[AttentionBlock | MLABlock, int], ...]:
        """Softmax-attention mixers (those with a KV cache) and their layer counts."""
        return tuple((b, n) for b, n in self.mixers if isinstance(b, AttentionBlock | MLABlock))

    @property
    def compressed(self) -> tuple[tuple[CompressedMLABlock, int], ...]:
        """DeepSeek V4 attention layers (a window and a compressed cache) and their layer counts."""
        return tuple((b, n) for b, n in self.mixers if isinstance(b, CompressedMLABlock))

    @property
    def recurrent(self) -> tuple[tuple[GatedDeltaNetBlock | Mamba2Block | KDABlock, int], ...]:
        """Recurrent mixers (a fixed state per sequence) and their layer counts."""
        return tuple((b, n) for b, n in self.mixers if isinstance(b, GatedDeltaNetBlock | Mamba2Block | KDABlock))

    @property
    def moe(self) -> tuple[tuple[MoEBlock, int], ...]:
        """MoE blocks and their layer counts."""
        return tuple((b, n) for b, n in self.ffns if isinstance(b, MoEBlock))


def _grouped(names: list[str | None]) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for name in names:
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
    return list(counts.items())


_LAID_OUT: dict[int, tuple[Model, Layout]] = {}


def layout(model: Model) -> Layout:
    """The model's layers grouped by block (computed once per model per process)."""
    hit = _LAID_OUT.get(id(model))
    if hit is not None and hit[0] is model:
        return hit[1]
    net = model.network
    blocks = net.blocks
    specs = net.schedule()

    def mixers(names: list[str | None]) -> tuple[tuple[Mixer, int], ...]:
        found = [(blocks[n], c) for n, c in _grouped(names)]
        ordered = sorted(range(len(found)), key=lambda i: (_mixer_rank(found[i][0]), i))  # type: ignore[arg-type]
        return tuple((found[i][0], found[i][1]) for i in ordered)  # type: ignore[misc]

    def ffns(names: list[str | None]) -> tuple[tuple[FFN, int], ...]:
        return tuple((blocks[n], c) for n, c in _grouped(names))  # type: ignore[misc]

    mtp = net.mtp.layers if net.mtp else ()
    laid = Layout(
        hidden=model.architecture.hidden_size,
        num_layers=len(specs),
        mixers=mixers([m for m, _ in specs]),
        ffns=ffns([f for _, f in specs]),
        mtp_mixers=mixers([m for m, _ in mtp]),
        mtp_ffns=ffns([f for _, f in mtp]),
        mtp_layers=len(mtp),
        mtp_modules=(net.mtp.modules or len(mtp)) if net.mtp else 0,
        mtp_own_head=bool(net.mtp and net.mtp.own_head),
    )
    _LAID_OUT[id(model)] = (model, laid)
    return laid


def layer_counts(model: Model) -> dict[str, int]:
    """Layers by how they mix tokens: ``f`` full attention (MLA included), ``s`` windowed attention,
    ``l`` gated delta net, ``m`` Mamba-2 (kinds with no layer left out)."""
    out: dict[str, int] = {}
    for block, n in layout(model).mixers:
        if isinstance(block, AttentionBlock) and block.window is not None:
            letter = "s"
        else:
            kinds = {
                "attention": "f",
                "mla": "f",
                "compressed_mla": "f",
                "gated_delta_net": "l",
                "kda": "l",
                "mamba2": "m",
            }
            letter = kinds[block.kind]
        out[letter] = out.get(letter, 0) + n
    return out


# --- parameters -------------------------------------------------------------------------------------


def mixer_params(block: Mixer, h: int) -> tuple[int, int]:
    """(matrix params, small params: biases, norms, gates' vectors) of one layer's mixer."""
    if isinstance(block, AttentionBlock):
        return _attention_params(block, h)
    if isinstance(block, MLABlock):
        return _mla_params(block, h)
    if isinstance(block, GatedDeltaNetBlock):
        k = block.num_key_heads * block.key_head_dim
        v = block.num_value_heads * block.value_head_dim
        matrices = h * (2 * k + 2 * v) + h * 2 * block.num_value_heads + v * h
        small = (2 * k + v) * block.conv_kernel + 2 * block.num_value_heads + block.value_head_dim
        return matrices, small
    if isinstance(block, KDABlock):
        return _kda_params(block, h)
    if isinstance(block, CompressedMLABlock):
        return _compressed_mla_params(block, h)
    conv_dim = block.d_inner + 2 * block.n_groups * block.d_state
    matrices = h * (2 * block.d_inner + 2 * block.n_groups * block.d_state + block.num_heads) + block.d_inner * h
    small = conv_dim * block.d_conv + conv_dim + 3 * block.num_heads + block.d_inner
    return matrices, small


def _attention_params(b: AttentionBlock, h: int) -> tuple[int, int]:
    q_out = b.heads * b.head_dim
    k_out = b.kv_heads * b.head_dim
    v_out = 0 if b.k_eq_v else b.kv_heads * b.value_dim
    o_in = b.heads * b.value_dim
    gate = {"none": 0, "element": o_in, "head": b.heads}[b.output_gate]
    matrices = h * (q_out + gate + k_out + v_out) + o_in * h
    small = 0
    if b.bias:
        small += q_out + gate + k_out + v_out
    if b.qk_norm:
        small += (q_out + k_out) if b.qk_norm_over == "projection" else 2 * b.head_dim
    if b.output_bias:
        small += h
    if b.sinks:
        small += b.heads
    ix = b.indexer
    if ix is not None:
        # QSA: one projection to the query heads and the key head, an RMSNorm on each (Qwen4ExpTextQSAIndexer).
        matrices += h * (ix.heads + 1) * ix.head_dim
        small += 2 * ix.head_dim
    return matrices, small


def compressor_overlap(ratio: int) -> int:
    """How many overlapping windows a compressor of ``ratio`` keeps (DeepSeek V4: 2 at ratio 4, else 1)."""
    return 2 if ratio == 4 else 1


def _compressed_mla_params(b: CompressedMLABlock, h: int) -> tuple[int, int]:
    """(matrix, small) params of a DeepSeek V4 / V4.1 attention layer (vLLM deepseek_v4.py,
    deepseek_compressor.py; DeepSeek-V4.1-Flash inference/model.py): wq_a, q_norm, wq_b, wkv, kv_norm, the
    grouped low-rank output (wo_a, wo_b) and sinks. A layer that keeps its own compressed cache adds the
    compressor: wkv of overlap·head_dim, a gate as wide where it pools (ratio > 1), its position table (V4)
    and norm. An indexer with its own selection adds wq_b from the q latent and weights_proj; its keys
    come from its own ratio-4 compressor of the hidden state (V4: no wk) or, in the layer that keeps the
    cache, from the latent through wk and an RMSNorm (V4.1)."""
    heads_width = b.heads * b.head_dim
    matrices = h * b.q_lora_rank + b.q_lora_rank * heads_width + h * b.head_dim
    matrices += (heads_width // b.o_groups) * (b.o_groups * b.o_lora_rank) + b.o_groups * b.o_lora_rank * h
    small = b.q_lora_rank + b.head_dim + (b.heads if b.sinks else 0)
    own = b.cache == "own"
    if b.ratio and own:
        coff = compressor_overlap(b.ratio)
        matrices += (2 if b.ratio > 1 else 1) * coff * b.head_dim * h
        small += (b.ratio * coff * b.head_dim if b.position_bias else 0) + b.head_dim
    ix = b.indexer
    if ix is not None:
        if ix.selection == "own":
            matrices += b.q_lora_rank * ix.heads * ix.head_dim + h * ix.heads
        if own and b.index_keys == "compressor":
            matrices += 2 * 2 * ix.head_dim * h
            small += b.ratio * 2 * ix.head_dim + ix.head_dim
        elif own:
            matrices += b.head_dim * ix.head_dim
            small += ix.head_dim
    return matrices, small


def _kda_params(b: KDABlock, h: int) -> tuple[int, int]:
    """(matrix, small) params of a KDA layer: q, k, v and o projections, the low-rank forget gate (f_a
    h→d, f_b d→P), beta (h→heads), the output gate, and the q/k/v short convolutions, A_log, dt_bias and
    the output norm (vLLM layers/kda.py; Megatron-Bridge kimi_k3_layers.py)."""
    p = b.heads * b.head_dim
    gate = h * p if b.output_gate == "full" else h * b.head_dim + b.head_dim * p
    matrices = 3 * h * p + h * b.head_dim + b.head_dim * p + h * b.heads + p * h + gate
    small = 3 * p * b.conv_kernel + b.heads + p + b.head_dim
    return matrices, small


def _mla_params(b: MLABlock, h: int) -> tuple[int, int]:
    qk = b.qk_nope_head_dim + b.qk_rope_head_dim
    small = 0
    if b.q_lora_rank:
        q = h * b.q_lora_rank + b.q_lora_rank * b.heads * qk
        small += b.q_lora_rank
    else:
        q = h * b.heads * qk
    kv = h * (b.kv_lora_rank + b.qk_rope_head_dim) + b.kv_lora_rank * b.heads * (b.qk_nope_head_dim + b.v_head_dim)
    small += b.kv_lora_rank
    o = b.heads * b.v_head_dim * h
    matrices = q + kv + o + (h * b.heads * b.v_head_dim if b.output_gate else 0)
    ix = b.indexer
    if ix is not None:
        # Lightning indexer: queries from the shared q latent (or the hidden state), one key head with a
        # LayerNorm (weight and bias), and one weight per head; a K-pool adds its gate and position table.
        matrices += (b.q_lora_rank or h) * ix.heads * ix.head_dim + h * ix.head_dim + h * ix.heads
        small += 2 * ix.head_dim
        if ix.pool > 1:
            matrices += h * ix.head_dim
            small += ix.pool * ix.head_dim
    return matrices, small


def ffn_matrix(h: int, inter: int, gated: bool, bias: bool) -> tuple[int, int]:
    """(matrix params, bias params) of one feed-forward network of width ``inter``."""
    matrices = (3 if gated else 2) * h * inter
    small = ((2 if gated else 1) * inter + h) if bias else 0
    return matrices, small


@dataclasses.dataclass(frozen=True)
class FFNParams:
    """Parameters of one layer's FFN block by role."""

    dense: int
    shared: int
    experts: int
    experts_active: int
    small: int


def ffn_params(block: FFN, h: int) -> FFNParams:
    """One layer's FFN parameters by role: a dense block is all ``dense``; a MoE block splits routed
    experts (all, and the active ones), shared experts, the dense MLP beside them, and its latent
    projections (counted with the shared, always-read weights)."""
    if isinstance(block, DenseBlock):
        m, s = ffn_matrix(h, block.intermediate, block.gated, block.bias)
        return FFNParams(dense=m, shared=0, experts=0, experts_active=0, small=s)
    width = block.latent or h
    one_m, one_s = ffn_matrix(width, block.intermediate, block.gated, block.bias)
    # Expert biases are tiny; they count as small tensors, all resident, read only for active experts.
    biases = int(block.router_bias) + int(block.vision_router_bias)
    small = block.experts * one_s + h * block.experts + block.experts * biases
    shared = 0
    if block.shared_intermediate:
        m, s = ffn_matrix(h, block.shared_intermediate, block.gated, block.bias)
        shared += m
        small += s + (h if block.shared_gate else 0)
    dense = 0
    if block.dense_beside:
        dense, s = ffn_matrix(h, block.dense_beside, block.gated, block.bias)
        small += s
    if block.latent:
        shared += 2 * h * block.latent
        small += block.latent if block.latent_norm else 0
    return FFNParams(
        dense=dense,
        shared=shared,
        experts=block.experts * one_m,
        experts_active=block.experts_per_token * one_m,
        small=small,
    )


# --- KV cache and state -----------------------------------------------------------------------------


def kv_elements_per_token(block: AttentionBlock | MLABlock) -> int:
    """Elements of KV cache one token takes in one layer of ``block``.

    GQA/MHA keep K and V for every KV head (both halves also where keys double as values: the
    engines cache V all the same); MLA keeps one compressed latent plus the shared RoPE key (no ×2,
    no heads).
    """
    if isinstance(block, MLABlock):
        return block.kv_lora_rank + block.qk_rope_head_dim
    return block.kv_heads * (block.head_dim + block.value_dim)


def index_key_bytes(block: AttentionBlock | MLABlock, kv_bytes: float, engine: EngineProfile | None) -> float:
    """Bytes of one token's sparse-attention index key in one layer (0 without an indexer): the engine's
    record where it has one (vLLM: 132), else ``head_dim`` elements of the KV cache's type (llama.cpp).
    A QSA indexer keeps one mean-pooled key per ``pool`` tokens where the engine says so (vLLM and SGLang,
    in BF16), else one key per token at the KV cache's element size."""
    if block.indexer is None:
        return 0.0
    if isinstance(block, AttentionBlock):
        ix = block.indexer
        pooled = engine.pooled_index if engine else None
        if pooled is None:
            return ix.head_dim * kv_bytes
        return ix.head_dim * pooled.key_bytes_per_element / ix.pool
    record = engine.indexed_mla.index_key_bytes if engine and engine.indexed_mla else None
    # A pooled indexer caches each token's gate logits beside its key (llama.cpp: two heads of head_dim).
    elements = block.indexer.head_dim * (2 if block.indexer.pool > 1 else 1)
    return record if record is not None else elements * kv_bytes


def latent_record_bytes(
    block: AttentionBlock | MLABlock, kv_bytes: float, engine: EngineProfile | None
) -> float | None:
    """The engine's own per-token record of an indexed MLA layer's latent with an 8-bit cache (vLLM's
    fp8_ds_mla), or None where the plain element count applies."""
    if not isinstance(block, MLABlock) or block.indexer is None or kv_bytes != 1 or engine is None:
        return None
    ix = engine.indexed_mla
    return float(ix.fp8_record_bytes) if ix and ix.fp8_record_bytes else None


def state_bytes_per_seq_layer(block: GatedDeltaNetBlock | Mamba2Block | KDABlock, engine: EngineProfile) -> float:
    """Bytes of fixed recurrent state one sequence holds in one gated-delta-net, KDA or Mamba-2 layer.

    KDA: q, k and v conv states of (kernel − 1) × heads·head_dim each, and a heads × head_dim × head_dim
    state (vLLM mamba_utils kda_state_shape: conv in the model dtype, state in FP32; llama.cpp
    llama-hparams n_embd_r / n_embd_s, both F32)."""
    if isinstance(block, KDABlock):
        p = block.heads * block.head_dim
        conv = 3 * p * (block.conv_kernel - 1)
        return conv * engine.state_conv_bytes + block.heads * block.head_dim * block.head_dim * engine.state_ssm_bytes
    if isinstance(block, GatedDeltaNetBlock):
        conv = (2 * block.num_key_heads * block.key_head_dim + block.num_value_heads * block.value_head_dim) * (
            block.conv_kernel - 1
        )
        ssm = block.num_value_heads * block.value_head_dim * block.key_head_dim
        return conv * engine.state_conv_bytes + ssm * engine.state_ssm_bytes
    conv = (block.d_conv - 1) * (block.d_inner + 2 * block.n_groups * block.d_state)
    return conv * engine.state_conv_bytes + block.d_state * block.d_inner * engine.state_ssm_bytes


def sparse_top_k(block: AttentionBlock | MLABlock) -> int | None:
    """How many cached tokens a sparse-attention layer reads per query (None: every one in reach)."""
    return block.indexer.top_k if block.indexer else None


def index_width(block: AttentionBlock | MLABlock) -> int:
    """The indexer's query-key width over its heads: FLOPs per (query, key) pair it scores / 2 (a QSA
    indexer scores pooled keys: per token, 1/pool of that)."""
    ix = block.indexer
    if ix is None:
        return 0
    return ix.heads * ix.head_dim // (ix.pool if ix.style == "qsa" else 1)


def attention_width(block: AttentionBlock | MLABlock) -> int:
    """Sum over heads of the query-key and value widths: FLOPs per (query, key) pair / 2."""
    if isinstance(block, MLABlock):
        return block.heads * (block.qk_nope_head_dim + block.qk_rope_head_dim + block.v_head_dim)
    return block.heads * (block.head_dim + block.value_dim)


def kv_split_share(block: AttentionBlock | MLABlock | CompressedMLABlock, gpus: int) -> float:
    """The share of a layer's KV cache one of ``gpus`` tensor-parallel ranks holds: heads split, and
    replicated past the KV head count; an MLA latent is replicated whole on every rank."""
    if isinstance(block, MLABlock | CompressedMLABlock):
        return 1.0
    return 1 / min(gpus, block.kv_heads)


def compressed_state_bytes(block: CompressedMLABlock, engine: EngineProfile) -> float:
    """Bytes of compressor state one sequence holds in one DeepSeek V4 layer: the kv and score rows (overlap
    × ratio of them, overlap × head_dim wide) of the main compressor and of the indexer's, at the engine's
    state element size (FP32 in vLLM's CompressorStateCache and llama.cpp's llama-kv-cache-dsv4). Only a
    layer that pools (ratio > 1) into a cache of its own keeps it (V4.1: ratio-1 compressors pool nothing,
    and its index keys come from the latent, with no compressor of their own)."""
    if block.ratio <= 1 or block.cache != "own":
        return 0.0
    coff = compressor_overlap(block.ratio)
    rows = 2 * (coff * block.ratio) * (coff * block.head_dim)
    if block.indexer is not None and block.index_keys == "compressor":
        rows += 2 * (2 * block.ratio) * (2 * block.indexer.head_dim)
    return rows * engine.state_ssm_bytes


def tp_divides(block: Mixer, gpus: int) -> bool:
    """Whether tensor parallelism over ``gpus`` ranks can split this mixer's heads evenly."""
    if isinstance(block, AttentionBlock):
        kv = block.kv_heads
        return block.heads % gpus == 0 and (kv % gpus == 0 if gpus <= kv else gpus % kv == 0)
    if isinstance(block, MLABlock | CompressedMLABlock):
        return block.heads % gpus == 0
    if isinstance(block, GatedDeltaNetBlock):
        return block.num_key_heads % gpus == 0 and block.num_value_heads % gpus == 0
    if isinstance(block, KDABlock):
        return block.heads % gpus == 0
    return block.num_heads % gpus == 0 and (block.n_groups % gpus == 0 or gpus % block.n_groups == 0)
