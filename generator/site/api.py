"""JSON API payloads as pydantic models: the schemas under /api/v1/schema/ are generated from these."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from generator.content.catalog import Catalog
from generator.content.schema import Hardware
from generator.site import routes
from generator.site.browser_data import hardware_data
from generator.site.hardware_page import HardwareRow
from generator.site.pair_page import ContextRow, FormatRow, PairData
from generator.site.quality import Quality
from generator.site.setups import Answer, Setup
from generator.sizing.estimate import SIZING_VERSION, Estimate, model_engines, standard_setup
from generator.sizing.params import count_params
from generator.sizing.serving import Load, Serving

Verdict = Literal["comfortable", "tight", "oom"]


class Payload(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EstimateJSON(Payload):
    """Every key of ``estimate --json`` (the README lists them). Bytes are integers."""

    model: str
    hardware: str
    quant: str
    engine: str
    kv_dtype: str
    context: int
    batch: int
    gpus: int
    offload: float
    vision: bool
    params_total: int
    params_active: int
    params_declared: int | None
    params_declared_active: int | None
    weights_bytes: int
    vision_bytes: int
    kv_cache_bytes: int
    overhead_bytes: int
    total_bytes: int
    usable_bytes: int
    headroom_bytes: int
    offload_bytes: int
    per_gpu_bytes: int
    usable_per_gpu_bytes: int
    verdict: Verdict
    utilization: float
    effective_bpw: float
    kv_bytes_per_token: float
    state_bytes: int
    max_context: int
    max_batch: int
    min_gpus: int | None
    decode_tok_s: float
    decode_tok_s_aggregate: float
    prefill_tok_s: float | None
    ttft_s: float | None
    ttft_prompt_tokens: int
    decode_tok_s_low: float | None
    decode_tok_s_high: float | None
    prefill_tok_s_low: float | None
    prefill_tok_s_high: float | None
    ttft_s_low: float | None
    ttft_s_high: float | None
    qlora_bytes: int
    lora_bytes: int
    full_finetune_bytes: int
    cloud_usd_per_hour: float | None
    usd_per_mtok: float | None
    monthly_usd: float | None
    buy_usd: float | None
    # The rig (content/rigs.yaml) bought with several cards or modules: its slug, parts' cost, the cards it
    # takes (a baseboard is bought whole) and the household circuits it needs.
    rig: str | None
    rig_usd: float | None
    rig_cards: int | None
    rig_circuits: int | None
    power_usd_per_hour: float | None
    breakeven_months: float | None
    api_usd_per_mtok: float | None
    calibration: str
    decode_extrapolated: bool
    prefill_extrapolated: bool
    warnings: list[str]


class QualityInfo(Payload):
    """How much a weight format loses against the 16-bit model, as the quoted measurement says
    (content/quality.yaml); ``metric`` is None for the 16-bit reference itself."""

    label: Literal["lossless", "near_lossless", "balanced", "low_vram", "heavy_loss"]
    loss: float
    metric: Literal["ppl_ratio", "recovery"] | None
    value: float | None
    kld: float | None
    model_ref: str | None
    on_this_model: bool
    source: str | None
    date: str | None


class MatrixRow(Payload):
    """One weight format that runs on the pair's hardware, with its natural engine."""

    quant: str
    engine: str
    weights_bytes: int
    kv_cache_bytes: int
    total_bytes: int
    decode_tok_s: float
    decode_tok_s_low: float | None
    decode_tok_s_high: float | None
    verdict: Verdict
    min_gpus: int | None
    quality: Literal["lossless", "near_lossless", "balanced", "low_vram", "heavy_loss"] | None


class Unavailable(Payload):
    """A weight format that does not run on the pair's hardware, and why."""

    quant: str
    engine: str
    reason: str


class ContextJSON(Payload):
    """Memory at one context with 16-bit and 8-bit KV cache."""

    context: int
    kv16_dtype: str
    kv8_dtype: str
    kv16_bytes: int
    kv8_bytes: int
    total16_bytes: int
    total8_bytes: int
    verdict16: Verdict
    verdict8: Verdict


