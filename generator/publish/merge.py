"""Merge the folders of ``build --shard K/N`` into one output folder, byte for byte what one build writes.

Each shard carries its manifest (the marker): per model group its key, files and rows, and for the
first shard the site group. The merge checks the shards against each other and against the keys of
this checkout (the same catalog, code, base URL and languages: what lets the next incremental build
reuse every group), then writes the union through the output folder's machinery (lock, marked
temporary sibling, atomic swap), so a failed merge leaves the previous output as it was. Files are
hard-linked from the shards where the file system allows it and copied otherwise; every file is
checked against the hash its shard's manifest records on the way.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import stat
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from generator.publish import incremental, manifest, outdir


class MergeError(Exception):
    """Shards that cannot be merged: not build outputs, overlapping, incomplete or built from other inputs."""


@dataclasses.dataclass(frozen=True)
class Shard:
    """One shard folder and the manifest it carries."""

    root: Path
    manifest: incremental.Manifest

    def files(self) -> dict[str, str]:
        """Every file the shard's manifest lists, with its sha256."""
        return self.manifest.files()


def read_shard(root: Path) -> Shard:
    """The shard in ``root``; MergeError unless it is a finished build output with a readable manifest."""
    if not root.is_dir():
        raise MergeError(f"{root} is not a folder: pass the folders that `build --shard K/N` wrote")
    if not (root / outdir.MARKER).is_file():
        raise MergeError(
            f"{root} is not a build output (no {outdir.MARKER}): pass the folders that `build --shard K/N` "
            "wrote, with their hidden files (upload-artifact needs include-hidden-files: true)"
        )
    if (root / outdir.PARTIAL).exists():
        raise MergeError(f"{root} is an unfinished build ({outdir.PARTIAL} is still there)")
    data = outdir.read_marker(root)
    if not data:
        raise MergeError(f"{root}/{outdir.MARKER} cannot be read as a manifest (not a JSON object)")
    if data.get("version") != incremental.MANIFEST_VERSION:
        raise MergeError(
            f"{root}/{outdir.MARKER} is not a manifest this generator reads (version {data.get('version')!r}, "
            f"expected {incremental.MANIFEST_VERSION}): build the shards with this checkout"
        )
    models, site = data.get("models"), data.get("site")
    if (
        not isinstance(models, dict)
        or not isinstance(site, dict)
        or not all(manifest.is_group(group, rows=True) for group in models.values())
        or not (site == {} or manifest.is_group(site, rows=False))
    ):
        raise MergeError(f"{root}/{outdir.MARKER} is damaged: its models or site entry is not what a build writes")
    shard = Shard(root, incremental.Manifest(models, site))
    unsafe = sorted(rel for rel in shard.files() if not manifest.safe_path(rel))
    if unsafe:
        raise MergeError(f"{root}/{outdir.MARKER} lists a path outside the output folder: {unsafe[0]!r}")
    return shard


def _check_disjoint(shards: Sequence[Shard]) -> None:
    """MergeError if two shards hold the same model, both the site pages, or the same file."""
    owner: dict[str, Path] = {}
    model_owner: dict[str, Path] = {}
    site_owner: Path | None = None
    for shard in shards:
        for slug in shard.manifest.models:
            if slug in model_owner:
                raise MergeError(
                    f"{model_owner[slug]} and {shard.root} both contain model {slug}: the shards overlap "
                    "(pass each shard once, all from the same --shard K/N split)"
                )
            model_owner[slug] = shard.root
        if shard.manifest.site:
            if site_owner is not None:
                raise MergeError(
                    f"{site_owner} and {shard.root} both contain the site pages: the shards overlap "
                    "(only shard 1/N builds them)"
                )
            site_owner = shard.root
        for rel in shard.files():
            if rel in owner:
                raise MergeError(f"{owner[rel]} and {shard.root} both contain {rel}: the shards overlap")
            owner[rel] = shard.root


def _plural(items: Sequence[str]) -> str:
    return items[0] + (f" and {len(items) - 1} more" if len(items) > 1 else "")


def combine(shards: Sequence[Shard], expected: incremental.Keys) -> incremental.Manifest:
    """The manifest of the merged output; MergeError if the shards overlap, miss a part or were built
    from other inputs than ``expected`` (the keys this checkout gives every group)."""
    _check_disjoint(shards)
    models: dict[str, dict[str, Any]] = {}
    where: dict[str, Path] = {}
    site: dict[str, Any] = {}
    site_from: Path | None = None
    for shard in shards:
        for slug, group in shard.manifest.models.items():
            models[slug], where[slug] = group, shard.root
        if shard.manifest.site:
            site, site_from = shard.manifest.site, shard.root
    unknown = sorted(set(models) - set(expected.models))
    if unknown:
        raise MergeError(
            f"{where[unknown[0]]} contains model {_plural(unknown)}, which this catalog does not have: "
            "build the shards and merge from the same commit"
        )
    if site_from is None:
        raise MergeError("no shard contains the site pages (shard 1/N builds them): a shard is missing")
    missing = [slug for slug in expected.models if slug not in models]
    if missing:
        raise MergeError(
            f"no shard contains model {_plural(missing)}: a shard is missing (pass all N folders of --shard K/N)"
        )
    stale = [(where[s], f"model {s}") for s in expected.models if models[s]["key"] != expected.models[s]]
    if site["key"] != expected.site:
        stale.append((site_from, "the site pages"))
    if len(stale) == len(expected.models) + 1:
        raise MergeError(
            "every shard was built from other inputs than this merge expects (content, code, --base-url or "
            "--locale differ): merge from the same commit, with the --base-url and --locale of the builds"
        )
    if stale:
        root, what = stale[0]
        raise MergeError(
            f"{root} was built from other inputs than the rest (the key of {what} differs: content, code, "
            "--base-url or --locale): build every shard from the same commit with the same options"
        )
    # Same keys and insertion order as a single build's manifest (it is written with sorted keys anyway).
    return incremental.Manifest({slug: models[slug] for slug in expected.models}, site)


