"""`make serve`: build, serve dist/ on 127.0.0.1 as the CDN would, and rebuild when an input changes."""

from __future__ import annotations

import functools
import http.server
import os
import posixpath
import stat
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from generator.content.hfconfig import ConfigError
from generator.content.loader import ContentErrors, load_catalog
from generator.publish.outdir import OutputError
from generator.publish.writer import ROOT, build

CODE = ("templates", "static", "locales", "generator")


def parse_headers(text: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """The rules of a ``_headers`` file: (path pattern, [(name, value)]) in file order."""
    rules: list[tuple[str, list[tuple[str, str]]]] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            rules.append((line.strip(), []))
        elif rules and ":" in line:
            name, _, value = line.strip().partition(":")
            rules[-1][1].append((name.strip(), value.strip()))
    return rules


def headers_for(path: str, rules: Iterable[tuple[str, list[tuple[str, str]]]]) -> list[tuple[str, str]]:
    """Every header the rules give ``path`` (a pattern ending in ``*`` matches by prefix), in order."""
    out: list[tuple[str, str]] = []
    for pattern, headers in rules:
        if path == pattern or (pattern.endswith("*") and path.startswith(pattern[:-1])):
            out += headers
    return out


def url_path(raw: str) -> str:
    """The path a request names once decoded and normalised as the file it serves is found
    (``/en/../badges/x.svg`` is ``/badges/x.svg``), keeping a final slash."""
    path = urllib.parse.unquote(raw.split("?", 1)[0].split("#", 1)[0])
    normal = posixpath.normpath("/" + path.lstrip("/"))
    normal = "/" + normal.lstrip("/")  # normpath keeps a leading "//"
    return normal + "/" if path.endswith("/") and normal != "/" else normal


class StaticHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a built site as the CDN does: the headers of its ``_headers`` file, no folder listings."""

    # A client that opens a connection and sends nothing is dropped after this many seconds.
    timeout = 30

    def end_headers(self) -> None:
        try:
            rules = parse_headers((Path(self.directory) / "_headers").read_text(encoding="utf-8"))
        except OSError:
            rules = []
        for name, value in headers_for(url_path(self.path), rules):
            self.send_header(name, value)
        super().end_headers()

    def send_head(self) -> Any:
        try:
            return super().send_head()
        except ValueError:  # a path no file can have (an encoded NUL byte, /%00)
            self.send_error(400, "Bad Request")
            return None

    def list_directory(self, path: str | os.PathLike[str]) -> None:  # noqa: ARG002 - the stdlib's signature
        self.send_error(404, "Not Found")
        return None

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass


def handler_for(root: Path) -> functools.partial[StaticHandler]:
    """A request handler serving ``root`` (the path, so a swapped-in new build is served at once)."""
    return functools.partial(StaticHandler, directory=str(root))


def _own(path: Path, out: Path | None) -> bool:
    """Whether ``path`` is the output or what a build keeps beside it (its temporary and replaced trees,
    lock and change list): files the watcher must not take for an edit, or it would rebuild forever."""
    if out is None or not path.is_relative_to(out.parent):
        return False
    first = path.relative_to(out.parent).parts[0]
    return first == out.name or first.startswith((f"{out.name}.", f".{out.name}."))


def snapshot(folders: Iterable[Path], out: Path | None = None) -> dict[str, float]:
    """Modification times of every file under ``folders`` but the output's own; a file or folder that
    disappears while it is read is left out (the next poll sees the change)."""
    times: dict[str, float] = {}
    for folder in folders:
        try:
            for p in folder.rglob("*"):
                if "__pycache__" in p.parts or _own(p, out):
                    continue
                try:
                    info = p.stat()
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode):
                    times[str(p)] = info.st_mtime
        except OSError:
            continue
    return times


def rebuild(content: Path, out: Path, base_url: str) -> bool:
    """One build; any error is printed in one line per problem and the previous dist/ keeps being served."""
    try:
        print(build(load_catalog(content), out, base_url=base_url, content=content), flush=True)
        return True
    except ContentErrors as exc:
        for problem in exc.problems:
            print(f"error: {problem}", file=sys.stderr)
    except (OutputError, ConfigError, OSError, ValueError, LookupError) as exc:
        print(f"error: {exc}", file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - a bug while editing templates or code must not stop the server
        print(f"error: the build failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    print("build failed; still serving the previous dist/", file=sys.stderr, flush=True)
    return False


def serve(content: Path, out: Path, port: int, base_url: str, *, poll_s: float = 1.0) -> int:
    """Serve until interrupted; poll the catalog (``content``) and the code once a second."""
    watched = [content, *(ROOT / folder for folder in CODE)]
    out = out.resolve()
    seen = snapshot(watched, out)
    rebuild(content, out, base_url)
    out.mkdir(parents=True, exist_ok=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler_for(out))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"serving {out} at {base_url}/ (Ctrl-C to stop)", flush=True)
    try:
        while True:
            time.sleep(poll_s)
            now = snapshot(watched, out)
            if now != seen:
                seen = now
                rebuild(content, out, base_url)
    except KeyboardInterrupt:
        server.shutdown()
    return 0
