"""Data for the browser's engine (static/sizing.js): the facts and constants a pair page embeds,
and scenario cases whose Python outputs the JavaScript engine must reproduce."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from typing import Any

from generator.content.catalog import Catalog
from generator.content.schema import Hardware, Model
from generator.site.charts import MEMORY_CHART, VALUE_CHART, bars_of, value_chart
from generator.site.commands import CommandInputs, launch_command
from generator.site.i18n import NumberFormat, number_spec
from generator.site.pair_page import context_steps
from generator.site.routes import LANGS
from generator.site.setups import CANDIDATES, KV8, SINGLE, poor_cells
from generator.sizing.cost import budget_use
from generator.sizing.estimate import ScenarioError, estimate, ratio_ranges
from generator.sizing.scenario import FAMILY_ENGINE, MAX_CONTEXT, Facts, Scenario

# Keys the browser computes and the parity test compares (the rest of `estimate --json` is text).
PARITY_KEYS = (
    "params_total",
    "params_active",
    "weights_bytes",
    "vision_bytes",
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
    "rig",
    "rig_usd",
    "rig_cards",
    "rig_circuits",
    "power_usd_per_hour",
    "breakeven_months",
    "api_usd_per_mtok",
    "calibration",
)


# What the browser does not need of the assumptions: sources and the rigs' prose.
ASSUMPTIONS_PROSE: dict[str, Any] = {
    "sources": True,
    "rigs": {
        "sources": True,
        "rigs": {"__all__": {"notes": True, "parts": {"__all__": {"item", "date", "source", "notes"}}}},
    },
}

# What the browser does not need of an engine's backends (it only checks where they run).
BACKEND_PROSE = {"sources", "notes", "since"}


# The most the workbench's number controls take (a shared link's values past them are ignored): the
# command line's bounds (sizing.scenario) or less, and for a budget more than any setup costs (a price
# is at most 10^8 dollars, a setup at most assumptions.max_gpus devices).
WORKBENCH_LIMITS = {"context": MAX_CONTEXT, "batch": 4096, "budget_usd": 10**9}


def shared_data(catalog: Catalog) -> dict[str, Any]:
    """Formats, KV dtypes, engine profiles, assumptions and calibration: the same on every page."""
    assert catalog.calibration is not None
    return {
        "formats": [
            f.model_dump(mode="json", exclude={"description", "derivation", "source", "aliases"})
            for f in catalog.formats.values()
        ],
        "kv_cache": [k.model_dump(mode="json", exclude={"source"}) for k in catalog.kv_dtypes.values()],
        "engines": [
            e.model_dump(
                mode="json",
                exclude={
                    "sources": True,
                    "notes": True,
                    "backends": {"__all__": BACKEND_PROSE},
                    "indexed_mla": {"sources", "notes"},
                    "compressed_mla": {"sources", "notes"},
                    "pooled_index": {"sources", "notes"},
                    "ngram_tables": {"sources", "notes"},
                },
            )
            for e in catalog.engines.values()
        ],
        "assumptions": catalog.assumptions.model_dump(mode="json", exclude=ASSUMPTIONS_PROSE),
        "calibration": {
            "decode_fits": [f.model_dump(mode="json") for f in catalog.calibration.decode_fits],
            "prefill_fits": [f.model_dump(mode="json") for f in catalog.calibration.prefill_fits],
            "moe_fits": [f.model_dump(mode="json") for f in catalog.calibration.moe_fits],
            "tp_fits": [f.model_dump(mode="json") for f in catalog.calibration.tp_fits],
            "implied_peaks": [p.model_dump(mode="json") for p in catalog.calibration.implied_peaks],
        },
        # The comparison menu: every accelerator (the page's own is skipped in the browser).
        "hardware_names": [[hw.slug, hw.name] for hw in catalog.hardware.values()],
        # Measured ÷ predicted out of sample: where the engine's measurements on the device's class back
        # a speed, and where they do not (estimate.ratio_ranges).
        "ranges": {
            **dict(zip(("decode", "prefill"), ratio_ranges(catalog.calibration), strict=True)),
            **dict(
                zip(
                    ("decode_extrapolated", "prefill_extrapolated"),
                    ratio_ranges(catalog.calibration, (True, True)),
                    strict=True,
                )
            ),
            # Decode in tensor parallel over several devices (estimate.ratio_ranges).
            "decode_tp": ratio_ranges(catalog.calibration, (False, False), True)[0],
            "decode_tp_extrapolated": ratio_ranges(catalog.calibration, (True, True), True)[0],
        },
        # Tables Python and the browser must agree on: the engine each format family runs on by
        # default, and the memory chart's geometry.
        "family_engine": FAMILY_ENGINE,
        "memory_chart": MEMORY_CHART,
        "value_chart": VALUE_CHART,
    }


def encoded(data: Any) -> bytes:
    """A data file as the browser gets it: compact JSON, sorted keys, UTF-8."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def model_data(model: Model) -> dict[str, Any]:
    """A model's facts for the browser (sources and notes left out)."""
    exclude: dict[str, Any] = {
        "sources": True,
        "notes": True,
        "artifacts": True,
        "vision": {"sources", "notes"},
        "long_context": {"sources"},
    }
    return model.model_dump(mode="json", exclude=exclude)


