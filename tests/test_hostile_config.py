"""Hostile config.json input: every bad file is one ConfigError naming the key, never a crash or a hang."""

from __future__ import annotations

import contextlib
import json
import math
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from generator.cli import main
from generator.content.catalog import Catalog
from generator.content.hfconfig import (
    MAX_CONFIG_BYTES,
    ConfigError,
    load_config,
    model_from_config,
    model_type_for,
)
from generator.content.schema import Model
from generator.sizing.estimate import ScenarioError, estimate
from generator.sizing.scenario import Facts, Scenario
from tests.conftest import scenario

FIXTURES = Path(__file__).resolve().parent / "fixtures"
QWEN = json.loads((FIXTURES / "qwen2.5-coder-32b-config.json").read_text())
GEMMA = json.loads((FIXTURES / "gemma3-multimodal-config.json").read_text())
MIXTRAL = json.loads((FIXTURES / "mixtral-8x7b-instruct-config.json").read_text())
# The keys of DeepSeek-V2-Lite's config.json the reader uses (values as in content/models/deepseek-v2-lite-chat.yaml).
DEEPSEEK_V2_LITE = {
    "architectures": ["DeepseekV2ForCausalLM"],
    "model_type": "deepseek_v2",
    "num_hidden_layers": 27,
    "hidden_size": 2048,
    "intermediate_size": 10944,
    "num_attention_heads": 16,
    "num_key_value_heads": 16,
    "vocab_size": 102400,
    "max_position_embeddings": 163840,
    "kv_lora_rank": 512,
    "q_lora_rank": None,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "n_routed_experts": 64,
    "n_shared_experts": 2,
    "num_experts_per_tok": 6,
    "moe_intermediate_size": 1408,
    "first_k_dense_replace": 1,
    "tie_word_embeddings": False,
}
# Shapes that reach the other readers: layer_types (gpt-oss), linear attention (Qwen3-Next) and
# chunked attention (Llama 4).
GPT_OSS_LIKE = {
    "model_type": "gpt_oss",
    "num_hidden_layers": 24,
    "hidden_size": 2880,
    "intermediate_size": 2880,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "head_dim": 64,
    "vocab_size": 201088,
    "sliding_window": 128,
    "layer_types": ["sliding_attention", "full_attention"] * 12,
    "num_local_experts": 32,
    "num_experts_per_tok": 4,
}
QWEN3_NEXT_LIKE = {
    "architectures": ["Qwen3NextForCausalLM"],
    "num_hidden_layers": 48,
    "hidden_size": 2048,
    "intermediate_size": 5120,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "head_dim": 256,
    "vocab_size": 151936,
    "full_attention_interval": 4,
    "linear_num_key_heads": 16,
    "linear_key_head_dim": 128,
    "linear_num_value_heads": 32,
    "linear_value_head_dim": 128,
    "linear_conv_kernel_dim": 4,
    "num_experts": 512,
    "num_experts_per_tok": 10,
    "moe_intermediate_size": 512,
    "shared_expert_intermediate_size": 512,
}
LLAMA4_LIKE = {
    "architectures": ["Llama4ForConditionalGeneration"],
    "text_config": {
        "num_hidden_layers": 48,
        "hidden_size": 5120,
        "intermediate_size": 8192,
        "intermediate_size_mlp": 16384,
        "num_attention_heads": 40,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": 202048,
        "attention_chunk_size": 8192,
        "no_rope_layers": [1, 1, 1, 0] * 12,
        "num_local_experts": 16,
        "num_experts_per_tok": 1,
        "interleave_moe_layer_step": 1,
    },
}
SEEDS: list[dict[str, Any]] = [QWEN, GEMMA, MIXTRAL, DEEPSEEK_V2_LITE, GPT_OSS_LIKE, QWEN3_NEXT_LIKE, LLAMA4_LIKE]


def write(folder: Path, content: object) -> Path:
    """``content`` written to ``folder``/config.json: bytes and str as they are, anything else as JSON."""
    path = folder / "config.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content), encoding="utf-8")
    return path


def refusal(folder: Path, content: object) -> str:
    """The message of the ConfigError that loading ``content`` raises; it is one line and names the file."""
    path = write(folder, content)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    return message


def without(cfg: dict[str, Any], *keys: str) -> dict[str, Any]:
    """A copy of ``cfg`` without ``keys``."""
    return {k: v for k, v in cfg.items() if k not in keys}


