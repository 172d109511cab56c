"""The CLI: estimate JSON keys, config.json input, list, help."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generator.cli import main
from tests.conftest import GIB, ROOT

FIXTURES = ROOT / "tests" / "fixtures"
DESIGN_KEYS = {
    "params_total",
    "params_active",
    "weights_bytes",
    "kv_cache_bytes",
    "overhead_bytes",
    "total_bytes",
    "usable_bytes",
    "verdict",
    "max_context",
    "decode_tok_s",
    "prefill_tok_s",
    "ttft_s",
    "min_gpus",
}


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_estimate_json_has_the_design_keys(capsys: pytest.CaptureFixture[str]) -> None:
    keys = run_json(
        capsys,
        "estimate",
        "qwen2-5-coder-32b-instruct",
        "h100-sxm",
        "--quant",
        "Q4_K_M",
        "--context",
        "32768",
        "--kv-dtype",
        "bf16",
        "--json",
    )
    assert keys.keys() >= DESIGN_KEYS
    for k in ("params_total", "weights_bytes", "kv_cache_bytes", "overhead_bytes", "total_bytes", "usable_bytes"):
        assert isinstance(keys[k], int), k
    assert keys["kv_cache_bytes"] == 8 * GIB
    assert keys["verdict"] == "comfortable"
    assert isinstance(keys["decode_tok_s"], float)


def test_config_json_path_gives_the_same_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("h100-sxm", "--quant", "Q4_K_M", "--context", "32768", "--json")
    from_slug = run_json(capsys, "estimate", "qwen2-5-coder-32b-instruct", *argv)
    from_file = run_json(capsys, "estimate", str(FIXTURES / "qwen2.5-coder-32b-config.json"), *argv)
    # The card's YaRN (to 131,072 tokens) is not in config.json: a config alone reaches its own maximum.
    assert from_slug["max_context"] == 131072 and from_file["max_context"] == 32768
    for key in DESIGN_KEYS - {"max_context"}:
        assert from_file[key] == from_slug[key], key


def test_multimodal_config_reads_text_config(capsys: pytest.CaptureFixture[str]) -> None:
    from_file = run_json(
        capsys, "estimate", str(FIXTURES / "gemma3-multimodal-config.json"), "rtx-4090", "--context", "131072", "--json"
    )
    from_slug = run_json(capsys, "estimate", "gemma-3-27b-it", "rtx-4090", "--context", "131072", "--json")
    assert from_file["kv_cache_bytes"] == from_slug["kv_cache_bytes"]
    assert from_file["params_total"] == from_slug["params_total"]


def test_hardware_yaml_path(capsys: pytest.CaptureFixture[str]) -> None:
    keys = run_json(capsys, "estimate", "llama-3-1-8b-instruct", str(ROOT / "content/hardware/rtx-4090.yaml"), "--json")
    assert keys["hardware"] == "rtx-4090"


def test_list_json(capsys: pytest.CaptureFixture[str]) -> None:
    models = run_json(capsys, "list", "models", "--json")
    assert {"slug", "name", "hf_id"} <= set(models[0])  # type: ignore[index]
    hardware = run_json(capsys, "list", "hardware", "--json")
    assert {"slug", "name", "vendor", "memory_bytes", "bandwidth_gbps"} <= set(hardware[0])  # type: ignore[index]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["estimate", "llama-3-1-8b-instruct", "rtx-4090", "--quant", "AWQ", "--engine", "llama.cpp"],
            "llama.cpp does not load AWQ",
        ),
        (["estimate", "llama-3-1-8b-instruct", "rtx-4090", "--context", "0"], "context must be from 1"),
        (["estimate", "llama-3-1-8b-instruct", "rtx-4090", "--offload", "1.5"], "offload must be a fraction"),
        (["estimate", "qwen2-5-coder-32b-instruct", "h100-sxm", "--quant", "AWQ", "--gpus", "3"], "cannot split"),
        (["estimate", "missing/config.json", "h100-sxm"], "config file not found"),
    ],
)
def test_bad_scenarios_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("command", ["build", "estimate", "list", "check-content", "calibrate"])
def test_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0 and "usage:" in capsys.readouterr().out


def test_python_m_generator_runs_the_cli() -> None:
    proc = subprocess.run([sys.executable, "-m", "generator", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and "usage:" in proc.stdout


def test_new_model_scaffold_round_trips_and_blocks_check_content(tmp_path: Path) -> None:
    import shutil

    from tests.conftest import CONTENT

    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    (content / "models" / "gemma-3-27b-it.yaml").unlink()
    argv = [
        "--content",
        str(content),
        "new-model",
        str(FIXTURES / "gemma3-multimodal-config.json"),
        "--hf-id",
        "google/gemma-3-27b-it",
    ]
    assert main(argv) == 0
    text = (content / "models" / "gemma-3-27b-it.yaml").read_text()
    assert "- {repeat: 10, unit: [[swa, mlp], [swa, mlp], [swa, mlp], [swa, mlp], [swa, mlp], [attn, mlp]]}" in text
    assert "swa: {kind: attention, heads: 32, kv_heads: 16, head_dim: 128, window: 1024, qk_norm: true}" in text
    assert "TODO" in text
    assert main(["--content", str(content), "check-content"]) == 2  # TODOs are not valid content
    filled = (
        text.replace("organization: TODO", "organization: Google")
        .replace("family: TODO", "family: Gemma 3")
        .replace("license: TODO", "license: gemma")
        .replace("params_total: TODO", "params_total: 27432406640")
        .replace("params_total_kind: TODO", "params_total_kind: exact")
        .replace("  - TODO  # model card", "  - https://huggingface.co/google/gemma-3-27b-it  # model card")
        .replace("# TODO:", "#")
    )
    (content / "models" / "gemma-3-27b-it.yaml").write_text(filled)
    assert main(["--content", str(content), "check-content"]) == 0


def test_estimate_defaults_to_one_card_of_a_multi_chip_entry(capsys: pytest.CaptureFixture[str]) -> None:
    """An MI250X card is two devices: the default scenario uses both, the usable memory is the card's."""
    keys = run_json(capsys, "estimate", "llama-3-1-8b-instruct", "mi250x", "--json")
    assert keys["gpus"] == 2
    one = run_json(capsys, "estimate", "llama-3-1-8b-instruct", "mi250x", "--gpus", "1", "--json")
    assert one["usable_per_gpu_bytes"] == keys["usable_per_gpu_bytes"]
    assert one["usable_bytes"] * 2 == pytest.approx(keys["usable_bytes"], abs=2)  # type: ignore[operator]


