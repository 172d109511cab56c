"""Typed catalog schema: what a model, a hardware entry, a format, a price or a measurement holds.

Pure data: no I/O. Every model is frozen and rejects unknown keys, so a typo in a YAML file is an
error that names the key, never a silently ignored fact.
"""

from __future__ import annotations

import datetime as dt
import re
from enum import StrEnum
from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
GIB = 1024**3


class Frozen(BaseModel):
    """Base for catalog records: immutable, unknown keys rejected, no type coercion."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


PositiveInt = Annotated[int, Field(gt=0)]
NonNegativeInt = Annotated[int, Field(ge=0)]
PositiveFloat = Annotated[float, Field(gt=0)]
Slug = Annotated[str, Field(pattern=SLUG_RE.pattern, min_length=1, max_length=80)]
Source = Annotated[str, Field(min_length=5)]


class Architecture(Frozen):
    """The text model's shape, as in its config.json."""

    model_type: str
    num_layers: PositiveInt
    hidden_size: PositiveInt
    intermediate_size: NonNegativeInt
    num_attention_heads: PositiveInt
    num_kv_heads: PositiveInt
    head_dim: PositiveInt
    vocab_size: PositiveInt
    max_context: PositiveInt
    tie_word_embeddings: bool
    attention_bias: bool = False
    attention_output_bias: bool = False
    qk_norm: bool = False
    attention_output_gate: bool = False
    attention_sinks: bool = False
    norms_per_layer: Annotated[int, Field(ge=0, le=8)] = 2
    mlp_bias: bool = False
    mlp_gated: bool = True

    @model_validator(mode="after")
    def _heads_group(self) -> Self:
        if self.num_attention_heads % self.num_kv_heads:
            raise ValueError(
                f"num_attention_heads ({self.num_attention_heads}) must be a multiple of "
                f"num_kv_heads ({self.num_kv_heads})"
            )
        return self


class MLA(Frozen):
    """Multi-head latent attention (DeepSeek V2/V3): the KV cache holds one latent per token."""

    kv_lora_rank: PositiveInt
    qk_rope_head_dim: PositiveInt
    qk_nope_head_dim: PositiveInt
    v_head_dim: PositiveInt
    q_lora_rank: PositiveInt | None = None


class LinearAttention(Frozen):
    """Gated delta net layers (Qwen3-Next): a fixed recurrent state per sequence."""

    num_key_heads: PositiveInt
    key_head_dim: PositiveInt
    num_value_heads: PositiveInt
    value_head_dim: PositiveInt
    conv_kernel: PositiveInt


class Mamba(Frozen):
    """Mamba-2 layers: a conv state and an SSM state per sequence."""

    d_inner: PositiveInt
    d_state: PositiveInt
    n_groups: PositiveInt
    d_conv: PositiveInt
    num_heads: PositiveInt


class Attention(Frozen):
    """Which layers attend how. ``layer_pattern`` repeats to num_layers: f full, s sliding, l linear, m mamba."""

    layer_pattern: Annotated[str, Field(pattern=r"^[fslm]+$")] = "f"
    sliding_window: PositiveInt | None = None
    mla: MLA | None = None
    linear: LinearAttention | None = None
    mamba: Mamba | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if "s" in self.layer_pattern and self.sliding_window is None:
            raise ValueError("layer_pattern has sliding layers (s) but sliding_window is missing")
        if "l" in self.layer_pattern and self.linear is None:
            raise ValueError("layer_pattern has linear-attention layers (l) but `linear` is missing")
        if "m" in self.layer_pattern and self.mamba is None:
            raise ValueError("layer_pattern has mamba layers (m) but `mamba` is missing")
        return self


class MoE(Frozen):
    """Mixture of experts: every expert is resident; only experts_per_token run per token.

    Layer i (from 0) is a MoE layer when i ≥ first_dense_layers and (i + 1) % layer_interval == 0
    (Llama 4 Maverick interleaves with 2); other layers use the dense intermediate_size.
    """

    def is_moe_layer(self, i: int) -> bool:
        """Whether layer ``i`` (from 0) routes to experts."""
        return i >= self.first_dense_layers and (i + 1) % self.layer_interval == 0

    num_experts: PositiveInt
    experts_per_token: PositiveInt
    expert_intermediate_size: PositiveInt
    shared_experts: NonNegativeInt = 0
    shared_expert_intermediate_size: NonNegativeInt = 0
    first_dense_layers: NonNegativeInt = 0
    layer_interval: PositiveInt = 1
    router_bias: bool = False
    shared_expert_gate: bool = False
    extra_layers_not_loaded: NonNegativeInt = 0

    @model_validator(mode="after")
    def _k_le_e(self) -> Self:
        if self.experts_per_token > self.num_experts:
            raise ValueError(f"experts_per_token ({self.experts_per_token}) exceeds num_experts ({self.num_experts})")
        return self