def _schema_bounds_layers() -> bool:
    """Whether the schema refuses 10**12 layers; without an upper bound such a model hangs the engine."""
    try:
        model_from_config(MIXTRAL | {"num_hidden_layers": 10**12}, name="probe", source="probe")
    except ConfigError:
        return True
    return False


needs_schema_bounds = pytest.mark.skipif(
    not _schema_bounds_layers(), reason="needs the schema's upper bounds (num_layers <= 1024, ...)"
)


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        ({"num_attention_heads": 0}, "num_attention_heads must be a positive integer, got 0"),
        ({"num_attention_heads": -40}, "num_attention_heads must be a positive integer, got -40"),
        ({"hidden_size": "abc"}, 'hidden_size must be a positive integer, got "abc"'),
        ({"hidden_size": "5120"}, 'hidden_size must be a positive integer, got "5120"'),
        ({"num_hidden_layers": True}, "num_hidden_layers must be a positive integer, got true"),
        ({"num_hidden_layers": 64.5}, "num_hidden_layers must be a positive integer, got 64.5"),
        ({"vocab_size": {"n": 152064}}, "vocab_size must be a positive integer, got an object"),
        ({"num_key_value_heads": [8]}, "num_key_value_heads must be a positive integer, got a list of 1"),
        ({"intermediate_size": math.nan}, "intermediate_size must be a positive integer, got NaN"),
        ({"max_position_embeddings": math.inf}, "max_position_embeddings must be a positive integer, got Infinity"),
        ({"head_dim": -math.inf}, "head_dim must be a positive integer, got -Infinity"),
        ({"tie_word_embeddings": "no"}, 'tie_word_embeddings must be true or false, got "no"'),
        ({"attention_bias": 1}, "attention_bias must be true or false, got 1"),
        ({"model_type": 2}, "model_type must be a string, got 2"),
        ({"model_type": None, "architectures": "Qwen2ForCausalLM"}, "architectures must be a list of strings"),
        ({"model_type": None, "architectures": [None]}, "architectures[0] must be a string, got null"),
        ({"layer_types": "sliding_attention"}, 'layer_types must be a list of strings, got "sliding_attention"'),
        ({"layer_types": ["full_attention", ["sliding_attention"]]}, "layer_types[1] must be a string, got a list"),
        ({"layer_types": ["sliding_attention"] * 64, "sliding_window": None}, "sliding_window is missing"),
        ({"layer_types": ["sliding_attention"] * 64, "sliding_window": 0}, "sliding_window must be a positive integer"),
        ({"num_hidden_layers": None}, "none of num_hidden_layers, n_layer, num_layers is given"),
        ({"num_key_value_heads": 3}, "num_attention_heads (40) must be a multiple of num_key_value_heads (3)"),
        ({"num_experts": 8}, "none of moe_intermediate_size, expert_intermediate_size is given"),
        ({"num_experts": 8, "moe_intermediate_size": 64}, "none of num_experts_per_tok"),
        ({"text_config": [1, 2]}, "text_config must be an object, got a list of 2"),
        ({"text_config": "qwen2"}, 'text_config must be an object, got "qwen2"'),
        ({"llm_config": 3}, "llm_config must be an object, got 3"),
        ({"_name_or_path": ["Qwen"]}, "_name_or_path must be a string, got a list of 1"),
        ({"hidden_size": 64, "num_attention_heads": 128}, "invalid head_dim"),
        (
            {"full_attention_interval": "4", "linear_num_value_heads": 32},
            'full_attention_interval must be a non-negative integer, got "4"',
        ),
        ({"attention_chunk_size": 8192, "no_rope_layers": [1, 2]}, "no_rope_layers[1] must be 0 or 1, got 2"),
        ({"sliding_window_pattern": 6, "sliding_window": "1024"}, "sliding_window must be a non-negative integer"),
    ],
)
def test_bad_value_names_the_key(tmp_path: Path, patch: dict[str, Any], expected: str) -> None:
    assert expected in refusal(tmp_path, QWEN | patch)


@needs_schema_bounds
@pytest.mark.parametrize(
    ("patch", "key"),
    [
        ({"num_hidden_layers": 10**12}, "num_hidden_layers"),
        ({"hidden_size": 1e300}, "hidden_size"),
        ({"vocab_size": 10**30}, "vocab_size"),
        ({"max_position_embeddings": 2**80}, "max_position_embeddings"),
        ({"num_experts": 10**9, "moe_intermediate_size": 64, "num_experts_per_tok": 2}, "num_experts"),
        ({"layer_types": ["sliding_attention"] * 64, "sliding_window": 10**18}, "sliding_window"),
    ],
)
def test_absurd_size_names_the_key(tmp_path: Path, patch: dict[str, Any], key: str) -> None:
    assert f"invalid {key}:" in refusal(tmp_path, QWEN | patch)


