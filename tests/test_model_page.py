"""The model page's worked KV formula and its questions, against hand-checked figures."""

from __future__ import annotations

import math

from generator.content.catalog import Catalog
from generator.site.hardware_page import device_groups
from generator.site.model_page import kv_formula, lead
from generator.site.pair_page import pair_data
from generator.sizing.kv import kv_cache


def test_gqa_formula_is_the_issues_example(catalog: Catalog) -> None:
    """Qwen2.5-Coder-32B: 2 × 64 layers × 8 KV heads × 128 × 2 bytes = 262,144 bytes per token."""
    (k,) = kv_formula(catalog.models["qwen2-5-coder-32b-instruct"]).lines
    assert (k.kv_heads, k.head_dim, k.layers, k.per_layer, k.total) == (8, 128, 64, 4096, 2 * 64 * 8 * 128 * 2)


def test_mla_formula(catalog: Catalog) -> None:
    """DeepSeek-V3: (512 latent + 64 RoPE) × 2 bytes × 61 layers = 70,272 bytes per token."""
    (k,) = kv_formula(catalog.models["deepseek-v3"]).lines
    assert k.mla and k.total == (512 + 64) * 2 * 61


def test_formula_equals_the_engine_without_windows_or_state(catalog: Catalog) -> None:
    for slug in ("qwen2-5-coder-32b-instruct", "deepseek-v3", "llama-3-1-8b-instruct"):
        model = catalog.models[slug]
        per_token = kv_cache(model, catalog.engine("vllm"), 2.0, 1, 1).bytes_per_token
        assert kv_formula(model).total == per_token, slug


def test_hybrid_and_sliding_layers_are_named(catalog: Catalog) -> None:
    (gemma,) = kv_formula(catalog.models["gemma-3-27b-it"]).lines
    assert gemma.sliding_layers == 52 and gemma.window == 1024 and gemma.layers == 62
    nxt = kv_formula(catalog.models["qwen3-next-80b-a3b-instruct"])
    assert nxt.state_layers == 36 and [line.layers for line in nxt.lines] == [12]


def test_questions_count_what_the_leaderboard_shows(catalog: Catalog) -> None:
    model = catalog.models["qwen2-5-coder-32b-instruct"]
    pairs = [pair_data(catalog, model, hw) for hw in catalog.hardware.values()]
    ld = lead(pairs, "h100-sxm", catalog.assumptions.verdict_tight_fraction)
    # The lead counts the common setup (Q4_K_M on llama.cpp); a card that cannot run it does not hold it.
    ran = [p.standard for p in pairs if p.standard is not None]
    assert len(ran) < len(pairs)  # the Ascend cards and Gaudi 3 do not run Q4_K_M on llama.cpp
    assert all(e.scenario.fmt.name == "Q4_K_M" and e.scenario.engine.name == "llama.cpp" for e in ran)
    assert ld.fits == sum(e.memory.verdict != "oom" for e in ran) and ld.accelerators == len(pairs)
    assert ld.fastest is not None
    assert ld.fastest[1] == max(e.speed.decode_tok_s for e in ran if e.memory.verdict != "oom")
    assert [c for c, _ in ld.totals] == [8192, 32768, 131072]  # 128K with the card's YaRN
    assert ld.totals[0][1] == ld.total_bytes  # the default context's total is the lead's
    assert all(a[1] < b[1] for a, b in zip(ld.totals, ld.totals[1:], strict=False))


def test_model_page_commands_start_the_cheapest_setup_per_engine(catalog: Catalog) -> None:
    """Each engine's command runs a format it loads with a published checkpoint, on the recommended card
    (the cheapest that holds it comfortably), no other being cheaper for that engine; llama.cpp's and
    vLLM's commands are written for the card's devices."""
    from generator.site.model_page import recommended_commands, recommended_per_format
    from generator.site.pair_page import pair_data

    for slug in ("qwen3-30b-a3b", "gemma-3-27b-it", "llama-3-1-70b-instruct"):
        model = catalog.model(slug)
        pairs = [pair_data(catalog, model, hw) for hw in catalog.hardware.values()]
        recommended = recommended_per_format(catalog, pairs)
        setups = recommended_commands(catalog, model, recommended)
        assert {s.engine for s in setups} >= {"llama.cpp", "vLLM"}, slug
        for s in setups:
            fmt = catalog.format(s.fmt)
            assert model.has_checkpoint(s.fmt, fmt.family), (slug, s)
            assert recommended[s.fmt] == s.recommended
            engine = next(e for e in catalog.engines.values() if e.label == s.engine)
            loads = [f for f in catalog.formats.values() if f.family in engine.formats and f.name in recommended]
            cheaper = [
                f.name
                for f in loads
                if model.has_checkpoint(f.name, f.family)
                and recommended[f.name].cost_usd < s.recommended.cost_usd
                and (engine.name != "ollama")
                and engine.name == {"gguf": "llama.cpp", "mlx": "mlx"}.get(f.family.value, "vllm")
            ]
            assert cheaper == [], (slug, s.engine, cheaper)
            devices = s.recommended.units * s.recommended.hardware.chips
            if engine.name == "vllm" and devices > 1:
                assert f"--tensor-parallel-size {devices}" in s.command, s
            if engine.name == "llama.cpp":
                assert s.command.startswith("llama-server ") and (devices == 1) == ("--split-mode" not in s.command)


