"""`make golden`: rebuild the expected tiny site (2 models × 2 hardware × 3 locales) from its fixture catalog.

Review the diff of tests/golden/dist/ like code: it is every byte the change moved.
"""

from __future__ import annotations

from pathlib import Path

from generator.build.writer import build
from generator.content.loader import load_catalog

HERE = Path(__file__).resolve().parent
CONTENT = HERE / "content"
DIST = HERE / "dist"
BASE_URL = "https://sizewise.example"


def build_golden(out: Path) -> str:
    """Build the fixture catalog into ``out`` with the golden settings (one job, fixed base URL, no cache)."""
    summary = build(load_catalog(CONTENT), out, jobs=1, base_url=BASE_URL, content=CONTENT, force=True)
    for leftover in (out.with_name(out.name + ".manifest.json"), out.with_name(out.name + ".changed.txt")):
        leftover.unlink(missing_ok=True)
    return summary


if __name__ == "__main__":
    print(build_golden(DIST))
