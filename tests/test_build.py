"""make build's output: every pair's JSON, written atomically and deterministically."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from generator.content.catalog import Catalog
from generator.publish import outdir, writer
from tests.conftest import CONTENT


def files(root: Path) -> dict[str, bytes]:
    """Every file a build served from ``root`` (its own marker and no-op stamp left out), with its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in (outdir.MARKER, outdir.STAMP)
    }


SUBSET = (
    ("llama-3-1-8b-instruct", "qwen3-30b-a3b", "deepseek-v3", "gemma-3-27b-it"),
    ("rtx-4090", "h100-sxm", "apple-m4-max-40c-128gb"),
)


def test_build_writes_every_pair_deterministically(catalog: Catalog, tmp_path: Path) -> None:
    catalog = catalog.subset(*SUBSET)
    a, b = tmp_path / "a", tmp_path / "b"
    writer.build(catalog, a, jobs=2, content=CONTENT)
    writer.build(catalog, b, jobs=1, content=CONTENT)
    fa = files(a)
    assert fa == files(b)
    pairs = [k for k in fa if k.startswith("api/v1/pairs/")]
    assert len(pairs) == len(catalog.models) * len(catalog.hardware)
    sample = json.loads(fa["api/v1/pairs/llama-3-1-8b-instruct/rtx-4090.json"])
    assert sample["estimate"]["verdict"] in ("comfortable", "tight", "oom")
    index = json.loads(fa["api/v1/index.json"])
    assert {m["slug"] for m in index["models"]} == set(catalog.models)