class LoadJSON(Payload):
    """``users`` asking at once: ``running`` decode at ``per_user_tok_s`` each, the rest queue for a slot."""

    users: int
    running: int
    queued: int
    per_user_tok_s: float
    aggregate_tok_s: float
    usd_per_mtok: float | None


class ServingJSON(Payload):
    """A setup of the pair page serving many users at the page's context: the most users that each decode
    at ``floor_tok_s`` or faster (0: not one), and what each of ``loads`` gets."""

    engine: str
    quant: str
    gpus: int
    context: int
    kv_pool_sequences: int
    floor_tok_s: float
    users_at_floor: int
    at_floor: LoadJSON | None
    loads: list[LoadJSON]


class PairJSON(Payload):
    """/api/v1/pairs/{model}/{hardware}.json"""

    engine_version: str
    model: str
    hardware: str
    url: str
    estimate: EstimateJSON
    quant_matrix: list[MatrixRow]
    unavailable: list[Unavailable]
    context_scaling: list[ContextJSON]
    serving: list[ServingJSON]


class HardwareSummary(Payload):
    """One accelerator on a model's leaderboard: the leaderboard's setup (``leaderboard_quant`` on
    ``leaderboard_engine``, default KV cache and context, one card) on it."""

    hardware: str
    verdict: Verdict
    total_bytes: int
    usable_bytes: int
    decode_tok_s: float
    decode_tok_s_low: float | None
    decode_tok_s_high: float | None
    ttft_s: float | None
    ttft_s_low: float | None
    ttft_s_high: float | None
    max_context: int
    pair: str


class ModelJSON(Payload):
    """/api/v1/models/{model}.json"""

    engine_version: str
    slug: str
    name: str
    hf_id: str
    organization: str
    family: str
    license: str
    release_date: str
    params_total: int
    params_active: int
    params_declared: int | None
    architecture: dict[str, Any]
    # The layers: named blocks (attention, MLA, gated delta net, Mamba-2, dense, MoE) and their schedule.
    network: dict[str, Any]
    url: str
    badge: str
    sources: list[str]
    quality: dict[str, QualityInfo]
    # The setup the leaderboard compares; accelerators whose platform does not run it are left out.
    leaderboard_quant: str
    leaderboard_engine: str
    leaderboard: list[HardwareSummary]
    # The engines that load this model's architecture, and the accelerators none of them runs on (no
    # pair, no page: the model page lists them).
    engines: list[str]
    not_run_on: list[str]


class ModelOnHardware(Payload):
    """One model on one accelerator in the format a person would run there (the hardware page's row):
    the best-quality format with a published checkpoint that fits comfortably, else tightly."""

    model: str
    best_quant: str | None
    engine: str | None
    verdict: Verdict | None
    total_bytes: int | None
    decode_tok_s: float | None
    decode_tok_s_low: float | None
    decode_tok_s_high: float | None
    max_context: int | None
    pair: str


class HardwareJSON(Payload):
    """/api/v1/hardware/{hardware}.json"""

    engine_version: str
    slug: str
    name: str
    vendor: str
    kind: str
    memory_bytes: int
    bandwidth_gbps: float
    tflops_bf16: float | None
    tdp_w: float | None
    price_usd: float | None
    price_date: str | None
    price_kind: str | None
    used_price_usd: float | None
    used_price_date: str | None
    prices: list[dict[str, Any]]
    url: str
    sources: list[str]
    facts: dict[str, Any]
    models: list[ModelOnHardware]
    # Models that no engine loading their architecture runs on this accelerator (no pair, no page).
    models_not_run: list[str]


class IndexModel(Payload):
    slug: str
    name: str
    hf_id: str
    params_total: int
    url: str
    json_url: str


class IndexHardware(Payload):
    slug: str
    name: str
    vendor: str
    kind: str
    memory_bytes: int
    bandwidth_gbps: float
    url: str
    json_url: str


class IndexJSON(Payload):
    """/api/v1/index.json"""

    engine_version: str
    models: list[IndexModel]
    hardware: list[IndexHardware]


class BadgeJSON(Payload):
    """/badges/{model}.json: the shields.io endpoint schema, nothing else."""

    schemaVersion: Literal[1]  # noqa: N815 - the shields.io key
    label: str
    message: str
    color: str


