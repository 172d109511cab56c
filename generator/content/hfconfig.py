"""Turn a Hugging Face ``config.json`` (any model, multimodal included) into a catalog Model.

The file is untrusted input: every key is checked for its type before it is used, and the schema
bounds every number, so a broken or hostile file gives one ConfigError that names the file and the
key, never a traceback or a hang.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from generator.content.schema import Architecture, Model

# Real config.json files are a few KB; anything this large is not one.
MAX_CONFIG_BYTES = 4 * 1024 * 1024

# Model types whose q/k/v projections carry biases even though config.json does not say so.
_QKV_BIAS_TYPES = {"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"}
# Qwen3.5 (and its 3.6 / 3.8 successors) keeps Qwen3-Next's per-head q/k norms and gated shared expert.
_QWEN3_5_TYPES = {"qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text"}
_QK_NORM_TYPES = {"qwen3", "qwen3_moe", "qwen3_next", "gemma3", "gemma3_text", "olmo2", "olmoe", *_QWEN3_5_TYPES}
_SHARED_EXPERT_GATE_TYPES = {"qwen2_moe", "qwen3_next", "qwen3_5_moe", "qwen3_5_moe_text"}
_FOUR_NORM_TYPES = {"gemma2", "gemma3", "gemma3_text", "olmo2"}
# Types where experts use `intermediate_size` (there is no separate moe_intermediate_size).
_EXPERTS_USE_INTERMEDIATE = {"mixtral", "gpt_oss", "phimoe", "jamba", "llama4_text", "llama4", "minimax_m2"}

# Suffixes of transformers class names in `architectures`, longest first.
_CLASS_SUFFIXES = ("ForConditionalGeneration", "ForCausalLM", "LMHeadModel", "Model")
# Classes whose model_type is not their CamelCase stem in snake_case.
_CLASS_TYPES = {
    "Gemma3ForCausalLM": "gemma3_text",
    "Llama4ForCausalLM": "llama4_text",
    "MiniMaxM2ForCausalLM": "minimax_m2",
    "GPTNeoXForCausalLM": "gpt_neox",
    "GraniteMoeHybridForCausalLM": "granitemoehybrid",
}

# Model.sources holds provenance the site links to (an https URL or a Git path); a model read from a
# local file is never published, so it is validated with this stand-in and then keeps its file path.
_STAND_IN_SOURCE = "https://huggingface.co/docs/transformers/main_classes/configuration"

_Record = TypeVar("_Record", bound=BaseModel)


class ConfigError(ValueError):
    """A config.json that cannot be read as a decoder-only LLM; the message says which key."""


def slugify(name: str) -> str:
    """``Qwen2.5-Coder-32B-Instruct`` -> ``qwen2-5-coder-32b-instruct``."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def model_type_for(class_name: str) -> str:
    """The config.json ``model_type`` a transformers class stands for: ``Qwen2MoeForCausalLM`` -> ``qwen2_moe``."""
    if class_name in _CLASS_TYPES:
        return _CLASS_TYPES[class_name]
    stem = class_name
    for suffix in _CLASS_SUFFIXES:
        if class_name.endswith(suffix) and len(class_name) > len(suffix):
            stem = class_name[: -len(suffix)]
            break
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", stem).lower()


def _show(value: object) -> str:
    """``value`` as JSON spells it, cut short for a one-line message."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return f"a list of {len(value)}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**40:
        return "an integer of over 40 digits"
    text = json.dumps(value, default=lambda other: type(other).__name__)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _first_line(exc: BaseException) -> str:
    """The first line of an exception's message, cut short."""
    lines = str(exc).splitlines()
    return lines[0][:200] if lines else type(exc).__name__


def _integer(value: object, name: str, minimum: int) -> int:
    """``value`` as an int of at least ``minimum``; an integral float (4096.0) counts, a bool does not."""
    number = int(value) if isinstance(value, float) and math.isfinite(value) and value.is_integer() else value
    if isinstance(number, int) and not isinstance(number, bool) and number >= minimum:
        return number
    kind = {0: "a non-negative integer", 1: "a positive integer"}.get(minimum, f"an integer of at least {minimum}")
    raise ConfigError(f"{name} must be {kind}, got {_show(value)}")


