"""The model page's recommended card per format and per fine-tuning method is the cheapest new card
that runs it comfortably, found here by brute force over estimate()."""

from __future__ import annotations

import math

import pytest

from generator.content.catalog import Catalog
from generator.site.model_page import recommended_per_finetune, recommended_per_format
from generator.site.pair_page import pair_data
from generator.sizing.estimate import ScenarioError, estimate
from generator.sizing.scenario import FAMILY_ENGINE, Scenario, facts_of


@pytest.mark.parametrize("slug", ["qwen2-5-coder-32b-instruct", "llama-3-1-8b-instruct", "gemma-3-27b-it"])
def test_cheapest_single_card_per_format(catalog: Catalog, slug: str) -> None:
    model = catalog.models[slug]
    pairs = [pair_data(catalog, model, hw) for hw in catalog.hardware.values()]
    got = recommended_per_format(catalog, pairs)
    facts = facts_of(catalog)
    for fmt in catalog.formats.values():
        engine = catalog.engine(FAMILY_ENGINE[fmt.family.value])
        found = []
        for hw in catalog.hardware.values():
            sc = Scenario(
                fmt=fmt, kv=catalog.kv_dtype(engine.default_kv_dtype), engine=engine, context=8192, gpus=hw.chips
            )
            try:
                e = estimate(model, hw, sc, facts)
            except ScenarioError:
                continue
            if e.memory.verdict == "comfortable" and hw.price is not None:
                found.append((hw.price.usd, hw.name, hw.slug))
        if found:
            usd, _, hw_slug = min(found)
            assert got[fmt.name].units == 1 and got[fmt.name].hardware.slug == hw_slug, fmt.name
            assert got[fmt.name].cost_usd == usd
        else:
            assert fmt.name not in got or got[fmt.name].units > 1, fmt.name


def test_finetuning_cards_hold_the_method_comfortably(catalog: Catalog) -> None:
    model = catalog.models["qwen2-5-coder-32b-instruct"]
    pairs = [pair_data(catalog, model, hw) for hw in catalog.hardware.values()]
    tight = catalog.assumptions.verdict_tight_fraction
    for k, rec in enumerate(recommended_per_finetune(catalog, pairs)):
        assert rec is not None
        need = pairs[0].est.finetune[k].total_bytes
        pair = next(p for p in pairs if p.hardware.slug == rec.hardware.slug)
        per_card = pair.est.memory.usable_per_gpu_bytes * rec.hardware.chips * tight
        assert need <= per_card * rec.units
        if rec.units == 1:  # no cheaper single card would do
            cheaper = [
                p
                for p in pairs
                if p.hardware.price is not None
                and p.hardware.price.usd < rec.cost_usd
                and need <= p.est.memory.usable_per_gpu_bytes * p.hardware.chips * tight
            ]
            assert not cheaper, [p.hardware.slug for p in cheaper]
        else:
            assert math.ceil(need / per_card) == rec.units
