"""Build dist/: every output computed first, then written into a temporary folder swapped in atomically.

Until the site lands this writes the JSON of every estimate: one file per model × hardware pair
for the default scenario, plus an index. Work is spread over processes by model; each worker
loads the catalog once.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from generator.content.catalog import Catalog
from generator.content.loader import load_catalog
from generator.engine.estimate import ENGINE_VERSION, estimate
from generator.engine.params import count_params
from generator.engine.scenario import Scenario, World

DEFAULT_FORMAT = "Q4_K_M"
DEFAULT_ENGINE = "llama.cpp"

_catalog: Catalog | None = None


def default_scenario(catalog: Catalog) -> Scenario:
    """The scenario every pair page and pair JSON starts from."""
    engine = catalog.engine(DEFAULT_ENGINE)
    return Scenario(
        fmt=catalog.format(DEFAULT_FORMAT),
        kv=catalog.kv_dtype(engine.default_kv_dtype),
        engine=engine,
        context=catalog.assumptions.default_context,
    )


def pair_outputs(catalog: Catalog, model_slug: str) -> list[tuple[str, bytes]]:
    """(path, bytes) of every pair JSON of one model."""
    model = catalog.models[model_slug]
    world = World(catalog.assumptions, catalog.calibration, catalog.offers, catalog.api_prices)
    sc = default_scenario(catalog)
    out = []
    for hw in catalog.hardware.values():
        keys = estimate(model, hw, sc, world).keys()
        out.append((f"api/v1/pairs/{model.slug}/{hw.slug}.json", dump(keys)))
    return out


def dump(data: Any) -> bytes:
    """Canonical JSON: sorted keys, two-space indent, UTF-8, trailing newline."""
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n").encode()


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


def index_output(catalog: Catalog) -> tuple[str, bytes]:
    """The API index: every model and hardware with key specs and where its pairs are."""
    models = [{**m, "pairs": f"/api/v1/pairs/{m['slug']}/"} for m in model_summaries(catalog)]
    data = {"engine_version": ENGINE_VERSION, "models": models, "hardware": hardware_summaries(catalog)}
    return "api/v1/index.json", dump(data)


def _init(content: str) -> None:
    global _catalog
    _catalog = load_catalog(Path(content))


def _work(model_slug: str) -> list[tuple[str, bytes]]:
    assert _catalog is not None
    return pair_outputs(_catalog, model_slug)


def all_outputs(catalog: Catalog, content: Path, jobs: int) -> Iterable[tuple[str, bytes]]:
    """Every output of the build, in a deterministic order."""
    yield index_output(catalog)
    slugs = list(catalog.models)
    if jobs <= 1 or len(slugs) <= 1:
        for slug in slugs:
            yield from pair_outputs(catalog, slug)
        return
    with ProcessPoolExecutor(max_workers=jobs, initializer=_init, initargs=(str(content),)) as pool:
        for outputs in pool.map(_work, slugs):
            yield from outputs


def swap_in(tmp: Path, out: Path) -> None:
    """Replace ``out`` by ``tmp`` with two renames, so readers never see a half-written folder."""
    old = out.with_name(out.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if out.exists():
        out.rename(old)
    tmp.rename(out)
    if old.exists():
        shutil.rmtree(old)


def build(
    catalog: Catalog, out: Path, *, jobs: int | None = None, base_url: str = "", content: Path | None = None
) -> str:
    """Compute every output, write them into a temporary sibling of ``out``, swap it in; a summary."""
    start = time.perf_counter()
    content = content or Path(__file__).resolve().parents[2] / "content"
    jobs = jobs or os.cpu_count() or 1
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        seen: set[str] = set()
        total = 0
        for rel, data in all_outputs(catalog, content, jobs):
            if rel in seen:
                raise RuntimeError(f"two outputs share the path {rel}")
            seen.add(rel)
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            total += len(data)
        swap_in(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    seconds = time.perf_counter() - start
    return f"built {len(seen):,} files ({total / 1e6:,.1f} MB) into {out} in {seconds:.1f} s"
