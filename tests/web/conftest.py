"""Fixtures for the browser tests: the sample site built from the real catalog, served over HTTP, and Chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.content.catalog import Catalog
from generator.publish.writer import build
from tests.conftest import CONTENT
from tests.web import gates

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder needs Chromium or the npm tools: mark it ``browser``."""
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session", autouse=True)
def tools() -> None:
    if os.environ.get("SIZEWISE_SKIP_WEB") == "1":
        pytest.skip("SIZEWISE_SKIP_WEB=1")
    missing = gates.missing_tools()
    if missing:
        pytest.fail(f"web gate tools missing ({missing}): run `make test`, which installs them")


@pytest.fixture(scope="session")
def sample(catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sample") / "dist"
    sub = catalog.subset(gates.SAMPLE_MODELS, gates.SAMPLE_HARDWARE)
    build(sub, out, jobs=2, base_url="https://sizewise.example", content=CONTENT)
    return out


@pytest.fixture(scope="session")
def base_url(sample: Path) -> Iterator[str]:
    with gates.serve(sample) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=gates.CHROMIUM, args=gates.CHROME_FLAGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context()
    pg = context.new_page()
    yield pg
    context.close()
