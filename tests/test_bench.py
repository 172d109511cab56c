"""`make bench`'s measuring helpers: page shapes, the Hugo pages shaped like ours, output against host limits."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from generator.publish import bench, hosts, writer
from generator.publish.bench import Shape

PAGE = (
    b"<!doctype html><html><body><a href=/a/>A</a><a name=x>no href</a>"
    b"<table><tr><th>head</th><th>x</th></tr><tr><td>1234</td><td>ab</td></tr></table>"
    b"<table><tr><td>abcdef</td></tr></table></body></html>"
)


def test_page_shape_counts_tables_rows_cells_and_links() -> None:
    shape = bench.page_shape(PAGE)
    assert shape == Shape(bytes=len(PAGE), tables=2, rows=3, cells=5, links=1, cell_chars=round(17 / 5))
    assert bench.average_shape([shape, Shape(0, 0, 1, 1, 3, 1)]) == Shape(round(len(PAGE) / 2), 1, 2, 3, 2, 2)


def test_hugo_pages_have_the_shape_asked_for(tmp_path: Path) -> None:
    shape = Shape(bytes=20_000, tables=5, rows=32, cells=181, links=36, cell_chars=12)
    bench.write_hugo_site(tmp_path, shape, 3, filler_chars=500)
    files = sorted((tmp_path / "content" / "pairs").glob("*.md"))
    assert [f.name for f in files] == ["p00000.md", "p00001.md", "p00002.md"]
    page = json.loads(files[1].read_text())
    tables = page["tables"]
    rows = [row for table in tables for row in table["rows"]]
    cells = [cell for row in rows for cell in row]
    assert (len(tables), len(rows), len(cells), len(page["links"])) == (5, 32, 181, 36)
    assert {len(cell) for cell in cells} == {12}
    assert len(page["filler"]) == 500
    assert page != json.loads(files[2].read_text())  # pages differ, as ours do
    assert (tmp_path / "layouts" / "_default" / "single.html").is_file()


@pytest.mark.skipif(shutil.which("hugo") is None, reason="hugo is not installed (make bench installs it)")
def test_hugo_renders_pages_of_that_shape(tmp_path: Path) -> None:
    shape = Shape(bytes=8_000, tables=3, rows=10, cells=40, links=7, cell_chars=9)
    bench.write_hugo_site(tmp_path, shape, 2, filler_chars=0)
    _, rendered = bench.run_hugo(str(shutil.which("hugo")), tmp_path)
    assert len(rendered) == 2
    got = bench.page_shape(rendered[0].read_bytes())
    assert (got.tables, got.rows, got.cells, got.links, got.cell_chars) == (3, 10, 40, 7, 9)


def test_output_is_measured_without_dotfiles_and_checked_against_hosts(tmp_path: Path) -> None:
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "index.html").write_bytes(b"x" * 10)
    (tmp_path / "big.json").write_bytes(b"y" * 30)
    (tmp_path / ".sizewise-build.json").write_bytes(b"z" * 1000)
    output = hosts.measure_output(tmp_path)
    assert output == hosts.Output(files=2, bytes=40, largest="big.json", largest_bytes=30)
    lines = hosts.host_lines(output)
    assert len(lines) == 1 + len(hosts.HOSTS) and not any("OVER" in line for line in lines)
    over = hosts.host_lines(hosts.Output(25_000, 2 * 10**9, "x", 30 * 2**20, pairs=10_000))
    assert over[0] == (
        "  per pair (10,000 pairs): 200.0 kB, budget ≤ 36 kB: 556% of it, OVER; 2.50 files, budget ≤ 4.5: 56% of it, ok"
    )
    cloudflare_free = next(line for line in over if "Cloudflare Pages, free" in line)
    assert "≤ 20,000 files: 125% of it, OVER" in cloudflare_free and "a file ≤ 25 MiB" in cloudflare_free
    github = next(h for h in hosts.HOSTS if h.key == "github-pages")
    assert hosts.over(output, github) == []
    assert hosts.over(hosts.Output(1, 1_200_000_000, "a", 1), github) == ["1,200 MB is over GitHub Pages' 1 GB"]


def test_a_builds_files_are_measured_as_a_deploy_uploads_them() -> None:
    written = [("en/index.html", 10), (".sizewise-build.json", 999), ("assets/.hidden", 5), ("api/x.json", 30)]
    assert hosts.Output.of(written) == hosts.Output(2, 40, "api/x.json", 30)
    # Its pairs are its pair JSON files; per pair counts everything, shared files included.
    output = hosts.Output.of([*written, ("api/v1/pairs/m/a.json", 20), ("api/v1/pairs/m/b.json", 20)])
    assert output.pairs == 2 and output.per_pair() == (40.0, 2.0)
    assert output.scaled(2.5) == hosts.Output(10, 200, "api/x.json", 30, pairs=5)


def test_every_build_reports_its_size_against_the_configured_host() -> None:
    small = hosts.Output(37_000, 475 * 10**6, "assets/finder-data.json", 171_300, pairs=15_000)
    report = writer.size_report(small, "github-pages")
    assert "output: 475.0 MB in 37,000 files, the largest assets/finder-data.json (171.3 kB)" in report
    assert "per pair (15,000 pairs): 31.7 kB, budget ≤ 36 kB: 88% of it, ok; 2.47 files" in report
    assert "GitHub Pages: site ≤ 1 GB: 48% of it, ok" in report
    assert "warning" not in report
    big = writer.size_report(hosts.Output(37_000, 475 * 10**6, "x", 1), "cloudflare-pages-free")
    assert "warning: 37,000 files is over Cloudflare Pages, free' 20,000 files" in big
    assert writer.size_report(None, "github-pages") == ""


def test_a_synthetic_catalog_has_factor_times_the_models_under_new_slugs(tmp_path: Path) -> None:
    from tests.golden.regenerate import CONTENT as GOLDEN

    big = bench.synthetic(GOLDEN, 2.5, tmp_path / "content")
    slugs = sorted(p.stem for p in (big / "models").glob("*.yaml"))
    assert slugs == [
        "llama-3-1-8b-instruct",
        "llama-3-1-8b-instruct-x2",
        "llama-3-1-8b-instruct-x3",
        "qwen3-30b-a3b",
        "qwen3-30b-a3b-x2",
    ]
    copy = (big / "models" / "llama-3-1-8b-instruct-x3.yaml").read_text()
    assert "slug: llama-3-1-8b-instruct-x3\n" in copy and "(copy 3)" in copy
