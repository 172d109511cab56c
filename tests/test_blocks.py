"""The block-list description: hand-checked values for each block kind, the published totals of the
models it made possible, and config.json readers that refuse what they cannot size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.content.catalog import Catalog
from generator.content.hfconfig import ConfigError, load_config
from generator.sizing.kv import kv_cache
from generator.sizing.layout import compressed_state_bytes, layout, state_bytes_per_seq_layer
from generator.sizing.memory import tp_valid
from generator.sizing.params import compared_total, count_params, declared_mismatch, hc_params
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
        "glm-5-3-flash",
        "qwen3-8-flash-next",
        "deepseek-v4-1-flash",
    ],
)
def test_block_list_models_match_their_published_totals(catalog: Catalog, slug: str) -> None:
    """Each model added through the block list is within 0.5% of its published total or the checkpoint's
    element count (with the MTP layers and vision tower where that figure counts them)."""
    model = catalog.model(slug)
    mismatch = declared_mismatch(model, count_params(model))
    assert mismatch is not None and abs(mismatch) < 0.005, (slug, mismatch)


def test_every_catalog_config_reads_as_its_model(catalog: Catalog) -> None:
    """Every saved 2026 config scaffolds its catalog model's network without hand edits: blocks, schedule,
    hyper-connections and n-gram tables (and the MTP layers where the catalog counts them the same way)."""
    read = 0
    for path in sorted(CONFIGS.glob("*.json")):
        model = load_config(path)
        known = catalog.models.get(path.stem)
        if known is None:
            continue
        assert model.network.blocks == known.network.blocks, path.stem
        assert model.network.schedule() == known.network.schedule(), path.stem
        assert model.network.hyper_connections == known.network.hyper_connections, path.stem
        assert model.network.ngram == known.network.ngram, path.stem
        assert model.architecture.norms_per_layer == known.architecture.norms_per_layer, path.stem
        read += 1
    assert read == len(list(CONFIGS.glob("*.json")))


@pytest.mark.parametrize(
    ("name", "change", "key"),
    [
        ("qwen3-8-flash-next", {"indexer_kv_heads": 2}, "indexer_kv_heads"),
        ("qwen3-8-flash-next", {"hc_lowrank": None}, "hc_lowrank"),
        ("deepseek-v4-1-flash", {"kv_source_layer_ids": [8, 14, 20]}, "kv_source_layer_ids"),
        ("deepseek-v4-1-flash", {"engram_num_embeddings": [384006168]}, "engram_num_embeddings"),
    ],
)
def test_a_2026_config_the_engine_cannot_read_fully_is_refused_with_the_key(
    tmp_path: Path, name: str, change: dict[str, object], key: str
) -> None:
    """A variant the readers do not size (several QSA key heads, a gated residual without its rank, a
    compressed layer with no KV source of its ratio below it, Engram rows for only one of two layers) is
    refused with the key named."""
    cfg = json.loads((CONFIGS / f"{name}.json").read_text())
    cfg["text_config"] |= change
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    with pytest.raises(ConfigError, match=key):
        load_config(path)


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


def test_gated_residual_streams_qsa_indexer_and_ngram_table(catalog: Catalog) -> None:
    """Qwen3.8-Flash-Next closes its checkpoint census exactly: text 176,943,899,520 (of it a 320,001,536 ×
    160 n-gram table), MTP 2,607,150,848 and vision 448,931,056 are the census's 179,999,981,459 values less
    35 int64 hash buffers. Per token, each of the 12 QSA layers caches K and V of 2 heads of 256 and (vLLM,
    SGLang) one BF16 key of 128 per 4 tokens: 12 × (2,048 + 64) = 25,344 B."""
    model = catalog.model("qwen3-8-flash-next")
    p = count_params(model)
    assert p.total == 176_943_899_520 and p.mtp == 2_607_150_848 and p.ngram == 320_001_536 * 160
    assert compared_total(model, p) == 179_999_981_459 - 35
    # One gated-residual block: grouped norm 4h, rank-320 gate down and up, a 4 × 4h injection.
    h = 2560
    assert 2 * (4 * h + 2 * 320 * 4 * h + 4 * 4 * h) == 13_209_600
    # 48 layers of two blocks, and a last block without the injection in place of the final norm.
    assert hc_params(model, 48) == 48 * 13_209_600 + 6_563_840
    assert p.active == 7_306_994_560  # the card's 6B leaves out the embedding, the head and the PLE projections
    vllm, sglang, llama = (catalog.engine(e) for e in ("vllm", "sglang", "llama.cpp"))
    for engine in (vllm, sglang):
        assert kv_cache(model, engine, 2.0, 65_536, 1).bytes_per_token == 12 * (2 * 2 * 256 * 2 + 128 * 2 / 4)
    assert kv_cache(model, llama, 2.0, 65_536, 1).bytes_per_token == 12 * (2 * 2 * 256 * 2 + 128 * 2)
    # At TP 2 each rank keeps one KV head; the indexer's keys stay whole on every rank.
    kv = kv_cache(model, vllm, 2.0, 65_536, 1)
    index = 12 * 64 * 65_536
    assert kv.per_rank_attention(2, 1.0) == (kv.attention_bytes - index) / 2 + index
    # The n-gram conv keeps (4 − 1) × 3 positions of the 4 × 2560 streams per sequence.
    no_table = model.model_copy(update={"network": model.network.model_copy(update={"ngram": None})})
    extra = kv_cache(model, vllm, 2.0, 4096, 3).state_bytes - kv_cache(no_table, vllm, 2.0, 4096, 3).state_bytes
    assert extra == 3 * 9 * 10_240 * vllm.state_conv_bytes


def test_an_ngram_table_sits_where_each_engine_keeps_it(catalog: Catalog) -> None:
    """vLLM keeps the 51.2B-value table in device memory, split over the ranks; SGLang (BF16 on CUDA) and
    llama.cpp keep it in host memory, so it leaves the devices' total."""
    from generator.sizing.memory import memory
    from generator.sizing.weights import weight_bytes

    model = catalog.model("qwen3-8-flash-next")
    hw = catalog.hw("h200-sxm")
    weights = weight_bytes(count_params(model), catalog.format("BF16"))
    assert weights.ngram == 320_001_536 * 160 * 2
    tight = catalog.assumptions.verdict_tight_fraction
    on = {}
    for name in ("vllm", "sglang"):
        engine = catalog.engine(name)
        sc = Scenario(catalog.format("BF16"), catalog.kv_dtype("bf16"), engine, 8192, gpus=4)
        on[name] = memory(model, weights, hw, sc, tight)
    assert on["vllm"].weights_host_bytes == 0
    assert on["sglang"].weights_host_bytes == weights.ngram
    assert on["vllm"].weights_bytes - on["sglang"].weights_bytes == weights.ngram


