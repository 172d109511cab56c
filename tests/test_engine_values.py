"""Hand-checked figures: each expected value is worked out in the comment beside it."""

from __future__ import annotations

import datetime as dt

import pytest

from generator.content.catalog import Catalog
from generator.sizing.devices import device_view
from generator.sizing.estimate import ScenarioError, estimate
from generator.sizing.kv import kv_bytes_per_token_layer, kv_cache
from generator.sizing.layout import layout, state_bytes_per_seq_layer
from generator.sizing.memory import runtime_bytes_per_gpu, tp_valid, usable_bytes_per_gpu, verdict_for
from generator.sizing.params import count_params
from generator.sizing.scenario import Facts, calibration_for
from generator.sizing.speed import SpeedConstants, experts_touched_fraction, speed
from generator.sizing.weights import body_bpw, weight_bytes
from tests.conftest import GIB, scenario

MIB = 1024**2


@pytest.mark.parametrize(
    ("slug", "published"),
    [
        # safetensors totals of the dense (and one MoE) checkpoints
        ("qwen2-5-coder-32b-instruct", 32_763_876_352),
        ("llama-3-1-8b-instruct", 8_030_261_248),
        ("llama-3-1-70b-instruct", 70_553_706_496),
        ("mixtral-8x7b-instruct-v0-1", 46_702_792_704),
        ("qwen3-30b-a3b", 30_532_122_624),
    ],
)
def test_derived_params_equal_published_totals(catalog: Catalog, slug: str, published: int) -> None:
    assert count_params(catalog.model(slug)).total == published


def test_qwen_coder_32b_kv_is_256_kib_per_token_and_8_gib_at_32k(catalog: Catalog) -> None:
    model = catalog.model("qwen2-5-coder-32b-instruct")
    # 2 (K and V) × 8 KV heads × 128 head_dim × 2 bytes = 4096 B per layer; × 64 layers = 256 KiB
    assert kv_bytes_per_token_layer(layout(model).attention[0][0], 2) * 64 == 256 * 1024
    for engine in ("llama.cpp", "vllm"):
        kv = kv_cache(model, catalog.engine(engine), 2, 32_768, 1)
        assert kv.attention_bytes == 8 * GIB  # 256 KiB × 32,768 tokens, already a multiple of 16 and 256


def test_gemma3_sliding_window_kv_is_far_below_naive(catalog: Catalog) -> None:
    model = catalog.model("gemma-3-27b-it")
    # per layer per token: 2 × 16 × 128 × 2 = 8 KiB. 62 layers at pattern 5 local : 1 global → 10 global.
    kv = kv_cache(model, catalog.engine("llama.cpp"), 2, 131_072, 1)
    global_bytes = 10 * 8 * 1024 * 131_072  # 10 GiB
    local_bytes = 52 * 8 * 1024 * 1536  # llama.cpp: pad256(min(131072, 1024 + 512)) = 1536 cells
    assert kv.attention_bytes == global_bytes + local_bytes
    naive = 62 * 8 * 1024 * 131_072  # 62 GiB if every layer were global
    assert kv.attention_bytes < 0.18 * naive


def test_deepseek_v3_mla_kv_is_the_latent_not_per_head(catalog: Catalog) -> None:
    model = catalog.model("deepseek-v3")
    # (kv_lora_rank 512 + rope 64) × 2 bytes = 1152 B per layer, no ×2; × 61 layers = 70,272 B (68.6 KiB)
    assert kv_bytes_per_token_layer(layout(model).attention[0][0], 2) == 1152
    kv = kv_cache(model, catalog.engine("vllm"), 2, 32_768, 1)
    assert kv.attention_bytes == 70_272 * 32_768  # 2.14 GiB
    naive_per_head = 61 * 128 * (192 + 128) * 2 * 32_768  # decompressed K/V per head
    assert kv.attention_bytes < naive_per_head / 50


