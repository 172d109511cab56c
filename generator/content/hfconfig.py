"""Turn a Hugging Face ``config.json`` (any model, multimodal included) into a catalog Model.

The file is untrusted input: every key is checked for its type before it is used, and the schema
bounds every number, so a broken or hostile file gives one ConfigError that names the file and the
key, never a traceback or a hang.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from generator.content.blocks import FFN_KINDS, MIXER_KINDS, Block, BlockName, runs
from generator.content.schema import Architecture, Model
from generator.content.types import Frozen

# Real config.json files are a few KB; anything this large is not one.
MAX_CONFIG_BYTES = 4 * 1024 * 1024

# Model types whose q/k/v projections carry biases even though config.json does not say so.
_QKV_BIAS_TYPES = {"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"}
# Qwen3.5 (and its 3.6 / 3.8 successors) keeps Qwen3-Next's per-head q/k norms and gated shared expert.
_QWEN3_5_TYPES = {"qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text", "qwen4_exp", "qwen4_exp_text"}
_QK_NORM_TYPES = {
    "qwen3",
    "qwen3_moe",
    "qwen3_next",
    "gemma3",
    "gemma3_text",
    "gemma4",
    "gemma4_text",
    "olmo2",
    "olmoe",
    *_QWEN3_5_TYPES,
}
_SHARED_EXPERT_GATE_TYPES = {
    "qwen2_moe",
    "qwen3_next",
    "qwen3_5_moe",
    "qwen3_5_moe_text",
    "qwen4_exp",
    "qwen4_exp_text",
}
_FOUR_NORM_TYPES = {"gemma2", "gemma3", "gemma3_text", "gemma4", "gemma4_text", "olmo2"}
# Types where experts use `intermediate_size` (there is no separate moe_intermediate_size).
_EXPERTS_USE_INTERMEDIATE = {"mixtral", "gpt_oss", "phimoe", "jamba", "llama4_text", "llama4", "minimax_m2"}

_BLOCK_KINDS = MIXER_KINDS | FFN_KINDS


class _BlockSet(Frozen):
    """Blocks checked on their own, before a schedule uses them."""

    blocks: dict[BlockName, Block]


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
        # Every key a reader looked at (SIZE_KEYS left out of it are refused).
        self.consumed: set[str] = set()

    def _find(self, keys: tuple[str, ...]) -> tuple[str, Any]:
        """The first of ``keys`` with a non-null value, as (its name, value); the first name and None if none."""
        self.consumed.update(keys)
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


# Letters of a layer's mixer: f full attention, s sliding (or chunked) attention, l gated delta net,
# m Mamba-2, - none (Nemotron-H's FFN-only layers).
_LAYER_TYPE_LETTERS = (("sliding", "s"), ("chunked", "s"), ("linear", "l"), ("mamba", "m"))
# Known `layer_types` entries: anything else is an attention kind this reader does not size.
_LAYER_TYPES = {
    "full_attention",
    "attention",
    "sliding_attention",
    "chunked_attention",
    "linear_attention",
    "mamba",
    "deepseek_sparse_attention",
}

# Keys that change a model's size or cache and that no reader here consumes: a config holding one is refused
# with the key named, never sized silently wrong. (A key with a null, zero, false or empty value is harmless.)
SIZE_KEYS = (
    "compress_ratios",
    "compress_rope_theta",
    "o_lora_rank",
    "o_groups",
    "num_hash_layers",
    "hc_mult",
    "hc_count",
    "hc_lowrank",
    "index_n_heads",
    "index_head_dim",
    "index_topk",
    "indexer_types",
    "indexer_n_heads",
    "indexer_head_dim",
    "index_source_layer_ids",
    "kv_source_layer_ids",
    "num_kv_shared_layers",
    "hidden_size_per_layer_input",
    "ple_layer_ids",
    "ngram_vocab_size_base",
    "engram_num_embeddings",
    "engram_layer_ids",
    "linear_attn_config",
    "kda_layers",
    "full_attn_layers",
    "block_configs",
    "use_double_wide_mlp",
    "mla_use_output_gate",
    "attn_res_block_size",
    "routed_expert_hidden_size",
    "latent_moe_use_norm",
    "mlp_layer_types",
    "dense_layers",
    "attention_other_setting",
    "num_attention_groups",
    "moe_num_experts",
    "moe_top_k",
    "top_k_experts",
    "enable_moe_block",
    "moe_latent_size",
    "hybrid_override_pattern",
    "mtp_hybrid_override_pattern",
    "moe_layers_enum",
    "share_expert_dim",
    "moe_shared_expert_intermediate_size",
    "num_global_key_value_heads",
    "global_head_dim",
    "attention_k_eq_v",
    "expert_intermediate_size",
    "num_nextn_predict_layers",
    "mtp_num_hidden_layers",
    "num_mtp_modules",
    "use_head_wise_attn_gate",
    "kv_lora_rank",
    "q_lora_rank",
    "linear_num_value_heads",
    "mamba_num_heads",
    "layers_block_type",
)
# Model types whose MTP layers carry their own output head (Step 3.5: three head tensors in the checkpoint).
_MTP_OWN_HEAD_TYPES = {"step3p5"}
# Model types whose hyper-connection streams collapse by an unweighted mean (GLM-5.3-Flash's
# Glm5NextTextHyperHead, "unlike DeepSeek-V4"); DeepSeek V4's learned head is not read yet.
_MHC_MEAN_TYPES = {"glm5_next", "glm5_next_text"}
# DeepSeek V4: mHC collapsed by a learned head (hc_head fn, base, scale; vLLM deepseek_v4.py).
_MHC_HEAD_TYPES = {"deepseek_v4"}
# DeepSeek V4.1: no head of its own; the last block's FFN mix collapses the streams (no hc_head tensors).
_MHC_NONE_TYPES = {"deepseek_v41", "deepseek_v41_text"}


def _letters_from(text: _Keys, layers: int) -> tuple[list[str], int | None]:
    """Each layer's mixer letter and the sliding window, from the first schedule key the config has."""
    pattern = text.text("hybrid_override_pattern")
    if pattern is not None:
        return _nemotron_letters(text, pattern, layers), None
    linear = _linear_attn_config(text)
    types = text.strings("layer_types")
    if linear is not None and not types:
        return _kimi_letters(linear, layers), None
    if types:
        return _typed_letters(text, types, layers, kda=linear is not None)
    interval = text.integer("full_attention_interval", default=0, minimum=0)
    if interval and text.integer("linear_num_value_heads", default=0, minimum=0):
        return ["f" if (i + 1) % interval == 0 else "l" for i in range(layers)], None
    chunk = text.integer("attention_chunk_size", default=0, minimum=0, to="network.blocks.swa.window")
    flags = text.bits("no_rope_layers") if chunk else []
    if flags:
        # Llama 4: chunked local attention on the RoPE layers (no_rope_layers[i] == 1), global on the rest;
        # memory-wise a chunk behaves like a sliding window of its size.
        if len(flags) < layers:
            raise ConfigError(f"{text.prefix}no_rope_layers lists {len(flags)} layers, the model has {layers}")
        return ["s" if flag else "f" for flag in flags[:layers]], chunk
    period = text.integer("sliding_window_pattern", default=0, minimum=0)
    window = text.integer("sliding_window", default=0, minimum=0, to="network.blocks.swa.window") if period else 0
    if period and window:
        return ["f" if (i + 1) % period == 0 else "s" for i in range(layers)], window
    # A plain `sliding_window` on every layer (Mistral 7B v0.1) is ignored by llama.cpp and Ollama;
    # counting it as full attention is the safe side.
    return ["f"] * layers, None


