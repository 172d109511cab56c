"""The committed calibration is what the measurements give, and the fitted engine's error is reported."""

from __future__ import annotations

import dataclasses
import datetime as dt
import statistics

import pytest

from generator.content.catalog import Catalog
from generator.content.schema import PrefillFit
from generator.publish.calibration import render_calibration
from generator.sizing.calibrate import (
    Fits,
    abs_errors,
    calibrate,
    kin_of,
    points,
    predict,
    predictions,
    prompt_tokens,
    unrated_points,
)
from generator.sizing.estimate import Estimate, ScenarioError, estimate
from generator.sizing.scenario import Facts, Scenario, calibration_for, class_label, class_levels, hardware_class, pick
from tests.conftest import CONTENT, scenario


def _strip(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("fitted_on:"))


def test_committed_calibration_is_reproducible(catalog: Catalog) -> None:
    committed = (CONTENT / "calibration.yaml").read_text(encoding="utf-8")
    assert _strip(render_calibration(catalog, dt.date.today())) == _strip(committed)


def test_in_sample_error_is_smaller_than_out_of_sample(catalog: Catalog) -> None:
    """The recorded figures are what the predictions give, and held-out errors are never smaller."""
    assert catalog.calibration is not None and catalog.calibration.decode and catalog.calibration.prefill
    pts = points(catalog.throughput, catalog.models, catalog.hardware, catalog.formats, catalog.engines)
    dec, pre = abs_errors(pts, Fits.committed(catalog.calibration))
    assert round(statistics.median(dec), 4) == catalog.calibration.decode.in_sample
    assert round(statistics.median(pre), 4) == catalog.calibration.prefill.in_sample
    for sm in (catalog.calibration.decode, catalog.calibration.prefill):
        assert sm.in_sample <= sm.out_of_sample
        assert sm.ratio_low < 1 < sm.ratio_high


def test_the_published_error_is_the_sites_error(catalog: Catalog, facts: Facts) -> None:
    """Each measurement, predicted by the calibration code, gets the speed its report page shows:
    the error the accuracy page publishes is the error of the site's numbers."""
    assert catalog.calibration is not None
    fits = Fits.committed(catalog.calibration)
    pts = points(catalog.throughput, catalog.models, catalog.hardware, catalog.formats, catalog.engines)
    # quote the time to first token for the measured prompt, whatever its length
    facts = dataclasses.replace(facts, assumptions=facts.assumptions.model_copy(update={"ttft_prompt_tokens": 10**6}))
    checked = 0
    for pred in predictions(pts, fits):
        p = pred.point
        context = max(1, p.row.context) if p.decode else prompt_tokens(p.row.test)
        engine = "llama.cpp" if p.row.engine == "ollama" else p.row.engine
        sc = scenario(catalog, p.row.quant, engine, "fp16", context=context)
        try:
            spd = estimate(p.model, p.hardware, sc, facts).speed
        except ValueError:  # a format the engine does not run; the fit still uses the row
            continue
        site = spd.decode_tok_s if p.decode else spd.prefill_tok_s
        assert site == pytest.approx(pred.predicted, rel=2e-3), (p.row.hardware, p.model.slug, p.row.test)
        checked += 1
    assert checked > 0.9 * len(pts)


def test_a_class_without_measurements_takes_its_vendor_then_all_hardware(catalog: Catalog) -> None:
    """The lookup order of fits, and the words the pages show for each class."""
    apu = hardware_class(catalog.hw("ryzen-ai-max-plus-395-128gb"))
    assert apu == "amd-unified_apu"
    assert class_levels(apu) == ["amd-unified_apu", "amd", "*"]
    assert class_levels("apple") == ["apple", "*"]
    assert class_levels("gddr") == ["gddr", "*"]
    fit = {c: PrefillFit(engine="llama.cpp", hardware_class=c, compute_efficiency=e, rows=3) for c, e in
           (("amd", 0.3), ("*", 0.5), ("nvidia-consumer_gpu", 0.8))}  # fmt: skip
    chosen, note = pick(list(fit.values()), "llama.cpp", "amd-unified_apu")
    assert chosen is fit["amd"] and note == "llama.cpp on all AMD hardware (3 measurements)"
    chosen, note = pick(list(fit.values()), "ollama", "intel-consumer_gpu")
    assert chosen is fit["*"] and note == "llama.cpp on all hardware (3 measurements)"
    chosen, note = pick(list(fit.values()), "vllm", "nvidia-consumer_gpu")
    assert chosen is fit["nvidia-consumer_gpu"]
    assert note == "llama.cpp on NVIDIA consumer GPUs (3 measurements); none for vllm on NVIDIA consumer GPUs"
    assert class_label("amd-unified_apu") == "AMD unified-memory APUs"
    assert class_label("hbm") == "HBM accelerators"


