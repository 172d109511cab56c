"""Fit the speed constants to measured throughput, and measure the error of the fitted engine.

Decode (memory-bound): the time per token is ``bytes_read / (efficiency · bandwidth) + layers ·
latency``. For each engine and memory technology (HBM, GDDR, LPDDR), least squares of 1/tok_s on
bytes/bandwidth and the layer count give 1/efficiency and the latency per layer (efficiency at most
1, latency at least 0; with fewer than three rows, the latency is 0 and the efficiency the median
ratio). Prefill: the time per pass of ``batch_tokens`` is the FLOPs at ``efficiency · peak``, plus
the weights read at the decode fit's bandwidth, plus its latency per layer
(``speed.prompt_seconds``). Per engine and compute class (vendor and kind, then vendor, then all
hardware), the compute efficiency of dense models is the median of FLOPs ÷ (peak × the time left once
the weights and latency are taken out). Mixture-of-experts models reach a share of that: one factor
per engine, the median over their measurements of what they reached ÷ their class's dense efficiency.

Only rows whose architecture is in the catalog are used: the bytes, FLOPs and layers come from it.
"""

from __future__ import annotations

import dataclasses
import math
import re
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar, cast

from generator.content.schema import (
    Calibration,
    DecodeFit,
    EngineError,
    EngineName,
    EngineProfile,
    ErrorSummary,
    Hardware,
    ImpliedPeak,
    LinkClass,
    Model,
    MoEFit,
    PrefillFit,
    QuantFormat,
    RangeSummary,
    Throughput,
    TPFit,
)
from generator.sizing.kv import kv_read_per_token, state_bytes_per_seq
from generator.sizing.params import count_params
from generator.sizing.scenario import (
    class_levels,
    hardware_class,
    link_levels,
    memory_class,
    moe_factor,
    pick,
    tp_fit,
)
from generator.sizing.speed import attention_flops, matmul_params, prompt_seconds
from generator.sizing.weights import weight_bytes

GIB = 1024**3


@dataclasses.dataclass(frozen=True)
class Point:
    """One measurement reduced to what the fit needs."""

    row: Throughput
    model: Model  # the catalog architecture the row was measured on
    hardware: Hardware
    engine: str
    hw_class: str  # decode: memory technology; prefill: compute class
    decode: bool
    x: float  # decode: bytes read per token / bandwidth (s); prefill: FLOPs per token / peak FLOP/s (s)
    y: float  # seconds per token measured
    w: float = 0.0  # prefill: weight bytes read per token (once per pass) / bandwidth (s)
    passes: float = 0.0  # prefill: forward passes per token, ceil(tokens / batch_tokens) / tokens


def _bytes_per_token(row: Throughput, model: Model, fmt: QuantFormat, engine: EngineProfile) -> float:
    """Bytes read per decoded token: weights, plus the 16-bit KV cache at the row's context and any
    recurrent state."""
    kv = kv_read_per_token(model, 2, row.context, state_bytes_per_seq(model, engine))
    return float(weight_bytes(count_params(model), fmt).per_token_read) + kv


def _flops_per_token(model: Model, tokens: int) -> float:
    params = count_params(model)
    return 2.0 * matmul_params(params) + attention_flops(model, tokens) / tokens


def prompt_tokens(test: str) -> int:
    """Prompt tokens of a prefill test: pp512 -> 512, prefill_b1_ctx4096 -> 4096."""
    match = re.search(r"ctx(\d+)$", test) or re.search(r"^pp(\d+)$", test)
    return max(1, int(match.group(1))) if match else 512


def _measured_on(
    row: Throughput, models: Mapping[str, Model], hardware: Mapping[str, Hardware], formats: Mapping[str, QuantFormat]
) -> tuple[Hardware, QuantFormat, Model, str] | None:
    """The catalog accelerator, format and architecture of a one-sequence row that is not an outlier, and
    the engine that ran it (Ollama runs llama.cpp); None when the row is not of that kind."""
    hw = hardware.get(row.hardware)
    fmt = formats.get(row.quant)
    model = models.get(row.model) if row.model else None
    if hw is None or fmt is None or model is None or row.batch != 1 or row.outlier:
        return None
    return hw, fmt, model, "llama.cpp" if row.engine == "ollama" else row.engine


