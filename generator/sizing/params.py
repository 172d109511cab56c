"""Parameter counts derived from the architecture, split by how each group is stored and read."""

from __future__ import annotations

import dataclasses
import functools

from generator.content.schema import LayerKind, Model


@dataclasses.dataclass(frozen=True)
class ParamCount:
    """Parameters of a model by role (each an exact integer from the config)."""

    embedding: int
    output: int
    attention: int
    dense_ffn: int
    shared_experts: int
    experts: int
    experts_active: int
    small: int

    @property
    def total(self) -> int:
        """Every parameter held in memory."""
        return (
            self.embedding
            + self.output
            + self.attention
            + self.dense_ffn
            + self.shared_experts
            + self.experts
            + self.small
        )

    @property
    def active(self) -> int:
        """Parameters that take part in one token's forward pass (embedding table included)."""
        return self.total - self.experts + self.experts_active

    @property
    def body(self) -> int:
        """Weight matrices of the repeating layers other than routed experts."""
        return self.attention + self.dense_ffn + self.shared_experts


def layer_kinds(model: Model) -> tuple[LayerKind, ...]:
    """The attention kind of every layer (the layer pattern repeated to the model's depth)."""
    return _kinds(model.attention.layer_pattern, model.architecture.num_layers)


@functools.cache
def _kinds(pattern: str, layers: int) -> tuple[LayerKind, ...]:
    return tuple(LayerKind(pattern[i % len(pattern)]) for i in range(layers))


def layer_count(model: Model, kind: LayerKind) -> int:
    """How many layers of the model are of this kind."""
    return _counts(model.attention.layer_pattern, model.architecture.num_layers)[kind]


@functools.cache
def _counts(pattern: str, layers: int) -> dict[LayerKind, int]:
    kinds = _kinds(pattern, layers)
    return {kind: kinds.count(kind) for kind in LayerKind}


def _attention_layer(model: Model) -> tuple[int, int]:
    """(matrix params, small params) of one softmax-attention layer."""
    a = model.architecture
    h = a.hidden_size
    mla = model.attention.mla
    small = 0
    if mla is not None:
        qk = mla.qk_nope_head_dim + mla.qk_rope_head_dim
        if mla.q_lora_rank:
            q = h * mla.q_lora_rank + mla.q_lora_rank * a.num_attention_heads * qk
            small += mla.q_lora_rank
        else:
            q = h * a.num_attention_heads * qk
        kv = h * (mla.kv_lora_rank + mla.qk_rope_head_dim) + mla.kv_lora_rank * a.num_attention_heads * (
            mla.qk_nope_head_dim + mla.v_head_dim
        )
        small += mla.kv_lora_rank
        o = a.num_attention_heads * mla.v_head_dim * h
        matrices = q + kv + o
    else:
        q_out = a.num_attention_heads * a.head_dim
        kv_out = a.num_kv_heads * a.head_dim
        gate = 2 if a.attention_output_gate else 1
        matrices = h * q_out * gate + 2 * h * kv_out + q_out * h
        if a.attention_bias:
            small += q_out * gate + 2 * kv_out
        if a.qk_norm:
            small += 2 * a.head_dim
    if a.attention_output_bias:
        small += h
    if a.attention_sinks:
        small += a.num_attention_heads
    return matrices, small


def _linear_layer(model: Model) -> tuple[int, int]:
    """(matrix params, small params) of one gated-delta-net layer."""
    lin = model.attention.linear
    assert lin is not None
    h = model.architecture.hidden_size
    k = lin.num_key_heads * lin.key_head_dim
    v = lin.num_value_heads * lin.value_head_dim
    matrices = h * (2 * k + 2 * v) + h * 2 * lin.num_value_heads + v * h
    small = (2 * k + v) * lin.conv_kernel + 2 * lin.num_value_heads + lin.value_head_dim
    return matrices, small


def _mamba_layer(model: Model) -> tuple[int, int]:
    """(matrix params, small params) of one Mamba-2 layer."""
    m = model.attention.mamba
    assert m is not None
    h = model.architecture.hidden_size
    conv_dim = m.d_inner + 2 * m.n_groups * m.d_state
    matrices = h * (2 * m.d_inner + 2 * m.n_groups * m.d_state + m.num_heads) + m.d_inner * h
    small = conv_dim * m.d_conv + conv_dim + 3 * m.num_heads + m.d_inner
    return matrices, small


def _ffn(hidden: int, inter: int, gated: bool, bias: bool) -> tuple[int, int]:
    """(matrix params, bias params) of one feed-forward block."""
    matrices = (3 if gated else 2) * hidden * inter
    small = ((2 if gated else 1) * inter + hidden) if bias else 0
    return matrices, small


_COUNTED: dict[int, tuple[Model, ParamCount]] = {}


def count_params(model: Model) -> ParamCount:
    """Parameters of the text model by role, from its architecture (MTP layers excluded).

    Models are immutable; a process counts each one once.
    """
    hit = _COUNTED.get(id(model))
    if hit is not None and hit[0] is model:
        return hit[1]
    counted = _count(model)
    _COUNTED[id(model)] = (model, counted)
    return counted


def _count(model: Model) -> ParamCount:
    a = model.architecture
    h = a.hidden_size
    attention = small = dense_ffn = shared = experts = experts_active = 0
    for i, kind in enumerate(layer_kinds(model)):
        m, s = {LayerKind.LINEAR: _linear_layer, LayerKind.MAMBA: _mamba_layer}.get(kind, _attention_layer)(model)
        attention += m
        small += s + a.norms_per_layer * h
        moe = model.moe
        if moe is None or not moe.is_moe_layer(i):
            if a.intermediate_size:
                m, s = _ffn(h, a.intermediate_size, a.mlp_gated, a.mlp_bias)
                dense_ffn += m
                small += s
            continue
        one_m, one_s = _ffn(h, moe.expert_intermediate_size, a.mlp_gated, a.mlp_bias)
        experts += moe.num_experts * one_m
        experts_active += moe.experts_per_token * one_m
        # Expert biases are tiny; they count as small tensors, all resident, read only for active experts.
        small += moe.num_experts * one_s + h * moe.num_experts + (moe.num_experts if moe.router_bias else 0)
        if moe.shared_experts and moe.shared_expert_intermediate_size:
            m, s = _ffn(h, moe.shared_expert_intermediate_size, a.mlp_gated, a.mlp_bias)
            shared += m
            small += s + (h if moe.shared_expert_gate else 0)
    small += h  # final norm
    embedding = a.vocab_size * h
    output = 0 if a.tie_word_embeddings else a.vocab_size * h
    return ParamCount(
        embedding=embedding,
        output=output,
        attention=attention,
        dense_ffn=dense_ffn,
        shared_experts=shared,
        experts=experts,
        experts_active=experts_active,
        small=small,
    )


def declared_mismatch(model: Model, derived: ParamCount) -> float | None:
    """Relative difference between the declared total and the derived one, if a total is declared."""
    if model.params_total is None:
        return None
    return (derived.total - model.params_total) / model.params_total
