"""`new-model`: a model YAML scaffolded from a config.json, with what a person must still fill marked TODO."""

from __future__ import annotations

from typing import Any

import yaml

from generator.content.blocks import Network
from generator.content.schema import Model
from generator.sizing.params import count_params

TODO = "TODO"


def _block(data: dict[str, Any], indent: int = 2) -> str:
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)
    return "".join(" " * indent + line + "\n" for line in text.splitlines())


def _flow(value: object) -> str:
    """``value`` as one line of YAML flow style."""
    return yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10_000).strip()


def network_lines(net: Network) -> list[str]:
    """The block list as YAML lines: one flow mapping per block and per run of the schedule."""
    lines = ["  blocks:"]
    for name, block in net.blocks.items():
        body = {"kind": block.kind, **block.model_dump(mode="json", exclude_defaults=True)}
        lines.append(f"    {name}: {_flow(body)}")
    lines.append("  layers:")
    for run in net.layers:
        lines.append(f"    - {_flow(run.model_dump(mode='json'))}")
    if net.mtp is not None:
        lines.append(f"  mtp: {_flow(net.mtp.model_dump(mode='json', exclude_defaults=True))}")
    hc = net.hyper_connections
    if hc is not None:
        # A gated residual collapses through its own mixer: ``final`` is an mhc setting.
        drop = {"final"} if hc.kind == "gated_residual" else set()
        lines.append(f"  hyper_connections: {_flow(hc.model_dump(mode='json', exclude_none=True, exclude=drop))}")
    if net.ngram is not None:
        lines.append(
            f"  ngram: {_flow(net.ngram.model_dump(mode='json', exclude_defaults=True) | {'kind': net.ngram.kind})}"
        )
    return lines


def scaffold(model: Model, hf_id: str | None, config_source: str) -> str:
    """YAML text for content/models/<slug>.yaml; check-content fails until every TODO is replaced."""
    hf = hf_id or model.hf_id
    slug = model.slug
    derived = count_params(model)
    arch = model.architecture.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    arch = {"model_type": model.architecture.model_type, **arch}
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
    if model.is_moe:
        out += [f"params_active: {TODO}", f"params_active_kind: {TODO}"]
    out += ["architecture:", _block(arch).rstrip("\n")]
    out += ["network:", *network_lines(model.network)]
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
