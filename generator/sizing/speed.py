"""Decode and prefill speed: memory-bound decode, compute-bound prefill, with fitted constants."""

from __future__ import annotations

import dataclasses
import math

from generator.content.blocks import AttentionBlock, CompressedMLABlock
from generator.content.schema import Hardware, Model
from generator.sizing.kv import kv_read_per_token
from generator.sizing.layout import attention_width, ffn_params, index_width, layout, sparse_top_k
from generator.sizing.params import ParamCount
from generator.sizing.weights import WeightBytes


def experts_touched_fraction(num_experts: int, k: int, seqs: int) -> float:
    """Expected fraction of a layer's experts that ``seqs`` tokens route to: 1 − (1 − k/E)^B."""
    return 1.0 - (1.0 - k / num_experts) ** seqs


def attention_flops(model: Model, tokens: int) -> float:
    """FLOPs of attention scores and weighted sums for a causal prompt of ``tokens``.

    QKᵀ and AV cost 2·d FLOPs per (query, key) pair each; a causal prompt has about N²/2 pairs in
    a full layer and N·w − w²/2 in a sliding layer of window w. Recurrent layers add O(N) only.
    """
    n = float(tokens)
    pairs_full = n * n / 2
    total = 0.0
    for block, layers in layout(model).attention:
        w = block.window if isinstance(block, AttentionBlock) and block.window is not None else sparse_top_k(block)
        pairs = pairs_full if w is None or n <= w else n * w - w * w / 2
        total += 2 * attention_width(block) * (layers * pairs)
        if index_width(block):
            # A sparse layer's indexer scores every earlier token (queries and keys only).
            total += 2 * index_width(block) * (layers * pairs_full)
    for cblock, layers in layout(model).compressed:
        total += layers * _compressed_prompt_flops(cblock, n)
    return total


def _compressed_prompt_flops(b: CompressedMLABlock, n: float) -> float:
    """FLOPs of one DeepSeek V4 layer's attention over a causal prompt of ``n`` tokens: the window, the
    compressed rows each query reads (all of them, or its indexer's top_k), and the indexer's scores."""
    width = 2 * b.heads * b.head_dim  # the latent serves as key and as value
    w = b.window
    pairs = n * n / 2 if n <= w else n * w - w * w / 2
    if b.ratio:
        r = b.ratio
        k = b.indexer.top_k if b.indexer else None
        pairs += n * n / (2 * r) if k is None or n / r <= k else k * n - k * k * r / 2
    total = 2 * width * pairs
    if b.indexer is not None and b.indexer.selection == "own" and b.ratio:
        total += 2 * b.indexer.heads * b.indexer.head_dim * (n * n / (2 * b.ratio))
    return total