def points(
    rows: Iterable[Throughput],
    models: Mapping[str, Model],
    hardware: Mapping[str, Hardware],
    formats: Mapping[str, QuantFormat],
    engines: Mapping[str, EngineProfile],
    *,
    tensor_parallel: bool = False,
) -> list[Point]:
    """Measurements the fit can use: one device (or, with ``tensor_parallel``, one sequence decoding
    over several in tensor parallel), batch 1, a catalog architecture, a known peak."""
    out: list[Point] = []
    for row in rows:
        found = _measured_on(row, models, hardware, formats)
        if found is None or tensor_parallel != (row.gpus > 1):
            continue
        if tensor_parallel and (engines[row.engine].split != "tensor" or not row.test.startswith("decode")):
            continue
        hw, fmt, model, engine = found
        bandwidth = hw.bandwidth_gbps * 1e9
        if row.test.startswith(("tg", "decode")):
            x = _bytes_per_token(row, model, fmt, engines[engine]) / bandwidth
            out.append(Point(row, model, hw, engine, memory_class(hw), True, x, 1.0 / row.tok_s))
        elif hw.compute_tflops is not None:
            out.append(_prefill_point(row, model, hw, engine, fmt, engines[engine], hw.compute_tflops))
    return out


def _prefill_point(
    row: Throughput, model: Model, hw: Hardware, engine: str, fmt: QuantFormat, profile: EngineProfile, tflops: float
) -> Point:
    """A prefill measurement against a peak of ``tflops``."""
    tokens = prompt_tokens(row.test)
    passes = math.ceil(tokens / profile.batch_tokens)
    x = _flops_per_token(model, tokens) / (tflops * 1e12)
    read = passes * weight_bytes(count_params(model), fmt).per_pass_read / (hw.bandwidth_gbps * 1e9) / tokens
    return Point(row, model, hw, engine, hardware_class(hw), False, x, 1.0 / row.tok_s, read, passes / tokens)


def unrated_points(
    rows: Iterable[Throughput],
    models: Mapping[str, Model],
    hardware: Mapping[str, Hardware],
    formats: Mapping[str, QuantFormat],
    engines: Mapping[str, EngineProfile],
    peaks: Mapping[str, float] | None = None,
) -> list[Point]:
    """One-device prefill measurements on accelerators with no published dense 16-bit peak, against the
    peak in ``peaks`` (by chip, ``Hardware.chip``; 1 TFLOPS where it has none, so x is in seconds at 1
    TFLOPS)."""
    out = []
    for row in rows:
        found = _measured_on(row, models, hardware, formats)
        if found is None or row.gpus != 1 or row.test.startswith(("tg", "decode")):
            continue
        hw, fmt, model, engine = found
        if hw.compute_tflops is not None:
            continue
        peak = (peaks or {}).get(hw.chip, 1.0)
        out.append(_prefill_point(row, model, hw, engine, fmt, engines[engine], peak))
    return out


def implied_peaks(pts: Sequence[Point], fits: Fits) -> list[ImpliedPeak]:
    """For each chip of ``pts`` (``unrated_points`` at 1 TFLOPS; an entry and those built on the same chip
    together, under the entry that names the chip), the peak at which the fitted
    efficiency of its engine and class (times the MoE factor for a mixture of experts) gives what each row
    measured, once the weight reads and the latency are taken out; the median over its rows. Rows whose
    time is all weight reads and latency say nothing of compute."""
    implied: dict[str, list[float]] = {}
    for p in pts:
        left = p.y - _prefill_seconds(p, math.inf, fits.decode)
        if left <= 0:
            continue
        efficiency = _dense(p, fits.prefill) * (moe_factor(fits.moe, p.engine)[0] if p.model.is_moe else 1.0)
        implied.setdefault(p.hardware.chip, []).append(p.x / left / efficiency)
    return [
        ImpliedPeak(hardware=slug, tflops=_round(statistics.median(v)), rows=len(v))
        for slug, v in sorted(implied.items())
    ]


def implied_held_out(pts: Sequence[Point], fits: Fits) -> list[tuple[Point, float]]:
    """Each point of ``pts`` (``unrated_points`` at 1 TFLOPS) with its predicted tokens per second at the
    peak implied by the other rows of its chip; a chip's only row has none to be predicted from."""
    out = []
    for i, p in enumerate(pts):
        others = [q for j, q in enumerate(pts) if j != i and q.hardware.chip == p.hardware.chip]
        peak = next(iter(implied_peaks(others, fits)), None)
        if peak is not None:
            out.append((p, predict(dataclasses.replace(p, x=p.x / peak.tflops), fits)))
    return out


