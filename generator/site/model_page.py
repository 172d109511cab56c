"""What a model page shows besides its pairs: facts, memory per format, KV cache per context, the
fewest devices per format, related models."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Literal

from generator.content.blocks import AttentionBlock, MLABlock
from generator.content.catalog import Catalog
from generator.content.schema import (
    EngineProfile,
    Hardware,
    HardwareKind,
    KVDtype,
    Model,
    Price,
    QuantFormat,
)
from generator.site.commands import CommandInputs, launch_command
from generator.site.i18n import NumberFormat, translations
from generator.site.pair_page import FormatRow, PairData, context_steps, try_estimate
from generator.site.quality import Quality, quality_of
from generator.site.setups import SINGLE
from generator.sizing.devices import device_view
from generator.sizing.estimate import Estimate, fit_and_decode, model_engines
from generator.sizing.kv import kv_cache
from generator.sizing.layout import index_key_bytes, kv_elements_per_token, layer_counts, layout
from generator.sizing.memory import memory, tp_valid, vision_size
from generator.sizing.params import ParamCount, count_params
from generator.sizing.scenario import DEFAULT_FORMAT, FAMILY_ENGINE, Scenario, facts_of

RELATED = 12
# The fewest other models a pair page links on its device (more when the family is larger).
PAIR_RELATED = 3
# All that model and pair pages show of a related model (model.html, pair.html): a build key hashes
# these fields of each related model, so a page that shows more must name it here.
RELATED_FIELDS = ("slug", "name")


@dataclasses.dataclass(frozen=True)
class FootprintRow:
    """A format's weights and total memory at 8K and 32K context (single device, natural engine)."""

    fmt: QuantFormat
    engine: str
    weights_bytes: int
    total8k_bytes: int
    total32k_bytes: int
    quality: Quality | None = None


def footprint(catalog: Catalog, model: Model, reference: Hardware) -> tuple[FootprintRow, ...]:
    """Memory per format, independent of the accelerator (``reference`` only supplies a device kind)."""
    facts = facts_of(catalog)
    rows = []
    for fmt in catalog.formats.values():
        eng = catalog.engine(FAMILY_ENGINE[fmt.family.value])
        hw = reference
        if not eng.runs(reference):
            continue
        sc = Scenario(fmt=fmt, kv=catalog.kv_dtype(eng.default_kv_dtype), engine=eng, context=8192)
        a, _ = try_estimate(model, hw, sc, facts)
        b, _ = try_estimate(model, hw, sc.with_(context=min(32768, model.max_context)), facts)
        if a and b:
            rows.append(
                FootprintRow(
                    fmt,
                    eng.name,
                    a.memory.weights_bytes,
                    a.memory.total_bytes,
                    b.memory.total_bytes,
                    quality_of(catalog, model, fmt),
                )
            )
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
class AttentionRow:
    """One attention geometry of a model: query heads, KV heads and head size, and on how many layers
    (None: every attention layer)."""

    heads: int
    kv_heads: int
    head_dim: int
    layers: int | None


@dataclasses.dataclass(frozen=True)
class ModelFacts:
    """Architecture facts of a model for display."""

    params: ParamCount
    layer_counts: dict[str, int]
    kv_bytes_per_token: float
    vision_bytes: int = 0  # a multimodal model's vision encoder in 16-bit (llama.cpp's mmproj file)
    attention: tuple[AttentionRow, ...] = ()
    window: int | None = None
    # MLA: (latent rank, RoPE dimensions); MoE: (experts per token, experts, shared experts).
    mla: tuple[int, int] | None = None
    experts: tuple[int, int, int] | None = None
    # Hashed n-gram tables: (parameters, tables, rows read per token per table, values per row), and the
    # labels of the engines that keep them in host RAM and of those that keep them on the devices.
    ngram: tuple[int, int, int, int] | None = None
    ngram_host: tuple[str, ...] = ()
    ngram_device: tuple[str, ...] = ()


