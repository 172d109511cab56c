"""The SVG charts of the pages, as coordinates: memory bars and context lines of a pair, decode speed
of a model on every accelerator. Numbers only; the templates draw them."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from generator.sizing.estimate import Estimate

if TYPE_CHECKING:
    from generator.site.pair_page import PairData


@dataclasses.dataclass(frozen=True)
class Segment:
    """One bar of the memory chart, in fractions of the chart's width."""

    key: str
    bytes: int
    x: float
    width: float


# The memory chart's plot area in SVG units, and where its usable-memory label moves left of the mark.
# The browser (static/display.js) redraws it from the same numbers (shared data, parity vectors).
MEMORY_CHART = {"x0": 10.0, "width": 580.0, "flip_at": 300.0}


@dataclasses.dataclass(frozen=True)
class MemoryChart:
    """The memory chart of an estimate: segments, the usable-memory mark and its label's side."""

    segments: tuple[Segment, ...]
    usable_x: float
    label_end: bool


def memory_bars(est: Estimate) -> MemoryChart:
    """Segments of the memory chart (weights, KV cache, runtime) in SVG units, and the usable-memory mark."""
    m = est.memory
    return bars_of(
        {
            "weights_bytes": m.weights_bytes,
            "kv_cache_bytes": m.kv_cache_bytes,
            "overhead_bytes": m.overhead_bytes,
            "total_bytes": m.total_bytes,
            "usable_bytes": m.usable_bytes,
        }
    )


def bars_of(keys: dict[str, int]) -> MemoryChart:
    """The memory chart of a breakdown given as estimate keys (what the browser redraws from)."""
    x0, width = MEMORY_CHART["x0"], MEMORY_CHART["width"]
    parts = [
        ("weights", keys["weights_bytes"]),
        ("kv_cache", keys["kv_cache_bytes"]),
        ("overhead", keys["overhead_bytes"]),
    ]
    scale = max(keys["total_bytes"], keys["usable_bytes"]) or 1
    x = x0
    segs = []
    for key, n in parts:
        w = n / scale * width
        segs.append(Segment(key, n, x, w))
        x += w
    usable = x0 + keys["usable_bytes"] / scale * width
    return MemoryChart(tuple(segs), usable, usable > MEMORY_CHART["flip_at"])


@dataclasses.dataclass(frozen=True)
class Bar:
    """One horizontal bar of the speed chart, in SVG units."""

    label: str
    value: float
    y: float
    label_y: float
    width: float
    text_x: float


@dataclasses.dataclass(frozen=True)
class BarChart:
    """Decode speed per accelerator for one model."""

    bars: tuple[Bar, ...]
    height: float


def speed_chart(pairs: Sequence[PairData]) -> BarChart:
    """Decode tok/s of the default scenario on every accelerator where it fits, fastest first."""
    fits = sorted(
        (p for p in pairs if p.est.memory.verdict != "oom"), key=lambda p: (-p.est.speed.decode_tok_s, p.hardware.slug)
    )
    top = max((p.est.speed.decode_tok_s for p in fits), default=1.0)
    bars = []
    for i, p in enumerate(fits):
        y = 4.0 + i * 22
        w = 340 * p.est.speed.decode_tok_s / top
        bars.append(Bar(p.hardware.name, p.est.speed.decode_tok_s, y, y + 12, w, 200 + w + 6))
    return BarChart(tuple(bars), 8.0 + 22 * max(1, len(bars)))
