"""The no-op fast path: a build whose inputs and output are both as the last build left them does nothing.

A finished build leaves a stamp beside its manifest: a fingerprint of everything the build was made
from, as bytes on disk (the content folder, the generator's code, templates, static files and
translations, Python and the installed packages, the settings of the command), and a digest of what
it wrote as the file system describes it (every path with its type, size, modification time and
inode). The next build computes both before it imports the generator or loads the catalog; when both
match, the output is up to date and nothing else runs. Any difference (a byte of content, a file
edited, added, removed or replaced in dist/) goes the full way, where the catalog's keys and the
files' hashes decide what is rendered again.

Only the standard library is imported here: a no-op build must not pay for pydantic, Jinja or Babel.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import stat
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from generator.publish.manifest import MARKER, STAMP

ROOT = Path(__file__).resolve().parents[2]
# The build's own bookkeeping in dist/, left out of the digest.
BOOKKEEPING = (MARKER, STAMP)
# What a build reads besides the catalog (incremental.code_folders() finds the same folders from the
# modules that read them; a test holds the two equal).
CODE_FOLDERS = (ROOT / "generator", ROOT / "templates", ROOT / "static", ROOT / "locales")
VERSION = 1
# File times come from a coarse clock: a file written within this many seconds of the digest could be
# changed again without its modification time moving, so the digest waits this long after the last write.
CLOCK_STEP_S = 0.05


def _files(folder: Path) -> Iterator[Path]:
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if not name.endswith((".pyc", ".mo")):
                yield Path(root, name)


@functools.cache
def environment() -> bytes:
    """Python's version and every installed distribution as ``name==version``, one per line (read from the
    names of their metadata folders: importlib.metadata would cost a no-op build a tenth of a second)."""
    found: set[str] = set()
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for n in names:
            if n.endswith((".dist-info", ".egg-info")):
                name, _, version = n.rsplit(".", 1)[0].partition("-")
                found.add(f"{name.lower()}=={version.split('-')[0]}")
    return "\n".join([sys.version, *sorted(found)]).encode()


def _contents(path: Path) -> bytes:
    """A file's bytes; for anything else (a pipe, a device, a dangling link), what it is, never read (the
    full build reports it as the mistake it is)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"unreadable: {exc.errno}".encode()
    if not stat.S_ISREG(st.st_mode):
        return f"not a file: {stat.S_IFMT(st.st_mode)}".encode()
    try:
        return path.read_bytes()
    except OSError as exc:
        return f"unreadable: {exc.errno}".encode()


def inputs(content: Path, settings: Iterable[str], folders: Iterable[Path] = CODE_FOLDERS) -> str:
    """The fingerprint of a build's inputs: every file of the content and code folders (path and bytes),
    Python's version and the installed packages, and ``settings`` (the command's options that change
    the output)."""
    h = hashlib.sha256()

    def add(data: bytes) -> None:
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)

    for folder in (content.resolve(), *folders):
        add(str(folder).encode())
        for path in _files(folder):
            add(str(path.relative_to(folder)).encode())
            add(_contents(path))
    add(environment())
    add("\n".join(settings).encode())
    return h.hexdigest()


def digest(out: Path) -> tuple[str, int]:
    """(digest, files) of what ``out`` holds as the file system describes it: every folder's path, and every
    other entry's path, type, size, modification time and inode; the build's bookkeeping left out. (A
    folder's own times change with its files' names, which the listing already shows: not stat-ing the
    folders saves a third of the system calls.)"""
    entries: list[tuple[str, ...] | tuple[str, int, int, int, int]] = []
    add = entries.append
    stack = [(str(out), "")]
    while stack:
        folder, rel = stack.pop()
        with os.scandir(folder) as it:
            for e in it:
                path = rel + e.name
                if e.is_dir(follow_symlinks=False):
                    add((path,))
                    stack.append((e.path, path + "/"))
                elif rel or e.name not in BOOKKEEPING:
                    st = e.stat(follow_symlinks=False)
                    add((path, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino))
    entries.sort()
    files = sum(len(e) > 1 for e in entries)
    return hashlib.sha256(repr(entries).encode()).hexdigest(), files


def write(folder: Path, fingerprint: str) -> None:
    """Stamp a finished build's folder with the fingerprint of its inputs and the digest of its files."""
    time.sleep(CLOCK_STEP_S)
    tree, files = digest(folder)
    data = {"version": VERSION, "inputs": fingerprint, "tree": tree, "files": files}
    tmp = folder / f"{STAMP}.tmp-{os.getpid()}"
    try:
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.chmod(tmp, 0o644)
        os.replace(tmp, folder / STAMP)
    except BaseException:  # a full disk must not leave a file no build wrote in the output
        tmp.unlink(missing_ok=True)
        raise


def _stamped(out: Path, fingerprint: str | None = None) -> int | None:
    """The files ``out`` holds if nothing in it changed since the build that stamped it (and that build's
    inputs had ``fingerprint``, when one is given); None otherwise, or when it cannot tell."""
    try:
        data = json.loads((out / STAMP).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("version") != VERSION:
            return None
        if fingerprint is not None and data.get("inputs") != fingerprint:
            return None
        tree, files = digest(out)
    except (OSError, ValueError):
        return None
    return files if data.get("tree") == tree and data.get("files") == files else None


def unchanged(out: Path) -> bool:
    """Whether every file in ``out`` is as the build that stamped it wrote it (so as its manifest says),
    without reading one: a build then reuses them without hashing them again."""
    return _stamped(out) is not None


def up_to_date(out: Path, fingerprint: str) -> int | None:
    """How many files ``out`` holds if a build with inputs ``fingerprint`` made it and nothing in it changed
    since; None otherwise (or when it cannot tell)."""
    return _stamped(out, fingerprint)
