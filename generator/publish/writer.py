"""Build dist/: plan every output, compute each pair once, render in parallel, swap the folder in atomically.

Phase 1 runs per model in worker processes: the model's pairs are computed once and give its pair
pages (three languages), pair JSON, model pages, model JSON and badge. Phase 2 runs in the main
process on the small per-hardware rows phase 1 returns: hardware pages and JSON, indexes, the
methodology, sitemaps, robots.txt, _headers and the fingerprinted assets. Every path is checked
for duplicates before anything is written, and everything lands in a temporary sibling of
``dist/`` that replaces it with two renames.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from generator.content.catalog import Catalog
from generator.content.loader import read_plain
from generator.publish import hosts, incremental, link, outdir, stamp
from generator.publish.progress import Progress
from generator.site import api, badges, csp, pages, routes, sitemap
from generator.site.browser_data import WORKBENCH_LIMITS, encoded, finder_data, shared_data
from generator.site.cells import describe_templates, reason_templates
from generator.site.hardware_page import HardwareRow, device_groups, hardware_rows
from generator.site.i18n import number_spec, translations
from generator.site.pages import ModelGroup, SiteGroup
from generator.site.render import minify, render
from generator.site.routes import LANGS, Route
from generator.sizing.estimate import SIZING_VERSION

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "static"
# The files of static/ that pages load (templates by ``assets['name']``, the entry modules and page
# contexts by name, modules by import): only these are published, so nothing else put in static/
# (notes, an editor's backup, a secret) ever reaches the site. A test keeps the list and the folder equal.
STATIC_FILES = (
    "copy.js",
    "display.js",
    "favicon.svg",
    "finder-page.js",
    "finder.js",
    "hardware-page.js",
    "home.js",
    "leaderboard.js",
    "picker.js",
    "search.js",
    "site.css",
    "sizing.js",
    "workbench.js",
)

Output = tuple[str, bytes]
Written = list[tuple[str, int, str]]


@dataclasses.dataclass(frozen=True)
class Settings:
    """What every page needs besides its own data."""

    base_url: str
    assets: dict[str, str]
    content: Path
    root: Path
    langs: tuple[str, ...] = LANGS
    # Golden fixtures are kept readable; the published site is minified.
    minify: bool = True


def dump(data: Any, compact: bool = True) -> bytes:
    """Canonical JSON: sorted keys, UTF-8, trailing newline. As published it is compact (browsers and
    ``jq`` indent it for reading) and floats keep 6 significant digits, far finer than any estimate's
    accuracy; the readable golden fixtures keep a two-space indent and every digit."""
    if compact:
        text = json.dumps(_rounded(data), sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    else:
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, allow_nan=False, indent=2)
    return (text + "\n").encode()


def _rounded(data: Any) -> Any:
    """``data`` with every float rounded to 6 significant digits."""
    if isinstance(data, float):
        return float(f"{data:.6g}")
    if isinstance(data, dict):
        return {k: _rounded(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_rounded(v) for v in data]
    return data


def fingerprint(name: str, data: bytes) -> tuple[str, bytes]:
    """``/assets/<stem>.<hash><suffix>`` for content that may be cached forever."""
    return routes.asset(name, data), data


def assets(catalog: Catalog) -> dict[str, tuple[str, bytes]]:
    """Static files and the search index, with content-hashed names: logical name -> (URL, bytes)."""
    out = {name: fingerprint(name, read_plain(STATIC / name, STATIC)) for name in STATIC_FILES}
    out["search-index"] = fingerprint("search-index.json", search_index(catalog))
    out["sizing-data"] = fingerprint("sizing-data.json", encoded(shared_data(catalog)))
    out["finder-data"] = fingerprint("finder-data.json", encoded(finder_data(catalog)))
    urls = {
        "sizing_url": out["sizing.js"][0],
        "display_url": out["display.js"][0],
        "shared_url": out["sizing-data"][0],
        "finder_data_url": out["finder-data"][0],
    }
    for lang in LANGS:
        out[f"workbench-ui-{lang}"] = fingerprint(f"workbench-ui-{lang}.html", workbench_ui(catalog, lang, urls))
        out[f"search-{lang}"] = fingerprint(f"search-{lang}.js", search_entry(lang, out))
        out[f"pair-{lang}"] = fingerprint(f"pair-{lang}.js", pair_entry(lang, out))
    return out


def pair_entry(lang: str, out: dict[str, tuple[str, bytes]]) -> bytes:
    """A pair page's one module: the search box in its language, the workbench and the copy buttons, in
    the order the page used to load them as three module scripts."""
    names = (f"search-{lang}", "workbench.js", "copy.js")
    return "".join(f'import "./{out[n][0].rsplit("/", 1)[1]}";\n' for n in names).encode()


def search_entry(lang: str, out: dict[str, tuple[str, bytes]]) -> bytes:
    """The search box's module for one language: it starts static/search.js with the index URL and the
    box's words, which would otherwise be attributes of every page."""
    _ = translations(lang).gettext
    words = {
        "index": out["search-index"][0],
        "lang": lang,
        "label": _("Search models and hardware"),
        "placeholder": _("Search: qwen 32b 4090"),
        "results": _("Search results"),
        "none": _("No results"),
    }
    module = out["search.js"][0].rsplit("/", 1)[1]
    return f'import {{ start }} from "./{module}";\nstart({json.dumps(words, ensure_ascii=False)});\n'.encode()


