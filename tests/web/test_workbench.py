"""The workbench and search in Chromium: every control changes the displayed numbers to exactly what
`python -m generator estimate … --json` prints for the same scenario; search finds by partial names."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from generator.content.catalog import Catalog
from tests.conftest import CONTENT, ROOT

MODEL, HARDWARE = "qwen3-30b-a3b", "rtx-4090"
# The pair pages' own scenario (the workbench's starting point).
DEFAULT: dict[str, Any] = {
    "quant": "Q4_K_M",
    "engine": "llama.cpp",
    "kv_dtype": "fp16",
    "context": 8192,
    "batch": 1,
    "gpus": 1,
    "offload": 0.0,
}
INTEGER = ("_bytes", "max_context", "min_gpus", "params_")


def cli(model: str, hardware: str, s: dict[str, Any]) -> dict[str, Any]:
    argv = [
        sys.executable,
        "-m",
        "generator",
        "--content",
        str(CONTENT),
        "estimate",
        model,
        hardware,
        "--quant",
        s["quant"],
        "--engine",
        s["engine"],
        "--kv-dtype",
        s["kv_dtype"],
        "--context",
        str(s["context"]),
        "--batch",
        str(s["batch"]),
        "--gpus",
        str(s["gpus"]),
        "--offload",
        str(s["offload"]),
        "--json",
    ]
    out = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def shown(page: Any, scope: str = "main") -> dict[str, str]:
    return {
        el.get_attribute("data-field"): el.get_attribute("data-value")
        for el in page.query_selector_all(f"{scope} [data-field]")
    }


def assert_same(displayed: dict[str, str], expected: dict[str, Any], label: str) -> None:
    assert displayed, label
    for key, raw in displayed.items():
        want = expected[key]
        if want is None:
            assert raw == "", (label, key, raw)
        elif isinstance(want, str):
            assert raw == want, (label, key, raw, want)
        elif any(key.startswith(p) or key.endswith(p) for p in INTEGER):
            assert int(raw) == want, (label, key, raw, want)
        else:
            assert float(raw) == pytest.approx(want, rel=1e-9), (label, key, raw, want)


def test_commands_on_load_are_the_static_ones(page: Any, base_url: str) -> None:
    """The browser rebuilds every command block from its own inputs: the text must not change."""
    for model, hardware in ((MODEL, HARDWARE), ("llama-3-1-8b-instruct", "rtx-4090"), ("deepseek-v3", "h100-sxm")):
        url = f"{base_url}/en/models/{model}/{hardware}/"
        with urllib.request.urlopen(url) as response:
            html = response.read().decode()
        static = [unescape(m) for m in re.findall(r"<code [^>]*data-command[^>]*>(.*?)</code>", html, re.S)]
        page.goto(url)
        page.wait_for_selector("#workbench[data-ready]")
        live = page.eval_on_selector_all("[data-command]", "els => els.map(e => e.textContent)")
        assert len(static) >= 2 and live == static, (model, hardware)


def test_context_presets_and_slider(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/fr/models/{MODEL}/{HARDWARE}/")
    page.wait_for_selector("#workbench[data-ready]")
    page.click("button[data-context='32768']")
    assert page.input_value("#wb-context") == "32768"
    assert page.get_attribute("[data-field=kv_cache_bytes]", "data-value") == str(
        cli(
            MODEL,
            HARDWARE,
            {**DEFAULT, "context": 32768},
        )["kv_cache_bytes"]
    )
    assert "Gio" in page.inner_text("[data-field=total_bytes]")  # French units in the live display


def test_comparison_matches_the_cli(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/en/models/{MODEL}/{HARDWARE}/")
    page.wait_for_selector("#workbench[data-ready]")
    page.select_option("#wb-compare", "h100-sxm")
    page.wait_for_selector("#wb-compare-table:not([hidden])")
    other = cli(MODEL, "h100-sxm", DEFAULT)
    cells = {
        row.get_attribute("data-key"): row.query_selector_all("td")[1].get_attribute("data-value")
        for row in page.query_selector_all("#wb-compare-table tbody tr")
    }
    assert int(cells["total_bytes"]) == other["total_bytes"]
    assert float(cells["decode_tok_s"]) == pytest.approx(other["decode_tok_s"], rel=1e-9)
    assert cells["verdict"] == other["verdict"]


def test_token_simulator_streams_text_for_both_devices_beside_reading_speed(page: Any, base_url: str) -> None:
    """The simulator streams the page's sample text at this device's decode rate, the compared device's
    beside it, and a lane at reading speed (238 words a minute × 1.333 tokens a word)."""
    page.goto(f"{base_url}/en/models/llama-3-1-8b-instruct/h100-sxm/")
    page.wait_for_selector("#workbench[data-ready]")
    page.select_option("#wb-compare", "rtx-4090")
    page.click("#wb-sim-start")
    page.wait_for_function("() => document.getElementById('wb-sim-out').textContent.length > 60", timeout=10_000)
    lanes = page.eval_on_selector_all(
        ".lane",
        "els => els.map(e => ({lane: e.dataset.lane, hidden: e.hidden, rate: e.dataset.rate,"
        " head: e.querySelector('.lane-h').textContent, text: e.querySelector('pre').textContent}))",
    )
    by = {lane["lane"]: lane for lane in lanes}
    assert not any(lane["hidden"] for lane in lanes)
    decode = float(page.get_attribute("[data-field=decode_tok_s]", "data-value") or "nan")
    assert float(by["a"]["rate"]) == pytest.approx(decode, rel=1e-12)
    assert by["a"]["head"].startswith("NVIDIA H100") and "RTX 4090" in by["b"]["head"]
    compared = page.get_attribute("#wb-compare-table tr[data-key=decode_tok_s] td:nth-of-type(2)", "data-value")
    assert float(by["b"]["rate"]) == pytest.approx(float(compared or "nan"), rel=1e-12)
    assert float(by["read"]["rate"]) == pytest.approx(238 / 60 * 1.333, rel=1e-9)
    sample = "A language model writes one token at a time. Every new token reads all of the weights from memory"
    for lane in lanes:
        assert sample.startswith(lane["text"][: len(sample)]), lane
    # The H100 runs ahead of a reader.
    assert len(by["a"]["text"]) > len(by["read"]["text"])


def test_without_javascript_nothing_but_interactivity_is_lost(browser: Any, base_url: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{base_url}/zh/models/{MODEL}/{HARDWARE}/")
    assert page.locator("#workbench").is_hidden()
    assert page.locator("#search").is_hidden()
    # The static report: the numbers are in the page (the browser adds their exact values as data-value).
    assert page.inner_text("[data-field=total_bytes]").endswith("GiB")
    assert page.locator("[data-field=decode_tok_s]").first.is_visible()
    assert page.locator("h1").is_visible()
    context.close()


@pytest.mark.parametrize(
    ("lang", "query", "expected"),
    [
        ("en", "qwen 30b 4090", "/en/models/qwen3-30b-a3b/rtx-4090/"),
        ("fr", "gemm", "/fr/models/gemma-3-27b-it/"),
        ("zh", "deepsek", "/zh/models/deepseek-v3/"),
        ("zh", "英伟达 4090", "/zh/hardware/rtx-4090/"),
        ("fr", "m4 max", "/fr/hardware/apple-m4-max-40c-128gb/"),
        ("en", "llama 8b h100", "/en/models/llama-3-1-8b-instruct/h100-sxm/"),
    ],
)
def test_search_finds_partial_names(page: Any, base_url: str, lang: str, query: str, expected: str) -> None:
    page.goto(f"{base_url}/{lang}/")
    page.wait_for_selector("#search[data-ready]")
    page.fill("#search-q", query)
    page.wait_for_selector("#search-results li")
    first = page.get_attribute("#search-results li a", "href")
    assert first == expected, page.inner_text("#search-results")
    page.press("#search-q", "Enter")
    page.wait_for_url(f"{base_url}{expected}")


def test_search_keyboard(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/en/hardware/")
    page.wait_for_selector("#search[data-ready]")
    page.fill("#search-q", "rtx")
    page.wait_for_selector("#search-results li")
    page.press("#search-q", "ArrowDown")
    assert page.get_attribute("#search-results li:nth-child(2)", "aria-selected") == "true"
    page.press("#search-q", "Escape")
    assert page.locator("#search-results").is_hidden()


def test_hardware_picker_opens_the_pair(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/en/models/{MODEL}/")
    page.wait_for_selector("#hw-picker[data-ready]")
    page.select_option("#hw-pick", "h100-sxm")
    page.click("#hw-picker button")
    page.wait_for_url(f"{base_url}/en/models/{MODEL}/h100-sxm/")


def test_pages_run_under_their_content_security_policy(page: Any, base_url: str) -> None:
    """The server sends the site's _headers: every page type works with no policy violation."""
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    for lang in ("en", "fr", "zh"):
        for path in ("", f"models/{MODEL}/", f"models/{MODEL}/{HARDWARE}/", f"hardware/{HARDWARE}/", "accuracy/"):
            response = page.goto(f"{base_url}/{lang}/{path}")
            assert response is not None and "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector("#search-q")
    page.fill("#search-q", "qwen")
    page.goto(f"{base_url}/en/models/{MODEL}/{HARDWARE}/")
    page.wait_for_selector("#workbench[data-ready]")
    assert problems == []


