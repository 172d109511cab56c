"""A checkpoint's tensors by role, from a published copy of its safetensors index (tensor names and the
total size) or of a shard's header (names, dtypes and shapes), and how they compare with the block list.

``python -m generator tensors FILE --model SLUG --source WHERE`` writes ``content/tensors/<slug>.yaml``;
``check-content`` holds every such summary against the model's network: layers, MTP layers, experts,
the output head, attention biases and q/k norms from the names, and the parameter count from the total
size (an index, at the checkpoint's stated bytes per parameter) or role by role from the shapes (a
header: packed 4-bit tensors count two values a byte, scale tensors count as scales, not parameters).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import Field

from generator.content.blocks import AttentionBlock, MoEBlock
from generator.content.schema import Model, Prose, QuantFormat, Slug, Source
from generator.content.types import Frozen
from generator.sizing.params import ParamCount, count_params
from generator.sizing.weights import body_bpw, weight_bytes

Role = Literal[
    "embedding",
    "output",
    "mixer",
    "dense_ffn",
    "shared_experts",
    "experts",
    "router",
    "small",
    "mtp",
    "vision",
    "scales",
]
# The roles in the order a summary lists them.
ROLES: tuple[Role, ...] = get_args(Role)
# Bytes per element of the safetensors dtypes.
DTYPE_BYTES = {
    "F64": 8,
    "I64": 8,
    "U64": 8,
    "F32": 4,
    "I32": 4,
    "U32": 4,
    "F16": 2,
    "BF16": 2,
    "I16": 2,
    "U16": 2,
    "F8_E4M3": 1,
    "F8_E5M2": 1,
    "F8_E8M0": 1,
    "I8": 1,
    "U8": 1,
    "BOOL": 1,
}
# How far a parameter count read from the checkpoint may be from the block list's (the 0.5%).
TOLERANCE = 0.005

_LAYER = re.compile(r"(?:^|\.)(?:layers|h|blocks)\.(\d+)\.")
_EXPERT = re.compile(r"\.experts\.(\d+)\.")
_SCALE = re.compile(r"(?:_scale|\.scale|_scales|scale_inv|weight_scale_2|input_scale|_amax)$")
_VISION = re.compile(
    r"(?:^|\.)(?:visual|vision_tower|vision_model|vision|multi_modal_projector|mm_projector|aligner)\."
)
_BIAS = re.compile(r"(?:self_attn|attn|attention)\.(?:q_proj|k_proj|v_proj|qkv_proj|query_key_value|c_attn)\.bias$")
_QK_NORM = re.compile(r"(?:self_attn|attn|attention)\.(?:q_norm|k_norm|q_layernorm|k_layernorm)\.weight$")


class RoleCount(Frozen):
    """Tensors of one role, and (from a header) their values."""

    tensors: Annotated[int, Field(ge=0)]
    params: Annotated[int, Field(ge=0)] | None = None


class TensorSummary(Frozen):
    """content/tensors/<slug>.yaml: one checkpoint's tensors by role, and where the copy read came from."""

    model: Slug
    # The published copy (repo + path @ commit, or a URL) and the Hugging Face revision it is of.
    source: Source
    revision: Annotated[str, Field(pattern=r"^([0-9a-f]{40}|unknown)$")] = "unknown"
    kind: Literal["index", "header"]
    total_bytes: Annotated[int, Field(ge=1)]
    # An index's bytes per parameter (BF16: 2) where the whole checkpoint is stored alike; a header gives dtypes.
    bytes_per_param: Annotated[float, Field(gt=0, le=8)] | None = None
    # The catalog format the checkpoint is stored in (BF16; MXFP4 for gpt-oss): its weight bytes for the
    # block list's parameters must equal the checkpoint's total size.
    stored_as: Annotated[str, Field(min_length=1, max_length=40)] | None = None
    tensors: Annotated[int, Field(ge=1)]
    roles: dict[Role, RoleCount]
    layers: Annotated[int, Field(ge=0)]
    mtp_layers: Annotated[int, Field(ge=0)] = 0
    experts: Annotated[int, Field(ge=1)] | None = None
    attention_bias: bool = False
    qk_norm: bool = False
    notes: Prose = ""


