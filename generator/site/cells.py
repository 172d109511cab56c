"""The cells of a pair page's two large tables, formatted once in Python for one language.

Formatting cell by cell in a template loop costs about three times as much: every dotted name and
call goes through Jinja's runtime. The template loops over these tuples (unpacked into plain
variables) and keeps the markup; the formatters are the template's own (render.environment).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from generator.site.pair_page import PairData
from generator.site.render import environment

# Format, engine, weights, total, decode with its range, verdict badge, fewest devices.
MatrixCells = tuple[str, str, str, str, Markup, Markup, str]
# Context, KV and total (with badge) at 16-bit KV, the same at 8-bit KV.
ContextCells = tuple[str, str, Markup, str, Markup]


def matrix_cells(p: PairData, lang: str, max_gpus: int) -> list[MatrixCells]:
    """One row per format that runs on this accelerator."""
    g: Mapping[str, Any] = environment(lang).globals
    fmt, tok_s_range, badge = g["fmt"], g["tok_s_range"], g["verdict_badge"]
    more = g["_"]("more than %(n)s", n=max_gpus)
    rows = []
    for r in p.matrix:
        e = r.est
        if e is None:
            continue
        m, rg = e.memory, e.speed_range
        rows.append(
            (
                r.fmt.name,
                r.engine.label,
                fmt.bytes(m.weights_bytes),
                fmt.bytes(m.total_bytes),
                tok_s_range(e.speed.decode_tok_s, rg.decode_low, rg.decode_high),
                badge(m.verdict),
                fmt.num(e.min_gpus) if e.min_gpus else more,
            )
        )
    return rows


def context_cells(p: PairData, lang: str) -> list[ContextCells]:
    """One row per context step of the page's scenario."""
    g: Mapping[str, Any] = environment(lang).globals
    fmt, badge = g["fmt"], g["verdict_badge"]
    return [
        (
            fmt.tokens(r.context),
            fmt.bytes(r.kv16_bytes),
            Markup("{} {}").format(fmt.bytes(r.total16_bytes), badge(r.verdict16)),
            fmt.bytes(r.kv8_bytes),
            Markup("{} {}").format(fmt.bytes(r.total8_bytes), badge(r.verdict8)),
        )
        for r in p.contexts
    ]
