"""Every launch command the site prints parses: each program, flag and value as the program's own parser
takes them (content/cli.yaml), and the rules that tie flags together (generator/site/cli.py)."""

from __future__ import annotations

from generator.content.catalog import Catalog
from generator.site.browser_data import command_cases
from generator.site.cli import command_problems
from generator.site.commands import CommandInputs, launch_command
from generator.sizing.layout import layout


def test_the_checker_refuses_what_the_parsers_refuse(catalog: Catalog) -> None:
    programs, qwen = catalog.programs, catalog.model("qwen2-5-coder-32b-instruct")  # 40 heads
    assert command_problems("llama-server -hf a/b:Q4_K_M -c 8192 -ngl 99", programs) == []
    assert command_problems("llama-server -hf a/b -c 8k", programs) == ["llama-server: -c takes a int, got '8k'"]
    assert command_problems("llama-server -m x.gguf --flash-attn yes", programs) == [
        "llama-server: --flash-attn takes one of on, off, auto, got 'yes'"
    ]
    assert command_problems("llama-server -m x.gguf -ctk q8_0 -ctv q8_0", programs) == [
        "llama-server: a q8_0 KV cache needs -fa on"
    ]
    assert "llama-server: unknown flag --tensor-split" in command_problems("llama-server --tensor-split 1,1", programs)
    assert command_problems("vllm serve Qwen/X --rope-scaling '{}'", programs) == [
        "vllm serve: unknown flag --rope-scaling"
    ]
    assert command_problems("vllm serve Qwen/X --tensor-parallel-size 3", programs, qwen) == [
        "vllm serve: 40 attention heads do not divide by 3"
    ]
    assert command_problems("vllm serve Qwen/X --hf-overrides '{bad'", programs) == [
        "vllm serve: --hf-overrides takes a json, got '{bad'"
    ]
    assert command_problems("FROM qwen3:8b\nPARAMETER num_ctx 8k", programs) == [
        "Modelfile: num_ctx takes one int value, got ['8k']"
    ]
    assert command_problems("ollama run qwen3", programs) == ["unknown program 'ollama'"]


def test_every_command_of_the_parity_vectors_parses(catalog: Catalog) -> None:
    """The commands Python builds over every model, engine, format, context, batch, devices and KV cache
    (the same the browser's commands.js must reproduce), each checked against its program."""
    checked = 0
    for case in command_cases(catalog):
        if case["expected"] is None:
            continue
        model = catalog.model(case["model"])
        text = case["expected"][0]
        problems = command_problems(text, catalog.programs, model)
        # A vLLM scenario past the model's heads is refused by check_scenario before any page shows it.
        inputs = case["inputs"]
        if inputs["engine"] == "vllm" and any(b.heads % inputs["gpus"] for b, _ in layout(model).attention):
            problems = [p for p in problems if "attention heads" not in p]
        assert not problems, (case["model"], text, problems)
        checked += 1
    assert checked > 500


def test_the_made_gguf_and_long_context_commands_parse(catalog: Catalog) -> None:
    """A model with no GGUF repo gets the download, convert and quantize steps; past the config's
    maximum the card's YaRN flags; each parses."""
    for slug in ("qwen2-5-7b-instruct", "qwen3-8b", "mistral-7b-instruct-v0-3"):
        model = catalog.model(slug)
        for quant, context in (("Q4_K_M", 8192), ("F16", 65536), ("IQ4_XS", 131072)):
            built = launch_command(model, 1.0, CommandInputs("llama.cpp", quant, min(context, model.max_context)))
            assert built and not command_problems(built[0], catalog.programs, model), built
        built = launch_command(model, 0.9, CommandInputs("vllm", "BF16", model.max_context, gpus=4))
        assert built and not command_problems(built[0], catalog.programs, model), built