def test_related_models_are_the_family_similar_sizes_and_newer_ones(catalog: Catalog) -> None:
    """Qwen3-30B-A3B's page: every other Qwen3 model (smallest first), models of other families within
    1.5× its size (nearest first), and Alibaba's models of other families released after it (newest first)."""
    from generator.site.model_page import SIMILAR_SIZE, related_groups
    from generator.sizing.params import count_params

    everything = list(catalog.models.values())
    model = catalog.model("qwen3-30b-a3b")
    r = related_groups(model, everything)
    size = {m.slug: count_params(m).total for m in everything}
    family = {m.slug for m in everything if m.family == model.family and m.slug != model.slug}
    assert {m.slug for m in r.family} == family and family
    assert [size[m.slug] for m in r.family] == sorted(size[m.slug] for m in r.family)
    assert r.size and all(m.family != model.family for m in r.size)
    ratios = [size[m.slug] / size[model.slug] for m in r.size]
    assert all(1 / SIMILAR_SIZE <= x <= SIMILAR_SIZE for x in ratios)
    gaps = [abs(math.log(x)) for x in ratios]
    assert gaps == sorted(gaps)
    assert r.newer and all(m.organization == model.organization and m.family != model.family for m in r.newer)
    assert model.release_date != "unknown"
    dates = [m.release_date for m in r.newer]
    assert all(d != "unknown" and d > model.release_date for d in dates) and dates == sorted(dates, reverse=True)


def test_a_pair_page_links_the_whole_family_on_its_device(catalog: Catalog) -> None:
    """Every other model of the family (nearest in size first), and at least three models in all."""
    from generator.site.model_page import PAIR_RELATED, related_models

    models = list(catalog.models.values())
    for model in models:
        family = {m.slug for m in models if m.family == model.family and m.slug != model.slug}
        linked = related_models(model, models)
        assert family <= {m.slug for m in linked} and len(linked) == max(len(family), PAIR_RELATED)
        assert [m.slug for m in linked[: len(family)]] == [m.slug for m in linked if m.slug in family]
    biggest = max(models, key=lambda m: sum(o.family == m.family for o in models))
    assert len(related_models(biggest, models)) >= 10


def test_device_groups_hold_every_accelerator_once_by_memory_then_vendor(catalog: Catalog) -> None:
    """The cross-links to every device: each accelerator once, in its memory range, vendors in
    alphabetical order, each vendor's devices by memory."""
    hardware = list(catalog.hardware.values())
    groups = device_groups(hardware)
    listed = [h.slug for g in groups for _, hws in g.vendors for h in hws]
    assert sorted(listed) == sorted(catalog.hardware) and len(listed) == len(set(listed))
    assert [g.memory.low for g in groups] == sorted(g.memory.low for g in groups)
    for g in groups:
        assert g.count == sum(len(hws) for _, hws in g.vendors)
        vendors = [v for v, _ in g.vendors]
        assert vendors == sorted(vendors, key=str.casefold) and len(vendors) == len(set(vendors))
        for vendor, hws in g.vendors:
            assert all(h.vendor == vendor for h in hws)
            assert all(g.memory.low < h.memory_bytes <= (g.memory.high or h.memory_bytes) for h in hws)
            assert [h.memory_bytes for h in hws] == sorted(h.memory_bytes for h in hws)
    # The 24 GB cards sit together across vendors; names drop the vendor the group already says.
    rtx = catalog.hardware["rtx-4090"]
    home = next(g for g in groups if any(h.slug == "rtx-4090" for _, hws in g.vendors for h in hws))
    assert {v for v, _ in home.vendors} >= {"AMD", "NVIDIA"} and rtx.short_name == "GeForce RTX 4090"


def test_facts_name_ngram_tables_and_skip_shared_compressed_rows(catalog: Catalog) -> None:
    """Qwen3.8-Flash-Next's facts give its n-gram table and where each engine that runs it keeps it;
    DeepSeek-V4.1-Flash's KV per token counts only the four layers that keep compressed entries:
    3 × (1,024 + 256) / 2 + (1,024 + 256) = 3,200 B in 16 bits (the 36 other layers read theirs)."""
    from generator.site.model_page import kv_formula, model_facts

    qwen = model_facts(catalog, catalog.model("qwen3-8-flash-next"))
    assert qwen.ngram == (320_001_536 * 160, 1, 16, 160)
    assert qwen.ngram_host == ("llama.cpp", "Ollama") and qwen.ngram_device == ("vLLM",)
    v41 = catalog.model("deepseek-v4-1-flash")
    assert kv_formula(v41).total == 3 * (1024 + 256) / 2 + (1024 + 256) == 3_200
    assert model_facts(catalog, v41).ngram_device == ("vLLM",)