def test_gpt_oss_kv_per_token_matches_vllm(catalog: Catalog) -> None:
    model = catalog.model("gpt-oss-120b")
    # 36 layers × 2 × 8 × 64 × 2 B = 73,728 B per token, what vLLM counts (hf-mem #60)
    assert kv_bytes_per_token_layer(layout(model).attention[0][0], 2) * 36 == 73_728
    kv = kv_cache(model, catalog.engine("vllm"), 2, 131_072, 1)
    # 18 full layers hold the context; 18 sliding layers hold window − 1 + 8192 batched tokens, in 16s, + 1 block
    full = 18 * 2048 * 131_072
    sliding = 18 * 2048 * (8320 + 16)  # pad16(128 − 1 + 8192) = 8320
    assert kv.attention_bytes == full + sliding


def test_qwen3_next_linear_state_per_sequence(catalog: Catalog) -> None:
    model = catalog.model("qwen3-next-80b-a3b-instruct")
    vllm = catalog.engine("vllm")
    # conv: (2·16·128 + 32·128) × (4 − 1) × 2 B = 49,152; ssm: 32 × 128 × 128 × 4 B = 2,097,152
    assert state_bytes_per_seq_layer(layout(model).recurrent[0][0], vllm) == 49_152 + 2_097_152
    kv = kv_cache(model, vllm, 2, 262_144, 2)
    assert kv.state_bytes == 2 * 36 * (49_152 + 2_097_152)  # 36 linear layers, 2 sequences (~74 MiB each)
    # 12 full layers × 2 × 2 KV heads × 256 × 2 B = 24 KiB per token
    assert kv.bytes_per_token == 24 * 1024
    assert kv.attention_bytes == 2 * 24 * 1024 * 262_144


def test_q4_k_m_reproduces_the_llama3_8b_file(catalog: Catalog) -> None:
    fmt = catalog.format("Q4_K_M")
    w = weight_bytes(count_params(catalog.model("llama-3-1-8b-instruct")), fmt)
    # llama-quantize prints 4.58 GiB for Llama-3-8B Q4_K_M; same shapes as 3.1-8B
    assert w.total / GIB == pytest.approx(4.58, abs=0.01)
    assert body_bpw(fmt) == pytest.approx(4.805, abs=0.005)


def test_block_formats_are_exact(catalog: Catalog) -> None:
    assert catalog.format("Q8_0").bits_per_weight == 34 * 8 / 32
    assert catalog.format("Q6_K").bits_per_weight == 210 * 8 / 256
    assert catalog.format("IQ4_XS").bits_per_weight == 136 * 8 / 256
    assert catalog.kv_dtype("q8_0").bytes_per_element == 34 / 32
    assert catalog.kv_dtype("q4_0").bytes_per_element == 18 / 32


def test_llama_cpp_compute_buffer_matches_its_log(catalog: Catalog) -> None:
    model = catalog.model("llama-3-1-8b-instruct")
    eng = catalog.engine("llama.cpp")
    buffer = runtime_bytes_per_gpu(model, eng, 1, 1) - eng.runtime_bytes_per_gpu
    # "compute buffer size = 258.50 MiB" + "output buffer size = 0.49 MiB" for Llama-3-8B, n_ubatch 512
    assert buffer == 512 * (4096 + 128_256) * 4 + 128_256 * 4
    assert round(512 * (4096 + 128_256) * 4 / MIB, 2) == 258.50


def test_usable_memory_rules(catalog: Catalog) -> None:
    h100 = catalog.hw("h100-sxm")
    assert usable_bytes_per_gpu(h100, catalog.engine("llama.cpp")) == 80 * GIB
    assert usable_bytes_per_gpu(h100, catalog.engine("vllm")) == int(80 * GIB * 0.9)
    mac = catalog.hw("apple-m4-max-40c-128gb")
    assert mac.gpu_memory_limit_gib is not None
    assert usable_bytes_per_gpu(mac, catalog.engine("llama.cpp")) == round(mac.gpu_memory_limit_gib * GIB)
    assert usable_bytes_per_gpu(mac, catalog.engine("llama.cpp")) < mac.memory_bytes