def test_mixture_of_experts_prefill_is_a_share_of_the_dense_efficiency(catalog: Catalog, facts: Facts) -> None:
    """A MoE model on a class gets that class's dense efficiency times the engine's MoE factor."""
    cal = catalog.calibration
    assert cal is not None
    factor = next(f for f in cal.moe_fits if f.engine == "llama.cpp")
    assert 0 < factor.moe_factor < 1 and factor.rows >= 10
    dense = next(f for f in cal.prefill_fits if (f.engine, f.hardware_class) == ("llama.cpp", "nvidia-consumer_gpu"))
    hw = catalog.hw("rtx-4090")
    moe, note, _ = calibration_for(facts, "llama.cpp", hw, catalog.model("qwen3-30b-a3b"))
    assert moe.compute_efficiency == pytest.approx(dense.compute_efficiency * factor.moe_factor, rel=1e-12)
    assert note.endswith(
        f"× {factor.moe_factor:g} for mixture-of-experts models (llama.cpp, {factor.rows} measurements)"
    )
    plain, _, _ = calibration_for(facts, "ollama", hw, catalog.model("qwen2-5-coder-32b-instruct"))
    assert plain.compute_efficiency == dense.compute_efficiency


def test_a_speed_without_measurements_of_its_engine_and_class_is_extrapolated_with_the_wider_range(
    catalog: Catalog, facts: Facts
) -> None:
    """SGLang has too few devices for a decode fit of its own: on a GeForce card it takes vLLM's GDDR
    fit (its speed_from), says so, and its range is the leave-one-class-out one. vLLM prefill has no
    measurement at all and borrows llama.cpp's. llama.cpp on a GeForce card and vLLM on an H100 are
    backed by their own."""
    cal = catalog.calibration
    assert cal is not None and cal.decode is not None and cal.prefill is not None
    model = catalog.model("qwen2-5-7b-instruct")

    def run(engine: str, hw: str, quant: str) -> Estimate:
        eng = catalog.engine(engine)
        sc = Scenario(fmt=catalog.format(quant), kv=catalog.kv_dtype(eng.default_kv_dtype), engine=eng, context=8192)
        return estimate(model, catalog.hw(hw), sc, facts)

    sglang = run("sglang", "rtx-4090", "AWQ")
    assert sglang.extrapolated[0]
    assert "decode: vllm on GDDR accelerators (10 measurements); none for sglang" in sglang.calibration_note
    assert sglang.constants.bandwidth_efficiency == run("vllm", "rtx-4090", "AWQ").constants.bandwidth_efficiency
    assert sglang.speed_range.decode_low == pytest.approx(sglang.speed.decode_tok_s * cal.decode.extrapolated_low)
    assert sglang.speed_range.decode_high == pytest.approx(sglang.speed.decode_tok_s * cal.decode.extrapolated_high)
    assert sglang.to_dict()["decode_extrapolated"] is True
    vllm = run("vllm", "h100-sxm", "BF16")
    assert vllm.extrapolated == (False, True) and "none for vllm" in vllm.calibration_note.split("; prefill")[1]
    assert vllm.speed_range.prefill_high == pytest.approx(vllm.speed.prefill_tok_s * cal.prefill.extrapolated_high)
    for engine, hw, quant in (("llama.cpp", "rtx-4090", "Q4_K_M"), ("vllm", "h100-sxm", "BF16")):
        backed = run(engine, hw, quant)
        assert not backed.extrapolated[0], (engine, hw)
        assert backed.speed_range.decode_high == pytest.approx(backed.speed.decode_tok_s * cal.decode.ratio_high)
    # Extrapolated ranges are never narrower than the measured ones.
    for summary in (cal.decode, cal.prefill):
        assert summary.extrapolated_low <= summary.ratio_low and summary.extrapolated_high >= summary.ratio_high
        assert summary.leave_one_class_out >= summary.leave_one_hardware_out


