"""One-off migration: rewrite every content/models/*.yaml from the shorthand description (one attention
geometry in `architecture`, an `attention` section with a layer-pattern string, a `moe` section) to the
block list (`network`), the description generator/content/blocks.py defines.

The network written is the one the engine already derived from the shorthand (Model.net), so every
estimate stays the same; MoE models' `extra_layers_not_loaded` becomes their MTP layers. Only the
lines of the three sections change: the rest of each file (sources, notes, comments) is kept as is.

    .venv/bin/python tools/migrate_network.py content
"""

from __future__ import annotations

import sys
from pathlib import Path

from generator.content.blocks import MTP, Network
from generator.content.loader import load_catalog
from generator.content.scaffold import network_lines

SHORTHAND = {
    "intermediate_size",
    "num_attention_heads",
    "num_kv_heads",
    "head_dim",
    "attention_bias",
    "attention_output_bias",
    "qk_norm",
    "attention_output_gate",
    "attention_sinks",
    "mlp_bias",
    "mlp_gated",
}


def _top_level_blocks(lines: list[str]) -> dict[str, tuple[int, int]]:
    """Each top-level key's (first line, line after its body)."""
    starts = [i for i, line in enumerate(lines) if line and not line[0].isspace() and not line.startswith("#")]
    out = {}
    for n, i in enumerate(starts):
        key = lines[i].split(":", 1)[0]
        out[key] = (i, starts[n + 1] if n + 1 < len(starts) else len(lines))
    return out


def migrated(text: str, net: Network) -> str:
    """``text`` with its shorthand sections replaced by ``net``."""
    lines = text.split("\n")
    blocks = _top_level_blocks(lines)
    start, end = blocks["architecture"]
    arch = [
        line for line in lines[start:end] if not (line.startswith("  ") and line.strip().split(":", 1)[0] in SHORTHAND)
    ]
    drop = {i for key in ("attention", "moe") if key in blocks for i in range(*blocks[key])}
    out: list[str] = []
    for i, line in enumerate(lines):
        if i == start:
            out += arch + ["network:", *network_lines(net)]
        elif start < i < end or i in drop:
            continue
        else:
            out.append(line)
    return "\n".join(out)


def main(content: Path) -> int:
    catalog = load_catalog(content, require_calibration=False)
    changed = 0
    for model in catalog.models.values():
        if model.network is not None:
            continue
        net = model.net
        if model.moe is not None and model.moe.extra_layers_not_loaded:
            mixer = next(name for name in ("mla", "attn", *net.blocks) if name in net.blocks)
            unit = (mixer, "moe")
            net = net.model_copy(update={"mtp": MTP(layers=(unit,) * model.moe.extra_layers_not_loaded)})
        path = content / "models" / f"{model.slug}.yaml"
        path.write_text(migrated(path.read_text(encoding="utf-8"), net), encoding="utf-8")
        changed += 1
    print(f"{changed} model files rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "content")))
