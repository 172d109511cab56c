"""`make golden`: rebuild the expected tiny site (2 models × 2 hardware × 3 locales) from its fixture catalog.

Review the diff of tests/golden/dist/ like code: it is every byte the change moved.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from generator.content.loader import load_catalog
from generator.publish.outdir import MARKER
from generator.publish.writer import build

HERE = Path(__file__).resolve().parent
CONTENT = HERE / "content"
DIST = HERE / "dist"
BASE_URL = "https://sizewise.example"


def build_golden(out: Path, minify: bool = False) -> str:
    """Build the fixture catalog into ``out`` (a new folder) with the golden settings (one job, fixed base
    URL, no cache, HTML not minified so a diff reads like code), without the build's own bookkeeping
    (its marker and change list)."""
    summary = build(load_catalog(CONTENT), out, jobs=1, base_url=BASE_URL, content=CONTENT, force=True, minify=minify)
    (out / MARKER).unlink()
    out.with_name(out.name + ".changed.txt").unlink(missing_ok=True)
    return summary


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        summary = build_golden(Path(tmp) / "dist")
        shutil.rmtree(DIST, ignore_errors=True)
        shutil.copytree(Path(tmp) / "dist", DIST)
    print(summary)