@pytest.mark.parametrize("lang", ["en", "fr", "zh"])
def test_first_phone_screen_answers_fit_speed_and_cost(browser: Any, base_url: str, lang: str) -> None:
    """On a 375 × 667 phone the pair page's first screen shows the verdict, decode speed and cost."""
    context = browser.new_context(viewport={"width": 375, "height": 667})
    page = context.new_page()
    page.goto(f"{base_url}/{lang}/models/{MODEL}/{HARDWARE}/")
    for key in ("verdict", "decode_tok_s", "ttft_s", "usd_per_mtok"):
        box = page.locator(f"#banner [data-field={key}]").bounding_box()
        assert box is not None and box["y"] + box["height"] <= 667, (lang, key, box)
    assert page.inner_text("#banner [data-field=decode_tok_s]").endswith("tok/s")
    context.close()


def test_copy_buttons_copy_the_command_as_shown(browser: Any, base_url: str) -> None:
    """Each command has a Copy button; it copies the text the page shows after a workbench change."""
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page = context.new_page()
    page.goto(f"{base_url}/fr/models/{MODEL}/{HARDWARE}/")
    page.wait_for_selector("#workbench[data-ready]")
    page.fill("#wb-context", "16384")
    page.dispatch_event("#wb-context", "input")
    button = page.locator("[data-command='llama.cpp'] >> xpath=.. >> button.copy")
    assert button.inner_text() == "Copier"
    button.click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.inner_text("[data-command='llama.cpp']") and "-c 16384" in copied
    assert button.inner_text() == "Copié"
    context.close()