def test_verdict_thresholds() -> None:
    assert verdict_for(90, 100, 0.9) == "comfortable"
    assert verdict_for(91, 100, 0.9) == "tight"
    assert verdict_for(100, 100, 0.9) == "tight"
    assert verdict_for(101, 100, 0.9) == "oom"


def test_experts_touched_grow_with_batch() -> None:
    # E = 128, k = 8: B = 8 → 128·(1 − 0.9375⁸) = 51.9; B = 32 → 128·(1 − 0.9375³²) = 128·(1 − 0.1268) = 111.8
    assert round(128 * experts_touched_fraction(128, 8, 8)) == 52
    assert round(128 * experts_touched_fraction(128, 8, 32)) == 112
    assert experts_touched_fraction(128, 8, 1) == 8 / 128


def test_tensor_parallel_must_divide_heads(catalog: Catalog) -> None:
    model = catalog.model("qwen2-5-coder-32b-instruct")  # 40 heads, 8 KV heads
    vllm = catalog.engine("vllm")
    assert [g for g in range(1, 17) if tp_valid(model, vllm, g)] == [1, 2, 4, 8]
    assert tp_valid(model, catalog.engine("llama.cpp"), 3)  # layer split has no such rule


def test_estimate_qwen_coder_on_h100(catalog: Catalog, facts: object) -> None:
    est = estimate(
        catalog.model("qwen2-5-coder-32b-instruct"),
        catalog.hw("h100-sxm"),
        scenario(catalog, context=32_768, kv="bf16"),
        facts,
    )  # type: ignore[arg-type]
    keys = est.to_dict()
    assert keys["kv_cache_bytes"] == 8 * GIB
    assert keys["params_total"] == 32_763_876_352
    assert keys["total_bytes"] == keys["weights_bytes"] + keys["kv_cache_bytes"] + keys["overhead_bytes"]
    assert keys["verdict"] == "comfortable"
    # The card's maximum with its YaRN (config 32,768 × 4), which llama.cpp applies; memory allows more.
    assert keys["max_context"] == 131_072
    # Ollama cannot apply YaRN from a Modelfile: it stops at the config's maximum, and refuses past it.
    ollama = scenario(catalog, engine="ollama", context=32_768)
    model, hw = catalog.model("qwen2-5-coder-32b-instruct"), catalog.hw("h100-sxm")
    assert estimate(model, hw, ollama, facts).max_context == 32_768  # type: ignore[arg-type]
    with pytest.raises(ScenarioError) as err:
        estimate(model, hw, ollama.with_(context=65_536), facts)  # type: ignore[arg-type]
    assert err.value.code == "long_context"
    assert keys["min_gpus"] == 1
    # decode reads ~18 GiB of weights and the whole 8 GiB cache per token on 3.35 TB/s: below
    # that roofline (~117 tok/s), above a third of it
    roofline = 3350e9 / (est.weights.per_token_read + keys["kv_cache_bytes"])
    assert roofline / 3 < keys["decode_tok_s"] < roofline


def test_moe_decodes_faster_than_dense_of_same_size(catalog: Catalog, facts: object) -> None:
    hw = catalog.hw("rtx-pro-6000-blackwell")
    sc = scenario(catalog)
    moe = estimate(catalog.model("qwen3-30b-a3b"), hw, sc, facts).to_dict()  # type: ignore[arg-type]
    dense = estimate(catalog.model("qwen2-5-coder-32b-instruct"), hw, sc, facts).to_dict()  # type: ignore[arg-type]
    assert moe["weights_bytes"] > 0.8 * dense["weights_bytes"]
    assert moe["decode_tok_s"] > 3 * dense["decode_tok_s"]


