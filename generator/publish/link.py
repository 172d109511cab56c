"""Hard-linking a previous build's unchanged files into the new tree, in a process of its own.

Linking is one mkdir per page folder and one link per file (tens of thousands of system calls): in a
thread it would hold the interpreter's lock against the rendering it runs beside. ``python -m
generator.publish.link LIST SIZES OLD NEW PARENT`` links the NUL-separated relative paths in the file
LIST from OLD into NEW and writes each one's size to SIZES; it imports nothing of the generator and
dies with the build (PARENT).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

_PR_SET_PDEATHSIG = 1


def link_files(files: Iterable[str], old_dist: Path, new_dist: Path) -> list[int]:
    """Hard-link previous outputs into the new dist/ (a copy where links are not possible); their sizes.

    Plain string paths and one mkdir per folder: a rebuild links ~50,000 files.
    """
    old, new = str(old_dist), str(new_dist)
    made: set[str] = set()
    sizes = []
    for rel in files:
        folder = os.path.dirname(rel)
        if folder not in made:
            os.makedirs(os.path.join(new, folder), exist_ok=True)
            made.add(folder)
        source, target = os.path.join(old, rel), os.path.join(new, rel)
        try:
            os.link(source, target)
        except OSError:
            Path(target).write_bytes(Path(source).read_bytes())
        sizes.append(os.stat(target).st_size)
    return sizes


class Linker:
    """Links files in a child process while the caller goes on; ``result`` waits and gives the sizes."""

    def __init__(self, files: Sequence[str], old_dist: Path, new_dist: Path) -> None:
        self.files = list(files)
        fd, self._list = tempfile.mkstemp(prefix="sizewise-link-")
        with os.fdopen(fd, "wb") as fh:
            fh.write("\0".join(self.files).encode())
        fd, self._sizes = tempfile.mkstemp(prefix="sizewise-sizes-")
        os.close(fd)
        args = [self._list, self._sizes, str(old_dist), str(new_dist), str(os.getpid())]
        self._proc = subprocess.Popen([sys.executable, "-m", __name__, *args], stdin=subprocess.DEVNULL)

    def result(self) -> list[int]:
        """The size of every file, in order, once all are linked; OSError if the child failed."""
        try:
            if self._proc.wait() != 0:
                raise OSError(f"linking the previous build's files failed (exit code {self._proc.returncode})")
            data = Path(self._sizes).read_text(encoding="ascii")
            sizes = [int(n) for n in data.split()] if data else []
            if len(sizes) != len(self.files):
                raise OSError("linking the previous build's files stopped before the end")
            return sizes
        finally:
            self.close()

    def close(self) -> None:
        """Stop the child (if it still runs) and remove the lists."""
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        for path in (self._list, self._sizes):
            with contextlib.suppress(OSError):
                os.unlink(path)


def die_with_parent(parent: int) -> None:
    """Have the kernel kill this process when the build process ``parent`` dies (Linux), so none outlives it."""
    name = ctypes.util.find_library("c")
    if name is not None:
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(name).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def main(argv: Sequence[str]) -> int:
    """Link the listed files; write their sizes."""
    listed, sizes_file, old, new, parent = argv
    die_with_parent(int(parent))
    data = Path(listed).read_bytes().decode()
    files = data.split("\0") if data else []
    sizes = link_files(files, Path(old), Path(new))
    Path(sizes_file).write_text("\n".join(map(str, sizes)), encoding="ascii")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
