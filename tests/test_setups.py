"""The buyer's answer: the finder's first row equals a brute-force search over the sizing model."""

from __future__ import annotations

import math

import pytest

from generator.content.catalog import Catalog
from generator.content.schema import Hardware, Model
from generator.site.setups import CANDIDATES, KV8, PICK_TOK_S, SINGLE, Question, answer, common_answers
from generator.sizing.estimate import ScenarioError, estimate
from generator.sizing.scenario import Scenario, facts_of

QUESTIONS = (
    Question(context=32768, min_tok_s=20),
    Question(context=8192, min_tok_s=40, mode="rent"),
    Question(context=32768, min_tok_s=10, users=4),
    Question(context=8192, min_tok_s=20, budget_usd=1500),
    Question(context=16384, min_tok_s=15, engine="vllm", mode="rent"),
    Question(context=8192, min_tok_s=15, mode="used", max_devices=2),
    Question(context=8192, min_tok_s=10, mode="rent", interruptible=True),
)


def price_of(catalog: Catalog, hw: Hardware, devices: int, q: Question) -> float | None:
    """What ``devices`` devices cost in the question's mode ($, or $/hour to rent), or None: renting takes
    the cheapest single instance with enough GPUs, on demand unless the question takes spot and marketplace
    offers too."""
    units = math.ceil(devices / hw.chips)
    if q.mode == "rent":
        kinds = ("on_demand", "spot", "community") if q.interruptible else ("on_demand",)
        fit = [o.usd_per_hour for o in catalog.offers_for(hw.slug) if o.billing in kinds and o.gpus >= units]
        return min(fit, default=None)
    price = hw.used_price if q.mode == "used" else hw.price
    return price.usd * units if price else None


def runs(catalog: Catalog, model: Model, fmt: str, engine: str, q: Question) -> list[str]:
    """The KV caches to try with a format, best first; none when no checkpoint or another engine."""
    art = model.artifacts
    family = catalog.format(fmt).family.value
    missing = (family == "gguf" and not art.gguf) or (family == "mlx" and not art.mlx)
    missing |= (fmt == "AWQ" and not art.awq) or (fmt == "GPTQ" and not art.gptq)
    if missing or (q.engine and engine != q.engine):
        return []
    profile = catalog.engine(engine)
    return [profile.default_kv_dtype, *([KV8[engine]] if engine in KV8 else [])]


def best_on(catalog: Catalog, model: Model, hw: Hardware, q: Question) -> tuple[int, str, str, float] | None:
    """(devices, format, KV cache, tok/s) of the fewest devices of ``hw`` meeting ``q``, best format there."""
    facts = facts_of(catalog)
    counts = [hw.chips] if hw.kind in SINGLE else range(hw.chips, q.max_devices + 1, hw.chips)
    for devices in counts:
        found = []
        for rank, (fmt, engine) in enumerate(CANDIDATES):
            for k, kv in enumerate(runs(catalog, model, fmt, engine, q)):
                sc = Scenario(
                    fmt=catalog.format(fmt),
                    kv=catalog.kv_dtype(kv),
                    engine=catalog.engine(engine),
                    context=q.context,
                    batch=q.users,
                    gpus=devices,
                )
                try:
                    est = estimate(model, hw, sc, facts)
                except ScenarioError:
                    continue
                if est.memory.verdict != "oom" and est.speed.decode_tok_s >= q.min_tok_s:
                    found.append((rank * 2 + k, fmt, kv, est.speed.decode_tok_s))
        if found:
            _, fmt, kv, tok_s = min(found)
            return devices, fmt, kv, tok_s
    return None


def brute_force(catalog: Catalog, model: Model, q: Question) -> tuple[str, int, str, str] | None:
    """Every accelerator × device count × format × KV cache through the full estimate; per
    accelerator the fewest devices that meet the question, then the best format and KV cache; the
    cheapest of those (then the fastest, then by slug): (hardware, devices, format, KV cache)."""
    rows = []
    for hw in catalog.hardware.values():
        best = best_on(catalog, model, hw, q)
        if best is None:
            continue
        devices, fmt, kv, tok_s = best
        cost = price_of(catalog, hw, devices, q)
        if cost is not None and (q.budget_usd is None or cost <= q.budget_usd):
            rows.append((cost, -tok_s, hw.slug, devices, fmt, kv))
    if not rows:
        return None
    _, _, slug, devices, fmt, kv = min(rows)
    return slug, devices, fmt, kv


