"""``estimate(model, hardware, scenario, facts) -> Estimate``: the one function every page uses."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterator, Sequence
from typing import Any

from generator.content.catalog import Catalog
from generator.content.schema import (
    Assumptions,
    Calibration,
    EngineBackend,
    EngineProfile,
    ErrorSummary,
    Hardware,
    HardwareKind,
    Model,
    QuantFormat,
)
from generator.sizing.cost import Cost, cost
from generator.sizing.devices import device_view
from generator.sizing.finetune import FineTune, finetune
from generator.sizing.kv import state_bytes_per_seq
from generator.sizing.memory import Memory, largest, memory, split_blocker, tp_valid
from generator.sizing.params import ParamCount, compared_total, count_params, declared_mismatch
from generator.sizing.scenario import DEFAULT_ENGINE, DEFAULT_FORMAT, FAMILY_ENGINE, Facts, Scenario, calibration_for
from generator.sizing.speed import Speed, SpeedConstants, SpeedRange, speed, speed_range
from generator.sizing.weights import WeightBytes, weight_bytes

SIZING_VERSION = "1"


class ScenarioError(ValueError):
    """A scenario this model, hardware and engine cannot run (e.g. a GGUF format on vLLM): ``code`` names
    the reason (a key of :data:`REASONS`) and ``values`` fill its slots, so pages can say it in any
    language (generator/site/cells.py reason_templates)."""

    def __init__(self, code: str, values: dict[str, str]) -> None:
        self.code = code
        self.values = values
        super().__init__(fill(REASONS[code], values))


# Why a scenario cannot run, in English with {slots}; static/sizing.js has the same table.
REASONS = {
    "format": "{engine} does not load {fmt} ({family}); it loads {formats}",
    "hardware": "{engine} does not run on {hw}",
    "backend_format": "{engine} runs {formats} on {hw} ({backend}), not {fmt}",
    "kv": "{engine} has no {kv} KV cache (supported by {engines})",
    "backend_kv": "{engine} has no {kv} KV cache on {hw} ({backend}: {kvs})",
    "moe_only": "{fmt} quantizes MoE experts; {model} is a dense model",
    "offload": "{engine} does not offload layers to system RAM in this estimate",
    "vision": "{engine} loads only the text model of {model}, not its vision encoder",
    "long_context": "{engine} cannot apply {model}'s YaRN scaling past {n} tokens from its command line",
    "split": "{engine} cannot split {model} over {n} devices ({heads} attention heads, {kv_heads} KV heads)",
    "architecture": "{engine} does not run {model}: no release of it is known to load {arch} models",
}


# The one warning that follows the engine on a page (static/workbench.js adds and removes it by this text).
VISION_PROFILE = (
    "{engine} also profiles image inputs at start-up; that activation memory is not counted "
    """(--limit-mm-per-prompt '{"image": 0}' serves text only)"""
)


def fill(template: str, values: dict[str, str]) -> str:
    """``{slot}`` replaced by its value (unknown slots kept), as static/sizing.js fills them."""
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), template)


@dataclasses.dataclass(frozen=True)
class Estimate:
    """Everything computed for one model × hardware × scenario, with the inputs that made it."""

    model: Model
    hardware: Hardware
    scenario: Scenario
    params: ParamCount
    params_mismatch: float | None
    weights: WeightBytes
    memory: Memory
    min_gpus: int | None
    speed: Speed
    speed_range: SpeedRange
    calibration_note: str
    # Decode, prefill: whether no measurement of the engine on the device's class backs the speed.
    extrapolated: tuple[bool, bool]
    cost: Cost
    warnings: tuple[str, ...]
    assumptions: Assumptions
    # The calibration the speeds came from (serving.py reruns them for more sequences).
    constants: SpeedConstants

    def _fits(self, **kw: int) -> bool:
        tight = self.assumptions.verdict_tight_fraction
        m = memory(self.model, self.weights, self.hardware, self.scenario, tight, **kw)
        return m.verdict != "oom"

    @functools.cached_property
    def finetune(self) -> tuple[FineTune, FineTune, FineTune]:
        """QLoRA, LoRA and full fine-tuning memory (computed on first use)."""
        return finetune(self.model, self.params, self.assumptions)

    @functools.cached_property
    def max_context(self) -> int:
        """The longest context (tokens per sequence) that fits, by binary search (computed on first use), up
        to the model's documented maximum (the config's where the engine cannot apply the card's YaRN)."""
        model = self.model
        top = model.max_context if self.scenario.engine.extends_context else model.architecture.max_context
        return max(0, largest(lambda c: self._fits(context=c), 1, top))

    @functools.cached_property
    def max_batch(self) -> int:
        """The most sequences of the scenario's context that fit at once (computed on first use)."""
        return max(0, largest(lambda b: self._fits(seqs=b), 1, 4096))

    def to_dict(self) -> dict[str, Any]:
        """The estimate keys (README, "estimate --json"): bytes as integers, speeds as floats."""
        m = self.memory
        s = self.speed
        r = self.speed_range
        sc = self.scenario
        qlora, lora, full = self.finetune
        c = self.cost
        return {
            "model": self.model.slug,
            "hardware": self.hardware.slug,
            **sc.inputs(),
            "params_total": self.params.total,
            "params_active": self.params.active,
            "params_declared": self.model.params_total,
            "params_declared_active": self.model.params_active,
            "weights_bytes": m.weights_bytes,
            "vision_bytes": m.vision_bytes,
            "kv_cache_bytes": m.kv_cache_bytes,
            "overhead_bytes": m.overhead_bytes,
            "total_bytes": m.total_bytes,
            "usable_bytes": m.usable_bytes,
            "headroom_bytes": m.headroom_bytes,
            "offload_bytes": m.offload_bytes,
            "per_gpu_bytes": m.per_gpu_bytes,
            "usable_per_gpu_bytes": m.usable_per_gpu_bytes,
            "verdict": m.verdict,
            "utilization": m.utilization,
            "effective_bpw": self.weights.effective_bpw,
            "kv_bytes_per_token": m.kv.bytes_per_token,
            "state_bytes": m.kv.state_bytes,
            "max_context": self.max_context,
            "max_batch": self.max_batch,
            "min_gpus": self.min_gpus,
            "decode_tok_s": s.decode_tok_s,
            "decode_tok_s_aggregate": s.decode_tok_s_aggregate,
            "prefill_tok_s": s.prefill_tok_s,
            "ttft_s": s.ttft_s,
            "ttft_prompt_tokens": s.prompt_tokens,
            "decode_tok_s_low": r.decode_low,
            "decode_tok_s_high": r.decode_high,
            "prefill_tok_s_low": r.prefill_low,
            "prefill_tok_s_high": r.prefill_high,
            "ttft_s_low": r.ttft_low,
            "ttft_s_high": r.ttft_high,
            "qlora_bytes": qlora.total_bytes,
            "lora_bytes": lora.total_bytes,
            "full_finetune_bytes": full.total_bytes,
            "cloud_usd_per_hour": c.cloud_usd_per_hour,
            "usd_per_mtok": c.usd_per_mtok,
            "monthly_usd": c.monthly_usd,
            "buy_usd": c.buy_usd,
            "rig": c.rig.rig.slug if c.rig else None,
            "rig_usd": c.rig.usd if c.rig else None,
            "rig_cards": c.rig.cards if c.rig else None,
            "rig_circuits": c.rig.circuits if c.rig else None,
            "power_usd_per_hour": c.power_usd_per_hour,
            "breakeven_months": c.breakeven_months,
            "api_usd_per_mtok": c.api.output_usd_per_mtok if c.api else None,
            "calibration": self.calibration_note,
            "decode_extrapolated": self.extrapolated[0],
            "prefill_extrapolated": self.extrapolated[1],
            "warnings": list(self.warnings),
        }


