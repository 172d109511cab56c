"""make build's output: every pair's JSON, written atomically and deterministically."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.build import writer
from generator.content.catalog import Catalog
from tests.conftest import CONTENT


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


SUBSET = (
    ("llama-3-1-8b-instruct", "qwen3-30b-a3b", "deepseek-v3", "gemma-3-27b-it"),
    ("rtx-4090", "h100-sxm", "apple-m4-max-40c-128gb"),
)


def test_build_writes_every_pair_deterministically(catalog: Catalog, tmp_path: Path) -> None:
    catalog = catalog.subset(*SUBSET)
    a, b = tmp_path / "a", tmp_path / "b"
    writer.build(catalog, a, jobs=2, content=CONTENT)
    writer.build(catalog, b, jobs=1, content=CONTENT)
    fa = files(a)
    assert fa == files(b)
    pairs = [k for k in fa if k.startswith("api/v1/pairs/")]
    assert len(pairs) == len(catalog.models) * len(catalog.hardware)
    sample = json.loads(fa["api/v1/pairs/llama-3-1-8b-instruct/rtx-4090.json"])
    assert sample["estimate"]["verdict"] in ("comfortable", "tight", "oom")
    index = json.loads(fa["api/v1/index.json"])
    assert {m["slug"] for m in index["models"]} == set(catalog.models)


def test_failed_build_leaves_previous_dist(catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = catalog.subset(*SUBSET)
    out = tmp_path / "dist"
    writer.build(catalog, out, jobs=1, content=CONTENT)
    before = files(out)

    def broken(*args: object) -> object:
        raise RuntimeError("renderer crashed")

    monkeypatch.setattr(writer, "model_outputs", broken)
    with pytest.raises(RuntimeError):
        writer.build(catalog, out, jobs=1, content=CONTENT)
    assert files(out) == before
    assert not list(tmp_path.glob(".dist.tmp-*"))