def test_bad_value_in_text_config_names_the_nested_key(tmp_path: Path) -> None:
    cfg = GEMMA | {"text_config": GEMMA["text_config"] | {"num_attention_heads": 0}}
    assert "text_config.num_attention_heads must be a positive integer, got 0" in refusal(tmp_path, cfg)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"model_type": "qwen2\xff"}', "not UTF-8 text (byte 21)"),
        ("", "invalid JSON: Expecting value"),
        ('{"hidden_size": 5120,\n', ":2: invalid JSON"),
        ("[" * 100_000, "invalid JSON: nested too deeply"),
        ('{"hidden_size": 1' + "0" * 5000 + "}", "invalid JSON"),
        ([QWEN], "expected a JSON object, got a list of 1"),
        ("null", "expected a JSON object, got null"),
        ('"config"', 'expected a JSON object, got "config"'),
    ],
)
def test_unreadable_file(tmp_path: Path, content: object, expected: str) -> None:
    assert expected in refusal(tmp_path, content)


def test_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    padding = " " * (MAX_CONFIG_BYTES - len(json.dumps(QWEN)) + 1)
    assert "over 4 MiB, too large for a config.json" in refusal(tmp_path, json.dumps(QWEN) + padding)
    assert load_config(write(tmp_path, json.dumps(QWEN) + padding[1:])).architecture.num_layers == 64


def test_a_folder_is_not_a_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path)


def test_lenient_where_the_meaning_is_clear(tmp_path: Path) -> None:
    as_floats = QWEN | {"hidden_size": 5120.0, "num_hidden_layers": 64.0}
    assert load_config(write(tmp_path, as_floats)) == load_config(write(tmp_path, QWEN))
    with_bom = b"\xef\xbb\xbf" + json.dumps(QWEN).encode()
    assert load_config(write(tmp_path, with_bom)).architecture.hidden_size == 5120
    # Keys the reader does not use may hold anything JSON allows.
    junk = QWEN | {"rope_theta": math.nan, "rope_scaling": [[{}]], "torch_dtype": 16}
    assert load_config(write(tmp_path, junk)) == load_config(write(tmp_path, QWEN))