def _round(v: float) -> float:
    return float(f"{v:.4g}")


def fit_decode(pts: Sequence[Point]) -> tuple[float, float]:
    """(bandwidth efficiency, latency per layer in s) for a set of decode points.

    Least squares of y on x and the layer count, without an intercept. The slope on x is kept at 1
    or more (no engine reads memory faster than its datasheet bandwidth) and the latency at 0 or
    more; each bound refits the other parameter.
    """
    xs = [p.x for p in pts]
    ys = [p.y for p in pts]
    ls = [float(p.model.architecture.num_layers) for p in pts]
    sxx = sum(x * x for x in xs)
    sll = sum(v * v for v in ls)
    sxl = sum(x * v for x, v in zip(xs, ls, strict=True))
    sxy = sum(x * y for x, y in zip(xs, ys, strict=True))
    sly = sum(v * y for v, y in zip(ls, ys, strict=True))
    det = sxx * sll - sxl * sxl
    if len(pts) < 3 or det <= 1e-12 * sxx * sll:
        return _round(min(1.0, statistics.median(x / y for x, y in zip(xs, ys, strict=True)))), 0.0
    slope = (sxy * sll - sly * sxl) / det
    latency = (sxx * sly - sxl * sxy) / det
    if slope < 1.0:
        slope, latency = 1.0, max(0.0, (sly - sxl) / sll)
    if latency < 0.0:
        slope, latency = max(1.0, sxy / sxx), 0.0
    return _round(1.0 / slope), _round(latency)


def _prefill_seconds(p: Point, compute_efficiency: float, decode: Sequence[DecodeFit]) -> float:
    """Predicted seconds per prompt token: the site's ``prompt_seconds`` with the decode fit of the
    point's memory for the weights and the latency."""
    d, _ = pick(decode, p.engine, memory_class(p.hardware))
    latency = p.model.architecture.num_layers * d.per_layer_latency_s
    return prompt_seconds(p.x / compute_efficiency, p.w / d.bandwidth_efficiency, p.passes, latency)


def _achieved(p: Point, decode: Sequence[DecodeFit]) -> float:
    """Share of the peak a prefill point reached once the time to read the weights and the latency
    (at ``decode``'s constants) are taken out of the measurement."""
    left = p.y - _prefill_seconds(p, math.inf, decode)
    return p.x / left if left > 0 else 1.0


def fit_prefill(pts: Sequence[Point], decode: Sequence[DecodeFit]) -> float:
    """Compute efficiency (achieved / peak) for a set of dense-model prefill points."""
    return _round(min(1.0, statistics.median(_achieved(p, decode) for p in pts)))


def fit_moe(pts: Sequence[Point], decode: Sequence[DecodeFit], prefill: Sequence[PrefillFit]) -> float:
    """Share of its class's dense efficiency a mixture-of-experts point reached, median over ``pts``."""
    return _round(min(1.0, statistics.median(_achieved(p, decode) / _dense(p, prefill) for p in pts)))


def _dense(p: Point, prefill: Sequence[PrefillFit]) -> float:
    f, _ = pick(prefill, p.engine, p.hw_class)
    return f.compute_efficiency


@dataclasses.dataclass(frozen=True)
class Fits:
    """Everything a fit produces: decode and prefill constants."""

    decode: tuple[DecodeFit, ...]
    prefill: tuple[PrefillFit, ...]
    moe: tuple[MoEFit, ...]

    @classmethod
    def committed(cls, cal: Calibration) -> Fits:
        """The constants of content/calibration.yaml, the ones every page uses."""
        return cls(cal.decode_fits, cal.prefill_fits, cal.moe_fits)


def _groups(pts: Sequence[Point]) -> dict[tuple[str, str], list[Point]]:
    """Points by engine and each level of their class: the class, its vendor, all hardware ("*")."""
    groups: dict[tuple[str, str], list[Point]] = {}
    for p in pts:
        for level in class_levels(p.hw_class):
            groups.setdefault((p.engine, level), []).append(p)
    return groups


