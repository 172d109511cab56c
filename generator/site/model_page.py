"""What a model page shows besides its pairs: facts, memory per format, KV cache per context, the
fewest devices per format, related models."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from generator.content.catalog import Catalog
from generator.content.schema import Hardware, LayerKind, Model, QuantFormat
from generator.site.pair_page import PairData, context_steps, try_estimate
from generator.sizing.kv import kv_cache
from generator.sizing.params import ParamCount, count_params, layer_kinds
from generator.sizing.scenario import FAMILY_ENGINE, Scenario, facts_of

RELATED = 12


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
        a, _ = try_estimate(model, hw, sc, facts)
        b, _ = try_estimate(model, hw, sc.with_(context=min(32768, model.architecture.max_context)), facts)
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
    """Up to 12 other models: same family and organisation first, then nearest in size."""
    size = count_params(model).total

    def key(m: Model) -> tuple[int, int, float, str]:
        other = count_params(m).total
        return (m.family != model.family, m.organization != model.organization, abs(other - size) / size, m.slug)

    return sorted((m for m in everything if m.slug != model.slug), key=key)[:RELATED]