class QuestionJSON(Payload):
    """A buyer's question: context per user, decode speed per user, users, buy new / used / rent."""

    context: int
    min_tok_s: float
    users: int
    mode: Literal["buy", "used", "rent"]
    max_devices: int


class SetupJSON(Payload):
    """One setup that meets a question: device, how many, format, KV cache, engine, and its cost."""

    hardware: str
    hardware_name: str
    devices: int
    units: int
    quant: str
    engine: str
    kv_dtype: str
    verdict: Verdict
    headroom_bytes: int
    decode_tok_s: float
    decode_tok_s_low: float | None
    decode_tok_s_high: float | None
    ttft_s: float | None
    cost_usd: float
    usd_per_hour: float | None
    price_kind: str | None
    price_date: str | None
    # A purchase: one card's (or machine's) price; with two cards or more, the rig that holds them
    # (content/rigs.yaml: slug, name, the cards it takes, its cost, power supplies, draw in W, household
    # circuits), whose cost is in cost_usd.
    unit_price_usd: float | None = None
    rig: dict[str, Any] | None = None
    # A rental: the one instance rented whole (provider, instance, its GPUs, billing, the day it was seen).
    offer: dict[str, Any] | None = None
    # The decode range's low end is under the question's speed.
    may_fall_short: bool = False
    # The median error of the engine on these devices where the accuracy page measures it poorly.
    poorly_measured: float | None = None
    # Whether the format has a published checkpoint (False: the user quantizes the model).
    published: bool = True
    usd_per_tok_s: float
    # The pair page, opening in this setup.
    url: str


class AnswerJSON(Payload):
    """A question and its cheapest setups, cheapest first."""

    question: QuestionJSON
    setups: list[SetupJSON]


class SetupsJSON(Payload):
    """/api/v1/models/{model}/setups.json: the finder's answers to the common questions."""

    engine_version: str
    model: str
    answers: list[AnswerJSON]


SCHEMAS: dict[str, type[Payload]] = {
    "estimate": EstimateJSON,
    "pair": PairJSON,
    "model": ModelJSON,
    "hardware": HardwareJSON,
    "index": IndexJSON,
    "badge": BadgeJSON,
    "setups": SetupsJSON,
}


def setup_json(model: str, s: Setup) -> SetupJSON:
    """One setup as JSON."""
    e = s.est
    return SetupJSON(
        hardware=s.hardware.slug,
        hardware_name=s.hardware.name,
        devices=s.devices,
        units=s.units,
        quant=s.fmt,
        engine=s.engine,
        kv_dtype=s.kv_dtype,
        verdict=e.memory.verdict,
        headroom_bytes=e.memory.headroom_bytes,
        decode_tok_s=e.speed.decode_tok_s,
        decode_tok_s_low=e.speed_range.decode_low,
        decode_tok_s_high=e.speed_range.decode_high,
        ttft_s=e.speed.ttft_s,
        cost_usd=s.cost_usd,
        usd_per_hour=s.usd_per_hour,
        price_kind=s.price.kind if s.price else None,
        price_date=s.price.date.isoformat() if s.price else None,
        unit_price_usd=s.price.usd if s.price else None,
        rig=(
            {
                "slug": s.rig.rig.slug,
                "name": s.rig.rig.name,
                "cards": s.rig.cards,
                "usd": s.rig.usd,
                "psus": s.rig.psus,
                "draw_w": s.rig.draw_w,
                "circuits": s.rig.circuits,
            }
            if s.rig
            else None
        ),
        offer=s.offer.model_dump(mode="json", include={"provider", "instance", "gpus", "billing", "date_seen"})
        if s.offer
        else None,
        may_fall_short=s.may_fall_short,
        poorly_measured=s.poor_cell,
        published=s.published,
        usd_per_tok_s=s.usd_per_tok_s,
        url=routes.pair_link("en", model, s.hardware.slug, e.scenario.brief_inputs()),
    )


def setups_json(model: str, answers: Sequence[Answer]) -> SetupsJSON:
    """A model's answers to the common questions."""
    return SetupsJSON(
        engine_version=SIZING_VERSION,
        model=model,
        answers=[
            AnswerJSON(
                question=QuestionJSON(
                    context=a.question.context,
                    min_tok_s=a.question.min_tok_s,
                    users=a.question.users,
                    mode=a.question.mode,
                    max_devices=a.question.max_devices,
                ),
                setups=[setup_json(model, s) for s in a.setups],
            )
            for a in answers
        ],
    )


