"""Shared fixtures: the real catalog, loaded once."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
import yaml

from generator.content.catalog import Catalog
from generator.content.loader import load_catalog
from generator.content.schema import Model
from generator.sizing.accuracy import kv_checks, median_abs, size_checks, worst_abs
from generator.sizing.scenario import Facts, Scenario

ROOT = Path(__file__).resolve().parent.parent
# SIZEWISE_CONTENT points the suite at another catalog folder (e.g. a snapshot while editing content/).
CONTENT = Path(os.environ.get("SIZEWISE_CONTENT", ROOT / "content"))
GIB = 1024**3


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog(CONTENT)


@pytest.fixture(scope="session")
def facts(catalog: Catalog) -> Facts:
    return Facts(catalog.assumptions, catalog.calibration, catalog.offers, catalog.api_prices)


def scenario(
    catalog: Catalog,
    quant: str = "Q4_K_M",
    engine: str = "llama.cpp",
    kv: str | None = None,
    context: int = 8192,
    **kw: object,
) -> Scenario:
    eng = catalog.engine(engine)
    return Scenario(
        fmt=catalog.format(quant), kv=catalog.kv_dtype(kv or eng.default_kv_dtype), engine=eng, context=context, **kw
    )  # type: ignore[arg-type]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the engine's error against the measurement set (out of sample) at the end of every run."""
    cat = load_catalog(CONTENT)
    if cat.calibration is None:
        return
    for kind, sm in (("decode", cat.calibration.decode), ("prefill", cat.calibration.prefill)):
        if sm is None:
            continue
        terminalreporter.write_line(
            f"sizing engine vs {sm.rows} {kind} measurements ({sm.hardware} hardware, {sm.models} models): "
            f"median |error| {sm.leave_one_hardware_out:.1%} leaving each hardware out, "
            f"{sm.leave_one_model_out:.1%} leaving each model out, {sm.in_sample:.1%} in sample"
        )
    sizes = size_checks(cat.file_sizes, cat.models, cat.formats)
    kv = kv_checks(cat.memory_logs, cat.models, cat.engines, cat.kv_dtypes)
    engines = sorted({k.log.engine for k in kv})
    terminalreporter.write_line(
        f"weights vs {len(sizes)} real GGUF files: median |error| {median_abs([s.error for s in sizes]) or 0:.2%}; "
        f"KV cache vs {len(kv)} {' and '.join(engines)} load logs: worst |error| "
        f"{worst_abs([k.error for k in kv]) or 0:.2%}"
    )


ZOO = ROOT / "tests" / "parity" / "zoo"


def zoo_models() -> list[Model]:
    """Synthetic models, one per set of block options the catalog does not use, so the browser's engine
    is checked on every kind and option even before a real model needs it."""
    return [Model.model_validate(yaml.safe_load(path.read_text()), strict=False) for path in sorted(ZOO.glob("*.yaml"))]


@pytest.fixture(scope="session")
def cases(catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The parity vectors (Python's outputs the browser's engine must reproduce), written once."""
    import json

    from generator.site.browser_data import parity_file

    path = tmp_path_factory.mktemp("parity") / "cases.json"
    zoo = zoo_models()
    with_zoo = dataclasses.replace(catalog, models={**catalog.models, **{m.slug: m for m in zoo}})
    data = parity_file(with_zoo, tuple(catalog.hardware))
    assert len(data["cases"]) >= 300
    assert {c["inputs"]["model"] for c in data["cases"]} >= {m.slug for m in zoo}
    kinds = {c["inputs"]["engine"] for c in data["cases"]}
    assert kinds == {"llama.cpp", "ollama", "vllm", "sglang", "mlx"}
    path.write_text(json.dumps(data))
    return path
