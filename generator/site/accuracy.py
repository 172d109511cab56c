"""The accuracy page's numbers: predicted against measured speeds out of sample, errors by group,
weight-file sizes and KV buffers against what real files and engine logs show."""

from __future__ import annotations

import dataclasses
import math
import re
import statistics
from collections.abc import Callable, Sequence

from generator.content.catalog import Catalog
from generator.content.schema import ErrorSummary, RangeSummary, Throughput
from generator.sizing.accuracy import KVCheck, SizeCheck, kv_checks, median_abs, size_checks, worst_abs
from generator.sizing.calibrate import (
    Fits,
    Prediction,
    calibrate,
    fit_tp,
    hardware_key,
    held_out,
    kin_of,
    model_key,
    points,
    predictions,
)
from generator.sizing.estimate import ScenarioError, estimate
from generator.sizing.scenario import Facts, Scenario, class_label


@dataclasses.dataclass(frozen=True)
class ErrorRow:
    """Median |error| of one group of measurements, in sample and held out."""

    label: str
    kind: str  # decode | prefill
    rows: int
    in_sample: float
    by_hardware: float | None
    by_model: float | None


@dataclasses.dataclass(frozen=True)
class MeasuredRow:
    """One measurement with its out-of-sample prediction (leave its hardware entry out)."""

    prediction: Prediction
    hardware_name: str
    model_label: str

    @property
    def row(self) -> Throughput:
        return self.prediction.point.row


@dataclasses.dataclass(frozen=True)
class Scatter:
    """Log-log scatter of measured (y) against predicted (x) tokens per second, in SVG units."""

    points: tuple[tuple[float, float, str, str], ...]  # (x, y, kind, title)
    ticks: tuple[tuple[float, float, int], ...]  # (x, y, tok/s): the same decades on both axes
    # A 360-unit square plot, drawn at most 30rem wide (site.css): 12-unit text is 11–16 CSS px from a
    # 375 px phone to a desktop.
    left: float = 56.0
    right: float = 334.0
    top: float = 14.0
    bottom: float = 292.0
    width: int = 360
    height: int = 328

    @property
    def plot_width(self) -> float:
        return self.right - self.left

    @property
    def plot_height(self) -> float:
        return self.bottom - self.top

    @property
    def label_y(self) -> float:
        """Baseline of the tick labels under the plot."""
        return self.bottom + 16

    @property
    def axis_label_x(self) -> float:
        """Right edge of the tick labels left of the plot."""
        return self.left - 4

    @property
    def title_x(self) -> float:
        return (self.left + self.right) / 2

    @property
    def title_y(self) -> float:
        return self.height - 6


@dataclasses.dataclass(frozen=True)
class BatchedCheck:
    """A decode speed measured per sequence with several sequences at once or on several devices,
    against the engine's at that concurrency, context and device count. Out of sample: the calibration
    fits single-sequence, single-device rows, and tensor-parallel speeds use all-reduce fits made without
    the row's hardware entry."""

    row: Throughput
    hardware_name: str
    model_name: str
    vendor: str
    predicted: float

    @property
    def error(self) -> float:
        """Predicted ÷ measured − 1."""
        return self.predicted / self.row.tok_s - 1


@dataclasses.dataclass(frozen=True)
class BatchedRow:
    """Median |error| of the batched checks of one engine on one vendor's accelerators, on one device or
    split over several (tensor parallel)."""

    engine: str
    vendor: str
    several: bool
    rows: int
    median: float
    signed: float


def _without_hardware_tp(catalog: Catalog) -> Callable[[str], Facts]:
    """The facts to predict a row of one hardware entry with: the committed calibration with its
    tensor-parallel fits refitted without that entry's rows (each made once)."""
    cal = catalog.calibration
    assert cal is not None
    kin = kin_of(catalog.engines.values())
    tp_pts = points(
        catalog.throughput, catalog.models, catalog.hardware, catalog.formats, catalog.engines, tensor_parallel=True
    )
    made: dict[str, Facts] = {}

    def facts_for(hardware: str) -> Facts:
        if hardware not in made:
            kept = [p for p in tp_pts if p.row.hardware != hardware]
            refit = cal.model_copy(update={"tp_fits": fit_tp(kept, cal.decode_fits, catalog.engines, kin)})
            made[hardware] = Facts(catalog.assumptions, refit, catalog.offers, catalog.api_prices)
        return made[hardware]

    return facts_for


