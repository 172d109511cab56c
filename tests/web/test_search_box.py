"""The search box in Chromium (tests/test_search.py checks the ranking under node)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from generator.content.catalog import Catalog
from generator.publish.writer import search_index
from tests.conftest import ROOT
from tests.web import gates


def test_box_says_no_results_and_enter_opens_the_first(browser: Any, catalog: Catalog, tmp_path: Path) -> None:
    """ "xyzzy" shows the index's "No results" for the page's language; Enter typed before the index has
    loaded still opens the first result."""
    index = search_index(catalog)
    (tmp_path / "index.json").write_bytes(index)
    shutil.copy(ROOT / "static" / "search.js", tmp_path / "search.js")
    # What the build's search-fr.js does, without "No results" (the index has it).
    words = {"index": "/index.json", "lang": "fr", "label": "Rechercher", "placeholder": "qwen", "results": "Résultats"}
    (tmp_path / "entry.js").write_text(f'import {{ start }} from "./search.js";\nstart({json.dumps(words)});\n')
    (tmp_path / "index.html").write_text(
        '<!DOCTYPE html><html lang="fr"><title>search</title><script type="module" src="/entry.js"></script>'
        '<div id="search"></div></html>',
        encoding="utf-8",
    )
    with gates.serve(tmp_path) as base:
        page = browser.new_page()
        page.goto(base + "/index.html")
        page.wait_for_selector("#search[data-ready]")
        page.fill("#search-q", "xyzzy")
        page.wait_for_selector("#search-results li.none")
        assert page.inner_text("#search-results") == json.loads(index)["none"]["fr"]
        assert page.locator("#search-results a").count() == 0
        page.press("#search-q", "Escape")
        assert page.locator("#search-results").is_hidden()
        page.press("#search-q", "Enter")  # nothing to open: the page stays
        assert page.url == base + "/index.html"
        page.close()

        page = browser.new_page()
        page.goto(base + "/index.html")
        page.wait_for_selector("#search[data-ready]")
        page.fill("#search-q", "lama 3.3 70b")
        page.press("#search-q", "Enter")
        page.wait_for_url(base + "/fr/models/llama-3-3-70b-instruct/")
        page.close()
