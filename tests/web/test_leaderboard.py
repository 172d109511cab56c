"""The model page's leaderboard, price chart and the home page's budget entry, in Chromium.

The leaderboard's browser rows are the build's at the default context (one render path); at another
context and KV cache they are Python's rows for that scenario (model_page.leaderboard over pairs built
at that context); sorting and filters order and keep the right rows; the choice lives in the URL and the
language switcher keeps it, beside the finder's question. The finder's chart marks the frontier Python
finds for the same setups."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from generator.content.catalog import Catalog
from generator.site.charts import value_chart
from generator.site.i18n import NumberFormat
from generator.site.model_page import leaderboard
from generator.site.pair_page import pair_data
from generator.site.setups import Question, answer
from tests.web import gates

MODEL = "gemma-3-27b-it"


def sample(catalog: Catalog) -> Catalog:
    return catalog.subset(gates.SAMPLE_MODELS, gates.SAMPLE_HARDWARE)


def shown(page: Any) -> list[tuple[str, str, str]]:
    """(hardware, badge class, decode cell text) of every leaderboard row, in order."""
    return [
        (r["hw"], r["badge"], r["decode"])
        for r in page.eval_on_selector_all(
            "#lb-table tbody tr",
            "rs => rs.map(r => ({hw: r.dataset.hw, badge: r.cells[1].firstElementChild.className,"
            " decode: r.cells[3].textContent}))",
        )
    ]


def expected_rows(catalog: Catalog, model: str, context: int) -> list[tuple[str, str, str]]:
    """Python's leaderboard at ``context`` (default KV cache) in the page's English cell text."""
    at = dataclasses.replace(catalog, assumptions=catalog.assumptions.model_copy(update={"default_context": context}))
    m = at.model(model)
    fmt = NumberFormat("en")
    out = []
    for r in leaderboard(at, [pair_data(at, m, hw) for hw in at.hardware.values()]):
        e = r.pair.est
        badge = {"comfortable": "ok", "tight": "tight", "oom": "oom"}[e.memory.verdict]
        if r.fix is None:
            rng = e.speed_range
            text = f"{fmt.sig(e.speed.decode_tok_s)} tok/s"
            if rng.decode_low is not None and rng.decode_high is not None:
                text += f" ({fmt.sig(rng.decode_low)}–{fmt.sig(rng.decode_high)})"
        elif r.fix.kind == "kv":
            text = f"fits with {r.fix.value} KV cache"
        elif r.fix.kind == "fmt":
            text = f"fits in {r.fix.value}"
        elif r.fix.kind == "devices":
            text = f"fits on {fmt.num(r.fix.units)} cards"
        else:
            text = "nothing in reach fits"
        out.append((r.pair.hardware.slug, badge, text))
    return out


@pytest.mark.parametrize("lang", ["en", "fr", "zh"])
def test_leaderboard_redraws_the_build_table_exactly(page: Any, base_url: str, lang: str) -> None:
    page.goto(f"{base_url}/{lang}/models/{MODEL}/")
    built = page.inner_html("#lb-table")
    page.wait_for_selector("#lb-form[data-ready]")
    page.dispatch_event("#lb-sort", "change")  # recompute at the page's defaults
    assert page.inner_html("#lb-table") == built


@pytest.mark.parametrize("model", ["deepseek-v3", "gpt-oss-120b", "qwen3-next-80b-a3b-instruct"])
def test_leaderboard_rows_at_another_context_are_pythons(
    page: Any, base_url: str, catalog: Catalog, model: str
) -> None:
    page.goto(f"{base_url}/en/models/{model}/?lctx=32768")
    page.wait_for_selector("#lb-form[data-ready]")
    page.wait_for_function("() => document.querySelector('#lb-table caption').textContent.includes('32K')")
    assert shown(page) == expected_rows(sample(catalog), model, 32768)


def test_leaderboard_sorts_filters_and_keeps_its_state(page: Any, base_url: str, catalog: Catalog) -> None:
    sub = sample(catalog)
    page.goto(f"{base_url}/en/models/{MODEL}/?tok_s=25")
    page.wait_for_selector("#lb-form[data-ready]")
    page.select_option("#lb-context", "65536")
    page.select_option("#lb-kv", "q8_0")
    page.select_option("#lb-sort", "price")
    rows = [r[0] for r in shown(page)]
    priced = [sub.hardware[s].price.usd for s in rows if sub.hardware[s].price]  # type: ignore[union-attr]
    # Every accelerator that runs the leaderboard's setup (llama.cpp's CANN backend on the Atlas 300I
    # Duo runs F16 only, not Q4_K_M).
    runs = [s for s, hw in sub.hardware.items() if sub.engine("llama.cpp").runs(hw, "Q4_K_M")]
    assert priced == sorted(priced) and sorted(rows) == sorted(runs) and len(runs) == len(sub.hardware) - 1
    assert all(sub.hardware[s].price is None for s in rows[len(priced) :])  # unpriced last
    page.select_option("#lb-vendor", "NVIDIA")
    assert {sub.hardware[s].vendor for s in (r[0] for r in shown(page))} == {"NVIDIA"}
    page.select_option("#lb-mem", "80")
    left = [r[0] for r in shown(page)]
    assert left and all(sub.hardware[s].memory_bytes >= 80e9 and sub.hardware[s].vendor == "NVIDIA" for s in left)
    assert "64K" in page.inner_text("#lb-table caption") and "q8_0" in page.inner_text("#lb-table caption")
    for key in ("lctx=65536", "lkv=q8_0", "lsort=price", "lvendor=NVIDIA", "lmem=80", "tok_s=25"):
        assert key in page.url
    french = page.get_attribute("nav.langs a[hreflang=fr]", "href")
    assert french is not None and "lkv=q8_0" in french and "tok_s=25" in french
    page.click("nav.langs a[hreflang=fr]")
    page.wait_for_selector("#lb-form[data-ready]")
    assert page.input_value("#lb-kv") == "q8_0" and page.input_value("#lb-mem") == "80"
    assert [r[0] for r in shown(page)] == left


def test_leaderboard_budget_and_hours_reprice_and_hide_rows(page: Any, base_url: str, catalog: Catalog) -> None:
    """A budget keeps the cards whose new price is within it; hours of use re-price the rented month as
    Python's estimate does at those hours (cost.py); both live in the URL."""
    sub = sample(catalog)
    at = dataclasses.replace(sub, assumptions=sub.assumptions.model_copy(update={"hours_per_day": 24.0}))
    m = at.model(MODEL)
    fmt = NumberFormat("en")
    monthly = {
        r.pair.hardware.slug: fmt.usd(r.est.cost.monthly_usd, 0) if r.est.cost.monthly_usd is not None else "—"
        for r in leaderboard(at, [pair_data(at, m, hw) for hw in at.hardware.values()])
    }
    page.goto(f"{base_url}/en/models/{MODEL}/")
    page.wait_for_selector("#lb-form[data-ready]")
    page.fill("#lb-hours", "24")
    page.dispatch_event("#lb-hours", "change")
    page.wait_for_function("() => document.querySelector('[data-lb-hours]').textContent === '24'")
    cells = page.eval_on_selector_all("#lb-table tbody tr", "rs => rs.map(r => [r.dataset.hw, r.cells[7].textContent])")
    assert cells and {hw: text for hw, text in cells} == {hw: monthly[hw] for hw, _ in cells}
    assert any(text != "—" for _, text in cells)
    page.fill("#lb-budget", "4000")
    page.dispatch_event("#lb-budget", "change")
    kept = [r[0] for r in shown(page)]
    within = {s for s, hw in sub.hardware.items() if hw.price is not None and hw.price.usd <= 4000}
    assert kept and set(kept) <= within and len(kept) < len(cells)
    assert "lhours=24" in page.url and "lbudget=4000" in page.url
    page.reload()
    page.wait_for_selector("#lb-form[data-ready]")
    page.wait_for_function("() => document.querySelector('[data-lb-hours]').textContent === '24'")
    assert [r[0] for r in shown(page)] == kept


