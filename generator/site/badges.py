"""README badges: the model page's lead as an SVG and a shields.io endpoint, and variants of it by format,
context and device, each naming its setup (format, context, engine, KV cache) and linking to it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from html import escape

from generator.content.catalog import Catalog
from generator.site import routes
from generator.site.model_page import CARD_KINDS, Lead
from generator.site.pair_page import PairData
from generator.sizing.devices import device_view
from generator.sizing.estimate import Estimate
from generator.sizing.memory import memory
from generator.sizing.scenario import Scenario

COLORS = {"comfortable": "#2e7d32", "tight": "#b26a00", "oom": "#9e2a2b"}
SHIELDS_COLORS = {"comfortable": "green", "tight": "orange", "oom": "red"}
VERDICT_WORDS = {"comfortable": "fits", "tight": "tight", "oom": "does not fit"}
# Verdana 11 px averages close to 6.5 px per character; shields.io measures the same way.
CHAR_W = 6.5
PAD = 10
# The formats and contexts a model page offers badges for beside its lead (those the model has).
BADGE_FORMATS = ("Q8_0", "FP8", "BF16")
BADGE_CONTEXTS = (32768, 131072)


@dataclasses.dataclass(frozen=True)
class Badge:
    """A badge's text and colour; ``title`` says the whole setup it describes."""

    label: str
    message: str
    verdict: str
    title: str


@dataclasses.dataclass(frozen=True)
class Variant:
    """One badge of a model: ``key`` is "" for the lead (``/badges/{model}.svg``), else the name under
    ``/badges/{model}/``: a format (``q8_0``), a context (``ctx-32k``) or a device (``on-rtx-4090``: no file of
    its own, an entry of the model's ``devices.json``); ``link`` where the badge's numbers come from."""

    key: str
    badge: Badge
    # The pair page the numbers come from and the scenario it opens in (None: the model page).
    hardware: str | None = None
    scenario: Mapping[str, object] = dataclasses.field(default_factory=dict)
    # Whether it is one accelerator's badge (``on-{hardware}``), shown on that pair page.
    device: bool = False

    @property
    def shields_color(self) -> str:
        """The badge's colour by shields.io's name."""
        return SHIELDS_COLORS[self.badge.verdict]

    def link(self, lang: str, model: str) -> str:
        """The page, in ``lang``, that the badge links to."""
        if self.hardware is None:
            return routes.page_path("model", lang, model)
        return routes.pair_link(lang, model, self.hardware, self.scenario)


def short_name(name: str) -> str:
    """'NVIDIA GeForce RTX 4090' -> 'RTX 4090'; vendor prefixes dropped for a short badge."""
    for prefix in ("NVIDIA GeForce ", "NVIDIA ", "AMD Radeon ", "AMD ", "Apple ", "Intel "):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def _gib(n: int) -> str:
    return f"{n / 1024**3:.1f} GiB"


def _ctx(n: int) -> str:
    return f"{n // 1024}K" if n % 1024 == 0 else f"{n:,}"


def _setup(sc: Scenario) -> str:
    """The setup a badge assumes, in words: format, context, engine, KV cache."""
    return f"{sc.fmt.name}, {_ctx(sc.context)} context, {sc.engine.label}, KV {sc.kv.name}"


def lead_badge(model_name: str, lead: Lead, est: Estimate) -> Badge:
    """The model page's lead (:func:`model_page.lead`): the memory of its setup and the smallest graphics
    card that holds it, or how many of the reference accelerator it takes. ``est`` is the lead's setup."""
    total = _gib(lead.total_bytes)
    label = f"{lead.fmt} · {_ctx(lead.context)}"
    if lead.card is not None:
        message, verdict = f"{total} · fits {short_name(lead.card.name)}", "comfortable"
    elif lead.reference_devices:
        message, verdict = f"{total} · {lead.reference_devices} × {short_name(lead.reference.name)}", "tight"
    else:
        message, verdict = f"{total} · no single card", "oom"
    return Badge(label, message, verdict, f"{model_name} ({_setup(est.scenario)}): {message}")


# One accelerator's row for a setup: its pair, the setup's scenario there, total bytes, verdict.
Row = tuple[PairData, Scenario, int, str]