def test_layer_split_does_not_speed_decode_but_tensor_parallel_does(catalog: Catalog, facts: object) -> None:
    model = catalog.model("llama-3-1-70b-instruct")
    hw = catalog.hw("a100-80gb-sxm")
    one = estimate(model, hw, scenario(catalog, gpus=1), facts).speed.decode_tok_s  # type: ignore[arg-type]
    two = estimate(model, hw, scenario(catalog, gpus=2), facts).speed.decode_tok_s  # type: ignore[arg-type]
    assert two == pytest.approx(one, rel=1e-9)
    tp1 = estimate(model, hw, scenario(catalog, "AWQ", "vllm"), facts).speed.decode_tok_s  # type: ignore[arg-type]
    tp2 = estimate(model, hw, scenario(catalog, "AWQ", "vllm", gpus=2), facts).speed.decode_tok_s  # type: ignore[arg-type]
    assert tp1 < tp2 < 2 * tp1


def test_finetune_accounting(catalog: Catalog, facts: object) -> None:
    model = catalog.model("llama-3-1-8b-instruct")
    est = estimate(model, catalog.hw("rtx-4090"), scenario(catalog), facts)  # type: ignore[arg-type]
    qlora, lora, full = est.finetune
    p = 8_030_261_248
    assert full.trainable_bytes == 16 * p  # 2 + 2 + 12 bytes per parameter
    assert lora.weights_bytes == 2 * p
    # LoRA r=16 on q,k,v,o (4096→4096, 4096→1024 ×2, 4096→4096) and gate/up/down (4096↔14336), 32 layers
    per_layer = 16 * ((4096 + 4096) * 2 + (4096 + 1024) * 2) + 16 * 3 * (4096 + 14_336)
    assert lora.trainable_params == 32 * per_layer
    assert qlora.total_bytes < lora.total_bytes < full.total_bytes
    assert 4 * GIB < qlora.total_bytes < 10 * GIB  # Unsloth's "absolute minimum" for 8B QLoRA is ~6 GB


def test_cost_per_million_tokens(catalog: Catalog, facts: object) -> None:
    est = estimate(catalog.model("llama-3-1-8b-instruct"), catalog.hw("h100-sxm"), scenario(catalog), facts)  # type: ignore[arg-type]
    c = est.cost
    assert c.offer is not None and c.cloud_usd_per_hour is not None and c.usd_per_mtok is not None
    assert c.cloud_usd_per_hour == pytest.approx(c.offer.usd_per_hour / c.offer.gpus)
    assert c.usd_per_mtok == pytest.approx(c.cloud_usd_per_hour / (est.speed.decode_tok_s_aggregate * 3600) * 1e6)
    assert all(o.usd_per_hour / o.gpus >= c.cloud_usd_per_hour for o in catalog.offers_for("h100-sxm"))


def test_api_price_is_the_models_own(catalog: Catalog, facts: object) -> None:
    """The cheapest API price shown next to a model is that model's, never another model's."""
    for slug in ("qwen3-235b-a22b", "llama-3-1-8b-instruct", "yi-1-5-34b-chat"):
        own = [p.output_usd_per_mtok for p in catalog.api_prices if p.model == slug]
        est = estimate(catalog.model(slug), catalog.hw("h100-sxm"), scenario(catalog), facts)  # type: ignore[arg-type]
        assert est.to_dict()["api_usd_per_mtok"] == (min(own) if own else None), slug
    assert min(p.output_usd_per_mtok for p in catalog.api_prices) < min(
        p.output_usd_per_mtok for p in catalog.api_prices if p.model == "qwen3-235b-a22b"
    )


