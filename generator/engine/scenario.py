"""Inputs of an estimate besides the model and the hardware: the scenario and the world's constants."""

from __future__ import annotations

import dataclasses

from generator.content.schema import (
    ApiPrice,
    Assumptions,
    Calibration,
    CalibrationEntry,
    CloudOffer,
    EngineProfile,
    Hardware,
    HardwareKind,
    KVDtype,
    QuantFormat,
)


@dataclasses.dataclass(frozen=True)
class Scenario:
    """How the model is run: format, context per sequence, sequences, KV dtype, engine, GPUs, offload."""

    fmt: QuantFormat
    kv: KVDtype
    engine: EngineProfile
    context: int
    batch: int = 1
    gpus: int = 1
    offload: float = 0.0

    def __post_init__(self) -> None:
        if self.context < 1:
            raise ValueError(f"context must be at least 1 token, got {self.context}")
        if self.batch < 1:
            raise ValueError(f"batch must be at least 1 sequence, got {self.batch}")
        if self.gpus < 1:
            raise ValueError(f"gpus must be at least 1, got {self.gpus}")
        if not 0.0 <= self.offload <= 1.0:
            raise ValueError(f"offload must be a fraction from 0 to 1, got {self.offload}")

    def with_(self, **changes: object) -> Scenario:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True)
class World:
    """Constants from content/: assumptions, fitted calibration, prices."""

    assumptions: Assumptions
    calibration: Calibration | None
    offers: tuple[CloudOffer, ...] = ()
    api_prices: tuple[ApiPrice, ...] = ()


def hardware_class(hw: Hardware) -> str:
    """Calibration class of an accelerator: apple, apu, npu, or <vendor>-<kind> for GPUs.

    GPU kinds stay apart: GeForce cards run FP16 matmuls with FP16 accumulation at twice the
    datasheet's FP32-accumulate rate, and datacenter parts reach a smaller share of theirs.
    """
    if hw.kind is HardwareKind.apple_unified:
        return "apple"
    if hw.kind is HardwareKind.unified_apu:
        return "apu"
    if hw.kind is HardwareKind.npu:
        return "npu"
    return f"{hw.vendor.lower().split()[0]}-{hw.kind.value}"


# Engines that run llama.cpp's kernels share its calibration when they have none of their own.
_SAME_KERNELS = {"ollama": "llama.cpp"}


def calibration_for(world: World, engine: str, hw_class: str) -> tuple[CalibrationEntry, str]:
    """The fitted constants for ``engine`` on ``hw_class`` and a note saying which were used.

    Falls back, in order, to the engine over all hardware, to the engine whose kernels it shares,
    and to llama.cpp: the note says so, and pages show it.
    """
    if world.calibration is None:
        raise LookupError("no calibration: run `make calibrate`")
    entries = {(e.engine, e.hardware_class): e for e in world.calibration.entries}
    tries = [(engine, hw_class), (engine, "*")]
    base = _SAME_KERNELS.get(engine)
    if base:
        tries += [(base, hw_class), (base, "*")]
    tries += [("llama.cpp", hw_class), ("llama.cpp", "*")]
    for i, key in enumerate(tries):
        if key in entries:
            e = entries[key]
            note = f"{e.engine} on {e.hardware_class} ({e.decode_rows} decode, {e.prefill_rows} prefill measurements)"
            if i > 1 and e.engine != base:
                note += f"; no measurements for {engine} on {hw_class}"
            return e, note
    raise LookupError(f"no calibration entry for {engine} or llama.cpp")