Ratios = tuple[float, float]


def ratio_ranges(
    cal: Calibration | None, extrapolated: tuple[bool, bool] = (False, False), tensor_parallel: bool = False
) -> tuple[Ratios | None, Ratios | None]:
    """(low, high) of measured ÷ predicted out of sample, for decode and for prefill: held out by
    hardware entry where the engine's measurements on the device's class back the speed, held out by
    engine × class where they do not (``extrapolated``). Decode in tensor parallel over several devices
    spans the held-out tensor-parallel rows' range too (never narrower than one device's)."""
    if cal is None:
        return None, None

    def pair(summary: ErrorSummary | None, wide: bool) -> Ratios | None:
        if summary is None:
            return None
        return (
            (summary.extrapolated_low, summary.extrapolated_high) if wide else (summary.ratio_low, summary.ratio_high)
        )

    decode = pair(cal.decode, extrapolated[0])
    tp = cal.tensor_parallel
    if tensor_parallel and tp is not None and decode is not None:
        decode = (min(decode[0], tp.ratio_low), max(decode[1], tp.ratio_high))
    return decode, pair(cal.prefill, extrapolated[1])


def _names(backends: Sequence[EngineBackend]) -> str:
    """The backends' names, each once, joined with "/" ("SYCL/Vulkan")."""
    return "/".join(dict.fromkeys(b.name for b in backends))


