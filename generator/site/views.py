"""What each page shows, computed once per pair from the engine: numbers only, no locale, no markup.

A pair's data (default estimate, quantization matrix, context scaling, commands, tuning) is
computed once and shared by its page in every language, its JSON, its model's and its hardware's
pages.
"""

from __future__ import annotations

import dataclasses
import math
import shlex
from collections.abc import Iterable, Sequence

from generator.content.catalog import Catalog
from generator.content.schema import CloudOffer, EngineProfile, Hardware, HardwareKind, LayerKind, Model, QuantFormat
from generator.sizing.estimate import Estimate, ScenarioError, estimate
from generator.sizing.kv import kv_cache
from generator.sizing.memory import memory
from generator.sizing.params import ParamCount, count_params, layer_kinds
from generator.sizing.scenario import Facts, Scenario

DEFAULT_FORMAT = "Q4_K_M"
DEFAULT_ENGINE = "llama.cpp"
FAMILY_ENGINE = {"gguf": "llama.cpp", "safetensors": "vllm", "mlx": "mlx"}
CONTEXT_STEPS = (4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576)


def facts_of(catalog: Catalog) -> Facts:
    """The engine's constants from the catalog."""
    return Facts(catalog.assumptions, catalog.calibration, catalog.offers, catalog.api_prices)


def default_scenario(
    catalog: Catalog, fmt: str = DEFAULT_FORMAT, engine: str = DEFAULT_ENGINE, context: int | None = None
) -> Scenario:
    """The scenario every pair page starts from: Q4_K_M on llama.cpp, its default KV, 8K context."""
    eng = catalog.engine(engine)
    return Scenario(
        fmt=catalog.format(fmt),
        kv=catalog.kv_dtype(eng.default_kv_dtype),
        engine=eng,
        context=context or catalog.assumptions.default_context,
    )


@dataclasses.dataclass(frozen=True)
class FormatRow:
    """One format on one accelerator, with its natural engine; ``est`` is None where it cannot run."""

    fmt: QuantFormat
    engine: EngineProfile
    est: Estimate | None
    reason: str = ""


@dataclasses.dataclass(frozen=True)
class ContextRow:
    """Memory at one context length with 16-bit and 8-bit KV cache."""

    context: int
    kv16_bytes: int
    kv8_bytes: int
    total16_bytes: int
    total8_bytes: int
    verdict16: str
    verdict8: str


@dataclasses.dataclass(frozen=True)
class Command:
    """A launch command for one engine, with the scenario it was built from."""

    engine: str
    fmt: str
    text: str
    repo: str
    fits: bool


@dataclasses.dataclass(frozen=True)
class Segment:
    """One bar of the memory chart, in fractions of the chart's width."""

    key: str
    bytes: int
    x: float
    width: float


@dataclasses.dataclass(frozen=True)
class PairData:
    """Everything a pair page, its JSON and the pages that summarise it need."""

    model: Model
    hardware: Hardware
    est: Estimate
    matrix: tuple[FormatRow, ...]
    contexts: tuple[ContextRow, ...]
    kv16: str
    kv8: str
    commands: tuple[Command, ...]
    kv8_saving_bytes: int
    smaller: FormatRow | None
    smaller_saving_bytes: int
    offers: tuple[tuple[CloudOffer, float], ...]
    bars: tuple[Segment, ...]
    usable_x: float
    chart: LineChart
    finetune_gpus: tuple[int, int, int]

    @property
    def best(self) -> FormatRow | None:
        """The highest-precision format that fits (comfortable or tight)."""
        return best_of(self.matrix)


def best_of(matrix: Sequence[FormatRow]) -> FormatRow | None:
    """The highest-precision format of a quantization matrix that fits (comfortable or tight)."""
    fitting = [r for r in matrix if r.est and r.est.memory.verdict != "oom"]
    return max(fitting, key=lambda r: (r.fmt.bits_per_weight, r.fmt.name), default=None)


def _try(model: Model, hw: Hardware, sc: Scenario, facts: Facts) -> tuple[Estimate | None, str]:
    try:
        return estimate(model, hw, sc, facts), ""
    except ScenarioError as exc:
        return None, str(exc)