def test_finder_chart_marks_pythons_frontier(page: Any, base_url: str, catalog: Catalog) -> None:
    sub = sample(catalog)
    setups = answer(sub, sub.model(MODEL), Question(context=32768, min_tok_s=10))
    # Labelled as the page names a setup: "2 × <device>" for several devices (the setup_name macro).
    label = {s: f"{s.units} × {s.hardware.name}" if s.units > 1 else s.hardware.name for s in setups}
    chart = value_chart([(label[s], s.cost_usd, s.est.speed.decode_tok_s) for s in setups])
    assert chart is not None
    page.goto(f"{base_url}/en/models/{MODEL}/?context=32768&tok_s=10")
    page.wait_for_selector("#finder[data-ready]")
    items = page.eval_on_selector_all("#finder [data-chart] li", "ls => ls.map(l => l.textContent.split(':')[0])")
    assert items == [p.label for p in chart.frontier]
    assert page.eval_on_selector_all("#finder [data-chart] circle", "cs => cs.length") == len(chart.points)


def test_chart_text_is_readable_on_a_phone(browser: Any, base_url: str) -> None:
    phone = browser.new_page(viewport={"width": 375, "height": 740})
    phone.goto(f"{base_url}/en/models/{MODEL}/?context=8192&tok_s=5")
    phone.wait_for_selector("#finder[data-ready]")
    for chart in ("#lb-chart", "#finder [data-chart] figure"):
        sizes = phone.eval_on_selector_all(
            f"{chart} svg text",
            "ts => ts.map(t => parseFloat(getComputedStyle(t).fontSize) * t.ownerSVGElement.getScreenCTM().a)",
        )
        assert sizes and min(sizes) >= 11, (chart, min(sizes))
    phone.close()


def test_home_budget_form_opens_the_finder_with_the_budget(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/fr/")
    page.select_option("#bf-model", MODEL)
    page.fill("#bf-budget", "3000")
    page.select_option("#bf-mode", "used")
    page.click("#budget-form button")
    page.wait_for_selector("#finder[data-ready]")
    assert f"/fr/models/{MODEL}/" in page.url
    assert page.input_value("#fd-budget") == "3000" and page.input_value("#fd-mode") == "used"
