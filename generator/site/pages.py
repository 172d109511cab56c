"""Every HTML page of the site, in one table: its URL, template, title, breadcrumb, search entry, build
group and the context its template gets. The writer renders from it, the sitemap lists it, the
search index and the incremental build keys read it; nothing else decides which pages exist.

A page belongs to a build group: a model's group (its model page and its pair pages, rendered from
the pairs computed once for that model) or the site group (everything else, rendered from the rows
the model groups hand over). Context builders take the route and the group's data and return the
template's variables; they compute nothing the group has not computed once.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

from babel.lists import format_list

from generator.content.catalog import Catalog
from generator.content.schema import Hardware, Model
from generator.site import badges
from generator.site.accuracy import AccuracyData, accuracy_data
from generator.site.browser_data import encoded, model_asset, model_data
from generator.site.cells import (
    context_cells,
    marked_extrapolated,
    matrix_cells,
    memory_descriptions,
    why_not_standard,
)
from generator.site.charts import price_tick_labels, value_chart
from generator.site.hardware_page import (
    BUDGET_TOK_S,
    CURRENT_DAYS,
    ROW_CONTEXTS,
    HardwareRow,
    budget_rows,
    current_models,
    device_groups,
    memory_groups,
    related_hardware,
    row_data,
    size_groups,
)
from generator.site.i18n import BABEL_LOCALE, NumberFormat, number_spec, translations
from generator.site.model_page import (
    footprint,
    kv_formula,
    kv_rows,
    lead,
    leaderboard,
    leaderboard_controls,
    memory_at,
    model_facts,
    need_table,
    recommended_commands,
    recommended_per_finetune,
    recommended_per_format,
    related_groups,
    related_models,
)
from generator.site.pair_page import PairData, context_steps, pair_data
from generator.site.quality import model_quality, quality_scale
from generator.site.render import render_markdown
from generator.site.routes import LANGS, Route, asset, page_path
from generator.site.setups import PICK_TOK_S, Answer, Pick, common_answers
from generator.sizing.devices import device_view
from generator.sizing.estimate import VISION_PROFILE, engines_for, hosts, served
from generator.sizing.params import count_params
from generator.sizing.scenario import DEFAULT_FORMAT
from generator.sizing.weights import weight_bytes

Group = Literal["model", "site"]
# Accelerators the model page's "fewest devices" table compares, when the catalog has them.
NEED_HARDWARE = ("rtx-4090", "rtx-5090", "rtx-pro-6000-blackwell", "a100-80gb-sxm", "h100-sxm", "h200-sxm", "mi300x")
# The model page's format footprint is computed on this device kind (any datacenter GPU would do).
FOOTPRINT_REFERENCE = "h100-sxm"


@dataclasses.dataclass(frozen=True)
class ModelGroup:
    """What one model's pages are rendered from: its pairs with every accelerator, computed once."""

    catalog: Catalog
    model: Model
    pairs: tuple[PairData, ...]
    recs: tuple[Pick, ...]
    shared: Mapping[str, Any]
    related_hardware: Mapping[str, list[Hardware]]
    related_models: list[Model]
    asset_urls: Mapping[str, str]
    answers: tuple[Answer, ...]
    # The workbench's data for this model's pair pages: (URL, bytes) of a fingerprinted asset.
    asset: tuple[str, bytes]

    @classmethod
    def build(cls, catalog: Catalog, slug: str, asset_urls: Mapping[str, str]) -> ModelGroup:
        """Compute a model's pairs and everything its pages share."""
        model = catalog.models[slug]
        pairs = tuple(pair_data(catalog, model, hw) for hw in hosts(catalog, model))
        reference = catalog.hardware.get(FOOTPRINT_REFERENCE) or next(iter(catalog.hardware.values()))
        paired = [p.hardware.slug for p in pairs]
        need_hw = [h for h in NEED_HARDWARE if h in paired] or paired[:4]
        board = leaderboard(catalog, pairs)
        answers, recs = common_answers(catalog, model)
        hardware = list(catalog.hardware.values())
        data_bytes = encoded(model_asset(catalog, model))
        recommended = recommended_per_format(catalog, pairs)
        ld = lead(pairs, reference.slug, catalog.assumptions.verdict_tight_fraction)
        badge_list = tuple(badges.variants(catalog, pairs, ld))
        return cls(
            catalog=catalog,
            model=model,
            pairs=pairs,
            shared={
                "facts": model_facts(catalog, model),
                "footprint": footprint(catalog, model, reference),
                "kv_rows": kv_rows(catalog, model),
                "lead": ld,
                "kv_formula": kv_formula(model),
                "quality": model_quality(catalog, model),
                "recommended": recommended,
                "recommended_ft": recommended_per_finetune(catalog, pairs),
                "engine_setups": recommended_commands(catalog, model, recommended),
                "related": related_groups(model, list(catalog.models.values())),
                "devices": device_groups(hardware),
                "device_count": len(hardware),
                "leaderboard": board,
                "value_chart": value_chart(
                    [
                        (r.pair.hardware.name, r.price.usd, r.est.speed.decode_tok_s)
                        for r in board
                        if r.price and not r.fix
                    ]
                ),
                "need_hardware": [catalog.hardware[h] for h in need_hw],
                "need_rows": need_table(pairs, need_hw),
                "api_prices": catalog.api_prices_for(slug),
                "badge_text": badge_list[0].badge.title,
                # The lead badge, then its variants by format and context (the model page lists them); the
                # device variants are on each pair page.
                "badges": badge_list,
                "badge_others": [v for v in badge_list[1:] if not v.device],
                # Each accelerator's badge, by its slug (its pair page shows it).
                "device_badges": {v.hardware: v for v in badge_list if v.device},
                "not_run_on": [hw for hw in hardware if not served(catalog, model, hw)],
            },
            related_hardware={hw.slug: related_hardware(hw, hardware) for hw in hardware},
            related_models=related_models(model, list(catalog.models.values())),
            asset_urls=asset_urls,
            answers=answers,
            recs=recs,
            asset=(asset(f"model-{slug}.json", data_bytes), data_bytes),
        )

    def pair(self, hardware: str) -> PairData:
        """The pair of this model with one accelerator."""
        return next(p for p in self.pairs if p.hardware.slug == hardware)

    def rows(self) -> list[HardwareRow]:
        """The row each pair gives its hardware page, in catalog order."""
        return [HardwareRow.of(p, self.catalog) for p in self.pairs]


