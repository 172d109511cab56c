"""A model's network as a block list: named block templates and a run-length layer schedule.

A layer holds a mixer (attention of some kind, or a recurrent mixer) and/or a feed-forward block;
either may be absent (Nemotron-H layers are one or the other). Blocks are named templates so a
93-layer model stays a few lines; the schedule repeats units of ``[mixer, ffn]`` pairs, or spells a
letter pattern (``MEMEM*E…``) with a map from letters to pairs.

Pure data: the engine (generator/sizing/layout.py) expands a Network once per model and every output
(parameters, weights, KV cache and state, speed) reads that one expansion.
"""

from __future__ import annotations

import functools
from typing import Annotated, Literal, Self

from pydantic import Field, model_validator

from generator.content.types import Frozen, Heads, Layers, Tokens, Width

Count = Annotated[int, Field(ge=0, le=1_048_576)]
BlockName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,31}$")]


class Indexer(Frozen):
    """A sparse-attention indexer (DeepSeek V3.2's lightning indexer, GLM-5's DSA): ``heads`` query heads
    of ``head_dim`` score every cached token against one cached index key per token, and the attention
    then reads only the ``top_k`` best-scored tokens.

    ``pool``: keys pooled over groups of that many tokens, with a learned gate in a lightning indexer
    (GLM-5.3-Flash's K-pool: a position table of pool × head_dim and a gate projection hidden → head_dim;
    each token caches its key and its gate logits), by a mean in a QSA indexer (one pooled key cached per
    ``pool`` tokens)."""

    heads: Heads
    head_dim: Width
    top_k: Tokens
    pool: Annotated[int, Field(ge=1, le=1024)] = 1
    # ``qsa`` (Qwen3.8-Flash-Next's QSA on GQA layers): one projection of the hidden state makes ``heads``
    # query heads and one key head, each with an RMSNorm; keys are mean-pooled over ``pool`` tokens (no
    # learned pooling) and scored without per-head weights.
    style: Literal["lightning", "qsa"] = "lightning"
    # ``shared``: the layer reuses the selection the nearest indexer below it made (DeepSeek V4.1's layers
    # outside index_source_layer_ids): no weights of its own and no scoring, but the same ``top_k`` read.
    selection: Literal["own", "shared"] = "own"


class AttentionBlock(Frozen):
    """Softmax attention (MHA, GQA, MQA): K and V cached per KV head, for every token or a window."""

    kind: Literal["attention"]
    heads: Heads
    kv_heads: Heads
    head_dim: Width
    # Width of one value head where it differs from the key's (None: head_dim).
    v_head_dim: Width | None = None
    # Sliding-window (or chunked local) attention: at most this many tokens attended and cached.
    window: Tokens | None = None
    # Keys double as values (Gemma 4's full layers): no V projection. Engines still cache V (vLLM copies
    # K into the V cache; llama.cpp stores both), so the cache keeps both halves.
    k_eq_v: bool = False
    # An output gate on the attention result: one per element (Qwen3-Next: the q projection doubles)
    # or one per head (Step 3.5's g_proj).
    output_gate: Literal["none", "element", "head"] = "none"
    qk_norm: bool = False
    # What one q/k norm weight spans: a head (Qwen3, Gemma: the weight is shared by the heads) or the
    # whole projection (MiniMax-M2's qk_norm_type per_layer: one weight per channel of q and of k).
    qk_norm_over: Literal["head", "projection"] = "head"
    bias: bool = False
    output_bias: bool = False
    sinks: bool = False
    # A QSA indexer: the layer attends to the ``top_k`` tokens it selects (Qwen3.8-Flash-Next).
    indexer: Indexer | None = None

    @property
    def value_dim(self) -> int:
        """Width of one value head."""
        return self.v_head_dim or self.head_dim

    @model_validator(mode="after")
    def _heads_group(self) -> Self:
        if self.heads % self.kv_heads:
            raise ValueError(f"heads ({self.heads}) must be a multiple of kv_heads ({self.kv_heads})")
        if self.indexer is not None and (self.indexer.style != "qsa" or self.indexer.selection != "own"):
            raise ValueError("an attention layer's indexer is a QSA indexer (style: qsa) with its own selection")
        return self


