"""The buyer's answer: the finder's first row equals a brute-force search over the sizing model."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest

from generator.content.catalog import Catalog
from generator.content.schema import Hardware, Model
from generator.site.setups import (
    CANDIDATES,
    KV8,
    PICK_TOK_S,
    SINGLE,
    UNPUBLISHED_RANK,
    Question,
    Setup,
    answer,
    common_answers,
    poor_cells,
    setup_cost,
)
from generator.sizing.estimate import ScenarioError, estimate, fit_and_decode
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


@dataclasses.dataclass(frozen=True)
class Row:
    """One setup of the brute force: an accelerator, a device count, a format and KV cache, and the engine's
    decode speed per sequence there."""

    hw: Hardware
    devices: int
    rank: int
    fmt: str
    kv: str
    engine: str
    decode_tok_s: float


def every_setup(catalog: Catalog, model: Model, context: int, users: int, max_devices: int) -> list[Row]:
    """Every accelerator × device count (whole cards, up to ``max_devices``; one machine of a Mac or an APU
    box) × format with a published checkpoint × the engine's default and 8-bit KV cache, through the engine's
    fit and decode speed (estimate.fit_and_decode, what an estimate says of them); those the engine refuses or
    that do not fit are left out. No pruning."""
    facts = facts_of(catalog)
    rows = []
    for hw in catalog.hardware.values():
        counts = [hw.chips] if hw.kind in SINGLE else range(hw.chips, max_devices + 1, hw.chips)
        for rank, (fmt, engine) in enumerate(CANDIDATES):
            art = model.artifacts
            family = catalog.format(fmt).family.value
            missing = (family == "gguf" and not art.gguf) or (family == "mlx" and not art.mlx)
            missing |= (fmt == "AWQ" and not art.awq) or (fmt == "GPTQ" and not art.gptq)
            # A format with no published checkpoint comes after every one with one (the user quantizes it).
            offset = UNPUBLISHED_RANK if missing else 0
            profile = catalog.engine(engine)
            for k, kv in enumerate([profile.default_kv_dtype, *([KV8[engine]] if engine in KV8 else [])]):
                for devices in counts:
                    sc = Scenario(
                        fmt=catalog.format(fmt),
                        kv=catalog.kv_dtype(kv),
                        engine=profile,
                        context=context,
                        batch=users,
                        gpus=devices,
                    )
                    try:
                        fd = fit_and_decode(model, hw, sc, facts)
                    except ScenarioError:
                        continue
                    if fd.decode_tok_s is not None:
                        rows.append(Row(hw, devices, rank * 2 + k + offset, fmt, kv, engine, fd.decode_tok_s))
    return rows


@dataclasses.dataclass(frozen=True)
class Best:
    """The brute force's answer: the best (poorly measured, cost) over every setup that meets the question,
    the accelerators that reach it, and on each the best format rank at that cost."""

    key: tuple[bool, float]
    ranks: dict[str, int]


def brute_force(catalog: Catalog, q: Question, rows: list[Row]) -> Best | None:
    """Every setup that meets ``q`` (speed, devices, engine, budget), priced by the question's mode with the
    rig several cards need (setups.setup_cost); those on a poorly measured engine cell last, then cheapest."""
    cells = poor_cells(catalog)
    found: list[tuple[tuple[bool, float], str, int]] = []
    for r in rows:
        if r.decode_tok_s < q.min_tok_s or r.devices > q.max_devices or (q.engine and r.engine != q.engine):
            continue
        priced = setup_cost(r.hw, r.devices, q, catalog)
        if priced is None or (q.budget_usd is not None and priced.usd > q.budget_usd):
            continue
        poor = (r.engine, r.hw.vendor, r.devices > 1) in cells
        found.append(((poor, priced.usd), r.hw.slug, r.rank))
    if not found:
        return None
    key = min(f[0] for f in found)
    ranks: dict[str, int] = {}
    for k, slug, rank in found:
        if k == key:
            ranks[slug] = min(rank, ranks.get(slug, rank))
    return Best(key, ranks)


def check_first(catalog: Catalog, q: Question, setups: Sequence[Setup], rows: list[Row]) -> None:
    """The first setup is the brute force's: its (poorly measured, cost), an accelerator that reaches it, the
    best format rank there; and every setup's 'may fall short' flag is its range's low end under the speed."""
    best = brute_force(catalog, q, rows)
    if best is None:
        assert not setups, q
        return
    assert setups, q
    first = setups[0]
    assert (first.poor_cell is not None, first.cost_usd) == best.key, q
    assert first.hardware.slug in best.ranks, q
    eight_bit = first.kv_dtype != catalog.engine(first.engine).default_kv_dtype
    rank = CANDIDATES.index((first.fmt, first.engine)) * 2 + eight_bit + (0 if first.published else UNPUBLISHED_RANK)
    assert rank == best.ranks[first.hardware.slug], q
    for s in setups:
        low = s.est.speed_range.decode_low
        assert s.may_fall_short == (low is not None and low < q.min_tok_s)


@pytest.mark.parametrize("slug", ["qwen2-5-coder-32b-instruct", "llama-3-1-8b-instruct", "qwen3-30b-a3b"])
@pytest.mark.parametrize("q", QUESTIONS, ids=lambda q: f"{q.context}-{q.min_tok_s}-{q.mode}-{q.users}-{q.engine}")
def test_first_row_equals_brute_force(catalog: Catalog, slug: str, q: Question) -> None:
    model = catalog.model(slug)
    check_first(catalog, q, answer(catalog, model, q), every_setup(catalog, model, q.context, q.users, q.max_devices))


@pytest.mark.slow
def test_every_models_setups_json_equals_brute_force(catalog: Catalog) -> None:
    """setups.json's first answer to every common question of every catalog model is the brute force's."""
    for model in catalog.models.values():
        answers, _picks = common_answers(catalog, model)
        rows = {}
        for a in answers:
            q = a.question
            if q.context not in rows:
                rows[q.context] = every_setup(catalog, model, q.context, q.users, q.max_devices)
            check_first(catalog, q, a.setups, rows[q.context])


def test_every_setup_meets_its_question_and_the_list_is_cheapest_first(catalog: Catalog) -> None:
    model = catalog.model("qwen2-5-coder-32b-instruct")
    q = Question(context=32768, min_tok_s=20)
    found = answer(catalog, model, q)
    assert found
    for s in found:
        assert s.est.memory.verdict != "oom" and s.est.speed.decode_tok_s >= 20
        assert s.est.scenario.context == 32768 and s.est.scenario.gpus == s.devices
        rig = s.rig.usd if s.rig else 0.0
        assert s.price is not None and s.cost_usd == pytest.approx(
            s.price.usd * (s.rig.cards if s.rig else s.units) + rig
        )
        assert (s.rig is not None) == (s.units > 1 or s.hardware.bought_as == "module")
    # Well measured first (a speed on a poorly measured engine cell comes after), each cheapest first.
    order = [(s.poor_cell is not None, s.cost_usd) for s in found]
    assert order == sorted(order)
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


def test_fit_and_decode_says_what_the_estimate_says(catalog: Catalog) -> None:
    """The search's shortcut gives the full estimate's verdict, decode speed and range's low end, on every
    accelerator for a dense, a MoE and a hybrid model, in every finder format, on one device and several."""
    facts = facts_of(catalog)
    checked = 0
    for slug in ("llama-3-3-70b-instruct", "qwen3-30b-a3b", "qwen3-next-80b-a3b-instruct"):
        model = catalog.model(slug)
        for hw in catalog.hardware.values():
            for fmt, engine in CANDIDATES:
                profile = catalog.engine(engine)
                for devices in {hw.chips, 2 * hw.chips}:
                    sc = Scenario(
                        fmt=catalog.format(fmt),
                        kv=catalog.kv_dtype(profile.default_kv_dtype),
                        engine=profile,
                        context=32768,
                        gpus=devices,
                    )
                    try:
                        est = estimate(model, hw, sc, facts)
                    except ScenarioError:
                        continue
                    fd = fit_and_decode(model, hw, sc, facts)
                    assert fd.verdict == est.memory.verdict
                    if fd.verdict != "oom":
                        assert fd.decode_tok_s == est.speed.decode_tok_s
                        assert fd.decode_low == pytest.approx(est.speed_range.decode_low)
                    checked += 1
    assert checked > 1000


def test_setups_json_says_the_rig_the_flags_and_links_to_the_scenario(catalog: Catalog) -> None:
    """setups.json gives each setup's unit price, the rig bought with several cards, its flags, and a URL that
    opens the pair page in that setup."""
    from generator.site.api import setup_json

    model = catalog.model("llama-3-3-70b-instruct")
    found = answer(catalog, model, Question(8192, 10, mode="used"))
    rigged = next(s for s in found if s.rig)
    js = setup_json(model.slug, rigged)
    assert js.rig is not None and js.rig["slug"] == rigged.rig.rig.slug and js.rig["cards"] == rigged.rig.cards
    assert js.unit_price_usd is not None and js.cost_usd == pytest.approx(
        js.unit_price_usd * js.rig["cards"] + js.rig["usd"]
    )
    assert js.url.startswith(f"/en/models/{model.slug}/{rigged.hardware.slug}/?quant={rigged.fmt}&")
    assert f"gpus={rigged.devices}" in js.url and f"kv_dtype={rigged.kv_dtype}" in js.url
    assert (js.may_fall_short, js.poorly_measured, js.published) == (
        rigged.may_fall_short,
        rigged.poor_cell,
        rigged.published,
    )
