"""Quality per weight format: the label a page shows is the one its quoted measurement earns, the
measurement quoted is the one the rules name, and the JSON carries the same."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from generator.content.catalog import Catalog
from generator.site import api
from generator.site.pair_page import pair_data
from generator.site.quality import model_quality, quality_of

ROOT = Path(__file__).resolve().parents[1]
RAW = yaml.safe_load((ROOT / "content" / "quality.yaml").read_text(encoding="utf-8"))


def expected_label(loss: float) -> str:
    """The file's ranges, read here independently of the site's code."""
    for lab in RAW["labels"]:
        if lab.get("max_loss") is None or loss <= lab["max_loss"]:
            return str(lab["name"])
    raise AssertionError(loss)


def test_every_scoreboard_format_quotes_its_llama3_8b_perplexity(catalog: Catalog) -> None:
    """A model with no measurement of its own gets llama.cpp's Llama-3-8B row for every GGUF type."""
    model = catalog.models["qwen2-5-coder-32b-instruct"]
    rows = [
        r
        for r in RAW["measurements"]
        if r["model_ref"] == "meta-llama/Meta-Llama-3-8B" and r["metric"] == "ppl_ratio" and r["format"] != "F16"
    ]
    assert len(rows) >= 9
    for row in rows:
        q = quality_of(catalog, model, catalog.format(row["format"]))
        assert q is not None and q.measured is not None, row["format"]
        candidates = [r["value"] for r in rows if r["format"] == row["format"]]
        assert q.measured.value in candidates
        assert q.label == expected_label(q.measured.value - 1), (row["format"], q.measured.value)


@pytest.mark.parametrize(
    ("fmt", "label"),
    [
        ("Q8_0", "lossless"),
        ("Q6_K", "near_lossless"),
        ("Q4_K_M", "balanced"),
        ("Q3_K_M", "low_vram"),
        ("Q2_K", "heavy_loss"),
    ],
)
def test_hand_checked_labels(catalog: Catalog, fmt: str, label: str) -> None:
    """From the scoreboard by hand: Q8_0 +0.04%, Q6_K +0.35%, Q4_K_M +2.8%, Q3_K_M +10.5%, Q2_K +56%."""
    q = quality_of(catalog, catalog.models["gemma-3-27b-it"], catalog.format(fmt))
    assert q is not None and q.label == label


def test_a_measurement_on_the_model_itself_wins(catalog: Catalog) -> None:
    model = catalog.models["llama-3-1-8b-instruct"]
    own = [
        r
        for r in RAW["measurements"]
        if r["format"] == "FP8" and r["model_ref"].lower() == model.hf_id.lower() and r["metric"] != "kld"
    ]
    assert own, "the FP8 card of this very model is in the file"
    q = quality_of(catalog, model, catalog.format("FP8"))
    assert q is not None and q.on_this_model and q.measured is not None
    assert q.measured.model_ref.lower() == model.hf_id.lower()
    assert q.label == expected_label(q.loss)


def test_release_precision_is_the_reference_and_unmeasured_formats_say_so(catalog: Catalog) -> None:
    model = catalog.models["gpt-oss-120b"]
    quality = model_quality(catalog, model)
    assert quality["BF16"].loss == 0 and quality["BF16"].measured is None
    assert "MXFP4" not in quality and "MXFP4_MOE" not in quality


def test_json_carries_the_labels(catalog: Catalog) -> None:
    model = catalog.models["qwen3-30b-a3b"]
    pair = pair_data(catalog, model, catalog.hardware["rtx-4090"])
    quality = model_quality(catalog, model)
    pair_js = api.pair_json(pair, quality).model_dump(mode="json")
    model_js = api.model_json(catalog, [pair], quality).model_dump(mode="json")
    by_format = {r["quant"]: r["quality"] for r in pair_js["quant_matrix"]}
    assert by_format["Q4_K_M"] == model_js["quality"]["Q4_K_M"]["label"] == "balanced"
    assert model_js["quality"]["Q4_K_M"]["metric"] == "ppl_ratio"
    assert model_js["quality"]["Q4_K_M"]["source"].startswith("https://github.com/ggml-org/llama.cpp/pull/6936")
    assert by_format.get("MXFP4") is None