class MLABlock(Frozen):
    """Multi-head latent attention (DeepSeek V2/V3, Kimi, GLM-5): one latent (+ shared RoPE key) cached."""

    kind: Literal["mla"]
    heads: Heads
    kv_lora_rank: Width
    qk_rope_head_dim: Annotated[int, Field(ge=0, le=1_048_576)]
    qk_nope_head_dim: Width
    v_head_dim: Width
    q_lora_rank: Width | None = None
    indexer: Indexer | None = None
    # A sigmoid gate on the attention output, projected from the hidden state (Kimi K3's g_proj).
    output_gate: bool = False

    @model_validator(mode="after")
    def _lightning(self) -> Self:
        if self.indexer is not None and (self.indexer.style != "lightning" or self.indexer.selection != "own"):
            raise ValueError("an MLA layer's indexer is a lightning indexer with its own selection")
        return self


class CompressedMLABlock(Frozen):
    """DeepSeek V4's attention: one shared latent KV head (MQA, ``head_dim`` wide, its last ``rope_dim``
    channels rotary) over the last ``window`` tokens, plus, where ``ratio`` > 0, a cache of entries that
    each compress ``ratio`` tokens (a learned gated pooling: the compressor). Ratio-4 layers select their
    ``indexer.top_k`` best compressed entries with an indexer whose keys are compressed the same way
    (compressed sparse attention); ratio-128 layers attend to every compressed entry (heavily compressed
    attention). The output projection is low-rank and grouped (``o_groups`` × ``o_lora_rank``)."""

    kind: Literal["compressed_mla"]
    heads: Heads
    head_dim: Width
    rope_dim: Annotated[int, Field(ge=0, le=65_536)]
    q_lora_rank: Width
    o_lora_rank: Width
    o_groups: Heads
    window: Tokens
    ratio: Annotated[int, Field(ge=0, le=65_536)]
    indexer: Indexer | None = None
    sinks: bool = False
    # ``shared``: the layer reads the compressed entries (and their index keys) of the nearest layer below
    # it that keeps them (DeepSeek V4.1's kv_source_layer_ids): no compressor and no cache beyond its window.
    cache: Literal["own", "shared"] = "own"
    # The compressor's learned position table (ratio × head_dim; DeepSeek V4 has one, V4.1 none).
    position_bias: bool = True
    # Where the index keys come from: the indexer's own compressor of the hidden state (V4), or the
    # layer's compressed latent through one projection and an RMSNorm (V4.1).
    index_keys: Literal["compressor", "latent"] = "compressor"

    @model_validator(mode="after")
    def _shapes(self) -> Self:
        if self.indexer is not None and self.ratio == 0:
            raise ValueError("an indexer selects compressed entries: it needs ratio > 0")
        if self.cache == "shared" and self.ratio == 0:
            raise ValueError("a layer that shares compressed entries needs ratio > 0")
        if self.indexer is not None and self.indexer.style != "lightning":
            raise ValueError("a compressed layer's indexer is a lightning indexer")
        if (self.heads * self.head_dim) % self.o_groups:
            raise ValueError(
                f"heads × head_dim ({self.heads * self.head_dim}) must divide into o_groups ({self.o_groups})"
            )
        return self


class GatedDeltaNetBlock(Frozen):
    """Gated delta net (Qwen3-Next, Qwen3.5): a fixed recurrent state per sequence and a short conv."""

    kind: Literal["gated_delta_net"]
    num_key_heads: Heads
    key_head_dim: Width
    num_value_heads: Heads
    value_head_dim: Width
    conv_kernel: Annotated[int, Field(ge=1, le=64)]