@dataclasses.dataclass(frozen=True)
class SiteGroup:
    """What the other pages are rendered from: the catalog, every model's row on every accelerator and
    the accuracy tables."""

    catalog: Catalog
    rows: Mapping[str, list[HardwareRow]]  # hardware slug -> one row per model
    accuracy: AccuracyData
    # The current models (hardware_page.current_models): the home page's budget picks and the hardware pages'
    # order.
    current: frozenset[str] = frozenset()

    @classmethod
    def build(cls, catalog: Catalog, rows: Mapping[str, list[HardwareRow]]) -> SiteGroup:
        """The site group's data; the accuracy tables and the current models are computed here, once."""
        return cls(catalog, rows, accuracy_data(catalog), current_models(list(catalog.models.values())))


def _(lang: str, text: str) -> str:
    return translations(lang).gettext(text)


def _home(_route: Route, g: SiteGroup) -> dict[str, Any]:
    hardware = list(g.catalog.hardware.values())
    return {
        "models": list(g.catalog.models.values()),
        "hardware": hardware,
        "memory_groups": memory_groups(hardware),
        "budgets": budget_rows(hardware, g.rows, g.current),
        "current_days": CURRENT_DAYS,
        "budget_tok_s": BUDGET_TOK_S,
        "default_context": g.catalog.assumptions.default_context,
    }


def _models(_route: Route, g: SiteGroup) -> dict[str, Any]:
    fmt = g.catalog.format(DEFAULT_FORMAT)
    rows = []
    for m in g.catalog.models.values():
        params = count_params(m)
        rows.append({"model": m, "params": params, "weights_bytes": weight_bytes(params, fmt).total})
    return {"rows": rows, "wanted": [w for w in g.catalog.wanted if w.kind == "model"]}


def _hardware_index(_route: Route, g: SiteGroup) -> dict[str, Any]:
    return {
        "hardware": list(g.catalog.hardware.values()),
        "wanted": [w for w in g.catalog.wanted if w.kind == "hardware"],
    }


def _methodology(route: Route, g: SiteGroup) -> dict[str, Any]:
    return {"body": render_markdown(g.catalog.page(route.lang, "methodology"))}


def _accuracy_page(_route: Route, g: SiteGroup) -> dict[str, Any]:
    return {"a": g.accuracy}


