"""Fit the speed constants to measured throughput, and measure the error of the fitted engine.

Decode (memory-bound): the time per token is ``bytes_read / (efficiency · bandwidth) + latency``.
For each engine and hardware class, a least-squares line through (bytes/bandwidth, 1/tok_s)
gives 1/efficiency as the slope and the fixed per-token latency as the intercept (clamped at 0;
with fewer than three rows or no spread, the latency is 0 and the efficiency the median ratio).
Prefill (compute-bound): the efficiency is the median of achieved FLOP/s ÷ dense 16-bit peak.
"""

from __future__ import annotations

import dataclasses
import re
import statistics
from collections.abc import Iterable, Mapping, Sequence

from generator.content.schema import CalibrationEntry, Hardware, Model, QuantFormat, Throughput
from generator.engine.kv import kv_read_per_token
from generator.engine.params import count_params
from generator.engine.scenario import hardware_class
from generator.engine.speed import attention_flops, matmul_params
from generator.engine.weights import weight_bytes

GIB = 1024**3


@dataclasses.dataclass(frozen=True)
class Point:
    """One measurement reduced to what the fit needs."""

    row: Throughput
    hardware: Hardware
    engine: str
    hw_class: str
    decode: bool
    x: float  # decode: bytes read per token / bandwidth (s); prefill: FLOPs per token / peak FLOP/s (s)
    y: float  # seconds per token measured


def _bytes_per_token(row: Throughput, model: Model | None, fmt: QuantFormat) -> float | None:
    """Bytes read per decoded token: weights, plus the 16-bit KV cache at the row's context."""
    if model is not None:
        kv = kv_read_per_token(model, 2, row.context, 0.0)
        return float(weight_bytes(count_params(model), fmt).per_token_read) + kv
    if row.size_gib is not None:
        return row.size_gib * GIB
    if row.params is not None:
        return row.params * fmt.bits_per_weight / 8
    return None


def _flops_per_token(row: Throughput, model: Model | None, tokens: int) -> float | None:
    if model is not None:
        params = count_params(model)
        return 2.0 * matmul_params(params) + attention_flops(model, tokens) / tokens
    if row.params is not None:
        return 2.0 * row.params
    return None


def _tokens(test: str) -> int:
    """Prompt tokens of a prefill test: pp512 -> 512, prefill_b1_ctx4096 -> 4096."""
    match = re.search(r"ctx(\d+)$", test) or re.search(r"^pp(\d+)$", test)
    return max(1, int(match.group(1))) if match else 512


def points(
    rows: Iterable[Throughput],
    models: Mapping[str, Model],
    hardware: Mapping[str, Hardware],
    formats: Mapping[str, QuantFormat],
) -> list[Point]:
    """Measurements the fit can use (single GPU, batch 1, known sizes and peaks)."""
    out: list[Point] = []
    for row in rows:
        hw = hardware.get(row.hardware)
        fmt = formats.get(row.quant)
        if hw is None or fmt is None or row.gpus != 1 or row.batch != 1 or row.outlier:
            continue
        model = models.get(row.model) if row.model else None
        if model is None and fmt.moe_only:
            continue  # an MoE outside the catalog: its active bytes per token are unknown
        decode = row.test.startswith(("tg", "decode"))
        if decode:
            b = _bytes_per_token(row, model, fmt)
            if b is None:
                continue
            x = b / (hw.bandwidth_gbps * 1e9)
        else:
            f = _flops_per_token(row, model, _tokens(row.test))
            if f is None or hw.compute_tflops is None:
                continue
            x = f / (hw.compute_tflops * 1e12)
        engine = "llama.cpp" if row.engine == "ollama" else row.engine
        out.append(Point(row, hw, engine, hardware_class(hw), decode, x, 1.0 / row.tok_s))
    return out


def _round(v: float) -> float:
    return float(f"{v:.4g}")


def fit_decode(pts: Sequence[Point]) -> tuple[float, float]:
    """(bandwidth efficiency, per-token latency s) for a set of decode points.

    The slope is kept at 1 or more (no engine reads memory faster than its datasheet bandwidth) and
    the intercept at 0 or more; each bound refits the other parameter.
    """
    xs = [p.x for p in pts]
    ys = [p.y for p in pts]
    if len(pts) >= 3 and max(xs) > 1.5 * min(xs):
        mx = statistics.fmean(xs)
        my = statistics.fmean(ys)
        sxx = sum((x - mx) ** 2 for x in xs)
        slope = max(1.0, sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx)
        intercept = my - slope * mx
        if intercept < 0:
            slope = max(1.0, sum(x * y for x, y in zip(xs, ys, strict=True)) / sum(x * x for x in xs))
            intercept = 0.0
        return _round(1.0 / slope), _round(intercept)
    return _round(min(1.0, statistics.median(x / y for x, y in zip(xs, ys, strict=True)))), 0.0


def fit_prefill(pts: Sequence[Point]) -> float:
    """Compute efficiency (achieved / peak) for a set of prefill points."""
    return _round(statistics.median(p.x / p.y for p in pts))


def calibrate(pts: Sequence[Point]) -> tuple[CalibrationEntry, ...]:
    """One entry per (engine, hardware class) with data, plus an all-hardware entry per engine."""
    groups: dict[tuple[str, str], list[Point]] = {}
    for p in pts:
        groups.setdefault((p.engine, p.hw_class), []).append(p)
        groups.setdefault((p.engine, "*"), []).append(p)
    entries = []
    for (engine, cls), group in sorted(groups.items()):
        dec = [p for p in group if p.decode]
        pre = [p for p in group if not p.decode]
        if not dec and not pre:
            continue
        # No data for this class: the engine over all hardware; no data for the engine: every engine.
        engine_all = groups[(engine, "*")]
        dec_fit = dec or [p for p in engine_all if p.decode] or [p for p in pts if p.decode]
        pre_fit = pre or [p for p in engine_all if not p.decode] or [p for p in pts if not p.decode]
        eff, lat = fit_decode(dec_fit)
        comp = fit_prefill(pre_fit)
        entries.append(
            CalibrationEntry(
                engine=engine,  # type: ignore[arg-type]
                hardware_class=cls,
                bandwidth_efficiency=eff,
                per_token_latency_s=lat,
                compute_efficiency=min(comp, 1.0),
                decode_rows=len(dec),
                prefill_rows=len(pre),
            )
        )
    return tuple(entries)


def predict(p: Point, entry: CalibrationEntry) -> float:
    """Predicted tokens per second for one point under fitted constants."""
    if p.decode:
        return 1.0 / (p.x / entry.bandwidth_efficiency + entry.per_token_latency_s)
    return entry.compute_efficiency / p.x


def abs_errors(pts: Sequence[Point], entries: Sequence[CalibrationEntry]) -> tuple[list[float], list[float]]:
    """|predicted − measured| / measured for every decode and prefill point (in-sample)."""
    table: dict[tuple[str, str], CalibrationEntry] = {(e.engine, e.hardware_class): e for e in entries}
    dec: list[float] = []
    pre: list[float] = []
    for p in pts:
        entry = table.get((p.engine, p.hw_class)) or table[(p.engine, "*")]
        measured = p.row.tok_s
        err = abs(predict(p, entry) - measured) / measured
        (dec if p.decode else pre).append(err)
    return dec, pre
