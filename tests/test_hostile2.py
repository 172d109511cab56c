"""Hostile input and faults, round two (issue #33): stale incremental output, the output guard, reused
files that were changed, damaged markers, catalog files that are not plain files, values the schema
accepts that the build cannot handle, translations, and the workbench's URL numbers.

Like tests/test_hostile.py, each case edits a copy of the golden fixture catalog (2 models × 2
accelerators) and runs the real command line in this process.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from generator import cli
from generator.publish import outdir, stamp
from tests.golden.regenerate import CONTENT as GOLDEN


def tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` with the sha256 of its bytes (and every folder, as 'dir'); the no-op stamp,
    which describes the files' inodes and times, is left out."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if rel == outdir.STAMP:
            continue
        out[rel] = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def build(content: Path, out: Path, *more: str) -> int:
    return cli.main(["--content", str(content), "build", "--out", str(out), "--jobs", "1", *more])


@pytest.fixture(scope="module")
def first_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the golden catalog and a first build of it."""
    root = tmp_path_factory.mktemp("first-build")
    shutil.copytree(GOLDEN, root / "content")
    assert build(root / "content", root / "dist") == 0
    return root


@pytest.fixture
def site(tmp_path: Path, first_build: Path) -> tuple[Path, Path]:
    """A copy of the golden catalog and of a first build of it: (content, dist)."""
    shutil.copytree(first_build, tmp_path, dirs_exist_ok=True)
    return tmp_path / "content", tmp_path / "dist"


# --- N1: incremental builds cannot miss an input -------------------------------------------------

WANTED = """wanted:
  - name: Imaginary-70B
    kind: model
    status: not_released
    missing: No weights are published.
    sources: [https://example.org/imaginary]
"""

# One edit of every file of the fixture catalog (and of the files it may have but does not), each a
# change some page shows: (file, edit of the content folder).
MUTATIONS: list[tuple[str, Callable[[Path], None]]] = [
    ("assumptions.yaml", lambda c: edit(c / "assumptions.yaml", "hours_per_day: 8 ", "hours_per_day: 6 ")),
    ("calibration.yaml", lambda c: edit(c / "calibration.yaml", "ratio_high: 1.403", "ratio_high: 1.5")),
    (
        "engines.yaml",
        lambda c: edit(c / "engines.yaml", "runtime_bytes_per_gpu: 479199232", "runtime_bytes_per_gpu: 579199232"),
    ),
    (
        "formats.yaml",
        lambda c: edit(c / "formats.yaml", "bits_per_weight: 4.8992", "bits_per_weight: 4.9"),
    ),
    (
        "hardware/apple-m4-max-40c-128gb.yaml",
        lambda c: edit(c / "hardware/apple-m4-max-40c-128gb.yaml", "bandwidth_gbps: 546", "bandwidth_gbps: 500"),
    ),
    (
        "hardware/rtx-4090.yaml",
        lambda c: edit(c / "hardware/rtx-4090.yaml", "bandwidth_gbps: 1008", "bandwidth_gbps: 900"),
    ),
    (
        "models/llama-3-1-8b-instruct.yaml",
        lambda c: edit(c / "models/llama-3-1-8b-instruct.yaml", "notes: >-\n", "notes: >-\n  A changed note.\n"),
    ),
    (
        "models/qwen3-30b-a3b.yaml",
        lambda c: edit(c / "models/qwen3-30b-a3b.yaml", "name: Qwen3-30B-A3B", "name: Qwen3 30B A3B"),
    ),
    ("pages/en/methodology.md", lambda c: (c / "pages/en/methodology.md").open("a").write("\nA new line.\n")),
    ("pages/fr/methodology.md", lambda c: (c / "pages/fr/methodology.md").open("a").write("\nUne ligne.\n")),
    ("pages/zh/methodology.md", lambda c: (c / "pages/zh/methodology.md").open("a").write("\n新的一行。\n")),
    (
        "prices/api.yaml",
        lambda c: edit(c / "prices/api.yaml", "output_usd_per_mtok: 0.29", "output_usd_per_mtok: 0.31"),
    ),
    (
        "prices/cloud.yaml",
        lambda c: edit(c / "prices/cloud.yaml", "url: https://www.runpod.io/pricing", "url: https://runpod.io/gpu"),
    ),
    ("quality.yaml", lambda c: edit(c / "quality.yaml", "max_loss: 0.04", "max_loss: 0.02")),
    (
        "search-aliases.yaml",
        lambda c: edit(c / "search-aliases.yaml", "Apple: [苹果, Mac]", "Apple: [苹果, Mac, 麦金塔]"),
    ),
    ("wanted.yaml", lambda c: (c / "wanted.yaml").write_text(WANTED, encoding="utf-8")),
]