def workbench_ui(catalog: Catalog, lang: str, urls: dict[str, str]) -> bytes:
    """The workbench's controls, messages and the URLs of what it loads, in one language: the same on
    every pair page, so they are one cached file that static/workbench.js inserts rather than 7 KB of
    every page."""
    html = render(
        "_workbench.html",
        lang,
        formats=list(catalog.formats.values()),
        engines=list(catalog.engines.values()),
        kv_dtypes=list(catalog.kv_dtypes.values()),
        max_gpus=catalog.assumptions.max_gpus,
        limits=WORKBENCH_LIMITS,
        device_groups=device_groups(list(catalog.hardware.values())),
        hours_per_day=catalog.assumptions.hours_per_day,
        usd_per_kwh=catalog.assumptions.electricity_usd_per_kwh,
        number_spec=number_spec(lang),
        asset_urls=urls,
        describe=describe_templates(lang),
        reasons=reason_templates(lang),
    )
    return minify(html).encode()


def search_index(catalog: Catalog) -> bytes:
    """Compact index for the search box: slug, name and the words people type, for every searchable page,
    most seen first (static/search.js keeps that order among equal matches), and the box's "No results"
    in every language."""
    data: dict[str, Any] = {"models": [], "hardware": []}
    for e in pages.search_entries(catalog):
        data[e.section].append({"s": e.slug, "n": e.name, "a": list(e.words)})
    data["none"] = {lang: translations(lang).gettext("No results") for lang in LANGS}
    return encoded(data)


def jsonld(breadcrumbs: list[tuple[str, str]], settings: Settings) -> dict[str, Any]:
    """schema.org BreadcrumbList of a page (its title, description and URL are in the head already)."""
    return {
        "@context": "https://schema.org",
        "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": i + 1, "name": name, "item": settings.base_url + href}
            for i, (name, href) in enumerate(breadcrumbs)
        ],
    }


def published(html: str, settings: Settings) -> bytes:
    """A rendered page as it is written: minified, except for the readable golden fixtures."""
    return (minify(html) if settings.minify else html).encode()


def render_page(route: Route, group: ModelGroup | SiteGroup, settings: Settings) -> Output:
    """Render one HTML page from the page table: its template, title, breadcrumbs and context."""
    catalog = group.catalog
    crumbs = pages.breadcrumbs(route, catalog)
    html = render(
        pages.PAGE_TYPES[route.kind].template,
        route.lang,
        route=route,
        base_url=settings.base_url,
        assets=settings.assets,
        # The language links name only the languages this build writes (a --locale build has one).
        langs=settings.langs,
        breadcrumbs=crumbs,
        # Pair pages are most of the site: their breadcrumb is in the markup and the URL alone.
        jsonld=None if route.kind == "pair" else jsonld(crumbs, settings),
        engine_version=SIZING_VERSION,
        **pages.context(route, group),
    )
    return route.file, published(html, settings)


