"""Serving many users: the most users at a per-user floor, and what K users get, with the sequences past
the KV pool queued (generator/sizing/serving.py), checked by hand from the per-step formula."""

from __future__ import annotations

import pytest

from generator.content.catalog import Catalog
from generator.site.pair_page import pair_data
from generator.sizing.estimate import estimate, speed_of
from generator.sizing.kv import kv_read_per_token
from generator.sizing.scenario import Facts
from generator.sizing.serving import serving
from tests.conftest import scenario


def test_qwen3_8b_bf16_on_vllm_h100_by_hand(catalog: Catalog, facts: Facts) -> None:
    """Eight users of 8K tokens on one H100: every step reads the 16.4 GB of weights once and 8 × the
    1.21 GB of KV cache per sequence at vLLM's HBM efficiency, plus 36 layers of fixed latency."""
    model, hw = catalog.model("qwen3-8b"), catalog.hw("h100-sxm")
    est = estimate(model, hw, scenario(catalog, "BF16", "vllm", context=8192), facts)
    s = serving(est, 20.0, (8, 4096))
    kv = kv_read_per_token(model, 2, 8192, 0)
    assert kv == 36 * 2 * 8 * 128 * 2 * 8192  # K and V, 8 KV heads of 128, 2 bytes, 8,192 tokens, 36 layers
    c = est.constants
    step = (est.weights.per_token_read + 8 * kv) / (hw.bandwidth_gbps * 1e9 * c.bandwidth_efficiency)
    step += 36 * c.per_layer_latency_s
    eight = s.loads[0]
    assert eight.users == eight.running == 8 and eight.queued == 0
    assert eight.per_user_tok_s == pytest.approx(1 / step, rel=1e-9)  # memory-bound at 8 users
    assert eight.aggregate_tok_s == pytest.approx(8 / step, rel=1e-9)
    # 4,096 users: only what the KV pool holds at 8K runs; the rest wait and add no throughput.
    crowd = s.loads[1]
    assert crowd.running == est.max_batch < 4096 and crowd.queued == 4096 - est.max_batch
    assert crowd.aggregate_tok_s == pytest.approx(speed_of(est, est.max_batch).decode_tok_s_aggregate)
    # Rented at the cheapest H100 offer: $/h ÷ (tokens per hour) × 10⁶.
    hourly = est.cost.cloud_usd_per_hour
    assert hourly is not None and eight.usd_per_mtok == pytest.approx(hourly / (8 / step * 3600) * 1e6)


@pytest.mark.parametrize(
    ("model", "hw", "quant", "engine"),
    [
        ("qwen3-8b", "h100-sxm", "BF16", "vllm"),
        ("llama-3-3-70b-instruct", "h100-sxm", "Q4_K_M", "llama.cpp"),
        ("qwen3-30b-a3b", "rtx-4090", "Q4_K_M", "llama.cpp"),
        ("gemma-3-27b-it", "apple-m4-max-40c-128gb", "Q4_K_M", "llama.cpp"),
    ],
)
def test_users_at_the_floor_is_the_most_that_keep_it(
    catalog: Catalog, facts: Facts, model: str, hw: str, quant: str, engine: str
) -> None:
    est = estimate(catalog.model(model), catalog.hw(hw), scenario(catalog, quant, engine, context=8192), facts)
    s = serving(est, 20.0, (8, 32))
    n = s.users_at_floor
    assert 0 <= n <= est.max_batch
    if n:
        assert speed_of(est, n).decode_tok_s >= 20.0
        assert s.at_floor is not None and s.at_floor.running == n
    if n < est.max_batch:  # not held back by memory: one more user would fall under the floor
        assert speed_of(est, n + 1).decode_tok_s < 20.0
    # More users never speed each one up, and never lower the total below fewer users'.
    per_user = [speed_of(est, b).decode_tok_s for b in (1, 2, 8, 32)]
    total = [speed_of(est, b).decode_tok_s_aggregate for b in (1, 2, 8, 32)]
    assert per_user == sorted(per_user, reverse=True) and total == sorted(total)


def test_a_setup_that_does_not_fit_serves_no_one(catalog: Catalog, facts: Facts) -> None:
    est = estimate(catalog.model("llama-3-3-70b-instruct"), catalog.hw("rtx-4090"), scenario(catalog), facts)
    assert est.memory.verdict == "oom"
    s = serving(est, 20.0, (8, 32))
    assert s.users_at_floor == 0 and s.at_floor is None and s.loads == ()


def test_pair_pages_serve_with_llama_cpp_vllm_and_sglang_where_they_run(catalog: Catalog) -> None:
    """An H100 page serves with llama.cpp, vLLM and SGLang; SGLang runs vLLM's checkpoint on its devices,
    at vLLM's measured speed (its speed_from) with its own memory; a Mac has llama.cpp only, a T4 no SGLang."""
    model = catalog.model("qwen3-8b")
    by_engine = {s.est.scenario.engine.name: s for s in pair_data(catalog, model, catalog.hw("h100-sxm")).serving}
    assert list(by_engine) == ["llama.cpp", "vllm", "sglang"]
    vllm, sglang = by_engine["vllm"].est, by_engine["sglang"].est
    assert (sglang.scenario.fmt, sglang.scenario.gpus) == (vllm.scenario.fmt, vllm.scenario.gpus)
    assert sglang.constants.bandwidth_efficiency == vllm.constants.bandwidth_efficiency
    assert by_engine["sglang"].loads[0].per_user_tok_s == pytest.approx(by_engine["vllm"].loads[0].per_user_tok_s)
    assert by_engine["sglang"].pool != by_engine["vllm"].pool  # 0.85 of memory, not 0.9, and its own runtime
    mac = pair_data(catalog, model, catalog.hw("apple-m4-max-40c-128gb")).serving
    assert [s.est.scenario.engine.name for s in mac] == ["llama.cpp"]
    t4 = pair_data(catalog, model, catalog.hw("t4")).serving
    assert "sglang" not in {s.est.scenario.engine.name for s in t4}
    # Every setup shown fits: a command that does not fit serves no one and is left out.
    big = pair_data(catalog, catalog.model("llama-3-3-70b-instruct"), catalog.hw("rtx-4090")).serving
    assert all(s.pool > 0 for s in big)
