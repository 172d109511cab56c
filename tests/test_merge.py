"""`python -m generator merge`: shard outputs merged into exactly what one build writes, or refused in one line."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from generator.cli import main
from generator.content.loader import load_catalog
from generator.publish import outdir, writer
from tests.golden.regenerate import BASE_URL
from tests.golden.regenerate import CONTENT as GOLDEN


@dataclasses.dataclass(frozen=True)
class Built:
    """Three shards of a three-model catalog and the single build they must add up to."""

    content: Path
    shards: tuple[Path, ...]
    single: Path


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (the manifest included) with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def three_models(dest: Path) -> Path:
    """The golden catalog plus a third model (a renamed copy), so each of three shards gets one."""
    shutil.copytree(GOLDEN, dest)
    text = (dest / "models" / "qwen3-30b-a3b.yaml").read_text(encoding="utf-8")
    copy = text.replace("slug: qwen3-30b-a3b", "slug: qwen3-copy", 1)
    copy = copy.replace("hf_id: Qwen/Qwen3-30B-A3B", "hf_id: Qwen/Qwen3-Copy", 1)
    copy = copy.replace("name: Qwen3-30B-A3B", "name: Qwen3 Copy", 1)
    (dest / "models" / "qwen3-copy.yaml").write_text(copy, encoding="utf-8")
    return dest


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("merge")
    content = three_models(root / "content")
    catalog = load_catalog(content)
    shards = tuple(root / f"shard-{k}" for k in (1, 2, 3))
    for k, shard in enumerate(shards, 1):
        writer.build(catalog, shard, jobs=1, base_url=BASE_URL, content=content, shard=(k, 3))
    single = root / "single"
    writer.build(catalog, single, jobs=1, base_url=BASE_URL, content=content)
    return Built(content, shards, single)


def merge(built: Built, out: Path, *shards: Path, base_url: str = BASE_URL) -> int:
    return main(
        ["--content", str(built.content), "merge", "--out", str(out), "--base-url", base_url, *map(str, shards)]
    )


def refused(capsys: pytest.CaptureFixture[str], rc: int) -> str:
    """The one-line message of a refused command (exit 2, no traceback)."""
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_three_shards_merge_into_a_single_build_byte_for_byte(built: Built, tmp_path: Path) -> None:
    assert all(len(json.loads((s / outdir.MARKER).read_text())["models"]) == 1 for s in built.shards)
    out = tmp_path / "dist"
    assert merge(built, out, *built.shards) == 0
    assert tree(out) == tree(built.single)  # every file, the manifest included
    # Linked from the shards (same file system), world-readable whatever the shards' modes.
    page = "en/models/qwen3-copy/rtx-4090/index.html"
    shard = next(s for s in built.shards if (s / page).exists())
    assert os.path.samefile(out / page, shard / page)
    assert {stat.S_IMODE(p.stat().st_mode) for p in out.rglob("*") if p.is_file()} == {0o644}
    assert {stat.S_IMODE(p.stat().st_mode) for p in out.rglob("*") if p.is_dir()} == {0o755}
    # Nothing was there before: every URL is new. A later incremental build reuses every group.
    changed = (tmp_path / "dist.changed.txt").read_text().split()
    assert len(changed) == len(tree(built.single)) - 1 and "/en/models/qwen3-copy/rtx-4090/" in changed
    catalog = load_catalog(built.content)
    summary = writer.build(catalog, out, jobs=1, base_url=BASE_URL, content=built.content)
    assert "up to date" in summary


def test_merge_over_a_previous_build_lists_only_real_changes(built: Built, tmp_path: Path) -> None:
    out = tmp_path / "dist"
    shutil.copytree(built.single, out)
    assert merge(built, out, *built.shards) == 0
    assert (tmp_path / "dist.changed.txt").read_text() == ""
    assert tree(out) == tree(built.single)


def test_a_shard_file_with_another_mode_is_copied_and_left_alone(built: Built, tmp_path: Path) -> None:
    shard = tmp_path / "shard-2"
    shutil.copytree(built.shards[1], shard)
    victim = next(p for p in shard.rglob("*.html"))
    victim.chmod(0o600)
    out = tmp_path / "dist"
    assert merge(built, out, built.shards[0], shard, built.shards[2]) == 0
    copy = out / victim.relative_to(shard)
    assert not os.path.samefile(copy, victim) and stat.S_IMODE(copy.stat().st_mode) == 0o644
    assert stat.S_IMODE(victim.stat().st_mode) == 0o600
    assert tree(out) == tree(built.single)


def test_overlapping_shards_are_refused(built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    again = tmp_path / "shard-2-again"
    shutil.copytree(built.shards[1], again)
    err = refused(capsys, merge(built, tmp_path / "dist", *built.shards, again))
    assert "both contain model" in err and "overlap" in err
    err = refused(capsys, merge(built, tmp_path / "dist", built.shards[0], built.shards[0]))
    assert "passed twice" in err
    assert not (tmp_path / "dist").exists()


def test_a_folder_without_a_manifest_is_refused(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = tmp_path / "bare"
    shutil.copytree(built.shards[2], bare)
    (bare / outdir.MARKER).unlink()
    err = refused(capsys, merge(built, tmp_path / "dist", built.shards[0], built.shards[1], bare))
    assert f"is not a build output (no {outdir.MARKER})" in err
    err = refused(capsys, merge(built, tmp_path / "dist", *built.shards, tmp_path / "nowhere"))
    assert "is not a folder" in err


def test_shards_built_with_other_settings_are_refused(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "shard-2-other-url"
    catalog = load_catalog(built.content)
    writer.build(catalog, other, jobs=1, base_url="https://elsewhere.example", content=built.content, shard=(2, 3))
    capsys.readouterr()  # the build's own progress lines
    err = refused(capsys, merge(built, tmp_path / "dist", built.shards[0], other, built.shards[2]))
    assert f"{other} was built from other inputs than the rest" in err and "--base-url" in err
    # The builds' settings, not the merge's, are the ones that count: every shard differs from them.
    err = refused(capsys, merge(built, tmp_path / "dist", *built.shards, base_url="https://elsewhere.example"))
    assert "every shard was built from other inputs" in err


def test_a_missing_part_is_refused(built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, merge(built, tmp_path / "dist", built.shards[1], built.shards[2]))
    assert "no shard contains the site pages (shard 1/N builds them)" in err
    err = refused(capsys, merge(built, tmp_path / "dist", built.shards[0], built.shards[1]))
    assert "no shard contains model qwen3-copy" in err
    assert not (tmp_path / "dist").exists()


def test_shards_of_another_catalog_are_refused(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--content", str(GOLDEN), "merge", "--out", str(tmp_path / "dist"), "--base-url", BASE_URL]
    err = refused(capsys, main([*args, *map(str, built.shards)]))
    assert "contains model qwen3-copy, which this catalog does not have" in err


def test_a_shard_that_is_not_as_built_is_refused(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shard = tmp_path / "shard-3"
    shutil.copytree(built.shards[2], shard)
    extra = shard / "en" / "stray.html"
    extra.write_text("<p>not ours</p>")
    err = refused(capsys, merge(built, tmp_path / "dist", built.shards[0], built.shards[1], shard))
    assert "en/stray.html is not in the shard's manifest" in err
    extra.unlink()
    page = next(shard.glob("api/**/*.json"))
    page.unlink()
    err = refused(capsys, merge(built, tmp_path / "dist", built.shards[0], built.shards[1], shard))
    assert "is listed in the shard's manifest but missing" in err
    manifest = json.loads((shard / outdir.MARKER).read_text())
    next(iter(manifest["models"].values()))["files"]["../outside.html"] = "0" * 64
    (shard / outdir.MARKER).write_text(json.dumps(manifest))
    err = refused(capsys, merge(built, tmp_path / "dist", built.shards[0], built.shards[1], shard))
    assert "lists a path outside the output folder: '../outside.html'" in err
    (shard / outdir.MARKER).write_text("{not json")
    err = refused(capsys, merge(built, tmp_path / "dist", built.shards[0], built.shards[1], shard))
    assert "cannot be read as a manifest" in err


def test_a_failed_merge_leaves_the_previous_output(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "dist"
    shutil.copytree(built.single, out)
    (tmp_path / "dist.changed.txt").write_text("/previous/\n")
    before = tree(out)
    shard = tmp_path / "shard-2"
    shutil.copytree(built.shards[1], shard)
    page = sorted(shard.rglob("*.html"))[-1]
    page.write_bytes(page.read_bytes() + b" ")
    err = refused(capsys, merge(built, out, built.shards[0], shard, built.shards[2]))
    assert "differs from the hash in its shard's manifest" in err
    assert tree(out) == before
    assert (tmp_path / "dist.changed.txt").read_text() == "/previous/\n"
    assert not list(tmp_path.glob(".dist.sizewise-tmp-*"))


def test_an_output_folder_that_is_not_a_build_is_refused(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    err = refused(capsys, merge(built, mine, *built.shards))
    assert "was not made by `build`" in err
    assert (mine / "notes.txt").read_text() == "keep me"
    err = refused(capsys, merge(built, built.shards[0] / "dist", *built.shards))
    assert "overlaps the shard folder" in err
