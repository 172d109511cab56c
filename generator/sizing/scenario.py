"""Inputs of an estimate besides the model and the hardware: the scenario and the world's constants."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from generator.content.catalog import Catalog
from generator.content.schema import (
    ApiPrice,
    Assumptions,
    Calibration,
    CloudOffer,
    DecodeFit,
    EngineProfile,
    Hardware,
    HardwareKind,
    KVDtype,
    Model,
    MoEFit,
    PrefillFit,
    QuantFormat,
    TPFit,
)
from generator.sizing.speed import SpeedConstants

T = TypeVar("T")

# Bounds far above any real deployment: past them an input is a mistake, not a scenario.
MAX_CONTEXT = 1_000_000_000
MAX_BATCH = 1_000_000
MAX_GPUS = 4096


@dataclasses.dataclass(frozen=True)
class Scenario:
    """How the model is run: format, context per sequence, sequences, KV dtype, engine, GPUs, offload, and
    whether a multimodal model's vision encoder is loaded."""

    fmt: QuantFormat
    kv: KVDtype
    engine: EngineProfile
    context: int
    batch: int = 1
    gpus: int = 1
    offload: float = 0.0
    # Load a multimodal model's vision encoder where the engine makes it optional (llama.cpp's mmproj).
    vision: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.context <= MAX_CONTEXT:
            raise ValueError(f"context must be from 1 to {MAX_CONTEXT:,} tokens, got {self.context}")
        if not 1 <= self.batch <= MAX_BATCH:
            raise ValueError(f"batch must be from 1 to {MAX_BATCH:,} sequences, got {self.batch}")
        if not 1 <= self.gpus <= MAX_GPUS:
            raise ValueError(f"gpus must be from 1 to {MAX_GPUS}, got {self.gpus}")
        if not 0.0 <= self.offload <= 1.0:
            raise ValueError(f"offload must be a fraction from 0 to 1, got {self.offload}")

    def inputs(self) -> dict[str, str | int | float]:
        """The scenario by name, as estimate --json, the pair JSON and the workbench write it."""
        return {
            "quant": self.fmt.name,
            "engine": self.engine.name,
            "kv_dtype": self.kv.name,
            "context": self.context,
            "batch": self.batch,
            "gpus": self.gpus,
            "offload": self.offload,
            "vision": self.vision,
        }

    def brief_inputs(self) -> dict[str, str | int | float]:
        """``inputs`` less those at their default (one sequence, one device, no offload, no vision
        encoder): what a pair page embeds for the workbench, which fills them back in."""
        defaults = {f.name: f.default for f in dataclasses.fields(self)}
        return {k: v for k, v in self.inputs().items() if k not in defaults or defaults[k] != v}

    def with_(self, **changes: object) -> Scenario:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


def _grouped(items: Iterable[T], key: Callable[[T], str]) -> dict[str, tuple[T, ...]]:
    """``items`` by ``key``, each group in the order of ``items``."""
    by: dict[str, list[T]] = {}
    for item in items:
        by.setdefault(key(item), []).append(item)
    return {k: tuple(v) for k, v in by.items()}


@dataclasses.dataclass(frozen=True)
class Facts:
    """Constants from content/: assumptions, fitted calibration, prices."""

    assumptions: Assumptions
    calibration: Calibration | None
    offers: tuple[CloudOffer, ...] = ()
    api_prices: tuple[ApiPrice, ...] = ()

    @functools.cached_property
    def _offers_by_hardware(self) -> dict[str, tuple[CloudOffer, ...]]:
        return _grouped(self.offers, lambda o: o.hardware)

    @functools.cached_property
    def _api_by_model(self) -> dict[str, tuple[ApiPrice, ...]]:
        return _grouped(self.api_prices, lambda p: p.model)

    @functools.cached_property
    def _calibrations(self) -> dict[tuple[str, str, str, bool, str, float | str], CalibrationPick]:
        return {}

    def offers_for(self, hardware: str) -> tuple[CloudOffer, ...]:
        """The cloud offers of one accelerator, in catalog order."""
        return self._offers_by_hardware.get(hardware, ())

    def api_prices_for(self, model: str) -> tuple[ApiPrice, ...]:
        """The API prices of one model, in catalog order."""
        return self._api_by_model.get(model, ())