def _check_loads(model: Model, sc: Scenario) -> None:
    """Raise ScenarioError when the engine has no release that loads the model's architecture, or does not
    load the format's family at all."""
    engine = sc.engine
    if not model.runs_on(engine.name):
        values = {"engine": engine.label, "model": model.name, "arch": model.architecture.model_type}
        raise ScenarioError("architecture", values)
    if sc.fmt.family not in engine.formats:
        served = ", ".join(f.value for f in engine.formats)
        values = {"engine": engine.label, "fmt": sc.fmt.name, "family": sc.fmt.family.value, "formats": served}
        raise ScenarioError("format", values)


def check_scenario(model: Model, hw: Hardware, sc: Scenario) -> None:
    """Raise ScenarioError when the engine cannot run this model, format, hardware or GPU count."""
    engine = sc.engine
    _check_loads(model, sc)
    on = engine.backends_on(hw)
    if not on:
        raise ScenarioError("hardware", {"engine": engine.label, "hw": hw.name})
    running = [b for b in on if b.runs_format(sc.fmt.name)]
    if not running:
        formats = ", ".join(dict.fromkeys(f for b in on for f in b.formats))
        values = {"engine": engine.label, "hw": hw.name, "backend": _names(on), "fmt": sc.fmt.name, "formats": formats}
        raise ScenarioError("backend_format", values)
    if engine.name not in sc.kv.engines:
        raise ScenarioError("kv", {"engine": engine.label, "kv": sc.kv.name, "engines": ", ".join(sc.kv.engines)})
    if not any(b.runs_kv(sc.kv.name) for b in running):
        kvs = ", ".join(dict.fromkeys(k for b in running for k in b.kv_dtypes))
        values = {"engine": engine.label, "hw": hw.name, "backend": _names(running), "kv": sc.kv.name, "kvs": kvs}
        raise ScenarioError("backend_kv", values)
    if sc.fmt.moe_only and not model.is_moe:
        raise ScenarioError("moe_only", {"fmt": sc.fmt.name, "model": model.name})
    if sc.offload and engine.split != "layer":
        raise ScenarioError("offload", {"engine": engine.label})
    if sc.vision and model.vision is not None and engine.vision == "never":
        raise ScenarioError("vision", {"engine": engine.label, "model": model.name})
    if model.extends(sc.context) and not engine.extends_context:
        values = {"engine": engine.label, "model": model.name, "n": str(model.architecture.max_context)}
        raise ScenarioError("long_context", values)
    blocker = split_blocker(model, engine, sc.gpus)
    if blocker is not None:
        heads, kv_heads = blocker
        values = {"engine": engine.label, "model": model.name, "n": str(sc.gpus), "heads": str(heads)}
        raise ScenarioError("split", values | {"kv_heads": str(kv_heads)})