def test_cli_prints_one_line_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, QWEN | {"num_attention_heads": 0})
    assert main(["estimate", str(path), "rtx-4090"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {path}: num_attention_heads must be a positive integer, got 0\n"


@pytest.mark.parametrize(
    ("class_name", "model_type"),
    [
        ("MixtralForCausalLM", "mixtral"),
        ("Qwen2ForCausalLM", "qwen2"),
        ("Qwen2MoeForCausalLM", "qwen2_moe"),
        ("Qwen3MoeForCausalLM", "qwen3_moe"),
        ("Qwen3NextForCausalLM", "qwen3_next"),
        ("Qwen2_5_VLForConditionalGeneration", "qwen2_5_vl"),
        ("GptOssForCausalLM", "gpt_oss"),
        ("DeepseekV3ForCausalLM", "deepseek_v3"),
        ("Gemma3ForConditionalGeneration", "gemma3"),
        ("Gemma3ForCausalLM", "gemma3_text"),
        ("Llama4ForConditionalGeneration", "llama4"),
        ("Llama4ForCausalLM", "llama4_text"),
        ("MiniMaxM2ForCausalLM", "minimax_m2"),
        ("Phi3ForCausalLM", "phi3"),
        ("LlamaForCausalLM", "llama"),
        ("MistralForCausalLM", "mistral"),
        ("GPT2LMHeadModel", "gpt2"),
        ("MambaModel", "mamba"),
        ("Model", "model"),
    ],
)
def test_model_type_from_architecture(class_name: str, model_type: str) -> None:
    assert model_type_for(class_name) == model_type


@pytest.mark.parametrize("seed", [QWEN, MIXTRAL, DEEPSEEK_V2_LITE], ids=["qwen2.5", "mixtral", "deepseek-v2-lite"])
def test_missing_model_type_is_inferred_from_architectures(tmp_path: Path, seed: dict[str, Any]) -> None:
    given = load_config(write(tmp_path, seed))
    assert load_config(write(tmp_path, without(seed, "model_type"))) == given


def test_inferred_qwen2_keeps_its_qkv_biases_and_mixtral_its_expert_size(tmp_path: Path) -> None:
    qwen = load_config(write(tmp_path, without(QWEN, "model_type")))
    attn = qwen.network.blocks["attn"]
    assert qwen.architecture.model_type == "qwen2" and attn.kind == "attention" and attn.bias
    moe = load_config(write(tmp_path, without(MIXTRAL, "model_type"))).network.blocks["moe"]
    assert moe.kind == "moe" and moe.intermediate == 14336


def test_multimodal_without_any_model_type_reads_as_gemma3(tmp_path: Path) -> None:
    bare = without(GEMMA, "model_type") | {"text_config": without(GEMMA["text_config"], "model_type")}
    model = load_config(write(tmp_path, bare))
    assert model.architecture.model_type == "gemma3"
    given = load_config(write(tmp_path, GEMMA))
    assert model.architecture.model_copy(update={"model_type": "gemma3_text"}) == given.architecture
    assert model.network == given.network


@pytest.mark.parametrize(
    ("seed", "slug"),
    [
        (QWEN, "qwen2-5-coder-32b-instruct"),
        (GEMMA, "gemma-3-27b-it"),
        (MIXTRAL, "mixtral-8x7b-instruct-v0-1"),
        (DEEPSEEK_V2_LITE, "deepseek-v2-lite-chat"),
    ],
)
def test_config_reads_as_the_catalog_model(tmp_path: Path, catalog: Catalog, seed: dict[str, Any], slug: str) -> None:
    model, known = load_config(write(tmp_path, seed)), catalog.model(slug)
    # The same network, and the same global shape (the file spells the geometry as blocks).
    assert model.network.blocks == known.network.blocks and model.network.schedule() == known.network.schedule()
    globals_ = ("model_type", "num_layers", "hidden_size", "vocab_size", "max_context", "tie_word_embeddings")
    assert all(getattr(model.architecture, k) == getattr(known.architecture, k) for k in globals_)
    assert model.sources == (str(tmp_path / "config.json"),)


def test_shapes_reach_every_reader(tmp_path: Path) -> None:
    gpt_oss = load_config(write(tmp_path, GPT_OSS_LIKE))
    # layer_types lists 24 alternating layers: the pattern is their repeating unit.
    assert mixers(gpt_oss) == "sf" * 12 and window(gpt_oss) == 128
    qwen3_next = load_config(write(tmp_path, QWEN3_NEXT_LIKE))
    assert qwen3_next.architecture.model_type == "qwen3_next" and mixers(qwen3_next) == "lllf" * 12
    gdn = qwen3_next.network.blocks["gdn"]
    assert gdn.kind == "gated_delta_net" and gdn.num_value_heads == 32
    llama4 = load_config(write(tmp_path, LLAMA4_LIKE))
    assert mixers(llama4) == "sssf" * 12 and window(llama4) == 8192
    moe = llama4.network.blocks["moe"]
    assert moe.kind == "moe" and moe.shared_experts == 1


def test_periods_longer_than_the_model_are_cut_to_it(tmp_path: Path) -> None:
    model = load_config(write(tmp_path, QWEN3_NEXT_LIKE | {"full_attention_interval": 10**15}))
    assert mixers(model) == "l" * 48


def mixers(model: Model) -> str:
    """Each layer's mixer as a letter: f full attention, s sliding, l gated delta net, m Mamba-2."""
    letters = {"gdn": "l", "mamba": "m", "swa": "s"}
    return "".join(letters.get(m or "", "f") for m, _ in model.network.schedule())


def window(model: Model) -> int | None:
    """The sliding window of the model's windowed attention block."""
    block = model.network.blocks["swa"]
    return block.window if block.kind == "attention" else None


# --- properties: random values and mutated real configs ---------------------------------------------------------

DELETE = object()
# Every key the reader looks at, and the containers it descends into.
READ_KEYS = sorted(
    {key for seed in SEEDS for key in seed}
    | {key for seed in SEEDS for key in seed.get("text_config", {})}
    | {"n_layer", "num_layers", "d_model", "n_embd", "n_head", "num_kv_heads", "ffn_dim", "n_inner"}
    | {"max_sequence_length", "seq_length", "n_positions", "qkv_bias", "mlp_bias", "attention_bias", "top_k"}
    | {"num_experts_per_token", "moe_layer_start_index", "moe_layer_interval", "num_nextn_predict_layers"}
    | {"sliding_window_pattern", "llm_config", "_name_or_path", "n_shared_experts", "shared_expert_intermediate_size"}
)


SMALL_INTS = st.sampled_from([0, -1, 1, 2, 3, 4, 7, 8, 64, 4096]) | st.integers(-3, 100_000)
HUGE_INTS = st.sampled_from([10**6, 10**9, 10**12, 2**63, 10**30, 10**300]) | st.integers(-(10**20), 10**20)
SMALL_FLOATS = st.floats(-(10**6), 10**6) | st.sampled_from([math.nan, math.inf, -math.inf, 0.5, 4096.0, 5e-324])
HUGE_FLOATS = st.sampled_from([1e12, 1e300, 1.7976931348623157e308, 4096.0, -0.0])
TEXTS = st.text(max_size=12) | st.sampled_from(["sliding_attention", "full_attention", "linear_attention", "abc"])


def json_values(ints: st.SearchStrategy[int], floats: st.SearchStrategy[float]) -> st.SearchStrategy[Any]:
    """Any JSON value, nested a little, with numbers drawn from ``ints`` and ``floats``."""
    leaves = st.none() | st.booleans() | ints | floats | TEXTS
    return st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner, max_size=5) | st.dictionaries(st.sampled_from(READ_KEYS) | TEXTS, inner, max_size=5)
        ),
        max_leaves=10,
    )


