"""README badges: "4-bit VRAM | 18.5 GiB · fits RTX 4090" as SVG and as a shields.io endpoint."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from html import escape

from generator.content.schema import HardwareKind
from generator.site.pair_page import PairData

LABEL = "4-bit VRAM"
COLORS = {"comfortable": "#2e7d32", "tight": "#b26a00", "oom": "#9e2a2b"}
SHIELDS_COLORS = {"comfortable": "green", "tight": "orange", "oom": "red"}
# Verdana 11 px averages close to 6.5 px per character; shields.io measures the same way.
CHAR_W = 6.5
PAD = 10


@dataclasses.dataclass(frozen=True)
class Badge:
    """A badge's text and colour, from the model's default estimate across hardware."""

    label: str
    message: str
    verdict: str


def short_name(name: str) -> str:
    """'NVIDIA GeForce RTX 4090' -> 'RTX 4090'; vendor prefixes dropped for a short badge."""
    for prefix in ("NVIDIA GeForce ", "NVIDIA ", "AMD Radeon ", "AMD ", "Apple ", "Intel "):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def _gib(n: int) -> str:
    return f"{n / 1024**3:.1f} GiB"


def badge(pairs: Sequence[PairData]) -> Badge:
    """Total memory of the common 4-bit setup (PairData.standard) and the smallest single GPU it fits on."""
    ran = [(p, p.standard) for p in pairs if p.standard is not None]
    total = ran[0][1].memory.total_bytes
    gpus = [
        (p, est)
        for p, est in ran
        if p.hardware.kind not in (HardwareKind.apple_unified, HardwareKind.unified_apu, HardwareKind.npu)
        and est.memory.verdict != "oom"
    ]
    if gpus:
        smallest, est = min(
            gpus,
            key=lambda r: (
                r[0].hardware.memory_bytes,
                r[0].hardware.price.usd if r[0].hardware.price else 0,
                r[0].hardware.slug,
            ),
        )
        return Badge(LABEL, f"{_gib(total)} · fits {short_name(smallest.hardware.name)}", est.memory.verdict)
    return Badge(LABEL, f"{_gib(total)} · no single GPU", "oom")


def svg(b: Badge) -> str:
    """A flat, valid SVG badge with a <title>, sized from its text."""
    lw = round(len(b.label) * CHAR_W + PAD)
    mw = round(len(b.message) * CHAR_W + PAD)
    w = lw + mw
    # Quotes too (html.escape's default): the title also goes into an attribute.
    title = escape(f"{b.label}: {b.message}", quote=True)
    label = escape(b.label, quote=True)
    message = escape(b.message, quote=True)
    color = COLORS[b.verdict]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="20" role="img" aria-label="{title}">'
        f"<title>{title}</title>"
        f'<rect width="{lw}" height="20" fill="#555"/>'
        f'<rect x="{lw}" width="{mw}" height="20" fill="{color}"/>'
        f'<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">'
        f'<text x="{lw / 2:.1f}" y="14">{label}</text>'
        f'<text x="{lw + mw / 2:.1f}" y="14">{message}</text>'
        f"</g></svg>\n"
    )


def shields(b: Badge) -> dict[str, object]:
    """The shields.io endpoint JSON: schemaVersion, label, message, color and nothing else."""
    return {"schemaVersion": 1, "label": b.label, "message": b.message, "color": SHIELDS_COLORS[b.verdict]}