def runs(model: Model, hw: Hardware, sc: Scenario) -> bool:
    """Whether the engine can run ``sc`` here at all (it may still not fit): :func:`check_scenario` passes."""
    try:
        check_scenario(model, hw, sc)
    except ScenarioError:
        return False
    return True


def _preference(
    model: Model, fmt: QuantFormat, engine: EngineProfile, reference: QuantFormat
) -> tuple[bool, bool, float, float]:
    """How a format on the engine that loads its family ranks as a model's starting setup, lower first:
    llama.cpp's formats, then those with a published checkpoint, then the bits per weight nearest the
    ``reference`` format's (Q4_K_M), the higher on a tie."""
    distance = abs(fmt.bits_per_weight - reference.bits_per_weight)
    published = model.has_checkpoint(fmt.name, fmt.family)
    return (engine.name != DEFAULT_ENGINE, not published, distance, -fmt.bits_per_weight)


def _family_formats(catalog: Catalog) -> Iterator[tuple[QuantFormat, EngineProfile]]:
    """Every format with the engine of the catalog that loads its family (FAMILY_ENGINE)."""
    for fmt in catalog.formats.values():
        engine = catalog.engines.get(FAMILY_ENGINE[fmt.family.value])
        if engine is not None:
            yield fmt, engine


def _nearest_scenario(catalog: Catalog, model: Model, hw: Hardware, context: int) -> Scenario | None:
    """The best-ranked (``_preference``) format on its engine that runs ``model`` on ``hw``, or None."""
    reference = catalog.format(DEFAULT_FORMAT)
    best: tuple[tuple[bool, bool, float, float], Scenario] | None = None
    # The reference format on the default engine, published, ranks first whenever it runs: try it alone first.
    default_engine = catalog.engines.get(DEFAULT_ENGINE)
    if default_engine is not None and FAMILY_ENGINE[reference.family.value] == DEFAULT_ENGINE:
        kv = catalog.kv_dtype(default_engine.default_kv_dtype)
        sc = Scenario(reference, kv, default_engine, context, gpus=hw.chips)
        if model.has_checkpoint(reference.name, reference.family) and runs(model, hw, sc):
            return sc
    for fmt, engine in _family_formats(catalog):
        kv = catalog.kv_dtype(engine.default_kv_dtype)
        sc = Scenario(fmt, kv, engine, context, gpus=hw.chips)
        if not runs(model, hw, sc):
            continue
        key = _preference(model, fmt, engine, reference)
        if best is None or key < best[0]:
            best = (key, sc)
    return best[1] if best else None


def default_scenario(catalog: Catalog, model: Model, hw: Hardware, context: int | None = None) -> Scenario:
    """The scenario a pair page starts from: Q4_K_M on llama.cpp with its default KV cache at the default
    context, on one card (as many devices as it has chips). Where the card's platform does not run that
    (llama.cpp's CANN backend runs F16, Q8_0 and Q4_0; llama.cpp does not run on Gaudi), the nearest setup
    that does (``_preference``). At the default context it is found once per pair (``served`` asks too)."""
    if context is None:
        cache: dict[tuple[str, str], Scenario | None] = catalog.derived.setdefault("default_scenario", {})
        key = (model.slug, hw.slug)
        if key not in cache:
            cache[key] = _nearest_scenario(catalog, model, hw, catalog.assumptions.default_context)
        sc = cache[key]
    else:
        sc = _nearest_scenario(catalog, model, hw, context)
    if sc is None:  # the loader makes sure some engine runs every model it can split on every card
        raise LookupError(f"no engine of engines.yaml runs {model.name} on {hw.name} ({hw.platform})")
    return sc


