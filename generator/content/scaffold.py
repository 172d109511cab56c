"""`new-model`: a model YAML scaffolded from a config.json, with what a person must still fill marked TODO."""

from __future__ import annotations

from typing import Any

import yaml

from generator.content.schema import Model
from generator.sizing.params import count_params

TODO = "TODO"


def _block(data: dict[str, Any], indent: int = 2) -> str:
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)
    return "".join(" " * indent + line + "\n" for line in text.splitlines())


def scaffold(model: Model, hf_id: str | None, config_source: str) -> str:
    """YAML text for content/models/<slug>.yaml; check-content fails until every TODO is replaced."""
    hf = hf_id or model.hf_id
    slug = model.slug
    derived = count_params(model)
    arch = model.architecture.model_dump(mode="json")
    attention = model.attention.model_dump(mode="json", exclude_defaults=True)
    moe = model.moe.model_dump(mode="json") if model.moe else None
    source = f"https://huggingface.co/{hf}/blob/main/config.json" if hf_id else config_source
    out = [
        f"# Scaffolded by `python -m generator new-model` from {config_source}.",
        "# Replace each marked value with a sourced one (or remove the key), and check the architecture flags",
        "# that config.json does not state (attention_bias, qk_norm, norms_per_layer, mlp_bias...).",
        f"slug: {slug}",
        f"hf_id: {hf}",
        f"name: {hf.split('/')[-1]}",
        f"organization: {TODO}",
        f"family: {TODO}",
        f"license: {TODO}",
        f"release_date: unknown  # {TODO}: YYYY-MM-DD from the model card or release post",
        f"# derived from the architecture: {derived.total:,} parameters ({derived.active:,} active)",
        f"params_total: {TODO}  # the safetensors total (kind exact) or the card's figure (kind published)",
        f"params_total_kind: {TODO}",
    ]
    if model.moe:
        out += [f"params_active: {TODO}", f"params_active_kind: {TODO}"]
    out += ["architecture:", _block(arch).rstrip("\n")]
    if attention:
        out += ["attention:", _block(attention).rstrip("\n")]
    if moe:
        out += ["moe:", _block(moe).rstrip("\n")]
    out += [
        "artifacts:  # only repos and tags that exist",
        "  gguf: []",
        "  awq: []",
        "  fp8: []",
        "  mlx: []",
        "sources:",
        f"  - {source}",
        f"  - {TODO}  # model card (licence, release date, parameter count)",
    ]
    return "\n".join(out) + "\n"