class KDABlock(Frozen):
    """Kimi Delta Attention (Kimi Linear, Kimi K3, GLM-5.3-Flash): a gated delta rule with per-channel
    forget gates; a fixed state per sequence (heads × head_dim × head_dim) and short convolutions on q, k
    and v. The output gate is low-rank (g_a, g_b) or full-rank (Kimi K3's g_proj)."""

    kind: Literal["kda"]
    heads: Heads
    head_dim: Width
    conv_kernel: Annotated[int, Field(ge=1, le=64)]
    output_gate: Literal["low_rank", "full"] = "low_rank"


class Mamba2Block(Frozen):
    """Mamba-2: a conv state and an SSM state per sequence."""

    kind: Literal["mamba2"]
    d_inner: Width
    d_state: Width
    n_groups: Heads
    d_conv: Annotated[int, Field(ge=1, le=64)]
    num_heads: Heads


class DenseBlock(Frozen):
    """A feed-forward block: gated (SwiGLU/GeGLU: gate, up, down) or not (up, down)."""

    kind: Literal["dense"]
    intermediate: Width
    gated: bool = True
    bias: bool = False


class MoEBlock(Frozen):
    """Mixture of experts: every expert resident; ``experts_per_token`` run per token.

    ``shared_intermediate`` is the width of the shared experts together (one FFN of that width);
    ``dense_beside`` the width of a dense MLP that runs beside the experts on every token (Gemma 4);
    ``latent`` the width experts work in when they sit between a down and an up projection of the
    hidden state (Nemotron 3 Super's latent MoE).
    """

    kind: Literal["moe"]
    experts: Heads
    experts_per_token: Heads
    intermediate: Width
    gated: bool = True
    bias: bool = False
    shared_experts: Count = 0
    shared_intermediate: Count = 0
    shared_gate: bool = False
    router_bias: bool = False
    # A second router bias used on image tokens (DeepSeek V4.1's gate.bias_vl).
    vision_router_bias: bool = False
    dense_beside: Count = 0
    latent: Width | None = None
    # An RMSNorm over the combined routed output at the latent width (Kimi K3's routed_expert_norm).
    latent_norm: bool = False

    @model_validator(mode="after")
    def _k_le_e(self) -> Self:
        if self.experts_per_token > self.experts:
            raise ValueError(f"experts_per_token ({self.experts_per_token}) exceeds experts ({self.experts})")
        if self.shared_experts and not self.shared_intermediate:
            raise ValueError("shared_experts needs shared_intermediate (their width together)")
        return self


Mixer = AttentionBlock | MLABlock | CompressedMLABlock | GatedDeltaNetBlock | KDABlock | Mamba2Block
FFN = DenseBlock | MoEBlock
Block = Annotated[Mixer | FFN, Field(discriminator="kind")]
MIXER_KINDS = frozenset({"attention", "mla", "compressed_mla", "gated_delta_net", "kda", "mamba2"})
FFN_KINDS = frozenset({"dense", "moe"})

# One layer: [mixer, ffn], either may be null.
LayerSpec = tuple[BlockName | None, BlockName | None]


class Repeat(Frozen):
    """``unit`` (a list of layers) repeated ``repeat`` times."""

    repeat: Layers = 1
    unit: tuple[LayerSpec, ...] = Field(min_length=1, max_length=1024)


class Pattern(Frozen):
    """One layer per letter of ``pattern``; ``map`` says which [mixer, ffn] each letter is."""

    pattern: Annotated[str, Field(min_length=1, max_length=1024)]
    map: dict[Annotated[str, Field(min_length=1, max_length=1)], LayerSpec]

    @model_validator(mode="after")
    def _letters(self) -> Self:
        unknown = sorted(set(self.pattern) - set(self.map))
        if unknown:
            raise ValueError(f"pattern letters {unknown} are not in map")
        return self


Run = Repeat | Pattern