class Artifacts(Frozen):
    """Published weights a user can download, by format family."""

    gguf: tuple[str, ...] = ()
    awq: tuple[str, ...] = ()
    gptq: tuple[str, ...] = ()
    fp8: tuple[str, ...] = ()
    mlx: tuple[str, ...] = ()
    ollama: str | None = None


ParamsKind = Literal["exact", "published", "derived"]
DateOrUnknown = dt.date | Literal["unknown"]


class Model(Frozen):
    """One open-weight LLM of the catalog."""

    slug: Slug
    hf_id: Annotated[str, Field(pattern=r"^[\w.-]+/[\w.-]+$")]
    name: str
    organization: str
    family: str
    license: str
    release_date: DateOrUnknown = "unknown"
    params_total: PositiveInt | None = None
    params_total_kind: ParamsKind = "derived"
    params_active: PositiveInt | None = None
    params_active_kind: ParamsKind | None = None
    architecture: Architecture
    attention: Attention = Attention()
    moe: MoE | None = None
    artifacts: Artifacts = Artifacts()
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: str = ""

    @model_validator(mode="after")
    def _active(self) -> Self:
        if self.params_active is not None and self.moe is None:
            raise ValueError("params_active is only for MoE models (no `moe` section)")
        if self.params_active and self.params_total and self.params_active > self.params_total:
            raise ValueError("params_active exceeds params_total")
        return self


class HardwareKind(StrEnum):
    """What kind of accelerator: decides the usable-memory rule and the calibration class."""

    datacenter_gpu = "datacenter_gpu"
    workstation_gpu = "workstation_gpu"
    consumer_gpu = "consumer_gpu"
    apple_unified = "apple_unified"
    unified_apu = "unified_apu"
    npu = "npu"


# YAML gives strings; an enum field takes its value (the rest of the schema stays strict).
HardwareKindField = Annotated[HardwareKind, Field(strict=False)]


class Price(Frozen):
    """A purchase price with the day it was seen."""

    usd: PositiveFloat
    date: dt.date
    kind: Literal["launch_msrp", "street", "list"]
    source: Source | None = None


class Hardware(Frozen):
    """One accelerator (or unified-memory machine) of the catalog."""

    slug: Slug
    name: str
    vendor: str
    kind: HardwareKindField
    release_date: DateOrUnknown = "unknown"
    memory_gib: PositiveFloat | None = None
    memory_gb: PositiveFloat | None = None
    memory_type: str | None = None
    bandwidth_gbps: PositiveFloat
    tflops_bf16: PositiveFloat | None = None
    tflops_fp16: PositiveFloat | None = None
    tflops_fp8: PositiveFloat | None = None
    tops_int8: PositiveFloat | None = None
    tdp_w: PositiveFloat | None = None
    interconnect: str | None = None
    chips: PositiveInt = 1
    gpu_memory_limit_gib: PositiveFloat | None = None
    price: Price | None = None
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: str = ""

    @model_validator(mode="after")
    def _memory(self) -> Self:
        if (self.memory_gib is None) == (self.memory_gb is None):
            raise ValueError("give exactly one of memory_gib or memory_gb")
        if self.gpu_memory_limit_gib is not None and self.gpu_memory_limit_gib * GIB > self.memory_bytes:
            raise ValueError("gpu_memory_limit_gib exceeds the memory")
        return self

    @property
    def memory_bytes(self) -> int:
        """Total memory of the device in bytes."""
        if self.memory_gib is not None:
            return round(self.memory_gib * GIB)
        assert self.memory_gb is not None
        return round(self.memory_gb * 1e9)

    @property
    def compute_tflops(self) -> float | None:
        """Dense 16-bit tensor throughput used for prefill (BF16, else FP16)."""
        return self.tflops_bf16 or self.tflops_fp16


class FormatFamily(StrEnum):
    """Which file format (and so which engines) a quantization belongs to."""

    safetensors = "safetensors"
    gguf = "gguf"
    mlx = "mlx"


FormatFamilyField = Annotated[FormatFamily, Field(strict=False)]


class ReferenceFile(Frozen):
    """A real file whose size sets a mix format's effective bits per weight."""

    model: str
    params: PositiveInt
    embedding_params: NonNegativeInt
    output_params: NonNegativeInt
    file_gib: PositiveFloat
    source: Source


