"""Every chart on every page type is readable on a 375 px phone and on a 1366 px desktop: SVG text is
11–18 CSS px, no chart is taller than the screen, and no text leaves its chart."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.test_workbench import HARDWARE, MODEL

PAGES = ("", f"models/{MODEL}/", f"models/{MODEL}/{HARDWARE}/", f"hardware/{HARDWARE}/", "accuracy/")

# Per chart: the on-screen size of each text, the chart's box, and text boxes outside the chart's box.
MEASURE = """() => [...document.querySelectorAll("main svg")].filter((s) => s.getClientRects().length).map((svg) => {
  const box = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim());
  return {
    id: svg.id || svg.closest("section")?.querySelector("h2")?.id || "",
    height: box.height,
    sizes: texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * svg.getScreenCTM().a),
    outside: texts.filter((t) => {
      const r = t.getBoundingClientRect();
      return r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1;
    }).map((t) => t.textContent),
  };
})"""


@pytest.mark.parametrize(("width", "height"), [(375, 667), (1366, 768)])
@pytest.mark.parametrize("lang", ["en", "fr", "zh"])
def test_charts_are_readable(browser: Any, base_url: str, lang: str, width: int, height: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    seen, ids = 0, []
    for path in PAGES:
        page.goto(f"{base_url}/{lang}/{path}")
        page.wait_for_load_state("load")
        if path.startswith("models/") and path.count("/") == 3:  # a pair page: the workbench draws the memory chart
            page.wait_for_selector("#workbench[data-ready]", state="attached")
        for chart in page.evaluate(MEASURE):
            where = (lang, width, path, chart["id"])
            seen += 1
            ids.append(where)
            assert chart["sizes"], where
            assert min(chart["sizes"]) >= 11, (where, min(chart["sizes"]))
            assert max(chart["sizes"]) <= 18, (where, max(chart["sizes"]))
            assert chart["height"] <= height, (where, chart["height"])
            assert chart["outside"] == [], (where, chart["outside"])
    assert seen >= 3, (seen, ids)  # the memory chart, the price-against-speed chart, the accuracy scatter
    context.close()