class MTP(Frozen):
    """Multi-token-prediction layers shipped with the checkpoint: each is a decoder layer plus a
    projection of [embedding; hidden] (2·hidden → hidden) and its norms. Engines load them only for
    speculative decoding, so they count in the checkpoint, not in memory."""

    layers: tuple[LayerSpec, ...] = Field(min_length=1, max_length=64)
    # Whether each MTP module has its own output head (else it shares the model's).
    own_head: bool = False
    # How many modules the layers form (each with one projection and its norms); None: one per layer.
    # Nemotron 3 Super's one module is two layers (an attention layer, then a MoE layer).
    modules: Annotated[int, Field(ge=1, le=64)] | None = None


def expand(layers: tuple[Run, ...]) -> tuple[LayerSpec, ...]:
    """Every layer's [mixer, ffn] in order."""
    out: list[LayerSpec] = []
    for run in layers:
        if isinstance(run, Repeat):
            out += list(run.unit) * run.repeat
        else:
            out += [run.map[letter] for letter in run.pattern]
    return tuple(out)


class HyperConnections(Frozen):
    """Several residual streams mixed around every mixer and FFN (hyper-connections).

    ``mhc`` (DeepSeek V4 and V4.1, GLM-5.3-Flash): per mixer and per FFN a mixing function of (2 + n)·n
    outputs over the n·hidden streams, its bias and 3 scales; the streams collapse at the end by a mean
    (GLM), by a learned head (DeepSeek V4: n outputs, n biases, a scale) or by the last FFN's own mix
    (V4.1: ``none``, no parameters).

    ``gated_residual`` (Qwen3.8-Flash-Next): per mixer and per FFN a grouped RMSNorm over the n·hidden
    streams, a low-rank (``rank``) gate down and up, and a block injection of n × n·hidden; the layers have
    no norms of their own, and the streams collapse at the end through one more such block without the
    injection, in place of the final norm."""

    streams: Annotated[int, Field(ge=2, le=16)]
    kind: Literal["mhc", "gated_residual"]
    final: Literal["mean", "head", "none"] = "mean"
    rank: Annotated[int, Field(ge=1, le=65_536)] | None = None

    @model_validator(mode="after")
    def _rank(self) -> Self:
        if (self.kind == "gated_residual") != (self.rank is not None):
            raise ValueError("rank is the low-rank width of gated_residual hyper-connections (and only of them)")
        if self.kind == "gated_residual" and self.final != "mean":
            raise ValueError("final is how mhc streams collapse; gated_residual streams collapse through a mixer")
        return self


class NgramTable(Frozen):
    """One n-gram embedding table: the decoder layer (0-based) that adds it and its rows."""

    layer: Annotated[int, Field(ge=0, le=4095)]
    rows: Annotated[int, Field(ge=1, le=10**11)]


class NgramEmbedding(Frozen):
    """Hashed n-gram embedding tables added to some layers' residual: each token looks up ``lookups`` rows
    of ``width`` in each table (one per hash head), and a projection mixes them in. The tables are large and
    read a few rows at a time, so engines may keep them in host RAM (engines.yaml ``ngram_tables_on_host``).

    ``ple`` (Qwen3.8-Flash-Next's per-layer n-gram embedding): the lookups' concatenation E is projected to
    keys over the streams (n·hidden × E) and to a value (hidden × E), with three RMSNorms over the streams
    and a depthwise conv of ``conv_kernel`` taps over them.
    ``engram`` (DeepSeek V4.1's Engram memory): E is projected to one key per stream and a shared value
    ((n + 1)·hidden × E), with a query and a key weight of n × hidden for the gate."""

    kind: Literal["ple", "engram"]
    tables: tuple[NgramTable, ...] = Field(min_length=1, max_length=64)
    width: Width
    lookups: Annotated[int, Field(ge=1, le=1024)]
    conv_kernel: Annotated[int, Field(ge=0, le=64)] = 0
    # The conv's dilation (Qwen3.8-Flash-Next: the n-gram order, 3): it keeps (kernel − 1) · dilation
    # positions of the streams per sequence.
    conv_dilation: Annotated[int, Field(ge=1, le=64)] = 1


