"""The SVG charts of the pages, as coordinates: memory bars of a pair, price against decode speed of a
model's setups. Numbers only; the templates (and static/display.js in the browser) draw them."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from generator.site.i18n import NumberFormat


@dataclasses.dataclass(frozen=True)
class Segment:
    """One bar of the memory chart, in fractions of the chart's width."""

    key: str
    bytes: int
    x: float
    width: float


# The memory chart's plot area in SVG units (a 360-unit chart, so 12-unit text stays at least 11 CSS px
# on a 375 px phone), where its usable-memory label moves left of the mark, and how wide a segment must
# be to carry its size. The browser (static/display.js) redraws it from the same numbers (shared data,
# parity vectors).
MEMORY_CHART = {"x0": 6.0, "width": 348.0, "flip_at": 180.0, "label_min": 64.0}


@dataclasses.dataclass(frozen=True)
class MemoryChart:
    """The memory chart of an estimate: segments, the usable-memory mark and its label's side."""

    segments: tuple[Segment, ...]
    usable_x: float
    label_end: bool


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


# The price-against-speed chart, in SVG units: small enough that 12-unit text stays at least 11 CSS px
# on a 375 px phone, and capped in width by the style sheet on wide screens (static/site.css .value).
VALUE_CHART = {"width": 360, "height": 250, "left": 46, "right": 20, "top": 26, "bottom": 40}


@dataclasses.dataclass(frozen=True)
class Point:
    """One setup on the price-against-speed chart; ``frontier`` is its 1-based place on the frontier
    (cheapest first), 0 when a cheaper setup is at least as fast."""

    label: str
    usd: float
    tok_s: float
    x: float
    y: float
    frontier: int


@dataclasses.dataclass(frozen=True)
class Tick:
    """An axis tick: its value (for the price axis, ``k`` for 10^k and ``k.5`` for 3 × 10^k, the keys of
    :func:`price_tick_labels`) and its position along the axis, in SVG units."""

    value: float
    pos: float


@dataclasses.dataclass(frozen=True)
class ValueChart:
    """Price (log scale) against decode speed, with the frontier: the setups no cheaper one matches."""

    points: tuple[Point, ...]
    frontier: tuple[Point, ...]
    path: str
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    # The plot's box: left, right, bottom and top edges in SVG units (the axis labels sit along them).
    box: tuple[float, float, float, float]
    y_digits: int  # decimals of the speed ticks


def _y_scale(top: float) -> tuple[float, float]:
    """The axis top and tick step for speeds up to ``top``: the smallest 1, 2 or 5 × 10^k at or above it,
    in steps of a fifth, a quarter or a fifth of it."""
    k = math.floor(math.log10(top))
    for m, parts in ((1, 5), (2, 4), (5, 5), (10, 5)):
        if m * 10**k >= top:
            return m * 10**k, m * 10**k / parts
    raise AssertionError(top)  # unreachable: 10 × 10^k > top


def value_chart(setups: Sequence[tuple[str, float, float]]) -> ValueChart | None:
    """The chart of ``(label, price, tok/s)`` setups with a positive price; None when there are none.

    Prices on a log scale with ticks at 1 and 3 × 10^k; speeds from 0 with 4 or 5 ticks. Coordinates are
    not rounded (the templates print one decimal). ``static/display.js`` ``valueChart`` is the same code
    (the parity vectors check it)."""
    pts = sorted((s for s in setups if s[1] > 0 and s[2] > 0), key=lambda s: (s[1], -s[2], s[0]))
    if not pts:
        return None
    c = VALUE_CHART
    x0, x1 = c["left"], c["width"] - c["right"]
    y0, y1 = c["height"] - c["bottom"], c["top"]
    lo = math.floor(math.log10(pts[0][1]))
    hi = max(lo + 1, math.ceil(math.log10(max(p[1] for p in pts))))
    top, step = _y_scale(max(p[2] for p in pts))

    def px(usd: float) -> float:
        return x0 + (math.log10(usd) - lo) / (hi - lo) * (x1 - x0)

    def py(tok_s: float) -> float:
        return y0 + tok_s / top * (y1 - y0)

    points = []
    best = 0.0
    rank = 0
    for label, usd, tok_s in pts:
        on = tok_s > best
        if on:
            best = tok_s
            rank += 1
        points.append(Point(label, usd, tok_s, px(usd), py(tok_s), rank if on else 0))
    frontier = tuple(p for p in points if p.frontier)
    x_ticks = tuple(Tick(float(k), px(10.0**k)) for k in range(lo, hi + 1))
    x_ticks += tuple(Tick(k + 0.5, px(3 * 10.0**k)) for k in range(lo, hi))
    n = round(top / step)
    y_ticks = tuple(Tick(step * i, py(step * i)) for i in range(n + 1))
    path = " ".join(f"{p.x:.1f},{p.y:.1f}" for p in frontier)
    return ValueChart(tuple(points), frontier, path, x_ticks, y_ticks, (x0, x1, y0, y1), 1 if step < 1 else 0)


def price_tick_labels(fmt: NumberFormat) -> dict[str, str]:
    """The price axis' tick labels, keyed as its ticks are: ``k`` for 10^k and ``k.5`` for 3 × 10^k (the
    browser's charts take them from here, so both sides print the same words)."""
    out = {}
    # Prices from $0.01 to $10^8 (the bounds of schema.Price.usd): the axis may end a power of ten above.
    for k in range(-2, 10):
        for key, value in ((float(k), float(f"1e{k}")), (k + 0.5, float(f"3e{k}"))):
            out[f"{key:g}"] = fmt.compact(value, 2 if value < 0.1 else 1)
    return out
