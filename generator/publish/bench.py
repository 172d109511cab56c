"""`make bench`: build speed on this machine against the budgets, on copies of the catalog.

Cold build (forced), no-op rebuild, one model changed, one template changed, synthetic catalogs
2× and 4× larger, and --jobs 1 against all cores; pages/s, seconds and peak memory (the largest
process) with the core count.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUDGET_PAGES_S = 300
BUDGET_NOOP_S = 3.0
BUDGET_ONE_MODEL = 0.10
BUDGET_PEAK_GIB = 2.0


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


def synthetic(content: Path, factor: int, dest: Path) -> Path:
    """A copy of the catalog with every model repeated ``factor`` times under new slugs."""
    shutil.copytree(content, dest)
    for path in sorted((content / "models").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        for i in range(2, factor + 1):
            slug = f"{path.stem}-x{i}"
            copy = re.sub(r"^slug: .*$", f"slug: {slug}", text, count=1, flags=re.M)
            copy = re.sub(r"^hf_id: (.*)$", rf"hf_id: \1-x{i}", copy, count=1, flags=re.M)
            copy = re.sub(r"^name: (.*)$", rf"name: \1 (copy {i})", copy, count=1, flags=re.M)
            (dest / "models" / f"{slug}.yaml").write_text(copy, encoding="utf-8")
    return dest


def main() -> int:
    """Run every scenario and print the figures against the budgets."""
    cores = os.cpu_count() or 1
    work = Path(tempfile.mkdtemp(prefix="sizewise-bench-"))
    rows: list[tuple[str, float, int, float, str]] = []
    try:
        content = work / "content"
        shutil.copytree(ROOT / "content", content)
        out = work / "dist"
        cold_s, pages, peak = run(content, out, "--force")
        rate = pages / cold_s
        rows.append(("cold, all cores", cold_s, pages, peak, f"{rate:,.0f} pages/s (budget ≥ {BUDGET_PAGES_S})"))
        noop_s, _, peak2 = run(content, out)
        rows.append(("no-op rebuild", noop_s, 0, peak2, f"budget ≤ {BUDGET_NOOP_S:.0f} s"))
        model = sorted((content / "models").glob("*.yaml"))[0]
        text = model.read_text(encoding="utf-8")
        model.write_text(
            re.sub(
                r"^(  max_context: )(\d+)$", lambda m: f"{m.group(1)}{int(m.group(2)) - 1}", text, count=1, flags=re.M
            ),
            encoding="utf-8",
        )
        one_s, _, peak3 = run(content, out)
        rows.append(
            ("one model changed", one_s, 0, peak3, f"{one_s / cold_s:.0%} of cold (budget ≤ {BUDGET_ONE_MODEL:.0%})")
        )
        template = ROOT / "templates" / "pair.html"
        original = template.read_text(encoding="utf-8")
        try:
            template.write_text(original + "\n", encoding="utf-8")
            tpl_s, tpl_pages, peak4 = run(content, out)
        finally:
            template.write_text(original, encoding="utf-8")
        rows.append(("one template changed", tpl_s, tpl_pages, peak4, f"{tpl_pages / tpl_s:,.0f} pages/s"))
        one_job_s, one_pages, peak5 = run(content, work / "dist-j1", "--force", "--jobs", "1")
        rows.append(
            (
                "cold, --jobs 1",
                one_job_s,
                one_pages,
                peak5,
                f"{one_pages / one_job_s:,.0f} pages/s; all cores {one_job_s / cold_s:.2f}× faster",
            )
        )
        for factor in (2, 4):
            big = synthetic(ROOT / "content", factor, work / f"content-x{factor}")
            s, p, pk = run(big, work / f"dist-x{factor}", "--force")
            rows.append((f"cold, catalog ×{factor}", s, p, pk, f"{p / s:,.0f} pages/s; {s / cold_s:.2f}× the time"))
            shutil.rmtree(work / f"dist-x{factor}", ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"Sizewise build benchmark on {cores} cores (peak memory budget ≤ {BUDGET_PEAK_GIB:.0f} GiB)")
    print(f"{'scenario':24} {'seconds':>8} {'pages':>8} {'peak GiB':>9}  notes")
    for name, s, p, pk, note in rows:
        print(f"{name:24} {s:8.1f} {p:8,} {pk:9.2f}  {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
