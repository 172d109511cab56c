"""The output folder's safety: whose it is, who is writing it, and how a new build replaces it.

A build only ever replaces a folder that a build made and nobody added to: every finished build
carries its manifest (the marker, the list of every file it wrote), and a folder is replaced only if
it is empty or holds nothing but the marker and files its manifest lists; anything else there is
named and the build refused. One lock per output folder serialises builds. A new build is written
into a temporary sibling and exchanged with the old folder in one atomic step (``renameat2``'s
exchange where the kernel has it). The temporary and replaced trees have names no person would
choose (hidden, with 32 random hex digits) and carry a mark of ours; a later build removes those
leftovers of killed builds, and nothing else.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import json
import os
import re
import secrets
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from generator.publish import manifest, stamp
from generator.publish.manifest import MARKER, PARTIAL, STAMP

__all__ = ["MARKER", "PARTIAL", "STAMP"]

DIR_MODE = 0o755
FILE_MODE = 0o644


class OutputError(Exception):
    """The output folder cannot be used: not a build of ours, locked by another build, not writable."""


def stranger(out: Path, listed: set[str]) -> str | None:
    """The first entry under ``out`` (in sorted order) that a build did not write: anything but the
    marker, the stamp and the plain files in ``listed``, or a folder that holds none of them."""

    def first(folder: str, rel: str) -> str | None:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
        if rel and not entries:
            return rel
        for e in entries:
            path = rel + e.name
            if e.is_symlink():
                return path
            if e.is_dir():
                found = first(e.path, path + "/")
                if found is not None:
                    return found
            elif not ((path in listed or (not rel and e.name in (MARKER, STAMP))) and e.is_file()):
                return path
        return None

    return first(str(out), "")


def check_replaceable(out: Path, *, walk: bool = True) -> bool:
    """Raise OutputError unless ``out`` is absent, an empty folder, or a previous build and nothing else;
    return whether it is a build that nothing changed since (its stamp's digest holds: its manifest then
    describes it file for file, and nothing needs reading again).

    A previous build is a folder with our marker in which every other entry is a file its manifest
    lists. A marker that is damaged (not JSON, not the shape a build writes) still says a build made
    the folder, but no file there is reused: the next build writes everything again. ``walk=False``
    checks only the folder and its marker (a first look, before the lock is taken).
    """
    if not out.exists() and not out.is_symlink():
        return False
    if out.is_symlink() or not out.is_dir():
        raise OutputError(f"--out {out} exists and is not a folder; refusing to replace it")
    if not any(out.iterdir()):
        return False
    if not (out / MARKER).is_file():
        raise OutputError(
            f"--out {out} is not empty and was not made by `build` (no {MARKER}); "
            "refusing to replace it: choose an empty or new folder"
        )
    if not walk:
        return False
    if stamp.unchanged(out):
        return True
    previous = manifest.read(out)
    if previous is None:
        return False
    extra = stranger(out, set(previous.files()))
    if extra is not None:
        raise OutputError(
            f"--out {out} holds {extra}, which the build there did not write (it is not in {MARKER}); "
            "refusing to replace the folder: move what you added out of it, or choose another folder"
        )
    return False


def read_marker(out: Path) -> dict[str, Any]:
    """The previous build's manifest data, or {} when there is none or it cannot be read as JSON."""
    data = manifest.read_data(out)
    return data if isinstance(data, dict) else {}


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


def _mount_points() -> set[str]:
    """Every mount point the kernel lists for this process (bind mounts included), or none where unknown."""
    try:
        lines = Path("/proc/self/mountinfo").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return set()
    points = set()
    for line in lines:
        fields = line.split(" ")
        if len(fields) > 4:
            # Spaces, tabs, newlines and backslashes in a path are written as octal escapes (\040).
            points.add(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4]))
    return points


def check_not_mount(out: Path) -> None:
    """Raise OutputError if ``out`` is a mount point (a container volume, a bind mount): a build writes a
    temporary sibling and renames it over ``out``, which no kernel does to a mount point, so the build
    would fail only after rendering everything. Checked before anything is rendered or written."""
    if not out.is_dir() or out.is_symlink():
        return
    try:
        own, parent = os.stat(out).st_dev, os.stat(out.parent).st_dev
    except OSError:
        return
    if own != parent or os.path.ismount(out) or str(out) in _mount_points():
        raise OutputError(
            f"--out {out} is a mount point (a volume): a build replaces its output folder in one rename, "
            f"which cannot move a mount point; build into a folder inside it (--out {out / 'site'}) "
            "or mount the folder above it"
        )