def test_prefill_adds_compute_weight_reads_and_latency_per_pass(catalog: Catalog) -> None:
    """Llama 3.1 8B, a 2,048-token prompt in passes of 512 on an RTX 4090 (165.2 TFLOPS, 1,008 GB/s)
    at made-up constants: half the peak, 80% of the bandwidth, 0.1 ms per layer."""
    model = catalog.model("llama-3-1-8b-instruct")
    params = count_params(model)
    weights = weight_bytes(params, catalog.formats["Q4_K_M"])
    s = speed(
        model, params, weights, catalog.hw("rtx-4090"),
        kv_bytes=2, state_bytes_per_seq=0, context=2048, seqs=1, gpus=1, split="layer", tp_efficiency=1.0,
        allreduce_latency_s=0.0, batch_tokens=512, offload=0.0, host_bandwidth_gbps=64, prompt_tokens=2048,
        cal=SpeedConstants(bandwidth_efficiency=0.8, per_layer_latency_s=1e-4, compute_efficiency=0.5),
    )  # fmt: skip
    # matrix products: 8,030,261,248 − the 525,336,576 embedding parameters (the head is multiplied)
    # = 7,504,924,672 → 2 · 7,504,924,672 · 2,048 = 3.07402e13 FLOPs; attention: 32 layers ·
    # 2 · (32 heads · 128 · 2) · 2,048²/2 pairs = 1.09951e12; together 3.18397e13 at 82.6 TFLOP/s
    assert s.prompt_flops == pytest.approx(3.18397e13, rel=1e-5)
    t_compute = 3.18397e13 / 82.6e12  # 0.38547 s
    # every weight but the embedding table, read once per pass: 4 passes at 806.4 GB/s
    t_weights = 4 * (weights.total - weights.embedding) / 806.4e9
    assert weights.per_pass_read == weights.total - weights.embedding
    t_latency = 4 * 32 * 1e-4
    assert s.ttft_s == pytest.approx(t_compute + t_weights + t_latency, rel=1e-5)
    assert s.prefill_tok_s == pytest.approx(2048 / (t_compute + t_weights + t_latency), rel=1e-5)


def test_a_dual_chip_card_is_two_devices_of_half_each(catalog: Catalog) -> None:
    """The Atlas 300I Duo is two 310P chips of 48 GB and 204 GB/s (the card's 96 GB and 408 GB/s)."""
    card = catalog.hw("atlas-300i-duo-96gb")
    chip = device_view(card)
    assert card.chips == 2 and chip.chips == 1
    assert chip.memory_bytes == 48 * GIB
    assert chip.bandwidth_gbps == 204
    assert chip.tflops_fp16 == card.tflops_fp16 / 2  # type: ignore[operator]
    assert device_view(catalog.hw("rtx-4090")) is catalog.hw("rtx-4090")


def test_dual_chip_decode_reads_at_one_chips_bandwidth_under_layer_split(catalog: Catalog, facts: object) -> None:
    """llama.cpp splits layers over the card's two devices: the capacity of both, the speed of one.
    A single 128 GB / 3.2 TB/s device (what the card was sized as before) decodes nearly twice as fast."""
    model = catalog.model("llama-3-1-8b-instruct")
    card = catalog.hw("mi250x")
    two = estimate(model, card, scenario(catalog, gpus=2), facts)  # type: ignore[arg-type]
    one_chip = device_view(card)
    same = estimate(model, one_chip, scenario(catalog, gpus=2), facts)  # type: ignore[arg-type]
    assert two.speed.decode_tok_s == same.speed.decode_tok_s
    assert two.memory.usable_bytes == same.memory.usable_bytes
    as_one_device = card.model_copy(update={"chips": 1})
    fused = estimate(model, as_one_device, scenario(catalog), facts)  # type: ignore[arg-type]
    # Halving the bandwidth adds the fused device's whole memory-read time to each token:
    # 1/two - 1/fused = bytes per token / (efficiency × 3.2 TB/s); the per-layer latency is the same.
    cal, _, _ = calibration_for(facts, "llama.cpp", card, model)  # type: ignore[arg-type]
    read_s = fused.speed.decode_bytes_per_step / (cal.bandwidth_efficiency * 3200e9)
    assert 1 / two.speed.decode_tok_s - 1 / fused.speed.decode_tok_s == pytest.approx(read_s, rel=1e-9)
    assert two.speed.decode_tok_s < 0.75 * fused.speed.decode_tok_s
    assert two.memory.usable_bytes == pytest.approx(fused.memory.usable_bytes, abs=2)