def quant_matrix(catalog: Catalog, model: Model, hw: Hardware, context: int) -> tuple[FormatRow, ...]:
    """Every format on ``hw`` with its natural engine (GGUF: llama.cpp, safetensors: vLLM, MLX: mlx-lm)."""
    facts = facts_of(catalog)
    rows = []
    for fmt in catalog.formats.values():
        eng = catalog.engine(FAMILY_ENGINE[fmt.family.value])
        sc = Scenario(fmt=fmt, kv=catalog.kv_dtype(eng.default_kv_dtype), engine=eng, context=context)
        est, reason = _try(model, hw, sc, facts)
        rows.append(FormatRow(fmt, eng, est, reason))
    return tuple(rows)


def context_steps(model: Model) -> tuple[int, ...]:
    """4K, 8K, 16K … up to the model's maximum (which is always the last step)."""
    top = model.architecture.max_context
    steps = [c for c in CONTEXT_STEPS if c < top]
    return (*steps, top)


def context_rows(
    catalog: Catalog, model: Model, hw: Hardware, base: Estimate
) -> tuple[tuple[ContextRow, ...], str, str]:
    """Memory across contexts for the page's scenario with 16-bit and 8-bit KV (fp8 on vLLM, q8_0 on llama.cpp)."""
    eng = base.scenario.engine
    kv16 = catalog.kv_dtype(eng.default_kv_dtype)
    kv8 = catalog.kv_dtype("fp8" if eng.name in catalog.kv_dtype("fp8").engines else "q8_0")
    tight = catalog.assumptions.verdict_tight_fraction
    rows = []
    for ctx in context_steps(model):
        a = memory(model, base.params, base.weights, hw, base.scenario.with_(kv=kv16), tight, context=ctx)
        b = memory(model, base.params, base.weights, hw, base.scenario.with_(kv=kv8), tight, context=ctx)
        rows.append(
            ContextRow(ctx, a.kv_cache_bytes, b.kv_cache_bytes, a.total_bytes, b.total_bytes, a.verdict, b.verdict)
        )
    return tuple(rows), kv16.name, kv8.name


def commands(
    catalog: Catalog, model: Model, hw: Hardware, matrix: Sequence[FormatRow], context: int
) -> tuple[Command, ...]:
    """llama-server, vllm serve, an Ollama Modelfile and mlx_lm, each for the best fitting format of its engine."""
    out = []

    def pick(engine: str) -> FormatRow | None:
        rows = [r for r in matrix if r.engine.name == engine and r.est is not None]
        fitting = [r for r in rows if r.est and r.est.memory.verdict != "oom"]
        pool = fitting or rows
        if engine == "llama.cpp":
            q4 = [r for r in pool if r.fmt.name == DEFAULT_FORMAT]
            if q4 and q4[0].est and q4[0].est.memory.verdict != "oom":
                return q4[0]
        return max(
            pool, key=lambda r: (r.est.memory.verdict != "oom" if r.est else False, r.fmt.bits_per_weight), default=None
        )

    art = model.artifacts
    row = pick("llama.cpp")
    if row and row.est:
        gpus = row.est.min_gpus or 1
        repo = art.gguf[0] if art.gguf else ""
        source = f"-hf {repo}:{row.fmt.name.upper()}" if repo else f"-m {model.slug}-{row.fmt.name}.gguf"
        parts = ["llama-server", *shlex.split(source), "-c", str(context), "-ngl", "99", "-fa", "on"]
        if gpus > 1:
            parts += ["--split-mode", "layer"]
        out.append(Command("llama.cpp", row.fmt.name, shlex.join(parts), repo, row.est.memory.verdict != "oom"))
    row = pick("vllm")
    if row and row.est:
        gpus = row.est.min_gpus or 1
        repo = {
            "AWQ": art.awq[0] if art.awq else "",
            "GPTQ": art.gptq[0] if art.gptq else "",
            "FP8": art.fp8[0] if art.fp8 else model.hf_id,
        }.get(row.fmt.name, model.hf_id)
        if repo:
            parts = [
                "vllm",
                "serve",
                repo,
                "--max-model-len",
                str(context),
                "--gpu-memory-utilization",
                str(row.engine.memory_utilization),
            ]
            if row.fmt.name == "FP8" and not art.fp8:
                parts += ["--quantization", "fp8"]
            if gpus > 1:
                parts += ["--tensor-parallel-size", str(gpus)]
            out.append(Command("vllm", row.fmt.name, shlex.join(parts), repo, row.est.memory.verdict != "oom"))
    if art.ollama and hw.kind is not HardwareKind.npu:
        text = f"FROM {art.ollama}\nPARAMETER num_ctx {context}"
        fits = any(r.est and r.est.memory.verdict != "oom" for r in matrix if r.fmt.name == DEFAULT_FORMAT)
        out.append(Command("ollama", DEFAULT_FORMAT, text, art.ollama, fits))
    row = pick("mlx")
    if row and row.est and art.mlx:
        repo = art.mlx[0]
        text = f"mlx_lm.server --model {repo} --max-tokens {min(context, 4096)}"
        out.append(Command("mlx", row.fmt.name, text, repo, row.est.memory.verdict != "oom"))
    return tuple(out)