def test_every_file_of_the_fixture_catalog_has_a_mutation() -> None:
    files = {str(p.relative_to(GOLDEN)) for p in GOLDEN.rglob("*") if p.is_file()}
    assert files <= {name for name, _ in MUTATIONS}, "give each new fixture file an edit in MUTATIONS"


@pytest.mark.slow  # two builds per file of the catalog
@pytest.mark.parametrize(("name", "mutate"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_incremental_build_after_any_edit_equals_a_forced_build(
    site: tuple[Path, Path], name: str, mutate: Callable[[Path], None]
) -> None:
    content, out = site
    before = tree(out)
    mutate(content)
    assert build(content, out) == 0
    changed = out.with_name("dist.changed.txt").read_text().split()
    ref = out.with_name("ref")
    assert build(content, ref, "--force") == 0
    shown = {k: v for k, v in tree(ref).items() if k != outdir.MARKER}
    assert shown != {k: v for k, v in before.items() if k != outdir.MARKER}, f"editing {name} changes no page"
    assert tree(out) == tree(ref), f"after editing {name}, the incremental build differs from --force"
    assert changed, f"after editing {name}, nothing is listed as changed"


def test_the_key_covers_python_and_the_rendering_libraries(
    site: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.publish import incremental

    content, out = site
    real = incremental.environment()
    for package in (b"jinja2==", b"markdown==", b"babel==", b"minify_html==", b"pydantic==", b"pyyaml=="):
        assert b"\n" + package in real
    capsys.readouterr()
    assert build(content, out) == 0
    assert "up to date" in capsys.readouterr().out
    # Both the no-op fast path and the keys see it.
    other = real.replace(b"jinja2==", b"jinja2==9")
    monkeypatch.setattr(stamp, "environment", lambda: other)
    monkeypatch.setattr(incremental, "environment", lambda: other)
    assert build(content, out) == 0
    assert "2 of 2 models rendered" in capsys.readouterr().out


# --- The no-op fast path answers only when nothing changed --------------------------------------


def test_a_no_op_build_answers_before_the_catalog_is_read(
    site: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    content, out = site
    assert build(content, out) == 0  # the copy has new inodes: the full check, which stamps it again
    assert (out / outdir.STAMP).is_file()
    changed = out.with_name("dist.changed.txt")
    changed.write_text("/en/\n")
    capsys.readouterr()

    def no_catalog(_args: object) -> int:
        raise AssertionError("the catalog was read for a no-op build")

    with monkeypatch.context() as m:
        m.setattr(cli, "_run", no_catalog)
        assert build(content, out) == 0
    assert "is up to date" in capsys.readouterr().out
    assert changed.read_text() == ""
    # --force never takes it.
    with monkeypatch.context() as m:
        m.setattr(cli, "_run", no_catalog)
        with pytest.raises(AssertionError):
            build(content, out, "--force")


def test_the_fast_path_fingerprints_the_folders_the_keys_read() -> None:
    from generator.publish import incremental

    assert incremental.code_folders() == stamp.CODE_FOLDERS


# Each change in dist/ or in the inputs that the fast path must see: (name, change, what the full build says).
FAST_PATH_MISSES: list[tuple[str, Callable[[Path, Path], None], str]] = [
    ("a page edited in place", lambda _c, o: _append(o / "en/index.html", b"<!-- x -->"), "rendered"),
    ("a page replaced", lambda _c, o: _replace(o / "fr/index.html"), "rendered"),
    ("a page removed", lambda _c, o: (o / "zh/index.html").unlink(), "rendered"),
    ("a file added", lambda _c, o: (o / "en" / "extra.html").write_text("x"), "refusing"),
    ("a folder added", lambda _c, o: (o / "en" / "extra").mkdir(), "refusing"),
    ("a content byte", lambda c, _o: _append(c / "assumptions.yaml", b"\n"), "up to date"),
    ("the stamp damaged", lambda _c, o: (o / outdir.STAMP).write_text("{"), "up to date"),
]


def _append(path: Path, data: bytes) -> None:
    with path.open("ab") as fh:
        fh.write(data)


def _replace(path: Path) -> None:
    data = path.read_bytes()
    path.unlink()
    path.write_bytes(data.replace(b"<title>", b"<title>x", 1))


@pytest.mark.parametrize(("name", "change", "says"), FAST_PATH_MISSES, ids=[m[0] for m in FAST_PATH_MISSES])
def test_the_fast_path_sees_every_change(
    site: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    change: Callable[[Path, Path], None],
    says: str,
) -> None:
    content, out = site
    assert build(content, out) == 0
    capsys.readouterr()
    change(content, out)
    full = cli._run
    ran: list[bool] = []
    monkeypatch.setattr(cli, "_run", lambda args: ran.append(True) or full(args))
    code = build(content, out)
    printed = capsys.readouterr()
    assert ran, f"after {name}, the no-op fast path answered"
    assert says in printed.out + printed.err, f"after {name}: {printed}"
    if says == "refusing":
        assert code == 2
    else:
        assert code == 0
        ref = out.with_name("ref")
        assert build(content, ref, "--force") == 0
        assert tree(out) == tree(ref), f"after {name}, the build differs from --force"


# --- N7: reused files are checked; a damaged marker is no previous build --------------------------


def test_a_defaced_file_is_rendered_again_and_listed_as_changed(site: tuple[Path, Path]) -> None:
    content, out = site
    page = out / "en/models/llama-3-1-8b-instruct/rtx-4090/index.html"
    good = page.read_bytes()
    defaced = good.replace(b"<title>", b"<title>pwned ", 1)
    page.unlink()  # a new file, as an editor writes it
    page.write_bytes(defaced)
    assert build(content, out) == 0
    assert page.read_bytes() == good
    assert "/en/models/llama-3-1-8b-instruct/rtx-4090/" in out.with_name("dist.changed.txt").read_text().split()
    # Edited in place (the same inode, so also every hard link of it), same size.
    with page.open("r+b") as fh:
        fh.write(b"<!DOCTYPE html><!-- x -->"[: len(good)])
    assert build(content, out) == 0
    assert page.read_bytes() == good
    assert "/en/models/llama-3-1-8b-instruct/rtx-4090/" in out.with_name("dist.changed.txt").read_text().split()


def test_a_reused_file_replaced_by_a_link_is_not_followed(site: tuple[Path, Path], tmp_path: Path) -> None:
    content, out = site
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    page = out / "en/models/qwen3-30b-a3b/rtx-4090/index.html"
    good = page.read_bytes()
    page.unlink()
    page.symlink_to(secret)
    # A link is something no build writes: the folder is refused, naming it.
    code = build(content, out)
    assert code == 2
    page.unlink()
    page.write_bytes(good)
    assert build(content, out) == 0


MARKERS = ["[]", "1", '"x"', "null", '{"version": 1, "models": [], "site": {}}', '{"version": 1, "models": {"a": 1}}']
MARKERS += ['{"version": 1, "models": {}, "site": {"key": "k", "files": {"../x": "0"}}}', "[" * 100000, "{not json"]


@pytest.mark.parametrize("marker", MARKERS)
def test_a_damaged_marker_means_no_previous_build(
    site: tuple[Path, Path], capsys: pytest.CaptureFixture[str], marker: str
) -> None:
    content, out = site
    (out / outdir.MARKER).write_text(marker)
    for argv in ([], ["--force"]):
        capsys.readouterr()
        assert build(content, out, *argv) == 0
        assert "Traceback" not in capsys.readouterr().err
        assert json.loads((out / outdir.MARKER).read_text())["version"] == 1
        (out / outdir.MARKER).write_text(marker)
    # merge into the folder (from shards built here) works as well
    shards = [out.with_name(f"shard{k}") for k in (1, 2)]
    for k, shard in enumerate(shards, 1):
        assert build(content, shard, "--shard", f"{k}/2") == 0
    capsys.readouterr()
    code = cli.main(["--content", str(content), "merge", *map(str, shards), "--out", str(out)])
    assert code == 0, capsys.readouterr().err


@pytest.mark.parametrize("rows", [[{"nonsense": 1}], [], "x", [1, 2]])
def test_rows_of_the_wrong_shape_are_not_reused(site: tuple[Path, Path], rows: object) -> None:
    content, out = site
    data = json.loads((out / outdir.MARKER).read_text())
    data["models"]["llama-3-1-8b-instruct"]["rows"] = rows
    (out / outdir.MARKER).write_text(json.dumps(data))
    # Another model changes: the site pages are rendered again from every model's rows.
    edit(content / "models/qwen3-30b-a3b.yaml", "notes: >-\n", "notes: >-\n  A changed note.\n")
    assert build(content, out) == 0
    ref = out.with_name("ref")
    assert build(content, ref, "--force") == 0
    assert tree(out) == tree(ref)


# --- N2: the output guard never deletes what a build did not write ---------------------------------


def test_a_web_root_with_a_copy_of_a_build_and_more_is_refused(
    site: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    content, out = site
    www = out.with_name("www")
    shutil.copytree(out, www)
    (www / "blog").mkdir()
    (www / "blog/post.html").write_text("mine")
    (www / "en/notes.txt").write_text("mine too")
    before = tree(www)
    for argv in ([], ["--force"]):
        capsys.readouterr()
        assert build(content, www, *argv) == 2
        err = capsys.readouterr().err
        assert "blog/post.html" in err and "refusing" in err and "Traceback" not in err
        assert tree(www) == before


def test_an_empty_folder_or_link_inside_a_build_is_refused(
    site: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    content, out = site
    (out / "uploads").mkdir()
    assert build(content, out, "--force") == 2
    assert "uploads/" in capsys.readouterr().err
    (out / "uploads").rmdir()
    (out / "media").symlink_to(out.parent / "content")
    assert build(content, out, "--force") == 2
    assert "media" in capsys.readouterr().err
    assert (out.parent / "content/quality.yaml").is_file()


def test_a_sibling_manifest_file_does_not_make_a_folder_a_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    (photos / "cat.jpg").write_bytes(b"\xff\xd8")
    (tmp_path / "photos.manifest.json").write_text("{}")
    assert build(GOLDEN, photos) == 2
    assert "refusing" in capsys.readouterr().err
    assert (photos / "cat.jpg").read_bytes() == b"\xff\xd8"
    assert (tmp_path / "photos.manifest.json").read_text() == "{}"


def test_backups_beside_the_output_are_kept(site: tuple[Path, Path]) -> None:
    content, out = site
    backups = [out.with_name("dist.old-2026-11-30"), out.with_name(".dist.tmp-mine"), out.with_name("dist.old-1-2")]
    for backup in backups:
        shutil.copytree(out, backup)
        (backup / outdir.PARTIAL).write_text("")
    assert build(content, out) == 0  # a no-op build
    assert build(content, out, "--force") == 0
    for backup in backups:
        assert (backup / "en/index.html").is_file(), backup


def test_strangers_added_while_a_build_runs_are_not_deleted(
    site: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    content, out = site
    real = outdir.finish_tree

    def meanwhile(tmp: Path, data: dict[str, object]) -> None:
        (out / "added-during-the-build.txt").write_text("mine")
        real(tmp, data)

    monkeypatch.setattr(outdir, "finish_tree", meanwhile)
    assert build(content, out, "--force") == 2
    assert "added-during-the-build.txt" in capsys.readouterr().err
    assert (out / "added-during-the-build.txt").read_text() == "mine"
    assert not [p for p in out.parent.iterdir() if ".sizewise-tmp-" in p.name]


def test_leftover_names_are_ours_alone(site: tuple[Path, Path]) -> None:
    content, out = site
    edit(content / "pages/en/methodology.md", "\n", "\n\n")
    assert build(content, out) == 0
    for path in out.parent.iterdir():
        assert path.name in {"content", "dist", "dist.changed.txt", ".dist.lock"} or path.name.startswith(
            ".dist.sizewise-old-"
        ), path.name


def test_a_full_disk_while_writing_the_change_list_leaves_no_temporary_file(
    site: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, out = site
    real = os.replace

    def full(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OSError):
        outdir.write_atomic(out.with_name("dist.changed.txt"), "x\n")
    monkeypatch.setattr(os, "replace", real)
    assert not [p for p in out.parent.iterdir() if ".tmp-" in p.name]


# --- N3: the catalog is read only from regular files inside the content folder --------------------


def _run_with_timeout(argv: list[str], timeout_s: float = 20) -> int | None:
    """``cli.main(argv)`` in a thread; None if it has not returned after ``timeout_s`` (a hang)."""
    import threading

    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(cli.main(argv)), daemon=True)
    thread.start()
    thread.join(timeout_s)
    return result[0] if result else None


SECRET = "TOP-SECRET-0123456789"


def _link_page_outside(c: Path) -> Path:
    secret = c.parent / "secret.md"
    secret.write_text(f"# {SECRET}\n")
    page = c / "pages/en/methodology.md"
    page.unlink()
    page.symlink_to(secret)
    return page


def _link_model_inside(c: Path) -> Path:
    link = c / "models/llama-3-1-8b-instruct.yaml"
    target = c.parent / "llama.yaml"
    shutil.move(link, target)
    link.symlink_to(target)
    return link


def _link_folder(c: Path) -> Path:
    shutil.move(c / "pages/fr", c.parent / "fr")
    (c / "pages/fr").symlink_to(c.parent / "fr")
    return c / "pages/fr/methodology.md"


def _dev_zero(c: Path) -> Path:
    path = c / "quality.yaml"
    path.unlink()
    path.symlink_to("/dev/zero")
    return path


def _fifo(c: Path) -> Path:
    path = c / "quality.yaml"
    path.unlink()
    os.mkfifo(path)
    return path


def _fifo_model(c: Path) -> Path:
    path = c / "models/zz-pipe.yaml"
    os.mkfifo(path)
    return path


def _dangling(c: Path) -> Path:
    path = c / "prices/api.yaml"
    path.unlink()
    path.symlink_to(c.parent / "nowhere.yaml")
    return path


@pytest.mark.parametrize(
    "make",
    [_link_page_outside, _link_model_inside, _link_folder, _dev_zero, _fifo, _fifo_model, _dangling],
    ids=lambda f: f.__name__.strip("_"),
)
def test_catalog_files_that_are_not_regular_files_are_one_error(
    site: tuple[Path, Path], capsys: pytest.CaptureFixture[str], make: Callable[[Path], Path]
) -> None:
    content, out = site
    before = tree(out)
    path = make(content)
    rel = str(path.relative_to(content.parent))
    for argv in (["check-content"], ["build", "--out", str(out), "--jobs", "1"]):
        capsys.readouterr()
        code = _run_with_timeout(["--content", str(content), *argv])
        assert code == 2, f"{argv[0]} exited {code} (None: it hung)"
        err = capsys.readouterr().err
        assert "Traceback" not in err
        assert rel in err and ("symbolic link" in err or "named pipe" in err), err
    assert tree(out) == before
    assert not any(SECRET in p.read_text(errors="replace") for p in out.rglob("*.html"))


def test_a_file_is_read_up_to_the_limit_only(tmp_path: Path) -> None:
    from generator.content.loader import MAX_FILE_BYTES, read_plain

    big = tmp_path / "big.yaml"
    with big.open("wb") as fh:
        fh.truncate(MAX_FILE_BYTES * 4)
    with pytest.raises(ValueError, match="larger than"):
        read_plain(big, tmp_path)
    small = tmp_path / "small.yaml"
    small.write_bytes(b"a: 1\n")
    assert read_plain(small, tmp_path) == b"a: 1\n"


# --- N8: every value check-content accepts builds --------------------------------------------------

HW = "hardware/rtx-4090.yaml"
ACCEPTED_OR_LOCATED: list[tuple[str, str, str, str]] = [
    ("64 chips", HW, "chips: 1", "chips: 64"),
    ("8 chips", HW, "chips: 1", "chips: 8"),
    ("tiny memory", HW, "memory_gib: 24", "memory_gib: 1.0e-300"),
    ("half a GiB", HW, "memory_gib: 24", "memory_gib: 0.5"),
    ("price under a cent", HW, "usd: 1599", "usd: 0.004"),
    ("a cent", HW, "usd: 1599", "usd: 0.01"),
    ("price 1e8", HW, "usd: 1599", "usd: 100000000"),
    ("5,000 digits", HW, "usd: 1599", "usd: " + "9" * 5000),
    ("5,000 hex digits", HW, "usd: 1599", "usd: 0x" + "f" * 5000),
    ("list as a key", HW, "chips: 1", "? [a, b]\n: 1\nchips: 1"),
    ("mapping as a key", HW, "chips: 1", "chips: 1\n? {a: 1}\n: 2"),
    ("cheap cloud hour", "prices/cloud.yaml", "usd_per_hour: 0.34", "usd_per_hour: 0.0001"),
    ("cheap API", "prices/api.yaml", "output_usd_per_mtok: 0.29", "output_usd_per_mtok: 0.00001"),
]


@pytest.mark.parametrize(("what", "rel", "old", "new"), ACCEPTED_OR_LOCATED, ids=[c[0] for c in ACCEPTED_OR_LOCATED])
def test_what_check_content_accepts_builds(
    site: tuple[Path, Path], capsys: pytest.CaptureFixture[str], what: str, rel: str, old: str, new: str
) -> None:
    content, out = site
    edit(content / rel, old, new)
    capsys.readouterr()
    checked = cli.main(["--content", str(content), "check-content"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    built = build(content, out, "--force")
    err += capsys.readouterr().err
    assert "Traceback" not in err, f"{what}: {err}"
    assert (checked == 0) == (built == 0), f"{what}: check-content exited {checked}, build {built}: {err}"
    assert checked in (0, 2) and built in (0, 2)
    if checked == 2:
        assert f"{rel}:" in err, err


# --- N6: translations are text, and every one formats ----------------------------------------------


@pytest.fixture
def locales(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of locales/ the build reads instead of the checkout's (the caches built from it dropped)."""
    from generator.site import i18n, render

    copy = tmp_path / "locales"
    shutil.copytree(i18n.LOCALES_DIR, copy)
    monkeypatch.setattr(i18n, "LOCALES_DIR", copy)

    def clear() -> None:
        i18n.translations.cache_clear()
        render.environment.cache_clear()

    clear()
    yield copy
    monkeypatch.undo()
    clear()


HOSTILE_TRANSLATION = '<meta http-equiv="refresh" content="0;url=https://evil.example/"><img src=x onerror=alert(1)>'


def test_translations_are_text_not_markup(site: tuple[Path, Path], locales: Path) -> None:
    import html

    from tests.test_hostile import Elements

    content, out = site
    po = locales / "fr/LC_MESSAGES/messages.po"
    edit(po, 'msgstr "Aller au contenu"', f"msgstr {json.dumps(HOSTILE_TRANSLATION)}")
    assert build(content, out) == 0
    shown = 0
    for page in (out / "fr").rglob("*.html"):
        parser = Elements()
        parser.feed(page.read_text(encoding="utf-8"))
        assert "meta" not in parser.tags or "refresh" not in parser.values, page
        assert "onerror" not in parser.attributes, page
        shown += HOSTILE_TRANSLATION in html.unescape(page.read_text(encoding="utf-8"))
    assert shown >= 10, "the translation is shown, as text"


@pytest.mark.parametrize("bad", ["100 % ouvert", "%(other)s", "%d ouvert", "50 %"])
def test_a_translation_that_does_not_format_is_one_error(
    site: tuple[Path, Path], locales: Path, capsys: pytest.CaptureFixture[str], bad: str
) -> None:
    from babel.messages.pofile import read_po

    from generator.site.i18n import catalog_problems

    content, out = site
    before = tree(out)
    po = locales / "fr/LC_MESSAGES/messages.po"
    edit(po, 'msgstr "Aller au contenu"', f"msgstr {json.dumps(bad)}")
    with po.open("rb") as fh:
        problems = catalog_problems(read_po(fh, locale="fr"), "fr.po")
    assert len(problems) == 1 and "Skip to content" in problems[0]
    capsys.readouterr()
    assert build(content, out, "--force") == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "messages.po" in err and "%%" in err
    assert tree(out) == before


# --- N11: serve ---------------------------------------------------------------------------------


@pytest.fixture
def server(site: tuple[Path, Path]) -> Iterator[str]:
    import http.server
    import threading

    from generator.publish.serve import handler_for

    _, out = site
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_for(out))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _raw_get(address: str, path: str) -> tuple[int, dict[str, str]]:
    import http.client

    host, port = address.split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("GET", path)
    response = conn.getresponse()
    response.read()
    conn.close()
    return response.status, {k: v for k, v in response.getheaders()}


def test_dev_server_answers_a_nul_byte_with_400(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, _ = _raw_get(server, "/%00")
    assert status == 400
    assert "Traceback" not in capsys.readouterr().err
    assert _raw_get(server, "/en/")[0] == 200


def test_dev_server_headers_follow_the_file_served(server: str) -> None:
    status, headers = _raw_get(server, "/en/../badges/llama-3-1-8b-instruct.svg")
    assert status == 200
    assert "sandbox" in headers["Content-Security-Policy"]
    status, headers = _raw_get(server, "/badges/%2e%2e/en/")
    assert status == 200 and "script-src 'self'" in headers["Content-Security-Policy"]


def test_dev_server_drops_a_silent_connection() -> None:
    from generator.publish.serve import StaticHandler

    assert 0 < (StaticHandler.timeout or 0) <= 60


def test_watcher_survives_a_folder_that_disappears_and_ignores_the_output(tmp_path: Path) -> None:
    from generator.publish import serve

    catalog = tmp_path / "content"
    (catalog / "models").mkdir(parents=True)
    (catalog / "models/a.yaml").write_text("a")
    out = catalog / "dist"
    (out / "en").mkdir(parents=True)
    (out / "en/index.html").write_text("x")
    (catalog / ".dist.sizewise-tmp-0123").mkdir()
    (catalog / ".dist.sizewise-tmp-0123/f").write_text("x")
    (catalog / "dist.changed.txt").write_text("")
    assert set(serve.snapshot([catalog], out)) == {str(catalog / "models/a.yaml")}

    real = Path.stat

    def vanishing(self: Path, **kwargs: object) -> os.stat_result:
        if self.name == "a.yaml":
            raise FileNotFoundError(2, "No such file or directory", str(self))
        return real(self, **kwargs)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Path, "stat", vanishing)
        assert serve.snapshot([catalog, tmp_path / "gone"], out) == {}


# --- N13-N16: names, dates, numbers, locales, static files, full disks, pipes ----------------------


def test_new_model_refuses_a_named_pipe_instead_of_waiting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pipe = tmp_path / "config.json"
    os.mkfifo(pipe)
    code = _run_with_timeout(["--content", str(tmp_path), "new-model", str(pipe), "--stdout"], timeout_s=10)
    assert code == 2, f"new-model exited {code} (None: it hung)"
    err = capsys.readouterr().err
    assert "Traceback" not in err and "not a regular file" in err, err


def test_a_build_inside_another_build_is_refused(site: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    content, out = site
    before = tree(out)
    assert build(content, out / "sub") == 2
    assert "inside" in capsys.readouterr().err
    assert tree(out) == before


def test_a_build_inside_a_folder_being_built_is_refused(
    site: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    content, _ = site
    fresh = content.parent / "fresh"
    real = outdir.finish_tree
    inner: list[int] = []

    def meanwhile(tmp: Path, data: dict[str, object]) -> None:
        if not inner:
            inner.append(build(content, fresh / "sub"))
        real(tmp, data)

    monkeypatch.setattr(outdir, "finish_tree", meanwhile)
    assert build(content, fresh) == 0
    assert inner == [2]
    assert "another build is writing" in capsys.readouterr().err
    assert not (fresh / "sub").exists()


def test_a_full_disk_before_the_temporary_tree_is_marked_leaves_nothing(
    site: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    content, out = site
    real = Path.write_bytes

    def full(self: Path, data: bytes) -> int:
        if self.name == outdir.PARTIAL:
            raise OSError(28, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    assert build(content, out, "--force") != 0
    monkeypatch.setattr(Path, "write_bytes", real)
    assert not [p for p in out.parent.iterdir() if ".sizewise-tmp-" in p.name]


LLAMA = "models/llama-3-1-8b-instruct.yaml"
QWEN = "models/qwen3-30b-a3b.yaml"
APPLE = "hardware/apple-m4-max-40c-128gb.yaml"
REFUSED: list[tuple[str, str, str, str, str]] = [
    ("blank name", LLAMA, "name: Llama-3.1-8B-Instruct", 'name: "   "', "blank"),
    ("invisible character", LLAMA, "name: Llama-3.1-8B-Instruct", 'name: "Llama-3.1-8B\\u200b-Instruct"', "U+200B"),
    ("no-break space", LLAMA, "name: Llama-3.1-8B-Instruct", 'name: "Llama-3.1\\u00a08B"', "U+00A0"),
    ("Cyrillic look-alike", LLAMA, "name: Llama-3.1-8B-Instruct", "name: Llаma-3.1-8B-Instruct", "cyrillic"),
    ("same name, other case", QWEN, "name: Qwen3-30B-A3B", "name: llama-3.1-8b-INSTRUCT", LLAMA),
    # the rest of the line becomes a comment
    ("same name, full width", APPLE, "name: Apple Mac Studio", "name: ＮＶＩＤＩＡ  GeForce RTX 4090 #", HW),
    ("price dated 2099", HW, "date: 2022-09-20", "date: 2099-09-20", "in the future"),
    ("API price seen in 2099", "prices/api.yaml", "date_seen: 2026-11-05", "date_seen: 2099-11-05", "in the future"),
    ("octal 040", HW, "memory_gib: 24", "memory_gib: 040", "octal (32): write 40"),
    ("base 60", HW, "memory_gib: 24", "memory_gib: 1:30", "base-60"),
]


@pytest.mark.parametrize(("rel", "old", "new", "says"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_names_dates_and_octal_numbers_check_content_refuses(
    site: tuple[Path, Path], capsys: pytest.CaptureFixture[str], rel: str, old: str, new: str, says: str
) -> None:
    content, _ = site
    edit(content / rel, old, new)
    capsys.readouterr()
    assert cli.main(["--content", str(content), "check-content"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and rel in err and says.lower() in err.lower(), err


def test_a_one_language_build_links_to_no_other_language(site: tuple[Path, Path]) -> None:
    import re

    content, out = site
    assert build(content, out, "--locale", "fr", "--base-url", "https://sizewise.example") == 0
    # Minified pages quote attributes only where needed.
    foreign = re.compile(r"""(?:href=["']?(?:https://sizewise\.example)?/(?:en|zh)/|hreflang=["']?(?:en|zh-Hans)\b)""")
    pages = sorted(out.rglob("*.html"))
    assert pages
    linking = [str(p.relative_to(out)) for p in pages if foreign.search(p.read_text(encoding="utf-8"))]
    assert linking == []
    assert (out / "fr/index.html").is_file() and not (out / "en").exists()


def test_only_the_static_files_pages_load_are_published(
    site: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.publish import writer

    assert sorted(p.name for p in writer.STATIC.iterdir()) == sorted(writer.STATIC_FILES)
    static = tmp_path / "static"
    shutil.copytree(writer.STATIC, static)
    (static / "notes.txt").write_text(SECRET)
    (static / ".env").write_text(SECRET)
    (static / "site.css~").write_text(SECRET)
    monkeypatch.setattr(writer, "STATIC", static)
    content, out = site
    assert build(content, out, "--force") == 0
    published = sorted(p.name for p in (out / "assets").iterdir())
    assert not [name for name in published if "notes" in name or "env" in name or "~" in name], published
    assert not any(SECRET in p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())


# --- N9: an output folder that is a mount point ---------------------------------------------------


def test_an_output_at_a_mount_point_is_refused_before_rendering(
    site: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.publish import writer

    content, out = site
    before = tree(out)
    live = out.with_name("dist.changed.txt").read_bytes()
    real = os.path.ismount
    monkeypatch.setattr(os.path, "ismount", lambda p: Path(p) == out or real(p))

    def never(*_args: object) -> object:
        raise AssertionError("rendered before the mount point was refused")

    monkeypatch.setattr(writer, "write_site", never)
    edit(content / "pages/en/methodology.md", "\n", "\n\n")
    capsys.readouterr()
    assert build(content, out) == 2
    assert "mount point" in capsys.readouterr().err
    assert tree(out) == before
    assert out.with_name("dist.changed.txt").read_bytes() == live
    assert not [p for p in out.parent.iterdir() if ".sizewise-tmp-" in p.name]


def test_a_build_that_fails_to_go_live_leaves_the_live_change_list(
    site: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    content, out = site
    changed_txt = out.with_name("dist.changed.txt")
    live = changed_txt.read_bytes()
    before = tree(out)

    def busy(_tmp: Path, dest: Path) -> None:
        raise OSError(16, "Device or resource busy", str(dest))

    monkeypatch.setattr(outdir, "swap_in", busy)
    edit(content / "pages/en/methodology.md", "\n", "\n\n")
    assert build(content, out) != 0
    assert changed_txt.read_bytes() == live
    assert tree(out) == before
    changed_txt.unlink()
    assert build(content, out) != 0
    assert not changed_txt.exists()


# --- N4: a Content-Security-Policy where the host sends no headers --------------------------------


def test_every_page_carries_the_header_policy_in_a_meta_element(site: tuple[Path, Path]) -> None:
    import html as html_lib
    import re

    from generator.publish.serve import headers_for, parse_headers

    _, out = site
    rules = parse_headers((out / "_headers").read_text(encoding="utf-8"))
    # Every page (the workbench's controls under assets/ are a fragment a page inserts, not a page).
    pages = sorted(p for p in out.rglob("*.html") if p.parent.name != "assets")
    assert len(pages) > 20
    meta = re.compile(
        r"""<meta (?:content=("[^"]*"|[^ >]*) http-equiv=["']?Content-Security-Policy["']?|"""
        r"""http-equiv=["']?Content-Security-Policy["']? content=("[^"]*"|[^ >]*))>"""
    )
    for page in pages:
        text = page.read_text(encoding="utf-8")
        found = meta.findall(text)
        assert len(found) == 1, page
        value = html_lib.unescape((found[0][0] or found[0][1]).strip('"'))
        # First in <head> after the charset: a meta policy governs only what follows it.
        head = text[: text.index("<title>")]
        assert re.search(r"<meta charset=\"?utf-8\"?><meta [^>]*Content-Security-Policy", head, re.I), page
        url = "/" + str(page.relative_to(out)).removesuffix("index.html")
        header = dict(headers_for(url, rules))["Content-Security-Policy"]
        meta_directives = [d.strip() for d in value.split(";")]
        header_directives = [d.strip() for d in header.split(";")]
        assert not [d for d in meta_directives if d.split()[0] in {"frame-ancestors", "report-uri", "sandbox"}]
        assert meta_directives == [d for d in header_directives if not d.startswith("frame-ancestors")], page
        assert "script-src 'self'" in meta_directives and "'unsafe-inline'" not in value


# --- N5: a base URL with a path ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "url", ["https://owner.github.io/sizewise", "https://example.org/docs/", "http://[::1]:8080/x"]
)
def test_a_base_url_with_a_path_is_refused(
    site: tuple[Path, Path], capsys: pytest.CaptureFixture[str], url: str
) -> None:
    content, out = site
    before = tree(out)
    for argv in (
        ["build", "--out", str(out), "--jobs", "1", "--base-url", url],
        ["merge", "--out", str(out), "--base-url", url, str(out)],
    ):
        capsys.readouterr()
        assert cli.main(["--content", str(content), *argv]) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and "has a path" in err, err
    assert tree(out) == before
    assert build(content, out, "--base-url", "https://owner.github.io/") == 0


# --- N10: the supply chain of the workflow and the install ------------------------------------------


def test_the_workflow_and_the_install_run_pinned_tools() -> None:
    import re

    import yaml

    root = Path(__file__).resolve().parent.parent
    workflow = yaml.safe_load((root / ".github/workflows/site.yml").read_text(encoding="utf-8"))
    steps = [step for job in workflow["jobs"].values() for step in job.get("steps", [])]
    uses = [step["uses"] for step in steps if "uses" in step]
    assert uses
    # Each action is pinned by commit digest; Renovate proposes the updates.
    renovate = json.loads((root / "renovate.json").read_text(encoding="utf-8"))
    assert "helpers:pinGitHubActionDigests" in renovate.get("extends", [])
    for ref in uses:
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), ref
    for step in steps:
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False, step
        if step.get("uses", "").startswith("cloudflare/wrangler-action@"):
            assert re.fullmatch(r"\d+\.\d+\.\d+", str(step["with"].get("wranglerVersion", ""))), step
    installs = [step["run"] for step in steps if "pip install" in step.get("run", "")]
    assert installs and all("--build-constraint constraints-build.txt" in run for run in installs)
    pins = (root / "constraints-build.txt").read_text(encoding="utf-8")
    assert re.search(r"^pip==\d", pins, re.M) and re.search(r"^setuptools==\d", pins, re.M)
    makefile = (root / "Makefile").read_text(encoding="utf-8")
    assert "--upgrade pip" not in makefile
    assert "--build-constraint constraints-build.txt" in makefile
