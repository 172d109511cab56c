"""What a weight format costs in quality, from the sourced measurements of content/quality.yaml.

For a model and a format the site quotes one measurement: one made on that very model when a source
published it; else one on Llama-3-8B, the model llama.cpp's scoreboard measures every GGUF type on (so
the formats compare on one scale); else the largest model measured. Perplexity ratios are preferred to benchmark
recovery (the scoreboard's metric), and a KL divergence on the same model and text goes with them;
without a Llama-3-8B row, the measurement on the largest model (small models lose the most).
A loss (perplexity up by it, or score down by it) maps to a label through the file's ranges. 16-bit
weights are the reference: no loss.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from generator.content.catalog import Catalog
from generator.content.schema import FormatFamily, Model, QualityLabelName, QualityMeasurement, QuantFormat
from generator.site.i18n import NumberFormat, translations
from generator.site.render import N_

# The reference model of llama.cpp's scoreboard (PR #6936): its rows put every GGUF type on one scale.
REFERENCE = "meta-llama/meta-llama-3-8b"
METRIC_ORDER = {"ppl_ratio": 0, "recovery": 1}
# The words of the labels (translated in the catalogs).
LABEL_TEXT: dict[str, str] = {
    "lossless": N_("lossless"),
    "near_lossless": N_("near-lossless"),
    "balanced": N_("balanced"),
    "low_vram": N_("low VRAM"),
    "heavy_loss": N_("heavy loss"),
}


@dataclasses.dataclass(frozen=True)
class Quality:
    """A format's quality for one model: its label and the measurement behind it (None: the reference)."""

    label: QualityLabelName
    measured: QualityMeasurement | None = None
    kld: float | None = None
    on_this_model: bool = False

    @property
    def loss(self) -> float:
        """Perplexity up by it, or score down by it (0 for the 16-bit reference)."""
        return 0.0 if self.measured is None else self.measured.loss or 0.0

    def to_json(self) -> dict[str, Any]:
        """The quality as plain JSON data (pair JSON, finder data)."""
        m = self.measured
        return {
            "label": self.label,
            "loss": round(self.loss, 6),
            "metric": m.metric if m else None,
            "value": m.value if m else None,
            "kld": self.kld,
            "model_ref": m.model_ref if m else None,
            "on_this_model": self.on_this_model,
            "source": m.source if m else None,
            "date": m.date.isoformat() if m else None,
        }


def label_for(catalog: Catalog, loss: float) -> QualityLabelName:
    """The label of the first range that holds ``loss``."""
    for lab in catalog.quality_labels:
        if lab.max_loss is None or loss <= lab.max_loss:
            return lab.name
    return catalog.quality_labels[-1].name


def _pick(rows: list[QualityMeasurement], model: Model) -> tuple[QualityMeasurement | None, bool]:
    """The measurement to quote and whether it was made on ``model`` itself."""
    scored = [r for r in rows if r.loss is not None]
    if not scored:
        return None, False

    def best(candidates: list[QualityMeasurement]) -> QualityMeasurement:
        return min(candidates, key=lambda r: (METRIC_ORDER[r.metric], -r.date.toordinal(), r.model_ref))

    own = [r for r in scored if r.model_ref.lower() == model.hf_id.lower()]
    if own:
        return best(own), True
    reference = [r for r in scored if r.model_ref.lower() == REFERENCE]
    if reference:
        return best(reference), False
    # Otherwise the largest model measured: small models lose the most to quantization, and the catalog's
    # models are mostly larger than any measured one.
    return max(scored, key=lambda r: (_size(r.model_ref), -METRIC_ORDER[r.metric], r.date, r.model_ref)), False


def _size(model_ref: str) -> float:
    """Billions of parameters in a model's name ("Qwen3-0.6B-Base" → 0.6), 0 when it names none."""
    found = re.findall(r"(\d+(?:\.\d+)?)[bB]\b", model_ref)
    return float(found[-1]) if found else 0.0


def quality_of(catalog: Catalog, model: Model, fmt: QuantFormat) -> Quality | None:
    """The quality of ``fmt`` for ``model``; None where no source measured the format."""
    cache: dict[tuple[str, str], Quality | None] = catalog.derived.setdefault("quality", {})
    key = (model.slug, fmt.name)
    if key not in cache:
        cache[key] = _quality(catalog, model, fmt)
    return cache[key]


def _quality(catalog: Catalog, model: Model, fmt: QuantFormat) -> Quality | None:
    if fmt.bits_per_weight >= 16 and fmt.expert_bpw is None and fmt.family is FormatFamily.safetensors:
        return Quality(label_for(catalog, 0.0))  # the release precision is the reference
    rows = [r for r in catalog.quality if r.format == fmt.name]
    chosen, own = _pick(rows, model)
    if chosen is None:
        return None
    kld = next(
        (r.value for r in rows if r.metric == "kld" and r.model_ref == chosen.model_ref and r.source == chosen.source),
        None,
    )
    return Quality(label_for(catalog, chosen.loss or 0.0), chosen, kld, own)


def model_quality(catalog: Catalog, model: Model) -> dict[str, Quality]:
    """Every measured format's quality for ``model``, by format name."""
    out = {}
    for fmt in catalog.formats.values():
        q = quality_of(catalog, model, fmt)
        if q is not None:
            out[fmt.name] = q
    return out


def quality_scale(catalog: Catalog, lang: str) -> list[str]:
    """The labels with their ranges in ``lang`` ("lossless: up to 0.1%", …, "heavy loss: beyond")."""
    tr = translations(lang)
    fmt = NumberFormat(lang)
    out = []
    for lab in catalog.quality_labels:
        word = tr.gettext(LABEL_TEXT[lab.name])
        if lab.max_loss is None:
            out.append(tr.gettext("%(label)s: more") % {"label": word})
        else:
            out.append(tr.gettext("%(label)s: up to %(pct)s") % {"label": word, "pct": fmt.pct(lab.max_loss, 1)})
    return out
