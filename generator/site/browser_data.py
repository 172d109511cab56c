"""Data for the browser's engine (static/sizing.js): the facts and constants a pair page embeds,
and scenario cases whose Python outputs the JavaScript engine must reproduce."""

from __future__ import annotations

import itertools
from typing import Any

from generator.content.catalog import Catalog
from generator.content.schema import Hardware, Model
from generator.sizing.estimate import ScenarioError, estimate, ratio_ranges
from generator.sizing.scenario import Facts, Scenario

# Keys the browser computes and the parity test compares (the rest of `estimate --json` is text).
PARITY_KEYS = (
    "params_total",
    "params_active",
    "weights_bytes",
    "kv_cache_bytes",
    "overhead_bytes",
    "total_bytes",
    "usable_bytes",
    "headroom_bytes",
    "offload_bytes",
    "per_gpu_bytes",
    "usable_per_gpu_bytes",
    "verdict",
    "utilization",
    "effective_bpw",
    "kv_bytes_per_token",
    "state_bytes",
    "max_context",
    "max_batch",
    "min_gpus",
    "decode_tok_s",
    "decode_tok_s_aggregate",
    "prefill_tok_s",
    "ttft_s",
    "ttft_prompt_tokens",
    "decode_tok_s_low",
    "decode_tok_s_high",
    "prefill_tok_s_low",
    "prefill_tok_s_high",
    "ttft_s_low",
    "ttft_s_high",
    "qlora_bytes",
    "lora_bytes",
    "full_finetune_bytes",
    "cloud_usd_per_hour",
    "usd_per_mtok",
    "monthly_usd",
    "buy_usd",
    "power_usd_per_hour",
    "breakeven_months",
    "api_usd_per_mtok",
    "calibration",
)


def shared_data(catalog: Catalog) -> dict[str, Any]:
    """Formats, KV dtypes, engine profiles, assumptions and calibration: the same on every page."""
    assert catalog.calibration is not None
    return {
        "formats": [
            f.model_dump(mode="json", exclude={"description", "derivation", "source", "aliases"})
            for f in catalog.formats.values()
        ],
        "kv_cache": [k.model_dump(mode="json", exclude={"source"}) for k in catalog.kv_dtypes.values()],
        "engines": [e.model_dump(mode="json", exclude={"sources", "notes"}) for e in catalog.engines.values()],
        "assumptions": catalog.assumptions.model_dump(mode="json", exclude={"sources"}),
        "calibration": {
            "decode_fits": [f.model_dump(mode="json") for f in catalog.calibration.decode_fits],
            "prefill_fits": [f.model_dump(mode="json") for f in catalog.calibration.prefill_fits],
            "moe_fits": [f.model_dump(mode="json") for f in catalog.calibration.moe_fits],
        },
        # The comparison menu: every accelerator (the page's own is skipped in the browser).
        "hardware_names": [[hw.slug, hw.name] for hw in catalog.hardware.values()],
        "ranges": dict(zip(("decode", "prefill"), ratio_ranges(catalog.calibration), strict=True)),
    }


def model_data(model: Model) -> dict[str, Any]:
    """A model's facts for the browser (sources and notes left out)."""
    return model.model_dump(mode="json", exclude={"sources", "notes", "artifacts"})


def hardware_data(hw: Hardware) -> dict[str, Any]:
    """A hardware entry's facts for the browser."""
    return hw.model_dump(mode="json", exclude={"sources", "notes"})


def pair_data_json(catalog: Catalog, model: Model, hw: Hardware) -> dict[str, Any]:
    """What one pair page adds to the shared data for static/sizing.js: its model, hardware and prices."""
    return {
        "model": model_data(model),
        "hardware": hardware_data(hw),
        "offers": [o.model_dump(mode="json", exclude={"notes", "source"}) for o in catalog.offers_for(hw.slug)],
        "api_prices": [
            p.model_dump(mode="json", exclude={"notes", "source"}) for p in catalog.api_prices_for(model.slug)
        ],
    }


def parity_cases(catalog: Catalog, hardware: tuple[str, ...], limit_per_model: int = 40) -> list[dict[str, Any]]:
    """Scenarios across every model, the given hardware, formats, engines, KV dtypes, contexts, batch,
    GPUs and offload, each with Python's outputs (or the error the scenario raises)."""
    facts = Facts(catalog.assumptions, catalog.calibration, catalog.offers, catalog.api_prices)
    formats = (
        ("Q4_K_M", "llama.cpp"),
        ("Q8_0", "llama.cpp"),
        ("Q2_K", "llama.cpp"),
        ("IQ4_XS", "ollama"),
        ("Q4_K_M", "ollama"),
        ("BF16", "vllm"),
        ("AWQ", "vllm"),
        ("FP8", "sglang"),
        ("MXFP4", "vllm"),
        ("MLX 4-bit", "mlx"),
    )
    kv_for = {
        "llama.cpp": ("fp16", "q8_0", "q4_0"),
        "ollama": ("fp16", "q8_0"),
        "vllm": ("bf16", "fp8"),
        "sglang": ("bf16", "fp8"),
        "mlx": ("bf16",),
    }
    grid = [
        (quant, engine, kv, ctx, batch, gpus, offload)
        for quant, engine in formats
        for kv in kv_for[engine]
        for ctx, batch, gpus, offload in itertools.product(
            (1, 4096, 32768, 131072), (1, 3), (1, 2, 4), (0.0, 0.25) if engine in ("llama.cpp", "ollama") else (0.0,)
        )
    ]
    cases = []
    for model in catalog.models.values():
        taken = 0
        for i, (quant, engine, kv, ctx, batch, gpus, offload) in enumerate(grid):
            # A deterministic spread over the grid, shifted per model so every combination gets used.
            if (i + len(cases)) % 23:
                continue
            hw = catalog.hw(hardware[(i + taken) % len(hardware)])
            fmt = catalog.format(quant)
            eng = catalog.engine(engine)
            kv_dtype = catalog.kv_dtype(kv)
            sc = Scenario(
                fmt=fmt,
                kv=kv_dtype,
                engine=eng,
                context=min(ctx, model.architecture.max_context),
                batch=batch,
                gpus=gpus,
                offload=offload,
            )
            inputs = {
                "model": model.slug,
                "hardware": hw.slug,
                "quant": quant,
                "engine": eng.name,
                "kv_dtype": kv_dtype.name,
                "context": sc.context,
                "batch": batch,
                "gpus": gpus,
                "offload": offload,
            }
            try:
                keys = estimate(model, hw, sc, facts).to_dict()
                expected: dict[str, Any] = {k: keys[k] for k in PARITY_KEYS}
            except ScenarioError as exc:
                expected = {"error": str(exc)}
            cases.append({"inputs": inputs, "expected": expected})
            taken += 1
            if taken >= limit_per_model:
                break
    return cases


def parity_file(catalog: Catalog, hardware: tuple[str, ...]) -> dict[str, Any]:
    """The golden file the JavaScript engine is checked against: inputs, facts and expected outputs."""
    return {
        "shared": shared_data(catalog),
        "models": {slug: model_data(m) for slug, m in catalog.models.items()},
        "hardware": {slug: hardware_data(h) for slug, h in catalog.hardware.items()},
        "offers": [o.model_dump(mode="json", exclude={"notes", "source"}) for o in catalog.offers],
        "api_prices": [p.model_dump(mode="json", exclude={"notes", "source"}) for p in catalog.api_prices],
        "cases": parity_cases(catalog, hardware),
    }
