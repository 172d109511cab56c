"""Typed catalog schema: what a model, a hardware entry, a format, a price or a measurement holds.

Pure data: no I/O. Every model is frozen and rejects unknown keys, so a typo in a YAML file is an
error that names the key, never a silently ignored fact.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from enum import StrEnum
from typing import Annotated, Literal, Self

from pydantic import AfterValidator, Field, model_validator

from generator.content.blocks import Network
from generator.content.types import Frozen, Layers, Tokens, Width

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
GIB = 1024**3


def _matching(pattern: str, expected: str) -> AfterValidator:
    """A validator that accepts strings matching ``pattern`` and otherwise says what was ``expected``."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value):
            raise ValueError(f"expected {expected}")
        return value

    return AfterValidator(check)


def _sane_date(value: dt.date) -> dt.date:
    if not dt.date(1990, 1, 1) <= value <= dt.date(2100, 12, 31):
        raise ValueError(f"date {value} is outside 1990-01-01 .. 2100-12-31")
    return value


# Every number has a range a real record stays far inside: a typo (1e12 layers) is an error, not a hang.
PositiveInt = Annotated[int, Field(gt=0, le=10**15)]
NonNegativeInt = Annotated[int, Field(ge=0, le=10**15)]
PositiveFloat = Annotated[float, Field(gt=0, le=1e15)]
Date = Annotated[dt.date, AfterValidator(_sane_date)]
Slug = Annotated[str, Field(pattern=SLUG_RE.pattern, min_length=1, max_length=80)]