def estimate_json(est: Estimate) -> EstimateJSON:
    """The estimate's keys, validated."""
    return EstimateJSON.model_validate(est.to_dict())


def _matrix_row(r: FormatRow, e: Estimate, quality: Mapping[str, Quality]) -> MatrixRow:
    q = quality.get(r.fmt.name)
    return MatrixRow(
        quant=r.fmt.name,
        engine=r.engine.name,
        weights_bytes=e.memory.weights_bytes,
        kv_cache_bytes=e.memory.kv_cache_bytes,
        total_bytes=e.memory.total_bytes,
        decode_tok_s=e.speed.decode_tok_s,
        decode_tok_s_low=e.speed_range.decode_low,
        decode_tok_s_high=e.speed_range.decode_high,
        verdict=e.memory.verdict,
        min_gpus=e.min_gpus,
        quality=q.label if q else None,
    )


def _context_row(r: ContextRow, kv16: str, kv8: str) -> ContextJSON:
    return ContextJSON(
        context=r.context,
        kv16_dtype=kv16,
        kv8_dtype=kv8,
        kv16_bytes=r.kv16_bytes,
        kv8_bytes=r.kv8_bytes,
        total16_bytes=r.total16_bytes,
        total8_bytes=r.total8_bytes,
        verdict16=r.verdict16,
        verdict8=r.verdict8,
    )


def pair_json(p: PairData, quality: Mapping[str, Quality]) -> PairJSON:
    """The pair's JSON: default-scenario estimate, quantization matrix, context scaling."""
    return PairJSON(
        engine_version=SIZING_VERSION,
        model=p.model.slug,
        hardware=p.hardware.slug,
        url=routes.page_path("pair", "en", p.model.slug, p.hardware.slug),
        estimate=estimate_json(p.est),
        quant_matrix=[_matrix_row(r, r.est, quality) for r in p.matrix if r.est],
        unavailable=[
            Unavailable(quant=r.fmt.name, engine=r.engine.name, reason=r.reason) for r in p.matrix if not r.est
        ],
        context_scaling=[_context_row(r, p.kv16, p.kv8) for r in p.contexts],
        serving=[_serving(s) for s in p.serving],
    )


def _load(x: Load) -> LoadJSON:
    return LoadJSON(
        users=x.users,
        running=x.running,
        queued=x.queued,
        per_user_tok_s=x.per_user_tok_s,
        aggregate_tok_s=x.aggregate_tok_s,
        usd_per_mtok=x.usd_per_mtok,
    )


def _serving(s: Serving) -> ServingJSON:
    sc = s.est.scenario
    return ServingJSON(
        engine=sc.engine.name,
        quant=sc.fmt.name,
        gpus=sc.gpus,
        context=sc.context,
        kv_pool_sequences=s.pool,
        floor_tok_s=s.floor_tok_s,
        users_at_floor=s.users_at_floor,
        at_floor=_load(s.at_floor) if s.at_floor else None,
        loads=[_load(x) for x in s.loads],
    )