def _enough_devices(group: Sequence[Point]) -> bool:
    """Whether a decode group may make a fit: two devices or more, or one device's quirks would speak
    for a whole memory technology (the H20 and the MI300X each reach about a third of their bandwidth
    where other HBM parts reach two thirds)."""
    return len({p.row.hardware for p in group}) >= 2


def kin_of(engines: Iterable[EngineProfile]) -> dict[str, str]:
    """Each engine that takes another's speeds where it has no fit (``speed_from``), and whose."""
    return {e.name: e.speed_from.engine for e in engines if e.speed_from is not None}


FitT = TypeVar("FitT", bound=DecodeFit | PrefillFit | MoEFit | TPFit)


def _borrow(fits: Sequence[FitT], kin: Mapping[str, str], key: Callable[[FitT], tuple[str, ...]]) -> list[FitT]:
    """``fits`` plus, for each engine with kin, a copy of each of its kin's fits where it has none of
    its own for that class, marked borrowed."""
    have = {(own.engine, *key(own)) for own in fits}
    out = list(fits)
    for engine, source in sorted(kin.items()):
        for fit in fits:
            if fit.engine == source and (engine, *key(fit)) not in have:
                out.append(cast(FitT, fit.model_copy(update={"engine": engine, "borrowed_from": source})))
    return out


def _by_class(f: DecodeFit | PrefillFit) -> tuple[str, ...]:
    return (f.hardware_class,)


def _per_engine(_: MoEFit) -> tuple[str, ...]:
    return ()


def calibrate(pts: Sequence[Point], kin: Mapping[str, str]) -> Fits:
    """One decode fit per (engine, memory class) with measurements on two devices or more and one
    prefill fit per (engine, compute class) with measurements, plus a fit per vendor and one over all
    hardware per engine; the prefill fits come from dense models, and one factor per engine scales them
    for mixture-of-experts models. An engine with kin (``kin_of``) takes its kin's fit for each class it
    has none of its own for."""
    decode = []
    for (engine, cls), group in sorted(_groups([p for p in pts if p.decode]).items()):
        if not _enough_devices(group):
            continue
        eff, lat = fit_decode(group)
        decode.append(
            DecodeFit(
                engine=cast(EngineName, engine),
                hardware_class=cls,
                bandwidth_efficiency=eff,
                per_layer_latency_s=lat,
                rows=len(group),
            )
        )
    prefill = []
    for (engine, cls), group in sorted(_groups([p for p in pts if not p.decode and not p.model.is_moe]).items()):
        prefill.append(
            PrefillFit(
                engine=cast(EngineName, engine),
                hardware_class=cls,
                compute_efficiency=fit_prefill(group, decode),
                rows=len(group),
            )
        )
    moe_pts: dict[str, list[Point]] = {}
    for p in pts:
        if not p.decode and p.model.is_moe:
            moe_pts.setdefault(p.engine, []).append(p)
    moe = [  # a factor relative to the engine's own dense fits only
        MoEFit(engine=cast(EngineName, engine), moe_factor=fit_moe(group, decode, prefill), rows=len(group))
        for engine, group in sorted(moe_pts.items())
        if any(f.engine == engine for f in prefill)
    ]
    return Fits(
        tuple(_borrow(decode, kin, _by_class)),
        tuple(_borrow(prefill, kin, _by_class)),
        tuple(_borrow(moe, kin, _per_engine)),
    )


def _tp_seconds(
    p: Point, decode: Sequence[DecodeFit], engines: Mapping[str, EngineProfile], allreduce_s: float
) -> float:
    """Predicted seconds per token of a tensor-parallel point: the single-device fit's reads spread over
    its devices, its latency per layer, and two all-reduces of ``allreduce_s`` per layer."""
    d, _ = pick(decode, p.engine, p.hw_class)
    layers = p.model.architecture.num_layers
    parallel = p.row.gpus * engines[p.engine].tensor_parallel_efficiency
    return p.x / (d.bandwidth_efficiency * parallel) + layers * (d.per_layer_latency_s + 2 * allreduce_s)


def _tp_residual(p: Point, decode: Sequence[DecodeFit], engines: Mapping[str, EngineProfile]) -> float:
    """Seconds per all-reduce that a tensor-parallel point leaves once the rest of its step is taken out."""
    return (p.y - _tp_seconds(p, decode, engines, 0.0)) / (2 * p.model.architecture.num_layers)