CHART_X0 = 10.0
CHART_W = 580.0


def memory_bars(est: Estimate) -> tuple[tuple[Segment, ...], float]:
    """Segments of the memory chart (weights, KV cache, runtime) in SVG units, and the usable-memory mark."""
    m = est.memory
    parts = [("weights", m.weights_bytes), ("kv_cache", m.kv_cache_bytes), ("overhead", m.overhead_bytes)]
    scale = max(m.total_bytes, m.usable_bytes) or 1
    x = CHART_X0
    segs = []
    for key, n in parts:
        w = n / scale * CHART_W
        segs.append(Segment(key, n, x, w))
        x += w
    return tuple(segs), CHART_X0 + m.usable_bytes / scale * CHART_W


@dataclasses.dataclass(frozen=True)
class LineChart:
    """Polylines in SVG units (x: context steps, y: bytes) with the usable-memory level."""

    series: tuple[tuple[str, str], ...]  # (name, "x,y x,y …")
    usable_y: float
    ticks: tuple[tuple[float, int], ...]  # (x, context)
    y_max_bytes: int
    width: int = 600
    height: int = 220

    @property
    def view_height(self) -> int:
        """SVG height including the row of context labels under the plot."""
        return self.height + 20

    @property
    def label_y(self) -> int:
        """Baseline of the context labels."""
        return self.height + 15


def context_chart(rows: Sequence[ContextRow], usable: int) -> LineChart:
    """Total memory across contexts with 16-bit and 8-bit KV cache, against usable memory."""
    top = max([usable, *(r.total16_bytes for r in rows)]) * 1.05
    left, right, y0, y1 = 50.0, 590.0, 200.0, 10.0
    n = max(1, len(rows) - 1)

    def pt(i: int, v: int) -> str:
        return f"{left + (right - left) * i / n:.1f},{y0 - (y0 - y1) * v / top:.1f}"

    series = (
        ("kv16", " ".join(pt(i, r.total16_bytes) for i, r in enumerate(rows))),
        ("kv8", " ".join(pt(i, r.total8_bytes) for i, r in enumerate(rows))),
    )
    ticks = tuple((left + (right - left) * i / n, r.context) for i, r in enumerate(rows))
    return LineChart(series, y0 - (y0 - y1) * usable / top, ticks, int(top))


def pair_data(catalog: Catalog, model: Model, hw: Hardware) -> PairData:
    """All numbers of one model × hardware page."""
    facts = facts_of(catalog)
    sc = default_scenario(catalog)
    est = estimate(model, hw, sc, facts)
    matrix = quant_matrix(catalog, model, hw, sc.context)
    contexts, kv16, kv8 = context_rows(catalog, model, hw, est)
    kv8_est = estimate(model, hw, sc.with_(kv=catalog.kv_dtype("q8_0")), facts)
    cheaper = [
        r
        for r in matrix
        if r.est and r.engine.name == sc.engine.name and r.fmt.bits_per_weight < sc.fmt.bits_per_weight
    ]
    smaller = max(cheaper, key=lambda r: r.fmt.bits_per_weight, default=None)
    bars, usable_x = memory_bars(est)
    per_gpu = est.memory.usable_per_gpu_bytes
    ft = tuple(math.ceil(t.total_bytes / per_gpu) for t in est.finetune)
    return PairData(
        model=model,
        hardware=hw,
        est=est,
        matrix=matrix,
        contexts=contexts,
        kv16=kv16,
        kv8=kv8,
        commands=commands(catalog, model, hw, matrix, sc.context),
        kv8_saving_bytes=est.memory.total_bytes - kv8_est.memory.total_bytes,
        smaller=smaller,
        smaller_saving_bytes=est.memory.weights_bytes - smaller.est.memory.weights_bytes
        if smaller and smaller.est
        else 0,
        offers=tuple((o, o.usd_per_hour / o.gpus) for o in catalog.offers_for(hw.slug)),
        bars=bars,
        usable_x=usable_x,
        chart=context_chart(contexts, est.memory.usable_bytes),
        finetune_gpus=(ft[0], ft[1], ft[2]),
    )