def _attention_rows(model: Model) -> tuple[AttentionRow, ...]:
    """The model's attention geometries, one per distinct (heads, KV heads, head size); an MLA block counts
    its heads as KV heads and its query-key width as the head size, as its config does; a compressed
    block (DeepSeek V4) its one latent KV head."""
    rows: dict[tuple[int, int, int], int] = {}
    for block, n in layout(model).attention:
        if isinstance(block, MLABlock):
            key = (block.heads, block.heads, block.qk_nope_head_dim + block.qk_rope_head_dim)
        else:
            key = (block.heads, block.kv_heads, block.head_dim)
        rows[key] = rows.get(key, 0) + n
    for cblock, n in layout(model).compressed:
        key = (cblock.heads, 1, cblock.head_dim)  # one latent KV head (DeepSeek V4)
        rows[key] = rows.get(key, 0) + n
    only = len(rows) == 1
    return tuple(AttentionRow(h, kv, d, None if only else n) for (h, kv, d), n in rows.items())


def model_facts(catalog: Catalog, model: Model) -> ModelFacts:
    """Derived parameters, layer kinds, KV bytes per token (16-bit, as the page's formula works it out),
    attention geometry, experts and vision encoder of a model."""
    laid = layout(model)
    windows = [b.window for b, _ in laid.attention if isinstance(b, AttentionBlock) and b.window]
    mla = next((b for b, _ in laid.attention if isinstance(b, MLABlock)), None)
    moe = next((b for b, _ in laid.moe), None)
    ng = model.network.ngram
    engines = model_engines(catalog, model)
    return ModelFacts(
        count_params(model),
        layer_counts(model),
        kv_formula(model).total,
        vision_size(model, catalog.engine("llama.cpp")),
        attention=_attention_rows(model),
        window=min(windows) if windows else None,
        mla=(mla.kv_lora_rank, mla.qk_rope_head_dim) if mla else None,
        experts=(moe.experts_per_token, moe.experts, moe.shared_experts) if moe else None,
        ngram=(count_params(model).ngram, len(ng.tables), ng.lookups, ng.width) if ng else None,
        ngram_host=tuple(e.label for e in engines if ng and e.ngram_on_host(ng.kind)),
        ngram_device=tuple(e.label for e in engines if ng and not e.ngram_on_host(ng.kind)),
    )


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


def related_models(model: Model, everything: Sequence[Model]) -> list[Model]:
    """The other models a pair page links on the same device: its whole family, then the same
    organisation's and the rest nearest in size, until there are at least ``PAIR_RELATED``."""
    size = count_params(model).total

    def key(m: Model) -> tuple[int, int, float, str]:
        other = count_params(m).total
        return (m.family != model.family, m.organization != model.organization, abs(other - size) / size, m.slug)

    ranked = sorted((m for m in everything if m.slug != model.slug), key=key)
    family = sum(m.family == model.family for m in ranked)
    return ranked[: max(family, PAIR_RELATED)]


@dataclasses.dataclass(frozen=True)
class Related:
    """Models a reader of one model's page compares it with: the rest of its family (smallest first), the
    nearest in size from other families, and the organization's other families released after it (newest
    first)."""

    family: tuple[Model, ...]
    size: tuple[Model, ...]
    newer: tuple[Model, ...]


# How far a "similar size" model may be from this one, as a ratio of total parameters, and how many.
SIMILAR_SIZE = 1.5
SIMILAR_COUNT = 6


def related_groups(model: Model, everything: Sequence[Model]) -> Related:
    """The model page's related models, each group in its own order (see :class:`Related`)."""
    size = {m.slug: count_params(m).total for m in everything}
    others = [m for m in everything if m.slug != model.slug]
    mine = size[model.slug]
    family = sorted((m for m in others if m.family == model.family), key=lambda m: (size[m.slug], m.slug))
    near = [m for m in others if m.family != model.family and 1 / SIMILAR_SIZE <= size[m.slug] / mine <= SIMILAR_SIZE]
    near.sort(key=lambda m: (abs(math.log(size[m.slug] / mine)), m.slug))
    released = model.release_date
    newer = (
        sorted(
            (
                m
                for m in others
                if m.organization == model.organization
                and m.family != model.family  # the family is listed above
                and m.release_date != "unknown"
                and m.release_date > released
            ),
            key=lambda m: (m.release_date, m.slug),
            reverse=True,
        )
        if released != "unknown"
        else []
    )
    return Related(tuple(family), tuple(near[:SIMILAR_COUNT]), tuple(newer[:SIMILAR_COUNT]))


# Kinds of accelerator a reader buys as a graphics card (the model page's lead names the smallest).
CARD_KINDS = (HardwareKind.consumer_gpu, HardwareKind.workstation_gpu)
# The order of verdicts in a leaderboard: fits well, then tight, then does not fit.
VERDICT_RANK = {"comfortable": 0, "tight": 1, "oom": 2}