def model_outputs(catalog: Catalog, slug: str, settings: Settings) -> tuple[list[Output], list[HardwareRow]]:
    """Everything of one model's build group, and the rows its pairs contribute to hardware pages."""
    group = ModelGroup.build(catalog, slug, settings.assets)
    out: list[Output] = [(group.asset[0].lstrip("/"), group.asset[1])]
    for p in group.pairs:
        out.append(
            (
                routes.api_pair(slug, p.hardware.slug).lstrip("/"),
                dump(api.pair_json(p, group.shared["quality"]).model_dump(mode="json"), settings.minify),
            )
        )
    out.append(
        (
            routes.api_model(slug).lstrip("/"),
            dump(
                api.model_json(catalog, list(group.pairs), group.shared["quality"]).model_dump(mode="json"),
                settings.minify,
            ),
        )
    )
    out.append(
        (
            routes.api_setups(slug).lstrip("/"),
            dump(api.setups_json(slug, group.answers).model_dump(mode="json"), settings.minify),
        )
    )
    # The lead and its format and context variants as an SVG and a shields.io endpoint each; the device variants
    # as one file per model that a shields.io dynamic badge reads its entry from (no file per pair).
    devices = {}
    for v in group.shared["badges"]:
        if v.device and v.hardware:
            devices[v.hardware] = badges.entry(v.badge)
        else:
            out.append((routes.badge(slug, "svg", v.key).lstrip("/"), badges.svg(v.badge).encode()))
            out.append((routes.badge(slug, "json", v.key).lstrip("/"), dump(badges.shields(v.badge), settings.minify)))
    out.append((routes.badge(slug, "json", "devices").lstrip("/"), dump(devices, settings.minify)))
    out += [render_page(route, group, settings) for route in pages.model_routes(catalog, slug, settings.langs)]
    return out, group.rows()


def site_outputs(catalog: Catalog, settings: Settings, rows: dict[str, list[HardwareRow]]) -> Iterator[Output]:
    """The site group's pages, hardware JSON, the API index and schemas, the root and 404 pages."""
    group = SiteGroup.build(catalog, rows)
    for route in pages.site_routes(catalog, settings.langs):
        yield render_page(route, group, settings)
    for hw in catalog.hardware.values():
        yield (
            routes.api_hardware(hw.slug).lstrip("/"),
            dump(api.hardware_json(catalog, hw, rows[hw.slug]).model_dump(mode="json"), settings.minify),
        )
    yield "api/v1/index.json", dump(api.index_json(catalog).model_dump(mode="json"), settings.minify)
    for name, schema in api.SCHEMAS.items():
        yield f"api/v1/schema/{name}.json", dump(schema.model_json_schema(), settings.minify)
    for name, template in (("index.html", "root.html"), ("404.html", "404.html")):
        html = render(template, "en", base_url=settings.base_url, assets=settings.assets, langs=settings.langs)
        yield name, published(html, settings)


def headers_file() -> bytes:
    """``_headers`` (Netlify / Cloudflare Pages syntax): caching, CORS and the security policy.

    Pages run only our own scripts (no inline script at all), fetch only from our origin and may not
    be framed. Badges are embedded cross-origin as images: they run nothing, load nothing, and are
    sandboxed when opened directly.
    """
    page_csp = csp.header_policy()
    badge_csp = "default-src 'none'; script-src 'none'; sandbox"
    rules = [
        (
            "/*",
            [
                ("Content-Security-Policy", page_csp),
                ("X-Content-Type-Options", "nosniff"),
                ("Referrer-Policy", "strict-origin-when-cross-origin"),
                ("X-Frame-Options", "DENY"),
                ("Cross-Origin-Opener-Policy", "same-origin"),
            ],
        ),
        ("/assets/*", [("Cache-Control", "public, max-age=31536000, immutable")]),
        (
            "/badges/*",
            [
                ("Content-Security-Policy", badge_csp),
                ("Cache-Control", "no-cache"),
                ("Access-Control-Allow-Origin", "*"),
            ],
        ),
        ("/api/*", [("Access-Control-Allow-Origin", "*")]),
    ]
    lines = []
    for pattern, headers in rules:
        lines.append(pattern)
        lines += [f"  {name}: {value}" for name, value in headers]
    return ("\n".join(lines) + "\n").encode()


def static_outputs(asset_files: dict[str, tuple[str, bytes]]) -> Iterator[Output]:
    """Fingerprinted assets, robots.txt and _headers."""
    for url, data in asset_files.values():
        yield url.lstrip("/"), data
    yield "_headers", headers_file()


_catalog: Catalog | None = None
_settings: Settings | None = None


def _init(catalog: Catalog, settings: Settings, parent: int) -> None:
    global _catalog, _settings
    link.die_with_parent(parent)
    # A worker is stopped by the parent (terminate) or by its death; a Ctrl-C goes to the parent alone.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _catalog = catalog
    _settings = settings