# Characters a reader cannot see or that render as nothing: a name holding one looks like another name.
_INVISIBLE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
_BLANK_LETTERS = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"}  # Hangul fillers, braille blank
# Scripts a name may mix with Latin (Chinese, Japanese and Korean names often carry a Latin part);
# any other mix (Latin with Cyrillic or Greek letters) is how a look-alike of a name is spelt.
_CJK_SCRIPTS = {"CJK", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO"}


def name_key(name: str) -> str:
    """The form under which two names are the same name: NFKC, case-folded, runs of spaces as one."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def _readable_name(value: str) -> str:
    """A name a person can read and tell apart: not blank, no invisible characters, one script."""
    if not value.strip():
        raise ValueError("a name must not be blank")
    for ch in value:
        if unicodedata.category(ch) in _INVISIBLE_CATEGORIES or ch in _BLANK_LETTERS or (ch.isspace() and ch != " "):
            raise ValueError(f"a name must not hold invisible or control characters (U+{ord(ch):04X})")
    if value != value.strip():
        raise ValueError("a name must not start or end with a space")
    scripts = set()
    for ch in unicodedata.normalize("NFKC", value):
        if ch.isalpha():
            word = unicodedata.name(ch, "UNKNOWN").split()[0]
            scripts.add("CJK" if word in _CJK_SCRIPTS else word)
    if len(scripts) > 1 and not scripts <= {"LATIN", "CJK"}:
        raise ValueError(
            f"a name must not mix the letters of {', '.join(sorted(scripts)).lower()} scripts "
            "(a look-alike of another name): write it in one script"
        )
    return value


Name = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_readable_name)]
Prose = Annotated[str, Field(max_length=20_000)]
# A source is an https URL or `owner/repo:path[@commit]` in a public Git repository.
SOURCE_RE = re.compile(
    r"^(?:https://[A-Za-z0-9.-]+(?::\d+)?(?:[/?#][^\s<>\"'`\\]*)?"
    r"|[A-Za-z0-9][\w.-]*/[\w.-]+:[^<>\"'`\\@:]+(?:@[0-9a-f]{7,40})?)$"
)
Source = Annotated[
    str,
    Field(min_length=5, max_length=2000),
    _matching(SOURCE_RE.pattern, "an https:// URL or owner/repo:path[@commit] of a public Git repository"),
]
# A Hugging Face repo id: owner/name of letters, digits, '-', '_', '.', neither part starting with
# '-' or '.', at most 96 characters each (the Hub's own rule); it goes into commands and URLs.
HF_REPO_RE = r"^[A-Za-z0-9_][\w.-]{0,95}/[A-Za-z0-9_][\w.-]{0,95}$"
HfRepo = Annotated[str, _matching(HF_REPO_RE, "a Hugging Face repo id owner/name (letters, digits, '-', '_', '.')")]
# An Ollama model reference: [namespace/]name[:tag], or hf.co/owner/repo[:tag] for a Hub GGUF.
OLLAMA_RE = (
    r"^(?:hf\.co/[A-Za-z0-9_][\w.-]*/[A-Za-z0-9_][\w.-]*|(?:[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*)"
    r"(?::[A-Za-z0-9_][\w.-]{0,127})?$"
)
OllamaRef = Annotated[
    str, Field(max_length=200), _matching(OLLAMA_RE, "an Ollama model name[:tag] or hf.co/owner/repo[:tag]")
]


class Architecture(Frozen):
    """The text model's global shape, as in its config.json; the layers are described by ``Model.network``."""

    model_type: Annotated[str, _matching(r"[A-Za-z0-9_.-]{1,64}", "a config.json model_type such as llama")]
    num_layers: Layers
    hidden_size: Width
    vocab_size: Annotated[int, Field(ge=1, le=10_000_000)]
    max_context: Tokens
    tie_word_embeddings: bool
    # Hidden-size norms of every layer (input and post-attention: 2; Gemma's sandwich norms: 4).
    norms_per_layer: Annotated[int, Field(ge=0, le=8)] = 2


class Artifacts(Frozen):
    """Published weights a user can download, by format family."""

    gguf: tuple[HfRepo, ...] = ()
    awq: tuple[HfRepo, ...] = ()
    gptq: tuple[HfRepo, ...] = ()
    fp8: tuple[HfRepo, ...] = ()
    mlx: tuple[HfRepo, ...] = ()
    # Checkpoints whose MoE experts ship in MXFP4 (gpt-oss): vLLM cannot make MXFP4 from other weights.
    mxfp4: tuple[HfRepo, ...] = ()
    ollama: OllamaRef | None = None


ParamsKind = Literal["exact", "published", "derived"]
DateOrUnknown = Date | Literal["unknown"]
Params = Annotated[int, Field(ge=1, le=10**14)]


class VisionEncoder(Frozen):
    """The image encoder and multimodal projector of a multimodal model, in 16-bit when loaded: llama.cpp's
    mmproj file (loaded by ``-hf`` unless ``--no-mmproj``), the vision tower vLLM and SGLang load with the
    checkpoint. ``params`` counts the encoder and the projector."""

    params: Params
    params_kind: ParamsKind
    # The F16 mmproj GGUF's size: what llama.cpp loads (a few tensors stay F32, so a little over 2 × params).
    mmproj_bytes: Bytes | None = None
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: Prose = ""


class LongContext(Frozen):
    """Context past the config's ``max_position_embeddings`` that the model card documents through RoPE
    scaling the engine applies at load time (static YaRN): ``factor`` × ``original_context`` tokens, up
    to ``max_context``. The card's advice: only when long contexts are needed (it may cost quality on
    short texts)."""

    method: Literal["yarn"]
    factor: Annotated[float, Field(gt=1, le=64)]
    original_context: Tokens
    max_context: Tokens
    sources: tuple[Source, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _reach(self) -> Self:
        if self.max_context > self.original_context * self.factor:
            raise ValueError("max_context exceeds factor × original_context")
        return self


class Model(Frozen):
    """One open-weight LLM of the catalog."""

    slug: Slug
    hf_id: HfRepo
    name: Name
    organization: Name
    family: Name
    license: Name
    release_date: DateOrUnknown = "unknown"
    params_total: Params | None = None
    params_total_kind: ParamsKind = "derived"
    # What the declared total counts beyond the text model the engine loads: the checkpoint's
    # multi-token-prediction layers, the vision encoder (a Hub safetensors total counts both).
    params_total_counts: tuple[Literal["mtp", "vision"], ...] = ()
    params_active: Params | None = None
    params_active_kind: ParamsKind | None = None
    architecture: Architecture
    # The layers: named blocks and their schedule (generator/content/blocks.py).
    network: Network
    # The engines that run this model's architecture, from content/architectures.yaml (the loader fills it;
    # a model file does not set it). None: the architecture is not listed there, and every engine is
    # taken to run it, as for the long-supported architectures.
    engines: tuple[Annotated[str, Field(max_length=32)], ...] | None = None
    artifacts: Artifacts = Artifacts()
    vision: VisionEncoder | None = None
    long_context: LongContext | None = None
    # What the model is made for, as its card says: "code" for a coding model (the workbench's
    # simulator then streams code), "general" otherwise.
    domain: Literal["general", "code"] = "general"
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: Prose = ""

    @property
    def max_context(self) -> int:
        """The longest context the model card documents: with its RoPE scaling where it has one, else the
        config's ``max_position_embeddings``."""
        lc = self.long_context
        return lc.max_context if lc else self.architecture.max_context

    def extends(self, context: int) -> bool:
        """Whether ``context`` is past the config's maximum, so the engine must apply the card's RoPE scaling."""
        return self.long_context is not None and context > self.architecture.max_context

    def has_checkpoint(self, fmt: str, family: FormatFamily) -> bool:
        """Whether a checkpoint of ``fmt`` is published for the model (16-bit weights: the model's own;
        FP8: vLLM makes it from them at load time)."""
        art = self.artifacts
        if family is FormatFamily.gguf:
            return bool(art.gguf)
        if family is FormatFamily.mlx:
            return bool(art.mlx)
        return {"AWQ": bool(art.awq), "GPTQ": bool(art.gptq), "MXFP4": bool(art.mxfp4)}.get(fmt, True)

    def runs_on(self, engine: str) -> bool:
        """Whether ``engine`` has a release known to load this model's architecture (architectures.yaml)."""
        return self.engines is None or engine in self.engines

    @property
    def is_moe(self) -> bool:
        """Whether any layer routes to experts."""
        return any(b.kind == "moe" for b in self.network.blocks.values())

    @model_validator(mode="after")
    def _layer_count(self) -> Self:
        layers = len(self.network.schedule())
        if layers != self.architecture.num_layers:
            raise ValueError(
                f"network.layers expands to {layers} layers, architecture.num_layers is {self.architecture.num_layers}"
            )
        return self

    @model_validator(mode="after")
    def _active(self) -> Self:
        if "vision" in self.params_total_counts and self.vision is None:
            raise ValueError("params_total_counts names vision, but the model has no `vision` section")
        if "mtp" in self.params_total_counts and self.network.mtp is None:
            raise ValueError("params_total_counts names mtp, but network has no `mtp` layers")
        if self.params_active is not None and not self.is_moe:
            raise ValueError("params_active is only for MoE models (no `moe` block)")
        if self.params_active and self.params_total and self.params_active > self.params_total:
            raise ValueError("params_active exceeds params_total")
        if self.long_context and self.long_context.max_context <= self.architecture.max_context:
            raise ValueError("long_context.max_context must exceed architecture.max_context")
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


PriceKind = Literal["launch_msrp", "street", "list", "used", "estimate"]
# The software stack an accelerator runs (engines.yaml's backends name the platforms they run on):
# NVIDIA CUDA, AMD ROCm, Apple Metal, Intel Xe GPUs, Intel Gaudi, Huawei Ascend (910 series and
# the 310P of the Atlas 300I), Moore Threads MUSA.
Platform = Literal["cuda", "rocm", "metal", "xe", "gaudi", "ascend", "ascend-310p", "musa"]
# Which price answers "what does one cost to buy new today", best first: a current street or list
# price, then the launch price while it is under LAUNCH_PRICE_MAX_AGE_DAYS old (older, the part may no
# longer be sold new, or sells at another price), then a sourced estimate (datacenter parts without a
# public price).
NEW_PRICE_ORDER: tuple[PriceKind, ...] = ("street", "list", "launch_msrp", "estimate")
LAUNCH_PRICE_MAX_AGE_DAYS = 365


class Price(Frozen):
    """A purchase price for one unit as the entry describes it, with the day it was seen and its source.

    ``launch_msrp``: the maker's launch price; ``street``: what new units sell for; ``list``: a
    vendor's current list price; ``used``: the used market; ``estimate``: a sourced estimate where
    no public price exists (say whose in ``notes``).
    """

    # One cent to 10^8: the price axis of the model pages' chart labels every power of ten between.
    usd: Annotated[float, Field(ge=0.01, le=1e8)]
    date: Date
    kind: PriceKind
    source: Source
    notes: Prose = ""


class Discontinued(Frozen):
    """The day the maker stopped selling a device (or this configuration of a machine) new, with the source
    that says so: from then on it has no new price, only used ones."""

    date: Date
    source: Source
    notes: Prose = ""


Tflops = Annotated[float, Field(gt=0, le=1_000_000)]


class Hardware(Frozen):
    """One accelerator (or unified-memory machine) of the catalog."""

    slug: Slug
    name: Name
    vendor: Name
    kind: HardwareKindField
    platform: Platform
    release_date: DateOrUnknown = "unknown"
    # Half a GiB at least: a device with less runs none of the catalog, and a few bytes round to none.
    memory_gib: Annotated[float, Field(ge=0.5, le=100_000)] | None = None
    memory_gb: Annotated[float, Field(ge=0.5, le=100_000)] | None = None
    memory_type: Name | None = None
    bandwidth_gbps: Annotated[float, Field(gt=0, le=1_000_000)]
    tflops_bf16: Tflops | None = None
    tflops_fp16: Tflops | None = None
    tflops_fp8: Tflops | None = None
    tops_int8: Tflops | None = None
    tdp_w: Annotated[float, Field(gt=0, le=100_000)] | None = None
    interconnect: Name | None = None
    # What tensor parallelism over several of these devices talks through: NVLink or Infinity Fabric
    # (xGMI) meshes, PCIe (cards, also those an NVLink bridge pairs: past two cards it is PCIe), Huawei's
    # HCCS or UB, Moore Threads' MTLink, Ethernet (RoCE), or none (one machine that does not combine).
    link: Literal["nvlink", "xgmi", "pcie", "hccs", "ub", "mtlink", "ethernet", "none"]
    chips: Annotated[int, Field(ge=1, le=64)] = 1
    # How it is bought: a plug-in card (a PC holds one; several need a rig, rigs.yaml), a module sold only on
    # a multi-GPU baseboard inside a server (SXM, OAM), or a whole machine (a Mac, an APU box); None: a
    # machine for apple_unified and unified_apu kinds, a card for the others (:attr:`bought_as`).
    form_factor: Literal["card", "module", "machine"] | None = None
    gpu_memory_limit_gib: Annotated[float, Field(ge=0.5, le=100_000)] | None = None
    # Where gpu_memory_limit_gib came from: a measurement the file cites, or (filled by the loader for a Mac
    # whose file gives none) macOS's default rule in assumptions.yaml.
    gpu_memory_limit_kind: Literal["measured", "rule"] = "measured"
    # Another entry built on the same chip (same CPU and GPU cores, bandwidth and peak), differing only in
    # memory size or machine: measurements of either tell the compute of both (calibrate.implied_peaks).
    same_chip_as: Slug | None = None
    prices: tuple[Price, ...] = ()
    discontinued: Discontinued | None = None
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: Prose = ""
    # The day the catalog's prices describe (Catalog.prices_as_of, filled when the catalog is made): a
    # launch price older than LAUNCH_PRICE_MAX_AGE_DAYS before it is not a new price.
    prices_as_of: Date | None = None

    @model_validator(mode="after")
    def _memory(self) -> Self:
        if (self.memory_gib is None) == (self.memory_gb is None):
            raise ValueError("give exactly one of memory_gib or memory_gb")
        if self.gpu_memory_limit_gib is not None and self.gpu_memory_limit_gib * GIB > self.memory_bytes:
            raise ValueError("gpu_memory_limit_gib exceeds the memory")
        return self

    @property
    def bought_as(self) -> Literal["card", "module", "machine"]:
        """The form factor, given or implied by the kind."""
        if self.form_factor is not None:
            return self.form_factor
        return "machine" if self.kind in (HardwareKind.apple_unified, HardwareKind.unified_apu) else "card"

    @property
    def chip(self) -> str:
        """The entry that names this one's chip: ``same_chip_as``, else itself."""
        return self.same_chip_as or self.slug

    @property
    def short_name(self) -> str:
        """The name without its vendor in front ("NVIDIA A100 80GB PCIe": "A100 80GB PCIe"), for lists
        already grouped by vendor."""
        prefix = self.vendor + " "
        return self.name[len(prefix) :] if self.name.startswith(prefix) and len(self.name) > len(prefix) else self.name

    @property
    def memory_bytes(self) -> int:
        """Total memory of the device in bytes."""
        if self.memory_gib is not None:
            return round(self.memory_gib * GIB)
        assert self.memory_gb is not None
        return round(self.memory_gb * 1e9)

    @property
    def price(self) -> Price | None:
        """The price of a new unit: the newest street or list price, else the launch price if it is under
        a year old (LAUNCH_PRICE_MAX_AGE_DAYS before :attr:`prices_as_of`), else an estimate; none once
        it is no longer sold new (:attr:`off_sale`)."""
        if self.off_sale:
            return None
        for kind in NEW_PRICE_ORDER:
            found = [p for p in self.prices if p.kind == kind and (kind != "launch_msrp" or self._launch_current(p))]
            if found:
                return max(found, key=lambda p: p.date)
        return None

    @property
    def off_sale(self) -> bool:
        """Whether the maker had stopped selling it new by the day the catalog's prices describe."""
        d = self.discontinued
        return d is not None and (self.prices_as_of is None or d.date <= self.prices_as_of)

    def _launch_current(self, p: Price) -> bool:
        return self.prices_as_of is None or (self.prices_as_of - p.date).days <= LAUNCH_PRICE_MAX_AGE_DAYS

    @property
    def launch_price(self) -> Price | None:
        """The newest launch price, shown beside the new price when it is not that price (older than a year,
        or a street price replaced it)."""
        return max((p for p in self.prices if p.kind == "launch_msrp"), key=lambda p: p.date, default=None)

    @property
    def used_price(self) -> Price | None:
        """The newest used-market price, if the entry has one."""
        return max((p for p in self.prices if p.kind == "used"), key=lambda p: p.date, default=None)

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

    model: Name
    params: Params
    embedding_params: Annotated[int, Field(ge=0, le=10**14)]
    output_params: Annotated[int, Field(ge=0, le=10**14)]
    file_gib: Annotated[float, Field(gt=0, le=1_000_000)]
    source: Source


# Bits per stored weight: from 1-bit formats to 32-bit floats.
Bits = Annotated[float, Field(gt=0, le=32)]
# A format or KV-dtype name goes into launch commands and URLs (`?quant=Q4_K_M`).
FormatName = Annotated[
    str, _matching(r"[A-Za-z0-9][A-Za-z0-9_. +-]{0,39}", "a format name of letters, digits, ' ', '_', '.', '+', '-'")
]


class QuantFormat(Frozen):
    """A weight format: bits per weight of the bulk, and what it keeps at other precisions."""

    name: FormatName
    family: FormatFamilyField
    description: Annotated[str, Field(max_length=2000)]
    bits_per_weight: Bits
    embedding_bpw: Bits
    output_bpw: Bits
    small_tensor_bpw: Bits
    expert_bpw: Bits | None = None
    moe_only: bool = False
    reference: ReferenceFile | None = None
    aliases: tuple[FormatName, ...] = ()
    source: Source
    derivation: Prose

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

    name: FormatName
    bytes_per_element: Annotated[float, Field(gt=0, le=8)]
    engines: tuple[Name, ...]
    source: Source


class CloudOffer(Frozen):
    """A dated rental price for an instance with ``gpus`` of one catalog accelerator."""

    provider: Name
    instance: Name
    hardware: Slug
    gpus: Annotated[int, Field(ge=1, le=4096)]
    usd_per_hour: Annotated[float, Field(gt=0, le=100_000)]
    billing: Literal["on_demand", "spot", "reserved_1y", "reserved_3y", "community"]
    date_seen: Date
    source: Source
    notes: Prose = ""

    @model_validator(mode="after")
    def _cent_per_gpu_hour(self) -> Self:
        # The rent chart's price axis labels powers of ten from one cent (charts.price_tick_labels).
        if self.usd_per_gpu_hour < 0.01:
            raise ValueError("usd_per_hour / gpus must be at least 0.01 (one cent per GPU-hour)")
        return self

    @property
    def usd_per_gpu_hour(self) -> float:
        """The price of one of the instance's GPUs for an hour."""
        return self.usd_per_hour / self.gpus


HttpsUrl = Annotated[
    str,
    Field(min_length=9, max_length=500),
    _matching(r"^https://[A-Za-z0-9.-]+(?::\d+)?(?:/[^\s<>\"'`\\]*)?$", "an https:// URL"),
]


class Provider(Frozen):
    """A cloud provider's public GPU pricing page, which pair pages link its offers to (as a source
    gives the URL)."""

    name: Name
    url: HttpsUrl
    source: Source
    notes: Prose = ""


class ApiPrice(Frozen):
    """A dated serverless API price for a catalog model, per million tokens."""

    model: Slug
    provider: Name
    input_usd_per_mtok: Annotated[float, Field(ge=0, le=10_000)]
    output_usd_per_mtok: Annotated[float, Field(ge=0, le=10_000)]
    date_seen: Date
    source: Source
    notes: Prose = ""


EngineName = Literal["llama.cpp", "vllm", "ollama", "mlx", "sglang"]
# llama.cpp's compute backend in a measurement (its speed differs by backend on one GPU).
Backend = Literal["cuda", "rocm", "vulkan", "metal", "sycl", "cann", "musa", "cpu"]


class Throughput(Frozen):
    """One measured speed with its source: decode (tg) or prefill (pp) tokens per second."""

    model: Slug | None = None
    model_ref: Name | None = None
    params: Params | None = None
    hardware: Slug
    engine: EngineName
    quant: Name
    test: Annotated[str, Field(pattern=r"^(tg|pp)\d+$|^(decode|prefill)_b\d+_ctx\d+$")]
    tok_s: Annotated[float, Field(gt=0, le=10_000_000)]
    backend: Backend | None = None
    size_gib: Annotated[float, Field(gt=0, le=1_000_000)] | None = None
    context: Annotated[int, Field(ge=0, le=1_000_000_000)] = 0
    batch: Annotated[int, Field(ge=1, le=1_000_000)] = 1
    gpus: Annotated[int, Field(ge=1, le=4096)] = 1
    date: Date | None = None
    outlier: bool = False
    source: Source
    notes: Prose = ""

    @model_validator(mode="after")
    def _model(self) -> Self:
        if self.model is None and self.model_ref is None:
            raise ValueError("give `model` (a catalog slug) or `model_ref`")
        return self


Mib = Annotated[float, Field(gt=0, le=1e9)]


class MemoryLog(Frozen):
    """Buffer sizes an engine printed when it loaded a catalog model (e.g. llama.cpp's
    ``KV buffer size = 1024.00 MiB``). Sums over devices, and over the SWA and non-SWA caches."""

    model: Slug
    engine: EngineName
    quant: Name | None = None
    n_ctx: Tokens
    n_seq: Annotated[int, Field(ge=1, le=1_000_000)] = 1
    kv_type: Name = "fp16"
    kv_buffer_mib: Mib
    model_buffer_mib: Mib | None = None
    compute_buffer_mib: Mib | None = None
    n_ubatch: Tokens | None = None
    flash_attn: bool | None = None
    build: Name | None = None
    date: Date | None = None
    source: Source
    notes: Prose = ""


class FileSize(Frozen):
    """A real published weight-file size."""

    model: Slug | None = None
    model_ref: Name
    quant: Name
    bytes: Annotated[int, Field(ge=1, le=10**15)] | None = None
    gib: Annotated[float, Field(gt=0, le=1_000_000)] | None = None
    gb: Annotated[float, Field(gt=0, le=1_000_000)] | None = None
    source: Source
    notes: Prose = ""

    @model_validator(mode="after")
    def _one_size(self) -> Self:
        if sum(x is not None for x in (self.bytes, self.gib, self.gb)) != 1:
            raise ValueError("give exactly one of bytes, gib or gb")
        return self


# Bytes an engine reserves on a device: at most a terabyte.
Bytes = Annotated[int, Field(ge=0, le=10**12)]


class SpeedKin(Frozen):
    """An engine measured to run as fast as another on the same setup: where the first has no fit of
    its own on a device class, it takes the other's (``make calibrate`` copies it, marked borrowed)
    and its speeds there are shown as extrapolated, with the wider range."""

    engine: EngineName
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: Prose


class EngineBackend(Frozen):
    """One way an engine runs on a platform (llama.cpp's CUDA or CANN backend, vLLM's vllm-ascend
    plugin): on which accelerators (the platforms', or only ``hardware``, less ``excluded``), which
    weight formats and KV caches it runs there (none listed: all of the engine's), from which version,
    with its sources. An engine runs a format on an accelerator when one of its backends there does."""

    name: Name
    platforms: tuple[Platform, ...] = Field(min_length=1)
    hardware: tuple[Slug, ...] = ()
    excluded: tuple[Slug, ...] = ()
    formats: tuple[FormatName, ...] = ()
    kv_dtypes: tuple[FormatName, ...] = ()
    # The 16-bit type it computes in where the device has no bfloat16 (vLLM on Turing, vllm-ascend on
    # the 310P): the command passes it (vLLM's --dtype) and a 16-bit checkpoint takes the same bytes.
    dtype: Literal["float16"] | None = None
    since: Name | None = None
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: Prose = ""

    def serves(self, hw: Hardware) -> bool:
        """Whether this backend runs on ``hw`` at all."""
        return (
            hw.platform in self.platforms
            and (not self.hardware or hw.slug in self.hardware)
            and hw.slug not in self.excluded
        )

    def runs_format(self, fmt: str) -> bool:
        """Whether this backend runs weights in ``fmt``."""
        return not self.formats or fmt in self.formats

    def runs_kv(self, kv: str) -> bool:
        """Whether this backend has a ``kv`` KV cache."""
        return not self.kv_dtypes or kv in self.kv_dtypes


class IndexedMLACache(Frozen):
    """How an engine caches an MLA layer that has a sparse-attention indexer (DeepSeek V3.2, GLM-5), where
    it differs from the plain rule (latent and index key at the KV cache's element size)."""

    # Bytes of one token's index key whatever the KV dtype (vLLM: 128 fp8 values and one fp32 scale).
    index_key_bytes: Annotated[float, Field(gt=0, le=65_536)] | None = None
    # Bytes of one token's latent record with an 8-bit KV cache (vLLM's fp8_ds_mla: 512 fp8, 16 of
    # scales, 128 of 16-bit RoPE key).
    fp8_record_bytes: Annotated[int, Field(gt=0, le=65_536)] | None = None
    # Tokens per page the sparse kernels require (vLLM's FlashMLA sparse and indexer backends: 64).
    block_tokens: Annotated[int, Field(ge=1, le=65_536)] | None = None
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: Prose = ""


class CompressedMLACache(Frozen):
    """How an engine caches DeepSeek V4's attention where it differs from the plain rule: every row K-only,
    ``head_dim`` values of the KV cache's type (index keys: the index head size), in the engine's own
    padding (llama.cpp's llama-kv-cache-dsv4)."""

    # Bytes of one row with an 8-bit cache (vLLM's fp8_ds_mla for V4: 448 fp8, 64 bf16 RoPE, 8 of scales).
    fp8_record_bytes: Annotated[int, Field(gt=0, le=65_536)] | None = None
    # Bytes of one index key whatever the KV dtype (vLLM: 128 fp8 and an fp32 scale).
    index_key_bytes: Annotated[float, Field(gt=0, le=65_536)] | None = None
    # Tokens per page of compressed rows and index keys, and of the window rows (vLLM: 256 and 64).
    block_tokens: Annotated[int, Field(ge=1, le=65_536)] | None = None
    window_block_tokens: Annotated[int, Field(ge=1, le=65_536)] | None = None
    # Each page rounded up to a multiple of this many bytes (vLLM: the decode kernel's 576-byte stride).
    page_align_bytes: Annotated[int, Field(ge=1, le=65_536)] | None = None
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: Prose = ""


class PooledIndexCache(Frozen):
    """How an engine caches a QSA indexer's keys (Qwen3.8-Flash-Next): one mean-pooled key per ``pool``
    tokens, at this element size whatever the KV cache's type (vLLM's QSACompressedKeyCache and SGLang's
    qsa_bytes_per_token: BF16). Without this record, one key per token at the KV cache's element size (the
    reference implementation's cache of raw keys)."""

    key_bytes_per_element: Annotated[float, Field(gt=0, le=8)]
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: Prose = ""


class NgramPlacement(Frozen):
    """Which kinds of n-gram embedding table (blocks.NgramEmbedding) an engine keeps in host RAM by default;
    the others sit in device memory, split over the devices like the other weights."""

    host: tuple[Literal["ple", "engram"], ...] = ()
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: Prose = ""


class EngineProfile(Frozen):
    """How one inference engine lays out memory and where it runs, with the sources of its constants."""

    name: EngineName
    label: Name
    default_kv_dtype: FormatName
    formats: tuple[FormatFamilyField, ...]
    backends: tuple[EngineBackend, ...] = Field(min_length=1)
    memory_utilization: Annotated[float, Field(gt=0, le=1)]
    kv_allocation: Literal["shared_pool", "paged", "per_seq_steps"]
    context_pad_tokens: Annotated[int, Field(ge=1, le=1_048_576)]
    batch_tokens: Annotated[int, Field(ge=1, le=1_048_576)]
    runtime_bytes_per_gpu: Bytes
    runtime_bytes_extra_gpu: Bytes = 0
    compute_buffer: Literal["logits_ubatch", "activation_profile", "none"]
    activation_bytes_dense: Bytes = 0
    activation_bytes_moe: Bytes = 0
    state_conv_bytes: Annotated[float, Field(gt=0, le=8)]
    state_ssm_bytes: Annotated[float, Field(gt=0, le=8)]
    indexed_mla: IndexedMLACache | None = None
    compressed_mla: CompressedMLACache | None = None
    pooled_index: PooledIndexCache | None = None
    ngram_tables: NgramPlacement | None = None
    split: Literal["layer", "tensor", "none"]
    tensor_parallel_efficiency: Annotated[float, Field(gt=0, le=1)] = 1.0
    allreduce_latency_s: Annotated[float, Field(ge=0, le=1)] = 0.0
    keeps_embeddings_on_host: bool = False
    # A multimodal model's vision encoder: loaded only when asked (llama.cpp's mmproj), always loaded
    # with the checkpoint (vLLM, SGLang, Ollama), or never (mlx-lm loads the text model).
    vision: Literal["optional", "always", "never"]
    # Whether its launch command can apply a model card's RoPE scaling (YaRN) past the config's maximum.
    extends_context: bool = False
    # The engine whose fitted speeds this one takes where it has too few measurements of its own.
    speed_from: SpeedKin | None = None
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: Prose = ""

    def backends_on(self, hw: Hardware) -> tuple[EngineBackend, ...]:
        """This engine's backends that run on ``hw``, in the order engines.yaml lists them (none: the
        engine does not run there)."""
        return tuple(b for b in self.backends if b.serves(hw))

    def dtype_on(self, hw: Hardware, fmt: str) -> str:
        """The --dtype a command for ``fmt`` on ``hw`` passes ("" for the checkpoint's own): that of the
        first backend there that runs the format."""
        backend = next((b for b in self.backends_on(hw) if b.runs_format(fmt)), None)
        return backend.dtype or "" if backend else ""

    def runs(self, hw: Hardware, fmt: str | None = None) -> bool:
        """Whether this engine runs on ``hw`` (and runs weights in ``fmt`` there, when given)."""
        return any(fmt is None or b.runs_format(fmt) for b in self.backends_on(hw))

    def ngram_on_host(self, kind: str) -> bool:
        """Whether this engine keeps n-gram tables of ``kind`` in host RAM by default."""
        return self.ngram_tables is not None and kind in self.ngram_tables.host


CliValue = Literal["int", "float", "string", "path", "repo", "json", "switch", "choice"]


class CliArgument(Frozen):
    """A flag (``names``, each spelling the program accepts) or a positional argument (``name``) of a
    launch program, and the value it takes: a kind, and for ``choice`` the accepted words."""

    names: tuple[Annotated[str, Field(min_length=1, max_length=60)], ...] = ()
    name: Name | None = None
    value: CliValue
    choices: tuple[Annotated[str, Field(min_length=1, max_length=60)], ...] = ()
    case_sensitive: bool = True
    evidence: Prose = ""

    @model_validator(mode="after")
    def _choices(self) -> Self:
        if (self.value == "choice") != bool(self.choices):
            raise ValueError("give choices exactly when value is choice")
        if bool(self.names) == bool(self.name):
            raise ValueError("a flag has names, a positional argument a name")
        return self

    def accepts(self, word: str) -> bool:
        """Whether ``word`` is a value this argument takes."""
        if self.value == "choice":
            words = self.choices if self.case_sensitive else tuple(c.lower() for c in self.choices)
            return (word if self.case_sensitive else word.lower()) in words
        try:
            if self.value == "int":
                int(word)
            elif self.value == "float":
                float(word)
            elif self.value == "json":
                json.loads(word)
        except ValueError:
            return False
        return bool(word)


class CliProgram(Frozen):
    """A program the launch commands call (llama-server, vllm serve…), as its own argument parser reads
    its command line at the version of ``sources``: the flags the site prints and the positional
    arguments, in order."""

    program: Annotated[str, Field(min_length=1, max_length=60)]
    engine: Name
    positional: tuple[CliArgument, ...] = ()
    flags: tuple[CliArgument, ...] = Field(min_length=1)
    seen: Date | None = None
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: Prose = ""

    def flag(self, word: str) -> CliArgument | None:
        """The flag one of whose names is ``word``."""
        return next((f for f in self.flags if word in f.names), None)


class RigPart(Frozen):
    """A part of a rig with its price: once per rig, per card it holds, or per power supply it needs."""

    item: Name
    usd: Annotated[float, Field(ge=0.01, le=1e8)]
    per: Literal["rig", "card", "psu"] = "rig"
    # new: a retail or list price; used: the second-hand market; estimate: a third party's figure.
    kind: Literal["new", "used", "estimate"]
    date: Date
    source: Source
    notes: Prose = ""


class Rig(Frozen):
    """A machine that holds several accelerators of one form factor: which kinds and how many, the power
    its own parts draw, its power supplies, and its parts with their prices."""

    slug: Slug
    name: Name
    form_factor: Literal["card", "module"]
    kinds: tuple[HardwareKindField, ...] = Field(min_length=1)
    min_cards: Annotated[int, Field(ge=1, le=64)]
    max_cards: Annotated[int, Field(ge=1, le=64)]
    # Modules come on baseboards of this many: a rig of them is bought whole.
    sold_with: Annotated[int, Field(ge=1, le=64)] | None = None
    # What the host draws besides the accelerators (CPU, board, memory, drives, fans), in watts.
    host_w: Annotated[float, Field(ge=0, le=100_000)]
    # One power supply's rating and the most the rig takes (None: power comes with the system).
    psu_w: Annotated[float, Field(gt=0, le=100_000)] | None = None
    max_psus: Annotated[int, Field(ge=1, le=64)] | None = None
    parts: tuple[RigPart, ...] = Field(min_length=1)
    notes: Prose = ""

    @model_validator(mode="after")
    def _counts(self) -> Self:
        if self.min_cards > self.max_cards:
            raise ValueError("min_cards exceeds max_cards")
        if (self.psu_w is None) != (self.max_psus is None):
            raise ValueError("give both psu_w and max_psus, or neither")
        if self.psu_w is None and any(part.per == "psu" for part in self.parts):
            raise ValueError("a part priced per power supply needs psu_w")
        return self


class RigsFile(Frozen):
    """content/rigs.yaml: the rigs a buyer can build or buy for several accelerators, and the power rules."""

    # Size power supplies this much above the rig's draw (a share: 0.2 is 20 % headroom).
    psu_headroom: Annotated[float, Field(ge=0, le=10)]
    # What one household circuit carries continuously, in watts: a rig drawing more needs several or a
    # higher-voltage one (said on the answer).
    circuit_w: Annotated[float, Field(gt=0, le=100_000)]
    rigs: tuple[Rig, ...] = Field(min_length=1)
    sources: tuple[Source, ...] = Field(min_length=1)


class Assumptions(Frozen):
    """Defaults and world constants the engine needs beyond the catalog, each with its source."""

    verdict_tight_fraction: Annotated[float, Field(gt=0, lt=1)]
    default_context: Tokens
    ttft_prompt_tokens: Tokens
    host_ram_bandwidth_gbps: Annotated[float, Field(gt=0, le=1_000_000)]
    electricity_usd_per_kwh: Annotated[float, Field(gt=0, le=100)]
    electricity_date: Date
    hours_per_day: Annotated[float, Field(gt=0, le=24)]
    days_per_month: Annotated[float, Field(gt=0, le=31)]
    finetune_seq_len: Tokens
    finetune_batch: Annotated[int, Field(ge=1, le=1_000_000)]
    lora_rank: Annotated[int, Field(ge=1, le=65_536)]
    nf4_bits_per_weight: Bits
    adam_bytes_per_param: Annotated[float, Field(gt=0, le=64)]
    activation_bytes_per_token_hidden: Annotated[float, Field(gt=0, le=1_000)]
    max_gpus: Annotated[int, Field(ge=1, le=64)]
    reading_words_per_minute: Annotated[float, Field(gt=0, le=2_000)]
    tokens_per_word: Annotated[float, Field(gt=0, le=10)]
    # macOS's default GPU working set (Metal's recommendedMaxWorkingSetSize) as a share of a Mac's memory:
    # the small share up to apple_gpu_small_up_to_gib, the large one above; a Mac whose file cites a measured
    # figure keeps it.
    apple_gpu_share_small: Annotated[float, Field(gt=0, le=1)]
    apple_gpu_share_large: Annotated[float, Field(gt=0, le=1)]
    apple_gpu_small_up_to_gib: Annotated[float, Field(gt=0, le=100_000)]
    sources: tuple[Source, ...] = Field(min_length=1)
    # content/rigs.yaml, filled by the loader (None: no multi-card rig is priced).
    rigs: RigsFile | None = None

    def apple_gpu_limit_gib(self, memory_gib: float) -> float:
        """macOS's default GPU working set for a Mac of ``memory_gib``, to 0.01 GiB."""
        share = (
            self.apple_gpu_share_small if memory_gib <= self.apple_gpu_small_up_to_gib else self.apple_gpu_share_large
        )
        return round(memory_gib * share, 2)


class DecodeFit(Frozen):
    """Decode constants for one engine on one memory technology (``hbm``, ``gddr``, ``lpddr``, or
    ``*`` for all): the share of datasheet bandwidth reached and a fixed latency per layer."""

    engine: EngineName
    hardware_class: Name
    bandwidth_efficiency: Annotated[float, Field(gt=0, le=1)]
    per_layer_latency_s: Annotated[float, Field(ge=0, le=1)]
    rows: NonNegativeInt
    # The engine whose fit this is, where ``engine`` has no measurements of its own here (its
    # ``speed_from`` in engines.yaml): the speed is then extrapolated.
    borrowed_from: EngineName | None = None


class PrefillFit(Frozen):
    """Prefill constant for one engine on one compute class (``<vendor>-<kind>``, ``apple``, a
    vendor, or ``*``): the share of dense 16-bit peak FLOP/s a dense model reaches."""

    engine: EngineName
    hardware_class: Name
    compute_efficiency: Annotated[float, Field(gt=0, le=1)]
    rows: NonNegativeInt
    borrowed_from: EngineName | None = None


class MoEFit(Frozen):
    """The share of its compute class's dense prefill efficiency a mixture-of-experts model reaches
    with one engine: its per-expert matrix products are small."""

    engine: EngineName
    moe_factor: Annotated[float, Field(gt=0, le=1)]
    rows: NonNegativeInt
    borrowed_from: EngineName | None = None


LinkClass = Literal["nvlink", "xgmi", "pcie", "hccs", "ub", "mtlink", "ethernet", "none", "fabric"]


class TPFit(Frozen):
    """What tensor parallelism adds to a decode step for one engine over one kind of link (``fabric``: the
    device-to-device meshes, NVLink, Infinity Fabric, HCCS, UB and MTLink, together), for dense or
    mixture-of-experts models: seconds per all-reduce, two per layer. Fitted on one-sequence
    measurements over several devices, as what the single-device fit leaves unexplained."""

    engine: EngineName
    link: LinkClass
    moe: bool
    allreduce_s: Annotated[float, Field(ge=0, le=1)]
    rows: NonNegativeInt
    hardware: NonNegativeInt
    borrowed_from: EngineName | None = None


class ErrorSummary(Frozen):
    """How far the fitted engine lands from the measurements of one kind (decode or prefill).

    Errors are medians of |predicted − measured| / measured. Out of sample, each hardware entry (or
    model) is predicted by constants fitted without any of its rows. ``ratio_low``/``ratio_high``
    are the 10th and 90th percentiles of measured ÷ predicted over the leave-one-hardware-out
    predictions: every speed backed by measurements of its engine and device class is shown with
    that range. ``leave_one_class_out`` and ``extrapolated_low``/``extrapolated_high`` do the same
    leaving out each engine × device class at a time (decode: memory technology; prefill: vendor), so
    its speeds come from another class's or engine's fit: the error and range of a speed the site
    extrapolates.
    """

    rows: NonNegativeInt
    hardware: NonNegativeInt
    models: NonNegativeInt
    in_sample: Annotated[float, Field(ge=0, le=100)]
    leave_one_hardware_out: Annotated[float, Field(ge=0, le=100)]
    leave_one_model_out: Annotated[float, Field(ge=0, le=100)]
    ratio_low: Annotated[float, Field(gt=0, le=100)]
    ratio_high: Annotated[float, Field(gt=0, le=100)]
    leave_one_class_out: Annotated[float, Field(ge=0, le=100)]
    extrapolated_low: Annotated[float, Field(gt=0, le=100)]
    extrapolated_high: Annotated[float, Field(gt=0, le=100)]

    @property
    def out_of_sample(self) -> float:
        """The worse of the two held-out medians: the figure the site quotes."""
        return max(self.leave_one_hardware_out, self.leave_one_model_out)


class RangeSummary(Frozen):
    """Out-of-sample error and range of one kind of setup the main fits do not cover (one sequence on
    several devices in tensor parallel, each row predicted with the fits made without its hardware
    entry; prefill at a peak implied by measurements, each row predicted from the others of its chip):
    the median |error|, and the 10th and 90th percentiles of measured ÷ predicted."""

    rows: NonNegativeInt
    hardware: NonNegativeInt
    median_error: Annotated[float, Field(ge=0)]
    ratio_low: Annotated[float, Field(gt=0)]
    ratio_high: Annotated[float, Field(gt=0)]


class EngineError(Frozen):
    """The held-out errors of one engine's decode or prefill measurements (each hardware entry, then
    each model, predicted by a fit made without its rows)."""

    engine: EngineName
    kind: Literal["decode", "prefill"]
    rows: NonNegativeInt
    hardware: NonNegativeInt
    leave_one_hardware_out: Annotated[float, Field(ge=0, le=100)]
    leave_one_model_out: Annotated[float, Field(ge=0, le=100)]


class ImpliedPeak(Frozen):
    """The dense 16-bit peak a chip with no published one would need for the fitted prefill efficiency of
    its class to give its own prefill measurements (the median over them; ``hardware`` is the entry that
    names the chip, ``Hardware.chip``): what the engine then uses for its prefill, time to first token
    and compute-bound decode."""

    hardware: Slug
    tflops: Annotated[float, Field(gt=0)]
    rows: Annotated[int, Field(ge=1)]


class Calibration(Frozen):
    """The output of ``make calibrate``: fitted constants and the data they were fitted on."""

    fitted_on: Date
    measurements_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    method: Annotated[str, Field(max_length=20_000)]
    decode: ErrorSummary | None = None
    prefill: ErrorSummary | None = None
    by_engine: tuple[EngineError, ...] = ()
    decode_fits: tuple[DecodeFit, ...]
    prefill_fits: tuple[PrefillFit, ...]
    moe_fits: tuple[MoEFit, ...] = ()
    tp_fits: tuple[TPFit, ...] = ()
    tensor_parallel: RangeSummary | None = None
    # Prefill at implied peaks, each row predicted from the peak the other rows of its chip imply.
    implied_prefill: RangeSummary | None = None
    implied_peaks: tuple[ImpliedPeak, ...] = ()

    def implied_peak(self, hardware: str) -> ImpliedPeak | None:
        """The peak implied by the prefill measurements of the chip ``hardware`` names, if it has one."""
        return next((p for p in self.implied_peaks if p.hardware == hardware), None)


QualityMetric = Literal["kld", "ppl_ratio", "recovery"]
QualityLabelName = Literal["lossless", "near_lossless", "balanced", "low_vram", "heavy_loss"]


class QualityMeasurement(Frozen):
    """How much a weight format loses against the 16-bit model, as one source measured it.

    ``kld``: mean KL divergence of the token distributions (nats); ``ppl_ratio``: perplexity over the
    16-bit perplexity on the same text; ``recovery``: benchmark score over the 16-bit score.
    """

    format: FormatName
    model_ref: Name
    metric: QualityMetric
    value: Annotated[float, Field(ge=0, le=100)]
    baseline: Name
    dataset: Prose
    context: Tokens | None = None
    tool: Prose
    date: Date
    source: Source
    notes: Prose = ""

    @property
    def loss(self) -> float | None:
        """The share of quality lost: perplexity up by it, or score down by it (None for KL divergence)."""
        if self.metric == "ppl_ratio":
            return self.value - 1.0
        if self.metric == "recovery":
            return 1.0 - self.value
        return None


class QualityLabel(Frozen):
    """A word for a range of loss: a format is ``name`` when its loss is at most ``max_loss`` (and more
    than the previous label's)."""

    name: QualityLabelName
    max_loss: Annotated[float, Field(ge=0)] | None = None  # None: no bound (the last label)


class EngineSupport(Frozen):
    """Evidence that an engine runs an architecture: since which release, and the sources."""

    since: Annotated[str, Field(min_length=1, max_length=40)]
    sources: tuple[Source, ...] = Field(min_length=1)
    notes: Prose = ""


class ArchitectureSupport(Frozen):
    """Which engines run the models of some config.json model types: those listed under ``engines``; an
    engine left out has no release known to run them, so the site never offers it for them."""

    model_types: tuple[Annotated[str, _matching(r"[A-Za-z0-9_.-]{1,64}", "a config.json model_type")], ...] = Field(
        min_length=1
    )
    engines: dict[EngineName, EngineSupport]
    notes: Prose = ""


class Wanted(Frozen):
    """A model or accelerator people ask for that the catalog does not have, and what keeps it out:
    ``needs_engine`` (its config is known but the engine cannot yet count it exactly),
    ``not_sourceable`` (no primary source gives the facts), ``no_engine`` (an accelerator no inference
    engine of engines.yaml documents support for) or ``not_released`` (no such product or open
    weights). ``missing`` says exactly what is lacking; ``sources`` are what was read."""

    name: Name
    kind: Literal["model", "hardware"]
    status: Literal["needs_engine", "not_sourceable", "no_engine", "not_released"]
    missing: Annotated[str, Field(min_length=10, max_length=2000)]
    sources: tuple[Source, ...] = ()
