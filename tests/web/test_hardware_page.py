"""The hardware page's controls, in Chromium: another context shows the build's pick at that context for
every model (hardware_page.HardwareRow.at), a task keeps only the models of that task, and both live in the
URL; back at the default context the page's own table returns."""

from __future__ import annotations

from typing import Any

from generator.content.catalog import Catalog
from generator.site.hardware_page import hardware_rows
from generator.site.i18n import NumberFormat
from generator.sizing.estimate import hosts
from tests.web import gates

HARDWARE = "rtx-4090"


def cells(page: Any) -> dict[str, list[str]]:
    """Each visible model row's cells after the model's name, by model slug."""
    got = page.eval_on_selector_all(
        "#hw-models tr[data-model]:not([hidden])",
        "rs => rs.map(r => [r.dataset.model, [...r.cells].slice(1).map(c => c.textContent.trim())])",
    )
    return dict(got)


def test_hardware_page_context_and_task(page: Any, base_url: str, catalog: Catalog) -> None:
    sub = catalog.subset(gates.SAMPLE_MODELS, gates.SAMPLE_HARDWARE)
    hw = sub.hw(HARDWARE)
    fmt = NumberFormat("en")
    page.goto(f"{base_url}/en/hardware/{HARDWARE}/")
    page.wait_for_selector("#hw-controls")
    before = cells(page)
    assert set(before) == {m.slug for m in sub.models.values() if hw in hosts(sub, m)}
    page.select_option("#hw-context", "32768")
    after = cells(page)
    for slug, texts in after.items():
        model = sub.model(slug)
        row = dict(zip((h.slug for h in hosts(sub, model)), hardware_rows(sub, model), strict=True))[HARDWARE]
        pick = next(a for a in row.at if a[0] == min(32768, model.max_context))
        quant, label, total, verdict, decode = pick[1:6]
        if quant is None:
            assert "does not fit" in texts[0] and texts[1:] == ["—", "—", "—"]
        else:
            assert texts[0] == f"{quant} ({label})" and texts[1].startswith(fmt.bytes(total))
            assert texts[2].startswith(f"{fmt.sig(decode)} tok/s")
    assert "32K" in page.inner_text("#hw-models caption") and "context=32768" in page.url
    page.select_option("#hw-task", "code")
    assert set(cells(page)) == {s for s in before if sub.model(s).domain == "code"}
    assert "task=code" in page.url
    page.select_option("#hw-task", "")
    page.select_option("#hw-context", "8192")
    assert cells(page) == before