def fit_tp(
    pts: Sequence[Point], decode: Sequence[DecodeFit], engines: Mapping[str, EngineProfile], kin: Mapping[str, str]
) -> tuple[TPFit, ...]:
    """One all-reduce time per engine, link and dense or mixture-of-experts model, and per engine over all
    meshes (``link_levels``): the median of what the tensor-parallel points leave (at least 0); an engine
    with kin takes its kin's where it has none of its own."""
    groups: dict[tuple[str, str, bool], list[Point]] = {}
    for p in pts:
        for link in link_levels(p.hardware.link):
            groups.setdefault((p.engine, link, bool(p.model.is_moe)), []).append(p)
    fits = [
        TPFit(
            engine=cast(EngineName, engine),
            link=cast(LinkClass, link),
            moe=moe,
            allreduce_s=_round(max(0.0, statistics.median(_tp_residual(p, decode, engines) for p in group))),
            rows=len(group),
            hardware=len({p.row.hardware for p in group}),
        )
        for (engine, link, moe), group in sorted(groups.items())
    ]
    return tuple(_borrow(fits, kin, _by_link))


def _by_link(f: TPFit) -> tuple[str, ...]:
    return (f.link, str(f.moe))


def tp_held_out(
    pts: Sequence[Point], decode: Sequence[DecodeFit], engines: Mapping[str, EngineProfile], kin: Mapping[str, str]
) -> list[tuple[Point, float]]:
    """Each tensor-parallel point with its predicted tokens per second from all-reduce fits made without
    its hardware entry (the engine's own constant where nothing else was measured)."""
    out = []
    for hardware in sorted({p.row.hardware for p in pts}):
        fits = fit_tp([p for p in pts if p.row.hardware != hardware], decode, engines, kin)
        for p in pts:
            if p.row.hardware != hardware:
                continue
            fit = tp_fit(fits, p.engine, p.hardware.link, bool(p.model.is_moe))
            allreduce = fit.allreduce_s if fit else engines[p.engine].allreduce_latency_s
            out.append((p, 1.0 / _tp_seconds(p, decode, engines, allreduce)))
    return out


def range_summary(preds: Sequence[tuple[Point, float]]) -> RangeSummary | None:
    """Median |error| and the 10th-90th percentile range of measured ÷ predicted of held-out
    predictions (tensor parallel, implied peaks)."""
    ratios = sorted(p.row.tok_s / predicted for p, predicted in preds)
    if len(ratios) < 2:
        return None
    cuts = statistics.quantiles(ratios, n=10, method="inclusive")
    return RangeSummary(
        rows=len(ratios),
        hardware=len({p.row.hardware for p, _ in preds}),
        median_error=round(statistics.median(abs(1 / r - 1) for r in ratios), 4),
        ratio_low=_round(cuts[0]),
        ratio_high=_round(cuts[-1]),
    )


def predict(p: Point, fits: Fits) -> float:
    """Predicted tokens per second for one point under fitted constants, picked as the site does."""
    if p.decode:
        d, _ = pick(fits.decode, p.engine, p.hw_class)
        return 1.0 / (p.x / d.bandwidth_efficiency + p.model.architecture.num_layers * d.per_layer_latency_s)
    efficiency = _dense(p, fits.prefill) * (moe_factor(fits.moe, p.engine)[0] if p.model.is_moe else 1.0)
    return 1.0 / _prefill_seconds(p, efficiency, fits.decode)


@dataclasses.dataclass(frozen=True)
class Prediction:
    """One measurement and what the engine predicts for it."""

    point: Point
    predicted: float

    @property
    def measured(self) -> float:
        return self.point.row.tok_s

    @property
    def ratio(self) -> float:
        """Measured ÷ predicted: above 1 the engine was pessimistic."""
        return self.measured / self.predicted

    @property
    def signed_error(self) -> float:
        """(predicted − measured) / measured: positive when the engine was optimistic."""
        return (self.predicted - self.measured) / self.measured

    @property
    def error(self) -> float:
        """|predicted − measured| / measured."""
        return abs(self.signed_error)


def predictions(pts: Sequence[Point], fits: Fits) -> list[Prediction]:
    """Each point predicted with the fits the site would use for its engine and hardware."""
    return [Prediction(p, predict(p, fits)) for p in pts]


def hardware_key(p: Point) -> str:
    return p.row.hardware


def model_key(p: Point) -> str:
    return p.model.slug