class QuantFormat(Frozen):
    """A weight format: bits per weight of the bulk, and what it keeps at other precisions."""

    name: str
    family: FormatFamilyField
    description: str
    bits_per_weight: PositiveFloat
    embedding_bpw: PositiveFloat
    output_bpw: PositiveFloat
    small_tensor_bpw: PositiveFloat
    expert_bpw: PositiveFloat | None = None
    moe_only: bool = False
    reference: ReferenceFile | None = None
    aliases: tuple[str, ...] = ()
    source: Source
    derivation: str

    @model_validator(mode="after")
    def _reference_matches(self) -> Self:
        ref = self.reference
        if ref is not None:
            measured = ref.file_gib * GIB * 8 / ref.params
            if abs(measured - self.bits_per_weight) > 0.001:
                raise ValueError(
                    f"bits_per_weight {self.bits_per_weight} disagrees with the reference file "
                    f"({ref.file_gib} GiB over {ref.params:,} params = {measured:.4f})"
                )
        return self


class KVDtype(Frozen):
    """A KV-cache element type and its bytes per element (block scales included)."""

    name: str
    bytes_per_element: PositiveFloat
    engines: tuple[str, ...]
    source: Source


class CloudOffer(Frozen):
    """A dated rental price for an instance with ``gpus`` of one catalog accelerator."""

    provider: str
    instance: str
    hardware: Slug
    gpus: PositiveInt
    usd_per_hour: PositiveFloat
    billing: Literal["on_demand", "spot", "reserved_1y", "reserved_3y", "community"]
    date_seen: dt.date
    source: Source
    notes: str = ""


class ApiPrice(Frozen):
    """A dated serverless API price for a catalog model, per million tokens."""

    model: Slug
    provider: str
    input_usd_per_mtok: Annotated[float, Field(ge=0)]
    output_usd_per_mtok: Annotated[float, Field(ge=0)]
    date_seen: dt.date
    source: Source
    notes: str = ""


EngineName = Literal["llama.cpp", "vllm", "ollama", "mlx", "sglang"]
# llama.cpp's compute backend in a measurement (its speed differs by backend on one GPU).
Backend = Literal["cuda", "rocm", "vulkan", "metal", "sycl", "cann", "musa", "cpu"]


class Throughput(Frozen):
    """One measured speed with its source: decode (tg) or prefill (pp) tokens per second."""

    model: Slug | None = None
    model_ref: str | None = None
    params: PositiveInt | None = None
    hardware: Slug
    engine: EngineName
    quant: str
    test: Annotated[str, Field(pattern=r"^(tg|pp)\d+$|^(decode|prefill)_b\d+_ctx\d+$")]
    tok_s: PositiveFloat
    backend: Backend | None = None
    size_gib: PositiveFloat | None = None
    context: NonNegativeInt = 0
    batch: PositiveInt = 1
    gpus: PositiveInt = 1
    date: dt.date | None = None
    outlier: bool = False
    source: Source
    notes: str = ""

    @model_validator(mode="after")
    def _model(self) -> Self:
        if self.model is None and self.model_ref is None:
            raise ValueError("give `model` (a catalog slug) or `model_ref`")
        return self


class MemoryLog(Frozen):
    """Buffer sizes an engine printed when it loaded a catalog model (e.g. llama.cpp's
    ``KV buffer size = 1024.00 MiB``). Sums over devices, and over the SWA and non-SWA caches."""

    model: Slug
    engine: EngineName
    quant: str | None = None
    n_ctx: PositiveInt
    n_seq: PositiveInt = 1
    kv_type: str = "fp16"
    kv_buffer_mib: PositiveFloat
    model_buffer_mib: PositiveFloat | None = None
    compute_buffer_mib: PositiveFloat | None = None
    n_ubatch: PositiveInt | None = None
    flash_attn: bool | None = None
    build: str | None = None
    date: dt.date | None = None
    source: Source
    notes: str = ""


class FileSize(Frozen):
    """A real published weight-file size."""

    model: Slug | None = None
    model_ref: str
    quant: str
    bytes: PositiveInt | None = None
    gib: PositiveFloat | None = None
    gb: PositiveFloat | None = None
    source: Source
    notes: str = ""

    @model_validator(mode="after")
    def _one_size(self) -> Self:
        if sum(x is not None for x in (self.bytes, self.gib, self.gb)) != 1:
            raise ValueError("give exactly one of bytes, gib or gb")
        return self