def model_written(catalog: Catalog, slug: str, settings: Settings) -> tuple[str, Written, list[HardwareRow]]:
    """Render one model's outputs and write them (in the worker: no page crosses a process boundary)."""
    outputs, rows = model_outputs(catalog, slug, settings)
    return slug, write_files(outputs, settings.root), rows


def _work(slug: str) -> tuple[str, Written, list[HardwareRow]]:
    assert _catalog is not None and _settings is not None
    return model_written(_catalog, slug, _settings)


def per_model(
    catalog: Catalog, slugs: list[str], settings: Settings, jobs: int
) -> Iterator[tuple[str, Written, list[HardwareRow]]]:
    """Phase 1 for ``slugs``, in order, from worker processes when there is more than one job.

    On any error (or an interrupt) the workers are killed before it propagates, so none keeps
    writing into a tree that is being removed.
    """
    if jobs <= 1 or len(slugs) <= 1:
        for slug in slugs:
            yield model_written(catalog, slug, settings)
        return
    ctx = multiprocessing.get_context("fork")
    pool = ctx.Pool(min(jobs, len(slugs)), initializer=_init, initargs=(catalog, settings, os.getpid()))
    try:
        yield from pool.imap(_work, slugs)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def write_files(outputs: Iterable[Output], root: Path) -> Written:
    """Write outputs under ``root`` (each worker writes its own); returns (path, size, sha256) of each."""
    written = []
    for rel, data in outputs:
        if rel.startswith("/") or ".." in Path(rel).parts:
            raise RuntimeError(f"output path leaves dist/: {rel}")
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append((rel, len(data), hashlib.sha256(data).hexdigest()))
    return written


@dataclasses.dataclass
class Plan:
    """What this build renders and what it links from the previous dist/."""

    models: list[str]
    reuse: list[str]
    site: bool
    keys: incremental.Keys
    previous: incremental.Manifest
    old_dist: Path


def _render_models(
    catalog: Catalog,
    settings: Settings,
    jobs: int,
    plan: Plan,
    new: incremental.Manifest,
    rows: dict[str, list[HardwareRow]],
    progress: Progress,
) -> Written:
    """Render and write the models of ``plan``; record their files and rows in ``new`` and ``rows``."""
    written: Written = []
    if plan.models:
        progress.start("models", len(plan.models))
    for slug, model_written, model_rows in per_model(catalog, plan.models, settings, jobs):
        written += model_written
        rows[slug] = model_rows
        new.models[slug] = {
            "key": plan.keys.models[slug],
            "files": {r: h for r, _, h in model_written},
            "rows": [r.to_json() for r in model_rows],
        }
        progress.step(sum(rel.endswith(".html") for rel, _, _ in model_written))
    progress.end()
    return written


def _reusable(
    catalog: Catalog, keys: incremental.Keys, previous: incremental.Manifest, bad: set[str]
) -> tuple[list[str], bool]:
    """What the previous build lends this one: (the models whose files are reused, whether the site
    group's are). A group is reused when its key is the same, its rows read back, and none of its files
    is in ``bad`` (changed in dist/ since that build wrote it)."""
    reuse = [
        s
        for s in pages.model_groups(catalog)
        if (previous.models.get(s) or {}).get("key") == keys.models[s]
        and not bad.intersection(previous.models[s]["files"])
        and _rows(previous, s, catalog) is not None
    ]
    site = bool(previous.site) and previous.site["key"] == keys.site and not bad.intersection(previous.site["files"])
    return reuse, site


def _rows(previous: incremental.Manifest, slug: str, catalog: Catalog) -> list[HardwareRow] | None:
    """The hardware-page rows a previous build recorded for a model, one per accelerator of the catalog it
    runs on; None if they cannot be read. (The model's key covers every accelerator, so the ones it runs
    on are those it ran on then.)"""
    try:
        rows = [HardwareRow.from_json(r) for r in previous.models[slug]["rows"]]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    hardware = [r.hardware for r in rows]
    known = all(isinstance(h, str) and h in catalog.hardware for h in hardware)
    return rows if rows and known and len(set(hardware)) == len(hardware) else None


