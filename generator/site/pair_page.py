"""What a pair page (one model on one accelerator) shows, computed once per pair: numbers only, no
locale, no markup. A pair's data is shared by its page in every language, its JSON, and the rows
it gives its model's and its hardware's pages."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from generator.content.catalog import Catalog
from generator.content.schema import CloudOffer, EngineProfile, Hardware, Model, QuantFormat
from generator.site.commands import Command, commands, follow
from generator.sizing.cost import offer_monthly
from generator.sizing.estimate import Estimate, ScenarioError, default_scenario, estimate, standard_setup
from generator.sizing.memory import memory
from generator.sizing.scenario import FAMILY_ENGINE, Facts, Scenario, facts_of
from generator.sizing.serving import Serving, serving

CONTEXT_STEPS = (4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576)
# What a pair page asks of a serving setup: the most users at this decode speed each (a reading pace
# with room to spare), and what 8 and 32 users at once get.
SERVING_FLOOR_TOK_S = 20.0
SERVING_USERS = (8, 32)
SERVING_ENGINES = ("llama.cpp", "vllm")


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
    offers: tuple[CloudOffer, ...]
    # What renting each offer's instance costs a month to run the scenario's devices (None: too few GPUs), in
    # the order of ``offers``.
    offer_months: tuple[float | None, ...]
    finetune_gpus: tuple[int, int, int]
    # The setup every model page compares accelerators at (estimate.standard_setup: Q4_K_M on llama.cpp
    # for most models; default context, one card), or None where this card cannot run it; ``est`` is the
    # page's own, which differs from it where the card's platform does not run that setup.
    standard: Estimate | None = None
    # The page's serving setups: llama.cpp's and vLLM's as their commands run them.
    serving: tuple[Serving, ...] = ()

    @property
    def best(self) -> FormatRow | None:
        """The highest-precision format that fits (comfortable or tight)."""
        return best_of(self.matrix)


def best_of(matrix: Sequence[FormatRow]) -> FormatRow | None:
    """The highest-precision format of a quantization matrix that fits (comfortable or tight)."""
    fitting = [r for r in matrix if r.est and r.est.memory.verdict != "oom"]
    return max(fitting, key=lambda r: (r.fmt.bits_per_weight, r.fmt.name), default=None)


def try_estimate(model: Model, hw: Hardware, sc: Scenario, facts: Facts) -> tuple[Estimate | None, str]:
    """(the estimate, "") or (None, why the scenario cannot run)."""
    try:
        return estimate(model, hw, sc, facts), ""
    except ScenarioError as exc:
        return None, str(exc)


def quant_matrix(catalog: Catalog, model: Model, hw: Hardware, context: int) -> tuple[FormatRow, ...]:
    """Every format on one ``hw`` card with its natural engine (GGUF: llama.cpp, safetensors: vLLM, MLX: mlx-lm)."""
    facts = facts_of(catalog)
    rows = []
    for fmt in catalog.formats.values():
        eng = catalog.engine(FAMILY_ENGINE[fmt.family.value])
        sc = Scenario(fmt=fmt, kv=catalog.kv_dtype(eng.default_kv_dtype), engine=eng, context=context, gpus=hw.chips)
        est, reason = try_estimate(model, hw, sc, facts)
        rows.append(FormatRow(fmt, eng, est, reason))
    return tuple(rows)


def context_steps(model: Model) -> tuple[int, ...]:
    """4K, 8K, 16K … up to the model's maximum (which is always the last step)."""
    top = model.max_context
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
        a = memory(model, base.weights, hw, base.scenario.with_(kv=kv16), tight, context=ctx)
        b = memory(model, base.weights, hw, base.scenario.with_(kv=kv8), tight, context=ctx)
        rows.append(
            ContextRow(ctx, a.kv_cache_bytes, b.kv_cache_bytes, a.total_bytes, b.total_bytes, a.verdict, b.verdict)
        )
    return tuple(rows), kv16.name, kv8.name


def pair_data(catalog: Catalog, model: Model, hw: Hardware, sc: Scenario | None = None) -> PairData:
    """All numbers of one model × hardware page, for its default scenario or for ``sc`` (what the page's
    workbench shows for that scenario: the browser test renders it to compare)."""
    facts = facts_of(catalog)
    own = default_scenario(catalog, model, hw)
    sc = sc or own
    est = estimate(model, hw, sc, facts)
    matrix = quant_matrix(catalog, model, hw, sc.context)
    # The page's command blocks are chosen at its own scenario; another scenario rewrites them as the
    # workbench does.
    own_matrix = matrix if sc == own else quant_matrix(catalog, model, hw, own.context)
    blocks = commands(catalog, model, hw, own_matrix, own)
    contexts, kv16, kv8 = context_rows(catalog, model, hw, est)
    # Fine-tuning does not run on the inference engine: its devices are counted at the page's own scenario.
    per_gpu = (est if sc == own else estimate(model, hw, own, facts)).memory.usable_per_gpu_bytes
    ft = tuple(math.ceil(t.total_bytes / per_gpu) for t in est.finetune)
    offers = catalog.offers_for(hw.slug)
    std = standard_setup(catalog, model)
    return PairData(
        model=model,
        hardware=hw,
        est=est,
        matrix=matrix,
        contexts=contexts,
        kv16=kv16,
        kv8=kv8,
        commands=blocks if sc == own else follow(blocks, model, hw, est, facts, catalog),
        offers=offers,
        offer_months=tuple(offer_monthly(o, sc.gpus, hw.chips, catalog.assumptions) for o in offers),
        finetune_gpus=(ft[0], ft[1], ft[2]),
        standard=next((r.est for r in own_matrix if (r.fmt, r.engine) == std), None),
        serving=serving_setups(catalog, model, hw, blocks, own_matrix, own.context),
    )


def serving_setups(
    catalog: Catalog,
    model: Model,
    hw: Hardware,
    blocks: Sequence[Command],
    matrix: Sequence[FormatRow],
    context: int,
) -> tuple[Serving, ...]:
    """How the page's setups serve many users at its context: llama.cpp's and vLLM's as their commands
    run them (format and devices), and SGLang on vLLM's checkpoint and devices where its backends run that
    format on the card. A setup that does not fit is left out (its command says so)."""
    facts = facts_of(catalog)
    setups = [(catalog.engine(c.engine), c.fmt, c.inputs.gpus) for c in blocks if c.engine in SERVING_ENGINES]
    sglang = catalog.engine("sglang")
    setups += [(sglang, fmt, gpus) for e, fmt, gpus in setups if e.name == "vllm" and sglang.runs(hw, fmt)]
    out = []
    for engine, fmt, gpus in setups:
        kv = catalog.kv_dtype(engine.default_kv_dtype)
        sc = Scenario(catalog.format(fmt), kv, engine, context, gpus=gpus)
        # On one card the matrix (at the page's context) already holds this estimate.
        est = (
            next((r.est for r in matrix if r.est and r.est.scenario == sc), None)
            or try_estimate(model, hw, sc, facts)[0]
        )
        if est is not None and est.memory.verdict != "oom":
            out.append(serving(est, SERVING_FLOOR_TOK_S, SERVING_USERS))
    return tuple(out)
