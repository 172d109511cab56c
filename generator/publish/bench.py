"""`make bench`: build speed and output size on this machine against the budgets, on copies of the catalog.

Cold build (forced), no-op rebuild (wall time of the whole command), one model changed, one template
changed, --jobs 1 against all cores, and synthetic catalogs 2× and 2.5× larger (every model copied
under new slugs) with their output against the hosts' limits; pages/s, seconds and peak memory (the
largest process) with the core count. Then the output per pair against our budgets and the limits of
common static hosts, and, where ``hugo`` is installed, Hugo building as many pages of the same shape
as our pair pages (tables, rows, cells, links, bytes) in the same run: our speed is budgeted against it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path

from generator.publish.hosts import Output, host_lines, measure_output

ROOT = Path(__file__).resolve().parents[2]
BUDGET_PAGES_S = 300
# Against Hugo building pages of the same shape in the same run.
BUDGET_VS_HUGO = 2.5
BUDGET_NOOP_S = 1.0
BUDGET_ONE_MODEL_S = 15.0
BUDGET_PEAK_GIB = 2.0
# Synthetic catalogs: the growth the per-pair budgets are sized for.
GROWTH = (2.0, 2.5)
# Pair pages parsed for the average shape (evenly spaced over all of them; parsing every page takes minutes).
SHAPE_SAMPLE = 300


def run(content: Path, out: Path, *extra: str) -> tuple[float, int, float]:
    """(seconds, pages, peak RSS GiB of the largest process) of one build in a subprocess."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "generator", "--content", str(content), "build", "--out", str(out), *extra],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "CI": "1"},
        check=True,
    )
    seconds = time.perf_counter() - start
    peak = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024**2
    match = re.search(r"\(([\d,]+) pages", proc.stdout)
    pages = int(match.group(1).replace(",", "")) if match else 0
    return seconds, pages, peak


def synthetic(content: Path, factor: float, dest: Path) -> Path:
    """A copy of the catalog with ``factor`` times as many models: every model copied under new slugs, as
    many times as it takes (the last round copying the first models only)."""
    shutil.copytree(content, dest)
    models = sorted((content / "models").glob("*.yaml"))
    extra = round(len(models) * (factor - 1))
    for n in range(extra):
        path, i = models[n % len(models)], n // len(models) + 2
        text = path.read_text(encoding="utf-8")
        slug = f"{path.stem}-x{i}"
        copy = re.sub(r"^slug: .*$", f"slug: {slug}", text, count=1, flags=re.M)
        copy = re.sub(r"^hf_id: (.*)$", rf"hf_id: \1-x{i}", copy, count=1, flags=re.M)
        copy = re.sub(r"^name: (.*)$", rf"name: \1 (copy {i})", copy, count=1, flags=re.M)
        (dest / "models" / f"{slug}.yaml").write_text(copy, encoding="utf-8")
    return dest


@dataclasses.dataclass(frozen=True)
class Shape:
    """What a page holds: bytes, tables, table rows, cells, links and characters of text per cell."""

    bytes: int
    tables: int
    rows: int
    cells: int
    links: int
    cell_chars: int

    def describe(self) -> str:
        """A short human summary such as '31.2 kB, 9 tables, 120 rows, 480 cells, 90 links'."""
        return (
            f"{self.bytes / 1e3:,.1f} kB, {self.tables} tables, {self.rows} rows, {self.cells} cells, "
            f"{self.links} links"
        )


class _ShapeParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.counts = {"table": 0, "tr": 0, "cell": 0, "a": 0}
        self.cell_chars = 0
        self._in_cell = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("td", "th"):
            self.counts["cell"] += 1
            self._in_cell += 1
        elif tag == "a" and any(name == "href" for name, _ in attrs):
            self.counts["a"] += 1
        elif tag in ("table", "tr"):
            self.counts[tag] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._in_cell:
            self._in_cell -= 1

    def handle_data(self, data: str) -> None:
        if self._in_cell:
            self.cell_chars += len(data.strip())


def page_shape(html: bytes) -> Shape:
    """The shape of one HTML page."""
    parser = _ShapeParser()
    parser.feed(html.decode("utf-8"))
    parser.close()
    c = parser.counts
    return Shape(len(html), c["table"], c["tr"], c["cell"], c["a"], round(parser.cell_chars / max(c["cell"], 1)))


def average_shape(shapes: Sequence[Shape]) -> Shape:
    """The rounded mean of several shapes."""
    n = max(len(shapes), 1)
    fields = [f.name for f in dataclasses.fields(Shape)]
    return Shape(*(round(sum(getattr(s, name) for s in shapes) / n) for name in fields))


def pair_pages(out: Path) -> list[Path]:
    """Every pair page of a build (every language), sorted."""
    return sorted(out.glob("*/models/*/*/index.html"))