def hardware_class(hw: Hardware) -> str:
    """Compute class of an accelerator for prefill: ``<vendor>-<kind>`` (``apple`` for Apple).

    Kinds stay apart within a vendor: GeForce cards run FP16 matmuls with FP16 accumulation at twice
    the datasheet's FP32-accumulate rate, and datacenter parts reach a smaller share of theirs. A
    class without measurements falls back to its vendor (the same software stack), then to all.
    """
    if hw.kind is HardwareKind.apple_unified:
        return "apple"
    return f"{hw.vendor.lower().split()[0]}-{hw.kind.value}"


def memory_class(hw: Hardware) -> str:
    """Memory technology of an accelerator for decode: hbm, gddr or lpddr (unified memory).

    How much of the datasheet bandwidth a decode step reaches follows the memory more than the
    vendor: held-out errors are smallest with this grouping (see the accuracy page; splitting each
    technology by vendor made the leave-one-hardware-out median of llama.cpp 12.4% where it is 11.0%).
    """
    kind = (hw.memory_type or "").upper()
    if "HBM" in kind:
        return "hbm"
    if "GDDR" in kind:
        return "gddr"
    if "LPDDR" in kind or hw.kind in (HardwareKind.apple_unified, HardwareKind.unified_apu):
        return "lpddr"
    return "unknown"


# Engines that run llama.cpp's kernels share its calibration when they have none of their own.
_SAME_KERNELS = {"ollama": "llama.cpp"}

Fit = TypeVar("Fit", DecodeFit, PrefillFit)


def class_levels(hw_class: str) -> list[str]:
    """The classes a fit for ``hw_class`` is looked up in, most specific first: the class, its
    vendor (``amd-consumer_gpu`` → ``amd``), all hardware (``*``)."""
    return [hw_class, *([hw_class.split("-")[0]] if "-" in hw_class else []), "*"]


_MEMORY_LABELS = {"hbm": "HBM accelerators", "gddr": "GDDR accelerators", "lpddr": "LPDDR and unified memory"}
_KIND_LABELS = {
    "consumer_gpu": "consumer GPUs",
    "workstation_gpu": "workstation GPUs",
    "datacenter_gpu": "datacenter GPUs",
    "unified_apu": "unified-memory APUs",
    "npu": "NPUs",
}
_VENDOR_LABELS = {"nvidia": "NVIDIA", "amd": "AMD", "moore": "Moore Threads", "apple": "Apple silicon"}


def class_label(hw_class: str) -> str:
    """A class in words, for notes and tables: ``nvidia-consumer_gpu`` → "NVIDIA consumer GPUs"."""
    vendor, _, kind = hw_class.partition("-")
    if hw_class == "*":
        return "all hardware"
    if hw_class in _MEMORY_LABELS:
        return _MEMORY_LABELS[hw_class]
    name = _VENDOR_LABELS.get(vendor, vendor.capitalize())
    if kind:
        return f"{name} {_KIND_LABELS.get(kind, kind)}"
    return name if vendor == "apple" else f"all {name} hardware"


def pick(fits: Sequence[Fit], engine: str, hw_class: str) -> tuple[Fit, str]:
    """The fit for ``engine`` on ``hw_class``, and a note saying which was used.

    Tries the class levels of ``class_levels`` for the engine, then for the engine whose kernels it
    shares, then for llama.cpp: the note says so, and pages show it.
    """
    table = {(f.engine, f.hardware_class): f for f in fits}
    levels = class_levels(hw_class)
    tries = [(engine, c) for c in levels]
    base = _SAME_KERNELS.get(engine)
    if base:
        tries += [(base, c) for c in levels]
    tries += [("llama.cpp", c) for c in levels]
    for key in tries:
        if key in table:
            f = table[key]
            source = f.borrowed_from or f.engine
            note = f"{source} on {class_label(f.hardware_class)} ({f.rows} measurements)"
            if source != engine and source != base:
                note += f"; none for {engine} on {class_label(hw_class)}"
            return f, note
    raise LookupError(f"no calibration for {engine} or llama.cpp")


def moe_factor(fits: Sequence[MoEFit], engine: str) -> tuple[float, str]:
    """The share of the dense prefill efficiency a mixture-of-experts model reaches with ``engine``
    (the engine whose kernels it shares, then llama.cpp, when it has no fit), and a note."""
    table = {f.engine: f for f in fits}
    for name in (engine, _SAME_KERNELS.get(engine), "llama.cpp"):
        if name in table:
            f = table[name]
            who = f.borrowed_from or f.engine
            return f.moe_factor, f"× {f.moe_factor:g} for mixture-of-experts models ({who}, {f.rows} measurements)"
    return 1.0, "no mixture-of-experts measurements"


