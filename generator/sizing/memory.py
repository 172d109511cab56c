"""Memory of one scenario on one accelerator: what sits where, what is usable, and whether it fits."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Literal

from generator.content.blocks import AttentionBlock, CompressedMLABlock, GatedDeltaNetBlock, KDABlock, MLABlock
from generator.content.schema import EngineProfile, FormatFamily, Hardware, HardwareKind, Model
from generator.sizing.kv import KVCache, kv_cache
from generator.sizing.layout import layout, tp_divides
from generator.sizing.scenario import Scenario
from generator.sizing.weights import WeightBytes

Verdict = Literal["comfortable", "tight", "oom"]


def usable_bytes_per_gpu(hw: Hardware, engine: EngineProfile) -> int:
    """Bytes one device lets the engine use.

    Unified memory: what the GPU may wire by default (Apple's recommendedMaxWorkingSetSize), not
    all RAM. Discrete: all memory times the engine's reservation (vLLM gpu_memory_utilization).
    """
    total = hw.memory_bytes
    if hw.kind in (HardwareKind.apple_unified, HardwareKind.unified_apu) and hw.gpu_memory_limit_gib:
        total = round(hw.gpu_memory_limit_gib * 1024**3)
    return math.floor(total * engine.memory_utilization)


def tp_valid(model: Model, engine: EngineProfile, gpus: int) -> bool:
    """Whether ``gpus`` devices can split this model in this engine.

    Tensor parallel shards every mixer's heads: attention heads must divide evenly, and KV heads
    must divide evenly or be replicated a whole number of times (recurrent mixers: their heads and
    groups). Layer split needs one layer per device.
    """
    return split_blocker(model, engine, gpus) is None


def split_blocker(model: Model, engine: EngineProfile, gpus: int) -> tuple[int, int] | None:
    """(heads, KV heads) of the first mixer that keeps ``gpus`` devices from splitting the model, or
    None when they can (a recurrent mixer gives its value and key heads, or its heads and groups)."""
    if gpus == 1:
        return None
    layers = model.architecture.num_layers
    if engine.split == "layer" and gpus <= layers:
        return None
    for block, _ in layout(model).mixers:
        if engine.split == "tensor" and tp_divides(block, gpus):
            continue
        if isinstance(block, AttentionBlock):
            return block.heads, block.kv_heads
        if isinstance(block, MLABlock | KDABlock | CompressedMLABlock):
            return block.heads, block.heads
        if isinstance(block, GatedDeltaNetBlock):
            return block.num_value_heads, block.num_key_heads
        return block.num_heads, block.n_groups
    return (0, 0) if engine.split != "tensor" else None


def runtime_bytes_per_gpu(model: Model, engine: EngineProfile, gpus: int, seqs: int) -> int:
    """Engine overhead on one device: context, workspaces and compute/activation buffers."""
    a = model.architecture
    fixed = engine.runtime_bytes_per_gpu + (engine.runtime_bytes_extra_gpu if gpus > 1 else 0)
    if engine.compute_buffer == "logits_ubatch":
        # f32 activations and logits of one micro-batch, plus the f32 output buffer per sequence.
        buffer = engine.batch_tokens * (a.hidden_size + a.vocab_size) * 4 + a.vocab_size * 4 * seqs
    elif engine.compute_buffer == "activation_profile":
        buffer = engine.activation_bytes_moe if model.is_moe else engine.activation_bytes_dense
    else:
        buffer = 0
    return fixed + buffer


def vision_size(model: Model, engine: EngineProfile) -> int:
    """Bytes of a multimodal model's vision encoder and projector in 16-bit, as ``engine`` would load them:
    the F16 mmproj file for GGUF engines where its size is known, else 2 bytes per parameter (vLLM's BF16
    tower); 0 for a text model."""
    v = model.vision
    if v is None:
        return 0
    if v.mmproj_bytes is not None and FormatFamily.gguf in engine.formats:
        return v.mmproj_bytes
    return 2 * v.params


def vision_bytes(model: Model, sc: Scenario) -> int:
    """The vision encoder's bytes when the scenario's engine loads it: always (vLLM, SGLang, Ollama), on
    request (llama.cpp: ``-hf`` loads the mmproj unless ``--no-mmproj``), never (mlx-lm)."""
    mode = sc.engine.vision
    if mode == "never" or (mode == "optional" and not sc.vision):
        return 0
    return vision_size(model, sc.engine)


@dataclasses.dataclass(frozen=True)
class Memory:
    """Where every byte of one scenario sits, and the fit verdict."""

    weights_bytes: int  # on the devices, the vision encoder's included
    weights_host_bytes: int
    kv: KVCache
    kv_cache_bytes: int
    kv_host_bytes: int
    overhead_bytes: int
    total_bytes: int
    per_gpu_bytes: int
    usable_bytes: int
    usable_per_gpu_bytes: int
    verdict: Verdict
    vision_bytes: int = 0  # the part of weights_bytes that is the vision encoder

    @property
    def headroom_bytes(self) -> int:
        """Usable bytes left (negative when it does not fit)."""
        return self.usable_bytes - self.total_bytes

    @property
    def shortfall_bytes(self) -> int:
        """Bytes missing to fit (0 when it fits)."""
        return max(0, self.total_bytes - self.usable_bytes)

    @property
    def utilization(self) -> float:
        """Fraction of usable memory taken."""
        return self.total_bytes / self.usable_bytes

    @property
    def offload_bytes(self) -> int:
        """Bytes held in host RAM instead of device memory."""
        return self.weights_host_bytes + self.kv_host_bytes


def verdict_for(per_gpu: int, usable_per_gpu: int, tight_fraction: float) -> Verdict:
    """comfortable under ``tight_fraction`` of usable memory, tight up to all of it, else oom."""
    if per_gpu > usable_per_gpu:
        return "oom"
    return "comfortable" if per_gpu <= tight_fraction * usable_per_gpu else "tight"


def memory(
    model: Model,
    weights: WeightBytes,
    hw: Hardware,
    sc: Scenario,
    tight_fraction: float,
    context: int | None = None,
    seqs: int | None = None,
) -> Memory:
    """Memory of ``sc`` (optionally at another context or sequence count) on ``sc.gpus`` devices."""
    ctx = sc.context if context is None else context
    n_seq = sc.batch if seqs is None else seqs
    engine = sc.engine
    g = sc.gpus
    kv = kv_cache(model, engine, sc.kv.bytes_per_element, ctx, n_seq)

    layered = weights.body + weights.experts + weights.small
    host_weights = round(layered * sc.offload)
    if engine.keeps_embeddings_on_host and not weights.tied:
        host_weights += weights.embedding
    ngram = model.network.ngram
    if ngram is not None and engine.ngram_on_host(ngram.kind):
        host_weights += weights.ngram
    text_weights = weights.total - host_weights
    # The vision encoder stays whole on the first device under layer split (llama.cpp's mmproj), and is
    # sharded like the rest under tensor parallelism.
    vision = vision_bytes(model, sc)
    vision_per_gpu = math.ceil(vision / g) if engine.split == "tensor" else vision

    # KV of offloaded layers stays with them in host RAM (llama.cpp's default).
    kv_host = round(kv.total * sc.offload)
    kv_device = kv.total - kv_host
    if engine.split == "tensor" and g > 1:
        # MLA: every rank keeps the whole latent cache; GQA: heads split, replicated past n_kv.
        attention = kv.per_rank_attention(g, 1 - sc.offload)
        kv_per_gpu = math.ceil(attention + kv.state_bytes * (1 - sc.offload) / g)
    else:
        kv_per_gpu = math.ceil(kv_device / g)

    runtime = runtime_bytes_per_gpu(model, engine, g, n_seq)
    per_gpu = math.ceil(text_weights / g) + vision_per_gpu + kv_per_gpu + runtime
    usable = usable_bytes_per_gpu(hw, engine)
    return Memory(
        weights_bytes=text_weights + vision,
        weights_host_bytes=host_weights,
        kv=kv,
        kv_cache_bytes=kv_per_gpu * g,
        kv_host_bytes=kv_host,
        overhead_bytes=runtime * g,
        total_bytes=text_weights + vision + kv_per_gpu * g + runtime * g,
        per_gpu_bytes=per_gpu,
        usable_bytes=usable * g,
        usable_per_gpu_bytes=usable,
        verdict=verdict_for(per_gpu, usable, tight_fraction),
        vision_bytes=vision,
    )


def largest(fits: Callable[[int], bool], lo: int, hi: int) -> int:
    """Largest n in [lo, hi] with fits(n) true, for a monotone predicate; lo - 1 if none."""
    if not fits(lo):
        return lo - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo
