"""The finder on model pages, in Chromium: its first rows are Python's answer (site/setups.py) on the
same catalog, in the three locales; the question lives in the URL and the language switcher keeps it."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote_plus

import pytest

from generator.content.catalog import Catalog
from generator.site.i18n import NumberFormat
from generator.site.setups import Question, answer
from tests.web import gates

QUESTIONS = (
    ("llama-3-1-8b-instruct", Question(context=8192, min_tok_s=40), "context=8192&tok_s=40"),
    ("qwen3-30b-a3b", Question(context=32768, min_tok_s=20, mode="rent"), "context=32768&tok_s=20&mode=rent"),
    ("gemma-3-27b-it", Question(context=16384, min_tok_s=15, users=4), "context=16384&tok_s=15&users=4"),
    ("gpt-oss-120b", Question(context=8192, min_tok_s=10, max_devices=2), "context=8192&tok_s=10&devices=2"),
    ("deepseek-v3", Question(context=8192, min_tok_s=5, mode="rent", engine="vllm"), "tok_s=5&mode=rent&engine=vllm"),
    (
        "gemma-3-27b-it",
        Question(context=8192, min_tok_s=10, min_quality="near_lossless"),
        "context=8192&tok_s=10&quality=near_lossless",
    ),
)


def rows(page: Any) -> list[tuple[str, int, str, str]]:
    """(hardware, devices, format, KV cache) of every row of the finder's table."""
    return [
        (r["hardware"], int(r["devices"]), r["fmt"], r["kv"])
        for r in page.eval_on_selector_all("#finder tbody tr", "rs => rs.map(r => ({...r.dataset}))")
    ]


@pytest.mark.parametrize("lang", ["en", "fr", "zh"])
@pytest.mark.parametrize(("model", "q", "query"), QUESTIONS, ids=[q[0] for q in QUESTIONS])
def test_finder_rows_are_pythons_answer(
    page: Any, base_url: str, catalog: Catalog, lang: str, model: str, q: Question, query: str
) -> None:
    sub = catalog.subset(gates.SAMPLE_MODELS, gates.SAMPLE_HARDWARE)
    expected = [(s.hardware.slug, s.devices, s.fmt, s.kv_dtype) for s in answer(sub, sub.model(model), q)]
    page.goto(f"{base_url}/{lang}/models/{model}/?{query}")
    page.wait_for_selector("#finder[data-ready]")
    assert rows(page) == expected[:15]
    # Each row links to its pair page in that setup (the workbench reads the query).
    hrefs = page.eval_on_selector_all("#finder tbody tr th a", "as => as.map(a => a.getAttribute('href'))")
    for (hw, devices, fmt, kv), href in zip(expected[:15], hrefs, strict=True):
        assert href.startswith(f"/{lang}/models/{model}/{hw}/?quant={quote_plus(fmt)}&"), href
        assert f"kv_dtype={kv}" in href and f"context={q.context}" in href
        assert (f"gpus={devices}" in href) == (devices != 1)
    status = page.inner_text("#finder [data-status]")
    assert status and (expected or status)


def test_finder_keeps_the_question_in_the_url_and_across_languages(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/en/models/qwen3-30b-a3b/")
    page.wait_for_selector("#finder[data-ready]")
    page.select_option("#fd-context", "32768")
    page.fill("#fd-speed", "25")
    page.select_option("#fd-mode", "rent")
    page.wait_for_function("() => location.search.includes('tok_s=25')")
    assert "mode=rent" in page.url and "context=32768" in page.url
    french = page.get_attribute("nav.langs a[hreflang=fr]", "href")
    assert french is not None and "tok_s=25" in french and "mode=rent" in french
    page.click("nav.langs a[hreflang=fr]")
    page.wait_for_selector("#finder[data-ready]")
    assert page.input_value("#fd-speed") == "25" and page.input_value("#fd-mode") == "rent"


def test_finder_prices_rigs_and_says_each_price_kind_and_date(page: Any, base_url: str, catalog: Catalog) -> None:
    """A buy answer of several cards prints the rig that holds them with its cost and the unit price's kind and
    day, as Python priced them (setups.setup_cost); a one-card answer prints its price's kind and day."""
    sub = catalog.subset(gates.SAMPLE_MODELS, gates.SAMPLE_HARDWARE)
    q = Question(context=8192, min_tok_s=10, max_devices=8)
    expected = answer(sub, sub.model("gpt-oss-120b"), q)
    assert any(s.rig for s in expected) and any(s.rig is None for s in expected)
    page.goto(f"{base_url}/en/models/gpt-oss-120b/?context=8192&tok_s=10&devices=8")
    page.wait_for_selector("#finder[data-ready]")
    costs = page.eval_on_selector_all("#finder tbody tr", "rs => rs.map(r => r.cells[4].textContent)")
    fmt = NumberFormat("en")
    for s, text in zip(expected[:15], costs, strict=True):
        assert s.price is not None and fmt.usd(s.price.usd, 0) in text and fmt.date(s.price.date) in text, text
        if s.rig:
            assert text.startswith(fmt.usd(s.cost_usd, 0)) and f"{s.rig.cards} ×" in text, text
            assert f"({fmt.usd(s.rig.usd, 0)})" in text, text