def write_site(
    catalog: Catalog,
    settings: Settings,
    asset_files: dict[str, tuple[str, bytes]],
    jobs: int,
    plan: Plan,
    progress: Progress | None = None,
) -> tuple[Written, incremental.Manifest]:
    """Render what changed, link what did not; (every file with size and hash, the new manifest).

    Linking is disk-bound (one mkdir per pair page's folder): with several jobs a child process links
    while the models and the site render; with one, a thread does (after the workers are forked, when
    the models render in workers).
    """
    progress = progress or Progress(quiet=True)
    new = incremental.Manifest()
    rows: dict[str, list[HardwareRow]] = {}
    written: Written = []
    for slug in plan.reuse:
        rows[slug] = _rows(plan.previous, slug, catalog) or []
        new.models[slug] = plan.previous.models[slug]
    reused = [plan.previous.models[s]["files"] for s in plan.reuse]
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    linked: concurrent.futures.Future[Written] | incremental.Linking | None = None
    try:
        if jobs > 1 and reused:  # a process of its own (started, not forked: workers may be forked after)
            linked = incremental.link_groups_apart(reused, plan.old_dist, settings.root)
            written += _render_models(catalog, settings, jobs, plan, new, rows, progress)
        elif jobs <= 1 or len(plan.models) <= 1:  # models render in this process: link meanwhile
            linked = pool.submit(incremental.link_groups, reused, plan.old_dist, settings.root)
            written += _render_models(catalog, settings, jobs, plan, new, rows, progress)
        else:  # worker processes are forked: no thread may be running then
            written += _render_models(catalog, settings, jobs, plan, new, rows, progress)
            linked = pool.submit(incremental.link_groups, reused, plan.old_dist, settings.root)
        progress.start("site pages, JSON, sitemaps and assets")
        site = _render_site(catalog, settings, asset_files, plan, new, rows)
        progress.step(sum(rel.endswith(".html") for rel, _, _ in site))
        progress.end()
        written += site
        if reused:
            progress.start("unchanged files linked from the previous build")
        written += linked.result() if linked is not None else []
        progress.end()
    except BaseException:
        if isinstance(linked, incremental.Linking):
            linked.cancel()
        raise
    finally:
        pool.shutdown(wait=True)
    seen: set[str] = set()
    for rel, _, _ in written:
        if rel in seen:
            raise RuntimeError(f"two outputs share the path {rel}")
        seen.add(rel)
    return written, new


def _render_site(
    catalog: Catalog,
    settings: Settings,
    asset_files: dict[str, tuple[str, bytes]],
    plan: Plan,
    new: incremental.Manifest,
    rows: dict[str, list[HardwareRow]],
) -> Written:
    """Hardware pages, indexes, sitemaps and assets (or the previous ones when nothing changed)."""
    written: Written = []
    if plan.site:
        by_hw: dict[str, list[HardwareRow]] = {h: [] for h in catalog.hardware}
        for slug, model in catalog.models.items():
            for row in rows[slug] if slug in rows else hardware_rows(catalog, model):
                by_hw[row.hardware].append(row)
        site: Written = []
        site += write_files(site_outputs(catalog, settings, by_hw), settings.root)
        site += write_files(sitemap.outputs(catalog, settings.base_url, settings.langs), settings.root)
        site += write_files(static_outputs(asset_files), settings.root)
        written += site
        new.site = {"key": plan.keys.site, "files": {r: h for r, _, h in site}}
    elif plan.previous.site and plan.reuse and not plan.models:
        written += incremental.link_groups([plan.previous.site["files"]], plan.old_dist, settings.root)
        new.site = plan.previous.site
    return written


def build(
    catalog: Catalog,
    out: Path,
    *,
    jobs: int | None = None,
    base_url: str = "https://sizewise.dev",
    content: Path | None = None,
    langs: tuple[str, ...] = LANGS,
    force: bool = False,
    shard: tuple[int, int] | None = None,
    minify: bool = True,
    host: str | None = None,
    inputs: str | None = None,
) -> str:
    """Render what changed since the last build into a temporary sibling of ``out``, link the rest, swap it in.

    ``force`` ignores the previous build. ``shard=(k, n)`` builds the k-th of n disjoint slices of the
    models (the first slice also builds the rest of the site); merged, the slices equal one build.
    ``host`` (a key of hosts.HOSTS) is where the site is deployed: the summary warns when the output
    is over its limits. ``inputs`` (stamp.inputs, taken before the catalog was read) stamps the finished
    output for the next run's no-op fast path.
    """
    start = time.perf_counter()
    content = content or ROOT / "content"
    jobs = jobs or os.cpu_count() or 1
    out = out.resolve()
    # Output is served as is: directories 0755, files 0644, whatever the caller's umask.
    with outdir.exclusive(out):
        summary, size = _build_locked(catalog, out, start, jobs, base_url, content, langs, force, shard, minify, inputs)
    return summary + size_report(size, host)