def test_dual_chip_tensor_parallel_reads_both_chips(catalog: Catalog, facts: object) -> None:
    model = catalog.model("llama-3-1-8b-instruct")
    card = catalog.hw("mi250x")
    layer = estimate(model, card, scenario(catalog, gpus=2), facts)  # type: ignore[arg-type]
    tensor = estimate(model, card, scenario(catalog, "BF16", "vllm", gpus=2), facts)  # type: ignore[arg-type]
    tensor_one = estimate(model, card, scenario(catalog, "BF16", "vllm", gpus=1), facts)  # type: ignore[arg-type]
    assert tensor.speed.decode_tok_s > 1.4 * tensor_one.speed.decode_tok_s
    assert layer.min_gpus == 1  # an 8B model in 4-bit fits on one chip


def test_dual_chip_card_costs_per_card(catalog: Catalog, facts: object) -> None:
    """Powering N devices of a dual-chip card costs N/2 cards; the MI250X is an OAM module, so buying any
    number of them buys the 8-module baseboard server: 8 × $10,000 + the server's $32,010 (rigs.yaml)."""
    from generator.content.schema import Price

    card = catalog.hw("mi250x").model_copy(
        update={"prices": (Price(usd=10_000.0, date=dt.date(2024, 1, 1), kind="street", source="https://x.example/p"),)}
    )
    for gpus in (2, 16):
        est = estimate(catalog.model("llama-3-1-8b-instruct"), card, scenario(catalog, gpus=gpus), facts)  # type: ignore[arg-type]
        assert est.cost.buy_usd == 8 * 10_000.0 + 32_010
        assert est.cost.rig is not None and (est.cost.rig.rig.slug, est.cost.rig.cards) == ("baseboard-8", 8)
        assert est.cost.power_usd_per_hour == pytest.approx(  # type: ignore[operator]
            card.tdp_w * gpus / 2 / 1000 * est.assumptions.electricity_usd_per_kwh
        )


def test_vision_encoder_counts_when_the_engine_loads_it(catalog: Catalog, facts: Facts) -> None:
    """Gemma 3 27B's vision encoder and projector: 423,060,336 parameters; llama.cpp's F16 mmproj file is
    857,739,168 bytes. llama.cpp loads it only when asked (the command says --no-mmproj otherwise), vLLM
    always (2 bytes per parameter: 846,120,672), mlx-lm never."""
    model, hw = catalog.model("gemma-3-27b-it"), catalog.hw("rtx-pro-6000-blackwell")
    text = estimate(model, hw, scenario(catalog), facts).memory
    images = estimate(model, hw, scenario(catalog, vision=True), facts).memory
    assert (text.vision_bytes, images.vision_bytes) == (0, 857_739_168)
    assert images.weights_bytes - text.weights_bytes == 857_739_168
    assert images.total_bytes - text.total_bytes == images.per_gpu_bytes - text.per_gpu_bytes == 857_739_168
    # Layer split keeps the mmproj whole on the first device: the busiest device carries all of it.
    two = estimate(model, hw, scenario(catalog, vision=True, gpus=2), facts).memory
    two_text = estimate(model, hw, scenario(catalog, gpus=2), facts).memory
    assert two.per_gpu_bytes - two_text.per_gpu_bytes == 857_739_168
    # vLLM loads the tower with the checkpoint whatever the scenario says, sharded by tensor parallelism.
    for vision in (False, True):
        m = estimate(model, hw, scenario(catalog, "BF16", "vllm", vision=vision), facts).memory
        assert m.vision_bytes == 2 * 423_060_336 == 846_120_672
    tp = estimate(model, hw, scenario(catalog, "BF16", "vllm", gpus=2), facts).memory
    no_tower = model.model_copy(update={"vision": None})
    tp_text = estimate(no_tower, hw, scenario(catalog, "BF16", "vllm", gpus=2), facts).memory
    assert tp.per_gpu_bytes - tp_text.per_gpu_bytes == 423_060_336  # 846,120,672 / 2 on each device
    # mlx-lm runs the text model only: asking for images is refused with the reason.
    from generator.sizing.estimate import ScenarioError

    with pytest.raises(ScenarioError) as refused:
        estimate(model, catalog.hw("apple-m4-max-40c-128gb"), scenario(catalog, "MLX 4-bit", "mlx", vision=True), facts)
    assert refused.value.code == "vision"
    # A text model has nothing to load.
    llama = catalog.model("llama-3-1-8b-instruct")
    assert estimate(llama, hw, scenario(catalog, vision=True), facts).memory.vision_bytes == 0