def batched_checks(catalog: Catalog) -> tuple[BatchedCheck, ...]:
    """Every decode measurement with more than one sequence at once or more than one device, on a catalog
    model and accelerator."""
    facts_for = _without_hardware_tp(catalog)
    out = []
    for row in catalog.throughput:
        model, hw = catalog.models.get(row.model or ""), catalog.hardware.get(row.hardware)
        fmt, engine = catalog.formats.get(row.quant), catalog.engines.get(row.engine)
        several = row.batch > 1 or row.gpus > 1
        if not several or row.outlier or not row.test.startswith("decode") or None in (model, hw, fmt, engine):
            continue
        assert model and hw and fmt and engine
        kv = catalog.kv_dtype(engine.default_kv_dtype)
        sc = Scenario(fmt, kv, engine, row.context or 1, batch=row.batch, gpus=row.gpus)
        try:
            est = estimate(model, hw, sc, facts_for(row.hardware))
        except ScenarioError:
            continue
        out.append(BatchedCheck(row, hw.name, model.name, hw.vendor, est.speed.decode_tok_s))
    return tuple(sorted(out, key=lambda c: (c.row.engine, c.vendor, c.hardware_name, c.row.batch)))


def batched_rows(checks: Sequence[BatchedCheck]) -> tuple[BatchedRow, ...]:
    """The batched checks' median errors by engine and vendor."""
    groups: dict[tuple[str, str, bool], list[float]] = {}
    for c in checks:
        groups.setdefault((c.row.engine, c.vendor, c.row.gpus > 1), []).append(c.error)
    return tuple(
        BatchedRow(engine, vendor, several, len(errs), statistics.median(abs(e) for e in errs), statistics.median(errs))
        for (engine, vendor, several), errs in sorted(groups.items())
    )


def batched_key(r: BatchedRow) -> str:
    """The row's name in tests/accuracy-baseline.json: batched_decode[vllm/NVIDIA/1]."""
    return f"batched_decode[{r.engine}/{r.vendor}/{'tp' if r.several else '1'}]"


@dataclasses.dataclass(frozen=True)
class SizeRow:
    """Weight-file error of one format."""

    fmt: str
    files: int
    median: float
    worst: float


@dataclasses.dataclass(frozen=True)
class AccuracyData:
    decode: ErrorSummary | None
    prefill: ErrorSummary | None
    scatter: Scatter
    by_class: tuple[ErrorRow, ...]
    by_engine: tuple[ErrorRow, ...]
    by_test: tuple[ErrorRow, ...]
    measured: tuple[MeasuredRow, ...]
    sizes: tuple[SizeCheck, ...]
    size_rows: tuple[SizeRow, ...]
    size_median: float | None
    kv: tuple[KVCheck, ...]
    kv_worst: float | None
    batched: tuple[BatchedCheck, ...] = ()
    batched_rows: tuple[BatchedRow, ...] = ()
    # The range printed for one sequence decoding over several devices in tensor parallel.
    tensor_parallel: RangeSummary | None = None
    implied_prefill: RangeSummary | None = None


def _test_family(test: str) -> str:
    """tg128, pp512 … as printed; a context sweep (decode_b1_ctx8015) as one family."""
    return re.sub(r"ctx\d+$", "ctx…", test)