def test_scenario_lives_in_the_url_and_across_languages(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/en/models/{MODEL}/{HARDWARE}/")
    page.wait_for_selector("#workbench[data-ready]")
    s = {"quant": "Q8_0", "engine": "llama.cpp", "kv_dtype": "q8_0", "context": 16384, "batch": 2, "gpus": 2}
    page.select_option("#wb-quant", "Q8_0")
    page.select_option("#wb-kv", "q8_0")
    for selector, value in (("#wb-context", 16384), ("#wb-batch", 2), ("#wb-gpus", 2)):
        page.fill(selector, str(value))
        page.dispatch_event(selector, "input")
    page.select_option("#wb-compare", "h100-sxm")
    for key in ("quant=Q8_0", "kv_dtype=q8_0", "context=16384", "batch=2", "gpus=2", "compare=h100-sxm"):
        assert key in page.url, (key, page.url)
    assert "engine=" not in page.url  # only what differs from the page's own scenario
    # The memory table says what it now holds; sections the workbench does not recompute say so.
    assert page.inner_text("[data-describe=kv]") == "16,384 tokens × 2 sequences in q8_0"
    assert page.is_visible("section:has(> #matrix-h) [data-default-note]")
    assert "Q4_K_M on llama.cpp, 8K tokens" in page.inner_text("section:has(> #matrix-h) [data-default-note]")
    expected = cli(MODEL, HARDWARE, {**s, "offload": 0.0})
    page.reload()
    page.wait_for_selector("#workbench[data-ready]")
    assert page.input_value("#wb-quant") == "Q8_0" and page.input_value("#wb-context") == "16384"
    assert_same(shown(page), expected, "reloaded")
    assert not page.is_hidden("#wb-compare-table") and page.input_value("#wb-compare") == "h100-sxm"
    french = page.get_attribute("nav.langs a[hreflang=fr]", "href")
    assert french is not None and "context=16384" in french and "compare=h100-sxm" in french
    page.click("nav.langs a[hreflang^=zh]")
    page.wait_for_selector("#workbench[data-ready]")
    assert "/zh/" in page.url and page.input_value("#wb-kv") == "q8_0"
    assert_same(shown(page), expected, "in Chinese")


def test_impossible_choices_are_disabled_or_said(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/en/models/{MODEL}/{HARDWARE}/")
    page.wait_for_selector("#workbench[data-ready]")
    # MLX does not run on an NVIDIA card: the engine and its only format are disabled, with the reason.
    for selector in ("#wb-engine option[value=mlx]", "#wb-quant option[value='MLX 4-bit']"):
        assert page.eval_on_selector(selector, "o => o.disabled"), selector
        assert "MLX" in (page.get_attribute(selector, "title") or ""), selector
    # Choosing vLLM with a GGUF format keeps vLLM and takes a format it loads.
    page.select_option("#wb-engine", "vllm")
    assert page.input_value("#wb-engine") == "vllm"
    assert page.input_value("#wb-quant") in ("BF16", "FP8", "AWQ", "GPTQ")
    assert page.inner_text("#wb-error") == ""
    # A device count tensor parallelism cannot use: every number goes blank and the banner says why.
    page.fill("#wb-gpus", "3")
    page.dispatch_event("#wb-gpus", "input")
    problem = page.inner_text("#wb-error")
    assert "cannot split" in problem
    assert problem in page.inner_text("#banner")
    assert set(shown(page).values()) == {""}


@pytest.mark.parametrize(("lang", "words"), [("fr", "ne peut pas répartir"), ("zh", "无法将")])
def test_reasons_are_in_the_pages_language(page: Any, base_url: str, lang: str, words: str) -> None:
    page.goto(f"{base_url}/{lang}/models/{MODEL}/{HARDWARE}/")
    page.wait_for_selector("#workbench[data-ready]")
    page.select_option("#wb-engine", "vllm")
    page.fill("#wb-gpus", "3")
    page.dispatch_event("#wb-gpus", "input")
    assert words in page.inner_text("#wb-error")
    assert "does not" not in (page.get_attribute("#wb-engine option[value=mlx]", "title") or "")


def test_the_result_stays_in_view_on_a_phone(browser: Any, base_url: str) -> None:
    phone = browser.new_page(viewport={"width": 375, "height": 667})
    phone.goto(f"{base_url}/en/models/{MODEL}/{HARDWARE}/")
    phone.wait_for_selector("#workbench[data-ready]")
    phone.fill("#wb-context", "32768")
    phone.dispatch_event("#wb-context", "input")
    phone.locator("#wb-offload").scroll_into_view_if_needed()
    box = phone.locator(".wb-summary").bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 667
    keys = cli(
        MODEL,
        HARDWARE,
        {**DEFAULT, "context": 32768},
    )
    from generator.site.i18n import NumberFormat

    assert f"{NumberFormat('en').sig(keys['decode_tok_s'])} tok/s" in phone.inner_text(".wb-summary")
    phone.close()


def test_memory_chart_is_labelled_and_readable_on_a_phone(browser: Any, base_url: str) -> None:
    phone = browser.new_page(viewport={"width": 375, "height": 740})
    phone.goto(f"{base_url}/en/models/{MODEL}/{HARDWARE}/")
    phone.wait_for_selector("#workbench[data-ready]")
    sizes = phone.eval_on_selector_all(
        "#memchart text",
        "ts => ts.map(t => parseFloat(getComputedStyle(t).fontSize) * t.ownerSVGElement.getScreenCTM().a)",
    )
    assert sizes and min(sizes) >= 11, sizes
    weights = phone.text_content("#memchart text.seg-label[data-seg=weights]")
    assert weights == phone.inner_text("td[data-field=weights_bytes]")
    phone.fill("#wb-batch", "8")  # the KV cache grows past the label width: it gets its size
    phone.dispatch_event("#wb-batch", "input")
    assert phone.text_content("#memchart text.seg-label[data-seg=kv_cache]") == phone.inner_text(
        "td[data-field=kv_cache_bytes]"
    )
    phone.close()


def test_cost_follows_hours_and_electricity(page: Any, base_url: str, catalog: Catalog) -> None:
    """Hours of use and the electricity price change the monthly cost, electricity and break-even exactly
    as the engine computes them with those assumptions; the URL keeps them."""
    import dataclasses

    from generator.sizing.estimate import default_scenario, estimate
    from generator.sizing.scenario import facts_of

    page.goto(f"{base_url}/en/models/{MODEL}/h100-sxm/")
    page.wait_for_selector("#workbench[data-ready]")
    for selector, value in (("#wb-hours", "24"), ("#wb-kwh", "0.3")):
        page.fill(selector, value)
        page.dispatch_event(selector, "input")
    facts = facts_of(catalog)
    a = facts.assumptions.model_copy(update={"hours_per_day": 24.0, "electricity_usd_per_kwh": 0.3})
    hw = catalog.hardware["h100-sxm"]
    model = catalog.models[MODEL]
    est = estimate(model, hw, default_scenario(catalog, model, hw), dataclasses.replace(facts, assumptions=a))
    got = shown(page)
    for key in ("monthly_usd", "power_usd_per_hour", "breakeven_months"):
        want = getattr(est.cost, key)
        assert want is not None and float(got[key]) == pytest.approx(want, rel=1e-9), key
    assert page.inner_text("[data-hours]") == "24"
    assert "hours=24" in page.url and "kwh=0.3" in page.url
    # The offer table: each provider's month at 24 h a day, as cost.offer_monthly computes it.
    from generator.sizing.cost import offer_monthly

    cells = page.eval_on_selector_all("[data-offer-hour]", "els => els.map(e => e.dataset.value)")
    offers = catalog.offers_for("h100-sxm")[: len(cells)]
    assert len(cells) >= 3
    for cell, offer in zip(cells, offers, strict=True):
        assert float(cell) == pytest.approx(offer_monthly(offer, hw.chips, hw.chips, a), rel=1e-12), offer.provider


def test_budget_says_what_it_buys_rents_and_gets_from_an_api(page: Any, base_url: str, catalog: Catalog) -> None:
    """A budget on the pair page says whether it buys the setup's devices (what is left, and the months
    of electricity that pays for), how long it rents them and the tokens that is, and the cheapest API's
    tokens: cost.budget_use's figures, in the page's formatting; the URL keeps it."""
    import dataclasses

    from generator.site.i18n import NumberFormat
    from generator.sizing.cost import budget_use
    from generator.sizing.estimate import default_scenario, estimate
    from generator.sizing.scenario import facts_of

    facts = facts_of(catalog)
    a = facts.assumptions.model_copy(update={"hours_per_day": 12.0})
    hw = catalog.hardware["h100-sxm"]
    model = catalog.models[MODEL]
    est = estimate(model, hw, default_scenario(catalog, model, hw), dataclasses.replace(facts, assumptions=a))
    assert est.cost.buy_usd is not None
    fmt = NumberFormat("en")
    page.goto(f"{base_url}/en/models/{MODEL}/h100-sxm/")
    page.wait_for_selector("#workbench[data-ready]")
    assert page.is_hidden("#wb-budget-out")
    page.fill("#wb-hours", "12")
    page.dispatch_event("#wb-hours", "input")
    for budget in (est.cost.buy_usd + 5000, 1000.0):
        b = budget_use(est.cost, budget, a)
        page.fill("#wb-budget", f"{budget:g}")
        page.dispatch_event("#wb-budget", "input")
        text = page.inner_text("#wb-budget-out")
        if b.buys:
            assert b.left_usd is not None and b.power_months is not None
            assert f"buys these devices ({fmt.usd(est.cost.buy_usd, 0)}) with {fmt.usd(b.left_usd, 0)} left" in text
            assert f"{fmt.sig(b.power_months)} months of their electricity at 12 h a day" in text
        else:
            assert f"{fmt.usd(budget, 0)} does not buy these devices ({fmt.usd(est.cost.buy_usd, 0)})" in text
        assert b.rent_months is not None and b.rent_mtok is not None and b.api_mtok is not None
        assert f"{fmt.sig(b.rent_months)} months at 12 h a day, {fmt.sig(b.rent_mtok)} million output tokens" in text
        assert f"The cheapest hosted API: {fmt.sig(b.api_mtok)} million output tokens." in text
    assert "budget=1000" in page.url


def test_pair_page_links_every_device_by_memory_and_vendor(page: Any, base_url: str, sample: Path) -> None:
    """With JavaScript the Related section lists every accelerator of the build, grouped by memory and
    vendor, once the reader nears it; the page's own is marked and not linked, and every link opens this
    model on that accelerator."""
    hardware = sorted(p.name for p in (sample / "fr/models" / MODEL).iterdir() if p.is_dir())
    page.goto(f"{base_url}/fr/models/{MODEL}/{HARDWARE}/")
    page.wait_for_selector("#workbench[data-ready]")
    assert page.locator(".every-device").count() == 0  # drawn when the reader nears it, not at load
    page.locator("#links-h").scroll_into_view_if_needed()
    page.wait_for_selector(".every-device dl.devices")
    links = page.eval_on_selector_all(".every-device a", "els => els.map(e => e.getAttribute('href'))")
    assert sorted(links) == sorted(f"../{h}/" for h in hardware if h != HARDWARE)
    assert page.inner_text(".every-device [aria-current=page]") == "GeForce RTX 4090"
    groups = page.eval_on_selector_all(".every-device dt", "els => els.map(e => e.textContent)")
    assert groups and all("Gio" in g for g in groups), groups
    assert page.inner_text(".every-device h3") == "Tous les appareils, par mémoire et par fabricant"
    page.click(".every-device a[href='../h100-sxm/']")
    page.wait_for_url(f"{base_url}/fr/models/{MODEL}/h100-sxm/")
    # Without JavaScript the section links the model page's list of every device.
    context = page.context.browser.new_context(java_script_enabled=False)
    bare = context.new_page()
    bare.goto(f"{base_url}/fr/models/{MODEL}/{HARDWARE}/")
    assert bare.locator(".every-device").count() == 0
    bare.click("a[href='../#devices-h']")
    listed = bare.eval_on_selector_all("#devices-h ~ dl.devices a", "els => els.map(e => e.getAttribute('href'))")
    assert sorted(listed) == [f"{h}/" for h in hardware]
    context.close()


@pytest.mark.parametrize(
    "query",
    [
        "gpus=1.5&batch=3.7",
        "batch=1e308",
        "context=1e308&gpus=1e308",
        "budget=1e308",
        "batch=-2&gpus=0&context=0.5",
        "batch=Infinity&budget=NaN&kwh=1e308&hours=1e308",
    ],
)
def test_numbers_from_the_url_outside_the_clis_ranges_are_ignored(page: Any, base_url: str, query: str) -> None:
    """A shared link cannot make the workbench print `--parallel 3.7`, `-c Infinity` or "$1e+308 buys":
    a number a control cannot take (outside its min and max, which are the command line's ranges or
    narrower, or a fraction where it counts devices, sequences or tokens) is ignored (issue #33, N12)."""
    page.goto(f"{base_url}/en/models/{MODEL}/{HARDWARE}/?{query}")
    page.wait_for_selector("#workbench[data-ready]")
    assert page.input_value("#wb-gpus") == "1" and page.input_value("#wb-batch") == "1"
    assert page.input_value("#wb-context") == "8192"
    assert page.is_hidden("#wb-budget-out")
    commands = " ".join(page.eval_on_selector_all("[data-command]", "els => els.map(e => e.textContent)"))
    for bad in ("Infinity", "NaN", "e+", "3.7", "1.5"):
        assert bad not in commands, (bad, commands)
    text = page.inner_text("#workbench")
    assert "Infinity" not in text and "NaN" not in text and "e+308" not in text
    # Typed into the form, a fraction of a device or a sequence is a whole number in the commands.
    for selector, value in (("#wb-batch", "3.7"), ("#wb-gpus", "1.4")):
        page.fill(selector, value)
        page.dispatch_event(selector, "input")
    commands = " ".join(page.eval_on_selector_all("[data-command]", "els => els.map(e => e.textContent)"))
    assert "3.7" not in commands and "1.4" not in commands, commands