def test_deepseek_v41_shares_compressed_caches_across_layers(catalog: Catalog) -> None:
    """DeepSeek-V4.1-Flash: 748,494,684,784 parameters in memory, a 551,566,180,464 backbone plus Engram's
    196,613,849,600 table values and 314,654,720 projection weights. Only layers 2, 8, 14 (ratio 2) and 20
    (ratio 1) keep compressed entries and index keys; in vLLM's 584-byte fp8_ds_mla rows and 132-byte keys
    in 576-byte-aligned pages that is (3 / 2 + 1) × (585 + 135) = 1,800 B per token, as the research
    derives; the three ratio-2 compressors keep 2 × 2 × 512 FP32 values each per sequence."""
    model = catalog.model("deepseek-v4-1-flash")
    p = count_params(model)
    assert p.total == 748_494_684_784 and p.ngram == (384_006_168 + 384_016_682) * 256
    assert p.total - p.ngram - 314_654_720 == 551_566_180_464
    assert abs(declared_mismatch(model, p) or 1) < 0.0005
    vllm = catalog.engine("vllm")
    long, short = 524_288, 262_144
    grow = kv_cache(model, vllm, 1.0, long, 1).attention_bytes - kv_cache(model, vllm, 1.0, short, 1).attention_bytes
    per_page = 256 // 2  # entries a page of 256 tokens holds at ratio 2 (256 at ratio 1)
    rows2 = -(-(per_page * 584) // 576) * 576 + -(-(per_page * 132) // 576) * 576
    rows1 = -(-(256 * 584) // 576) * 576 + -(-(256 * 132) // 576) * 576
    assert grow == short * (3 * rows2 + rows1) // 256
    assert 1_795 < grow / short < 1_800
    assert kv_cache(model, vllm, 1.0, 8192, 1).state_bytes == 3 * 2 * 2 * 512 * 4
    shared = [b for b, _ in layout(model).compressed if b.cache == "shared"]
    assert shared and all(compressed_state_bytes(b, vllm) == 0 for b in shared)
    # Engram stays in device memory on vLLM (no offload by default).
    assert not vllm.ngram_on_host("engram")