class Network(Frozen):
    """The blocks of a model and the schedule that lays them out (see the module docstring)."""

    blocks: dict[BlockName, Block] = Field(min_length=1, max_length=64)
    layers: tuple[Run, ...] = Field(min_length=1, max_length=256)
    mtp: MTP | None = None
    hyper_connections: HyperConnections | None = None
    ngram: NgramEmbedding | None = None

    @model_validator(mode="after")
    def _names(self) -> Self:
        specs = expand(self.layers) + (self.mtp.layers if self.mtp else ())
        if len(specs) > 4096:
            raise ValueError(f"the schedule expands to {len(specs)} layers (at most 4096)")
        if self.ngram is not None:
            n = len(expand(self.layers))
            bad = [t.layer for t in self.ngram.tables if t.layer >= n]
            if bad:
                raise ValueError(f"n-gram tables on layers {bad}: the schedule has {n} layers (0-based)")
        for mixer, ffn in specs:
            if mixer is None and ffn is None:
                raise ValueError("a layer needs a mixer or an FFN (both are null)")
            for name, kinds, role in ((mixer, MIXER_KINDS, "mixer"), (ffn, FFN_KINDS, "FFN")):
                if name is None:
                    continue
                block = self.blocks.get(name)
                if block is None:
                    raise ValueError(f"layer names block {name!r}, which `blocks` does not define")
                if block.kind not in kinds:
                    raise ValueError(f"block {name!r} ({block.kind}) is not a {role} (expected one of {sorted(kinds)})")
        return self

    def schedule(self) -> tuple[LayerSpec, ...]:
        """Every layer's [mixer, ffn] names in order (MTP layers excluded)."""
        return expand(self.layers)

    @functools.cached_property
    def fingerprint(self) -> str:
        """The network as canonical JSON: its identity (blocks and pattern maps are dicts, not hashable)."""
        return self.model_dump_json()

    def __hash__(self) -> int:
        return hash(self.fingerprint)


def _period(items: tuple[LayerSpec, ...]) -> int:
    """The shortest p with items[i] == items[i % p] for every i (the whole length when none is shorter
    than half of it)."""
    for p in range(1, len(items) // 2 + 1):
        if all(items[i] == items[i % p] for i in range(len(items))):
            return p
    return len(items)


# Letters for a pattern schedule (Nemotron-H's own: M Mamba, * attention, E experts, - MLP).
_LETTERS = {
    "mamba2": "M",
    "kda": "K",
    "gated_delta_net": "L",
    "attention": "*",
    "mla": "*",
    "compressed_mla": "*",
    "moe": "E",
    "dense": "-",
}


def runs(specs: tuple[LayerSpec, ...], blocks: dict[str, Block]) -> tuple[Run, ...]:
    """A short schedule for ``specs``: a repeated unit (and the unit's first layers for what remains)
    when the layers are periodic, else a letter pattern (Nemotron-H's letters where a layer is one block)."""
    p = _period(specs)
    if p < len(specs) or len(specs) == 1:
        out: list[Run] = [Repeat(repeat=len(specs) // p, unit=specs[:p])]
        if len(specs) % p:
            out.append(Repeat(repeat=1, unit=specs[: len(specs) % p]))
        return tuple(out)
    letters: dict[LayerSpec, str] = {}
    for spec in specs:
        if spec in letters:
            continue
        names = [n for n in spec if n]
        preferred = _LETTERS.get(blocks[names[0]].kind, "") if len(names) == 1 else ""
        free = [c for c in preferred + "ABCDFGHIJKLNOPQRSTUVWXYZ" if c not in letters.values()]
        letters[spec] = free[0]
    return (Pattern(pattern="".join(letters[s] for s in specs), map={v: k for k, v in letters.items()}),)