def sample(paths: Sequence[Path], n: int) -> list[Path]:
    """Up to ``n`` of ``paths``, evenly spaced (deterministic)."""
    if len(paths) <= n:
        return list(paths)
    return [paths[i * len(paths) // n] for i in range(n)]


HUGO_CONFIG = """baseURL = "https://example.org/"
disableKinds = ["home", "section", "taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]
"""
# One page: a title, the tables of the front matter, the links, and text that brings it to our page's size.
HUGO_LAYOUT = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>{{ .Title }}</title></head>
<body><main><h1>{{ .Title }}</h1>
{{ range .Params.tables }}<table><caption>{{ .caption }}</caption>
{{ range .rows }}<tr>{{ range . }}<td>{{ . }}</td>{{ end }}</tr>
{{ end }}</table>
{{ end }}<nav>{{ range .Params.links }}<a href="{{ .href }}">{{ .text }}</a> {{ end }}</nav>
<p>{{ .Params.filler }}</p></main></body></html>
"""


def _split(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` whole numbers that differ by at most one."""
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)] if parts else []


def hugo_page(index: int, shape: Shape, filler_chars: int) -> dict[str, object]:
    """The front matter of Hugo page ``index``: tables, rows, cells and links as in ``shape``, and filler text."""
    rows = _split(shape.rows, shape.tables)
    cells = _split(shape.cells, shape.rows)
    width = max(shape.cell_chars, 1)
    tables: list[dict[str, object]] = []
    row = 0
    for t, n_rows in enumerate(rows):
        table_rows = []
        for _ in range(n_rows):
            table_rows.append([f"{index}.{row}.{c}".ljust(width, "x")[:width] for c in range(cells[row])])
            row += 1
        tables.append({"caption": f"Table {t + 1}", "rows": table_rows})
    links = [{"href": f"/pairs/p{(index + i) % 100_000:05d}/", "text": f"link {i}"} for i in range(shape.links)]
    words = "lorem ipsum dolor sit amet "
    filler = (words * (filler_chars // len(words) + 1))[:filler_chars].rstrip().ljust(filler_chars, "x")
    return {"title": f"Page {index}", "tables": tables, "links": links, "filler": filler}


def write_hugo_site(root: Path, shape: Shape, pages: int, filler_chars: int) -> None:
    """A Hugo site of ``pages`` content pages, each rendering to a page of ``shape`` (JSON front matter)."""
    (root / "layouts" / "_default").mkdir(parents=True, exist_ok=True)
    (root / "hugo.toml").write_text(HUGO_CONFIG, encoding="utf-8")
    (root / "layouts" / "_default" / "single.html").write_text(HUGO_LAYOUT, encoding="utf-8")
    content = root / "content" / "pairs"
    content.mkdir(parents=True, exist_ok=True)
    for i in range(pages):
        data = json.dumps(hugo_page(i, shape, filler_chars), separators=(",", ":"))
        (content / f"p{i:05d}.md").write_text(data + "\n", encoding="utf-8")


def run_hugo(hugo: str, site: Path) -> tuple[float, list[Path]]:
    """(seconds, rendered pages) of ``hugo --minify`` on ``site``."""
    public = site / "public"
    shutil.rmtree(public, ignore_errors=True)
    start = time.perf_counter()
    subprocess.run(
        [hugo, "--minify", "--quiet", "--source", str(site), "--destination", str(public)],
        check=True,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - start, sorted(public.glob("pairs/*/index.html"))


def hugo_line(hugo: str, shape: Shape, pages: int, ours_pages_s: float, work: Path) -> list[str]:
    """Hugo building ``pages`` pages shaped like ours: its speed and ours against it."""
    version = subprocess.run([hugo, "version"], capture_output=True, text=True, check=True).stdout.split()[1]
    site = work / "hugo"
    # One page without filler first, to learn how many characters of text bring a page to our size.
    write_hugo_site(site, shape, 1, 0)
    _, probe = run_hugo(hugo, site)
    filler = max(shape.bytes - probe[0].stat().st_size, 0)
    shutil.rmtree(site)
    write_hugo_site(site, shape, pages, filler)
    seconds, rendered = run_hugo(hugo, site)
    theirs = average_shape([page_shape(p.read_bytes()) for p in sample(rendered, SHAPE_SAMPLE)])
    rate = len(rendered) / seconds
    shutil.rmtree(site, ignore_errors=True)
    return [
        f"  Hugo {version}: {len(rendered):,} pages ({theirs.describe()}) with --minify in {seconds:.1f} s: "
        f"{rate:,.0f} pages/s",
        f"  ours / Hugo: {ours_pages_s / rate:.2f}× (budget ≥ {BUDGET_VS_HUGO:g}×; ours {ours_pages_s:,.0f} pages/s, "
        "every page type, computing every estimate)",
    ]


Row = tuple[str, float, int, float, str]


@dataclasses.dataclass(frozen=True)
class Cold:
    """The forced cold build: its speed, its output and the average shape of its pair pages."""

    seconds: float
    pages: int
    output: Output
    pair_pages: int
    shape: Shape


def cold_build(content: Path, out: Path) -> tuple[Row, Cold]:
    """Build everything into ``out`` and measure what it wrote."""
    seconds, pages, peak = run(content, out, "--force")
    rate = pages / seconds
    pairs = pair_pages(out)
    shape = average_shape([page_shape(p.read_bytes()) for p in sample(pairs, SHAPE_SAMPLE)])
    row = ("cold, all cores", seconds, pages, peak, f"{rate:,.0f} pages/s (budget ≥ {BUDGET_PAGES_S})")
    return row, Cold(seconds, pages, measure_output(out), len(pairs), shape)


@dataclasses.dataclass(frozen=True)
class Growth:
    """A cold build of a synthetic catalog ``factor`` times today's: its time and its output."""

    factor: float
    seconds: float
    pages: int
    output: Output


def scenarios(work: Path) -> tuple[list[Row], Cold, list[Growth]]:
    """Every build scenario, on copies of the catalog under ``work``."""
    content = work / "content"
    shutil.copytree(ROOT / "content", content)
    out = work / "dist"
    row, cold = cold_build(content, out)
    rows = [row]
    noop_s, _, peak2 = run(content, out)
    rows.append(("no-op rebuild", noop_s, 0, peak2, f"wall time of the command (budget ≤ {BUDGET_NOOP_S:g} s)"))
    model = sorted((content / "models").glob("*.yaml"))[0]
    text = model.read_text(encoding="utf-8")
    model.write_text(
        re.sub(r"^(  max_context: )(\d+)$", lambda m: f"{m.group(1)}{int(m.group(2)) - 1}", text, count=1, flags=re.M),
        encoding="utf-8",
    )
    one_s, _, peak3 = run(content, out)
    rows.append(("one model changed", one_s, 0, peak3, f"budget ≤ {BUDGET_ONE_MODEL_S:g} s"))
    template = ROOT / "templates" / "pair.html"
    original = template.read_text(encoding="utf-8")
    try:
        template.write_text(original + "\n", encoding="utf-8")
        tpl_s, tpl_pages, peak4 = run(content, out)
    finally:
        template.write_text(original, encoding="utf-8")
    rows.append(("one template changed", tpl_s, tpl_pages, peak4, f"{tpl_pages / tpl_s:,.0f} pages/s"))
    shutil.rmtree(out, ignore_errors=True)
    one_job_s, one_pages, peak5 = run(content, work / "dist-j1", "--force", "--jobs", "1")
    note = f"{one_pages / one_job_s:,.0f} pages/s; all cores {one_job_s / cold.seconds:.2f}× faster"
    rows.append(("cold, --jobs 1", one_job_s, one_pages, peak5, note))
    shutil.rmtree(work / "dist-j1", ignore_errors=True)
    growth = []
    for factor in GROWTH:
        big = synthetic(ROOT / "content", factor, work / f"content-x{factor:g}")
        big_out = work / f"dist-x{factor:g}"
        s, p, pk = run(big, big_out, "--force")
        growth.append(Growth(factor, s, p, measure_output(big_out)))
        rows.append((f"cold, catalog ×{factor:g}", s, p, pk, f"{p / s:,.0f} pages/s; {s / cold.seconds:.2f}× the time"))
        shutil.rmtree(big_out, ignore_errors=True)
        shutil.rmtree(big, ignore_errors=True)
    return rows, cold, growth


def growth_lines(growth: Sequence[Growth]) -> list[str]:
    """Each synthetic catalog's output: pairs, size and files, against every host."""
    lines = []
    for g in growth:
        o = g.output
        lines.append(f"Catalog ×{g.factor:g}: {o.pairs:,} pairs, {o.summary()}; built in {g.seconds:.1f} s")
        lines += host_lines(o)
    return lines


def main() -> int:
    """Run every scenario and print the figures against the budgets."""
    cores = os.cpu_count() or 1
    work = Path(tempfile.mkdtemp(prefix="sizewise-bench-"))
    try:
        rows, cold, growth = scenarios(work)
        rate = cold.pages / cold.seconds
        hugo = shutil.which("hugo")
        if hugo:
            versus = hugo_line(hugo, cold.shape, cold.pair_pages, rate, work)
        else:
            versus = ["  hugo is not installed (`make bench` installs Debian's where apt works): comparison skipped"]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"Sizewise build benchmark on {cores} cores (peak memory budget ≤ {BUDGET_PEAK_GIB:.0f} GiB)")
    print(f"{'scenario':24} {'seconds':>8} {'pages':>8} {'peak GiB':>9}  notes")
    for name, s, p, pk, note in rows:
        print(f"{name:24} {s:8.1f} {p:8,} {pk:9.2f}  {note}")
    print(
        f"\nCold build: {cold.pages:,} pages in {cold.seconds:.1f} s, {rate:,.0f} pages/s (budget ≥ {BUDGET_PAGES_S})"
    )
    output = cold.output
    print(
        f"Full output as deployed (dotfiles left out): {output.files:,} files, {output.bytes / 1e6:,.1f} MB; "
        f"largest {output.largest} ({output.largest_bytes / 2**20:,.2f} MiB)"
    )
    print("\n".join(host_lines(output)))
    print("\n".join(growth_lines(growth)))
    print(f"Pair pages: {cold.pair_pages:,}; average of {min(SHAPE_SAMPLE, cold.pair_pages)}: {cold.shape.describe()}")
    print("\n".join(versus))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