class EngineProfile(Frozen):
    """How one inference engine lays out memory, with the sources of its constants."""

    name: EngineName
    label: str
    default_kv_dtype: str
    formats: tuple[FormatFamilyField, ...]
    hardware_kinds: tuple[HardwareKindField, ...]
    memory_utilization: Annotated[float, Field(gt=0, le=1)]
    kv_allocation: Literal["shared_pool", "paged", "per_seq_steps"]
    context_pad_tokens: PositiveInt
    batch_tokens: PositiveInt
    runtime_bytes_per_gpu: NonNegativeInt
    runtime_bytes_extra_gpu: NonNegativeInt = 0
    compute_buffer: Literal["logits_ubatch", "activation_profile", "none"]
    activation_bytes_dense: NonNegativeInt = 0
    activation_bytes_moe: NonNegativeInt = 0
    state_conv_bytes: PositiveFloat
    state_ssm_bytes: PositiveFloat
    split: Literal["layer", "tensor", "none"]
    tensor_parallel_efficiency: Annotated[float, Field(gt=0, le=1)] = 1.0
    allreduce_latency_s: Annotated[float, Field(ge=0)] = 0.0
    keeps_embeddings_on_host: bool = False
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: str = ""


class Assumptions(Frozen):
    """Defaults and world constants the engine needs beyond the catalog, each with its source."""

    verdict_tight_fraction: Annotated[float, Field(gt=0, lt=1)]
    default_context: PositiveInt
    ttft_prompt_tokens: PositiveInt
    host_ram_bandwidth_gbps: PositiveFloat
    electricity_usd_per_kwh: PositiveFloat
    electricity_date: dt.date
    hours_per_day: Annotated[float, Field(gt=0, le=24)]
    days_per_month: PositiveFloat
    finetune_seq_len: PositiveInt
    finetune_batch: PositiveInt
    lora_rank: PositiveInt
    nf4_bits_per_weight: PositiveFloat
    adam_bytes_per_param: PositiveFloat
    activation_bytes_per_token_hidden: PositiveFloat
    max_gpus: PositiveInt
    sources: tuple[Source, ...] = Field(min_length=1)


class DecodeFit(Frozen):
    """Decode constants for one engine on one memory technology (``hbm``, ``gddr``, ``lpddr``, or
    ``*`` for all): the share of datasheet bandwidth reached and a fixed latency per layer."""

    engine: EngineName
    hardware_class: str
    bandwidth_efficiency: Annotated[float, Field(gt=0, le=1)]
    per_layer_latency_s: Annotated[float, Field(ge=0)]
    rows: NonNegativeInt


class PrefillFit(Frozen):
    """Prefill constant for one engine on one compute class (``<vendor>-<kind>``, ``apple``, a
    vendor, or ``*``): the share of dense 16-bit peak FLOP/s a dense model reaches."""

    engine: EngineName
    hardware_class: str
    compute_efficiency: Annotated[float, Field(gt=0, le=1)]
    rows: NonNegativeInt


class MoEFit(Frozen):
    """The share of its compute class's dense prefill efficiency a mixture-of-experts model reaches
    with one engine: its per-expert matrix products are small."""

    engine: EngineName
    moe_factor: Annotated[float, Field(gt=0, le=1)]
    rows: NonNegativeInt


class ErrorSummary(Frozen):
    """How far the fitted engine lands from the measurements of one kind (decode or prefill).

    Errors are medians of |predicted − measured| / measured. Out of sample, each hardware entry (or
    model) is predicted by constants fitted without any of its rows. ``ratio_low``/``ratio_high``
    are the 10th and 90th percentiles of measured ÷ predicted over the leave-one-hardware-out
    predictions: every speed on the site is shown with that range.
    """

    rows: NonNegativeInt
    hardware: NonNegativeInt
    models: NonNegativeInt
    in_sample: Annotated[float, Field(ge=0)]
    leave_one_hardware_out: Annotated[float, Field(ge=0)]
    leave_one_model_out: Annotated[float, Field(ge=0)]
    ratio_low: PositiveFloat
    ratio_high: PositiveFloat

    @property
    def out_of_sample(self) -> float:
        """The worse of the two held-out medians: the figure the site quotes."""
        return max(self.leave_one_hardware_out, self.leave_one_model_out)


class Calibration(Frozen):
    """The output of ``make calibrate``: fitted constants and the data they were fitted on."""

    fitted_on: dt.date
    measurements_sha256: str
    method: str
    decode: ErrorSummary | None = None
    prefill: ErrorSummary | None = None
    decode_fits: tuple[DecodeFit, ...]
    prefill_fits: tuple[PrefillFit, ...]
    moe_fits: tuple[MoEFit, ...] = ()