@dataclasses.dataclass(frozen=True)
class Recommendation:
    """A hardware suggestion for a model, with the estimate that earns it."""

    key: str
    hardware: Hardware
    est: Estimate
    usd_per_mtok: float | None = None


def recommendations(pairs: Iterable[PairData]) -> tuple[Recommendation, ...]:
    """Best single GPU, best value, best Apple machine and cheapest cloud for one model (default scenario)."""
    fits = [p for p in pairs if p.est.memory.verdict != "oom"]
    out: list[Recommendation] = []
    gpus = [p for p in fits if p.hardware.kind not in (HardwareKind.apple_unified, HardwareKind.unified_apu)]
    if gpus:
        best = max(gpus, key=lambda p: (p.est.speed.decode_tok_s, p.hardware.slug))
        out.append(Recommendation("fastest", best.hardware, best.est))
    priced = [p for p in fits if p.hardware.price]
    if priced:
        value = max(priced, key=lambda p: (p.est.speed.decode_tok_s / p.hardware.price.usd, p.hardware.slug))  # type: ignore[union-attr]
        out.append(Recommendation("value", value.hardware, value.est))
    apple = [p for p in fits if p.hardware.kind is HardwareKind.apple_unified]
    if apple:
        cheapest_mac = max(apple, key=lambda p: (p.est.speed.decode_tok_s, p.hardware.slug))
        out.append(Recommendation("apple", cheapest_mac.hardware, cheapest_mac.est))
    cloud = [p for p in fits if p.est.cost.usd_per_mtok is not None]
    if cloud:
        c = min(cloud, key=lambda p: (p.est.cost.usd_per_mtok or math.inf, p.hardware.slug))
        out.append(Recommendation("cloud", c.hardware, c.est, c.est.cost.usd_per_mtok))
    return tuple(out)


@dataclasses.dataclass(frozen=True)
class FootprintRow:
    """A format's weights and total memory at 8K and 32K context (single device, natural engine)."""

    fmt: QuantFormat
    engine: str
    weights_bytes: int
    total8k_bytes: int
    total32k_bytes: int


def footprint(catalog: Catalog, model: Model, reference: Hardware) -> tuple[FootprintRow, ...]:
    """Memory per format, independent of the accelerator (``reference`` only supplies a device kind)."""
    facts = facts_of(catalog)
    rows = []
    for fmt in catalog.formats.values():
        eng = catalog.engine(FAMILY_ENGINE[fmt.family.value])
        hw = reference
        if reference.kind not in eng.hardware_kinds:
            continue
        sc = Scenario(fmt=fmt, kv=catalog.kv_dtype(eng.default_kv_dtype), engine=eng, context=8192)
        a, _ = _try(model, hw, sc, facts)
        b, _ = _try(model, hw, sc.with_(context=min(32768, model.architecture.max_context)), facts)
        if a and b:
            rows.append(FootprintRow(fmt, eng.name, a.memory.weights_bytes, a.memory.total_bytes, b.memory.total_bytes))
    return tuple(rows)


@dataclasses.dataclass(frozen=True)
class KVRow:
    """KV cache bytes of one sequence at one context, 16-bit and fp8 (vLLM allocation)."""

    context: int
    bf16_bytes: int
    fp8_bytes: int


