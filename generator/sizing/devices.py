"""Devices as an engine sees them: a card with several chips (Atlas 300I Duo, MI250X, Ascend 910C)
is several devices, each with its share of the card's memory, bandwidth and compute, joined by the
card's link. The catalog describes the card; the sizing model works on devices."""

from __future__ import annotations

from generator.content.schema import Hardware


def device_view(hw: Hardware) -> Hardware:
    """One device of ``hw``: the whole entry when it has one chip, else a chip's share of its memory,
    bandwidth, TFLOPS, power and price (the card's figures are totals over its chips)."""
    c = hw.chips
    if c == 1:
        return hw

    def share(value: float | None) -> float | None:
        return None if value is None else value / c

    return hw.model_copy(
        update={
            "memory_gib": share(hw.memory_gib),
            "memory_gb": share(hw.memory_gb),
            "gpu_memory_limit_gib": share(hw.gpu_memory_limit_gib),
            "bandwidth_gbps": hw.bandwidth_gbps / c,
            "tflops_bf16": share(hw.tflops_bf16),
            "tflops_fp16": share(hw.tflops_fp16),
            "tflops_fp8": share(hw.tflops_fp8),
            "tops_int8": share(hw.tops_int8),
            "tdp_w": share(hw.tdp_w),
            "prices": tuple(p.model_copy(update={"usd": p.usd / c}) for p in hw.prices),
            "chips": 1,
        }
    )
