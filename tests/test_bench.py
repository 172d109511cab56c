"""`make bench`'s measuring helpers: page shapes, the Hugo pages shaped like ours, output against host limits."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from generator.publish import bench
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
    output = bench.measure_output(tmp_path)
    assert output == bench.Output(files=2, bytes=40, largest="big.json", largest_bytes=30)
    lines = bench.host_lines(output)
    assert len(lines) == 1 + len(bench.HOSTS) and not any("OVER" in line for line in lines)
    over = bench.host_lines(bench.Output(files=25_000, bytes=2 * 10**9, largest="x", largest_bytes=30 * 2**20))
    assert "OVER" in over[0]
    cloudflare_free = next(line for line in over if "Cloudflare Pages, free" in line)
    assert "≤ 20,000 files: 125% of it, OVER" in cloudflare_free and "a file ≤ 25 MiB" in cloudflare_free
