"""What a hardware page shows: every model's best fitting format on it, and related accelerators."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from generator.content.catalog import Catalog
from generator.content.schema import Hardware, Model
from generator.site.model_page import RELATED
from generator.site.pair_page import FormatRow, PairData, best_of, quant_matrix


@dataclasses.dataclass(frozen=True)
class HardwareRow:
    """One model on a hardware page: its best fitting format, or no format when nothing fits.

    Plain values only, so a build can keep rows of unchanged models in its manifest.
    """

    model_slug: str
    model_name: str
    quant: str | None = None
    engine: str | None = None
    engine_label: str | None = None
    total_bytes: int | None = None
    verdict: str | None = None
    decode_tok_s: float | None = None
    decode_low: float | None = None
    decode_high: float | None = None
    max_context: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The row as plain JSON data (a build keeps the rows of unchanged models in its manifest)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HardwareRow:
        """A row back from :meth:`to_json`."""
        return cls(**data)

    @classmethod
    def of(cls, pair: PairData) -> HardwareRow:
        """The row a pair contributes to its hardware page."""
        return cls.from_best(pair.model, pair.best)

    @classmethod
    def from_best(cls, model: Model, best: FormatRow | None) -> HardwareRow:
        """The row for a model whose best fitting format is ``best``."""
        if best is None or best.est is None:
            return cls(model.slug, model.name)
        e = best.est
        return cls(
            model.slug,
            model.name,
            best.fmt.name,
            best.engine.name,
            best.engine.label,
            e.memory.total_bytes,
            e.memory.verdict,
            e.speed.decode_tok_s,
            e.speed_range.decode_low,
            e.speed_range.decode_high,
            e.max_context,
        )


def hardware_rows(catalog: Catalog, model: Model) -> list[HardwareRow]:
    """A model's rows for every hardware page, from the quantization matrices alone (no pages rendered)."""
    context = catalog.assumptions.default_context
    return [
        HardwareRow.from_best(model, best_of(quant_matrix(catalog, model, hw, context)))
        for hw in catalog.hardware.values()
    ]


def related_hardware(hw: Hardware, everything: Sequence[Hardware]) -> list[Hardware]:
    """Up to 12 other accelerators of the same kind, nearest in memory first (for a pair page's links)."""
    same = [h for h in everything if h.slug != hw.slug and h.kind is hw.kind]
    return sorted(same, key=lambda h: (abs(h.memory_bytes - hw.memory_bytes), h.slug))[:RELATED]