def hardware_data(hw: Hardware) -> dict[str, Any]:
    """A hardware entry's facts for the browser, with the price of a new unit the sizing model uses."""
    data = hw.model_dump(mode="json", exclude={"sources", "notes", "prices", "prices_as_of", "discontinued"})
    data["bought_as"] = hw.bought_as
    data["price"] = hw.price.model_dump(mode="json", exclude={"source", "notes"}) if hw.price else None
    data["used_price"] = hw.used_price.model_dump(mode="json", exclude={"source", "notes"}) if hw.used_price else None
    return data


def finder_data(catalog: Catalog) -> dict[str, Any]:
    """What the model pages' finder (static/finder.js) needs beyond sizing-data.json: every accelerator,
    every cloud offer, and setups.py's rules (the formats a person would run, the 8-bit KV caches,
    the machines that are one device, the poorly measured engine cells)."""
    return {
        "hardware": [hardware_data(hw) for hw in catalog.hardware.values()],
        "offers": [o.model_dump(mode="json", exclude={"notes", "source"}) for o in catalog.offers],
        "rules": {
            "candidates": [list(c) for c in CANDIDATES],
            "kv8": KV8,
            "single": [kind.value for kind in SINGLE],
            "poor_cells": [[e, v, several, err] for (e, v, several), err in sorted(poor_cells(catalog).items())],
        },
    }