@dataclasses.dataclass(frozen=True)
class Fix:
    """The first change that makes a setup that does not fit fit, in the order a person would try
    them: a smaller KV cache (``value`` its name), a smaller format of the same engine (its name),
    more devices (``units`` cards), or nothing in reach (``none``)."""

    kind: Literal["kv", "fmt", "devices", "none"]
    value: str = ""
    units: int = 0


def smaller_kv(catalog: Catalog, engine: EngineProfile, kv: KVDtype) -> list[KVDtype]:
    """The engine's KV cache types smaller than ``kv``, largest first."""
    return sorted(
        (
            k
            for k in catalog.kv_dtypes.values()
            if engine.name in k.engines and k.bytes_per_element < kv.bytes_per_element
        ),
        key=lambda k: -k.bytes_per_element,
    )


def fix_for(catalog: Catalog, p: PairData, est: Estimate) -> Fix | None:
    """What would make ``est``, a setup of the pair, fit (None when it already fits)."""
    if est.memory.verdict != "oom":
        return None
    sc = est.scenario
    facts = facts_of(catalog)
    for kv in smaller_kv(catalog, sc.engine, sc.kv):
        # Only the verdict is needed: fit_and_decode, not a whole estimate.
        if fit_and_decode(p.model, p.hardware, sc.with_(kv=kv), facts).verdict != "oom":
            return Fix("kv", kv.name)
    lower = [
        r
        for r in p.matrix
        if r.est is not None
        and r.engine.name == sc.engine.name
        and r.fmt.bits_per_weight < sc.fmt.bits_per_weight
        and r.est.memory.verdict != "oom"
    ]
    if lower:
        return Fix("fmt", max(lower, key=lambda r: r.fmt.bits_per_weight).fmt.name)
    if est.min_gpus is not None and p.hardware.kind not in SINGLE:
        return Fix("devices", units=math.ceil(est.min_gpus / p.hardware.chips))
    return Fix("none")


@dataclasses.dataclass(frozen=True)
class LeaderRow:
    """One accelerator in a model's leaderboard: the setup every row compares (the pair's ``standard``),
    its price, and when it does not fit, what would."""

    pair: PairData
    est: Estimate
    price: Price | None
    fix: Fix | None


def leaderboard(catalog: Catalog, pairs: Sequence[PairData]) -> tuple[LeaderRow, ...]:
    """Every accelerator that runs the model page's common setup (Q4_K_M on llama.cpp): those that fit
    well first, then tight fits, each fastest first; then those that do not fit, nearest to fitting first
    (``static/leaderboard.js`` sorts the same way by default and leaves out the same accelerators)."""

    def key(row: tuple[PairData, Estimate]) -> tuple[int, float, str]:
        p, est = row
        m = est.memory
        if m.verdict == "oom":
            return (2, m.per_gpu_bytes / m.usable_per_gpu_bytes, p.hardware.slug)
        return (VERDICT_RANK[m.verdict], -est.speed.decode_tok_s, p.hardware.slug)

    rows = sorted(((p, p.standard) for p in pairs if p.standard is not None), key=key)
    return tuple(LeaderRow(p, est, p.hardware.price, fix_for(catalog, p, est)) for p, est in rows)


@dataclasses.dataclass(frozen=True)
class Lead:
    """The model page's first sentence: what the model needs in 4-bit at the default context, the
    smallest graphics card that holds it and its longest context there, or, when no card does, how many
    devices of the reference accelerator it takes."""

    fmt: str
    context: int
    total_bytes: int
    card: Hardware | None
    card_max_context: int
    reference: Hardware
    reference_devices: int | None
    # For the page's questions: how many accelerators hold the default setup, the fastest of them and
    # the speed on the smallest card, and the memory at a few contexts on the reference accelerator.
    fits: int = 0
    accelerators: int = 0
    fastest: tuple[Hardware, float] | None = None
    card_tok_s: float | None = None
    totals: tuple[tuple[int, int], ...] = ()


# The contexts the model page's memory question answers for (capped at the model's maximum).
FAQ_CONTEXTS = (8192, 32768, 131072)