def _smallest_card(rows: Sequence[Row]) -> Row | None:
    """The smallest graphics card (then cheapest, then by slug) whose memory holds the setup."""
    cards = [r for r in rows if r[0].hardware.kind in CARD_KINDS and r[3] != "oom"]

    def key(r: Row) -> tuple[int, float, str]:
        price = r[0].hardware.price
        return (r[0].hardware.memory_bytes, price.usd if price else float("inf"), r[0].hardware.slug)

    return min(cards, key=key, default=None)


def _fits_variant(key: str, model_name: str, label: str, rows: Sequence[Row]) -> Variant | None:
    """A setup's memory and the smallest card that holds it, linking to that card's page in the setup; or
    the least memory it takes and "no single card", linking to the model page."""
    if not rows:
        return None
    card = _smallest_card(rows)
    setup = _setup(rows[0][1])
    if card is None:
        message = f"{_gib(min(r[2] for r in rows))} · no single card"
        return Variant(key, Badge(label, message, "oom", f"{model_name} ({setup}): {message}"))
    p, sc, total, verdict = card
    message = f"{_gib(total)} · fits {short_name(p.hardware.name)}"
    badge = Badge(label, message, verdict, f"{model_name} ({setup}): {message}")
    return Variant(key, badge, p.hardware.slug, sc.brief_inputs())


def variants(catalog: Catalog, pairs: Sequence[PairData], lead: Lead) -> Iterator[Variant]:
    """The lead badge, then one per format of BADGE_FORMATS the model's pages size, one per context of
    BADGE_CONTEXTS the model reaches (the lead's setup), and one per accelerator that runs the lead's setup."""
    ran = [(p, p.standard) for p in pairs if p.standard is not None]
    if not ran:
        return
    model = ran[0][0].model
    ref = next((e for p, e in ran if p.hardware.slug == lead.reference.slug), ran[0][1])
    yield Variant("", lead_badge(model.name, lead, ref))
    for name in BADGE_FORMATS:
        rows: list[Row] = [
            (p, r.est.scenario, r.est.memory.total_bytes, r.est.memory.verdict)
            for p in pairs
            for r in p.matrix
            if r.fmt.name == name and r.est is not None
        ]
        label = f"{name} · {_ctx(rows[0][1].context)}" if rows else ""
        if v := _fits_variant(name.lower(), model.name, label, rows):
            yield v
    tight = catalog.assumptions.verdict_tight_fraction
    for context in BADGE_CONTEXTS:
        if context > model.max_context or context == lead.context:
            continue
        rows = []
        for p, e in ran:
            m = memory(model, e.weights, device_view(p.hardware), e.scenario, tight, context=context)
            rows.append((p, e.scenario.with_(context=context), m.total_bytes, m.verdict))
        if v := _fits_variant(f"ctx-{_ctx(context).lower()}", model.name, f"{lead.fmt} · {_ctx(context)}", rows):
            yield v
    for p, e in ran:
        m = e.memory
        speed = f" · {e.speed.decode_tok_s:.0f} tok/s" if m.verdict != "oom" else ""
        # The label is the part a shields.io dynamic badge keeps in its URL: only the accelerator's name.
        label = short_name(p.hardware.name)
        message = (
            f"{e.scenario.fmt.name} · {_ctx(e.scenario.context)} · {_gib(m.total_bytes)} · "
            f"{VERDICT_WORDS[m.verdict]}{speed}"
        )
        title = f"{model.name} on {p.hardware.name} ({_setup(e.scenario)}): {message}"
        badge = Badge(label, message, m.verdict, title)
        yield Variant(f"on-{p.hardware.slug}", badge, p.hardware.slug, e.scenario.brief_inputs(), device=True)


def svg(b: Badge) -> str:
    """A flat, valid SVG badge with a <title> naming its setup, sized from its text."""
    lw = round(len(b.label) * CHAR_W + PAD)
    mw = round(len(b.message) * CHAR_W + PAD)
    w = lw + mw
    # Quotes too (html.escape's default): the title also goes into an attribute.
    title = escape(b.title, quote=True)
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


def entry(b: Badge) -> dict[str, object]:
    """One accelerator's badge in a model's ``devices.json`` (label, message, color), for a shields.io dynamic
    JSON badge that picks it by the accelerator's slug."""
    return {"label": b.label, "message": b.message, "color": SHIELDS_COLORS[b.verdict]}


def shields(b: Badge) -> dict[str, object]:
    """The shields.io endpoint JSON: schemaVersion, label, message, color and nothing else."""
    return {"schemaVersion": 1, **entry(b)}