def _hardware(route: Route, g: SiteGroup) -> dict[str, Any]:
    hw = g.catalog.hardware[route.hardware]
    limit = round(hw.gpu_memory_limit_gib * 1024**3) if hw.gpu_memory_limit_gib else None
    return {
        "hw": hw,
        "groups": size_groups(g.rows[hw.slug], g.current),
        "row_data": row_data(g.rows[hw.slug]),
        "row_contexts": sorted({g.catalog.assumptions.default_context, *ROW_CONTEXTS}),
        "number_spec": number_spec(route.lang),
        "current_days": CURRENT_DAYS,
        "default_context": g.catalog.assumptions.default_context,
        "gpu_limit_bytes": limit,
        "assumptions": g.catalog.assumptions,
        "stale_before": g.catalog.stale_before,
        "device": device_view(hw),
        "offers": g.catalog.offers_for(hw.slug),
        "not_run": [
            (m, listed(engines_for(g.catalog, m), route.lang))
            for m in g.catalog.models.values()
            if not served(g.catalog, m, hw)
        ],
        "implied": g.catalog.calibration.implied_peak(hw.chip) if g.catalog.calibration else None,
    }


def listed(names: list[str], lang: str) -> str:
    """Names joined as ``lang`` lists them ("vLLM and SGLang", "vLLM et SGLang", "vLLM和SGLang")."""
    return format_list(names, locale=BABEL_LOCALE[lang])


def _model(route: Route, g: ModelGroup) -> dict[str, Any]:
    return {
        "model": g.model,
        "model_engines": listed(engines_for(g.catalog, g.model), route.lang),
        "pairs": list(g.pairs),
        "finetune": g.pairs[0].est.finetune,  # the model's alone: the same on every accelerator
        "assumptions": g.catalog.assumptions,
        "recs": g.recs,
        "pick_tok_s": PICK_TOK_S,
        "default_format": DEFAULT_FORMAT,
        "default_context": g.catalog.assumptions.default_context,
        "max_gpus": g.catalog.assumptions.max_gpus,
        "answers": g.answers,
        "finder_steps": list(context_steps(g.model)),
        "quality_scale": quality_scale(g.catalog, route.lang),
        "memory_at": memory_at(g.shared["lead"], route.lang),
        "price_ticks": price_tick_labels(NumberFormat(route.lang)),
        **leaderboard_controls(g.catalog, g.pairs[0].est.scenario.engine, g.pairs[0].est.scenario.kv),
        "finder_engines": [g.catalog.engines[e] for e in ("llama.cpp", "vllm", "mlx") if e in g.catalog.engines],
        "finder_page": {
            "lang": route.lang,
            "model": model_data(g.model),
            "artifacts": g.model.artifacts.model_dump(mode="json"),
            "number_spec": number_spec(route.lang),
            "sizing_url": g.asset_urls["sizing.js"],
            "display_url": g.asset_urls["display.js"],
            "finder_url": g.asset_urls["finder.js"],
            "shared_url": g.asset_urls["sizing-data"],
            "finder_data_url": g.asset_urls["finder-data"],
            "pair_base": page_path("model", route.lang, g.model.slug),
            # Each measured format's quality label for this model, and the labels best first (the
            # finder's quality floor, setups.quality_names).
            "quality": {name: q.label for name, q in g.shared["quality"].items()},
            "quality_order": [lab.name for lab in g.catalog.quality_labels],
        },
        "stale_before": g.catalog.stale_before,
        **g.shared,
    }


# Cloud offers a pair page lists (its hardware page lists them all).
OFFER_ROWS = 3


def _pair(route: Route, g: ModelGroup) -> dict[str, Any]:
    p = g.pair(route.hardware)
    catalog = g.catalog
    sc = p.est.scenario
    # What static/workbench.js needs of this page; everything shared lives in cached assets.
    workbench = {
        "hardware": p.hardware.slug,
        "scenario": sc.brief_inputs(),
        "model_url": g.asset[0],
        # The controls in this language, which name the other files the workbench loads.
        "ui_url": g.asset_urls[f"workbench-ui-{route.lang}"],
        # A multimodal model's warning that follows the engine (estimate.VISION_PROFILE).
        **({"vision_warning": VISION_PROFILE} if p.model.vision else {}),
    }
    return {
        "p": p,
        "assumptions": catalog.assumptions,
        "max_gpus": catalog.assumptions.max_gpus,
        "related_hardware": g.related_hardware[p.hardware.slug],
        "related_models": g.related_models,
        "wb_data": workbench,
        "stale_before": catalog.stale_before,
        "matrix_cells": matrix_cells(p, route.lang, catalog.assumptions.max_gpus, g.shared["quality"]),
        "context_cells": context_cells(p, route.lang),
        # Whether a decode speed the matrix shows is extrapolated (marked with an asterisk).
        "extrapolated_rows": any(r.est and marked_extrapolated(r.est) for r in p.matrix),
        # Whether a card is several devices or a format needs more than one (the matrix then says how
        # the engines use them).
        "several_devices": p.hardware.chips > 1 or any(r.est and r.est.min_gpus != 1 for r in p.matrix),
        # The cheapest offers with what renting the scenario's devices costs a month at the default hours.
        "offer_rows": list(zip(p.offers, p.offer_months, strict=True))[:OFFER_ROWS],
        # Where to rent from each provider; the hardware page links each offer's source.
        "providers": catalog.providers,
        "describe": memory_descriptions(p, route.lang),
        "standard_why": why_not_standard(catalog, p, route.lang),
        # This accelerator's badge (badges.variants), where it runs the model page's setup.
        "badge": g.shared["device_badges"].get(p.hardware.slug),
    }


