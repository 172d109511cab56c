"""Launch commands a pair page prints: llama-server, vllm serve, an Ollama Modelfile and mlx_lm.server.

Every part is a validated catalog value (repo ids, Ollama tags, format names) or a number, joined
with shell quoting, never pasted text.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from generator.content.catalog import Catalog
from generator.content.schema import Hardware, Model
from generator.sizing.estimate import Estimate, ScenarioError, estimate
from generator.sizing.scenario import DEFAULT_FORMAT, Facts, Scenario

if TYPE_CHECKING:
    from generator.site.pair_page import FormatRow


@dataclasses.dataclass(frozen=True)
class CommandInputs:
    """What a launch command is built from besides the model: the engine, format and scenario."""

    engine: str
    quant: str
    context: int
    batch: int = 1
    gpus: int = 1
    kv_dtype: str = ""
    offload: float = 0.0
    vision: bool = False
    # vLLM's --dtype where the backend computes in another 16-bit type (EngineBackend.dtype).
    dtype: str = ""

    def to_json(self) -> dict[str, object]:
        """Every input, by name."""
        return dataclasses.asdict(self)

    def differences(self, page: Mapping[str, object]) -> dict[str, object]:
        """The inputs that differ from the page's scenario (``page``, as ``Scenario.inputs`` gives it):
        what a pair page embeds for the workbench (``data-inputs``), which reads the rest from the page. An
        input the page's scenario does not name (``dtype``) differs when it is not its default."""
        defaults = {f.name: f.default for f in dataclasses.fields(self)}
        return {k: v for k, v in self.to_json().items() if page.get(k, defaults[k]) != v}


@dataclasses.dataclass(frozen=True)
class Command:
    """A launch command for one engine, with the inputs it was built from."""

    engine: str
    fmt: str
    text: str
    repo: str
    fits: bool
    inputs: CommandInputs


# Formats that vLLM loads from a checkpoint of their own; the others load the original repo.
_VLLM_REPOS = {"AWQ": "awq", "GPTQ": "gptq", "FP8": "fp8", "MXFP4": "mxfp4"}
_QUANTIZED_KV = ("q8_0", "q4_0")


def _llama_server(model: Model, _memory_utilization: float, i: CommandInputs) -> tuple[str, str] | None:
    art = model.artifacts
    repo = art.gguf[0] if art.gguf else ""
    source = ["-hf", f"{repo}:{i.quant.upper()}"] if repo else ["-m", f"{model.slug}-{i.quant}.gguf"]
    layers = str(round(model.architecture.num_layers * (1 - i.offload))) if i.offload else "99"
    parts = ["llama-server", *source, "-c", str(i.context * i.batch), "-ngl", layers]
    if i.kv_dtype in _QUANTIZED_KV:
        # A quantized V cache needs flash attention; otherwise llama.cpp's default (auto) uses it where
        # the backend has it (CANN on the 310P does not).
        parts += ["-fa", "on", "-ctk", i.kv_dtype, "-ctv", i.kv_dtype]
    if i.batch > 1:
        parts += ["--parallel", str(i.batch)]
    if i.gpus > 1:
        parts += ["--split-mode", "layer"]
    lc = model.long_context
    if lc and model.extends(i.context):
        parts += [
            "--rope-scaling",
            "yarn",
            "--rope-scale",
            f"{lc.factor:g}",
            "--yarn-orig-ctx",
            str(lc.original_context),
        ]
    if model.vision is not None and not i.vision:
        parts.append("--no-mmproj")  # -hf would load the vision encoder too
    return "\n".join([*([] if repo else _gguf_steps(model, i.quant)), shlex.join(parts)]), repo


def _gguf_steps(model: Model, quant: str) -> list[str]:
    """The commands that make ``quant``'s GGUF file where no GGUF repo is published: download the
    checkpoint, convert it to a 16-bit GGUF (llama.cpp's convert_hf_to_gguf.py), quantize it
    (llama-quantize) unless F16 is wanted."""
    f16 = f"{model.slug}-F16.gguf"
    steps = [
        shlex.join(["hf", "download", model.hf_id, "--local-dir", model.slug]),
        shlex.join(["python", "convert_hf_to_gguf.py", model.slug, "--outtype", "f16", "--outfile", f16]),
    ]
    if quant != "F16":
        steps.append(shlex.join(["llama-quantize", f16, f"{model.slug}-{quant}.gguf", quant]))
    return steps