def test_new_model_reads_qwen3_5_hybrid_moe_without_hand_edits() -> None:
    """Qwen3.5-397B-A17B's config (the Hub layout; shapes as p-doom/omegalax's registry copies them): the
    scaffold reads the gated-attention flag, the per-head q/k norms and gated shared expert of the
    qwen3_5 types, the multi-token-prediction layer, and writes the layer schedule as its repeating unit.
    The text model then counts 396,346,350,336 parameters, the figure a checkpoint audit reports for
    the weights without the vision tower and the MTP layer."""
    import json

    from generator.content.hfconfig import model_from_config
    from generator.sizing.params import count_params

    cfg = json.loads((FIXTURES / "qwen3.5-397b-a17b-config.json").read_text())
    model = model_from_config(cfg, name="Qwen3.5-397B-A17B", source="https://huggingface.co/Qwen/Qwen3.5-397B-A17B")
    attn, moe = model.network.blocks["attn"], model.network.blocks["moe"]
    assert model.architecture.model_type == "qwen3_5_moe_text"
    assert attn.kind == "attention" and attn.qk_norm and attn.output_gate == "element"
    assert [r.model_dump() for r in model.network.layers] == [
        {"repeat": 15, "unit": (("gdn", "moe"),) * 3 + (("attn", "moe"),)}
    ]
    assert (
        moe.kind == "moe" and moe.shared_gate and model.network.mtp is not None and len(model.network.mtp.layers) == 1
    )
    assert count_params(model).total == 396_346_350_336