# Roles by name, first match wins (HF conventions: Llama, Qwen, Mistral, Gemma, DeepSeek, GLM, gpt-oss).
_NAMED_ROLES: tuple[tuple[Role, re.Pattern[str]], ...] = (
    ("embedding", re.compile(r"(?:^|\.)(?:embed_tokens|wte|tok_embeddings|word_embeddings|embed)\.weight$")),
    ("experts", re.compile(r"\.experts\.")),
    (
        "router",
        re.compile(r"\.(?:mlp|feed_forward|block_sparse_moe|ffn)\.(?:gate|router)\.[a-z_]+$|shared_expert_gate\."),
    ),
    ("shared_experts", re.compile(r"shared_expert")),
    ("small", re.compile(r"(?:\.bias|norm\.weight|norm|A_log|dt_bias|\.D)$")),
    ("dense_ffn", re.compile(r"\.(?:mlp|feed_forward|ffn)\.")),
)


def _role(name: str, layer: int | None, layers: int) -> Role:
    """The role of one tensor name: scales, vision, MTP (an mtp prefix or a layer past the model's),
    the output head (outside the layers), then by name (_NAMED_ROLES), else the mixer's (in a layer)."""
    if _SCALE.search(name):
        return "scales"
    if _VISION.search(name):
        return "vision"
    if name.startswith("mtp.") or ".mtp." in name or (layer is not None and layer >= layers):
        return "mtp"
    if layer is None and re.search(r"(?:^|\.)(?:lm_head|output|head)\.weight$", name):
        return "output"
    role = next((r for r, pattern in _NAMED_ROLES if pattern.search(name)), None)
    return role or ("mixer" if layer is not None else "small")


def summarise(
    data: Mapping[str, Any],
    model: Model,
    source: str,
    revision: str,
    bytes_per_param: float | None,
    stored_as: str | None = None,
) -> TensorSummary:
    """A summary of a safetensors index ({"metadata": {"total_size"}, "weight_map"}) or header
    ({name: {"dtype", "shape", "data_offsets"}, "__metadata__"}) against ``model``'s layer count."""
    layers = model.architecture.num_layers
    if "weight_map" in data:
        kind: Literal["index", "header"] = "index"
        names = list(data["weight_map"])
        total = int(data.get("metadata", {}).get("total_size", 0))
        shapes: dict[str, tuple[str, list[int]]] = {}
    else:
        kind = "header"
        shapes = {k: (v["dtype"], list(v["shape"])) for k, v in data.items() if k != "__metadata__"}
        names = list(shapes)
        total = sum(DTYPE_BYTES[d] * math.prod(s) for d, s in shapes.values())
    scales = {n for n in names if _SCALE.search(n)}
    counts: dict[Role, list[int]] = {}
    layer_ids: set[int] = set()
    mtp_ids: set[int] = set()
    experts = -1
    for name in names:
        m = _LAYER.search(name)
        layer = int(m.group(1)) if m else None
        role = _role(name, layer, layers)
        if layer is not None and role not in ("vision",):
            (mtp_ids if role == "mtp" else layer_ids).add(layer)
        e = _EXPERT.search(name)
        if e and role == "experts":
            experts = max(experts, int(e.group(1)))
        slot = counts.setdefault(role, [0, 0])
        slot[0] += 1
        if name in shapes:
            dtype, shape = shapes[name]
            values = math.prod(shape)
            # A packed 4-bit tensor (bytes with a scale beside it) holds two values a byte.
            stem = name.removesuffix(".weight").removesuffix("_packed")
            packed = dtype in ("U8", "I8") and any(s.startswith(stem) for s in scales)
            slot[1] += values * 2 if packed else values
    return TensorSummary(
        model=model.slug,
        source=source,
        revision=revision,
        kind=kind,
        total_bytes=total,
        bytes_per_param=bytes_per_param if kind == "index" else None,
        stored_as=stored_as,
        tensors=len(names),
        roles={
            r: RoleCount(tensors=c[0], params=c[1] if kind == "header" else None)
            for r, c in sorted(counts.items(), key=lambda kv: ROLES.index(kv[0]))
        },
        layers=len(layer_ids),
        mtp_layers=len(mtp_ids)
        if not any(n.startswith("mtp.") or ".mtp." in n for n in names)
        else max(1, len(mtp_ids)),
        experts=experts + 1 if experts >= 0 else None,
        attention_bias=any(_BIAS.search(n) for n in names),
        qk_norm=any(_QK_NORM.search(n) for n in names),
    )