def standard_setup(catalog: Catalog, model: Model) -> tuple[QuantFormat, EngineProfile]:
    """The setup a model's pages compare accelerators at (leaderboard, lead, badge): Q4_K_M on llama.cpp
    wherever llama.cpp loads the model; else, on the engines that do, the best-ranked format
    (``_preference``; GLM-5.3-Flash, which only vLLM and SGLang load: FP8 on vLLM)."""
    cache: dict[str, tuple[QuantFormat, EngineProfile]] = catalog.derived.setdefault("standard", {})
    hit = cache.get(model.slug)
    if hit is not None:
        return hit
    loadable = [
        (fmt, engine)
        for fmt, engine in _family_formats(catalog)
        if model.runs_on(engine.name) and fmt.family in engine.formats and (model.is_moe or not fmt.moe_only)
    ]
    if not loadable:
        raise LookupError(f"no engine of engines.yaml loads {model.name}")
    reference = catalog.format(DEFAULT_FORMAT)
    cache[model.slug] = min(loadable, key=lambda fe: _preference(model, fe[0], fe[1], reference))
    return cache[model.slug]


def served(catalog: Catalog, model: Model, hw: Hardware) -> bool:
    """Whether some engine of the catalog runs ``model`` on ``hw`` at all, so that the pair has pages, JSON
    and rows. False where no engine that loads the model's architecture runs on the card's platform
    (GLM-5.3-Flash, which only vLLM and SGLang load, on Apple silicon)."""
    try:
        default_scenario(catalog, model, hw)
    except LookupError:
        return False
    return True


def hosts(catalog: Catalog, model: Model) -> list[Hardware]:
    """The accelerators some engine runs ``model`` on, in catalog order (its pairs)."""
    return [hw for hw in catalog.hardware.values() if served(catalog, model, hw)]


def model_engines(catalog: Catalog, model: Model) -> list[EngineProfile]:
    """The catalog's engines that load ``model``'s architecture (all of them where no list restricts it)."""
    return [e for e in catalog.engines.values() if model.runs_on(e.name)]


def engines_for(catalog: Catalog, model: Model) -> list[str]:
    """Labels of the engines that load ``model``'s architecture (``model_engines``)."""
    return [e.label for e in model_engines(catalog, model)]


@dataclasses.dataclass(frozen=True)
class FitDecode:
    """What :func:`estimate` says of a scenario's fit and decode speed per sequence, with the low end of the
    decode range; no speed when it does not fit."""

    verdict: str
    decode_tok_s: float | None = None
    decode_low: float | None = None


def fit_and_decode(model: Model, hw: Hardware, sc: Scenario, facts: Facts) -> FitDecode:
    """The verdict, decode tok/s per sequence and its range's low end of ``sc``, without the rest of an
    estimate (for searching many setups). Raises ScenarioError like :func:`estimate`."""
    check_scenario(model, hw, sc)
    device = device_view(hw)
    a = facts.assumptions
    params = count_params(model)
    weights = weight_bytes(params, sc.fmt)
    verdict = memory(model, weights, device, sc, a.verdict_tight_fraction).verdict
    if verdict == "oom":
        return FitDecode(verdict)
    cal, _, extrapolated = calibration_for(facts, sc.engine.name, device, model)
    tok_s = _speed(model, params, weights, device, sc, a, cal).decode_tok_s
    ratios = ratio_ranges(facts.calibration, extrapolated, sc.gpus > 1 and sc.engine.split == "tensor")[0]
    return FitDecode(verdict, tok_s, tok_s * ratios[0] if ratios else None)


def _speed(
    model: Model,
    params: ParamCount,
    weights: WeightBytes,
    device: Hardware,
    sc: Scenario,
    a: Assumptions,
    cal: SpeedConstants,
) -> Speed:
    """Decode and prefill speed of ``sc`` on devices like ``device``, with the calibration ``cal``."""
    return speed(
        model,
        params,
        weights,
        device,
        kv_bytes=sc.kv.bytes_per_element,
        state_bytes_per_seq=state_bytes_per_seq(model, sc.engine),
        context=sc.context,
        seqs=sc.batch,
        gpus=sc.gpus,
        split=sc.engine.split,
        tp_efficiency=sc.engine.tensor_parallel_efficiency,
        allreduce_latency_s=sc.engine.allreduce_latency_s if cal.allreduce_s is None else cal.allreduce_s,
        batch_tokens=sc.engine.batch_tokens,
        offload=sc.offload,
        host_bandwidth_gbps=a.host_ram_bandwidth_gbps,
        prompt_tokens=min(a.ttft_prompt_tokens, sc.context),
        cal=cal,
    )