def _typed_letters(text: _Keys, types: list[str], layers: int, *, kda: bool) -> tuple[list[str], int | None]:
    """Mixer letters and sliding window from ``layer_types``; ``kda``: its linear layers are KDA (GLM-5.3)."""
    if len(types) < layers:
        raise ConfigError(f"{text.prefix}layer_types lists {len(types)} layers, the model has {layers}")
    for t in types[:layers]:
        if t not in _LAYER_TYPES:
            raise ConfigError(f"{text.prefix}layer_types holds {_show(t)}, an attention kind not sized here")
    letters = [next((ch for word, ch in _LAYER_TYPE_LETTERS if word in t), "f") for t in types[:layers]]
    if kda:
        # GLM-5.3-Flash: its linear-attention layers are the KDA of linear_attn_config.
        letters = ["k" if ch == "l" else ch for ch in letters]
    window = text.integer("sliding_window", to="network.blocks.swa.window") if "s" in letters else None
    return letters, window


def _linear_attn_config(text: _Keys) -> _Keys | None:
    """Kimi's ``linear_attn_config`` (KDA settings and which layers are KDA or full attention), if given."""
    value = text.data.get("linear_attn_config")
    if value is None:
        return None
    text.consumed.add("linear_attn_config")
    if not isinstance(value, dict):
        raise ConfigError(f"{text.prefix}linear_attn_config must be an object, got {_show(value)}")
    return _Keys(value, f"{text.prefix}linear_attn_config.", text.origin)


def _kimi_letters(linear: _Keys, layers: int) -> list[str]:
    """``kda_layers`` are KDA (k), ``full_attn_layers`` full attention. Kimi numbers layers from 1, GLM-5.3
    from 0: a list holding 0 counts from 0, one holding the last layer's number from 1."""
    lists: dict[str, list[int]] = {}
    for key in ("kda_layers", "full_attn_layers"):
        name = linear.prefix + key
        items = linear.data.get(key)
        if not isinstance(items, list):
            raise ConfigError(f"{name} must be a list of layer numbers, got {_show(items)}")
        lists[key] = [_integer(item, name, 0) for item in items]
    numbers = [n for items in lists.values() for n in items]
    if 0 in numbers and layers in numbers:
        raise ConfigError(f"{linear.prefix}kda_layers and full_attn_layers hold both 0 and {layers}")
    first = 0 if 0 in numbers else 1
    letters = [""] * layers
    for key, letter in (("kda_layers", "k"), ("full_attn_layers", "f")):
        for number in lists[key]:
            i = number - first
            if not 0 <= i < layers or letters[i]:
                raise ConfigError(f"{linear.prefix}{key} names layer {number}, outside the model or listed twice")
            letters[i] = letter
    if "" in letters:
        raise ConfigError(f"{linear.prefix}kda_layers and full_attn_layers leave layer {letters.index('') + 1} out")
    return letters


def _nemotron_letters(text: _Keys, pattern: str, layers: int) -> list[str]:
    """Nemotron-H's ``hybrid_override_pattern``: M Mamba-2, * attention, E MoE, - MLP; one block per layer."""
    name = text.prefix + "hybrid_override_pattern"
    if len(pattern) != layers:
        raise ConfigError(f"{name} has {len(pattern)} letters, the model has {layers} layers")
    bad = sorted(set(pattern) - set("M*E-"))
    if bad:
        raise ConfigError(f"{name} holds {_show(bad[0])}; expected M, *, E or -")
    return [{"M": "m", "*": "f", "E": "E", "-": "D"}[ch] for ch in pattern]


