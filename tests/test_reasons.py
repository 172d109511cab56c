"""Why a scenario cannot run: one code table in the engine, its English text equal to the pages' English
templates, and every language's template with the same slots."""

from __future__ import annotations

import re

import pytest

from generator.content.catalog import Catalog
from generator.site.cells import reason_templates
from generator.sizing.estimate import REASONS, ScenarioError, estimate
from generator.sizing.scenario import Scenario, facts_of


def test_english_templates_are_the_engines_messages() -> None:
    assert reason_templates("en") == REASONS


@pytest.mark.parametrize("lang", ["fr", "zh"])
def test_translations_keep_every_slot(lang: str) -> None:
    got = reason_templates(lang)
    assert got.keys() == REASONS.keys()
    for code, english in REASONS.items():
        assert set(re.findall(r"\{(\w+)\}", got[code])) == set(re.findall(r"\{(\w+)\}", english)), code
        assert got[code] != english, code  # translated


def test_the_error_carries_its_code_and_values(catalog: Catalog) -> None:
    model = catalog.models["qwen3-30b-a3b"]
    sc = Scenario(
        fmt=catalog.format("Q4_K_M"), kv=catalog.kv_dtype("bf16"), engine=catalog.engine("vllm"), context=8192
    )
    with pytest.raises(ScenarioError) as err:
        estimate(model, catalog.hardware["rtx-4090"], sc, facts_of(catalog))
    assert err.value.code == "format" and err.value.values["fmt"] == "Q4_K_M"
    assert str(err.value) == "vLLM does not load Q4_K_M (gguf); it loads safetensors"
