"""Incremental builds: what each group of outputs depends on, and the check of what is reused.

A group is one model (its pair pages in every language, pair JSON, model pages and JSON, badge)
or the rest of the site (hardware pages, indexes, sitemaps, assets). A key must change whenever
anything the group is made from changes, so keys are made from whole things rather than from a
list of what each page is thought to read: the loaded catalog (every field of it, so a new file or
field of the catalog is covered the day it is added), the generator's code, templates, static files
and translations, the version of Python and of every installed package (Jinja, Markdown, Babel, the
minifier...), the URLs of the shared assets, and the build settings. A model group leaves out only
the other models: its pages show of them the names of those they list as related (found here by
the pages' own functions; model_page.RELATED_FIELDS says what is shown). An unchanged key means the
previous files are linked into the new dist/ instead of being rendered again, once each is found to
still have the hash its manifest records.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import datetime as dt
import hashlib
import json
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from generator.content.catalog import Catalog
from generator.publish import link, manifest
from generator.publish.manifest import Manifest
from generator.publish.stamp import environment
from generator.site import i18n, pages, render
from generator.site.model_page import RELATED_FIELDS, related_groups, related_models

__all__ = ["MANIFEST_VERSION", "Manifest"]

ROOT = Path(__file__).resolve().parents[2]
MANIFEST_VERSION = manifest.VERSION


def _sha(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def code_folders() -> tuple[Path, ...]:
    """The folders a build reads besides the catalog, where the modules that read them say they are."""
    return (ROOT / "generator", render.TEMPLATES, ROOT / "static", i18n.LOCALES_DIR)


def _tree(folders: Iterable[Path]) -> list[bytes]:
    """Every file under ``folders`` (compiled files left out) as path and bytes."""
    out = []
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".mo"):
                out += [f"{folder.name}/{path.relative_to(folder)}".encode(), path.read_bytes()]
    return out


def _plain(value: Any) -> Any:
    """``value`` as JSON data, keeping the order of mappings (catalog order is output order)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return [[str(k), _plain(v)] for k, v in value.items()]
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"the build key cannot hash a catalog value of type {type(value).__name__}")


def _dump(value: Any) -> bytes:
    return json.dumps(_plain(value), ensure_ascii=False, allow_nan=True).encode()


def catalog_fields(catalog: Catalog, *, without: Iterable[str] = ()) -> bytes:
    """Every field of the loaded catalog (but ``without``), as canonical bytes."""
    skip = set(without)
    return _dump({f.name: getattr(catalog, f.name) for f in dataclasses.fields(catalog) if f.name not in skip})


def related(catalog: Catalog, slug: str) -> list[str]:
    """The other models a model's pages show (the only other models its group is made from), in order."""
    model, everything = catalog.models[slug], list(catalog.models.values())
    groups = related_groups(model, everything)
    return [m.slug for m in (*groups.family, *groups.size, *groups.newer, *related_models(model, everything))]


@dataclasses.dataclass(frozen=True)
class Keys:
    """The dependency key of every group of outputs."""

    models: dict[str, str]
    site: str


def keys(
    catalog: Catalog, base_url: str, langs: tuple[str, ...], asset_urls: Mapping[str, str], minify: bool = True
) -> Keys:
    """Keys of each model group and of the rest of the site."""
    common = _sha(
        *_tree(code_folders()),
        environment(),
        _dump(asset_urls),
        base_url.encode(),
        " ".join(langs).encode(),
        b"minified" if minify else b"readable",
    )
    rest = _sha(catalog_fields(catalog, without=("models",)))
    models = {
        slug: _sha(
            common.encode(),
            rest.encode(),
            _dump(catalog.models[slug]),
            _dump([[getattr(catalog.models[s], f) for f in RELATED_FIELDS] for s in related(catalog, slug)]),
        )
        for slug in pages.model_groups(catalog)
    }
    site = _sha(common.encode(), catalog_fields(catalog))
    return Keys(models, site)


def previous(out: Path) -> Manifest:
    """The manifest of the build in ``out``; an empty one (no previous build) when there is none or it
    is damaged."""
    return manifest.read(out) or Manifest()


def damaged(files: Mapping[str, str], old_dist: Path, jobs: int = 4) -> set[str]:
    """The files of ``files`` ({path: sha256}) that are not, under ``old_dist``, a plain file with that hash:
    missing, replaced by a link or anything else, or edited since the build that listed them."""
    root = str(old_dist)

    def bad(item: tuple[str, str]) -> bool:
        path = os.path.join(root, item[0])
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return True
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return True
            h = hashlib.sha256()
            while chunk := os.read(fd, 1 << 20):
                h.update(chunk)
            return h.hexdigest() != item[1]
        finally:
            os.close(fd)

    items = sorted(files.items())
    # sha256 releases the GIL: a few threads keep the disk and the cores busy.
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return {rel for (rel, _), is_bad in zip(items, pool.map(bad, items, chunksize=256), strict=True) if is_bad}


def _files_of(groups: Iterable[dict[str, str]]) -> dict[str, str]:
    return {rel: sha for group in groups for rel, sha in group.items()}


def _with_sizes(files: dict[str, str], sizes: list[int]) -> list[tuple[str, int, str]]:
    return [(rel, size, sha) for (rel, sha), size in zip(files.items(), sizes, strict=True)]


def link_groups(groups: Iterable[dict[str, str]], old_dist: Path, new_dist: Path) -> list[tuple[str, int, str]]:
    """Link the files of previous groups ({path: sha256}) in this process; (path, size, sha256) of each."""
    files = _files_of(groups)
    return _with_sizes(files, link.link_files(files, old_dist, new_dist))


def link_groups_apart(groups: Iterable[dict[str, str]], old_dist: Path, new_dist: Path) -> Linking:
    """Start linking the files of previous groups in a child process (link.Linker) and go on."""
    files = _files_of(groups)
    return Linking(files, link.Linker(list(files), old_dist, new_dist))


@dataclasses.dataclass
class Linking:
    """Files being linked by a child process."""

    files: dict[str, str]
    linker: link.Linker

    def result(self) -> list[tuple[str, int, str]]:
        """(path, size, sha256) of each file once all are linked."""
        return _with_sizes(self.files, self.linker.result())

    def cancel(self) -> None:
        """Stop the child: the build failed."""
        self.linker.close()


def changes(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """URL paths added, changed or removed between two builds (for a CDN purge), sorted."""
    paths = {p for p in new if old.get(p) != new[p]} | (set(old) - set(new))
    return sorted("/" + p.removesuffix("index.html") for p in paths)