class _Keys:
    """Typed reads from one JSON object of a config; errors name the key as the file spells it.

    ``origin`` maps a schema field (``architecture.num_layers``) to the key it was read from, so an
    error the schema finds later names the key of the file too.
    """

    def __init__(self, data: dict[str, Any], prefix: str, origin: dict[str, str]) -> None:
        self.data = data
        self.prefix = prefix
        self.origin = origin

    def _find(self, keys: tuple[str, ...]) -> tuple[str, Any]:
        """The first of ``keys`` with a non-null value, as (its name, value); the first name and None if none."""
        for key in keys:
            if self.data.get(key) is not None:
                return self.prefix + key, self.data[key]
        return self.prefix + keys[0], None

    def integer(self, *keys: str, default: int | None = None, minimum: int = 1, to: str = "") -> int:
        """The first of ``keys`` given, as an int ≥ ``minimum``; ``default`` when none is (an error if None)."""
        name, value = self._find(keys)
        if to:
            self.origin[to] = name
        if value is not None:
            return _integer(value, name, minimum)
        if default is None:
            names = ", ".join(self.prefix + key for key in keys)
            raise ConfigError(f"{names} is missing" if len(keys) == 1 else f"none of {names} is given")
        return default

    def flag(self, *keys: str) -> bool | None:
        """The first of ``keys`` given, as a bool (true or false); None when none is."""
        name, value = self._find(keys)
        if value is None or isinstance(value, bool):
            return value
        raise ConfigError(f"{name} must be true or false, got {_show(value)}")

    def text(self, key: str) -> str | None:
        """``key`` as a string; None when it is missing or null."""
        name, value = self._find((key,))
        if value is None or isinstance(value, str):
            return value
        raise ConfigError(f"{name} must be a string, got {_show(value)}")

    def strings(self, key: str) -> list[str]:
        """``key`` as a list of strings; empty when it is missing or null."""
        name, value = self._find((key,))
        if value is None:
            return []
        if not isinstance(value, list):
            raise ConfigError(f"{name} must be a list of strings, got {_show(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise ConfigError(f"{name}[{i}] must be a string, got {_show(item)}")
        return value

    def bits(self, key: str) -> list[bool]:
        """``key`` as a list of 0/1 flags; empty when it is missing or null."""
        name, value = self._find((key,))
        if value is None:
            return []
        if not isinstance(value, list):
            raise ConfigError(f"{name} must be a list of 0 and 1, got {_show(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, int | float) or item not in (0, 1):
                raise ConfigError(f"{name}[{i}] must be 0 or 1, got {_show(item)}")
        return [bool(item) for item in value]


def _text_part(cfg: dict[str, Any], origin: dict[str, str]) -> _Keys:
    """The object describing the language model: ``text_config`` or ``llm_config`` when given, else the top."""
    for key in ("text_config", "llm_config"):
        part = cfg.get(key)
        if part is None:
            continue
        if not isinstance(part, dict):
            raise ConfigError(f"{key} must be an object, got {_show(part)}")
        if part:
            return _Keys(part, f"{key}.", origin)
    return _Keys(cfg, "", origin)


def _model_type(text: _Keys, top: _Keys) -> tuple[str, str]:
    """The model_type and the key it came from: as given, else inferred from the first ``architectures`` class."""
    for keys in (text, top):
        given = keys.text("model_type")
        if given:
            return given, keys.prefix + "model_type"
    for keys in (text, top):
        classes = keys.strings("architectures")
        if classes:
            return model_type_for(classes[0]), keys.prefix + "architectures[0]"
    return "unknown", "model_type"


def _every(period: int, layers: int, other: str) -> str:
    """``period - 1`` layers of ``other`` then one full-attention layer, cut to ``layers`` letters."""
    if period > layers:
        return other * layers
    return other * (period - 1) + "f"


def _letter(layer_type: str) -> str:
    """The layer_pattern letter of one ``layer_types`` entry."""
    for word, letter in (("sliding", "s"), ("linear", "l"), ("mamba", "m")):
        if word in layer_type:
            return letter
    return "f"


def _period(letters: str) -> str:
    """The shortest unit that repeats to ``letters`` (``lllflllf`` -> ``lllf``): the pattern's own form."""
    for n in range(1, len(letters)):
        if all(letters[i] == letters[i % n] for i in range(len(letters))):
            return letters[:n]
    return letters


def _pattern(text: _Keys, layers: int) -> tuple[str, int | None]:
    """Layer pattern letters (at most ``layers``) and the sliding window, from layer_types / patterns / intervals.

    The pattern repeats to num_layers, so cutting it to ``layers`` letters keeps its meaning.
    """
    types = text.strings("layer_types")
    if types:
        letters = _period("".join(_letter(t) for t in types[:layers]))
        window = text.integer("sliding_window", to="attention.sliding_window") if "s" in letters else None
        return letters, window
    interval = text.integer("full_attention_interval", default=0, minimum=0)
    if interval and text.integer("linear_num_value_heads", default=0, minimum=0):
        return _every(interval, layers, "l"), None
    chunk = text.integer("attention_chunk_size", default=0, minimum=0, to="attention.sliding_window")
    flags = text.bits("no_rope_layers") if chunk else []
    if flags:
        # Llama 4: chunked local attention on the RoPE layers (no_rope_layers[i] == 1), global on the rest;
        # memory-wise a chunk behaves like a sliding window of its size.
        return "".join("s" if flag else "f" for flag in flags[:layers]), chunk
    period = text.integer("sliding_window_pattern", default=0, minimum=0)
    window = text.integer("sliding_window", default=0, minimum=0, to="attention.sliding_window") if period else 0
    if period and window:
        return _every(period, layers, "s"), window
    # A plain `sliding_window` on every layer (Mistral 7B v0.1) is ignored by llama.cpp and Ollama;
    # counting it as full attention is the safe side.
    return "f", None


def _validated(record: type[_Record], data: dict[str, Any], origin: dict[str, str], section: str = "") -> _Record:
    """``data`` validated as ``record``; a schema error becomes a ConfigError naming the config key."""
    try:
        return record.model_validate(data, strict=False)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join([section, *(str(part) for part in first["loc"])]).strip(".")
        message = first["msg"].removeprefix("Value error, ")
        value = first.get("input")
        got = "" if isinstance(value, dict | list | tuple | BaseModel) else f", got {_show(value)}"
        raise ConfigError(f"invalid {origin.get(where, where or 'config')}: {message}{got}") from None


def model_from_config(cfg: dict[str, Any], *, name: str, source: str) -> Model:
    """A Model for the text part of ``cfg``; parameters are derived, never declared."""
    origin: dict[str, str] = {}
    top = _Keys(cfg, "", origin)
    text = _text_part(cfg, origin)
    model_type, origin["architecture.model_type"] = _model_type(text, top)
    layers = text.integer("num_hidden_layers", "n_layer", "num_layers", to="architecture.num_layers")
    hidden = text.integer("hidden_size", "d_model", "n_embd", to="architecture.hidden_size")
    heads = text.integer("num_attention_heads", "n_head", to="architecture.num_attention_heads")
    kv_heads = text.integer("num_key_value_heads", "num_kv_heads", default=heads, to="architecture.num_kv_heads")
    head_dim = text.integer("head_dim", default=hidden // heads, to="architecture.head_dim")
    attention: dict[str, Any] = {}
    if text.integer("kv_lora_rank", default=0, minimum=0):
        nope = text.integer("qk_nope_head_dim", to="attention.mla.qk_nope_head_dim")
        rope = text.integer("qk_rope_head_dim", to="attention.mla.qk_rope_head_dim")
        attention["mla"] = {
            "kv_lora_rank": text.integer("kv_lora_rank", to="attention.mla.kv_lora_rank"),
            "qk_rope_head_dim": rope,
            "qk_nope_head_dim": nope,
            "v_head_dim": text.integer("v_head_dim", to="attention.mla.v_head_dim"),
            "q_lora_rank": text.integer("q_lora_rank", default=0, minimum=0, to="attention.mla.q_lora_rank") or None,
        }
        head_dim = nope + rope
        origin["architecture.head_dim"] = f"{text.prefix}qk_nope_head_dim + qk_rope_head_dim"
    ffn_keys = ("intermediate_size", "ffn_dim", "n_inner")
    inter = text.integer(*ffn_keys, default=4 * hidden, to="moe.expert_intermediate_size")
    dense_inter = text.integer("intermediate_size_mlp", *ffn_keys, default=inter, to="architecture.intermediate_size")
    tie = text.flag("tie_word_embeddings")
    if tie is None:
        tie = top.flag("tie_word_embeddings")
    attention_bias = text.flag("attention_bias", "qkv_bias")
    output_gate = text.flag("attn_output_gate")
    mlp_bias = text.flag("mlp_bias")
    # Checked before anything scales with the layer count: the schema bounds it.
    arch = _validated(
        Architecture,
        {
            "model_type": model_type,
            "num_layers": layers,
            "hidden_size": hidden,
            "intermediate_size": dense_inter,
            "num_attention_heads": heads,
            "num_kv_heads": kv_heads,
            "head_dim": head_dim,
            "vocab_size": text.integer("vocab_size", to="architecture.vocab_size"),
            "max_context": text.integer(
                "max_position_embeddings",
                "max_sequence_length",
                "seq_length",
                "n_positions",
                default=4096,
                to="architecture.max_context",
            ),
            "tie_word_embeddings": model_type.startswith("gemma") if tie is None else tie,
            "attention_bias": model_type in _QKV_BIAS_TYPES if attention_bias is None else attention_bias,
            "attention_output_bias": model_type == "gpt_oss",
            "qk_norm": model_type in _QK_NORM_TYPES,
            "attention_output_gate": model_type == "qwen3_next" if output_gate is None else output_gate,
            "attention_sinks": model_type == "gpt_oss",
            "norms_per_layer": 4 if model_type in _FOUR_NORM_TYPES else 2,
            "mlp_bias": model_type == "gpt_oss" if mlp_bias is None else mlp_bias,
        },
        origin,
        "architecture",
    )
    pattern, window = _pattern(text, arch.num_layers)
    attention["layer_pattern"] = pattern
    if window:
        attention["sliding_window"] = window
    if "l" in pattern:
        attention["linear"] = {
            "num_key_heads": text.integer("linear_num_key_heads", to="attention.linear.num_key_heads"),
            "key_head_dim": text.integer("linear_key_head_dim", to="attention.linear.key_head_dim"),
            "num_value_heads": text.integer("linear_num_value_heads", to="attention.linear.num_value_heads"),
            "value_head_dim": text.integer("linear_value_head_dim", to="attention.linear.value_head_dim"),
            "conv_kernel": text.integer("linear_conv_kernel_dim", default=4, to="attention.linear.conv_kernel"),
        }
    slug = slugify(name)[:80].strip("-") or "model"
    data: dict[str, Any] = {
        "slug": slug,
        "hf_id": f"local/{slug}",
        "name": name,
        "organization": "unknown",
        "family": model_type,
        "license": "unknown",
        "architecture": arch,
        "attention": attention,
        "sources": (_STAND_IN_SOURCE,),
    }
    moe = _moe(text, model_type, inter)
    if moe:
        data["moe"] = moe
    return _validated(Model, data, origin).model_copy(update={"sources": (source,)})


def _moe(text: _Keys, model_type: str, inter: int) -> dict[str, Any] | None:
    """The ``moe`` section when the config routes to experts, else None."""
    experts = text.integer(
        "num_experts", "num_local_experts", "n_routed_experts", default=0, minimum=0, to="moe.num_experts"
    )
    if not experts:
        return None
    shared_size = text.integer(
        "shared_expert_intermediate_size", default=0, minimum=0, to="moe.shared_expert_intermediate_size"
    )
    n_shared = text.integer("n_shared_experts", default=1 if shared_size else 0, minimum=0, to="moe.shared_experts")
    if model_type in _EXPERTS_USE_INTERMEDIATE:
        expert_size = inter
    else:
        expert_size = text.integer("moe_intermediate_size", to="moe.expert_intermediate_size")
    if model_type.startswith("llama4"):
        n_shared = 1  # Llama 4 has one shared expert of the routed experts' size
    if n_shared and not shared_size:
        shared_size = n_shared * expert_size
    return {
        "num_experts": experts,
        "experts_per_token": text.integer(
            "num_experts_per_tok", "num_experts_per_token", "top_k", to="moe.experts_per_token"
        ),
        "expert_intermediate_size": expert_size,
        "shared_experts": n_shared,
        "shared_expert_intermediate_size": shared_size,
        "first_dense_layers": text.integer(
            "first_k_dense_replace", "moe_layer_start_index", default=0, minimum=0, to="moe.first_dense_layers"
        ),
        "layer_interval": text.integer(
            "interleave_moe_layer_step", "moe_layer_interval", default=1, to="moe.layer_interval"
        ),
        "router_bias": model_type == "gpt_oss",
        "shared_expert_gate": model_type in _SHARED_EXPERT_GATE_TYPES,
        "extra_layers_not_loaded": text.integer(
            "num_nextn_predict_layers",
            "mtp_num_hidden_layers",
            default=0,
            minimum=0,
            to="moe.extra_layers_not_loaded",
        ),
    }


def _read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``, read as UTF-8 and at most MAX_CONFIG_BYTES long."""
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: over {MAX_CONFIG_BYTES // 1024**2} MiB, too large for a config.json")
    try:
        cfg = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid JSON: nested too deeply") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise ConfigError(f"{path}: invalid JSON: {_first_line(exc)}") from None
    if not isinstance(cfg, dict):
        raise ConfigError(f"{path}: expected a JSON object, got {_show(cfg)}")
    return cfg


def load_config(path: Path) -> Model:
    """Read ``path`` (a config.json) into a Model named after its _name_or_path or its folder."""
    cfg = _read_json(path)
    try:
        raw_name = _Keys(cfg, "", {}).text("_name_or_path") or ""
        name = raw_name.rstrip("/").split("/")[-1] or path.resolve().parent.name or path.stem or "model"
        return model_from_config(cfg, name=name[:200], source=str(path))
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except (ArithmeticError, AttributeError, LookupError, RecursionError, TypeError, ValueError) as exc:
        # A safety net: every key is checked before use, so reaching this is a bug to report with the file.
        raise ConfigError(f"{path}: unexpected config.json layout ({type(exc).__name__}: {_first_line(exc)})") from None
