"""Where things live: the URL of every page, JSON endpoint and badge (which pages exist: site/pages.py)."""

from __future__ import annotations

import dataclasses
import hashlib
import urllib.parse
from collections.abc import Mapping

# The site's languages, in the order pages list them (the first is the default; i18n formats them).
LANGS = ("en", "fr", "zh")


@dataclasses.dataclass(frozen=True, order=True)
class Route:
    """One HTML page in one language: its kind, the slugs it is about, and its URL path."""

    kind: str
    lang: str
    model: str = ""
    hardware: str = ""

    @property
    def path(self) -> str:
        """The URL path, always ending in / (the file is path + index.html)."""
        return page_path(self.kind, self.lang, self.model, self.hardware)

    @property
    def file(self) -> str:
        """The output file under dist/."""
        return self.path.lstrip("/") + "index.html"

    def in_lang(self, lang: str) -> Route:
        """The same page in another language."""
        return dataclasses.replace(self, lang=lang)


def page_path(kind: str, lang: str, model: str = "", hardware: str = "") -> str:
    """URL path of a page (docs/architecture.md): /{lang}/, /{lang}/models/{model}/{hardware}/, …"""
    if kind == "home":
        return f"/{lang}/"
    if kind == "models":
        return f"/{lang}/models/"
    if kind == "hardware_index":
        return f"/{lang}/hardware/"
    if kind == "model":
        return f"/{lang}/models/{model}/"
    if kind == "hardware":
        return f"/{lang}/hardware/{hardware}/"
    if kind == "pair":
        return f"/{lang}/models/{model}/{hardware}/"
    if kind == "methodology":
        return f"/{lang}/methodology/"
    if kind == "accuracy":
        return f"/{lang}/accuracy/"
    raise ValueError(f"unknown page kind {kind!r}")


def pair_link(lang: str, model: str, hardware: str, scenario: Mapping[str, object] | None = None) -> str:
    """A pair page's path with a scenario in its query (the workbench's keys: quant, engine, kv_dtype,
    context, batch, gpus...), so the page opens in the setup the link describes."""
    path = page_path("pair", lang, model, hardware)
    if not scenario:
        return path
    query = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in scenario.items()}
    return f"{path}?{urllib.parse.urlencode(query)}"


def api_model(model: str) -> str:
    """URL of a model's JSON."""
    return f"/api/v1/models/{model}.json"


def api_setups(model: str) -> str:
    """URL of a model's precomputed finder answers."""
    return f"/api/v1/models/{model}/setups.json"


def api_hardware(hardware: str) -> str:
    """URL of a hardware entry's JSON."""
    return f"/api/v1/hardware/{hardware}.json"


def api_pair(model: str, hardware: str) -> str:
    """URL of a pair's JSON."""
    return f"/api/v1/pairs/{model}/{hardware}.json"


def badge(model: str, ext: str = "svg", variant: str = "") -> str:
    """URL of a model's README badge (svg) or its shields.io endpoint (json): its lead, or a variant of it
    (badges.Variant.key: a format, a context or a device)."""
    return f"/badges/{model}/{variant}.{ext}" if variant else f"/badges/{model}.{ext}"


def shields_dynamic(base_url: str, model: str, hardware: str, label: str, color: str) -> str:
    """A shields.io dynamic JSON badge of one accelerator: its message read at every view from the model's
    ``devices.json`` (so it follows each build), its label and colour those of the URL."""
    query = urllib.parse.urlencode(
        {
            "url": base_url + badge(model, "json", "devices"),
            "query": f"$['{hardware}'].message",
            "label": label,
            "color": color,
        },
        quote_via=urllib.parse.quote,
    )
    return f"https://img.shields.io/badge/dynamic/json?{query}"


def asset(name: str, data: bytes) -> str:
    """``/assets/<stem>.<hash><suffix>``: the URL of content that may be cached forever."""
    stem, dot, suffix = name.rpartition(".")
    return f"/assets/{stem}.{hashlib.sha256(data).hexdigest()[:10]}{dot}{suffix}"