def model_json(catalog: Catalog, pairs: list[PairData], quality: Mapping[str, Quality]) -> ModelJSON:
    """A model's JSON with its leaderboard over every accelerator that runs the common setup."""
    m = pairs[0].model
    params = pairs[0].est.params
    std = standard_setup(catalog, m)
    paired = {p.hardware.slug for p in pairs}
    return ModelJSON(
        engine_version=SIZING_VERSION,
        slug=m.slug,
        name=m.name,
        hf_id=m.hf_id,
        organization=m.organization,
        family=m.family,
        license=m.license,
        release_date=str(m.release_date),
        params_total=params.total,
        params_active=params.active,
        params_declared=m.params_total,
        architecture=m.architecture.model_dump(mode="json"),
        network=m.network.model_dump(mode="json", exclude_defaults=True),
        url=routes.page_path("model", "en", m.slug),
        badge=routes.badge(m.slug),
        sources=list(m.sources),
        quality={name: QualityInfo.model_validate(q.to_json()) for name, q in quality.items()},
        leaderboard_quant=std[0].name,
        leaderboard_engine=std[1].name,
        leaderboard=[
            HardwareSummary(
                hardware=p.hardware.slug,
                verdict=e.memory.verdict,
                total_bytes=e.memory.total_bytes,
                usable_bytes=e.memory.usable_bytes,
                decode_tok_s=e.speed.decode_tok_s,
                decode_tok_s_low=e.speed_range.decode_low,
                decode_tok_s_high=e.speed_range.decode_high,
                ttft_s=e.speed.ttft_s,
                ttft_s_low=e.speed_range.ttft_low,
                ttft_s_high=e.speed_range.ttft_high,
                max_context=e.max_context,
                pair=routes.api_pair(m.slug, p.hardware.slug),
            )
            for p in pairs
            if (e := p.standard) is not None
        ],
        engines=[e.name for e in model_engines(catalog, m)],
        not_run_on=[h for h in catalog.hardware if h not in paired],
    )


def model_summaries(catalog: Catalog) -> list[dict[str, Any]]:
    """Every model with its slug, name, Hugging Face id and derived parameter count."""
    return [
        {"slug": m.slug, "name": m.name, "hf_id": m.hf_id, "params_total": count_params(m).total}
        for m in catalog.models.values()
    ]


def hardware_summaries(catalog: Catalog) -> list[dict[str, Any]]:
    """Every accelerator with its key specs."""
    return [
        {
            "slug": h.slug,
            "name": h.name,
            "vendor": h.vendor,
            "kind": h.kind.value,
            "memory_bytes": h.memory_bytes,
            "bandwidth_gbps": h.bandwidth_gbps,
        }
        for h in catalog.hardware.values()
    ]


def index_json(catalog: Catalog) -> IndexJSON:
    """/api/v1/index.json: every model and accelerator with the URLs of its page and its JSON."""
    return IndexJSON(
        engine_version=SIZING_VERSION,
        models=[
            IndexModel(
                slug=m["slug"],
                name=m["name"],
                hf_id=m["hf_id"],
                params_total=m["params_total"],
                url=routes.page_path("model", "en", m["slug"]),
                json_url=routes.api_model(m["slug"]),
            )
            for m in model_summaries(catalog)
        ],
        hardware=[
            IndexHardware(
                **h, url=routes.page_path("hardware", "en", hardware=h["slug"]), json_url=routes.api_hardware(h["slug"])
            )
            for h in hardware_summaries(catalog)
        ],
    )


def hardware_json(catalog: Catalog, hw: Hardware, rows: list[HardwareRow]) -> HardwareJSON:
    """An accelerator's JSON with the best format of every model on it."""
    paired = {row.model_slug for row in rows}
    out = [
        ModelOnHardware(
            model=row.model_slug,
            best_quant=row.quant,
            engine=row.engine,
            verdict=row.verdict,
            total_bytes=row.total_bytes,
            decode_tok_s=row.decode_tok_s,
            decode_tok_s_low=row.decode_low,
            decode_tok_s_high=row.decode_high,
            max_context=row.max_context,
            pair=routes.api_pair(row.model_slug, hw.slug),
        )
        for row in rows
    ]
    return HardwareJSON(
        engine_version=SIZING_VERSION,
        slug=hw.slug,
        name=hw.name,
        vendor=hw.vendor,
        kind=hw.kind.value,
        memory_bytes=hw.memory_bytes,
        bandwidth_gbps=hw.bandwidth_gbps,
        tflops_bf16=hw.compute_tflops,
        tdp_w=hw.tdp_w,
        price_usd=hw.price.usd if hw.price else None,
        price_date=hw.price.date.isoformat() if hw.price else None,
        price_kind=hw.price.kind if hw.price else None,
        used_price_usd=hw.used_price.usd if hw.used_price else None,
        used_price_date=hw.used_price.date.isoformat() if hw.used_price else None,
        prices=[p.model_dump(mode="json") for p in hw.prices],
        url=routes.page_path("hardware", "en", hardware=hw.slug),
        sources=list(hw.sources),
        facts=hardware_data(hw),
        models=out,
        models_not_run=[m for m in catalog.models if m not in paired],
    )