def speed_of(est: Estimate, seqs: int) -> Speed:
    """The speed of ``est``'s setup with ``seqs`` sequences decoding at once, with its calibration."""
    sc = est.scenario.with_(batch=seqs)
    return _speed(est.model, est.params, est.weights, est.hardware, sc, est.assumptions, est.constants)


def estimate(model: Model, hw: Hardware, sc: Scenario, facts: Facts) -> Estimate:
    """Memory, fit, limits, speed, fine-tuning memory and cost of running ``model`` on ``hw``."""
    check_scenario(model, hw, sc)
    # The scenario's devices are what the engine sees: a card of several chips is several devices.
    chips = hw.chips
    hw = device_view(hw)
    a = facts.assumptions
    params = count_params(model)
    weights = weight_bytes(params, sc.fmt)
    m = memory(model, weights, hw, sc, a.verdict_tight_fraction)
    min_gpus = next(
        (
            g
            for g in range(1, a.max_gpus + 1)
            if tp_valid(model, sc.engine, g)
            and memory(model, weights, hw, sc.with_(gpus=g, offload=0.0), a.verdict_tight_fraction).verdict != "oom"
        ),
        None,
    )
    cal, note, extrapolated = calibration_for(facts, sc.engine.name, hw, model)
    spd = _speed(model, params, weights, hw, sc, a, cal)
    warnings = []
    mismatch = declared_mismatch(model, params)
    if mismatch is not None and abs(mismatch) > 0.02:
        warnings.append(
            f"derived parameters ({compared_total(model, params):,}) differ from the declared "
            f"{model.params_total:,} by {mismatch:+.1%}"
        )
    if sc.context > model.max_context:
        warnings.append(f"context {sc.context:,} exceeds the model's maximum {model.max_context:,}")
    elif model.extends(sc.context) and model.long_context:
        lc = model.long_context
        warnings.append(
            f"context {sc.context:,} is past the config's {model.architecture.max_context:,} tokens: the command "
            f"applies YaRN ×{lc.factor:g} from {lc.original_context:,} tokens, as the model card says (static YaRN "
            "may lower quality on short texts)"
        )
    if hw.kind in (HardwareKind.apple_unified, HardwareKind.unified_apu) and hw.gpu_memory_limit_gib is None:
        warnings.append(
            f"{hw.name}: no sourced GPU memory limit; all {hw.memory_bytes / 1024**3:,.0f} GiB counted as usable, "
            "though the OS keeps part of it by default"
        )
    if hw.compute_tflops is None and cal.implied_tflops is None:
        warnings.append(f"{hw.name} has no published dense 16-bit TFLOPS: prefill and TTFT are not estimated")
    elif hw.compute_tflops is None:
        warnings.append(
            f"{hw.name} has no published dense 16-bit TFLOPS: prefill and TTFT use the {cal.implied_tflops:g} TFLOPS "
            "that prefill measurements of its chip imply"
        )
    if model.vision is not None and sc.engine.compute_buffer == "activation_profile":
        warnings.append(fill(VISION_PROFILE, {"engine": sc.engine.label}))
    return Estimate(
        model=model,
        hardware=hw,
        scenario=sc,
        params=params,
        params_mismatch=mismatch,
        weights=weights,
        memory=m,
        min_gpus=min_gpus,
        speed=spd,
        speed_range=speed_range(
            spd, *ratio_ranges(facts.calibration, extrapolated, sc.gpus > 1 and sc.engine.split == "tensor")
        ),
        calibration_note=note,
        extrapolated=extrapolated,
        cost=cost(
            hw,
            model.slug,
            sc.gpus,
            spd.decode_tok_s_aggregate,
            facts.offers_for(hw.slug),
            facts.api_prices_for(model.slug),
            a,
            chips,
        ),
        warnings=tuple(warnings),
        constants=cal,
        assumptions=a,
    )