@dataclasses.dataclass(frozen=True)
class SearchEntry:
    """What the search box knows of a page: its section, slug, name and the other words people type, and
    how often the catalog meets it (``seen``) and when it came out (``released``, ISO date or ""): the
    index lists entries by these, and the box keeps that order among equally good matches."""

    section: Literal["models", "hardware"]
    slug: str
    name: str
    words: tuple[str, ...]
    seen: int = 0
    released: str = ""


@dataclasses.dataclass(frozen=True)
class PageType:
    """One kind of page: where it is, what renders it, what it is called and what it comes under."""

    kind: str
    template: str
    group: Group
    title: Callable[[Route, Catalog], str]
    context: Callable[[Route, Any], dict[str, Any]]
    parent: str | None = None
    # The breadcrumb's label when it differs from the title (a pair is listed under its model by hardware).
    crumb: Callable[[Route, Catalog], str] | None = None
    search: Callable[[Route, Catalog], SearchEntry] | None = None
    per: Literal["site", "model", "hardware", "pair"] = "site"


def _words(catalog: Catalog, *texts: str) -> tuple[str, ...]:
    """``texts`` and the aliases (content/search-aliases.yaml) of every name they contain as whole words:
    "Meta" names meta-llama's models but not MetaX's accelerators."""

    def spaced(text: str) -> str:
        return " " + " ".join("".join(c if c.isalnum() else " " for c in text.lower()).split()) + " "

    found = [
        alias
        for key, names in catalog.search_aliases.items()
        for alias in names
        if any(spaced(key) in spaced(t) for t in texts)
    ]
    return tuple(sorted({*texts, *found}))


def _iso(date: dt.date | str) -> str:
    """A release date as ISO text, "" when unknown."""
    return "" if isinstance(date, str) else date.isoformat()


def _origin(source: str) -> str:
    """Who published a measurement: a repository (``owner/repo:path@commit``) counts once however many of
    its files are cited; a URL is its own origin."""
    return source if "://" in source else source.split(":", 1)[0]


def _model_search(route: Route, catalog: Catalog) -> SearchEntry:
    """A model's entry; ``seen`` counts the API providers that price it and the sources that measured it."""
    m = catalog.models[route.model]
    providers = {p.provider for p in catalog.api_prices if p.model == m.slug}
    measured = {_origin(t.source) for t in catalog.throughput if t.model == m.slug}
    return SearchEntry(
        "models",
        m.slug,
        m.name,
        _words(catalog, m.organization, m.family, m.hf_id),
        seen=len(providers) + len(measured),
        released=_iso(m.release_date),
    )


def _hardware_search(route: Route, catalog: Catalog) -> SearchEntry:
    """An accelerator's entry, with its memory as people write it ("24GB", "24G", French "24Go");
    ``seen`` counts the clouds that rent it and the sources that measured its chip (``same_chip_as``)."""
    h = catalog.hardware[route.hardware]
    memory = h.memory_gb or h.memory_gib
    sizes = () if memory is None else tuple(f"{memory:g}{unit}" for unit in ("GB", "G", "Go"))
    clouds = {o.provider for o in catalog.offers if o.hardware == h.slug}
    chip = {x.slug for x in catalog.hardware.values() if x.chip == h.chip}
    measured = {_origin(t.source) for t in catalog.throughput if t.hardware in chip}
    return SearchEntry(
        "hardware",
        h.slug,
        h.name,
        # The name is matched against the aliases (e.g. "Ryzen AI Max": Strix Halo) but is in the index already.
        tuple(w for w in _words(catalog, h.name, h.vendor, h.kind.value.replace("_", " "), *sizes) if w != h.name),
        seen=len(clouds) + len(measured),
        released=_iso(h.release_date),
    )