def test_failed_build_leaves_previous_dist(catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = catalog.subset(*SUBSET)
    out = tmp_path / "dist"
    writer.build(catalog, out, jobs=1, content=CONTENT)
    before = files(out)

    def broken(*_args: object) -> object:
        raise RuntimeError("renderer crashed")

    monkeypatch.setattr(writer, "model_outputs", broken)
    with pytest.raises(RuntimeError):
        writer.build(catalog, out, jobs=1, content=CONTENT, force=True)
    assert files(out) == before
    assert not list(tmp_path.glob(".dist.sizewise-tmp-*"))


def _golden_copy(tmp_path: Path) -> Path:
    from tests.golden.regenerate import CONTENT as GOLDEN

    content = tmp_path / "content"
    shutil.copytree(GOLDEN, content)
    return content


@pytest.mark.parametrize("jobs", [1, 2])  # with two, a child process links the reused files
def test_incremental_rebuild_equals_a_forced_build(tmp_path: Path, jobs: int) -> None:
    from generator.content.loader import load_catalog

    content = _golden_copy(tmp_path)
    out, ref = tmp_path / "dist", tmp_path / "ref"
    first = writer.build(load_catalog(content), out, jobs=jobs, content=content)
    assert "2 of 2 models rendered" in first
    assert "up to date" in writer.build(load_catalog(content), out, jobs=jobs, content=content)
    assert (tmp_path / "dist.changed.txt").read_text() == ""
    # Change one model's facts: only that model's group is rendered again, and the result is what a
    # full build gives.
    path = content / "models" / "qwen3-30b-a3b.yaml"
    path.write_text(path.read_text().replace("max_context: 40960", "max_context: 32768"))
    second = writer.build(load_catalog(content), out, jobs=jobs, content=content)
    assert "1 of 2 models rendered" in second
    changed = (tmp_path / "dist.changed.txt").read_text().split()
    assert "/en/models/qwen3-30b-a3b/rtx-4090/" in changed
    assert not any("llama-3-1-8b-instruct/" in p for p in changed)
    writer.build(load_catalog(content), ref, jobs=1, content=content, force=True)
    assert files(out) == files(ref)


def test_merged_shards_equal_a_single_build(catalog: Catalog, tmp_path: Path) -> None:
    catalog = catalog.subset(*SUBSET)
    single = tmp_path / "single"
    writer.build(catalog, single, jobs=1, content=CONTENT, force=True)
    merged: dict[str, bytes] = {}
    for k in (1, 2, 3):
        part = tmp_path / f"shard{k}"
        writer.build(catalog, part, jobs=1, content=CONTENT, shard=(k, 3))
        part_files = files(part)
        assert not set(part_files) & set(merged), "shards must be disjoint"
        merged.update(part_files)
    assert merged == files(single)


def test_a_card_no_engine_of_the_model_runs_on_has_no_pair_and_says_why(catalog: Catalog, tmp_path: Path) -> None:
    """GLM-5.3-Flash loads only on vLLM and SGLang (architectures.yaml), which do not run on Apple silicon: the
    Mac has no pair page, JSON or sitemap entry for it; the model page, the Mac's page and both JSON name
    the Mac and the model instead, and the model page compares accelerators at FP8 on vLLM."""
    catalog = catalog.subset(("glm-5-3-flash", "qwen3-8b"), ("h200-sxm", "apple-m3-ultra-80c-512gb"))
    out = tmp_path / "dist"
    writer.build(catalog, out, jobs=1, content=CONTENT, langs=("en", "fr"))
    built = files(out)
    assert "en/models/glm-5-3-flash/h200-sxm/index.html" in built
    assert "api/v1/pairs/glm-5-3-flash/h200-sxm.json" in built
    assert not [f for f in built if "glm-5-3-flash/apple" in f]
    assert "en/models/qwen3-8b/apple-m3-ultra-80c-512gb/index.html" in built
    assert not any(b"glm-5-3-flash/apple" in data for name, data in built.items() if name.endswith(".xml"))
    model = json.loads(built["api/v1/models/glm-5-3-flash.json"])
    assert model["not_run_on"] == ["apple-m3-ultra-80c-512gb"] and model["engines"] == ["vllm", "sglang"]
    assert (model["leaderboard_quant"], model["leaderboard_engine"]) == ("FP8", "vllm")
    assert [r["hardware"] for r in model["leaderboard"]] == ["h200-sxm"]
    mac = json.loads(built["api/v1/hardware/apple-m3-ultra-80c-512gb.json"])
    assert mac["models_not_run"] == ["glm-5-3-flash"] and [r["model"] for r in mac["models"]] == ["qwen3-8b"]
    page = built["en/models/glm-5-3-flash/index.html"].decode()
    assert "Where no engine runs it" in page and "Only vLLM and SGLang load GLM-5.3-Flash" in page
    assert "href=/en/hardware/apple-m3-ultra-80c-512gb/>" in page  # minified markup
    assert "FP8 on vLLM at" in page  # the leaderboard's caption
    hw_page = built["fr/hardware/apple-m3-ultra-80c-512gb/index.html"].decode()
    assert "seuls vLLM et SGLang le chargent" in hw_page and "href=/fr/models/glm-5-3-flash/>" in hw_page
    # A model with fewer pairs than the catalog has accelerators is reused as is by the next build (its
    # hardware-page rows are one per pair, not one per accelerator).
    assert "up to date" in writer.build(catalog, out, jobs=1, content=CONTENT, langs=("en", "fr"))


def test_links_to_a_setup_carry_its_scenario(catalog: Catalog, tmp_path: Path) -> None:
    """The model page's cheapest setups, picks and leaderboard link to the pair page with the setup's scenario
    in the query (the workbench opens it): format, engine, KV cache, context, and devices when several."""
    import re

    from generator.site.routes import pair_link
    from generator.site.setups import Question, answer

    catalog = catalog.subset(("qwen3-32b",), ("rtx-4090", "h100-sxm", "apple-m4-max-40c-128gb"))
    out = tmp_path / "dist"
    writer.build(catalog, out, jobs=1, content=CONTENT, langs=("en",))
    page = (out / "en/models/qwen3-32b/index.html").read_text()
    links = set(re.findall(r'href="?(/en/models/qwen3-32b/[a-z0-9-]+/\?[^" >]+)', page))
    assert links and all("quant=" in link and "engine=" in link and "kv_dtype=" in link for link in links)
    first = answer(catalog, catalog.model("qwen3-32b"), Question(context=32768, min_tok_s=10))[0]
    expected = pair_link("en", "qwen3-32b", first.hardware.slug, first.est.scenario.brief_inputs())
    assert expected.replace("&", "&amp;") in page or expected in page
    assert "context=32768" in expected and f"quant={first.fmt.replace(' ', '+')}" in expected


def test_cheapest_setups_print_the_kv_cache_the_range_and_tight(catalog: Catalog, tmp_path: Path) -> None:
    """The model page's static answers say what the setup needs and how sure it is: the KV cache type, the
    speed's range, and "tight" where it only just fits (Qwen2.5-Coder-32B at 32K and 20 tok/s: one card,
    Q4_K_M with a q8_0 cache, tight)."""
    import html
    import re

    from generator.site.setups import Question, answer

    catalog = catalog.subset(("qwen2-5-coder-32b-instruct",), catalog.hardware)
    first = answer(catalog, catalog.model("qwen2-5-coder-32b-instruct"), Question(32768, 20))[0]
    assert (first.kv_dtype, first.est.memory.verdict) == ("q8_0", "tight")
    out = tmp_path / "dist"
    writer.build(catalog, out, jobs=2, content=CONTENT, langs=("en",))
    page = html.unescape((out / "en/models/qwen2-5-coder-32b-instruct/index.html").read_text())
    row = re.search(r"<th scope=row>32K<td>≥ 20.0 tok/s<td>(.*?)<td>", page)
    assert row, "the 32K, 20 tok/s row"
    cell = re.sub(r"<[^>]+>", "", row.group(1))
    assert f"{first.fmt}, llama.cpp, KV q8_0" in cell and "tight" in cell
    low, high = first.est.speed_range.decode_low, first.est.speed_range.decode_high
    assert low is not None and high is not None and "–" in cell


def test_an_answer_whose_range_reaches_below_the_floor_is_flagged(catalog: Catalog, tmp_path: Path) -> None:
    """A cheapest setup whose measured decode range reaches below the question's speed says it may fall
    short; one whose whole range meets it does not."""
    import html
    import re

    from generator.site.setups import common_answers

    catalog = catalog.subset(("qwen3-32b",), catalog.hardware)
    answers, _ = common_answers(catalog, catalog.model("qwen3-32b"))
    out = tmp_path / "dist"
    writer.build(catalog, out, jobs=2, content=CONTENT, langs=("en",))
    page = html.unescape((out / "en/models/qwen3-32b/index.html").read_text())
    rows = re.findall(r"<th scope=row>([0-9K]+)<td>≥ ([0-9.]+) tok/s<td>(.*?)<td>(.*?)(?=<tr>|</tbody>)", page)
    assert len(rows) == len(answers) // 2
    flagged = sure = 0
    for (ctx, speed, buy, rent), (a_buy, a_rent) in zip(
        rows, zip(answers[::2], answers[1::2], strict=True), strict=True
    ):
        for cell, a in ((buy, a_buy), (rent, a_rent)):
            if not a.setups:
                continue
            low = a.setups[0].est.speed_range.decode_low
            short = low is not None and low < a.question.min_tok_s
            assert ("may fall short of" in cell) == short, (ctx, speed, cell)
            flagged += short
            sure += not short
    assert sure and flagged  # Qwen3-32B: 9 of 18 cheapest answers reach below their speed at the low end


def test_the_linking_process_links_every_file_or_fails_loudly(tmp_path: Path) -> None:
    from generator.publish import link

    old, new = tmp_path / "old", tmp_path / "new"
    (old / "en" / "a").mkdir(parents=True)
    (old / "en" / "a" / "index.html").write_text("abc")
    (old / "x.json").write_text("{}")
    linker = link.Linker(["en/a/index.html", "x.json"], old, new)
    assert linker.result() == [3, 2]
    assert (new / "en" / "a" / "index.html").stat().st_ino == (old / "en" / "a" / "index.html").stat().st_ino
    broken = link.Linker(["missing.html"], old, tmp_path / "new2")
    with pytest.raises(OSError, match="linking the previous build's files failed"):
        broken.result()