def checkpoint_params(summary: TensorSummary) -> int | None:
    """The parameters the checkpoint holds: a header's values (scales left out), or an index's total size
    over its bytes per parameter; None when neither is known."""
    if summary.kind == "header":
        return sum(c.params or 0 for r, c in summary.roles.items() if r != "scales")
    if summary.bytes_per_param:
        return round(summary.total_bytes / summary.bytes_per_param)
    return None


def compared(model: Model, summary: TensorSummary, p: ParamCount) -> int:
    """The block list's count of what the checkpoint holds: the text model, with its MTP layers and vision
    encoder where the checkpoint has those tensors."""
    total = p.total
    if summary.mtp_layers:
        total += p.mtp
    if "vision" in summary.roles and model.vision is not None:
        total += model.vision.params
    return total


def mismatches(model: Model, summary: TensorSummary, formats: Mapping[str, QuantFormat] | None = None) -> list[str]:
    """What the checkpoint's tensors say that the model's block list does not (``formats``: the catalog's,
    to hold the total size against the weight bytes of the format it is stored in)."""
    out = []
    net = model.network
    arch = model.architecture
    if summary.layers != arch.num_layers:
        out.append(f"{summary.layers} decoder layers in the checkpoint, {arch.num_layers} in the network")
    mtp = len(net.mtp.layers) if net.mtp else 0
    if bool(summary.mtp_layers) != bool(mtp):
        out.append(f"{summary.mtp_layers} MTP layers in the checkpoint, {mtp} in the network")
    if ("output" in summary.roles) == arch.tie_word_embeddings:
        head = "an output head" if "output" in summary.roles else "no output head"
        out.append(f"the checkpoint has {head}, but tie_word_embeddings is {arch.tie_word_embeddings}")
    moe = [b.experts for b in net.blocks.values() if isinstance(b, MoEBlock)]
    if summary.experts is not None and summary.experts != max(moe, default=0):
        out.append(f"{summary.experts} experts per layer in the checkpoint, {max(moe, default=0)} in the network")
    attention = [b for b in net.blocks.values() if isinstance(b, AttentionBlock)]
    for found, key, flag in (
        (summary.attention_bias, "bias", any(b.bias for b in attention)),
        (summary.qk_norm, "qk_norm", any(b.qk_norm for b in attention)),
    ):
        if attention and found != flag:
            what = "attention biases" if key == "bias" else "q/k norms"
            out.append(f"{what} {'in' if found else 'not in'} the checkpoint, {key} is {flag} in the network")
    return out + _size_mismatches(model, summary, formats)


def _size_mismatches(model: Model, summary: TensorSummary, formats: Mapping[str, QuantFormat] | None) -> list[str]:
    """The checkpoint's parameters (from its size or shapes) and bytes (in its stored format) against the
    block list's, beyond TOLERANCE."""
    out = []
    held = checkpoint_params(summary)
    if held is not None:
        ours = compared(model, summary, count_params(model))
        gap = (ours - held) / held
        if abs(gap) > TOLERANCE:
            out.append(f"the block list counts {ours:,} parameters, the checkpoint holds {held:,} ({gap:+.2%})")
    if summary.stored_as is not None:
        fmt = (formats or {}).get(summary.stored_as)
        if fmt is None:
            out.append(f"stored_as: {summary.stored_as!r} is not a format of formats.yaml")
        else:
            size = stored_bytes(model, summary, fmt)
            gap = (size - summary.total_bytes) / summary.total_bytes
            if abs(gap) > TOLERANCE:
                out.append(
                    f"{fmt.name} weights of the block list take {size:,} bytes, the checkpoint {summary.total_bytes:,} "
                    f"({gap:+.2%})"
                )
    return out


def stored_bytes(model: Model, summary: TensorSummary, fmt: QuantFormat) -> int:
    """Bytes the block list's parameters take in ``fmt``, with the MTP layers and vision encoder (16-bit)
    where the checkpoint has them."""
    p = count_params(model)
    total = weight_bytes(p, fmt).total
    if summary.mtp_layers:
        total += round(p.mtp * body_bpw(fmt) / 8)
    if "vision" in summary.roles and model.vision is not None:
        total += 2 * model.vision.params
    return total
