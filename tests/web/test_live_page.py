"""The live pair page against the build: after every workbench control, the page the browser shows is
the page the generator renders for that scenario.

For each step the test renders the pair page in Python for the scenario the controls now hold (the
same templates and numbers the build uses) and compares it with what Chromium shows:
- every section the workbench recomputes has exactly the text of the Python render (banner, memory
  table, fine-tuning devices, launch commands, related links): no number or word is stale;
- every ``data-field`` value, in every section, equals the render's and ``estimate --json``;
- every section the workbench does not recompute (``data-static``) shows its "this shows the page's
  scenario" note exactly while the scenario differs from the page's own;
- reloading the URL restores the same page, and the language switcher keeps the scenario.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from generator.content.catalog import Catalog
from generator.publish.writer import Settings, assets, render_page
from generator.site import pages
from generator.site.pages import ModelGroup
from generator.site.pair_page import pair_data
from generator.sizing.scenario import Scenario
from tests.conftest import CONTENT
from tests.web import gates
from tests.web.test_workbench import DEFAULT, MODEL, assert_same, cli, shown

# What the page's sections say, keyed by their heading id, without what only the browser adds (the
# workbench, the memory chart it draws, copy buttons, the default-scenario notes, the list of every
# device) and with whitespace collapsed.
SECTIONS = """(root) => {
  const main = root.querySelector("main").cloneNode(true);
  const added = "#workbench, #memslot, button.copy, [data-default-note], .every-device, script";
  main.querySelectorAll(added).forEach((e) => e.remove());
  const out = {};
  for (const s of main.querySelectorAll("section")) {
    out[s.querySelector("h2").id] = {
      text: s.textContent.replace(/\\s+/g, " ").trim(),
      static: s.hasAttribute("data-static"),
      fields: Object.fromEntries([...s.querySelectorAll("[data-field]")].map((e) => [e.dataset.field, e.textContent])),
    };
  }
  return out;
}"""

# Each step sets one control; the scenario after it (engine-aware defaults as the workbench applies them).
STEPS: list[tuple[str, str, Any, dict[str, Any]]] = [
    ("#wb-context", "context", 32768, {}),
    ("button[data-context='16384']", "context", 16384, {}),
    ("#wb-context-slider", "context", 4096, {}),  # the slider's first step
    ("#wb-quant", "quant", "Q8_0", {}),
    ("#wb-kv", "kv_dtype", "q8_0", {}),
    ("#wb-batch", "batch", 4, {}),
    ("#wb-gpus", "gpus", 2, {}),
    ("#wb-offload", "offload", 0.25, {}),
    ("#wb-engine", "engine", "ollama", {"kv_dtype": "q8_0"}),
    ("#wb-quant", "quant", "Q3_K_M", {}),
    ("#wb-engine", "engine", "vllm", {"quant": "BF16", "kv_dtype": "bf16", "offload": 0.0}),
    ("#wb-quant", "quant", "AWQ", {}),
    ("#wb-kv", "kv_dtype", "fp8", {}),
]


def scenario_of(catalog: Catalog, s: dict[str, Any]) -> Scenario:
    return Scenario(
        fmt=catalog.format(s["quant"]),
        kv=catalog.kv_dtype(s["kv_dtype"]),
        engine=catalog.engine(s["engine"]),
        context=s["context"],
        batch=s["batch"],
        gpus=s["gpus"],
        offload=s["offload"],
        vision=s.get("vision", False),
    )


@pytest.fixture(scope="module")
def render(catalog: Catalog) -> Iterator[Any]:
    """The pair page as the build renders it, for any scenario (same catalog subset as the sample site)."""
    sub = catalog.subset(gates.SAMPLE_MODELS, gates.SAMPLE_HARDWARE)
    settings = Settings(
        base_url="https://sizewise.example",
        assets={name: url for name, (url, _) in assets(sub).items()},
        content=CONTENT,
        root=CONTENT,
    )
    groups: dict[str, ModelGroup] = {}

    def page_for(lang: str, hardware: str, s: dict[str, Any], model: str = MODEL) -> str:
        group = groups.get(model) or groups.setdefault(model, ModelGroup.build(sub, model, settings.assets))
        hw = sub.hardware[hardware]
        p = pair_data(sub, sub.models[model], hw, scenario_of(sub, s))
        pairs = tuple(p if q.hardware.slug == hardware else q for q in group.pairs)
        g = dataclasses.replace(group, pairs=pairs)
        route = next(r for r in pages.model_routes(sub, model, (lang,)) if r.hardware == hardware)
        return render_page(route, g, settings)[1].decode()

    yield page_for


def set_control(page: Any, selector: str, value: Any) -> None:
    if selector.startswith("button"):
        page.click(selector)
    elif selector == "#wb-context-slider":  # a range input: moved to its first step, as a drag would
        page.eval_on_selector(
            selector, "el => { el.value = el.min; el.dispatchEvent(new Event('input', {bubbles: true})); }"
        )
        assert page.input_value("#wb-context") == str(value)
    elif page.eval_on_selector(selector, "el => el.tagName") == "SELECT":
        page.select_option(selector, str(value))
    else:
        page.fill(selector, str(value))
        page.dispatch_event(selector, "input")


def compare(live: dict[str, Any], built: dict[str, Any], label: str) -> None:
    assert live.keys() == built.keys(), (label, live.keys() ^ built.keys())
    for key, want in built.items():
        got = live[key]
        assert got["fields"] == want["fields"], (label, key, got["fields"], want["fields"])
        if not want["static"]:
            assert got["text"] == want["text"], (label, key, got["text"], want["text"])


@pytest.mark.parametrize("lang", ["en", "fr", "zh"])
def test_every_section_follows_every_control(browser: Any, base_url: str, render: Any, lang: str) -> None:
    live_page = browser.new_page()
    built_page = browser.new_context(java_script_enabled=False).new_page()
    live_page.goto(f"{base_url}/{lang}/models/{MODEL}/rtx-4090/")
    live_page.wait_for_selector("#workbench[data-ready]")
    s = dict(DEFAULT)
    for selector, name, value, implied in [("", "", None, {}), *STEPS]:
        if selector:
            set_control(live_page, selector, value)
            s[name] = value
            s.update(implied)
        label = f"{lang} after {name}={value}"
        assert live_page.inner_text("#wb-error") == "", (label, live_page.inner_text("#wb-error"))
        assert_same(shown(live_page), cli(MODEL, "rtx-4090", s), label)
        built_page.set_content(render(lang, "rtx-4090", s))
        live = live_page.evaluate(SECTIONS, live_page.evaluate_handle("document"))
        built = built_page.evaluate(SECTIONS, built_page.evaluate_handle("document"))
        moved = s != DEFAULT
        compare(live, built, label)
        notes = live_page.eval_on_selector_all(
            "section[data-static] [data-default-note]", "ns => ns.map(n => !n.hidden && n.offsetParent !== null)"
        )
        assert notes and all(v == moved for v in notes), (label, notes)
    # Reload restores the page exactly; the other languages keep the scenario.
    before = live_page.evaluate(SECTIONS, live_page.evaluate_handle("document"))
    live_page.reload()
    live_page.wait_for_selector("#workbench[data-ready]")
    assert live_page.evaluate(SECTIONS, live_page.evaluate_handle("document")) == before
    other = "zh" if lang != "zh" else "fr"
    live_page.click(f"nav.langs a[hreflang^={other}]")
    live_page.wait_for_selector("#workbench[data-ready]")
    assert_same(shown(live_page), cli(MODEL, "rtx-4090", s), f"{lang} → {other}")
    live_page.context.close()
    built_page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_vision_encoder_switch_follows_the_engine(browser: Any, base_url: str, render: Any, lang: str) -> None:
    """A multimodal model: llama.cpp loads the mmproj only when asked (the page, memory and command follow
    the switch); vLLM always loads it (the switch is on and disabled); mlx-lm never (off, disabled)."""
    model, hardware = "gemma-3-27b-it", "rtx-pro-6000-blackwell"
    live_page = browser.new_page()
    built_page = browser.new_context(java_script_enabled=False).new_page()
    live_page.goto(f"{base_url}/{lang}/models/{model}/{hardware}/")
    live_page.wait_for_selector("#workbench[data-ready]")
    assert live_page.is_visible("#wb-vision") and not live_page.is_checked("#wb-vision")
    assert live_page.inner_text("[data-command='llama.cpp']").endswith("--no-mmproj")
    s = {**DEFAULT, "vision": False}
    for step in ("check", "vllm"):
        if step == "check":
            live_page.check("#wb-vision")
            s["vision"] = True
        else:
            live_page.select_option("#wb-engine", "vllm")  # the workbench picks the format and KV vLLM loads
            s.update(engine="vllm", quant=live_page.input_value("#wb-quant"), kv_dtype=live_page.input_value("#wb-kv"))
        assert live_page.inner_text("#wb-error") == ""
        built_page.set_content(render(lang, hardware, s, model))
        live = live_page.evaluate(SECTIONS, live_page.evaluate_handle("document"))
        built = built_page.evaluate(SECTIONS, built_page.evaluate_handle("document"))
        compare(live, built, f"{lang} {step}")
    assert live_page.is_checked("#wb-vision") and live_page.is_disabled("#wb-vision")
    assert "vision=true" in live_page.url
    live_page.context.close()
    built_page.context.close()
