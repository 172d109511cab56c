"""`make audit`: the web gates on the full site, with a written report in reports/audit.md."""

from __future__ import annotations

import datetime as dt
import time

from generator.content.loader import load_catalog
from generator.publish.writer import ROOT, build
from tests.web import gates

LANGS = ("en", "fr", "zh")


def main() -> int:
    """Build dist/, run every gate on it, write reports/audit.md; exit 1 if a gate found problems."""
    from playwright.sync_api import sync_playwright

    start = time.perf_counter()
    dist = ROOT / "dist"
    reports = ROOT / "reports"
    reports.mkdir(exist_ok=True)
    catalog = load_catalog(ROOT / "content")
    summary = build(catalog, dist, base_url="https://sizewise.dev")
    lines = [f"# Web audit, {dt.date.today().isoformat()}", "", f"Build: {summary}", ""]
    problems = 0

    pages = sorted(dist.rglob("*.html"))
    errors = gates.validate(pages) + gates.validate(sorted((dist / "badges").glob("*.svg")), svg=True)
    problems += len(errors)
    lines += ["## Nu HTML Checker", f"{len(pages)} pages and the badges: {len(errors)} errors", *errors[:50], ""]

    model = next(iter(catalog.models))
    hardware = next(iter(catalog.hardware))
    with gates.serve(dist) as base:
        broken, fetched = gates.crawl(base, ["/", *(f"/{lang}/" for lang in LANGS), "/404.html"], limit=100_000)
        problems += len(broken)
        lines += ["## Links", f"{fetched} URLs fetched over HTTP: {len(broken)} broken", *broken[:50], ""]

        paths = [
            "/{l}/",
            "/{l}/models/",
            "/{l}/hardware/",
            "/{l}/methodology/",
            "/{l}/accuracy/",
            f"/{{l}}/models/{model}/",
            f"/{{l}}/hardware/{hardware}/",
            f"/{{l}}/models/{model}/{hardware}/",
        ]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=gates.CHROMIUM, args=gates.CHROME_FLAGS)
            page = browser.new_page()
            violations = [v for lang in LANGS for path in paths for v in gates.axe(page, base + path.format(l=lang))]
            layout = [
                x for lang in LANGS for path in paths for x in gates.layout_problems(page, base + path.format(l=lang))
            ]
            browser.close()
        problems += len(violations) + len(layout)
        lines += [
            "## Accessibility (axe-core)",
            f"{len(paths) * 3} pages: {len(violations)} serious or critical",
            *(f"{v.page}: {v.rule} ({v.impact})" for v in violations),
            "",
        ]
        lines += ["## Layout at 375 px and console", f"{len(paths) * 3} pages: {len(layout)} problems", *layout, ""]

        lines += [
            "## Lighthouse",
            "| page | performance | accessibility | best practices | SEO |",
            "|---|---|---|---|---|",
        ]
        for path in paths[0], paths[4], paths[5], paths[6]:
            url = base + path.format(l="en")
            s = gates.lighthouse(url, reports / "lighthouse")
            problems += sum(v < 95 for v in s.values())
            lines.append(
                f"| {path.format(l='en')} | {s['performance']} | {s['accessibility']} | "
                f"{s['best-practices']} | {s['seo']} |"
            )
    lines += ["", f"{problems} problems in {time.perf_counter() - start:.0f} s"]
    (reports / "audit.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