@pytest.mark.parametrize("slug", ["qwen2-5-coder-32b-instruct", "llama-3-1-8b-instruct", "qwen3-30b-a3b"])
@pytest.mark.parametrize("q", QUESTIONS, ids=lambda q: f"{q.context}-{q.min_tok_s}-{q.mode}-{q.users}-{q.engine}")
def test_first_row_equals_brute_force(catalog: Catalog, slug: str, q: Question) -> None:
    model = catalog.model(slug)
    found = answer(catalog, model, q)
    first = (found[0].hardware.slug, found[0].devices, found[0].fmt, found[0].kv_dtype) if found else None
    assert first == brute_force(catalog, model, q)


def test_every_setup_meets_its_question_and_the_list_is_cheapest_first(catalog: Catalog) -> None:
    model = catalog.model("qwen2-5-coder-32b-instruct")
    q = Question(context=32768, min_tok_s=20)
    found = answer(catalog, model, q)
    assert found
    for s in found:
        assert s.est.memory.verdict != "oom" and s.est.speed.decode_tok_s >= 20
        assert s.est.scenario.context == 32768 and s.est.scenario.gpus == s.devices
        assert s.price is not None and s.cost_usd == s.price.usd * s.units
    assert [s.cost_usd for s in found] == sorted(s.cost_usd for s in found)
    assert len({s.hardware.slug for s in found}) == len(found)


def test_the_issues_example_qwen_coder_32b_at_32k_and_20_tok_s(catalog: Catalog) -> None:
    """The cheapest card to buy holds the model only with an 8-bit KV cache, at about 30 tok/s."""
    first = answer(catalog, catalog.model("qwen2-5-coder-32b-instruct"), Question(32768, 20))[0]
    assert first.devices == 1 and first.kv_dtype == "q8_0" and first.fmt == "Q4_K_M"
    assert first.est.memory.verdict == "tight"
    assert 20 <= first.est.speed.decode_tok_s < 40


def test_common_answers_cover_the_models_contexts(catalog: Catalog) -> None:
    model = catalog.model("qwen2-5-coder-32b-instruct")  # 128K with its card's YaRN: 8K, 32K and 128K
    answers, picks = common_answers(catalog, model)
    assert {a.question.context for a in answers} == {8192, 32768, 131072}
    assert len(answers) == 3 * 3 * 2
    # Past the config's 32K only engines that apply the card's YaRN answer (llama.cpp, vLLM).
    assert all(s.est.scenario.engine.extends_context for a in answers if a.question.context > 32768 for s in a.setups)
    for a in answers:
        assert all(s.est.speed.decode_tok_s >= a.question.min_tok_s for s in a.setups)
    # The picks: a new single card, a rental and the longest context, each the cheapest of its kind.
    by = {p.key: p.setup for p in picks}
    assert {"new", "cloud", "long"} <= set(by)
    assert by["new"].units == 1 and by["new"].est.scenario.context == 8192
    assert by["long"].est.scenario.context == 131072
    for key, mode, context in (("new", "buy", 8192), ("cloud", "rent", 8192), ("long", "buy", 131072)):
        cheapest = answer(catalog, model, Question(context, PICK_TOK_S, mode=mode))
        if key == "new":
            cheapest = [s for s in cheapest if s.units == 1 and s.hardware.kind not in SINGLE]
        assert by[key].cost_usd == cheapest[0].cost_usd


def test_no_rental_multiplies_an_offer(catalog: Catalog) -> None:
    """A rented setup is one listed instance with enough GPUs at its whole price, on demand unless the
    question takes spot and marketplace offers; no answer multiplies a one-GPU offer by the cards."""
    model = catalog.model("qwen3-32b")
    for q in (Question(8192, 15, users=20, mode="rent"), Question(8192, 10, mode="rent")):
        for s in answer(catalog, model, q):
            assert s.offer is not None and s.offer.billing == "on_demand"
            assert s.offer.gpus >= s.units and s.cost_usd == s.offer.usd_per_hour == s.usd_per_hour
    spot = answer(catalog, model, Question(8192, 10, mode="rent", interruptible=True))
    assert {s.offer.billing for s in spot if s.offer} - {"on_demand"}  # spot or marketplace offers now count