def _vllm_serve(model: Model, memory_utilization: float, i: CommandInputs) -> tuple[str, str] | None:
    family = _VLLM_REPOS.get(i.quant)
    repos: tuple[str, ...] = getattr(model.artifacts, family) if family else ()
    if family in ("awq", "gptq", "mxfp4") and not repos:
        return None
    repo = repos[0] if repos else model.hf_id
    parts = ["vllm", "serve", repo, "--max-model-len", str(i.context)]
    parts += ["--gpu-memory-utilization", str(memory_utilization)]
    if i.quant == "FP8" and not repos:
        parts += ["--quantization", "fp8"]
    if i.gpus > 1:
        parts += ["--tensor-parallel-size", str(i.gpus)]
    if i.kv_dtype == "fp8":
        parts += ["--kv-cache-dtype", "fp8"]
    if i.batch > 1:
        parts += ["--max-num-seqs", str(i.batch)]
    if i.dtype:
        parts += ["--dtype", i.dtype]
    lc = model.long_context
    if lc and model.extends(i.context):
        parts += ["--hf-overrides", yarn_override(lc.factor, lc.original_context)]
    return shlex.join(parts), repo


def yarn_override(factor: float, original: int) -> str:
    """vLLM's --hf-overrides JSON that applies a model card's YaRN (factor written as a float, as the
    cards write it: 4.0); static/display.js writes the same text."""
    return (
        f'{{"rope_scaling":{{"rope_type":"yarn","factor":{float(factor)!r},'
        f'"original_max_position_embeddings":{original}}}}}'
    )


def ollama_env(i: CommandInputs) -> str:
    """The server settings a scenario needs, as environment variables of ``ollama serve`` (Ollama's FAQ): a
    quantized K/V cache (OLLAMA_KV_CACHE_TYPE, only with flash attention on) and several sequences at once
    (OLLAMA_NUM_PARALLEL); "" when the defaults serve it."""
    env = []
    if i.kv_dtype in _QUANTIZED_KV:
        env += ["OLLAMA_FLASH_ATTENTION=1", f"OLLAMA_KV_CACHE_TYPE={i.kv_dtype}"]
    if i.batch > 1:
        env.append(f"OLLAMA_NUM_PARALLEL={i.batch}")
    return " ".join(env)


# The Modelfile's first line when the server needs settings a Modelfile cannot give.
OLLAMA_SERVE_NOTE = "# start the server with: "


def _ollama_modelfile(model: Model, _memory_utilization: float, i: CommandInputs) -> tuple[str, str] | None:
    tag = model.artifacts.ollama
    if tag is None:
        return None
    env = ollama_env(i)
    lines = [f"{OLLAMA_SERVE_NOTE}{env} ollama serve"] if env else []
    return "\n".join([*lines, f"FROM {tag}", f"PARAMETER num_ctx {i.context}"]), tag


def _mlx_server(model: Model, _memory_utilization: float, i: CommandInputs) -> tuple[str, str] | None:
    if not model.artifacts.mlx:
        return None
    repo = model.artifacts.mlx[0]
    return shlex.join(["mlx_lm.server", "--model", repo, "--max-tokens", str(min(i.context, 4096))]), repo


_BUILDERS = {"llama.cpp": _llama_server, "vllm": _vllm_serve, "ollama": _ollama_modelfile, "mlx": _mlx_server}


def launch_command(model: Model, memory_utilization: float, i: CommandInputs) -> tuple[str, str] | None:
    """(command text, repo id) that starts ``model`` as ``i`` says, or None when the engine has no
    command here or no published checkpoint serves the format. ``static/commands.js`` builds the same
    text (the parity vectors check it)."""
    builder = _BUILDERS.get(i.engine)
    return None if builder is None else builder(model, memory_utilization, i)


def command_gpus(est: Estimate, gpus: int) -> int:
    """Devices a command is written for: the scenario's when it fits, else the fewest that fit."""
    if est.memory.verdict != "oom":
        return gpus
    return est.min_gpus or gpus


