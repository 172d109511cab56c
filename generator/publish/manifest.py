"""The manifest a finished build keeps inside its output folder: per group of outputs, its key and its
files (path -> sha256) and, per model, the rows its pairs gave the hardware pages.

The manifest file is also the build's marker: a folder holding it, and nothing the manifest does not
list, is a folder a build made. A manifest of any other shape (damaged, edited, from another version)
reads as no manifest at all: it is never trusted for a path, a hash or a row.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path, PurePosixPath
from typing import Any

# In a finished build: the manifest of every file it wrote (and so the proof that a build made it).
MARKER = ".sizewise-build.json"
# In a folder being written: removed (with the folder) if the build dies.
PARTIAL = ".sizewise-partial"
# In a finished build, beside the marker: what the no-op fast path compares (publish/stamp.py).
STAMP = ".sizewise-stamp.json"
VERSION = 1


@dataclasses.dataclass
class Manifest:
    """What a build wrote: per group, its key, its files (path -> sha256) and, per model, its rows."""

    models: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    site: dict[str, Any] = dataclasses.field(default_factory=dict)

    def data(self) -> dict[str, Any]:
        """The manifest as JSON data, for the marker file."""
        return {"version": VERSION, "models": self.models, "site": self.site}

    def files(self) -> dict[str, str]:
        """Every file of the build with its hash."""
        out: dict[str, str] = dict(self.site.get("files", {}))
        for group in self.models.values():
            out.update(group["files"])
        return out


def is_group(value: Any, *, rows: bool) -> bool:
    """Whether a manifest entry has the shape a build writes: a key, {path: sha256} and, per model, rows."""
    if not isinstance(value, dict) or not isinstance(value.get("key"), str):
        return False
    files = value.get("files")
    if not isinstance(files, dict) or not all(isinstance(p, str) and isinstance(h, str) for p, h in files.items()):
        return False
    return not rows or (isinstance(value.get("rows"), list) and all(isinstance(r, dict) for r in value["rows"]))


def safe_path(rel: str) -> bool:
    """Whether a manifest path names a file inside the output (relative, no '..', not our bookkeeping)."""
    parts = PurePosixPath(rel).parts
    return (
        bool(parts)
        and not rel.startswith("/")
        and ".." not in parts
        and "." not in parts
        and "\\" not in rel
        and "\0" not in rel
        and rel not in (MARKER, PARTIAL, STAMP)
    )


def parse(data: Any) -> Manifest | None:
    """The manifest in ``data`` (the marker's JSON), or None unless it has exactly the shape a build writes."""
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return None
    models, site = data.get("models"), data.get("site")
    if not isinstance(models, dict) or not isinstance(site, dict):
        return None
    if not all(isinstance(slug, str) and is_group(group, rows=True) for slug, group in models.items()):
        return None
    if site != {} and not is_group(site, rows=False):
        return None
    manifest = Manifest(models, site)
    if not all(safe_path(rel) for rel in manifest.files()):
        return None
    return manifest


def read_data(out: Path) -> Any:
    """The JSON data of the marker in ``out``; None when there is none or it is not JSON."""
    try:
        return json.loads((out / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None


def read(out: Path) -> Manifest | None:
    """The manifest of the build in ``out``; None when there is none or it is damaged."""
    return parse(read_data(out))