def _mla_block(text: _Keys, heads: int) -> dict[str, Any]:
    """A multi-head latent attention block, with its sparse-attention indexer where the config has one."""
    q_lora = text.integer("q_lora_rank", default=0, minimum=0, to="network.blocks.mla.q_lora_rank")
    mla: dict[str, Any] = {
        "kind": "mla",
        "heads": heads,
        "kv_lora_rank": text.integer("kv_lora_rank", to="network.blocks.mla.kv_lora_rank"),
        "qk_rope_head_dim": text.integer("qk_rope_head_dim", minimum=0, to="network.blocks.mla.qk_rope_head_dim"),
        "qk_nope_head_dim": text.integer("qk_nope_head_dim", to="network.blocks.mla.qk_nope_head_dim"),
        "v_head_dim": text.integer("v_head_dim", to="network.blocks.mla.v_head_dim"),
        "q_lora_rank": q_lora or None,
        # Kimi K3: a sigmoid gate on the output, projected from the hidden state (g_proj).
        "output_gate": bool(text.flag("mla_use_output_gate")),
    }
    index_heads = text.integer("index_n_heads", default=0, minimum=0, to="network.blocks.mla.indexer.heads")
    if index_heads:
        # DeepSeek Sparse Attention (V3.2, GLM-5): a lightning indexer in every layer. IndexShare layers
        # ("shared" in indexer_types) keep no index cache of their own and are not sized here.
        kinds = text.strings("indexer_types")
        if any(k != "full" for k in kinds):
            raise ConfigError(f"{text.prefix}indexer_types has shared indexer layers, which are not sized here")
        indexer: dict[str, Any] = {
            "heads": index_heads,
            "head_dim": text.integer("index_head_dim", to="network.blocks.mla.indexer.head_dim"),
            "top_k": text.integer("index_topk", to="network.blocks.mla.indexer.top_k"),
        }
        pool = text.integer("index_kpool", default=1, to="network.blocks.mla.indexer.pool")
        if pool > 1:
            if text.flag("index_kpool_compress") is False:
                raise ConfigError(f"{text.prefix}index_kpool without index_kpool_compress is not sized here")
            indexer["pool"] = pool
        mla["indexer"] = indexer
    return mla