def lead(pairs: Sequence[PairData], reference: str, tight: float) -> Lead:
    """The lead from the pairs' common setup (4-bit GGUF on llama.cpp at the default context); the
    accelerators that cannot run it count as not holding it."""
    ran = [(p, p.standard) for p in pairs if p.standard is not None]
    ref, est = next(((p, e) for p, e in ran if p.hardware.slug == reference), ran[0])
    holding = [(p, e) for p, e in ran if p.hardware.kind in CARD_KINDS and e.memory.verdict != "oom"]

    def key(row: tuple[PairData, Estimate]) -> tuple[float, float, str]:
        price = row[0].hardware.price
        return (row[0].hardware.memory_bytes, price.usd if price else math.inf, row[0].hardware.slug)

    card = min(holding, key=key, default=None)
    fitting = [(p, e) for p, e in ran if e.memory.verdict != "oom"]
    fast = max(fitting, key=lambda r: (r[1].speed.decode_tok_s, r[0].hardware.slug), default=None)
    top = ref.model.max_context
    contexts = sorted({min(c, top) for c in FAQ_CONTEXTS})
    totals = tuple(
        (c, memory(ref.model, est.weights, device_view(ref.hardware), est.scenario, tight, context=c).total_bytes)
        for c in contexts
    )
    return Lead(
        fmt=est.scenario.fmt.name,
        context=est.scenario.context,
        total_bytes=est.memory.total_bytes,
        card=card[0].hardware if card else None,
        card_max_context=card[1].max_context if card else 0,
        reference=ref.hardware,
        reference_devices=est.min_gpus,
        fits=len(fitting),
        accelerators=len(pairs),
        fastest=(fast[0].hardware, fast[1].speed.decode_tok_s) if fast else None,
        card_tok_s=card[1].speed.decode_tok_s if card else None,
        totals=totals,
    )


# The leaderboard's memory filter, in GB as cards are sold (a device passes at memory ≥ N × 10⁹ bytes).
MEMORY_STEPS_GB = (8, 12, 16, 24, 32, 48, 64, 80, 96, 128, 192, 256)


def leaderboard_controls(catalog: Catalog, engine: EngineProfile, kv: KVDtype) -> dict[str, object]:
    """The leaderboard's choices: the default KV cache and the engine's smaller ones, the vendors and
    kinds of accelerator in the catalog, and the memory steps."""
    hardware = list(catalog.hardware.values())
    return {
        "lb_kv": [kv, *smaller_kv(catalog, engine, kv)],
        "lb_vendors": sorted({h.vendor for h in hardware}),
        "lb_kinds": [k.value for k in HardwareKind if any(h.kind is k for h in hardware)],
        "lb_memory": list(MEMORY_STEPS_GB),
    }


@dataclasses.dataclass(frozen=True)
class Recommended:
    """The cheapest new purchase that runs something comfortably: ``units`` cards of ``hardware``."""

    hardware: Hardware
    units: int
    cost_usd: float


def _cheapest(options: Sequence[tuple[Hardware, int]]) -> Recommended | None:
    """The cheapest single card among (hardware, devices) options with a new-unit price; when no single
    card will do, the fewest cards, cheapest first (seven small cards are rarely a setup anyone builds)."""
    priced = [
        Recommended(hw, math.ceil(n / hw.chips), hw.price.usd * math.ceil(n / hw.chips))
        for hw, n in options
        if hw.price is not None
    ]
    return min(priced, key=lambda r: (r.units, r.cost_usd, r.hardware.name), default=None)


def comfortable_devices(catalog: Catalog, p: PairData, row: FormatRow) -> int | None:
    """The fewest devices of the pair's accelerator that hold ``row``'s format comfortably (under the
    tight fraction of usable memory) at the row's context; None beyond the maximum or where it cannot run."""
    if row.est is None:
        return None
    if row.est.memory.verdict == "comfortable":
        return row.est.scenario.gpus
    if p.hardware.kind in SINGLE or row.est.min_gpus is None:
        return None
    a = catalog.assumptions
    sc = row.est.scenario
    device = device_view(p.hardware)
    for n in range(max(row.est.min_gpus, sc.gpus), a.max_gpus + 1):
        if n % p.hardware.chips or not tp_valid(p.model, sc.engine, n):
            continue
        if (
            memory(p.model, row.est.weights, device, sc.with_(gpus=n, offload=0.0), a.verdict_tight_fraction).verdict
            == "comfortable"
        ):
            return n
    return None