def size_report(size: hosts.Output | None, host: str | None) -> str:
    """What the output weighs against our budgets and the deploy host's limits (lines for the summary)."""
    if size is None:
        return ""
    lines = ["", f"output: {size.summary()}", f"  {hosts.budget_line(size)}"]
    for h in hosts.HOSTS:
        if h.key == host:
            lines.append(f"  {hosts.host_line(size, h)}")
            lines += [f"warning: {problem}" for problem in hosts.over(size, h)]
    return "\n".join(lines)


def _build_locked(
    catalog: Catalog,
    out: Path,
    start: float,
    jobs: int,
    base_url: str,
    content: Path,
    langs: tuple[str, ...],
    force: bool,
    shard: tuple[int, int] | None,
    minify: bool,
    inputs: str | None,
) -> tuple[str, hosts.Output | None]:
    """The build proper, with the output's lock held: its summary, and the size of what it wrote."""
    asset_files = assets(catalog)
    urls = {name: url for name, (url, _) in asset_files.items()}
    keys = incremental.keys(catalog, base_url.rstrip("/"), langs, urls, minify)
    previous = incremental.previous(out)
    reusable_from = incremental.Manifest() if force or shard else previous
    changed_txt = out.with_name(out.name + ".changed.txt")
    # What each file of the previous build is: its hash in the manifest, unless it was changed in dist/
    # since (then it is never reused, and always listed as changed).
    before = previous.files()
    # Unless the stamp shows that nothing in it changed since (its manifest then describes it).
    if not shard and not stamp.unchanged(out):
        before.update(dict.fromkeys(incremental.damaged(before, out, max(jobs, 4)), "damaged"))
    if shard:
        k, n = shard
        chosen = [slug for i, slug in enumerate(pages.model_groups(catalog)) if i % n == k - 1]
        plan = Plan(chosen, [], k == 1, keys, reusable_from, out)
    else:
        groups = pages.model_groups(catalog)
        bad = {rel for rel, sha in before.items() if sha == "damaged"}
        reuse, site_same = _reusable(catalog, keys, reusable_from, bad)
        todo = [s for s in groups if s not in reuse]
        if not todo and site_same:
            outdir.write_atomic(changed_txt, "")
            if inputs:  # every file was just checked against its hash: the next no-op can go the fast way
                stamp.write(out, inputs)
            return f"{out} is up to date ({len(before):,} files) in {time.perf_counter() - start:.1f} s", None
        plan = Plan(todo, reuse, bool(todo) or not site_same, keys, reusable_from, out)
    tmp = outdir.new_tree(out)
    settings = Settings(base_url.rstrip("/"), urls, content, tmp, langs, minify)
    # A live line on a terminal; one line per phase in CI logs and pipes.
    progress = Progress(live=sys.stderr.isatty() and not os.environ.get("CI"))
    undo_changes: Callable[[], None] | None = None
    try:
        written, manifest = write_site(catalog, settings, asset_files, jobs, plan, progress)
        outdir.finish_tree(tmp, manifest.data())
        if inputs and not shard:
            stamp.write(tmp, inputs)
        # Whatever was added to the old folder while this run wrote the new one is not replaced either.
        outdir.check_replaceable(out)
        if not shard:
            # Written before the swap, so no change is ever missing from the list; put back if the
            # swap fails.
            changed = incremental.changes(before, manifest.files())
            undo_changes = outdir.write_changes(changed_txt, "".join(p + "\n" for p in changed))
        outdir.swap_in(tmp, out)
    except BaseException:
        if undo_changes is not None:
            undo_changes()
        outdir.discard(tmp)
        raise
    rendered_models = len(plan.models)
    files = len(written)
    html_pages = sum(rel.endswith(".html") for rel, _, _ in written)
    size = sum(n for _, n, _ in written)
    seconds = time.perf_counter() - start
    summary = (
        f"built {files:,} files ({html_pages:,} pages, {files - html_pages:,} JSON/SVG/other, {size / 1e6:,.1f} MB) "
        f"into {out} in {seconds:.1f} s ({html_pages / seconds:,.0f} pages/s); "
        f"{rendered_models} of {len(catalog.models)} models rendered"
        + ("" if plan.site else ", rest of the site unchanged")
    )
    # The whole output, reused files included, as a deploy uploads it (a shard: its own part).
    return summary, hosts.Output.of((rel, n) for rel, n, _ in written)
