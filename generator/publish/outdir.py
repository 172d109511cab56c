"""The output folder's safety: whose it is, who is writing it, and how a new build replaces it.

A build only ever replaces a folder that a build made: every finished build carries a marker file
(the manifest of what it wrote, so the two can never disagree), and a folder without it is refused
unless it is empty. One lock per output folder serialises builds. A new build is written into a
marked temporary sibling and exchanged with the old folder in one atomic step (``renameat2``'s
exchange where the kernel has it); leftovers of killed builds carry their own marker and are
removed by the next build, and nothing unmarked is ever deleted.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# In a finished build: the manifest of every file it wrote (and so the proof that a build made it).
MARKER = ".sizewise-build.json"
# In a folder being written: removed (with the folder) if the build dies.
PARTIAL = ".sizewise-partial"
DIR_MODE = 0o755
FILE_MODE = 0o644


class OutputError(Exception):
    """The output folder cannot be used: not a build of ours, locked by another build, not writable."""


def legacy_manifest(out: Path) -> Path:
    """Where builds before the marker kept their manifest: next to the folder."""
    return out.with_name(out.name + ".manifest.json")


def is_build(out: Path) -> bool:
    """Whether ``out`` is a folder a build wrote (marker inside, or the older manifest beside it)."""
    return (out / MARKER).is_file() or (out.is_dir() and legacy_manifest(out).is_file())


def check_replaceable(out: Path) -> None:
    """Raise OutputError unless ``out`` is absent, an empty folder, or a previous build."""
    if not out.exists() and not out.is_symlink():
        return
    if not out.is_dir():
        raise OutputError(f"--out {out} exists and is not a folder; refusing to replace it")
    if is_build(out):
        return
    if any(out.iterdir()):
        raise OutputError(
            f"--out {out} is not empty and was not made by `build` (no {MARKER}); "
            "refusing to replace it: choose an empty or new folder"
        )


def read_marker(out: Path) -> dict[str, Any]:
    """The previous build's manifest data, or {} when there is none or it cannot be read."""
    for path in (out / MARKER, legacy_manifest(out)):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            return data
    return {}


@contextlib.contextmanager
def locked(out: Path) -> Iterator[None]:
    """Hold the output folder's lock (a file beside it) for the duration; OutputError if it is held."""
    lock = out.with_name(f".{out.name}.lock")
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, FILE_MODE)
    except OSError as exc:
        raise OutputError(f"cannot create the lock {lock}: {exc.strerror}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputError(f"another build is writing {out} (it holds {lock}); wait for it to finish") from None
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def exclusive(out: Path) -> Iterator[None]:
    """Everything a writer of ``out`` (a build, a merge) needs before it starts: ``out`` is refused if no
    build made it, its lock is held, earlier runs' leftovers are removed, and what is written is
    world-readable (umask 022). ``out`` is checked again under the lock: another run may have just
    finished."""
    check_replaceable(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    umask = os.umask(0o022)
    try:
        with locked(out):
            remove_leftovers(out)
            check_replaceable(out)
            yield
    finally:
        os.umask(umask)


def write_atomic(path: Path, text: str) -> None:
    """Replace a text file in one step (a reader sees the old or the new one, never a part)."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _marked_leftovers(out: Path) -> list[Path]:
    """Temporary and replaced folders of earlier builds of ``out`` that carry a marker of ours."""
    found = []
    for pattern in (f".{out.name}.tmp-*", f"{out.name}.old-*"):
        for path in out.parent.glob(pattern):
            if path.is_dir() and not path.is_symlink() and ((path / PARTIAL).is_file() or (path / MARKER).is_file()):
                found.append(path)
    return sorted(found)


def remove_leftovers(out: Path) -> None:
    """Delete what killed builds left beside ``out`` (call with the lock held: none of it is in use)."""
    for path in _marked_leftovers(out):
        shutil.rmtree(path, ignore_errors=True)


def new_tree(out: Path) -> Path:
    """A marked, world-readable temporary sibling of ``out`` to write the next build into."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    os.chmod(tmp, DIR_MODE)
    (tmp / PARTIAL).write_bytes(b"")
    os.chmod(tmp / PARTIAL, FILE_MODE)
    return tmp


def finish_tree(tmp: Path, manifest: dict[str, Any]) -> None:
    """Write the manifest (the marker) into the new tree and drop its partial mark."""
    path = tmp / MARKER
    path.write_text(json.dumps(manifest, sort_keys=True), encoding="utf-8")
    os.chmod(path, FILE_MODE)
    (tmp / PARTIAL).unlink()


def discard(tmp: Path) -> None:
    """Remove an unfinished tree."""
    shutil.rmtree(tmp, ignore_errors=True)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths with renameat2(RENAME_EXCHANGE); False where the system lacks it."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def swap_in(tmp: Path, out: Path) -> None:
    """Make ``tmp`` the new ``out`` in one step; the previous tree is deleted in the background.

    Readers see the old tree or the new one, never neither: the two are exchanged atomically where
    the kernel can, else by two renames. The old tree (marked) is renamed aside and removed by a
    detached ``rm`` (tens of thousands of links take seconds to unlink); if that is killed, the next
    build removes what is left.
    """
    old = out.with_name(f"{out.name}.old-{os.getpid()}-{time.monotonic_ns()}")
    if out.is_dir() and not out.is_symlink() and _exchange(tmp, out):
        tmp.rename(old)
    else:
        if out.exists() or out.is_symlink():
            out.rename(old)
        tmp.rename(out)
    if not old.exists():
        return
    legacy_manifest(out).unlink(missing_ok=True)
    if not (old / MARKER).is_file():
        # An empty folder or a build from before the marker: mark it so no cleanup ever doubts it.
        with contextlib.suppress(OSError):
            (old / PARTIAL).write_bytes(b"")
    try:
        subprocess.Popen(
            ["rm", "-rf", "--", str(old)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        shutil.rmtree(old, ignore_errors=True)