def _group_rows(
    ins: Sequence[Prediction],
    by_hw: Sequence[Prediction],
    by_model: Sequence[Prediction],
    label: Callable[[Prediction], str],
) -> tuple[ErrorRow, ...]:
    out = []
    for kind, decode in (("decode", True), ("prefill", False)):
        labels = sorted({label(p) for p in ins if p.point.decode == decode})
        for lab in labels:

            def errs(preds: Sequence[Prediction], lab: str = lab, decode: bool = decode) -> list[float]:
                return [p.error for p in preds if p.point.decode == decode and label(p) == lab]

            mine = errs(ins)
            out.append(
                ErrorRow(
                    lab, kind, len(mine), statistics.median(mine), median_abs(errs(by_hw)), median_abs(errs(by_model))
                )
            )
    return tuple(out)


def _scatter(preds: Sequence[MeasuredRow]) -> Scatter:
    values = [v for m in preds for v in (m.prediction.predicted, m.prediction.measured)]
    lo = math.floor(math.log10(min(values))) if values else 0
    hi = math.ceil(math.log10(max(values))) if values else 1
    hi = max(hi, lo + 1)
    base = Scatter((), ())

    def pos(v: float) -> tuple[float, float]:
        f = (math.log10(v) - lo) / (hi - lo)
        return base.left + (base.right - base.left) * f, base.bottom - (base.bottom - base.top) * f

    pts = []
    for m in preds:
        x, _ = pos(m.prediction.predicted)
        _, y = pos(m.prediction.measured)
        r = m.row
        title = f"{m.model_label} · {m.hardware_name} · {r.quant} · {r.test}"
        pts.append((round(x, 1), round(y, 1), "decode" if m.prediction.point.decode else "prefill", title))
    ticks = tuple((round(pos(10.0**e)[0], 1), round(pos(10.0**e)[1], 1), 10**e) for e in range(lo, hi + 1))
    return Scatter(tuple(pts), ticks)


def accuracy_data(catalog: Catalog) -> AccuracyData:
    """Everything the accuracy page shows, computed once per build."""
    pts = points(catalog.throughput, catalog.models, catalog.hardware, catalog.formats, catalog.engines)
    cal = catalog.calibration
    # In sample: the committed constants, the ones every page uses.
    kin = kin_of(catalog.engines.values())
    ins = predictions(pts, Fits.committed(cal) if cal else calibrate(pts, kin))
    by_hw = held_out(pts, hardware_key, kin)
    by_model = held_out(pts, model_key, kin)
    measured = tuple(
        sorted(
            (MeasuredRow(p, p.point.hardware.name, p.point.model.name) for p in by_hw),
            key=lambda m: (not m.prediction.point.decode, m.hardware_name, m.model_label, m.row.quant, m.row.test),
        )
    )
    sizes = tuple(
        sorted(
            size_checks(catalog.file_sizes, catalog.models, catalog.formats), key=lambda s: (s.fmt.name, s.model.name)
        )
    )
    by_fmt: dict[str, list[float]] = {}
    for s in sizes:
        by_fmt.setdefault(s.fmt.name, []).append(abs(s.error))
    order = {name: i for i, name in enumerate(catalog.formats)}
    size_rows = tuple(
        SizeRow(name, len(errs), statistics.median(errs), max(errs))
        for name, errs in sorted(by_fmt.items(), key=lambda kv: order[kv[0]])
    )
    kv = tuple(kv_checks(catalog.memory_logs, catalog.models, catalog.engines, catalog.kv_dtypes))
    return AccuracyData(
        decode=cal.decode if cal else None,
        prefill=cal.prefill if cal else None,
        scatter=_scatter(measured),
        by_class=_group_rows(ins, by_hw, by_model, lambda p: class_label(p.point.hw_class)),
        by_engine=_group_rows(ins, by_hw, by_model, lambda p: p.point.engine),
        by_test=_group_rows(ins, by_hw, by_model, lambda p: _test_family(p.point.row.test)),
        measured=measured,
        sizes=sizes,
        size_rows=size_rows,
        size_median=median_abs([s.error for s in sizes]),
        kv=kv,
        kv_worst=worst_abs([k.error for k in kv]),
        batched=(batched := batched_checks(catalog)),
        batched_rows=batched_rows(batched),
        tensor_parallel=cal.tensor_parallel if cal else None,
        implied_prefill=cal.implied_prefill if cal else None,
    )
