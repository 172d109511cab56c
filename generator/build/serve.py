"""`make serve`: build, serve dist/ on 127.0.0.1, and rebuild when an input changes."""

from __future__ import annotations

import functools
import http.server
import sys
import threading
import time
from pathlib import Path

from generator.build.writer import ROOT, build
from generator.content.loader import ContentErrors, load_catalog

WATCHED = ("content", "templates", "static", "locales", "generator")


def snapshot(root: Path) -> dict[str, float]:
    """Modification times of every watched file."""
    return {
        str(p): p.stat().st_mtime
        for folder in WATCHED
        for p in (root / folder).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def rebuild(content: Path, out: Path, base_url: str) -> None:
    """One build; content errors are printed and the previous dist/ keeps being served."""
    try:
        print(build(load_catalog(content), out, base_url=base_url, content=content), flush=True)
    except ContentErrors as exc:
        for problem in exc.problems:
            print(f"error: {problem}", file=sys.stderr)
        print("build failed; still serving the previous dist/", file=sys.stderr)


def serve(content: Path, out: Path, port: int, base_url: str) -> int:
    """Serve until interrupted; poll inputs once a second."""
    rebuild(content, out, base_url)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"serving {out} at {base_url}/ (Ctrl-C to stop)", flush=True)
    seen = snapshot(ROOT)
    try:
        while True:
            time.sleep(1)
            now = snapshot(ROOT)
            if now != seen:
                seen = now
                rebuild(content, out, base_url)
    except KeyboardInterrupt:
        server.shutdown()
    return 0
