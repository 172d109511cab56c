"""The built site: golden tiny site, page counts, hreflang, JSON schemas, sitemaps, links, i18n, escaping."""

from __future__ import annotations

import difflib
import html
import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest
from babel.messages.pofile import read_po

from generator.content.catalog import Catalog
from generator.content.loader import load_catalog
from generator.publish import writer
from generator.publish.writer import build
from generator.site.api import SCHEMAS
from generator.site.cli import command_problems
from generator.site.commands import OLLAMA_SERVE_NOTE
from generator.site.i18n import catalog_problems
from generator.site.render import minify
from generator.sizing.estimate import hosts
from tests.conftest import CONTENT, ROOT
from tests.golden.regenerate import BASE_URL as GOLDEN_BASE_URL
from tests.golden.regenerate import CONTENT as GOLDEN_CONTENT
from tests.golden.regenerate import DIST as GOLDEN_DIST
from tests.golden.regenerate import build_golden

LANGS = ("en", "fr", "zh")
HREFLANG = {"en": "en", "fr": "fr", "zh": "zh-Hans"}


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="session")
def site(catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "dist"
    build(catalog, out, jobs=2, base_url="https://sizewise.example", content=CONTENT)
    return out


class Links(HTMLParser):
    """Collects hrefs/srcs, hreflang alternates, ids and the <html lang>."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.alternates: dict[str, str] = {}
        self.ids: set[str] = set()
        self.lang = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "html":
            self.lang = a.get("lang") or ""
        if a.get("id"):
            self.ids.add(a["id"] or "")
        if tag == "link" and a.get("rel") == "alternate" and a.get("hreflang"):
            self.alternates[a["hreflang"] or ""] = a.get("href") or ""
        if tag == "a" and a.get("href"):
            self.links.append(a["href"] or "")
        if tag in ("img", "script") and a.get("src"):
            self.links.append(a["src"] or "")
        if tag == "link" and a.get("rel") in ("stylesheet", "icon") and a.get("href"):
            self.links.append(a["href"] or "")


def parse(path: Path) -> Links:
    p = Links()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def test_golden_tiny_site(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    build_golden(out)
    got, want = files(out), files(GOLDEN_DIST)
    assert sorted(got) == sorted(want), "file list differs from tests/golden/dist (run `make golden` and review)"
    for name in sorted(want):
        if got[name] != want[name]:
            diff = difflib.unified_diff(
                want[name].decode(errors="replace").splitlines(),
                got[name].decode(errors="replace").splitlines(),
                "expected",
                "built",
                lineterm="",
                n=1,
            )
            pytest.fail(
                f"{name} differs from the golden site (run `make golden` and review):\n" + "\n".join(list(diff)[:40])
            )
    assert len(load_catalog(GOLDEN_CONTENT).models) == 2


def test_published_pages_are_the_golden_pages_minified(tmp_path: Path) -> None:
    """The golden fixtures are stored readable; the published build is exactly their minified form."""
    build_golden(tmp_path / "min", minify=True)
    published, readable = files(tmp_path / "min"), files(GOLDEN_DIST)
    assert sorted(published) == sorted(readable)
    for name, data in readable.items():
        if name.startswith("assets/"):  # published as they are in both
            expected = data
        elif name.endswith(".html"):
            expected = minify(data.decode()).encode()
        elif name.endswith(".json"):
            expected = writer.dump(json.loads(data), compact=True)
        else:
            expected = data
        assert published[name] == expected, name


@pytest.mark.slow  # the full-catalog build
def test_page_counts(site: Path, catalog: Catalog) -> None:
    m, h = len(catalog.models), len(catalog.hardware)
    # A pair per model and accelerator that some engine loading the model runs on (GLM-5.3-Flash has none on
    # Apple); a model every engine loads has a pair on every accelerator.
    pairs = sum(len(hosts(catalog, model)) for model in catalog.models.values())
    assert all(len(hosts(catalog, model)) == h for model in catalog.models.values() if model.engines is None)
    assert 0.9 * m * h < pairs < m * h
    for lang in LANGS:
        pages = list((site / lang).rglob("index.html"))
        assert len(pages) == 5 + h + m + pairs, lang
        assert len(list((site / lang / "models").glob("*/*/index.html"))) == pairs
    assert len(list((site / "api/v1/pairs").rglob("*.json"))) == pairs
    assert len(list((site / "badges").glob("*.svg"))) == m
    for name in ("index.html", "404.html", "robots.txt", "sitemap.xml", "_headers", "api/v1/index.json"):
        assert (site / name).is_file(), name


@pytest.mark.slow  # the full-catalog build
def test_hreflang_is_reciprocal_and_absolute(site: Path) -> None:
    for page in sorted(site.glob("*/models/*/*/index.html"))[:60] + sorted(site.glob("*/hardware/*/index.html")):
        links = parse(page)
        lang = page.relative_to(site).parts[0]
        assert links.lang == HREFLANG[lang]
        # Every page names its English version as the default for other languages.
        assert set(links.alternates) == {"en", "fr", "zh-Hans", "x-default"}
        assert links.alternates["x-default"] == links.alternates["en"]
        assert all(href.startswith("https://sizewise.example/") for href in links.alternates.values())
        own = links.alternates[HREFLANG[lang]]
        for other, href in links.alternates.items():
            target = site / href.removeprefix("https://sizewise.example/") / "index.html"
            back = parse(target).alternates
            assert back[HREFLANG[lang]] == own, (page, other)


@pytest.mark.slow  # the full-catalog build
def test_every_json_validates_against_its_schema(site: Path) -> None:
    schemas = {name: json.loads((site / f"api/v1/schema/{name}.json").read_text()) for name in SCHEMAS}
    checks = [("index", site / "api/v1/index.json")]
    checks += [("pair", p) for p in (site / "api/v1/pairs").rglob("*.json")]
    checks += [("model", p) for p in (site / "api/v1/models").glob("*.json")]
    checks += [("hardware", p) for p in (site / "api/v1/hardware").glob("*.json")]
    checks += [("badge", p) for p in (site / "badges").glob("*.json")]
    # One validator per schema, checked once (jsonschema.validate rebuilds both for every document).
    validators = {}
    for name, schema in schemas.items():
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validators[name] = cls(schema)
    for name, path in checks:
        validators[name].validate(json.loads(path.read_text()))
    badge = json.loads(next((site / "badges").glob("*.json")).read_text())
    assert set(badge) == {"schemaVersion", "label", "message", "color"} and badge["schemaVersion"] == 1


@pytest.mark.slow  # the full-catalog build
def test_pair_json_has_the_estimate_keys_as_integers(site: Path) -> None:
    data = json.loads((site / "api/v1/pairs/qwen2-5-coder-32b-instruct/h100-sxm.json").read_text())
    est = data["estimate"]
    for key in ("weights_bytes", "kv_cache_bytes", "overhead_bytes", "total_bytes", "usable_bytes"):
        assert isinstance(est[key], int)
    assert est["total_bytes"] == est["weights_bytes"] + est["kv_cache_bytes"] + est["overhead_bytes"]
    assert {r["quant"] for r in data["quant_matrix"]} >= {"Q4_K_M", "BF16", "AWQ"}
    # A format that cannot run on an H100 is listed apart, with the reason.
    mlx = {r["quant"]: r for r in data["unavailable"]}["MLX 4-bit"]
    assert mlx["engine"] == "mlx" and "does not run on" in mlx["reason"]
    assert data["context_scaling"][-1]["context"] == 131072  # the card's YaRN maximum (config: 32,768)
    # Serving many users at the page's context: llama.cpp's, vLLM's and SGLang's setups, the floor kept or not.
    serving = {s["engine"]: s for s in data["serving"]}
    assert set(serving) == {"llama.cpp", "vllm", "sglang"} and all(s["context"] == 8192 for s in serving.values())
    assert (serving["sglang"]["quant"], serving["sglang"]["gpus"]) == (
        serving["vllm"]["quant"],
        serving["vllm"]["gpus"],
    )
    for s in serving.values():
        assert 0 < s["users_at_floor"] <= s["kv_pool_sequences"] and s["at_floor"]["per_user_tok_s"] >= 20
        assert [x["users"] for x in s["loads"]] == [8, 32]
        assert all(x["running"] + x["queued"] == x["users"] for x in s["loads"])


@pytest.mark.slow  # the full-catalog build
def test_sitemaps_parse_and_list_every_page(site: Path) -> None:
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    index = ET.parse(site / "sitemap.xml").getroot()
    locs = [e.text or "" for e in index.findall("s:sitemap/s:loc", ns)]
    urls = []
    for loc in locs:
        root = ET.parse(site / loc.removeprefix("https://sizewise.example/")).getroot()
        entries = root.findall("s:url", ns)
        assert len(entries) <= 50_000
        for u in entries:
            urls.append(u.find("s:loc", ns).text)  # type: ignore[union-attr]
    pages = {f"https://sizewise.example/{p.parent.relative_to(site)}/" for p in site.glob("*/**/index.html")}
    assert set(urls) == pages
    assert "Sitemap: https://sizewise.example/sitemap.xml" in (site / "robots.txt").read_text()


@pytest.mark.slow  # the full-catalog build
def test_internal_links_resolve(site: Path) -> None:
    checked = 0
    for page in [
        *site.glob("*/index.html"),
        *site.glob("*/*/index.html"),
        *sorted(site.glob("en/models/*/*/index.html"))[:40],
        *site.glob("zh/hardware/*/index.html"),
    ]:
        links = parse(page)
        for href in links.links:
            if href.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = href.partition("#")
            # A query opens the page in a scenario: the file is the path's.
            path = path.partition("?")[0]
            target = (page.parent / path) if not path.startswith("/") else site / path.lstrip("/")
            if not path:
                assert anchor in links.ids, (page, href)
                continue
            if path.endswith("/"):
                target = target / "index.html"
            assert target.exists(), (page, href)
            checked += 1
    assert checked > 1000


@pytest.mark.slow  # the full-catalog build
def test_language_switcher_keeps_the_page(site: Path) -> None:
    links = parse(site / "fr/models/llama-3-1-8b-instruct/rtx-4090/index.html")
    assert "/en/models/llama-3-1-8b-instruct/rtx-4090/" in links.links
    assert "/zh/models/llama-3-1-8b-instruct/rtx-4090/" in links.links


@pytest.mark.slow  # the full-catalog build
def test_locale_formatting(site: Path) -> None:
    fr = (site / "fr/models/qwen2-5-coder-32b-instruct/h100-sxm/index.html").read_text()
    en = (site / "en/models/qwen2-5-coder-32b-instruct/h100-sxm/index.html").read_text()
    assert re.search(r"\d+,\d\u00a0Gio", fr), "French pages use a decimal comma and Gio"
    assert re.search(r"\d+\.\d\u00a0GiB", en)
    assert "\u202f" in fr  # narrow no-break space: grouping and before %


@pytest.mark.slow  # babel extracts every template and module
def test_catalogs_complete_and_in_sync(tmp_path: Path) -> None:
    pot = tmp_path / "messages.pot"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "babel.messages.frontend",
            "extract",
            "-F",
            "babel.cfg",
            "-k",
            "_",
            "-k",
            "ngettext:1,2",
            "--no-location",
            "--omit-header",
            "-o",
            str(pot),
            ".",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    with pot.open("rb") as fh:
        wanted = {m.id for m in read_po(fh) if m.id}
    for lang, locale in (("fr", "fr"), ("zh", "zh_Hans_CN")):
        with (ROOT / "locales" / lang / "LC_MESSAGES" / "messages.po").open("rb") as fh:
            cat = read_po(fh, locale=locale)
        have = {m.id for m in cat if m.id}
        assert have == wanted, (
            f"{lang}: run `make i18n` (missing {sorted(wanted - have)[:3]}, stale {sorted(have - wanted)[:3]})"
        )
        # Every translation is %-formatted: a lone "%" would crash the build (write "%%").
        assert catalog_problems(cat, f"locales/{lang}") == []
        for m in cat:
            if not m.id:
                continue
            strings = m.string if isinstance(m.string, tuple) else (m.string,)
            assert not m.fuzzy, (lang, m.id)
            assert all(strings), f"{lang}: untranslated {m.id!r}"
            ids = " ".join(m.id) if isinstance(m.id, tuple) else m.id
            for s in strings:
                assert set(re.findall(r"%\((\w+)\)s", s)) == set(re.findall(r"%\((\w+)\)s", ids)), (lang, m.id)


def test_catalog_strings_are_escaped(tmp_path: Path) -> None:
    content = tmp_path / "content"
    shutil.copytree(GOLDEN_CONTENT, content)
    path = content / "models" / "llama-3-1-8b-instruct.yaml"
    path.write_text(path.read_text().replace("name: Llama-3.1-8B-Instruct", 'name: "<script>alert(1)</script>"', 1))
    out = tmp_path / "dist"
    build(load_catalog(content), out, jobs=1, base_url="https://sizewise.example", content=content)

    class Scripts(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.scripts: list[str] = []
            self.text: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "script":
                self.scripts.append(dict(attrs).get("type") or "")

        def handle_data(self, data: str) -> None:
            self.text.append(data)

    for page in (
        "en/models/llama-3-1-8b-instruct/index.html",
        "fr/models/llama-3-1-8b-instruct/rtx-4090/index.html",
        "zh/hardware/rtx-4090/index.html",
    ):
        html = (out / page).read_text()
        # <title> is RCDATA: a browser never parses tags inside it (the minifier leaves "<" bare there).
        title = re.search(r"<title>(.*?)</title>", html, re.S)
        assert title and "</" not in title.group(1).replace("</script>", "")
        parser = Scripts()
        parser.feed(html.replace(title.group(0), ""))
        # The name never became an element: only our JSON data blocks and module scripts are there.
        assert set(parser.scripts) <= {"application/ld+json", "application/json", "module"}, (page, parser.scripts)
        assert any("<script>alert(1)</script>" in t for t in parser.text), page  # it shows as text
    badge = (out / "badges/llama-3-1-8b-instruct.svg").read_text()
    assert "<script>" not in badge


def test_source_links_are_valid_urls() -> None:
    from generator.site.render import source_url

    assert source_url("owner/repo:dir/LLaMA 3/M2.ipynb@abc123") == (
        "https://github.com/owner/repo/blob/abc123/dir/LLaMA%203/M2.ipynb"
    )
    assert source_url("ggml-org/llama.cpp:tools/quantize/quantize.cpp") == (
        "https://github.com/ggml-org/llama.cpp/blob/HEAD/tools/quantize/quantize.cpp"
    )
    assert source_url("https://example.org/a b?q=1#x") == "https://example.org/a%20b?q=1#x"
    assert source_url("https://example.org/already%20encoded") == "https://example.org/already%20encoded"


class Commands(HTMLParser):
    """Launch commands of a page: ``blocks`` (engine, inputs, text) from pair pages' <code data-command>,
    ``setups`` (heading, hardware slug, text) from the model page's headed commands."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[tuple[str, str, str]] = []
        self.setups: list[tuple[str, str, str]] = []
        self.scenario = ""
        self._code: dict[str, str | None] | None = None
        self._text: list[str] = []
        self._h3: list[str] | None = None
        self._heading = ("", "")
        self._in_data = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "code":
            self._code, self._text = a, []
        elif tag == "h3":
            self._h3, self._heading = [], ("", "")
        elif tag == "a" and self._h3 is not None and (a.get("href") or "").startswith("/en/hardware/"):
            self._heading = ("", (a.get("href") or "").split("/")[3])
        elif tag == "script" and a.get("id") == "wb-data":
            self._in_data = True

    def handle_data(self, data: str) -> None:
        if self._code is not None:
            self._text.append(data)
        if self._h3 is not None:
            self._h3.append(data)
        if self._in_data:
            self.scenario += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "code" and self._code is not None:
            text = "".join(self._text)
            if "data-command" in self._code:
                self.blocks.append((self._code["data-command"] or "", self._code.get("data-inputs") or "{}", text))
            elif self._heading[1]:
                self.setups.append((self._heading[0], self._heading[1], text))
            self._code = None
        elif tag == "h3" and self._h3 is not None:
            self._heading = ("".join(self._h3), self._heading[1])
            self._h3 = None
        elif tag == "script":
            self._in_data = False


def _commands(page: Path) -> Commands:
    parser = Commands()
    parser.feed(page.read_text())
    return parser


def _starts(catalog: Catalog, model: str, hw: str, engine: str, quant: str, text: str) -> str:
    """Why a launch command printed for ``engine`` and ``quant`` on ``hw`` would not start ("" when it
    would): the engine has no backend there that runs the format, or no published checkpoint serves it
    and the command does not make the file first."""
    m, h, profile = catalog.model(model), catalog.hw(hw), catalog.engine(engine)
    if not profile.runs(h, quant):
        return f"{engine} does not run {quant} on {hw}"
    refused = command_problems(text, catalog.programs, m)
    if refused:
        return "; ".join(refused)
    if engine == "llama.cpp":
        makes = "convert_hf_to_gguf.py" in text and ("llama-quantize" in text or quant == "F16")
        return "" if " -hf " in text or makes else "no GGUF"
    if engine == "ollama":
        modelfile = text.split("\n", 1)[1] if text.startswith(OLLAMA_SERVE_NOTE) else text
        return "" if modelfile.startswith("FROM ") else "no Ollama tag"
    return "" if m.has_checkpoint(quant, catalog.format(quant).family) else f"no {quant} checkpoint"


def _json_problems(site: Path, catalog: Catalog) -> list[str]:
    """Pair JSON defaults and format rows, and hardware JSON picks, that their accelerator cannot run."""
    problems = []
    for path in sorted((site / "api/v1/pairs").rglob("*.json")):
        data = json.loads(path.read_text())
        hw = catalog.hw(data["hardware"])
        for row in [data["estimate"], *data["quant_matrix"]]:
            if not catalog.engine(row["engine"]).runs(hw, row["quant"]):
                problems.append(f"{path}: {row['engine']} {row['quant']}")
    for path in sorted((site / "api/v1/hardware").glob("*.json")):
        data = json.loads(path.read_text())
        hw = catalog.hw(data["slug"])
        for row in data["models"]:
            if row["best_quant"] and not catalog.engine(row["engine"]).runs(hw, row["best_quant"]):
                problems.append(f"{path}: {row['model']} {row['engine']} {row['best_quant']}")
    return problems


def _page_problems(site: Path, catalog: Catalog) -> tuple[list[str], int, dict[str, int]]:
    """(problems, command blocks seen, setups seen on each model page) over the English pair and model pages."""
    problems, blocks, setups = [], 0, {}
    for page in sorted(site.glob("en/models/*/*/index.html")):
        found = _commands(page)
        model, hw = page.parent.parent.name, page.parent.name
        scenario = json.loads(found.scenario)["scenario"]
        if not catalog.engine(scenario["engine"]).runs(catalog.hw(hw), scenario["quant"]):
            problems.append(f"{page}: scenario {scenario}")
        for engine, inputs, command in found.blocks:
            why = _starts(catalog, model, hw, engine, {**scenario, **json.loads(inputs)}["quant"], command)
            problems += [f"{page}: {why}"] if why else []
        blocks += len(found.blocks)
    labels = {e.label: e.name for e in catalog.engines.values()}
    for page in sorted(site.glob("en/models/*/index.html")):
        for heading, hw, command in _commands(page).setups:
            label, quant = (part.strip() for part in heading.split("·")[:2])
            why = _starts(catalog, page.parent.name, hw, labels[label], quant, command)
            problems += [f"{page}: {why}"] if why else []
            setups[page.parent.name] = setups.get(page.parent.name, 0) + 1
    return problems, blocks, setups


@pytest.mark.slow  # the full-catalog build
def test_no_page_or_json_offers_a_setup_that_cannot_start(site: Path, catalog: Catalog) -> None:
    """Every pair's default setup and format rows (JSON), every hardware page's pick, every launch command
    of every pair page and model page run on their accelerator (engines.yaml's backends), with a published
    checkpoint or the steps that make the file."""
    problems, blocks, setups = _page_problems(site, catalog)
    problems += _json_problems(site, catalog)
    assert not problems, problems[:20]
    # The walk saw what it checks: commands on every pair page, and setups on the model pages, on most of
    # them one for each of llama.cpp and vLLM (a model no setup of up to 8 devices holds, Kimi K3 at 2.78T,
    # has none).
    assert blocks >= sum(len(hosts(catalog, m)) for m in catalog.models.values())
    assert sum(1 for slug in catalog.models if setups.get(slug)) >= len(catalog.models) - 2
    assert sum(setups.values()) >= 1.9 * len(catalog.models)


@pytest.mark.slow  # the full-catalog build
def test_pair_page_offers_link_where_to_rent(site: Path, catalog: Catalog) -> None:
    """The cost table names each offer's provider, linked to its pricing page (cloud.yaml's providers),
    not to the dataset the price came from (the hardware page lists those)."""
    for hw in ("h100-sxm", "rtx-4090", "mi300x"):
        html = (site / "en/models/qwen3-8b" / hw / "index.html").read_text(encoding="utf-8")
        table = html[html.index('id="cost-h"') if 'id="cost-h"' in html else html.index("id=cost-h") :]
        table = table[: table.index("</table>")]
        offers = catalog.offers_for(hw)
        assert offers
        for name in {o.provider for o in offers[:3]}:
            provider = catalog.providers.get(name)
            if provider is not None:
                assert f"href={provider.url} " in table or f'href="{provider.url}"' in table, (hw, name)
        assert "github.com" not in table


def test_device_badges_are_one_shields_file_per_model() -> None:
    """A device badge has no file of its own: one devices.json per model gives shields.io every accelerator's
    message, and each pair page's snippet is a shields.io dynamic badge that reads its own accelerator's entry
    (label and colour as the file says today), linking to the pair page."""
    import urllib.parse

    for folder in (GOLDEN_DIST / "badges").iterdir():
        if not folder.is_dir():
            continue
        model = folder.name
        assert not list(folder.glob("on-*"))
        devices = json.loads((folder / "devices.json").read_text())
        assert devices
        for hw, badge in devices.items():
            assert set(badge) == {"label", "message", "color"}
            page = (GOLDEN_DIST / "en" / "models" / model / hw / "index.html").read_text()
            found = re.search(r"\]\((https://img\.shields\.io/badge/dynamic/json\?[^)]*)\)", page)
            assert found, (model, hw)
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(html.unescape(found[1])).query)
            assert query["url"] == [f"{GOLDEN_BASE_URL}/badges/{model}/devices.json"]
            assert query["query"] == [f"$['{hw}'].message"]
            assert (query["label"], query["color"]) == ([badge["label"]], [badge["color"]])
            assert f">{html.escape(badge['message'])}</span>" in page
