"""Fine-tuning memory: QLoRA, LoRA and full fine-tuning, with the accounting written out."""

from __future__ import annotations

import dataclasses

from generator.content.blocks import (
    FFN,
    CompressedMLABlock,
    DenseBlock,
    GatedDeltaNetBlock,
    KDABlock,
    Mamba2Block,
    Mixer,
    MLABlock,
)
from generator.content.schema import Assumptions, Model
from generator.sizing.layout import layout
from generator.sizing.params import ParamCount


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


def adapted_matrices(block: Mixer, h: int) -> list[tuple[int, int]]:
    """(d_in, d_out) of the projections a LoRA adapts in one layer's mixer (FFN apart)."""
    if isinstance(block, GatedDeltaNetBlock):
        k = block.num_key_heads * block.key_head_dim
        v = block.num_value_heads * block.value_head_dim
        return [(h, 2 * k + 2 * v), (h, 2 * block.num_value_heads), (v, h)]
    if isinstance(block, KDABlock):
        p = block.heads * block.head_dim
        gates = [(h, p)] if block.output_gate == "full" else [(h, block.head_dim), (block.head_dim, p)]
        return [(h, p), (h, p), (h, p), *gates, (p, h)]
    if isinstance(block, Mamba2Block):
        return [(h, 2 * block.d_inner + 2 * block.n_groups * block.d_state + block.num_heads), (block.d_inner, h)]
    if isinstance(block, CompressedMLABlock):
        heads_width = block.heads * block.head_dim
        return [
            (h, block.q_lora_rank),
            (block.q_lora_rank, heads_width),
            (h, block.head_dim),
            (heads_width // block.o_groups, block.o_groups * block.o_lora_rank),
            (block.o_groups * block.o_lora_rank, h),
        ]
    if isinstance(block, MLABlock):
        qk = block.heads * (block.qk_nope_head_dim + block.qk_rope_head_dim)
        q_proj = [(h, block.q_lora_rank), (block.q_lora_rank, qk)] if block.q_lora_rank else [(h, qk)]
        return [
            *q_proj,
            (h, block.kv_lora_rank + block.qk_rope_head_dim),
            (block.kv_lora_rank, block.heads * (block.qk_nope_head_dim + block.v_head_dim)),
            *([(h, block.heads * block.v_head_dim)] if block.output_gate else []),
            (block.heads * block.v_head_dim, h),
        ]
    q = block.heads * block.head_dim
    gate = {"none": 0, "element": block.heads * block.value_dim, "head": block.heads}[block.output_gate]
    k = block.kv_heads * block.head_dim
    values = [] if block.k_eq_v else [(h, block.kv_heads * block.value_dim)]
    return [(h, q + gate), (h, k), *values, (block.heads * block.value_dim, h)]


def _ffn_widths(block: FFN) -> list[int]:
    """Widths of the FFNs a LoRA adapts in one layer: a dense block, or a MoE block's shared experts
    and the dense MLP beside them (routed experts stay frozen)."""
    if isinstance(block, DenseBlock):
        return [block.intermediate]
    return [w for w in (block.shared_intermediate, block.dense_beside) if w]


def lora_params(model: Model, rank: int) -> int:
    """Adapter parameters for rank ``rank`` on every attention and dense/shared FFN projection.

    Each adapted d_in×d_out matrix gets r·(d_in + d_out) parameters. Routed experts stay frozen
    (what PEFT's all-linear target does for MoE expert tensors it cannot wrap).
    """
    h = model.architecture.hidden_size
    laid = layout(model)
    total = 0
    for block, n in laid.mixers:
        total += n * sum(rank * (d_in + d_out) for d_in, d_out in adapted_matrices(block, h))
    for ffn, n in laid.ffns:
        projections = 3 if ffn.gated else 2
        total += n * sum(rank * projections * (h + width) for width in _ffn_widths(ffn))
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