def _attention_blocks(text: _Keys, model_type: str, letters: list[str], window: int | None) -> dict[str, Any]:
    """The softmax-attention blocks the letters use (``attn`` full, ``swa`` sliding; ``mla`` for MLA)."""
    heads = text.integer("num_attention_heads", "n_head", to="network.blocks.attn.heads")
    hidden = text.integer("hidden_size", "d_model", "n_embd")
    groups = text.integer("num_attention_groups", default=0, minimum=0)
    kv_heads = text.integer(
        "num_key_value_heads", "num_kv_heads", default=groups or heads, to="network.blocks.attn.kv_heads"
    )
    head_dim = text.integer("head_dim", default=hidden // heads, to="network.blocks.attn.head_dim")
    if text.integer("kv_lora_rank", default=0, minimum=0):
        if "s" in letters:
            raise ConfigError(f"{text.prefix}layer_types: sliding layers with latent attention are not sized here")
        return {"mla": _mla_block(text, heads)}
    bias = text.flag("attention_bias", "qkv_bias")
    common: dict[str, Any] = {
        "kind": "attention",
        "heads": heads,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "output_gate": _output_gate(text, model_type),
        "qk_norm": model_type in _QK_NORM_TYPES or bool(text.flag("use_qk_norm")),
        "qk_norm_over": "projection" if text.text("qk_norm_type") == "per_layer" else "head",
        "bias": model_type in _QKV_BIAS_TYPES if bias is None else bias,
        "output_bias": model_type == "gpt_oss",
        "sinks": model_type == "gpt_oss",
    }
    full = dict(common)
    # Gemma 4: full layers have their own KV heads and head size, and keys that double as values.
    for field, key, default in (
        ("kv_heads", "num_global_key_value_heads", kv_heads),
        ("head_dim", "global_head_dim", head_dim),
    ):
        given = text.data.get(key) is not None
        full[field] = text.integer(key, default=default, to=f"network.blocks.attn.{field}" if given else "")
    full["k_eq_v"] = bool(text.flag("attention_k_eq_v"))
    qsa = _qsa_indexer(text)
    if qsa:
        full["indexer"] = qsa
    blocks: dict[str, Any] = {}
    for geometry in (common, full):
        if geometry["heads"] % geometry["kv_heads"]:
            kv_key = (
                "num_global_key_value_heads"
                if geometry is full and full["kv_heads"] != kv_heads
                else "num_key_value_heads"
            )
            raise ConfigError(
                f"{text.prefix}num_attention_heads ({geometry['heads']}) must be a multiple of "
                f"{text.prefix}{kv_key} ({geometry['kv_heads']})"
            )
    if "f" in letters:
        blocks["attn"] = full
    if "s" in letters:
        swa = dict(common, window=window)
        other = text.data.get("attention_other_setting")
        if other is not None:
            # Step 3.5: sliding layers have their own head count and KV groups.
            if not isinstance(other, dict):
                raise ConfigError(f"{text.prefix}attention_other_setting must be an object, got {_show(other)}")
            text.consumed.add("attention_other_setting")
            sub = _Keys(other, f"{text.prefix}attention_other_setting.", text.origin)
            swa["heads"] = sub.integer("num_attention_heads", default=heads, to="network.blocks.swa.heads")
            swa["kv_heads"] = sub.integer(
                "num_attention_groups", "num_key_value_heads", default=kv_heads, to="network.blocks.swa.kv_heads"
            )
            swa["head_dim"] = sub.integer("head_dim", default=head_dim, to="network.blocks.swa.head_dim")
        blocks["swa"] = swa
    return blocks


def _output_gate(text: _Keys, model_type: str) -> str:
    """The attention output gate: per head (Step 3.5), per element (Qwen3-Next and its successors), or none."""
    if text.flag("use_head_wise_attn_gate"):
        return "head"
    gate = text.flag("attn_output_gate")
    if gate is None and text.text("output_gate_type") is not None:
        # Qwen3.8-Flash-Next: "sigmoid" (an element-wise gate, the q projection doubled) or "none".
        gate = text.text("output_gate_type") != "none"
    return "element" if gate or (gate is None and model_type == "qwen3_next") else "none"


def _qsa_indexer(text: _Keys) -> dict[str, Any] | None:
    """Qwen3.8-Flash-Next's QSA indexer on its full-attention layers (indexer_* keys), or None."""
    heads = text.integer("indexer_n_heads", default=0, minimum=0, to="network.blocks.attn.indexer.heads")
    if not heads:
        return None
    if text.integer("indexer_kv_heads", default=1) != 1:
        raise ConfigError(f"{text.prefix}indexer_kv_heads: a QSA indexer with several key heads is not sized here")
    return {
        "heads": heads,
        "head_dim": text.integer("indexer_head_dim", to="network.blocks.attn.indexer.head_dim"),
        "top_k": text.integer("indexer_budget", to="network.blocks.attn.indexer.top_k"),
        "pool": text.integer("indexer_compress_ratio", default=1, to="network.blocks.attn.indexer.pool"),
        "style": "qsa",
    }


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    return all(n % d for d in range(3, math.isqrt(n) + 1, 2))


def _primes_from(start: int, count: int) -> list[int]:
    """The first ``count`` primes at or above ``start``."""
    out: list[int] = []
    n = start
    while len(out) < count:
        if _is_prime(n):
            out.append(n)
        n += 1
    return out


def _layer_list(text: _Keys, key: str, layers: int, first: int) -> list[int]:
    """A list of layer numbers counted from ``first``, as 0-based indexes inside the model."""
    name = text.prefix + key
    items = text.data.get(key)
    text.consumed.add(key)
    if not isinstance(items, list) or not items:
        raise ConfigError(f"{name} must be a list of layer numbers, got {_show(items)}")
    out = [_integer(item, name, first) - first for item in items]
    if any(i >= layers for i in out) or len(set(out)) != len(out):
        raise ConfigError(f"{name} names a layer outside the model's {layers} or twice")
    return out


def _ngram(text: _Keys, layers: int) -> dict[str, Any] | None:
    """Hashed n-gram embedding tables: Qwen3.8-Flash-Next's per-layer n-gram embedding (ple_*) or DeepSeek
    V4.1's Engram (engram_*), or None."""
    if text.data.get("ple_layer_ids") is not None:
        # Each PLE layer's table has (ngram_size − 1) · heads_per_ngram hash heads; head i of the k-th PLE layer
        # has as many rows as the (16k + i + 1)-th prime at or above ngram_vocab_size_base, and the rows
        # together are padded to a multiple of make_ngram_vocab_size_divisible_by (Qwen4ExpTextPLELayer).
        ids = _layer_list(text, "ple_layer_ids", layers, 1)
        order = text.integer("ngram_size", minimum=2)
        per = text.integer("heads_per_ngram")
        heads = (order - 1) * per
        base = text.integer("ngram_vocab_size_base")
        pad = text.integer("make_ngram_vocab_size_divisible_by", default=1)
        embed = text.integer("ple_embed_dim")
        text.integer("split_ngram_parts", default=1)  # how the checkpoint shards the table: no size of its own
        if embed % heads:
            raise ConfigError(f"{text.prefix}ple_embed_dim ({embed}) must divide into the {heads} hash heads")
        if base > 10**9 or heads * len(ids) > 4096:
            raise ConfigError(f"{text.prefix}ngram_vocab_size_base: tables this large are not sized here")
        primes = _primes_from(base, heads * len(ids))
        tables = []
        for k, layer in enumerate(ids):
            rows = sum(primes[k * heads : (k + 1) * heads])
            tables.append({"layer": layer, "rows": -(-rows // pad) * pad})
        return {
            "kind": "ple",
            "tables": tables,
            "width": embed // heads,
            "lookups": heads,
            "conv_kernel": text.integer("ple_conv_kernel_size", default=0, minimum=0),
            "conv_dilation": order,
        }
    if text.data.get("engram_layer_ids") is not None:
        ids = _layer_list(text, "engram_layer_ids", layers, 0)
        rows_raw = text.data.get("engram_num_embeddings")
        text.consumed.add("engram_num_embeddings")
        name = text.prefix + "engram_num_embeddings"
        if not isinstance(rows_raw, list) or len(rows_raw) != len(ids):
            raise ConfigError(f"{name} must give the rows of each of the {len(ids)} Engram layers")
        counts = [_integer(r, name, 1) for r in rows_raw]
        order = text.integer("engram_max_ngram_size", minimum=2)
        heads = text.integer("engram_n_heads")
        for key in ("engram_vocab_size", "engram_pad_token_id", "engram_compressed_vocab_size"):
            text.integer(key, default=0, minimum=0)  # the hashing's inputs: the rows above are its result
        return {
            "kind": "engram",
            "tables": [{"layer": i, "rows": r} for i, r in zip(ids, counts, strict=True)],
            "width": text.integer("engram_head_dim"),
            "lookups": (order - 1) * heads,
        }
    return None


def _recurrent_blocks(text: _Keys, letters: list[str]) -> dict[str, Any]:
    """The gated-delta-net, KDA and Mamba-2 blocks the letters use."""
    blocks: dict[str, Any] = {}
    linear = _linear_attn_config(text)
    if "k" in letters and linear is not None:
        blocks["kda"] = {
            "kind": "kda",
            "heads": linear.integer("num_heads", to="network.blocks.kda.heads"),
            "head_dim": linear.integer("head_dim", to="network.blocks.kda.head_dim"),
            "conv_kernel": linear.integer("short_conv_kernel_size", default=4, to="network.blocks.kda.conv_kernel"),
            "output_gate": "full" if linear.flag("use_full_rank_gate") else "low_rank",
        }
    if "l" in letters:
        blocks["gdn"] = {
            "kind": "gated_delta_net",
            "num_key_heads": text.integer("linear_num_key_heads", to="network.blocks.gdn.num_key_heads"),
            "key_head_dim": text.integer("linear_key_head_dim", to="network.blocks.gdn.key_head_dim"),
            "num_value_heads": text.integer("linear_num_value_heads", to="network.blocks.gdn.num_value_heads"),
            "value_head_dim": text.integer("linear_value_head_dim", to="network.blocks.gdn.value_head_dim"),
            "conv_kernel": text.integer("linear_conv_kernel_dim", default=4, to="network.blocks.gdn.conv_kernel"),
        }
    if "m" in letters:
        heads = text.integer("mamba_num_heads", to="network.blocks.mamba.num_heads")
        blocks["mamba"] = {
            "kind": "mamba2",
            # Nemotron-H's mixer is mamba_num_heads × mamba_head_dim wide (not expand × hidden).
            "d_inner": heads * text.integer("mamba_head_dim", to="network.blocks.mamba.d_inner"),
            "d_state": text.integer("ssm_state_size", "state_size", to="network.blocks.mamba.d_state"),
            "n_groups": text.integer("n_groups", default=1, to="network.blocks.mamba.n_groups"),
            "d_conv": text.integer("conv_kernel", default=4, to="network.blocks.mamba.d_conv"),
            "num_heads": heads,
        }
        text.integer("expand", default=0, minimum=0)
    return blocks


def _moe_layers(text: _Keys, layers: int) -> list[bool]:
    """Which layers route to experts (the model is known to have experts)."""
    kinds = text.strings("mlp_layer_types")
    if kinds:
        if len(kinds) < layers or any(k not in ("dense", "sparse") for k in kinds):
            raise ConfigError(f"{text.prefix}mlp_layer_types must list dense or sparse for each of the {layers} layers")
        return [k == "sparse" for k in kinds[:layers]]
    listed = text.data.get("moe_layers_enum")
    if listed is not None:
        name = text.prefix + "moe_layers_enum"
        text.consumed.add("moe_layers_enum")
        items = listed.split(",") if isinstance(listed, str) else listed
        if not isinstance(items, list):
            raise ConfigError(f"{name} must be a list of layer numbers, got {_show(listed)}")
        picked = {_integer(int(i) if isinstance(i, str) and i.strip().isdigit() else i, name, 0) for i in items}
        if any(i >= layers for i in picked):
            raise ConfigError(f"{name} names layer {max(picked)}, past the model's {layers} layers")
        return [i in picked for i in range(layers)]
    only = text.data.get("mlp_only_layers")
    text.consumed.add("mlp_only_layers")
    dense = set(only) if isinstance(only, list) and all(isinstance(i, int) for i in only) else set()
    first = text.integer("first_k_dense_replace", "moe_layer_start_index", default=0, minimum=0)
    step = text.integer(
        "interleave_moe_layer_step", "moe_layer_interval", "decoder_sparse_step", "moe_layer_freq", default=1
    )
    return [i >= first and (i + 1) % step == 0 and i not in dense for i in range(layers)]


def _ffn_blocks(text: _Keys, model_type: str, hidden: int) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The dense FFN block (``mlp``) and the MoE block (``moe``) when the config routes to experts."""
    act = text.text("mlp_hidden_act") or text.text("hidden_act") or text.text("hidden_activation") or ""
    gated = act not in ("relu2", "relu_squared")
    mlp_bias = text.flag("mlp_bias")
    bias = model_type == "gpt_oss" if mlp_bias is None else mlp_bias
    ffn_keys = ("intermediate_size", "ffn_dim", "n_inner")
    inter = text.integer(*ffn_keys, default=4 * hidden, to="network.blocks.mlp.intermediate")
    dense = {
        "kind": "dense",
        "intermediate": text.integer("intermediate_size_mlp", *ffn_keys, default=inter),
        "gated": gated,
        "bias": bias,
    }
    experts = text.integer(
        "num_experts",
        "num_local_experts",
        "n_routed_experts",
        "moe_num_experts",
        default=0,
        minimum=0,
        to="network.blocks.moe.experts",
    )
    if not experts:
        return dense, None
    if model_type in _EXPERTS_USE_INTERMEDIATE:
        width = inter
    else:
        width = text.integer("moe_intermediate_size", "expert_intermediate_size", to="network.blocks.moe.intermediate")
    shared_size = text.integer(
        "shared_expert_intermediate_size",
        "moe_shared_expert_intermediate_size",
        "share_expert_dim",
        "shared_intermediate_size",
        default=0,
        minimum=0,
        to="network.blocks.moe.shared_intermediate",
    )
    n_shared = text.integer("n_shared_experts", "num_shared_experts", default=1 if shared_size else 0, minimum=0)
    if model_type.startswith("llama4"):
        n_shared = 1  # Llama 4 has one shared expert of the routed experts' size
    if n_shared and not shared_size:
        shared_size = n_shared * width
    beside = dense["intermediate"] if text.flag("enable_moe_block") else 0
    moe = {
        "kind": "moe",
        "experts": experts,
        "experts_per_token": text.integer(
            "num_experts_per_tok",
            "num_experts_per_token",
            "top_k",
            "top_k_experts",
            "moe_top_k",
            to="network.blocks.moe.experts_per_token",
        ),
        "intermediate": width,
        "gated": gated,
        "bias": bias,
        "shared_experts": n_shared if shared_size else 0,
        "shared_intermediate": shared_size if n_shared else 0,
        "shared_gate": model_type in _SHARED_EXPERT_GATE_TYPES and bool(shared_size),
        # A correction bias beside the router (noaux_tc, Nemotron-H): a checkpoint tensor of one value per expert.
        "router_bias": model_type == "gpt_oss"
        or bool(text.flag("use_moe_router_bias", "use_routing_bias"))
        or model_type == "nemotron_h"
        or text.text("topk_method") == "noaux_tc",
        "dense_beside": beside,
        "latent": text.integer(
            "moe_latent_size", "routed_expert_hidden_size", default=0, minimum=0, to="network.blocks.moe.latent"
        )
        or None,
        "latent_norm": bool(text.flag("latent_moe_use_norm")),
    }
    return dense, moe


def _network(text: _Keys, model_type: str, layers: int, hidden: int, multimodal: bool = False) -> dict[str, Any]:
    """The block list of the text model: blocks by name and a run-length layer schedule."""
    if text.data.get("compress_ratios") is not None:
        return _compressed_network(text, model_type, layers, hidden, multimodal)
    letters, window = _letters_from(text, layers)
    blocks: dict[str, Any] = _attention_blocks(text, model_type, letters, window) if {"f", "s"} & set(letters) else {}
    blocks |= _recurrent_blocks(text, letters)
    dense, moe = _ffn_blocks(text, model_type, hidden)
    softmax = "mla" if "mla" in blocks else "attn"
    names = {"f": softmax, "s": "swa", "l": "gdn", "m": "mamba", "k": "kda"}
    nemotron = any(ch in "ED" for ch in letters) or text.data.get("hybrid_override_pattern") is not None
    specs: list[list[str | None]]
    if nemotron:
        specs = [[names[ch], None] if ch in names else [None, "moe" if ch == "E" else "mlp"] for ch in letters]
        if any(s[1] == "moe" for s in specs) and moe is None:
            raise ConfigError(
                f"{text.prefix}hybrid_override_pattern has MoE layers (E) but the config gives no experts"
            )
    else:
        routed = _moe_layers(text, layers) if moe else [False] * layers
        if moe and moe["dense_beside"]:
            routed = [True] * layers  # Gemma 4: the MoE block runs beside the dense MLP on every layer
        specs = [[names[ch], "moe" if r else "mlp"] for ch, r in zip(letters, routed, strict=True)]
    if moe:
        blocks["moe"] = moe
    blocks["mlp"] = dense
    schedule = runs(tuple((mixer, ffn) for mixer, ffn in specs), _validated_blocks(blocks, text.origin))
    hc = _hyper_connections(text, model_type)
    net: dict[str, Any] = {"blocks": blocks, "layers": [r.model_dump(mode="json") for r in schedule]}
    if hc:
        net["hyper_connections"] = hc
    ngram = _ngram(text, layers)
    if ngram:
        net["ngram"] = ngram
    mtp = _mtp(text, model_type, names, "moe" if moe else "mlp")
    if mtp and not nemotron:
        mtp["layers"] = _mtp_from_schedule(text, layers, len(mtp["layers"]), names, moe is not None) or mtp["layers"]
    if mtp:
        net["mtp"] = mtp
    used = {n for spec in [*specs, *(mtp["layers"] if mtp else [])] for n in spec if n}
    net["blocks"] = {k: v for k, v in blocks.items() if k in used}
    return net


_RATIO_NAMES = {0: "swa", 4: "csa", 128: "hca"}


def _compressed_blocks(
    text: _Keys, ratios: list[int], layers: int, common: dict[str, Any], indexer: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The compressed-attention blocks and each layer's block name (MTP entries past the layers included).

    DeepSeek V4: every layer keeps its own compressed cache; the ratio-4 layers select with an indexer
    (vLLM deepseek_v4.py). DeepSeek V4.1 (``kv_source_layer_ids``): only the KV sources compress, the other
    layers read the nearest source below them; every compressed layer attends to ``index_topk`` selected
    entries, chosen by its own indexer on ``index_source_layer_ids`` and reused by the layers above; index
    keys come from the source's latent; the compressor has no position table (inference/model.py)."""
    if text.data.get("kv_source_layer_ids") is None:
        blocks: dict[str, Any] = {}
        for r in sorted(set(ratios)):
            block = dict(common, ratio=r)
            if r == 4:
                block["indexer"] = indexer
            blocks[_RATIO_NAMES.get(r, f"cmla_{r}")] = block
        return blocks, [_RATIO_NAMES.get(r, f"cmla_{r}") for r in ratios]
    kv_sources = set(_layer_list(text, "kv_source_layer_ids", layers, 0))
    index_sources = set(_layer_list(text, "index_source_layer_ids", layers, 0))
    for key in ("candidate_source_layer_id", "candidate_topk_blocks", "candidate_block_size"):
        text.integer(key, default=0, minimum=0)  # a two-level selection: no weights and no cache of its own
    blocks = {}
    names = []
    for i, r in enumerate(ratios):
        if r == 0:
            block, name = dict(common, ratio=0), "swa"
        else:
            own, selects = i in kv_sources, i in index_sources
            below = [s for s in kv_sources if s <= i]
            if not below or ratios[max(below)] != r:
                raise ConfigError(f"{text.prefix}kv_source_layer_ids: layer {i} (ratio {r}) has no source of its ratio")
            if own and not selects:
                raise ConfigError(f"{text.prefix}index_source_layer_ids: KV source {i} must index its own keys")
            role = "source" if own else "reindex" if selects else "reuse"
            sel = {**indexer, "selection": "own" if selects else "shared"}
            block = dict(common, ratio=r, cache="own" if own else "shared", indexer=sel)
            block |= {"position_bias": False, "index_keys": "latent"}
            name = f"c{r}_{role}"
        blocks[name] = block
        names.append(name)
    return blocks, names


def _compressed_mtp(text: _Keys, names: list[str], layers: int) -> dict[str, Any] | None:
    """DeepSeek V4's MTP layers: the compress_ratios entries past the main layers, with the model's MoE."""
    count = text.integer("num_nextn_predict_layers", default=0, minimum=0)
    if not count:
        return None
    if len(names) < layers + count:
        raise ConfigError(f"{text.prefix}compress_ratios lists no ratio for the {count} MTP layer(s)")
    return {"layers": [[names[layers + j], "moe"] for j in range(count)]}


def _dspark(text: _Keys, common: dict[str, Any], moe: dict[str, Any], blocks: dict[str, Any]) -> dict[str, Any] | None:
    """DeepSeek V4.1's DSpark drafter (stored as mtp.*): draft blocks of window-only attention and a narrower
    MoE of their own (dspark_n_routed_experts, top dspark_num_experts_per_tok), one module. Its projections
    and Markov and confidence heads are counted as one MTP module's projection (2·hidden²), a few hundred
    million short of the release's 14.2B of drafter weights; engines load it only for speculative decoding."""
    count = text.integer("num_nextn_predict_layers", default=0, minimum=0)
    if not count:
        return None
    experts = text.integer("dspark_n_routed_experts", default=moe["experts"], to="network.blocks.dspark_moe.experts")
    top = text.integer("dspark_num_experts_per_tok", default=moe["experts_per_token"])
    for key in ("dspark_block_size", "dspark_noise_token_id", "dspark_markov_rank"):
        text.integer(key, default=0, minimum=0)
    text.consumed.add("dspark_target_layer_ids")
    blocks.setdefault("swa", dict(common, ratio=0))
    blocks["dspark_moe"] = dict(moe, experts=experts, experts_per_token=top)
    return {"layers": [["swa", "dspark_moe"]] * count, "modules": 1}


def _compressed_network(text: _Keys, model_type: str, layers: int, hidden: int, multimodal: bool) -> dict[str, Any]:
    """DeepSeek V4 / V4.1's network: per layer a compressed-attention block of its ``compress_ratios``
    entry (0 window only; V4: 4 with an indexer, 128; V4.1: 1 and 2, with shared caches), MoE everywhere,
    the first ``num_hash_layers`` routed by token hash (no correction bias), mHC streams, Engram tables, and
    the MTP layers (V4: the entries past the main layers; V4.1: the DSpark drafter)."""
    name = text.prefix + "compress_ratios"
    ratios_raw = text.data.get("compress_ratios")
    text.consumed.update({"compress_ratios", "compress_rope_theta"})
    if not isinstance(ratios_raw, list) or len(ratios_raw) < layers:
        raise ConfigError(f"{name} must list a ratio for each of the {layers} layers, got {_show(ratios_raw)}")
    ratios = [_integer(r, name, 0) for r in ratios_raw]
    v41 = text.data.get("kv_source_layer_ids") is not None
    heads = text.integer("num_attention_heads", to="network.blocks.csa.heads")
    if text.integer("num_key_value_heads", default=1) != 1:
        raise ConfigError(
            f"{text.prefix}num_key_value_heads: compressed attention with several KV heads is not sized here"
        )
    common = {
        "kind": "compressed_mla",
        "heads": heads,
        "head_dim": text.integer("head_dim", to="network.blocks.csa.head_dim"),
        "rope_dim": text.integer("qk_rope_head_dim", minimum=0, to="network.blocks.csa.rope_dim"),
        "q_lora_rank": text.integer("q_lora_rank", to="network.blocks.csa.q_lora_rank"),
        "o_lora_rank": text.integer("o_lora_rank", to="network.blocks.csa.o_lora_rank"),
        "o_groups": text.integer("o_groups", to="network.blocks.csa.o_groups"),
        "window": text.integer("sliding_window", to="network.blocks.csa.window"),
        "sinks": True,
    }
    indexer = {
        "heads": text.integer("index_n_heads", to="network.blocks.csa.indexer.heads"),
        "head_dim": text.integer("index_head_dim", to="network.blocks.csa.indexer.head_dim"),
        "top_k": text.integer("index_topk", to="network.blocks.csa.indexer.top_k"),
    }
    blocks, names = _compressed_blocks(text, ratios, layers, common, indexer)
    _, moe = _ffn_blocks(text, model_type, hidden)
    if moe is None:
        raise ConfigError(
            f"{text.prefix}n_routed_experts: a compressed-attention model without experts is not sized here"
        )
    hashed = text.integer("num_hash_layers", default=0, minimum=0)
    # DeepSeek V4.1: image tokens route with a bias of their own (gate.bias_vl) in a multimodal checkpoint.
    moe["vision_router_bias"] = multimodal and v41
    blocks["moe"] = moe
    blocks["moe_hash"] = dict(moe, router_bias=False)  # hash routing: no correction bias
    specs = [(names[i], "moe_hash" if i < hashed else "moe") for i in range(layers)]
    schedule = runs(tuple(specs), _validated_blocks(blocks, text.origin))
    net: dict[str, Any] = {"blocks": blocks, "layers": [r.model_dump(mode="json") for r in schedule]}
    hc = _hyper_connections(text, model_type)
    if hc:
        net["hyper_connections"] = hc
    ngram = _ngram(text, layers)
    if ngram:
        net["ngram"] = ngram
    mtp = _dspark(text, common, moe, blocks) if v41 else _compressed_mtp(text, names, layers)
    if mtp:
        net["mtp"] = mtp
    used = {n for spec in [*specs, *(mtp["layers"] if mtp else [])] for n in spec if n}
    net["blocks"] = {k: v for k, v in blocks.items() if k in used}
    return net


def _mtp(text: _Keys, model_type: str, names: dict[str, str], ffn: str) -> dict[str, Any] | None:
    """The multi-token-prediction layers the checkpoint ships, as layers of the model's own blocks."""
    pattern = text.text("mtp_hybrid_override_pattern")
    count = text.integer("num_nextn_predict_layers", "mtp_num_hidden_layers", "num_mtp_modules", default=0, minimum=0)
    text.integer("mtp_transformer_layers", default=0, minimum=0)
    if not count:
        return None
    if pattern:
        bad = sorted(set(pattern) - set("M*E-"))
        if bad:
            raise ConfigError(f"{text.prefix}mtp_hybrid_override_pattern holds {_show(bad[0])}; expected M, *, E or -")
        unit = [
            [names["m"], None]
            if ch == "M"
            else [names["f"], None]
            if ch == "*"
            else [None, "moe" if ch == "E" else "mlp"]
            for ch in pattern
        ]
        # One module per predicted token, spelled by the pattern (Nemotron 3 Super: "*E", one module).
        return {"layers": unit * count, "own_head": model_type in _MTP_OWN_HEAD_TYPES, "modules": count}
    return {"layers": [[names["f"], ffn]] * count, "own_head": model_type in _MTP_OWN_HEAD_TYPES}


def _validated_blocks(blocks: dict[str, Any], origin: dict[str, str]) -> dict[str, Block]:
    """The blocks as records (an error names the config key a bad value came from)."""
    net = _validated(_BlockSet, {"blocks": blocks}, origin, "network")
    return net.blocks


def _hyper_connections(text: _Keys, model_type: str) -> dict[str, Any] | None:
    """Hyper-connections: Qwen3.8-Flash-Next's gated residual (``hc_count`` streams, ``hc_lowrank``), or
    manifold-constrained ones (``mhc`` with ``hc_mult`` streams), or None."""
    count = text.integer("hc_count", default=0, minimum=0, to="network.hyper_connections.streams")
    if count:
        rank = text.integer("hc_lowrank", to="network.hyper_connections.rank")
        return {"streams": count, "kind": "gated_residual", "rank": rank}
    streams = text.integer("hc_mult", default=0, minimum=0, to="network.hyper_connections.streams")
    if not streams:
        return None
    final = (
        "mean"
        if model_type in _MHC_MEAN_TYPES
        else "head"
        if model_type in _MHC_HEAD_TYPES
        else "none"
        if model_type in _MHC_NONE_TYPES
        else None
    )
    if final is None:
        raise ConfigError(f"{text.prefix}hc_mult: how {model_type} mixes and collapses its streams is not sized here")
    text.integer("hc_sinkhorn_iters", default=0, minimum=0)
    return {"streams": streams, "kind": "mhc", "final": final}


def _mtp_from_schedule(
    text: _Keys, layers: int, count: int, names: dict[str, str], has_moe: bool
) -> list[list[str | None]] | None:
    """MTP layers as the schedule keys spell them past the main layers (Step 3.5's ``layer_types`` and
    ``moe_layers_enum`` cover its MTP layers too), or None when they stop at the main layers."""
    types = text.strings("layer_types")
    if len(types) < layers + count:
        return None
    letters = [next((ch for word, ch in _LAYER_TYPE_LETTERS if word in t), "f") for t in types[layers : layers + count]]
    routed = _moe_layers(text, layers + count)[layers:] if has_moe else [False] * count
    return [[names[ch], "moe" if r else "mlp"] for ch, r in zip(letters, routed, strict=True)]


def _refuse_unread(text: _Keys, top: _Keys) -> None:
    """A ConfigError naming the first size-relevant key the readers did not consume."""
    shared = text.data is top.data  # a config without text_config: both read the same object
    for keys in (text, top):
        consumed = text.consumed | top.consumed if shared else keys.consumed
        for key in SIZE_KEYS:
            value = keys.data.get(key)
            if key in consumed or value in (None, 0, False, [], {}, ""):
                continue
            raise ConfigError(
                f"{keys.prefix}{key} is set ({_show(value)}), and the engine does not size what it describes yet: "
                "refused rather than sized wrong"
            )


def _validated(record: type[_Record], data: dict[str, Any], origin: dict[str, str], section: str = "") -> _Record:
    """``data`` validated as ``record``; a schema error becomes a ConfigError naming the config key."""
    try:
        return record.model_validate(data, strict=False)
    except ValidationError as exc:
        first = exc.errors()[0]
        parts = [str(part) for part in first["loc"]]
        # A block's location carries its kind as the union's tag (blocks.attn.attention.heads): drop it.
        parts = [x for i, x in enumerate(parts) if not (i >= 2 and parts[i - 2] == "blocks" and x in _BLOCK_KINDS)]
        where = ".".join([section, *parts]).strip(".")
        message = first["msg"].removeprefix("Value error, ")
        value = first.get("input")
        got = "" if isinstance(value, dict | list | tuple | BaseModel) else f", got {_show(value)}"
        raise ConfigError(f"invalid {origin.get(where, where or 'config')}: {message}{got}") from None


def _norms_per_layer(text: _Keys, model_type: str) -> int:
    """Hidden-size norm vectors per layer: Gemma's sandwich 4, Nemotron-H's one, Kimi K3's 2 plus its
    attention residuals' two norms and two projections (attn_res_block_size), else 2."""
    if text.integer("attn_res_block_size", default=0, minimum=0):
        return 6
    if text.integer("hc_count", default=0, minimum=0):
        return 0  # Qwen3.8-Flash-Next: the gated residual blocks replace the layer norms
    return 4 if model_type in _FOUR_NORM_TYPES else 1 if model_type == "nemotron_h" else 2


def model_from_config(cfg: dict[str, Any], *, name: str, source: str) -> Model:
    """A Model for the text part of ``cfg``, described as a block list; parameters are derived, never declared.

    Every size-relevant key must be read: a config holding one the readers do not understand is refused
    with the key named (SIZE_KEYS).
    """
    origin: dict[str, str] = {}
    top = _Keys(cfg, "", origin)
    text = _text_part(cfg, origin)
    model_type, origin["architecture.model_type"] = _model_type(text, top)
    layers = text.integer("num_hidden_layers", "n_layer", "num_layers", to="architecture.num_layers")
    hidden = text.integer("hidden_size", "d_model", "n_embd", to="architecture.hidden_size")
    tie = text.flag("tie_word_embeddings")
    if tie is None:
        tie = top.flag("tie_word_embeddings")
    # Checked before anything scales with the layer count: the schema bounds it.
    arch = _validated(
        Architecture,
        {
            "model_type": model_type,
            "num_layers": layers,
            "hidden_size": hidden,
            "vocab_size": text.integer("vocab_size", to="architecture.vocab_size"),
            "max_context": text.integer(
                "max_position_embeddings",
                "max_sequence_length",
                "seq_length",
                "n_positions",
                "max_seq_len",
                default=4096,
                to="architecture.max_context",
            ),
            "tie_word_embeddings": model_type.startswith("gemma") if tie is None else tie,
            "norms_per_layer": _norms_per_layer(text, model_type),
        },
        origin,
        "architecture",
    )
    multimodal = text is not top and isinstance(top.data.get("vision_config"), dict)
    network = _network(text, model_type, arch.num_layers, arch.hidden_size, multimodal)
    _refuse_unread(text, top)
    slug = slugify(name)[:80].strip("-") or "model"
    data: dict[str, Any] = {
        "slug": slug,
        "hf_id": f"local/{slug}",
        "name": name,
        "organization": "unknown",
        "family": model_type,
        "license": "unknown",
        "architecture": arch,
        "network": network,
        "sources": (_STAND_IN_SOURCE,),
    }
    return _validated(Model, data, origin).model_copy(update={"sources": (source,)})


def _read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``, read as UTF-8 and at most MAX_CONFIG_BYTES long.

    Only a regular file is read: the file is opened without blocking and checked before any read,
    so a FIFO (which would wait forever for a writer), a device or a socket is one error.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(f"cannot read {path}: not a regular file (a folder, pipe, device or socket)")
        with os.fdopen(fd, "rb") as f:
            fd = -1
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    finally:
        if fd >= 0:
            os.close(fd)
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
