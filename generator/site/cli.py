"""What a launch program's parser would refuse in a command the site prints: the check behind the
promise that a copied command starts. Programs and their flags are content (content/cli.yaml, each from
the program's own argument parser); the rules that tie flags to each other or to the model are here."""

from __future__ import annotations

import shlex
from collections.abc import Mapping

from generator.content.schema import CliArgument, CliProgram, Model
from generator.site.commands import OLLAMA_SERVE_NOTE
from generator.sizing.layout import layout

# KV cache types llama.cpp stores unquantized; any other needs flash attention (llama-context.cpp:
# "V cache quantization requires flash_attn").
_FLOAT_CACHES = ("f32", "f16", "bf16")


def command_problems(text: str, programs: Mapping[str, CliProgram], model: Model | None = None) -> list[str]:
    """Everything in ``text`` (one command a line, or an Ollama Modelfile) that the programs of
    ``programs`` would refuse, or that breaks a rule tying flags to each other or to ``model``."""
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and lines[0].startswith(OLLAMA_SERVE_NOTE):
        # An Ollama Modelfile whose server needs settings: environment variables of ollama serve.
        words = lines[0].removeprefix(OLLAMA_SERVE_NOTE).split()
        return _serve_env(words, programs.get("ollama serve")) + _modelfile(lines[1:], programs.get("Modelfile"))
    if lines and lines[0].startswith("FROM "):
        return _modelfile(lines, programs.get("Modelfile"))
    out: list[str] = []
    for line in lines:
        out += _line(shlex.split(line), programs, model)
    return out


def _serve_env(words: list[str], program: CliProgram | None) -> list[str]:
    """Problems of ``NAME=value ... ollama serve``: each variable one ollama serve reads, with a value it takes."""
    if program is None:
        return ["no ollama serve program in cli.yaml"]
    if words[-2:] != ["ollama", "serve"]:
        return [f"ollama serve: expected NAME=value ... ollama serve, got {' '.join(words)!r}"]
    out = []
    for word in words[:-2]:
        name, _, value = word.partition("=")
        arg = program.flag(name)
        if arg is None:
            out.append(f"ollama serve: unknown environment variable {name!r}")
        elif not arg.accepts(value):
            out.append(f"ollama serve: {name} takes a {arg.value} value, got {value!r}")
    return out


def _modelfile(lines: list[str], program: CliProgram | None) -> list[str]:
    if program is None:
        return ["no Modelfile program in cli.yaml"]
    out = []
    for line in lines:
        words = line.split()
        name, values = (words[1], words[2:]) if words[0] == "PARAMETER" and len(words) > 1 else (words[0], words[1:])
        arg = program.flag(name)
        if arg is None:
            out.append(f"Modelfile: unknown instruction or parameter {name!r}")
        elif len(values) != 1 or not arg.accepts(values[0]):
            out.append(f"Modelfile: {name} takes one {arg.value} value, got {values}")
    return out


def _line(words: list[str], programs: Mapping[str, CliProgram], model: Model | None) -> list[str]:
    if words and words[0] == "python":
        words = words[1:]
    name = " ".join(words[:2]) if " ".join(words[:2]) in programs else (words[0] if words else "")
    program = programs.get(name)
    if program is None:
        return [f"unknown program {name!r}"]
    out: list[str] = []
    given: dict[str, str] = {}
    positional = 0
    rest = words[len(name.split()) :]
    i = 0
    while i < len(rest):
        word = rest[i]
        i += 1
        if word.startswith("-") and not _number(word):
            flag, _, inline = word.partition("=")
            arg = program.flag(flag)
            if arg is None:
                out.append(f"{name}: unknown flag {flag}")
                if not inline and i < len(rest) and not rest[i].startswith("-"):
                    i += 1  # its value, most likely: one problem is enough
                continue
            if arg.value == "switch":
                given[arg.names[0]] = ""
                continue
            value = inline or (rest[i] if i < len(rest) else None)
            i += 0 if inline else 1
            out += _value(name, flag, arg, value)
            given[arg.names[0]] = value or ""
        elif positional < len(program.positional):
            out += _value(name, program.positional[positional].name or "", program.positional[positional], word)
            positional += 1
        else:
            out.append(f"{name}: unexpected argument {word!r}")
    return out + _rules(name, given, model)


def _number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def _value(program: str, flag: str, arg: CliArgument, value: str | None) -> list[str]:
    if value is None:
        return [f"{program}: {flag} needs a {arg.value} value"]
    if not arg.accepts(value):
        wanted = f"one of {', '.join(arg.choices)}" if arg.choices else f"a {arg.value}"
        return [f"{program}: {flag} takes {wanted}, got {value!r}"]
    return []


def _rules(program: str, given: Mapping[str, str], model: Model | None) -> list[str]:
    """Rules across flags: llama.cpp needs flash attention on for a quantized KV cache; vLLM's tensor
    parallelism must divide the model's attention heads (config/model.py verify_with_parallel_config)."""
    out = []
    if program == "llama-server":
        quantized = [given[f] for f in ("-ctk", "-ctv") if f in given and given[f] not in _FLOAT_CACHES]
        if quantized and given.get("-fa") != "on":
            out.append(f"llama-server: a {quantized[0]} KV cache needs -fa on")
    if program == "vllm serve" and model is not None and "--tensor-parallel-size" in given:
        tp = int(given["--tensor-parallel-size"])
        heads = next((b.heads for b, _ in layout(model).attention if b.heads % tp), None)
        if heads is not None:
            out.append(f"vllm serve: {heads} attention heads do not divide by {tp}")
    return out