def commands(
    catalog: Catalog, model: Model, hw: Hardware, matrix: Sequence[FormatRow], own: Scenario
) -> tuple[Command, ...]:
    """The page's own scenario's command, with its engine's; vllm serve and mlx_lm for the best fitting format
    of their engine; an Ollama Modelfile for its tag (Q4_K_M, where Ollama runs on the card). Only engines
    that run on the card's platform, with formats their backend there runs, get a block."""
    out = []

    def pick(engine: str) -> FormatRow | None:
        rows = [r for r in matrix if r.engine.name == engine and r.est is not None]
        fitting = [r for r in rows if r.est and r.est.memory.verdict != "oom"]
        pool = fitting or rows
        if engine == own.engine.name:
            # The page's own scenario (the browser rebuilds this block from it): on as many devices as it needs.
            default = [r for r in rows if r.fmt.name == own.fmt.name]
            if default:
                return default[0]
        return max(
            pool, key=lambda r: (r.est.memory.verdict != "oom" if r.est else False, r.fmt.bits_per_weight), default=None
        )

    for engine in ("llama.cpp", "vllm", "ollama", "mlx"):
        profile = catalog.engine(engine)
        if not model.runs_on(engine):
            continue
        if engine == "ollama":
            # Ollama runs the GGUF that llama.cpp's Q4_K_M row sizes, with its own profile.
            row = next((r for r in matrix if r.fmt.name == DEFAULT_FORMAT and r.est is not None), None)
            if not profile.runs(hw, DEFAULT_FORMAT):
                row = None
        else:
            row = pick(engine)
        if row is None or row.est is None:
            continue
        gpus = 1 if engine in ("ollama", "mlx") else command_gpus(row.est, row.est.scenario.gpus)
        dtype = profile.dtype_on(hw, row.fmt.name)
        inputs = CommandInputs(engine, row.fmt.name, own.context, 1, gpus, profile.default_kv_dtype, dtype=dtype)
        built = launch_command(model, profile.memory_utilization, inputs)
        if built is not None:
            text, repo = built
            out.append(Command(engine, row.fmt.name, text, repo, row.est.memory.verdict != "oom", inputs))
    return tuple(out)


def follow(
    own: Sequence[Command], model: Model, hw: Hardware, est: Estimate, facts: Facts, catalog: Catalog
) -> tuple[Command, ...]:
    """The commands as the workbench shows them for ``est``'s scenario (``static/workbench.js`` does the
    same): the block of the scenario's engine runs the whole scenario where a published checkpoint
    serves it; every other block keeps its format and devices and follows context and batch. Each says
    whether its format fits on the scenario's devices. At the page's own scenario this returns ``own`` unchanged."""
    sc = est.scenario
    scenario = CommandInputs(
        sc.engine.name,
        sc.fmt.name,
        sc.context,
        sc.batch,
        command_gpus(est, sc.gpus),
        sc.kv.name,
        sc.offload,
        sc.vision,
        sc.engine.dtype_on(hw, sc.fmt.name),
    )
    out = []
    for c in own:
        utilization = catalog.engine(c.engine).memory_utilization
        chosen = launch_command(model, utilization, scenario) if c.engine == sc.engine.name else None
        if chosen is not None:
            out.append(Command(c.engine, sc.fmt.name, chosen[0], chosen[1], est.memory.verdict != "oom", scenario))
            continue
        inputs = dataclasses.replace(c.inputs, context=sc.context, batch=sc.batch)
        built = launch_command(model, utilization, inputs)
        if built is None:
            continue
        fits = command_fits(model, hw, dataclasses.replace(inputs, gpus=sc.gpus), facts, catalog)
        out.append(Command(c.engine, c.fmt, built[0], built[1], fits, inputs))
    return tuple(out)


def command_fits(model: Model, hw: Hardware, i: CommandInputs, facts: Facts, catalog: Catalog) -> bool:
    """Whether a command's format fits on its device count at its context and batch (default KV for its engine)."""
    engine = catalog.engine(i.engine)
    sc = Scenario(
        fmt=catalog.format(i.quant),
        kv=catalog.kv_dtype(i.kv_dtype or engine.default_kv_dtype),
        engine=engine,
        context=i.context,
        batch=i.batch,
        gpus=i.gpus,
        offload=i.offload,
        vision=i.vision,
    )
    try:
        return estimate(model, hw, sc, facts).memory.verdict != "oom"
    except ScenarioError:
        return False