def test_llama_cpp_command_leaves_the_mmproj_out_unless_images_are_wanted(catalog: Catalog) -> None:
    from generator.site.commands import CommandInputs, launch_command

    gemma, llama = catalog.model("gemma-3-27b-it"), catalog.model("llama-3-1-8b-instruct")
    text = launch_command(gemma, 1.0, CommandInputs("llama.cpp", "Q4_K_M", 8192))
    images = launch_command(gemma, 1.0, CommandInputs("llama.cpp", "Q4_K_M", 8192, vision=True))
    plain = launch_command(llama, 1.0, CommandInputs("llama.cpp", "Q4_K_M", 8192))
    assert text and text[0].endswith(" --no-mmproj")
    assert images and "--no-mmproj" not in images[0]
    assert plain and "--no-mmproj" not in plain[0]


def test_commands_apply_the_cards_yarn_only_past_the_configs_maximum(catalog: Catalog) -> None:
    """Qwen3-8B: config 40,960 tokens, card YaRN ×4 from 32,768 (to 131,072). At 40,960 the commands are
    plain; at 65,536 llama-server gets the card's flags and vllm serve the same scaling as an override."""
    from generator.site.commands import CommandInputs, launch_command

    qwen = catalog.model("qwen3-8b")
    plain = launch_command(qwen, 0.9, CommandInputs("llama.cpp", "Q4_K_M", 40960))
    long = launch_command(qwen, 0.9, CommandInputs("llama.cpp", "Q4_K_M", 65536))
    vllm = launch_command(qwen, 0.9, CommandInputs("vllm", "BF16", 65536))
    assert plain and "--rope-scaling" not in plain[0]
    assert long and long[0].endswith(" -c 65536 -ngl 99 --rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768")
    assert vllm and vllm[0] == (
        "vllm serve Qwen/Qwen3-8B --max-model-len 65536 --gpu-memory-utilization 0.9 --hf-overrides "
        """'{"rope_scaling":{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}}'"""
    )


def test_offer_monthly_prices_the_instance_rented_whole(catalog: Catalog) -> None:
    """An instance is rented whole: an 8-GPU instance at $16.00/h runs two devices for a month of 8 h days
    over 30.4 days at 16.00 × 8 × 30.4 = $3,891.20, not two GPUs' share; a one-GPU instance cannot run two
    devices (None). A card of two devices rented whole at $1.00/h runs both for $1.00/h. The estimate's
    rental takes the cheapest on-demand instance with enough GPUs."""
    import datetime as _dt

    from generator.content.schema import CloudOffer
    from generator.sizing.cost import offer_monthly, rental

    a = catalog.assumptions.model_copy(update={"hours_per_day": 8.0, "days_per_month": 30.4})
    fields = {"provider": "P", "instance": "I", "date_seen": _dt.date(2026, 11, 1), "source": "https://example.org"}
    eight = CloudOffer(hardware="h100-sxm", gpus=8, usd_per_hour=16.0, billing="on_demand", **fields)
    one = CloudOffer(hardware="h100-sxm", gpus=1, usd_per_hour=2.5, billing="on_demand", **fields)
    spot = CloudOffer(hardware="h100-sxm", gpus=2, usd_per_hour=1.0, billing="spot", **fields)
    assert offer_monthly(eight, 2, 1, a) == pytest.approx(16.0 * 8 * 30.4, abs=1e-9)
    assert offer_monthly(one, 2, 1, a) is None
    card = CloudOffer(hardware="atlas-300i-duo-96gb", gpus=1, usd_per_hour=1.0, billing="on_demand", **fields)
    assert offer_monthly(card, 2, 2, a) == pytest.approx(1.0 * 8 * 30.4, abs=1e-9)
    offers = (eight, one, spot)
    assert rental(offers, "h100-sxm", 1) is one and rental(offers, "h100-sxm", 2) is eight
    assert rental(offers, "h100-sxm", 2, ("on_demand", "spot", "community")) is spot
    assert rental(offers, "h100-sxm", 9) is None


