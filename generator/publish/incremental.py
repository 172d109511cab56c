"""Incremental builds: what each group of outputs depends on, and the manifest kept next to dist/.

A group is one model (its pair pages in every language, pair JSON, model pages and JSON, badge)
or the rest of the site (hardware pages, indexes, sitemaps, assets). Its key hashes everything it
is made from: the catalog records it reads, the templates, static files, translations, the
generator's own code and the build settings. An unchanged key means the previous files are
linked into the new dist/ instead of being rendered again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from generator.content.catalog import Catalog
from generator.publish import outdir
from generator.site import pages

ROOT = Path(__file__).resolve().parents[2]
CODE_AND_TEMPLATES = ("generator", "templates", "static", "locales")
MANIFEST_VERSION = 1


def _sha(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def _tree(root: Path, folders: Iterable[str]) -> list[bytes]:
    out = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".mo"):
                out += [str(path.relative_to(root)).encode(), path.read_bytes()]
    return out


def _dump(records: Iterable[Any]) -> bytes:
    return json.dumps([r.model_dump(mode="json") for r in records], sort_keys=True).encode()


@dataclasses.dataclass(frozen=True)
class Keys:
    """The dependency key of every group of outputs."""

    models: dict[str, str]
    site: str


def keys(catalog: Catalog, content: Path, base_url: str, langs: tuple[str, ...]) -> Keys:
    """Keys of each model group and of the rest of the site."""
    common = _sha(
        *_tree(ROOT, CODE_AND_TEMPLATES),
        *_tree(content, ("pages",)),
        (content / "search-aliases.yaml").read_bytes() if (content / "search-aliases.yaml").exists() else b"",
        _dump(catalog.formats.values()),
        _dump(catalog.kv_dtypes.values()),
        _dump(catalog.engines.values()),
        _dump([catalog.assumptions]),
        _dump([catalog.calibration] if catalog.calibration else []),
        base_url.encode(),
        " ".join(langs).encode(),
    )
    hardware = _sha(_dump(catalog.hardware.values()), _dump(catalog.offers))
    # What a model's pages show of the other models: their names, families and sizes (related links).
    index = _sha(
        json.dumps(
            [[m.slug, m.name, m.family, m.organization, m.params_total] for m in catalog.models.values()]
        ).encode()
    )
    models = {
        slug: _sha(common.encode(), hardware.encode(), index.encode(), _dump([m]), _dump(catalog.api_prices_for(slug)))
        for slug, m in ((slug, catalog.models[slug]) for slug in pages.model_groups(catalog))
    }
    # The accuracy page also shows every measurement, file size and memory log.
    measurements = _sha(_dump(catalog.throughput), _dump(catalog.file_sizes), _dump(catalog.memory_logs))
    site = _sha(
        common.encode(),
        hardware.encode(),
        measurements.encode(),
        _dump(catalog.models.values()),
        _dump(catalog.api_prices),
    )
    return Keys(models, site)


@dataclasses.dataclass
class Manifest:
    """What the previous build wrote: per group, its key, its files (path -> sha256) and, per model, its rows."""

    models: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    site: dict[str, Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def load(cls, out: Path) -> Manifest:
        """The manifest of the build in ``out`` (its marker file), or an empty one."""
        data = outdir.read_marker(out)
        if data.get("version") != MANIFEST_VERSION:
            return cls()
        return cls(data.get("models", {}), data.get("site", {}))

    def data(self) -> dict[str, Any]:
        """The manifest as JSON data, for the marker file."""
        return {"version": MANIFEST_VERSION, "models": self.models, "site": self.site}

    def files(self) -> dict[str, str]:
        """Every file of the build with its hash."""
        out: dict[str, str] = dict(self.site.get("files", {}))
        for group in self.models.values():
            out.update(group["files"])
        return out


def reusable(group: dict[str, Any] | None, key: str, old_dist: Path) -> bool:
    """Whether a group's previous files can be reused: same key and every file still there."""
    if not group or group["key"] != key:
        return False
    root = str(old_dist)
    return all(os.path.isfile(os.path.join(root, rel)) for rel in group["files"])


def link_files(files: Iterable[str], old_dist: Path, new_dist: Path) -> None:
    """Hard-link previous outputs into the new dist/ (a copy where links are not possible).

    Plain string paths and one mkdir per folder: a rebuild links ~37,000 files.
    """
    old, new = str(old_dist), str(new_dist)
    made: set[str] = set()
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


def link_groups(groups: Iterable[dict[str, str]], old_dist: Path, new_dist: Path) -> list[tuple[str, int, str]]:
    """Link the files of previous groups ({path: sha256}); (path, size, sha256) of each."""
    old = str(old_dist)
    out = []
    for files in groups:
        link_files(files, old_dist, new_dist)
        out += [(rel, os.path.getsize(os.path.join(old, rel)), sha) for rel, sha in files.items()]
    return out


def changes(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """URL paths added, changed or removed between two builds (for a CDN purge), sorted."""
    paths = {p for p in new if old.get(p) != new[p]} | (set(old) - set(new))
    return sorted("/" + p.removesuffix("index.html") for p in paths)
