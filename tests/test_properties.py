"""Properties of the engine over the whole catalog (hypothesis)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.content.catalog import Catalog
from generator.content.loader import load_catalog
from generator.sizing.estimate import ScenarioError, estimate
from generator.sizing.scenario import Facts, Scenario
from tests.conftest import CONTENT

CAT: Catalog = load_catalog(CONTENT)
FACTS = Facts(CAT.assumptions, CAT.calibration, CAT.offers, CAT.api_prices)
# Formats with one precision for the bulk of the weights (MoE-only mixes such as MXFP4_MOE are another axis).
GGUF = sorted(
    (f for f in CAT.formats.values() if f.family.value == "gguf" and not f.moe_only), key=lambda f: f.bits_per_weight
)

# The models llama.cpp runs (architectures.yaml): the scenarios below use it.
models = st.sampled_from(sorted(slug for slug, m in CAT.models.items() if m.runs_on("llama.cpp")))
# The physics hold on every device; these take the ones where llama.cpp runs every format and KV cache
# (its CANN and SYCL backends run a few: there the scenarios below cannot run).
hardware = st.sampled_from(
    sorted(
        slug
        for slug, hw in CAT.hardware.items()
        if any(not b.formats and not b.kv_dtypes for b in CAT.engine("llama.cpp").backends_on(hw))
    )
)
contexts = st.integers(min_value=1, max_value=262_144)
kvs = st.sampled_from(["fp16", "q8_0", "q4_0"])


def run(model: str, hw: str, **kw: object):  # type: ignore[no-untyped-def]
    eng = CAT.engine(str(kw.pop("engine", "llama.cpp")))
    sc = Scenario(
        fmt=CAT.format(str(kw.pop("quant", "Q4_K_M"))),
        kv=CAT.kv_dtype(str(kw.pop("kv", "fp16"))),
        engine=eng,
        context=int(kw.pop("context", 4096)),  # type: ignore[call-overload]
        **kw,  # type: ignore[arg-type]
    )
    return estimate(CAT.model(model), CAT.hw(hw), sc, FACTS)


@settings(max_examples=60, deadline=None)
@given(models, hardware, contexts, contexts, kvs)
def test_memory_never_falls_as_context_grows(model: str, hw: str, a: int, b: int, kv: str) -> None:
    lo, hi = sorted((a, b))
    assert run(model, hw, context=lo, kv=kv).memory.total_bytes <= run(model, hw, context=hi, kv=kv).memory.total_bytes


@settings(max_examples=40, deadline=None)
@given(models, hardware, contexts)
def test_memory_never_falls_as_bits_grow(model: str, hw: str, ctx: int) -> None:
    totals = [run(model, hw, context=ctx, quant=f.name).memory.total_bytes for f in GGUF]
    assert totals == sorted(totals)


@settings(max_examples=40, deadline=None)
@given(models, hardware, contexts)
def test_kv_precision_orders_memory(model: str, hw: str, ctx: int) -> None:
    kv = [run(model, hw, context=ctx, kv=k).memory.kv_cache_bytes for k in ("q4_0", "q8_0", "fp16")]
    assert kv == sorted(kv)


@settings(max_examples=40, deadline=None)
@given(models, hardware, st.floats(min_value=1.01, max_value=10.0))
def test_decode_never_slows_as_bandwidth_grows(model: str, hw: str, factor: float) -> None:
    base = CAT.hw(hw)
    faster = base.model_copy(update={"bandwidth_gbps": base.bandwidth_gbps * factor})
    sc = Scenario(fmt=CAT.format("Q4_K_M"), kv=CAT.kv_dtype("fp16"), engine=CAT.engine("llama.cpp"), context=4096)
    slow = estimate(CAT.model(model), base, sc, FACTS).speed.decode_tok_s
    fast = estimate(CAT.model(model), faster, sc, FACTS).speed.decode_tok_s
    assert fast >= slow


@settings(max_examples=80, deadline=None)
@given(
    models,
    hardware,
    contexts,
    st.integers(1, 64),
    st.sampled_from(sorted(CAT.formats)),
    st.sampled_from(sorted(CAT.engines)),
    st.integers(1, 8),
)
def test_nothing_negative_or_nan(model: str, hw: str, ctx: int, batch: int, quant: str, engine: str, gpus: int) -> None:
    eng = CAT.engine(engine)
    try:
        est = run(model, hw, context=ctx, batch=batch, quant=quant, engine=engine, kv=eng.default_kv_dtype, gpus=gpus)
    except ScenarioError:
        return
    for key, value in est.to_dict().items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            assert math.isfinite(value), key
            if key != "headroom_bytes":
                assert value >= 0, key
    m = CAT.model(model)
    # Up to the card's documented maximum where the engine applies its YaRN, else the config's.
    assert est.max_context <= (m.max_context if eng.extends_context else m.architecture.max_context)