def class_key(p: Point) -> str:
    """The engine × device class a point backs: decode by memory technology, prefill by vendor (what
    a speed falls back from when its class has no measurements, see scenario.pick)."""
    return f"{p.engine}|{p.hw_class.split('-')[0]}"


def held_out(pts: Sequence[Point], key: Callable[[Point], str], kin: Mapping[str, str]) -> list[Prediction]:
    """Out-of-sample predictions: each group's points predicted by a fit made without that group
    (a point nothing else can predict, e.g. the only measurement of its kind, is left out)."""
    out: list[Prediction] = []
    for group in sorted({key(p) for p in pts}):
        try:
            fits = calibrate([p for p in pts if key(p) != group], kin)
        except LookupError:  # too few devices left for any decode fit
            continue
        for p in pts:
            if key(p) == group:
                try:
                    out.append(Prediction(p, predict(p, fits)))
                except LookupError:
                    continue
    return out


def _median_error(preds: Iterable[Prediction], decode: bool) -> float:
    errors = [p.error for p in preds if p.point.decode == decode]
    return round(statistics.median(errors), 4) if errors else 0.0


def summaries(
    pts: Sequence[Point], fits: Fits, kin: Mapping[str, str]
) -> tuple[ErrorSummary | None, ErrorSummary | None, tuple[EngineError, ...]]:
    """The decode and the prefill summary, and each engine's held-out errors, from one pass of each
    held-out fit."""
    held = {
        "hardware": held_out(pts, hardware_key, kin),
        "model": held_out(pts, model_key, kin),
        "class": held_out(pts, class_key, kin),
    }
    by_engine = tuple(
        EngineError(
            engine=cast(EngineName, engine),
            kind="decode" if decode else "prefill",
            rows=len(mine),
            hardware=len({hardware_key(p) for p in mine}),
            leave_one_hardware_out=_median_error([p for p in held["hardware"] if p.point.engine == engine], decode),
            leave_one_model_out=_median_error([p for p in held["model"] if p.point.engine == engine], decode),
        )
        for decode in (True, False)
        for engine in sorted({p.engine for p in pts})
        if (mine := [p for p in pts if p.engine == engine and p.decode == decode])
    )
    return _summarize(pts, fits, held, True), _summarize(pts, fits, held, False), by_engine


def _cuts(preds: Sequence[Prediction], decode: bool) -> tuple[float, float] | None:
    """The 10th and 90th percentiles of measured ÷ predicted over held-out predictions of one kind."""
    ratios = sorted(p.ratio for p in preds if p.point.decode == decode)
    if len(ratios) < 2:
        return None
    cuts = statistics.quantiles(ratios, n=10, method="inclusive")
    return _round(cuts[0]), _round(cuts[-1])


def _summarize(
    pts: Sequence[Point], fits: Fits, held: Mapping[str, Sequence[Prediction]], decode: bool
) -> ErrorSummary | None:
    """In-sample and held-out errors of one kind, and the out-of-sample ranges of measured ÷ predicted
    (held-out hardware; held-out engine × class, for speeds the site extrapolates)."""
    mine = [p for p in pts if p.decode == decode]
    if len(mine) < 2:
        return None
    measured, extrapolated = _cuts(held["hardware"], decode), _cuts(held["class"], decode)
    if measured is None:
        return None
    # A range for extrapolated speeds is never narrower than the measured one.
    wide = (min(extrapolated[0], measured[0]), max(extrapolated[1], measured[1])) if extrapolated else measured
    return ErrorSummary(
        rows=len(mine),
        hardware=len({hardware_key(p) for p in mine}),
        models=len({model_key(p) for p in mine}),
        in_sample=_median_error(predictions(mine, fits), decode),
        leave_one_hardware_out=_median_error(held["hardware"], decode),
        leave_one_model_out=_median_error(held["model"], decode),
        ratio_low=measured[0],
        ratio_high=measured[1],
        leave_one_class_out=_median_error(held["class"], decode),
        extrapolated_low=wide[0],
        extrapolated_high=wide[1],
    )


def abs_errors(pts: Sequence[Point], fits: Fits) -> tuple[list[float], list[float]]:
    """|predicted − measured| / measured for every decode and prefill point (in-sample)."""
    preds = predictions(pts, fits)
    return [p.error for p in preds if p.point.decode], [p.error for p in preds if not p.point.decode]