def model_asset(catalog: Catalog, model: Model) -> dict[str, Any]:
    """One model's data for its pair pages' workbench, served once as a fingerprinted asset: its facts,
    published checkpoints, API prices and the context steps of its controls. The accelerator and its
    cloud offers come from finder-data.json, which every page shares."""
    return {
        "model": model_data(model),
        "artifacts": model.artifacts.model_dump(mode="json"),
        "api_prices": [
            p.model_dump(mode="json", exclude={"notes", "source"}) for p in catalog.api_prices_for(model.slug)
        ],
        "context_steps": list(context_steps(model)),
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
        # Combinations an engine refuses: the browser must refuse them with the same words.
        ("MLX 4-bit", "vllm"),
        ("Q4_K_M", "vllm"),
    )
    kv_for = {
        "llama.cpp": ("fp16", "q8_0", "q4_0"),
        "ollama": ("fp16", "q8_0"),
        "vllm": ("bf16", "fp8", "q8_0"),
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
    cases: list[dict[str, Any]] = []
    for model in catalog.models.values():
        # A deterministic sample of the grid per model: every engine, format and refusal comes up.
        picks = sorted(random.Random(model.slug).sample(range(len(grid)), min(limit_per_model, len(grid))))
        for taken, i in enumerate(picks):
            quant, engine, kv, ctx, batch, gpus, offload = grid[i]
            vision = i % 2 == 1  # a multimodal model's encoder loaded, where the engine lets it choose
            hw = catalog.hw(hardware[(i + taken) % len(hardware)])
            fmt = catalog.format(quant)
            eng = catalog.engine(engine)
            kv_dtype = catalog.kv_dtype(kv)
            sc = Scenario(
                fmt=fmt,
                kv=kv_dtype,
                engine=eng,
                context=min(ctx, model.max_context),
                batch=batch,
                gpus=gpus,
                offload=offload,
                vision=vision,
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
                "vision": vision,
            }
            # A budget from a few hundred to tens of thousands of dollars (cost.budget_use).
            budget = 250.0 * (1 + (i * 7) % 97)
            inputs["budget"] = budget
            try:
                est = estimate(model, hw, sc, facts)
                keys = est.to_dict()
                expected: dict[str, Any] = {k: keys[k] for k in PARITY_KEYS}
                expected |= budget_use(est.cost, budget, catalog.assumptions).to_dict()
            except ScenarioError as exc:
                expected = {"error": str(exc)}
            cases.append({"inputs": inputs, "expected": expected})
    return cases


# Values that exercise every branch of the formatters: ties (0.125, 2.5, 4.25 GiB), unit boundaries,
# zero, negatives, tiny and huge numbers; more come from a seeded generator.
_NUMBERS = (
    0,
    0.125,
    0.5,
    1,
    1.5,
    2.5,
    9.995,
    10,
    99.95,
    1023,
    1024,
    1536,
    4096,
    8192,
    131072,
    1048576,
    3145728,
    -0.004,
    -2.5,
    1e-9,
    0.09,
    0.1,
    0.0999,
    1234567.891,
    4.25 * 1024**3,
    1024**3 - 1,
    1024**4 * 3.5,
)


def number_cases(seed: int = 7, random_values: int = 120) -> list[dict[str, Any]]:
    """Python's formatting of many values in every language: what static/display.js must write."""
    rng = random.Random(seed)
    values = [float(v) for v in _NUMBERS]
    values += [rng.choice((1, -1)) * 10 ** rng.uniform(-4, 13) for _ in range(random_values)]
    values += [float(rng.randrange(1, 2**21) * 1024) for _ in range(20)]
    cases = []
    for lang in LANGS:
        f = NumberFormat(lang)
        for v in values:
            calls: list[tuple[str, list[Any], str]] = [
                ("num", [v, 0], f.num(v, 0)),
                ("num", [v, 1], f.num(v, 1)),
                ("num", [v, 2], f.num(v, 2)),
                ("sig", [v], f.sig(v)),
                ("bytes", [v], f.bytes(v)),
                ("pct", [v / 1000, 0], f.pct(v / 1000, 0)),
                ("pct", [v / 1000, 1], f.pct(v / 1000, 1)),
                ("usd", [v / 1000], f.usd(v / 1000)),
                ("usd", [v, 0], f.usd(v, 0)),
            ]
            if v >= 0 and v.is_integer():
                calls.append(("tokens", [int(v)], f.tokens(int(v))))
            cases += [{"lang": lang, "method": m, "args": args, "expected": out} for m, args, out in calls]
    return cases


def command_cases(catalog: Catalog) -> list[dict[str, Any]]:
    """Launch commands Python builds for every model over engines, formats and scenarios."""
    grid = {
        "llama.cpp": ("Q4_K_M", "Q8_0", "IQ4_XS"),
        "vllm": ("BF16", "AWQ", "GPTQ", "FP8", "MXFP4"),
        "ollama": ("Q4_K_M",),
        "mlx": ("MLX 4-bit",),
        "sglang": ("FP8",),
    }
    kv_for = {"llama.cpp": ("fp16", "q8_0", "q4_0"), "vllm": ("bf16", "fp8"), "ollama": ("fp16", "q8_0")}
    cases = []
    for n, model in enumerate(catalog.models.values()):
        for engine, quants in grid.items():
            profile = catalog.engines.get(engine)
            utilization = profile.memory_utilization if profile else 0.9
            for i, (quant, kv, (ctx, batch, gpus, offload)) in enumerate(
                itertools.product(
                    quants,
                    kv_for.get(engine, ("bf16",)),
                    ((8192, 1, 1, 0.0), (131072, 4, 2, 0.0), (4096, 1, 8, 0.3), (1, 16, 1, 1.0)),
                )
            ):
                if (i + n) % 3:
                    continue
                inputs = CommandInputs(engine, quant, ctx, batch, gpus, kv, offload, vision=bool(i % 2))
                built = launch_command(model, utilization, inputs)
                cases.append(
                    {
                        "model": model.slug,
                        "memory_utilization": utilization,
                        "inputs": inputs.to_json(),
                        "expected": list(built) if built else None,
                    }
                )
    return cases


def chart_cases(seed: int = 11, count: int = 60) -> list[dict[str, Any]]:
    """The memory chart's geometry for many memory breakdowns (SVG units, before rounding)."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        weights, kv, overhead = (rng.randrange(0, 2**40) for _ in range(3))
        usable = rng.randrange(1, 2**41)
        keys = {
            "weights_bytes": weights,
            "kv_cache_bytes": kv,
            "overhead_bytes": overhead,
            "total_bytes": weights + kv + overhead,
            "usable_bytes": usable,
        }
        chart = bars_of(keys)
        cases.append(
            {
                "keys": keys,
                "expected": {
                    "segments": [[s.key, s.x, s.width] for s in chart.segments],
                    "usable_x": chart.usable_x,
                    "label_end": chart.label_end,
                },
            }
        )
    return cases


def value_chart_cases(seed: int = 13, count: int = 40) -> list[dict[str, Any]]:
    """The price-against-speed chart's geometry for many sets of setups (prices from cents to millions)."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        setups = [
            (f"hw{i}", round(10 ** rng.uniform(-1.5, 6.5), 2), round(10 ** rng.uniform(-0.5, 3.5), 3))
            for i in range(rng.randrange(1, 30))
        ]
        if rng.random() < 0.2:  # ties in price and in speed
            setups += [(f"tie{i}", setups[0][1], setups[-1][2]) for i in range(2)]
        chart = value_chart(setups)
        cases.append({"setups": setups, "expected": dataclasses.asdict(chart) if chart else None})
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
        "artifacts": {slug: m.artifacts.model_dump(mode="json") for slug, m in catalog.models.items()},
        "number_specs": {lang: number_spec(lang) for lang in LANGS},
        "number_cases": number_cases(),
        "command_cases": command_cases(catalog),
        "chart_cases": chart_cases(),
        "value_chart_cases": value_chart_cases(),
    }
