"""The browser engine (static/sizing.js) reproduces the Python engine: bytes exactly, floats to 1e-9.

Several hundred scenarios across every model (dense, MoE, MLA, sliding window, hybrid linear) and
engines are generated from the Python engine, then replayed under node and in Chromium.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from generator.content.catalog import Catalog
from generator.site.browser_data import parity_file
from tests.conftest import ROOT
from tests.web import gates

CHECK = ROOT / "tests" / "parity" / "check.mjs"


@pytest.fixture(scope="module")
def cases(catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("parity") / "cases.json"
    data = parity_file(catalog, tuple(catalog.hardware))
    assert len(data["cases"]) >= 300
    kinds = {c["inputs"]["engine"] for c in data["cases"]}
    assert kinds == {"llama.cpp", "ollama", "vllm", "sglang", "mlx"}
    path.write_text(json.dumps(data))
    return path


@pytest.mark.browser  # needs node
def test_parity_under_node(cases: Path) -> None:
    proc = subprocess.run(["node", str(CHECK), str(cases)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 disagreements" in proc.stdout


@pytest.mark.browser
def test_parity_in_chromium(cases: Path, tmp_path: Path) -> None:
    if gates.missing_tools():
        pytest.fail(f"browser tools missing: {gates.missing_tools()} (run `make test`)")
    from playwright.sync_api import sync_playwright

    root = tmp_path / "site"
    root.mkdir()
    shutil.copy(ROOT / "static" / "sizing.js", root / "sizing.js")
    shutil.copy(ROOT / "static" / "display.js", root / "display.js")
    shutil.copy(ROOT / "tests" / "parity" / "compare.mjs", root / "compare.mjs")
    shutil.copy(cases, root / "cases.json")
    (root / "index.html").write_text('<!DOCTYPE html><html lang="en"><title>parity</title></html>')
    with gates.serve(root) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=gates.CHROMIUM, args=gates.CHROME_FLAGS)
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
        browser.close()
    assert result["n"] >= 300
    assert not result["problems"], "\n".join(result["problems"][:20])