def kv_rows(catalog: Catalog, model: Model) -> tuple[KVRow, ...]:
    """KV cache per context in BF16 and FP8 as vLLM pages it, from 4K to the model's maximum."""
    eng = catalog.engine("vllm")
    b16 = catalog.kv_dtype("bf16").bytes_per_element
    b8 = catalog.kv_dtype("fp8").bytes_per_element
    return tuple(
        KVRow(c, kv_cache(model, eng, b16, c, 1).total, kv_cache(model, eng, b8, c, 1).total)
        for c in context_steps(model)
    )


@dataclasses.dataclass(frozen=True)
class ModelFacts:
    """Architecture facts of a model for display."""

    params: ParamCount
    layer_counts: dict[str, int]
    kv_bytes_per_token: float


def model_facts(catalog: Catalog, model: Model) -> ModelFacts:
    """Derived parameters, layer kinds and KV bytes per token (bf16) of a model."""
    kinds = layer_kinds(model)
    kv = kv_cache(model, catalog.engine("vllm"), catalog.kv_dtype("bf16").bytes_per_element, 1, 1)
    return ModelFacts(
        count_params(model), {k.value: kinds.count(k) for k in LayerKind if k in kinds}, kv.bytes_per_token
    )


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


def need_table(pairs: Sequence[PairData], hardware: Sequence[str]) -> tuple[tuple[str, tuple[int | None, ...]], ...]:
    """Rows of (format, fewest devices on each of ``hardware``); 0 = more than the maximum, None = n/a."""
    by_hw = {p.hardware.slug: p for p in pairs}
    formats = [r.fmt.name for r in pairs[0].matrix] if pairs else []
    rows = []
    for name in formats:
        cells: list[int | None] = []
        for slug in hardware:
            row = next((r for r in by_hw[slug].matrix if r.fmt.name == name), None)
            cells.append(None if row is None or row.est is None else (row.est.min_gpus or 0))
        rows.append((name, tuple(cells)))
    return tuple(rows)


@dataclasses.dataclass(frozen=True)
class HardwareRow:
    """One model on a hardware page: its best fitting format, or no format when nothing fits.

    Plain values only, so a build can keep rows of unchanged models in its manifest.
    """

    model_slug: str
    model_name: str
    quant: str | None = None
    engine: str | None = None
    engine_label: str | None = None
    total_bytes: int | None = None
    verdict: str | None = None
    decode_tok_s: float | None = None
    decode_low: float | None = None
    decode_high: float | None = None
    max_context: int | None = None

    @classmethod
    def of(cls, pair: PairData) -> HardwareRow:
        """The row a pair contributes to its hardware page."""
        return cls.from_best(pair.model, pair.best)

    @classmethod
    def from_best(cls, model: Model, best: FormatRow | None) -> HardwareRow:
        """The row for a model whose best fitting format is ``best``."""
        if best is None or best.est is None:
            return cls(model.slug, model.name)
        e = best.est
        return cls(
            model.slug,
            model.name,
            best.fmt.name,
            best.engine.name,
            best.engine.label,
            e.memory.total_bytes,
            e.memory.verdict,
            e.speed.decode_tok_s,
            e.speed_range.decode_low,
            e.speed_range.decode_high,
            e.max_context,
        )


def hardware_rows(catalog: Catalog, model: Model) -> list[HardwareRow]:
    """A model's rows for every hardware page, from the quantization matrices alone (no pages rendered)."""
    context = catalog.assumptions.default_context
    return [
        HardwareRow.from_best(model, best_of(quant_matrix(catalog, model, hw, context)))
        for hw in catalog.hardware.values()
    ]


RELATED = 12


def related_hardware(hw: Hardware, everything: Sequence[Hardware]) -> list[Hardware]:
    """Up to 12 other accelerators of the same kind, nearest in memory first (for a pair page's links)."""
    same = [h for h in everything if h.slug != hw.slug and h.kind is hw.kind]
    return sorted(same, key=lambda h: (abs(h.memory_bytes - hw.memory_bytes), h.slug))[:RELATED]


def related_models(model: Model, everything: Sequence[Model]) -> list[Model]:
    """Up to 12 other models: same family and organisation first, then nearest in size."""
    size = count_params(model).total

    def key(m: Model) -> tuple[int, int, float, str]:
        other = count_params(m).total
        return (m.family != model.family, m.organization != model.organization, abs(other - size) / size, m.slug)

    return sorted((m for m in everything if m.slug != model.slug), key=key)[:RELATED]