def _lock_held(lock: Path) -> bool:
    """Whether a running build holds the lock file ``lock`` (never creates it)."""
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def check_not_nested(out: Path) -> None:
    """Raise OutputError if ``out`` lies inside a build's output, its temporary tree, or a folder a
    running build is writing: a build there would replace or delete ``out`` with everything in it."""
    for folder in out.parents:
        if folder.parent == folder:
            break
        if (folder / MARKER).is_file() or (folder / PARTIAL).is_file():
            raise OutputError(
                f"--out {out} is inside {folder}, the output of another build, which replaces that whole "
                "folder: choose a folder outside it"
            )
        if _lock_held(folder.with_name(f".{folder.name}.lock")):
            raise OutputError(
                f"--out {out} is inside {folder}, which another build is writing right now and will "
                "replace: choose a folder outside it"
            )


@contextlib.contextmanager
def exclusive(out: Path) -> Iterator[bool]:
    """Everything a writer of ``out`` (a build, a merge) needs before it starts: ``out`` is refused if no
    build made it, if it is a mount point, if it lies inside another build's output or a folder a build
    is writing, or if its lock is held; earlier runs' leftovers are removed, and what is written is
    world-readable (umask 022). ``out`` is checked in full under the lock (another run may have just
    finished); yields whether it is a build that nothing changed since (check_replaceable)."""
    check_not_mount(out)
    check_not_nested(out)
    check_replaceable(out, walk=False)
    out.parent.mkdir(parents=True, exist_ok=True)
    umask = os.umask(0o022)
    try:
        with locked(out):
            remove_leftovers(out)
            check_not_nested(out)
            yield check_replaceable(out)
    finally:
        os.umask(umask)


def write_atomic(path: Path, text: str) -> None:
    """Replace a text file in one step (a reader sees the old or the new one, never a part)."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:  # a full disk must not leave the half-written file behind
        tmp.unlink(missing_ok=True)
        raise


def write_changes(path: Path, text: str) -> Callable[[], None]:
    """Write the change list ``path`` (before the swap: a kill in between leaves the old tree, and the
    next run compares against it again); return what puts back the list of the build that is live, to
    call if the new build then fails to go live, so the list never describes a build nobody can see."""
    try:
        old: str | None = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        old = None
    write_atomic(path, text)

    def undo() -> None:
        if old is None:
            path.unlink(missing_ok=True)
        else:
            write_atomic(path, old)

    return undo


# Temporary and replaced trees: .<out>.sizewise-tmp-<32 hex> and .<out>.sizewise-old-<32 hex>.
_LEFTOVER = r"\.{name}\.sizewise-(?:tmp|old)-[0-9a-f]{{32}}"


def _sibling(out: Path, kind: str) -> Path:
    """A new name beside ``out`` for a tree of ``kind`` (tmp, old) that no person would choose."""
    return out.with_name(f".{out.name}.sizewise-{kind}-{secrets.token_hex(16)}")


def _marked_leftovers(out: Path) -> list[Path]:
    """Temporary and replaced trees of earlier builds of ``out``: our names and our marks, nothing else."""
    pattern = re.compile(_LEFTOVER.format(name=re.escape(out.name)))
    found = []
    for path in out.parent.iterdir():
        if (
            pattern.fullmatch(path.name)
            and path.is_dir()
            and not path.is_symlink()
            and ((path / PARTIAL).is_file() or (path / MARKER).is_file())
        ):
            found.append(path)
    return sorted(found)


def remove_leftovers(out: Path) -> None:
    """Delete what killed builds left beside ``out`` (call with the lock held: none of it is in use)."""
    for path in _marked_leftovers(out):
        shutil.rmtree(path, ignore_errors=True)


def new_tree(out: Path) -> Path:
    """A marked, world-readable temporary sibling of ``out`` to write the next build into."""
    tmp = _sibling(out, "tmp")
    os.mkdir(tmp, DIR_MODE)
    try:
        os.chmod(tmp, DIR_MODE)
        (tmp / PARTIAL).write_bytes(b"")
        os.chmod(tmp / PARTIAL, FILE_MODE)
    except BaseException:
        # A full disk between the folder and its mark would leave a folder no later build may remove.
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return tmp


def finish_tree(tmp: Path, data: dict[str, Any]) -> None:
    """Write the manifest (the marker) into the new tree and drop its partial mark."""
    path = tmp / MARKER
    path.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
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
    old = _sibling(out, "old")
    if out.is_dir() and not out.is_symlink() and _exchange(tmp, out):
        tmp.rename(old)
    else:
        if out.exists() or out.is_symlink():
            out.rename(old)
        tmp.rename(out)
    if not old.exists():
        return
    if not (old / MARKER).is_file():
        # An empty folder: mark it so no cleanup ever doubts it.
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
