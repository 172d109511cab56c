"""The browser's sizing model and display code in Chromium give Python's outputs on the parity vectors
(tests/test_parity.py runs the same vectors under node)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.conftest import ROOT
from tests.web import gates


def test_parity_in_chromium(browser: Any, cases: Path, tmp_path: Path) -> None:
    root = tmp_path / "site"
    root.mkdir()
    shutil.copy(ROOT / "static" / "sizing.js", root / "sizing.js")
    shutil.copy(ROOT / "static" / "display.js", root / "display.js")
    shutil.copy(ROOT / "tests" / "parity" / "compare.mjs", root / "compare.mjs")
    shutil.copy(cases, root / "cases.json")
    (root / "index.html").write_text('<!DOCTYPE html><html lang="en"><title>parity</title></html>')
    with gates.serve(root) as base:
        page = browser.new_page()
        page.goto(base + "/index.html")
        result = page.evaluate(
            """async () => {
                const sizing = await import('/sizing.js');
                const display = await import('/display.js');
                const { runCases, runDisplayCases } = await import('/compare.mjs');
                const data = await (await fetch('/cases.json')).json();
                const problems = [...runCases(sizing, data), ...runDisplayCases(display, data)];
                return { n: data.cases.length, problems };
            }"""
        )
        page.close()
    assert result["n"] >= 300
    assert not result["problems"], "\n".join(result["problems"][:20])