def mutated(values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A seed config with a few read keys (top level or in text_config) replaced by ``values`` or deleted."""
    edit = st.tuples(st.booleans(), st.sampled_from(READ_KEYS), st.just(DELETE) | values)

    def apply(seed: dict[str, Any], edits: list[tuple[bool, str, Any]]) -> dict[str, Any]:
        cfg = dict(seed)
        if isinstance(cfg.get("text_config"), dict):
            cfg["text_config"] = dict(cfg["text_config"])
        for nested, key, value in edits:
            target = cfg["text_config"] if nested and isinstance(cfg.get("text_config"), dict) else cfg
            if value is DELETE:
                target.pop(key, None)
            else:
                target[key] = value
        return cfg

    return st.builds(apply, st.sampled_from(SEEDS), st.lists(edit, min_size=1, max_size=4))


def scenarios(catalog: Catalog) -> list[Scenario]:
    """A spread of scenarios: GGUF on one GPU, offload and batch, AWQ split over GPUs, a MoE-only format."""
    return [
        scenario(catalog),
        scenario(catalog, "Q8_0", context=131_072, batch=4, offload=0.5),
        scenario(catalog, "AWQ", engine="vllm", context=32_768, gpus=2),
        scenario(catalog, "MXFP4_MOE"),
    ]


def survives(path: Path, catalog: Catalog, facts: Facts) -> None:
    """Loading ``path`` and estimating it raise nothing but ConfigError or ScenarioError, each explicit."""
    try:
        model: Model = load_config(path)
    except ConfigError as exc:
        message = str(exc)
        event("refused")
        assert "\n" not in message and message.startswith(str(path))
        assert "unexpected config.json layout" not in message  # the safety net is never the answer
        return
    event("loaded")
    for hw in ("rtx-4090", "h100-sxm"):
        for sc in scenarios(catalog):
            with contextlib.suppress(ScenarioError):
                estimate(model, catalog.hw(hw), sc, facts)


PROPERTY = settings(max_examples=150, deadline=timedelta(seconds=2), suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(st.one_of(json_values(SMALL_INTS, SMALL_FLOATS), mutated(json_values(SMALL_INTS, SMALL_FLOATS))))
def test_random_config_never_crashes(
    tmp_path_factory: pytest.TempPathFactory, catalog: Catalog, facts: Facts, cfg: Any
) -> None:
    survives(write(tmp_path_factory.mktemp("cfg"), cfg), catalog, facts)


@needs_schema_bounds
@PROPERTY
@given(mutated(json_values(HUGE_INTS, HUGE_FLOATS)))
def test_config_with_absurd_sizes_never_hangs(
    tmp_path_factory: pytest.TempPathFactory, catalog: Catalog, facts: Facts, cfg: dict[str, Any]
) -> None:
    survives(write(tmp_path_factory.mktemp("cfg"), cfg), catalog, facts)