def recommended_per_format(catalog: Catalog, pairs: Sequence[PairData]) -> dict[str, Recommended]:
    """For each format, the cheapest new card that runs it comfortably at the default context (its natural
    engine, the engine's default KV cache); when no card does alone, the fewest cards."""
    out = {}
    for i, fmt in enumerate(pairs[0].matrix if pairs else ()):
        options = []
        for p in pairs:
            n = comfortable_devices(catalog, p, p.matrix[i])
            if n is not None:
                options.append((p.hardware, n))
        best = _cheapest(options)
        if best is not None:
            out[fmt.fmt.name] = best
    return out


@dataclasses.dataclass(frozen=True)
class EngineSetup:
    """The recommended way to run a model on one engine: a format with a published checkpoint on the
    cheapest card that holds it comfortably at the default context, and the command that starts it."""

    engine: str  # the engine's label
    fmt: str
    recommended: Recommended
    command: str


# Engines the model page gives a command for, in the order the pair pages list them.
COMMAND_ENGINES = ("llama.cpp", "vllm", "ollama", "mlx")


def recommended_commands(
    catalog: Catalog, model: Model, recommended: Mapping[str, Recommended]
) -> tuple[EngineSetup, ...]:
    """Per engine, the cheapest recommended setup (the better format on a tie) among formats it loads with a
    published checkpoint; Ollama runs its tag, so it takes the GGUF reference format's card."""
    out = []
    for engine in COMMAND_ENGINES:
        profile = catalog.engines.get(engine)
        if profile is None or not model.runs_on(engine):
            continue
        choices = []
        for fmt in catalog.formats.values():
            rec = recommended.get(fmt.name)
            if rec is None or fmt.family not in profile.formats or not model.has_checkpoint(fmt.name, fmt.family):
                continue
            if FAMILY_ENGINE[fmt.family.value] != engine and not (engine == "ollama" and fmt.name == DEFAULT_FORMAT):
                continue
            if not profile.runs(rec.hardware, fmt.name):
                continue  # the card was picked for the format's natural engine; Ollama may not run there
            choices.append((rec.cost_usd, -fmt.bits_per_weight, fmt.name, rec))
        if not choices:
            continue
        _, _, name, rec = min(choices, key=lambda c: c[:3])
        devices = rec.units * rec.hardware.chips if profile.split != "none" and engine != "ollama" else 1
        dtype = profile.dtype_on(rec.hardware, name)
        context = catalog.assumptions.default_context
        inputs = CommandInputs(engine, name, context, 1, devices, profile.default_kv_dtype, dtype=dtype)
        built = launch_command(model, profile.memory_utilization, inputs)
        if built is not None:
            out.append(EngineSetup(profile.label, name, rec, built[0]))
    return tuple(out)


def recommended_per_finetune(catalog: Catalog, pairs: Sequence[PairData]) -> list[Recommended | None]:
    """For QLoRA, LoRA and full fine-tuning, the cheapest new card that holds the method's memory
    comfortably (under the tight fraction of its usable memory); when none does alone, the fewest cards."""
    tight = catalog.assumptions.verdict_tight_fraction
    out: list[Recommended | None] = []
    for k in range(len(pairs[0].est.finetune) if pairs else 0):
        options = []
        for p in pairs:
            need = p.est.finetune[k].total_bytes
            per_device = p.est.memory.usable_per_gpu_bytes * tight
            n = max(p.hardware.chips, math.ceil(need / per_device / p.hardware.chips) * p.hardware.chips)
            if n == p.hardware.chips or (p.hardware.kind not in SINGLE and n <= catalog.assumptions.max_gpus):
                options.append((p.hardware, n))
        out.append(_cheapest(options))
    return out


@dataclasses.dataclass(frozen=True)
class KVLine:
    """The KV cache per token of the attention layers that share one geometry (16-bit cache)."""

    mla: bool
    kv_heads: int
    head_dim: int
    value_dim: int
    rank: int
    rope: int
    bytes_per_element: float
    per_layer: float
    layers: int
    total: float
    sliding_layers: int
    window: int | None
    # A sparse-attention indexer's key per token and layer (0: none), its 16-bit bytes, and how many
    # tokens the attention then reads.
    index_dim: int = 0
    index_per_layer: float = 0.0
    top_k: int = 0

    @property
    def index_total(self) -> float:
        """Index-key bytes per token over these layers."""
        return self.index_per_layer * self.layers