def test_one_device_makes_no_decode_fit_and_an_engine_takes_its_kins(catalog: Catalog) -> None:
    """SGLang's usable single-device rows are one MI300X's: no decode fit of its own at any level, so it
    takes a copy of each of vLLM's, marked borrowed; llama.cpp, measured on many devices, keeps its own."""
    pts = points(catalog.throughput, catalog.models, catalog.hardware, catalog.formats, catalog.engines)
    sglang = [p for p in pts if p.engine == "sglang" and p.decode]
    assert sglang and len({p.row.hardware for p in sglang}) == 1
    kin = kin_of(catalog.engines.values())
    assert kin == {"sglang": "vllm"}
    fits = calibrate(pts, kin)
    vllm = {f.hardware_class: f for f in fits.decode if f.engine == "vllm"}
    mine = {f.hardware_class: f for f in fits.decode if f.engine == "sglang"}
    assert set(mine) == set(vllm)
    for cls, f in mine.items():
        assert f.borrowed_from == "vllm" and f.rows == vllm[cls].rows
        assert (f.bandwidth_efficiency, f.per_layer_latency_s) == (
            vllm[cls].bandwidth_efficiency,
            vllm[cls].per_layer_latency_s,
        )
    # Without kin, SGLang has no decode fit at all (the one device is not enough).
    assert not [f for f in calibrate(pts, {}).decode if f.engine == "sglang"]
    assert all(f.borrowed_from is None for f in fits.decode if f.engine == "llama.cpp")
    # The committed calibration is this fit.
    assert catalog.calibration is not None
    assert [f for f in catalog.calibration.decode_fits if f.engine == "sglang"] == list(mine.values())


def test_a_device_without_a_published_peak_takes_the_one_its_prefill_measurements_imply(
    catalog: Catalog, facts: Facts
) -> None:
    """At the implied peak, as many of each such device's prefill measurements are faster than predicted as
    slower (the peak is their median), and the engine gives that prediction for every measured prompt it can run; the
    range is the wide one and the note says where the peak is from. A device with neither a published
    peak nor measurements still has no prefill."""
    cal = catalog.calibration
    assert cal is not None and cal.prefill is not None and len(cal.implied_peaks) >= 5
    peaks = {p.hardware: p.tflops for p in cal.implied_peaks}
    pts = unrated_points(catalog.throughput, catalog.models, catalog.hardware, catalog.formats, catalog.engines, peaks)
    fits = Fits.committed(cal)
    run = 0
    for peak in cal.implied_peaks:
        # Rows faster than the weight reads and latency alone say nothing of compute: left out of the fit.
        mine = [
            p
            for p in pts
            if p.hardware.chip == peak.hardware and p.row.tok_s < predict(dataclasses.replace(p, x=0.0), fits)
        ]
        assert len(mine) == peak.rows and catalog.hw(peak.hardware).compute_tflops is None
        ratios = [p.row.tok_s / predict(p, fits) for p in mine]  # measured ÷ predicted
        assert sum(r < 0.999 for r in ratios) == sum(r > 1.001 for r in ratios), (peak.hardware, ratios)
        for p in mine:
            sc = scenario(catalog, quant=p.row.quant, engine=p.engine, context=prompt_tokens(p.row.test))
            try:
                est = estimate(p.model, p.hardware, sc, facts)
            except ScenarioError:  # e.g. an MLX run of 16-bit weights: a format the site's MLX does not load
                continue
            if est.speed.prompt_tokens != prompt_tokens(p.row.test):  # the engine's prompt is at most 4K
                continue
            run += 1
            assert est.speed.prefill_tok_s == pytest.approx(predict(p, fits), rel=1e-9), (peak.hardware, p.row.test)
            assert (
                est.extrapolated[1]
                and f"{peak.tflops:g} TFLOPS peak that {peak.rows} prefill measurements of its chip"
                in est.calibration_note
            )
            assert est.speed_range.prefill_low == pytest.approx(est.speed.prefill_tok_s * cal.prefill.extrapolated_low)
    assert run >= 15
    # An entry on the same chip as a measured one (another memory size) takes its peak.
    siblings = [h for h in catalog.hardware.values() if h.same_chip_as and h.chip in peaks]
    assert {h.slug for h in siblings} >= {"apple-m4-max-40c-128gb", "apple-m3-ultra-80c-256gb"}
    for h in siblings:
        est, twin = (estimate(catalog.model("qwen3-8b"), x, scenario(catalog), facts) for x in (h, catalog.hw(h.chip)))
        assert est.speed.prefill_tok_s is not None and est.speed.prefill_tok_s == twin.speed.prefill_tok_s
    unmeasured = next(h for h in catalog.hardware.values() if not h.compute_tflops and h.chip not in peaks)
    est = estimate(catalog.model("qwen3-8b"), unmeasured, scenario(catalog), facts)
    assert est.speed.prefill_tok_s is None and est.speed.ttft_s is None
    assert any("prefill and TTFT are not estimated" in w for w in est.warnings)