PAGE_TYPES: dict[str, PageType] = {
    t.kind: t
    for t in (
        PageType("home", "home.html", "site", lambda _r, _c: "Sizewise", _home),
        PageType("models", "models.html", "site", lambda r, _c: _(r.lang, "Models"), _models, parent="home"),
        PageType(
            "hardware_index",
            "hardware_index.html",
            "site",
            lambda r, _c: _(r.lang, "Hardware"),
            _hardware_index,
            parent="home",
        ),
        PageType(
            "methodology",
            "methodology.html",
            "site",
            lambda r, _c: _(r.lang, "Methodology"),
            _methodology,
            parent="home",
        ),
        PageType(
            "accuracy", "accuracy.html", "site", lambda r, _c: _(r.lang, "Accuracy"), _accuracy_page, parent="home"
        ),
        PageType(
            "hardware",
            "hardware.html",
            "site",
            lambda r, c: c.hardware[r.hardware].name,
            _hardware,
            parent="hardware_index",
            search=_hardware_search,
            per="hardware",
        ),
        PageType(
            "model",
            "model.html",
            "model",
            lambda r, c: c.models[r.model].name,
            _model,
            parent="models",
            search=_model_search,
            per="model",
        ),
        PageType(
            "pair",
            "pair.html",
            "model",
            lambda r, c: f"{c.models[r.model].name} · {c.hardware[r.hardware].name}",
            _pair,
            parent="model",
            crumb=lambda r, c: c.hardware[r.hardware].name,
            per="pair",
        ),
    )
}


def routes(catalog: Catalog, langs: Sequence[str] = LANGS) -> Iterator[Route]:
    """Every HTML page of the site, in a deterministic order: per language, the site's pages, then
    each accelerator, then each model followed by its pairs."""
    for lang in langs:
        for t in PAGE_TYPES.values():
            if t.per == "site":
                yield Route(t.kind, lang)
        for hw in catalog.hardware:
            yield from (Route(t.kind, lang, hardware=hw) for t in PAGE_TYPES.values() if t.per == "hardware")
        for model in catalog.models:
            yield from model_routes(catalog, model, (lang,))


def model_routes(catalog: Catalog, model: str, langs: Sequence[str] = LANGS) -> Iterator[Route]:
    """The pages of one model's build group: its model page and its pair pages."""
    for lang in langs:
        for t in PAGE_TYPES.values():
            if t.per == "model":
                yield Route(t.kind, lang, model=model)
        for hw in hosts(catalog, catalog.models[model]):
            yield from (
                Route(t.kind, lang, model=model, hardware=hw.slug) for t in PAGE_TYPES.values() if t.per == "pair"
            )


def model_groups(catalog: Catalog) -> list[str]:
    """The build groups rendered per model (each renders in one worker), in catalog order."""
    return [m for m in catalog.models if any(t.group == "model" for t in PAGE_TYPES.values())]


def site_routes(catalog: Catalog, langs: Sequence[str] = LANGS) -> Iterator[Route]:
    """The pages of the site group (everything outside the model groups)."""
    return (r for r in routes(catalog, langs) if PAGE_TYPES[r.kind].group == "site")


def title(route: Route, catalog: Catalog) -> str:
    """A page's title (also its breadcrumb label unless its type says otherwise)."""
    return PAGE_TYPES[route.kind].title(route, catalog)


def parent(route: Route) -> Route | None:
    """The page a route comes under in the breadcrumb trail (a pair under its model, …)."""
    kind = PAGE_TYPES[route.kind].parent
    if kind is None:
        return None
    per = PAGE_TYPES[kind].per
    return Route(
        kind,
        route.lang,
        model=route.model if per in ("model", "pair") else "",
        hardware=route.hardware if per in ("hardware", "pair") else "",
    )


def breadcrumbs(route: Route, catalog: Catalog) -> list[tuple[str, str]]:
    """(label, path) from the home page down to ``route``."""
    trail = []
    current: Route | None = route
    while current is not None:
        t = PAGE_TYPES[current.kind]
        label = (t.crumb or t.title)(current, catalog)
        trail.append((label, page_path(current.kind, current.lang, current.model, current.hardware)))
        current = parent(current)
    return trail[::-1]


def search_entries(catalog: Catalog) -> list[SearchEntry]:
    """One entry per searchable page (models and accelerators), from the English routes: the most seen
    first, then the newest, then by name (the order the search box keeps for equally good matches)."""
    entries = []
    for r in routes(catalog, ("en",)):
        search = PAGE_TYPES[r.kind].search
        if search is not None:
            entries.append(search(r, catalog))
    entries.sort(key=lambda e: e.name.lower())
    entries.sort(key=lambda e: (e.seen, e.released), reverse=True)
    return entries


def context(route: Route, group: ModelGroup | SiteGroup) -> dict[str, Any]:
    """The template variables of ``route``'s page from its group's data."""
    return PAGE_TYPES[route.kind].context(route, group)