def test_no_mac_counts_all_its_memory(catalog: Catalog) -> None:
    """Every Mac's GPU may use macOS's default working set, never all its memory: a figure its file cites,
    else the rule of assumptions.yaml (2/3 up to 36 GB, 3/4 above). An M5 with 32 GB gets what an M1 Max
    with 32 GB printed (21.33 GiB); an M3 Ultra with 512 GB, 384 GiB."""
    from generator.sizing.memory import usable_bytes_per_gpu

    llama = catalog.engine("llama.cpp")
    macs = [h for h in catalog.hardware.values() if h.kind.value == "apple_unified"]
    assert len(macs) >= 20
    for hw in macs:
        assert hw.gpu_memory_limit_gib is not None, hw.slug
        assert usable_bytes_per_gpu(hw, llama) <= 0.85 * hw.memory_bytes, hw.slug
    m5, m1 = catalog.hw("apple-m5-32gb"), catalog.hw("apple-m1-max-32c-32gb")
    assert (m5.gpu_memory_limit_kind, m1.gpu_memory_limit_kind) == ("rule", "measured")
    assert usable_bytes_per_gpu(m5, llama) == usable_bytes_per_gpu(m1, llama) == round(21.33 * 1024**3)
    assert catalog.hw("apple-m3-ultra-80c-512gb").gpu_memory_limit_gib == 384.0
    assert catalog.hw("apple-m5-max-40c-128gb").gpu_memory_limit_gib == 107.52  # printed on macOS 26


def test_an_ollama_setup_sets_the_server_it_needs(catalog: Catalog) -> None:
    """A quantized KV cache needs OLLAMA_KV_CACHE_TYPE with flash attention on, several sequences
    OLLAMA_NUM_PARALLEL (Ollama's FAQ): the Modelfile starts with the server line that gives them, which
    ollama serve's variables in cli.yaml accept; the defaults need none."""
    from generator.site.cli import command_problems
    from generator.site.commands import CommandInputs, launch_command

    model = catalog.model("qwen3-32b")
    built = launch_command(model, 0.9, CommandInputs("ollama", "Q4_K_M", 32768, 3, 1, "q8_0"))
    assert built is not None and built[0] == (
        "# start the server with: OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0 OLLAMA_NUM_PARALLEL=3 "
        "ollama serve\nFROM qwen3:32b\nPARAMETER num_ctx 32768"
    )
    assert command_problems(built[0], catalog.programs, model) == []
    plain = launch_command(model, 0.9, CommandInputs("ollama", "Q4_K_M", 8192, 1, 1, "fp16"))
    assert plain is not None and plain[0] == "FROM qwen3:32b\nPARAMETER num_ctx 8192"
    wrong = built[0].replace("OLLAMA_KV_CACHE_TYPE=q8_0", "OLLAMA_KV_CACHE_TYPE=q5_1")
    assert command_problems(wrong, catalog.programs, model) == [
        "ollama serve: OLLAMA_KV_CACHE_TYPE takes a choice value, got 'q5_1'"
    ]