def check_contents(shard: Shard) -> None:
    """MergeError unless the shard folder holds exactly the files its manifest lists (besides the marker)."""
    listed = shard.files()
    found: set[str] = set()
    for folder, dirs, names in os.walk(shard.root):
        for name in dirs:
            if os.path.islink(os.path.join(folder, name)):
                rel = os.path.relpath(os.path.join(folder, name), shard.root)
                raise MergeError(f"{shard.root}/{rel} is a symbolic link; a build writes none")
        for name in names:
            found.add(os.path.relpath(os.path.join(folder, name), shard.root))
    found.discard(outdir.MARKER)
    extra = sorted(found - set(listed))
    if extra:
        raise MergeError(
            f"{shard.root}/{extra[0]} is not in the shard's manifest: pass the folders `build --shard` wrote, unchanged"
        )
    absent = sorted(set(listed) - found)
    if absent:
        raise MergeError(
            f"{shard.root}/{absent[0]} is listed in the shard's manifest but missing "
            f"({len(absent):,} file(s) in all): the shard is incomplete"
        )


def place(files: dict[str, str], source: Path, target: Path) -> tuple[int, int, int]:
    """Hard-link (or copy) ``files`` from ``source`` into ``target``, checking each against its sha256.

    A file is linked only if it already has the output's mode (0644), so the merge never changes a
    shard's files; otherwise, or across file systems, it is copied. Returns (linked, copied, bytes).
    """
    src_root, dst_root = str(source), str(target)
    made: set[str] = set()
    linked = copied = size = 0
    for rel, sha in files.items():
        src, dst = os.path.join(src_root, rel), os.path.join(dst_root, rel)
        info = os.lstat(src)
        if not stat.S_ISREG(info.st_mode):
            raise MergeError(f"{src} is not a plain file")
        with open(src, "rb") as fh:
            data = fh.read()
        if hashlib.sha256(data).hexdigest() != sha:
            raise MergeError(f"{src} differs from the hash in its shard's manifest: the shard was altered or damaged")
        folder = os.path.dirname(dst)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        size += len(data)
        if stat.S_IMODE(info.st_mode) == outdir.FILE_MODE:
            try:
                os.link(src, dst)
                linked += 1
                continue
            except OSError:
                pass
        with open(dst, "wb") as fh:
            fh.write(data)
        os.chmod(dst, outdir.FILE_MODE)
        copied += 1
    return linked, copied, size


def _check_out(out: Path, roots: Iterable[Path]) -> None:
    """MergeError if ``out`` is a shard, lies inside one or holds one."""
    for root in roots:
        if out.is_relative_to(root) or root.is_relative_to(out):
            raise MergeError(f"--out {out} overlaps the shard folder {root}: merge into another folder")


def merge(shard_dirs: Sequence[Path], out: Path, expected: incremental.Keys) -> str:
    """Merge the shard folders into ``out`` (replaced atomically) and write ``<out>.changed.txt``; a summary line.

    ``expected`` is what this checkout's build would key each group with; every shard must match it.
    """
    start = time.perf_counter()
    out = out.resolve()
    roots = [d.resolve() for d in shard_dirs]
    for i, root in enumerate(roots):
        if root in roots[:i]:
            raise MergeError(f"{root} is passed twice")
    _check_out(out, roots)
    shards = [read_shard(root) for root in roots]
    manifest = combine(shards, expected)
    for shard in shards:
        check_contents(shard)
    with outdir.exclusive(out):
        previous = incremental.previous(out)
        tmp = outdir.new_tree(out)
        undo_changes = None
        try:
            totals = [place(shard.files(), shard.root, tmp) for shard in shards]
            outdir.finish_tree(tmp, manifest.data())
            # Whatever was added to the old folder while this run wrote the new one is not replaced either.
            outdir.check_replaceable(out)
            # As in build: the list is written before the swap, and put back if the swap fails.
            changed = incremental.changes(previous.files(), manifest.files())
            changed_txt = out.with_name(out.name + ".changed.txt")
            undo_changes = outdir.write_changes(changed_txt, "".join(p + "\n" for p in changed))
            outdir.swap_in(tmp, out)
        except BaseException:
            if undo_changes is not None:
                undo_changes()
            outdir.discard(tmp)
            raise
    linked, copied, size = (sum(t[i] for t in totals) for i in range(3))
    return (
        f"merged {len(shards)} shards into {out}: {linked + copied:,} files ({size / 1e6:,.1f} MB; "
        f"{linked:,} linked, {copied:,} copied), {len(changed):,} changed URLs, in {time.perf_counter() - start:.1f} s"
    )
