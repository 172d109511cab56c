"""The search box ranks what people type: tests/search/queries.yaml lists real queries and the page that
must come first; static/search.js answers them under node, in every language, from the index the build
writes for the real catalog."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.content.catalog import Catalog
from generator.publish.writer import search_index
from generator.site.pages import search_entries
from generator.site.routes import LANGS
from tests.conftest import ROOT

HERE = ROOT / "tests" / "search"
QUERIES: list[dict[str, Any]] = yaml.safe_load((HERE / "queries.yaml").read_text(encoding="utf-8"))["queries"]
# More than the box shows, so that `not` also covers what it would list.
LIMIT = 8

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")


def _localized(url: str | None, lang: str) -> str | None:
    return None if url is None else url.replace("/en/", f"/{lang}/", 1)


def _run(index: bytes, queries: list[str], tmp: Path) -> dict[str, dict[str, list[str]]]:
    (tmp / "index.json").write_bytes(index)
    (tmp / "queries.json").write_text(json.dumps({"langs": list(LANGS), "queries": queries, "limit": LIMIT}))
    proc = subprocess.run(
        ["node", str(HERE / "run.mjs"), str(tmp / "index.json"), str(tmp / "queries.json")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    result: dict[str, dict[str, list[str]]] = json.loads(proc.stdout)
    return result


@pytest.fixture(scope="module")
def index(catalog: Catalog) -> bytes:
    return search_index(catalog)


@pytest.fixture(scope="module")
def results(index: bytes, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, list[str]]]:
    return _run(index, [q["q"] for q in QUERIES], tmp_path_factory.mktemp("search"))


def _firsts(q: dict[str, Any]) -> list[str | None]:
    """The acceptable first results of a query: one page, several equally good ones, or None (no result)."""
    return list(q["first"]) if isinstance(q["first"], list) else [q["first"]]


def test_the_query_list_is_real_and_checked() -> None:
    assert len(QUERIES) >= 50
    assert len({q["q"] for q in QUERIES}) == len(QUERIES), "a query is listed twice"
    for q in QUERIES:
        assert set(q) <= {"q", "first", "not"}, q
        for url in [*_firsts(q), *q.get("not", [])]:
            assert url is None or url.startswith("/en/"), q


def test_pages_named_in_the_query_list_exist(catalog: Catalog) -> None:
    for q in QUERIES:
        for url in [*_firsts(q), *q.get("not", [])]:
            if url is None:
                continue
            parts = url.strip("/").split("/")
            assert parts[1] in ("models", "hardware"), url
            if parts[1] == "hardware":
                assert len(parts) == 3 and parts[2] in catalog.hardware, url
            else:
                assert parts[2] in catalog.models and (len(parts) == 3 or parts[3] in catalog.hardware), url


@pytest.mark.parametrize("lang", LANGS)
def test_every_query_finds_its_page_first(results: dict[str, dict[str, list[str]]], lang: str) -> None:
    wrong = []
    for q in QUERIES:
        got = results[lang][q["q"]]
        # Several equally good answers (two variants of one card): any may come first, all must lead.
        firsts = [_localized(u, lang) for u in _firsts(q)]
        if (got[0] if got else None) not in firsts or (got and set(got[: len(firsts)]) != set(firsts)):
            wrong.append(f"{q['q']!r}: expected {' or '.join(firsts)}, got {got[:3]}")
        listed = [url for url in (_localized(u, lang) for u in q.get("not", [])) if url in got]
        if listed:
            wrong.append(f"{q['q']!r}: must not list {listed}")
    assert not wrong, f"{len(wrong)} of {len(QUERIES)} queries in {lang}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("lang", LANGS)
def test_numbers_are_whole_words(results: dict[str, dict[str, list[str]]], lang: str) -> None:
    """Issue #18: "4090" is the RTX 4090 alone, not the 3090 or 4060 Ti one typo away."""
    got = results[lang]["4090"]
    assert got[0] == f"/{lang}/hardware/rtx-4090/"
    assert f"/{lang}/hardware/rtx-3090/" not in got
    assert f"/{lang}/hardware/rtx-4060-ti-16gb/" not in got


@pytest.mark.parametrize("lang", LANGS)
def test_nonsense_finds_nothing(results: dict[str, dict[str, list[str]]], lang: str) -> None:
    assert results[lang]["xyzzy"] == []


def test_short_words_and_edge_queries(index: bytes, tmp_path: Path) -> None:
    """Empty and punctuation-only queries list nothing; no query word is matched inside a number."""
    queries = ["", "  ", "-/.", "409", "090", "40", "70b 4090", "24gb apple"]
    got = _run(index, queries, tmp_path)["en"]
    assert got[""] == got["  "] == got["-/."] == []
    assert got["409"] == got["090"] == []
    assert "/en/hardware/rtx-4090/" not in got["40"]
    # "4090" is a whole word of the RTX 4090 and of the RTX 4090 D (a China-market card), no other.
    assert got["70b 4090"] and all(re.search(r"/rtx-4090(-d)?/", url) for url in got["70b 4090"])
    assert "/rtx-4090/" in got["70b 4090"][0]
    assert got["24gb apple"] == []


def test_index_has_the_no_results_message_in_every_language(index: bytes) -> None:
    data = json.loads(index)
    assert set(data["none"]) == set(LANGS)
    assert data["none"]["en"] == "No results"
    assert all(data["none"].values())


def test_index_lists_the_most_seen_then_newest_first(catalog: Catalog) -> None:
    entries = search_entries(catalog)
    for section in ("models", "hardware"):
        keys = [(e.seen, e.released) for e in entries if e.section == section]
        assert keys == sorted(keys, reverse=True), section
    hardware = [e for e in entries if e.section == "hardware"]
    rtx_4090 = next(e for e in hardware if e.slug == "rtx-4090")
    assert {"24GB", "24G", "24Go"} <= set(rtx_4090.words)