# Device-to-device meshes: a link without measurements takes theirs together. PCIe, Ethernet between
# machines and the rest stand alone (pooling them with the meshes would make either wrong).
_FABRICS = ("nvlink", "xgmi", "hccs", "ub", "mtlink")


def link_levels(link: str) -> list[str]:
    """The link classes a tensor-parallel fit for ``link`` is looked up in: the link, then ``fabric``
    for a mesh."""
    return [link, "fabric"] if link in _FABRICS else [link]


def tp_fit(fits: Sequence[TPFit], engine: str, link: str, moe: bool) -> TPFit | None:
    """The all-reduce time of ``engine`` over ``link`` for a dense or mixture-of-experts model (a mesh
    without measurements: all meshes'); None where it was never measured (the engine's own constant)."""
    table: dict[tuple[str, str, bool], TPFit] = {(f.engine, f.link, f.moe): f for f in fits}
    return next((f for c in link_levels(link) if (f := table.get((engine, c, moe)))), None)


def extrapolated(fit: DecodeFit | PrefillFit, engine: str) -> bool:
    """Whether a picked fit is another engine's or the all-hardware one: no measurement of ``engine``
    on the device's class backs the speed (its range is then the leave-one-class-out one)."""
    return (
        fit.hardware_class == "*"
        or fit.borrowed_from is not None
        or fit.engine not in (engine, _SAME_KERNELS.get(engine))
    )


# The fitted constants, a note saying which fits were used, and whether decode and prefill are
# extrapolated (see ``extrapolated``).
CalibrationPick = tuple[SpeedConstants, str, tuple[bool, bool]]


def calibration_for(facts: Facts, engine: str, hw: Hardware, model: Model) -> CalibrationPick:
    """The fitted speed constants for ``engine`` running ``model`` on ``hw``, a note saying which fits
    were used, and whether each is extrapolated (looked up once per engine, device class and dense or
    MoE model)."""
    # A device with no published peak may have one implied by its chip's measurements: its chip's entry.
    key = (engine, memory_class(hw), hardware_class(hw), model.is_moe, hw.link, hw.compute_tflops or hw.chip)
    found = facts._calibrations.get(key)
    if found is None:
        found = facts._calibrations[key] = _calibration(facts, engine, hw, model)
    return found


def _calibration(facts: Facts, engine: str, hw: Hardware, model: Model) -> CalibrationPick:
    cal = facts.calibration
    if cal is None:
        raise LookupError("no calibration: run `make calibrate`")
    dec, dec_note = pick(cal.decode_fits, engine, memory_class(hw))
    pre, pre_note = pick(cal.prefill_fits, engine, hardware_class(hw))
    efficiency = pre.compute_efficiency
    if model.is_moe:
        factor, moe_note = moe_factor(cal.moe_fits, engine)
        efficiency *= factor
        pre_note += f" {moe_note}"
    tp = tp_fit(cal.tp_fits, engine, hw.link, model.is_moe)
    implied = None if hw.compute_tflops else cal.implied_peak(hw.chip)
    if implied:
        pre_note += f" at the {implied.tflops:g} TFLOPS peak that {implied.rows} prefill measurements of its chip imply"
    constants = SpeedConstants(
        dec.bandwidth_efficiency,
        dec.per_layer_latency_s,
        efficiency,
        tp.allreduce_s if tp else None,
        implied.tflops if implied else None,
    )
    # An implied peak is fitted on its chip's own rows, not across devices: the wide range.
    extrap = (extrapolated(dec, engine), extrapolated(pre, engine) or implied is not None)
    return constants, f"decode: {dec_note}; prefill: {pre_note}", extrap


# What a page, the CLI and the workbench start from when nothing else is chosen.
DEFAULT_FORMAT = "Q4_K_M"
DEFAULT_ENGINE = "llama.cpp"
# The engine that loads each weight-file family when none is named.
FAMILY_ENGINE = {"gguf": "llama.cpp", "safetensors": "vllm", "mlx": "mlx"}


def facts_of(catalog: Catalog) -> Facts:
    """The facts an estimate needs from the catalog besides the model and the hardware (made once per
    catalog, so their indexes and calibration lookups are made once too)."""
    facts = catalog.derived.get("facts")
    if facts is None:
        facts = catalog.derived["facts"] = Facts(
            catalog.assumptions, catalog.calibration, catalog.offers, catalog.api_prices
        )
    assert isinstance(facts, Facts)
    return facts