@dataclasses.dataclass(frozen=True)
class CompressedLine:
    """DeepSeek V4 layers that compress every ``ratio`` tokens into one row (0: a window only), 16-bit."""

    layers: int
    ratio: int
    row_dim: int
    window: int
    row_bytes: float
    index_dim: int
    top_k: int
    # Whether these layers read the rows a layer below them keeps (DeepSeek V4.1) instead of their own.
    shared: bool = False

    @property
    def per_token(self) -> float:
        """Bytes per token these layers add as the context grows (rows and index keys, 16-bit)."""
        if not self.ratio or self.shared:
            return 0.0
        return self.layers * (self.row_bytes + self.index_dim * 2.0) / self.ratio


@dataclasses.dataclass(frozen=True)
class KVFormula:
    """The KV cache per token of a model, worked out with its own numbers: one line per attention
    geometry (and per compression ratio), and the layers that keep a fixed state instead."""

    lines: tuple[KVLine, ...]
    state_layers: int
    compressed: tuple[CompressedLine, ...] = ()

    @property
    def total(self) -> float:
        """Bytes per token over every attention layer, index keys included."""
        return sum(line.total + line.index_total for line in self.lines) + sum(c.per_token for c in self.compressed)

    @property
    def sums_parts(self) -> bool:
        """Whether the page adds several parts (geometries, index keys or compressed layers) up to the total."""
        return len(self.lines) + len(self.compressed) > 1 or any(line.index_dim for line in self.lines)


def kv_formula(model: Model) -> KVFormula:
    """KV bytes per token per attention layer and over the attention layers, in BF16, for each
    attention geometry; sliding-window and recurrent layers are named (the first cap their cache,
    the others keep a fixed state per sequence)."""
    laid = layout(model)
    groups: dict[tuple[object, ...], list[tuple[AttentionBlock | MLABlock, int]]] = {}
    for block, n in laid.attention:
        key: tuple[object, ...] = (
            ("mla", block.kv_lora_rank, block.qk_rope_head_dim, block.indexer)
            if isinstance(block, MLABlock)
            else ("gqa", block.kv_heads, block.head_dim, block.value_dim, block.indexer)
        )
        groups.setdefault(key, []).append((block, n))
    lines = []
    for members in groups.values():
        block = members[0][0]
        per_layer = kv_elements_per_token(block) * 2.0
        ix = block.indexer
        layers = sum(n for _, n in members)
        windowed = [(b, n) for b, n in members if isinstance(b, AttentionBlock) and b.window is not None]
        mla = isinstance(block, MLABlock)
        lines.append(
            KVLine(
                mla=mla,
                kv_heads=0 if isinstance(block, MLABlock) else block.kv_heads,
                head_dim=0 if isinstance(block, MLABlock) else block.head_dim,
                value_dim=0 if isinstance(block, MLABlock) else block.value_dim,
                rank=block.kv_lora_rank if isinstance(block, MLABlock) else 0,
                rope=block.qk_rope_head_dim if isinstance(block, MLABlock) else 0,
                bytes_per_element=2.0,
                per_layer=per_layer,
                layers=layers,
                total=per_layer * layers,
                sliding_layers=sum(n for _, n in windowed),
                window=min((b.window for b, _ in windowed if isinstance(b, AttentionBlock) and b.window), default=None),
                index_dim=ix.head_dim if ix else 0,
                index_per_layer=index_key_bytes(block, 2.0, None),
                top_k=ix.top_k if ix else 0,
            )
        )
    compressed = tuple(
        CompressedLine(
            layers=n,
            ratio=b.ratio,
            row_dim=b.head_dim,
            window=b.window,
            row_bytes=b.head_dim * 2.0,
            index_dim=b.indexer.head_dim if b.indexer else 0,
            top_k=b.indexer.top_k if b.indexer else 0,
            shared=b.cache == "shared",
        )
        for b, n in laid.compressed
    )
    return KVFormula(lines=tuple(lines), state_layers=sum(n for _, n in laid.recurrent), compressed=compressed)


def memory_at(lead: Lead, lang: str) -> list[str]:
    """The lead's memory at each context as "8K tokens: 20.8 GiB" in ``lang`` (a list the page joins)."""
    tr = translations(lang)
    fmt = NumberFormat(lang)
    return [tr.gettext("%(ctx)s tokens: %(mem)s") % {"ctx": fmt.tokens(c), "mem": fmt.bytes(n)} for c, n in lead.totals]
