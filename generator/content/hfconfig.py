"""Turn a Hugging Face ``config.json`` (any model, multimodal included) into a catalog Model."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from generator.content.schema import Model

# Model types whose q/k/v projections carry biases even though config.json does not say so.
_QKV_BIAS_TYPES = {"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"}
_QK_NORM_TYPES = {"qwen3", "qwen3_moe", "qwen3_next", "gemma3", "gemma3_text", "olmo2", "olmoe"}
_FOUR_NORM_TYPES = {"gemma2", "gemma3", "gemma3_text", "olmo2"}
# Types where experts use `intermediate_size` (there is no separate moe_intermediate_size).
_EXPERTS_USE_INTERMEDIATE = {"mixtral", "gpt_oss", "phimoe", "jamba", "llama4_text", "llama4"}


class ConfigError(ValueError):
    """A config.json that cannot be read as a decoder-only LLM; the message says which key."""


def slugify(name: str) -> str:
    """``Qwen2.5-Coder-32B-Instruct`` -> ``qwen2-5-coder-32b-instruct``."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _first(cfg: dict[str, Any], *keys: str, default: Any = None) -> Any:
    for key in keys:
        if cfg.get(key) is not None:
            return cfg[key]
    return default


def _need(cfg: dict[str, Any], *keys: str) -> Any:
    value = _first(cfg, *keys)
    if value is None:
        raise ConfigError(f"config.json has none of {', '.join(keys)}")
    return value


def _pattern(cfg: dict[str, Any], layers: int) -> tuple[str, int | None]:
    """Layer pattern letters and the sliding window, from layer_types / patterns / intervals."""
    window = cfg.get("sliding_window")
    types = cfg.get("layer_types")
    if isinstance(types, list) and types:
        letters = "".join(
            "s" if "sliding" in str(t) else "l" if "linear" in str(t) else "m" if "mamba" in str(t) else "f"
            for t in types
        )
        return letters, window if "s" in letters else None
    if cfg.get("full_attention_interval") and cfg.get("linear_num_value_heads"):
        n = int(cfg["full_attention_interval"])
        return "l" * (n - 1) + "f", None
    if cfg.get("attention_chunk_size") and cfg.get("no_rope_layers"):
        # Llama 4: chunked local attention on the RoPE layers (no_rope_layers[i] == 1), global on the rest;
        # memory-wise a chunk behaves like a sliding window of its size.
        letters = "".join("s" if flag else "f" for flag in cfg["no_rope_layers"])
        return letters, int(cfg["attention_chunk_size"])
    if cfg.get("sliding_window_pattern") and window:
        n = int(cfg["sliding_window_pattern"])
        return "s" * (n - 1) + "f", window
    # A plain `sliding_window` on every layer (Mistral 7B v0.1) is ignored by llama.cpp and Ollama;
    # counting it as full attention is the safe side.
    return "f", None


