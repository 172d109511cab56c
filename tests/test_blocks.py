"""The block-list description: hand-checked values for each block kind, the published totals of the
models it made possible, and config.json readers that refuse what they cannot size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.content.catalog import Catalog
from generator.content.hfconfig import ConfigError, load_config
from generator.sizing.kv import kv_cache
from generator.sizing.layout import layout, state_bytes_per_seq_layer
from generator.sizing.memory import tp_valid
from generator.sizing.params import compared_total, count_params, declared_mismatch
from generator.sizing.scenario import Scenario
from tests.conftest import ROOT

CONFIGS = ROOT / "research" / "configs"


def test_gemma4_keeps_two_head_geometries(catalog: Catalog) -> None:
    """Gemma 4 31B: 50 sliding layers of 16 KV heads × 256 and 10 full layers of 4 KV heads × 512 (keys
    double as values; the engines still cache V)."""
    model = catalog.model("gemma-4-31b-it")
    sliding = 2 * 16 * 256 * 2  # K and V × heads × head size × 2 bytes = 16 KiB per layer per token
    full = 2 * 4 * 512 * 2  # 8 KiB
    kv = kv_cache(model, catalog.engine("vllm"), 2, 32_768, 1)
    assert kv.bytes_per_token == 50 * sliding + 10 * full
    # vLLM: full layers hold the context (16-token pages); sliding ones window − 1 + 8192 batched, +1 block.
    window_tokens = -(-(1024 - 1 + 8192) // 16) * 16 + 16
    assert kv.attention_bytes == 10 * full * 32_768 + 50 * sliding * window_tokens
    # One geometry for every layer (the old model) would have counted 60 × 16 KiB per token.
    assert kv.bytes_per_token < 60 * sliding


def test_gemma4_splits_by_each_geometry(catalog: Catalog) -> None:
    """Tensor parallel over 4: the full layers' 4 KV heads split, the sliding layers' 16 split too; over 8
    the full layers' heads are replicated (each rank keeps a quarter, not an eighth)."""
    model = catalog.model("gemma-4-31b-it")
    kv = kv_cache(model, catalog.engine("vllm"), 2, 8192, 1)
    full_bytes = sum(b for b, block in kv.by_block if block.kind == "attention" and block.window is None)
    sliding_bytes = kv.attention_bytes - full_bytes
    assert kv.per_rank_attention(8, 1.0) == pytest.approx(full_bytes / 4 + sliding_bytes / 8, abs=1)
    assert tp_valid(model, catalog.engine("vllm"), 8)


def test_nemotron_h_layers_hold_one_block(catalog: Catalog) -> None:
    """Nemotron 3 Nano: 23 Mamba-2, 23 MoE and 6 attention layers, each one block; the derived count is the
    Hub's 31.58B, where a mixer and an FFN on every layer gave 102B."""
    model = catalog.model("nemotron-3-nano-30b-a3b")
    laid = layout(model)
    assert [n for _, n in laid.mixers] == [6, 23] and [n for _, n in laid.ffns] == [23]
    assert count_params(model).total == 31_577_940_288
    mamba = laid.recurrent[0][0]
    vllm = catalog.engine("vllm")
    # conv: (4 − 1) × (4096 + 2 × 8 × 128) × 2 B; ssm: 128 × 4096 × 4 B (vLLM's dtypes)
    assert state_bytes_per_seq_layer(mamba, vllm) == 3 * 6144 * 2 + 128 * 4096 * 4
    kv = kv_cache(model, vllm, 2, 65_536, 1)
    assert kv.attention_bytes == 6 * 2 * 2 * 128 * 2 * 65_536  # only the 6 attention layers grow
    assert kv.state_bytes == 23 * (3 * 6144 * 2 + 128 * 4096 * 4)


def test_latent_experts_and_mtp_modules(catalog: Catalog) -> None:
    """Nemotron 3 Super: 512 experts work at the latent width 1024 (2 × 1024 × 2688 each), with the down
    and up projections read on every token; its one MTP module of two layers has one projection."""
    model = catalog.model("nemotron-3-super-120b-a12b")
    moe = layout(model).moe[0][0]
    assert moe.latent == 1024
    p = count_params(model)
    assert p.experts == 40 * 512 * 2 * 1024 * 2688
    assert compared_total(model, p) == model.params_total == 123_611_033_088