def decode_attention_flops(model: Model, context: int) -> float:
    """FLOPs of attention for one new token against ``context`` cached tokens."""
    total = 0.0
    for block, layers in layout(model).attention:
        w = block.window if isinstance(block, AttentionBlock) and block.window is not None else sparse_top_k(block)
        total += 2.0 * attention_width(block) * (layers * (context if w is None else min(context, w)))
        if index_width(block):
            total += 2.0 * index_width(block) * (layers * context)
    for cblock, layers in layout(model).compressed:
        reads = float(min(context, cblock.window))
        if cblock.ratio:
            entries = -(-context // cblock.ratio)
            ix = cblock.indexer
            reads += min(entries, ix.top_k) if ix else entries
            if ix is not None and ix.selection == "own":
                total += 2.0 * ix.heads * ix.head_dim * (layers * entries)
        total += 2.0 * (2 * cblock.heads * cblock.head_dim) * (layers * reads)
    return total


def experts_read_bytes(model: Model, weights: WeightBytes, seqs: int) -> float:
    """Bytes of routed experts one decode step over ``seqs`` sequences reads: each MoE block's share of
    the expert weights times the fraction of its experts the batch touches."""
    moe = layout(model).moe
    if not moe:
        return 0.0
    fractions = {experts_touched_fraction(b.experts, b.experts_per_token, seqs) for b, _ in moe}
    if len(fractions) == 1:
        return weights.experts * fractions.pop()
    h = model.architecture.hidden_size
    params = [
        (n * ffn_params(b, h).experts, experts_touched_fraction(b.experts, b.experts_per_token, seqs)) for b, n in moe
    ]
    total = sum(p for p, _ in params)
    return sum(weights.experts * p / total * f for p, f in params)


def matmul_params(params: ParamCount) -> int:
    """Parameters multiplied per token (active, without the embedding lookup)."""
    head = params.output if params.output else params.embedding
    return params.active - params.embedding - params.output + head


@dataclasses.dataclass(frozen=True)
class SpeedConstants:
    """Fitted constants for one engine on one accelerator (content/calibration.yaml)."""

    bandwidth_efficiency: float
    per_layer_latency_s: float
    compute_efficiency: float
    # Seconds per all-reduce in tensor parallel over the device's link (None: the engine's own constant).
    allreduce_s: float | None = None
    # The dense 16-bit peak (TFLOPS) its chip's prefill measurements imply, for a device with no published
    # one (calibrate.implied_peaks); None where the device has one, or its chip no measurements.
    implied_tflops: float | None = None


@dataclasses.dataclass(frozen=True)
class Speed:
    """Speeds for one scenario, and the bytes and FLOPs behind them."""

    decode_tok_s: float
    decode_tok_s_aggregate: float
    decode_bytes_per_step: float
    prefill_tok_s: float | None
    ttft_s: float | None
    prompt_tokens: int
    prompt_flops: float
    compute_bound: bool


def prompt_seconds(t_compute: float, t_weights: float, passes: float, pass_overhead: float) -> float:
    """Time to process a prompt: its matrix products, plus reading every weight once per pass of
    ``batch_tokens`` tokens, plus a fixed cost per pass.

    The two terms add rather than overlap: held out, the sum predicts measured prefill better than
    the larger of the two (see the methodology page).
    """
    return t_compute + t_weights + passes * pass_overhead


def _parallel(gpus: int, split: str, tp_efficiency: float) -> float:
    """How many devices' bandwidth and compute a step uses at once (layer split: one at a time)."""
    return gpus * tp_efficiency if split == "tensor" and gpus > 1 else 1.0


def speed(
    model: Model,
    params: ParamCount,
    weights: WeightBytes,
    hw: Hardware,
    *,
    kv_bytes: float,
    state_bytes_per_seq: float,
    context: int,
    seqs: int,
    gpus: int,
    split: str,
    tp_efficiency: float,
    allreduce_latency_s: float,
    batch_tokens: int,
    offload: float,
    host_bandwidth_gbps: float,
    prompt_tokens: int,
    cal: SpeedConstants,
) -> Speed:
    """Decode at ``context`` tokens in cache for ``seqs`` sequences, and a ``prompt_tokens`` prefill."""
    bw = hw.bandwidth_gbps * 1e9 * cal.bandwidth_efficiency * _parallel(gpus, split, tp_efficiency)
    host_bw = host_bandwidth_gbps * 1e9 * cal.bandwidth_efficiency
    tflops = hw.compute_tflops or cal.implied_tflops
    compute = (tflops or 0.0) * 1e12 * cal.compute_efficiency * _parallel(gpus, split, tp_efficiency)

    experts_read = experts_read_bytes(model, weights, seqs)
    head = weights.per_token_read - weights.body - weights.experts_active - weights.small
    layered_read = weights.body + weights.small + experts_read
    kv_read = seqs * kv_read_per_token(model, kv_bytes, context, state_bytes_per_seq)
    device_bytes = head + (layered_read + kv_read) * (1 - offload)
    host_bytes = (layered_read + kv_read) * offload
    t_mem = device_bytes / bw + host_bytes / host_bw
    flops_step = seqs * (2.0 * matmul_params(params) + decode_attention_flops(model, context))
    t_compute = flops_step / compute if compute else 0.0
    # Tensor parallel adds two all-reduces per layer to every forward pass.
    t_comm = 2 * model.architecture.num_layers * allreduce_latency_s if split == "tensor" and gpus > 1 else 0.0
    # A fixed cost per layer per forward pass: kernel launches and synchronisation.
    latency = model.architecture.num_layers * cal.per_layer_latency_s
    t_step = max(t_mem, t_compute) + latency + t_comm

    prompt_flops = 2.0 * matmul_params(params) * prompt_tokens + attention_flops(model, prompt_tokens)
    passes = math.ceil(prompt_tokens / batch_tokens)
    streamed = weights.per_pass_read
    t_weights = passes * (streamed * (1 - offload) / bw + streamed * offload / host_bw)
    t_prompt_compute = prompt_flops / compute if compute else math.inf
    ttft = prompt_seconds(t_prompt_compute, t_weights, passes, latency + t_comm)
    return Speed(
        decode_tok_s=1.0 / t_step,
        decode_tok_s_aggregate=seqs / t_step,
        decode_bytes_per_step=device_bytes + host_bytes,
        prefill_tok_s=prompt_tokens / ttft if math.isfinite(ttft) else None,
        ttft_s=ttft if math.isfinite(ttft) else None,
        prompt_tokens=prompt_tokens,
        prompt_flops=prompt_flops,
        compute_bound=t_compute > t_mem,
    )


@dataclasses.dataclass(frozen=True)
class SpeedRange:
    """Where the real speeds should fall: each estimate times the low and high ratio of measured ÷
    predicted seen out of sample (a time to first token divides by them instead)."""

    decode_low: float | None
    decode_high: float | None
    prefill_low: float | None
    prefill_high: float | None
    ttft_low: float | None
    ttft_high: float | None


def speed_range(s: Speed, decode: tuple[float, float] | None, prefill: tuple[float, float] | None) -> SpeedRange:
    """The range of ``s`` given (low, high) ratios of measured ÷ predicted for decode and prefill."""
    dl, dh = decode if decode else (None, None)
    pl, ph = prefill if prefill and s.prefill_tok_s is not None else (None, None)
    return SpeedRange(
        decode_low=s.decode_tok_s * dl if dl else None,
        decode_high=s.decode_tok_s * dh if dh else None,
        prefill_low=s.prefill_tok_s * pl if pl and s.prefill_tok_s is not None else None,
        prefill_high=s.prefill_tok_s * ph if ph and s.prefill_tok_s is not None else None,
        ttft_low=s.ttft_s / ph if ph and s.ttft_s is not None else None,
        ttft_high=s.ttft_s / pl if pl and s.ttft_s is not None else None,
    )