def model_from_config(cfg: dict[str, Any], *, name: str, source: str) -> Model:
    """A Model for the text part of ``cfg``; parameters are derived, never declared."""
    text = cfg.get("text_config") or cfg.get("llm_config") or cfg
    model_type = str(text.get("model_type") or cfg.get("model_type") or "unknown")
    layers = int(_need(text, "num_hidden_layers", "n_layer", "num_layers"))
    hidden = int(_need(text, "hidden_size", "d_model", "n_embd"))
    heads = int(_need(text, "num_attention_heads", "n_head"))
    kv_heads = int(_first(text, "num_key_value_heads", "num_kv_heads", default=heads))
    head_dim = int(_first(text, "head_dim", default=hidden // heads))
    pattern, window = _pattern(text, layers)
    attention: dict[str, Any] = {"layer_pattern": pattern}
    if window:
        attention["sliding_window"] = int(window)
    if text.get("kv_lora_rank"):
        attention["mla"] = {
            "kv_lora_rank": int(text["kv_lora_rank"]),
            "qk_rope_head_dim": int(text["qk_rope_head_dim"]),
            "qk_nope_head_dim": int(text["qk_nope_head_dim"]),
            "v_head_dim": int(text["v_head_dim"]),
            "q_lora_rank": int(text["q_lora_rank"]) if text.get("q_lora_rank") else None,
        }
        head_dim = int(text["qk_nope_head_dim"]) + int(text["qk_rope_head_dim"])
    if "l" in pattern:
        attention["linear"] = {
            "num_key_heads": int(text["linear_num_key_heads"]),
            "key_head_dim": int(text["linear_key_head_dim"]),
            "num_value_heads": int(text["linear_num_value_heads"]),
            "value_head_dim": int(text["linear_value_head_dim"]),
            "conv_kernel": int(text.get("linear_conv_kernel_dim", 4)),
        }
    inter = int(_first(text, "intermediate_size", "ffn_dim", "n_inner", default=4 * hidden))
    dense_inter = int(_first(text, "intermediate_size_mlp", default=inter))
    experts = _first(text, "num_experts", "num_local_experts", "n_routed_experts")
    moe: dict[str, Any] | None = None
    if experts:
        shared_size = int(_first(text, "shared_expert_intermediate_size", default=0))
        n_shared = int(_first(text, "n_shared_experts", default=1 if shared_size else 0))
        expert_size = int(inter if model_type in _EXPERTS_USE_INTERMEDIATE else _need(text, "moe_intermediate_size"))
        if model_type.startswith("llama4"):
            n_shared = 1  # Llama 4 has one shared expert of the routed experts' size
        if n_shared and not shared_size:
            shared_size = n_shared * expert_size
        moe = {
            "num_experts": int(experts),
            "experts_per_token": int(_need(text, "num_experts_per_tok", "num_experts_per_token", "top_k")),
            "expert_intermediate_size": expert_size,
            "shared_experts": n_shared,
            "shared_expert_intermediate_size": shared_size,
            "first_dense_layers": int(_first(text, "first_k_dense_replace", "moe_layer_start_index", default=0)),
            "layer_interval": int(_first(text, "interleave_moe_layer_step", "moe_layer_interval", default=1)),
            "router_bias": model_type == "gpt_oss",
            "shared_expert_gate": model_type in ("qwen2_moe", "qwen3_next"),
            "extra_layers_not_loaded": int(_first(text, "num_nextn_predict_layers", default=0)),
        }
    tie = _first(text, "tie_word_embeddings", default=cfg.get("tie_word_embeddings"))
    if tie is None:
        tie = model_type.startswith("gemma")
    architecture = {
        "model_type": model_type,
        "num_layers": layers,
        "hidden_size": hidden,
        "intermediate_size": dense_inter,
        "num_attention_heads": heads,
        "num_kv_heads": kv_heads,
        "head_dim": head_dim,
        "vocab_size": int(_need(text, "vocab_size")),
        "max_context": int(
            _first(text, "max_position_embeddings", "max_sequence_length", "seq_length", "n_positions", default=4096)
        ),
        "tie_word_embeddings": bool(tie),
        "attention_bias": bool(_first(text, "attention_bias", "qkv_bias", default=model_type in _QKV_BIAS_TYPES)),
        "attention_output_bias": model_type == "gpt_oss",
        "qk_norm": model_type in _QK_NORM_TYPES,
        "attention_output_gate": model_type == "qwen3_next",
        "attention_sinks": model_type == "gpt_oss",
        "norms_per_layer": 4 if model_type in _FOUR_NORM_TYPES else 2,
        "mlp_bias": bool(_first(text, "mlp_bias", default=model_type == "gpt_oss")),
    }
    data: dict[str, Any] = {
        "slug": slugify(name) or "model",
        "hf_id": f"local/{slugify(name) or 'model'}",
        "name": name,
        "organization": "unknown",
        "family": model_type,
        "license": "unknown",
        "architecture": architecture,
        "attention": attention,
        "sources": (source,),
    }
    if moe:
        data["moe"] = moe
    try:
        return Model.model_validate(data, strict=False)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"config.json gives an invalid {where}: {first['msg']}") from None


def load_config(path: Path) -> Model:
    """Read ``path`` (a config.json) into a Model named after its folder or _name_or_path."""
    try:
        cfg = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    if not isinstance(cfg, dict):
        raise ConfigError(f"{path}: expected a JSON object")
    raw_name = cfg.get("_name_or_path") or path.resolve().parent.name or path.stem
    name = str(raw_name).rstrip("/").split("/")[-1]
    try:
        return model_from_config(cfg, name=name, source=str(path))
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: unexpected config.json layout ({exc})") from None
