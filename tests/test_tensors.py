"""Checkpoint tensor summaries (generator/content/tensors.py): a published safetensors index or header by
role, held against the block list by check-content."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

from generator.content.catalog import Catalog
from generator.content.tensors import checkpoint_params, mismatches, summarise
from tests.conftest import ROOT

# Llama 3.2 1B's tensors as its config shapes them (hidden 2048, 16 layers, 32 heads and 8 KV heads of 64,
# FFN 8192, vocabulary 128,256, tied head): 1,235,814,400 values.
H, LAYERS, FFN, VOCAB = 2048, 16, 8192, 128_256
LAYER_SHAPES = {
    "input_layernorm.weight": [H],
    "post_attention_layernorm.weight": [H],
    "self_attn.q_proj.weight": [32 * 64, H],
    "self_attn.k_proj.weight": [8 * 64, H],
    "self_attn.v_proj.weight": [8 * 64, H],
    "self_attn.o_proj.weight": [H, 32 * 64],
    "mlp.gate_proj.weight": [FFN, H],
    "mlp.up_proj.weight": [FFN, H],
    "mlp.down_proj.weight": [H, FFN],
}


def header(packed_mlp: bool = False, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    out["model.embed_tokens.weight"] = {"dtype": "BF16", "shape": [VOCAB, H]}
    out["model.norm.weight"] = {"dtype": "BF16", "shape": [H]}
    for i in range(LAYERS):
        for name, shape in LAYER_SHAPES.items():
            key = f"model.layers.{i}.{name}"
            if packed_mlp and name.startswith("mlp."):
                # FP4 packed two values a byte, with an FP8 scale per 16 values.
                out[key] = {"dtype": "U8", "shape": [shape[0], shape[1] // 2]}
                out[key.replace(".weight", ".weight_scale")] = {"dtype": "F8_E4M3", "shape": [shape[0], shape[1] // 16]}
            else:
                out[key] = {"dtype": "BF16", "shape": shape}
    return out | (extra or {})


def test_a_header_counts_every_role_and_packed_values(catalog: Catalog) -> None:
    model = catalog.model("llama-3-2-1b-instruct")
    plain = summarise(header(), model, "https://example.org/header.json", "unknown", None)
    assert plain.layers == 16 and plain.mtp_layers == 0 and plain.experts is None and "output" not in plain.roles
    assert plain.roles["embedding"].params == VOCAB * H
    assert plain.roles["dense_ffn"].params == LAYERS * 3 * FFN * H
    assert checkpoint_params(plain) == 1_235_814_400 == model_total(catalog)
    assert plain.total_bytes == 2 * 1_235_814_400 and mismatches(model, plain) == []
    packed = summarise(header(packed_mlp=True), model, "https://example.org/header.json", "unknown", None)
    assert checkpoint_params(packed) == 1_235_814_400  # two FP4 values a byte; the scales are not parameters
    assert packed.roles["scales"].tensors == 3 * LAYERS
    assert packed.roles["scales"].params == LAYERS * 3 * FFN * H // 16
    assert packed.total_bytes == 2 * (1_235_814_400 - LAYERS * 3 * FFN * H) + LAYERS * 3 * FFN * H // 2 * (1 + 1 / 8)


def model_total(catalog: Catalog) -> int:
    from generator.sizing.params import count_params

    return count_params(catalog.model("llama-3-2-1b-instruct")).total


def test_what_the_checkpoint_contradicts_is_named(catalog: Catalog) -> None:
    """Biases on q/k/v, an untied head, a missing layer or a wrong total each make a mismatch."""
    model = catalog.model("llama-3-2-1b-instruct")
    biased = header(extra={"model.layers.0.self_attn.q_proj.bias": {"dtype": "BF16", "shape": [2048]}})
    found = mismatches(model, summarise(biased, model, "example/mirror:index.json", "unknown", None))
    assert found == ["attention biases in the checkpoint, bias is False in the network"]
    untied = header(extra={"lm_head.weight": {"dtype": "BF16", "shape": [VOCAB, H]}})
    found = mismatches(model, summarise(untied, model, "example/mirror:index.json", "unknown", None))
    assert found[0] == "the checkpoint has an output head, but tie_word_embeddings is True"
    assert "parameters, the checkpoint holds" in found[1]
    short = {k: v for k, v in header().items() if not k.startswith("model.layers.15.")}
    assert "15 decoder layers in the checkpoint, 16 in the network" in mismatches(
        model, summarise(short, model, "example/mirror:index.json", "unknown", None)
    )
    index = {"metadata": {"total_size": 2 * 1_235_814_400}, "weight_map": dict.fromkeys(header(), "model.safetensors")}
    del index["weight_map"]["__metadata__"]
    summary = summarise(index, model, "example/mirror:index.json", "unknown", 2.0)
    assert summary.kind == "index" and checkpoint_params(summary) == 1_235_814_400
    assert mismatches(model, summary) == []
    wrong = summary.model_copy(update={"total_bytes": math.ceil(2 * 1_235_814_400 * 1.01)})
    assert mismatches(model, wrong) == [
        f"the block list counts 1,235,814,400 parameters, the checkpoint holds {round(1_235_814_400 * 1.01):,} (-0.99%)"
    ]


def test_the_command_writes_a_summary_check_content_reads(tmp_path: Path) -> None:
    import shutil

    from tests.conftest import CONTENT

    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    path = tmp_path / "header.json"
    path.write_text(json.dumps(header(extra={"lm_head.weight": {"dtype": "BF16", "shape": [VOCAB, H]}})))
    run = [sys.executable, "-m", "generator", "--content", str(content)]
    proc = subprocess.run(
        [*run, "tensors", str(path), "--model", "llama-3-2-1b-instruct", "--source", "https://example.org/h.json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert "mismatch: the checkpoint has an output head" in proc.stderr
    written = content / "tensors" / "llama-3-2-1b-instruct.yaml"
    assert "kind: header" in written.read_text()
    check = subprocess.run([*run, "check-content"], capture_output=True, text=True, cwd=ROOT)
    assert check.returncode == 2
    assert "content/tensors/llama-3-2-1b-instruct.yaml: the checkpoint has an output head" in check.stderr


def test_the_published_indexes_agree_with_the_block_list_to_the_byte(catalog: Catalog) -> None:
    """Three published copies of checkpoint indexes (content/tensors/): Llama-3.1-8B-Instruct's 16,060,522,496
    bytes are 2 × 8,030,261,248 BF16 parameters, Devstral-Small-2507's 2 × 23,572,403,200, and gpt-oss-20b's
    13,761,264,768 are its MXFP4 experts (4.25 bits) and BF16 rest, as the block list counts them."""
    import yaml

    from generator.content.tensors import TensorSummary, stored_bytes
    from tests.conftest import CONTENT

    expected = {
        "llama-3-1-8b-instruct": 16_060_522_496,
        "devstral-small-2507": 47_144_806_400,
        "gpt-oss-20b": 13_761_264_768,
    }
    for slug, size in expected.items():
        summary = TensorSummary.model_validate(yaml.safe_load((CONTENT / "tensors" / f"{slug}.yaml").read_text()))
        model = catalog.model(slug)
        assert summary.total_bytes == size
        assert stored_bytes(model, summary, catalog.format(summary.stored_as or "")) == size, slug
        assert mismatches(model, summary, catalog.formats) == [], slug
    summary = summary.model_copy(update={"stored_as": "BF16"})
    assert mismatches(catalog.model("gpt-oss-20b"), summary, catalog.formats) == [
        "BF16 weights of the block list take 41,829,514,368 bytes, the checkpoint 13,761,264,768 (+203.97%)"
    ]