@pytest.mark.parametrize(
    "slug",
    [
        "gemma-4-31b-it",
        "gemma-4-26b-a4b-it",
        "nemotron-3-nano-30b-a3b",
        "nemotron-3-super-120b-a12b",
        "step-3-5-flash",
        "qwen3-5-9b",
        "qwen3-5-4b",
        "qwen3-5-35b-a3b",
        "qwen3-6-35b-a3b",
        "minimax-m2-5",
        "kimi-k3",
        "deepseek-v4-flash",
        "deepseek-v3-2",
        "glm-5",
    ],
)
def test_block_list_models_match_their_published_totals(catalog: Catalog, slug: str) -> None:
    """Each model added through the block list is within 0.5% of its published total or the checkpoint's
    element count (with the MTP layers and vision tower where that figure counts them)."""
    model = catalog.model(slug)
    mismatch = declared_mismatch(model, count_params(model))
    assert mismatch is not None and abs(mismatch) < 0.005, (slug, mismatch)


def test_every_catalog_config_reads_as_its_model(catalog: Catalog) -> None:
    """The saved configs scaffold the catalog's networks without hand edits."""
    for path in sorted(CONFIGS.glob("*.json")):
        try:
            model = load_config(path)
        except ConfigError:
            continue  # refused: see the next test
        known = catalog.models.get(path.stem)
        if known is None or known.network is None:
            continue
        assert model.network.blocks == known.network.blocks, path.stem
        assert model.network.schedule() == known.network.schedule(), path.stem


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("qwen3-8-flash-next", "hc_count"),
        ("deepseek-v4-1-flash", "hc_mult"),
    ],
)
def test_configs_the_engine_cannot_size_are_refused_with_the_key(name: str, key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        load_config(CONFIGS / f"{name}.json")


def test_an_unread_size_key_is_refused(tmp_path: Path) -> None:
    """A dense config with a key that would change its size (here, hyper-connection streams) is refused
    with the key named, not sized as if the key were absent."""
    cfg = json.loads((ROOT / "tests" / "fixtures" / "qwen2.5-coder-32b-config.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg | {"hc_mult": 4}))
    with pytest.raises(ConfigError, match="hc_mult"):
        load_config(path)
    path.write_text(json.dumps(cfg | {"hc_mult": 0}))
    assert load_config(path).architecture.num_layers == 64  # a zero says the feature is off


def test_sparse_mla_keeps_the_indexer_cache_each_engine_allocates(catalog: Catalog) -> None:
    """DeepSeek-V3.2: vLLM keeps a 656 B fp8_ds_mla latent and a 132 B index key (128 fp8 + an fp32 scale)
    per token and layer in 64-token pages: 61 × 788 = 48,068 B per token, which closes SGLang's load log
    (same records) of 975,424 tokens in 43.67 GiB. llama.cpp keeps the index key at the cache's type."""
    model = catalog.model("deepseek-v3-2")
    vllm = catalog.engine("vllm")
    kv = kv_cache(model, vllm, 1.0, 975_424, 1)
    assert kv.bytes_per_token == 61 * (656 + 132)
    assert kv.attention_bytes == 975_424 * 48_068 and round(kv.attention_bytes / 2**30, 2) == 43.67
    assert kv_cache(model, vllm, 1.0, 100, 1).attention_bytes == 61 * 788 * 128  # two 64-token pages
    bf16 = kv_cache(model, vllm, 2.0, 4096, 1)
    assert bf16.bytes_per_token == 61 * (576 * 2 + 132)
    glm = catalog.model("glm-5")
    llama = kv_cache(glm, catalog.engine("llama.cpp"), 2.0, 4096, 1)
    assert llama.attention_bytes == 78 * 4096 * (576 * 2 + 128 * 2)  # latent 1152 B + index key 256 B


def test_sparse_mla_counts_the_indexer_and_reads_top_k(catalog: Catalog) -> None:
    """The lightning indexer: wq_b 1536 → 64 × 128, wk 7168 → 128, weights_proj 7168 → 64 and a LayerNorm
    of 128 (weight and bias): 13,959,424 per layer. Decode reads 2048 latents, and every index key."""
    from generator.sizing.kv import kv_read_per_token
    from generator.sizing.layout import mixer_params

    model = catalog.model("deepseek-v3-2")
    block = layout(model).attention[0][0]
    assert block.kind == "mla" and block.indexer is not None
    with_ix = sum(mixer_params(block, 7168))
    without = sum(mixer_params(block.model_copy(update={"indexer": None}), 7168))
    assert with_ix - without == 13_959_424
    read = kv_read_per_token(model, 2.0, 100_000, 0.0)
    assert read == 61 * (576 * 2 * 2048 + 128 * 2 * 100_000)


V32 = {
    "architectures": ["DeepseekV32ForCausalLM"],
    "model_type": "deepseek_v32",
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "moe_intermediate_size": 2048,
    "n_routed_experts": 256,
    "n_shared_experts": 1,
    "num_experts_per_tok": 8,
    "first_k_dense_replace": 3,
    "num_hidden_layers": 61,
    "num_attention_heads": 128,
    "num_key_value_heads": 128,
    "q_lora_rank": 1536,
    "kv_lora_rank": 512,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "vocab_size": 129280,
    "max_position_embeddings": 163840,
    "num_nextn_predict_layers": 1,
    "tie_word_embeddings": False,
    "index_n_heads": 64,
    "index_head_dim": 128,
    "index_topk": 2048,
}


def test_sparse_attention_config_reads_as_the_catalog_model(tmp_path: Path, catalog: Catalog) -> None:
    """DeepSeek-V3.2's sizing keys (as its catalog notes list them) read into the catalog's network, indexer
    included; IndexShare layers (GLM-5.2's "shared" indexer_types) are refused, not sized as full ones."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(V32))
    model, known = load_config(path), catalog.model("deepseek-v3-2")
    assert model.network.blocks == known.network.blocks and model.network.schedule() == known.network.schedule()
    path.write_text(json.dumps(V32 | {"indexer_types": ["full", "shared", "shared", "shared"] * 15 + ["full"]}))
    with pytest.raises(ConfigError, match="indexer_types has shared indexer layers"):
        load_config(path)


def test_kimi_delta_attention_state_and_gated_latent_attention(catalog: Catalog) -> None:
    """Kimi K3: each of 69 KDA layers keeps q/k/v conv states of 3 × 12,288 × (4 − 1) values (bf16 in vLLM)
    and a 96 × 128 × 128 FP32 state: 449,372,160 B per sequence in all; only its 24 gated MLA layers grow
    with the context (576 values per token). Its count is within 0.02% of the published 2.78T."""
    model = catalog.model("kimi-k3")
    vllm, llama = catalog.engine("vllm"), catalog.engine("llama.cpp")
    kv = kv_cache(model, vllm, 2, 100_000, 1)
    assert kv.state_bytes == 69 * (3 * 12_288 * 3 * 2 + 96 * 128 * 128 * 4) == 449_372_160
    assert kv.bytes_per_token == 24 * 576 * 2
    assert kv_cache(model, llama, 2, 4096, 1).state_bytes == 69 * (3 * 12_288 * 3 + 96 * 128 * 128) * 4
    assert count_params(model).total == 2_779_484_476_000 - 2 * 7168  # the audit's count less the final AttnRes
    mla = layout(model).attention[0][0]
    assert mla.kind == "mla" and mla.output_gate


def test_hyper_connections_and_pooled_indexer(catalog: Catalog) -> None:
    """GLM-5.3-Flash: four mHC streams add 2 × (24 × 16,384 + 24 + 3) = 786,486 parameters per layer; its
    pooled indexer caches a key and gate logits (2 × 128 values) beside the 512-value latent (no RoPE
    part) per token on the 11 sparse layers; the 34 KDA layers keep 64 × 128 × 128 FP32 states."""
    model = catalog.model("glm-5-3-flash")
    assert abs(declared_mismatch(model, count_params(model)) or 1) < 0.005
    p = count_params(model)
    assert p.total == 313_326_811_966 and p.mtp == 7_432_592_416
    no_hc = model.model_copy(update={"network": model.network.model_copy(update={"hyper_connections": None})})
    assert p.small - count_params(no_hc).small == 45 * 786_486
    kv = kv_cache(model, catalog.engine("llama.cpp"), 2.0, 4096, 1)
    assert kv.attention_bytes == 11 * 4096 * (512 + 2 * 128) * 2
    assert kv.state_bytes == 34 * (3 * 8192 * 3 + 64 * 128 * 128) * 4


def test_deepseek_v4_compressed_attention_as_each_engine_keeps_it(catalog: Catalog) -> None:
    """DeepSeek-V4-Flash: 284,332,240,471 parameters (llama.cpp's log: "284.33 B"). Per token of context, vLLM
    adds 21 ratio-4 rows and index keys and 20 ratio-128 rows in 256-token pages rounded to 576 B:
    21 × (37,440 + 8,640) / 256 + 20 × 1,728 / 256 = 3,915 B; llama.cpp keeps K-only F16 rows of 1024 B and
    index keys of 256 B: 21 × (1024 + 256) / 4 + 20 × 1024 / 128 = 6,880 B. Each sequence also holds
    12,206,080 B of FP32 compressor state."""
    model = catalog.model("deepseek-v4-flash")
    assert count_params(model).total == 284_332_240_471
    vllm, llama = catalog.engine("vllm"), catalog.engine("llama.cpp")
    long, short = 524_288, 262_144  # whole pages and 256-cell paddings at every ratio
    grow = kv_cache(model, vllm, 1.0, long, 1).attention_bytes - kv_cache(model, vllm, 1.0, short, 1).attention_bytes
    assert grow == short * (21 * (37_440 + 8_640) + 20 * 1_728) // 256
    grow = kv_cache(model, llama, 2.0, long, 1).attention_bytes - kv_cache(model, llama, 2.0, short, 1).attention_bytes
    assert grow == short * 6_880
    assert kv_cache(model, vllm, 1.0, 8192, 1).state_bytes == 21 * (65_536 + 16_384) + 20 * 524_288 == 12_206_080


def test_an_engine_without_the_architecture_is_never_offered(catalog: Catalog) -> None:
    """DeepSeek V4 runs on vLLM and llama.cpp only (architectures.yaml): Ollama, SGLang and MLX are refused
    with the reason, and no pair page offers their commands."""
    from generator.site.pair_page import pair_data
    from generator.sizing.estimate import ScenarioError, check_scenario

    model = catalog.model("deepseek-v4-flash")
    assert model.engines == ("llama.cpp", "vllm")
    hw = catalog.hw("h200-sxm")
    sc = Scenario(catalog.format("Q4_K_M"), catalog.kv_dtype("fp16"), catalog.engine("ollama"), 8192)
    with pytest.raises(ScenarioError, match="Ollama does not run DeepSeek-V4-Flash: no release of it is known"):
        check_scenario(model, hw, sc)
    blocks = pair_data(catalog, model, hw).commands
    assert {c.engine for c in blocks} <= {"llama.cpp", "vllm"} and blocks
    assert catalog.model("qwen3-8b").engines is None  # an unlisted type keeps every engine


def test_a_model_file_cannot_claim_engines(tmp_path: Path) -> None:
    """Which engines run a model comes from architectures.yaml only; a model file saying it is an error."""
    import shutil

    from generator.content.loader import ContentErrors, load_catalog
    from tests.conftest import CONTENT

    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    path = content / "models" / "qwen3-8b.yaml"
    path.write_text(path.read_text() + "engines: [vllm]\n")
    with pytest.raises(ContentErrors, match="engines comes from content/architectures.yaml"):
        load_catalog(content)
