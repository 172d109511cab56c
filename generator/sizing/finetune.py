"""Fine-tuning memory: QLoRA, LoRA and full fine-tuning, with the accounting written out."""

from __future__ import annotations

import dataclasses

from generator.content.schema import Assumptions, LayerKind, Model
from generator.sizing.params import ParamCount, layer_kinds


@dataclasses.dataclass(frozen=True)
class FineTune:
    """Bytes one method needs, by part."""

    method: str
    weights_bytes: int
    trainable_params: int
    trainable_bytes: int
    activation_bytes: int

    @property
    def total_bytes(self) -> int:
        """Weights + trainable state (weights, gradients, optimizer) + activations."""
        return self.weights_bytes + self.trainable_bytes + self.activation_bytes


def adapted_matrices(model: Model, kind: LayerKind) -> list[tuple[int, int]]:
    """(d_in, d_out) of the projections a LoRA adapts in one layer of ``kind`` (FFN excluded)."""
    a = model.architecture
    h = a.hidden_size
    mla = model.attention.mla
    if kind is LayerKind.LINEAR and model.attention.linear:
        lin = model.attention.linear
        k = lin.num_key_heads * lin.key_head_dim
        v = lin.num_value_heads * lin.value_head_dim
        return [(h, 2 * k + 2 * v), (h, 2 * lin.num_value_heads), (v, h)]
    if kind is LayerKind.MAMBA and model.attention.mamba:
        m = model.attention.mamba
        return [(h, 2 * m.d_inner + 2 * m.n_groups * m.d_state + m.num_heads), (m.d_inner, h)]
    if mla is not None:
        qk = a.num_attention_heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim)
        q_proj = [(h, mla.q_lora_rank), (mla.q_lora_rank, qk)] if mla.q_lora_rank else [(h, qk)]
        return [
            *q_proj,
            (h, mla.kv_lora_rank + mla.qk_rope_head_dim),
            (mla.kv_lora_rank, a.num_attention_heads * (mla.qk_nope_head_dim + mla.v_head_dim)),
            (a.num_attention_heads * mla.v_head_dim, h),
        ]
    q = a.num_attention_heads * a.head_dim
    kv = a.num_kv_heads * a.head_dim
    gate = 2 if a.attention_output_gate else 1
    return [(h, q * gate), (h, kv), (h, kv), (q, h)]


def lora_params(model: Model, rank: int) -> int:
    """Adapter parameters for rank ``rank`` on every attention and dense/shared FFN projection.

    Each adapted d_in×d_out matrix gets r·(d_in + d_out) parameters. Routed experts stay frozen
    (what PEFT's all-linear target does for MoE expert tensors it cannot wrap).
    """
    a = model.architecture
    h = a.hidden_size
    kinds = layer_kinds(model)
    total = sum(rank * (d_in + d_out) for kind in kinds for d_in, d_out in adapted_matrices(model, kind))
    ffn_projections = 3 if a.mlp_gated else 2
    moe = model.moe
    moe_layers = sum(moe.is_moe_layer(i) for i in range(a.num_layers)) if moe else 0
    total += (a.num_layers - moe_layers) * rank * ffn_projections * (h + a.intermediate_size)
    if moe is not None and moe.shared_expert_intermediate_size:
        total += moe_layers * rank * ffn_projections * (h + moe.shared_expert_intermediate_size)
    return total


def activation_bytes(model: Model, a: Assumptions) -> int:
    """Activations with gradient checkpointing at ``finetune_seq_len`` × ``finetune_batch`` tokens.

    One 16-bit hidden state per layer is kept (the checkpoints); one layer at a time is
    recomputed with its full activations (``activation_bytes_per_token_hidden`` bytes per token
    per hidden unit, flash attention); the fp32 logits and their gradient are held once.
    """
    tokens = a.finetune_seq_len * a.finetune_batch
    h = model.architecture.hidden_size
    checkpoints = model.architecture.num_layers * tokens * h * 2
    one_layer = tokens * h * a.activation_bytes_per_token_hidden
    logits = tokens * model.architecture.vocab_size * 4 * 2
    return round(checkpoints + one_layer + logits)


def finetune(model: Model, params: ParamCount, a: Assumptions) -> tuple[FineTune, FineTune, FineTune]:
    """QLoRA (NF4 base), LoRA (16-bit base) and full fine-tuning (mixed-precision AdamW) memory."""
    acts = activation_bytes(model, a)
    adapters = lora_params(model, a.lora_rank)
    adapter_state = round(adapters * a.adam_bytes_per_param)
    linear = params.body + params.experts
    unquantized = params.total - linear
    qlora = FineTune(
        "qlora",
        round(linear * a.nf4_bits_per_weight / 8 + unquantized * 2),
        adapters,
        adapter_state,
        acts,
    )
    lora = FineTune("lora", params.total * 2, adapters, adapter_state, acts)
    full = FineTune("full", 0, params.total, round(params.total * a.adam_bytes_per_param), acts)
    return qlora, lora, full
