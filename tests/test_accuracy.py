"""The engine against sourced measurements, out of sample; the recorded figures are a floor.

Decode and prefill errors are medians of |predicted − measured| / measured where each hardware
entry (then each model) is predicted by constants fitted without its rows. Weight bytes are
checked against published GGUF files, KV cache bytes against llama.cpp's load logs.
`tests/accuracy-baseline.json` records the figures; a change that makes any of them worse fails.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from generator.content.catalog import Catalog
from generator.site.accuracy import batched_checks, batched_key, batched_rows
from generator.sizing.accuracy import kv_checks, median_abs, size_checks, worst_abs
from generator.sizing.calibrate import calibrate, hardware_key, held_out, kin_of, points, predictions
from generator.sizing.estimate import estimate, ratio_ranges
from tests.conftest import scenario

BASELINE = Path(__file__).with_name("accuracy-baseline.json")
DECODE_LIMIT = 0.15
PREFILL_LIMIT = 0.25
FILE_LIMIT = 0.03
KV_LIMIT = 0.01


def figures(catalog: Catalog) -> dict[str, float]:
    """The four figures the issue names, from the committed calibration and the checks."""
    cal = catalog.calibration
    assert cal is not None and cal.decode is not None and cal.prefill is not None
    sizes = size_checks(catalog.file_sizes, catalog.models, catalog.formats)
    kv = kv_checks(catalog.memory_logs, catalog.models, catalog.engines, catalog.kv_dtypes)
    size_median = median_abs([s.error for s in sizes])
    kv_worst = worst_abs([k.error for k in kv])
    assert size_median is not None and kv_worst is not None
    # Each engine's own figure too: a new engine's measurements change the pooled one, never these.
    per_engine = {
        f"{e.kind}_out_of_sample[{e.engine}]": max(e.leave_one_hardware_out, e.leave_one_model_out)
        for e in cal.by_engine
    }
    # Several sequences at once, by engine, vendor and one device or several: out of sample by construction.
    batched = {batched_key(r): round(r.median, 4) for r in batched_rows(batched_checks(catalog))}
    assert cal.tensor_parallel is not None and cal.implied_prefill is not None
    return {
        **batched,
        "tensor_parallel_out_of_sample": cal.tensor_parallel.median_error,
        # Prefill at a peak implied by measurements, each row predicted from the others of its chip.
        "implied_prefill_out_of_sample": cal.implied_prefill.median_error,
        "decode_out_of_sample": cal.decode.out_of_sample,
        "prefill_out_of_sample": cal.prefill.out_of_sample,
        **per_engine,
        "weights_vs_gguf_median": round(size_median, 4),
        "kv_vs_logs_worst": round(kv_worst, 4),
    }


@pytest.fixture(scope="module")
def measured(catalog: Catalog) -> dict[str, float]:
    out = figures(catalog)
    print("\naccuracy: " + ", ".join(f"{k} {v:.2%}" for k, v in out.items()))
    return out


def test_measurement_set_is_broad(catalog: Catalog) -> None:
    rows = catalog.throughput
    hardware = {r.hardware for r in rows}
    models = {r.model or r.model_ref for r in rows}
    print(
        f"\n{len(rows)} throughput rows over {len(hardware)} hardware entries and {len(models)} models; "
        f"{len(catalog.file_sizes)} file sizes; {len(catalog.memory_logs)} memory logs"
    )
    assert len(rows) >= 150 and len(hardware) >= 25 and len(models) >= 10
    assert len(catalog.file_sizes) >= 40


def test_decode_out_of_sample(measured: dict[str, float]) -> None:
    assert measured["decode_out_of_sample"] <= DECODE_LIMIT


def test_prefill_out_of_sample(measured: dict[str, float]) -> None:
    assert measured["prefill_out_of_sample"] <= PREFILL_LIMIT


def test_weights_against_real_gguf_files(catalog: Catalog, measured: dict[str, float]) -> None:
    checks = size_checks(catalog.file_sizes, catalog.models, catalog.formats)
    assert len(checks) >= 20 and len({c.model.slug for c in checks}) >= 5
    assert measured["weights_vs_gguf_median"] <= FILE_LIMIT


def test_kv_cache_against_llama_cpp_logs(catalog: Catalog) -> None:
    checks = kv_checks(catalog.memory_logs, catalog.models, catalog.engines, catalog.kv_dtypes)
    assert len({c.model.slug for c in checks}) >= 3
    for c in checks:
        assert abs(c.error) <= KV_LIMIT, (c.log.model, c.log.n_ctx, c.log.kv_type, c.logged, c.predicted, c.log.source)


def test_no_figure_worse_than_recorded(measured: dict[str, float]) -> None:
    recorded: dict[str, Any] = json.loads(BASELINE.read_text(encoding="utf-8"))
    assert set(measured) == set(recorded), "record every figure in tests/accuracy-baseline.json"
    worse = {k: (v, recorded[k]) for k, v in measured.items() if v > recorded[k] + 1e-4}
    assert not worse, f"worse than tests/accuracy-baseline.json (now, recorded): {worse}"


def test_held_out_predictions_ignore_the_held_out_rows(catalog: Catalog) -> None:
    """Scaling one hardware entry's measurements changes nothing in its own held-out predictions."""
    pts = points(catalog.throughput, catalog.models, catalog.hardware, catalog.formats, catalog.engines)
    target = statistics.mode(p.row.hardware for p in pts)
    scaled = [
        p
        if p.row.hardware != target
        else dataclasses.replace(p, row=p.row.model_copy(update={"tok_s": p.row.tok_s * 3}), y=p.y / 3)
        for p in pts
    ]
    kin = kin_of(catalog.engines.values())
    before = {id(p.point.row): p.predicted for p in held_out(pts, hardware_key, kin) if p.point.row.hardware == target}
    after = [p for p in held_out(scaled, hardware_key, kin) if p.point.row.hardware == target]
    assert after and sorted(p.predicted for p in after) == sorted(before.values())
    # ...while the in-sample fit does move.
    ins = [p.predicted for p in predictions(scaled, calibrate(scaled, kin)) if p.point.row.hardware == target]
    assert sorted(ins) != sorted(before.values())


def test_every_speed_carries_the_out_of_sample_range(catalog: Catalog, facts: Any) -> None:
    cal = catalog.calibration
    assert cal is not None and cal.decode and cal.prefill
    e = estimate(catalog.model("llama-3-1-8b-instruct"), catalog.hw("rtx-4090"), scenario(catalog), facts)
    k = e.to_dict()
    assert k["decode_tok_s_low"] == pytest.approx(k["decode_tok_s"] * cal.decode.ratio_low, rel=1e-12)
    assert k["decode_tok_s_high"] == pytest.approx(k["decode_tok_s"] * cal.decode.ratio_high, rel=1e-12)
    assert k["prefill_tok_s_low"] == pytest.approx(k["prefill_tok_s"] * cal.prefill.ratio_low, rel=1e-12)
    assert k["ttft_s_low"] == pytest.approx(k["ttft_s"] / cal.prefill.ratio_high, rel=1e-12)
    assert k["ttft_s_high"] == pytest.approx(k["ttft_s"] / cal.prefill.ratio_low, rel=1e-12)
    assert k["decode_tok_s_low"] < k["decode_tok_s"] < k["decode_tok_s_high"]


def test_the_tensor_parallel_range_holds_eight_in_ten_held_out_rows(catalog: Catalog, facts: Any) -> None:
    """A speed over several devices in tensor parallel is printed with the range of the held-out
    tensor-parallel rows; it holds 80% ± 5 of the one-sequence rows the accuracy page predicts (through the
    whole estimate, fits made without each row's hardware), and is never narrower than one device's."""
    cal = catalog.calibration
    assert cal is not None and cal.decode is not None and cal.tensor_parallel is not None
    (low, high), _ = ratio_ranges(cal, (False, False), True)
    assert low <= cal.decode.ratio_low and high >= cal.decode.ratio_high
    rows = [c for c in batched_checks(catalog) if c.row.gpus > 1 and c.row.batch == 1]
    inside = sum(low <= c.row.tok_s / c.predicted <= high for c in rows)
    assert len(rows) >= 30 and 0.75 <= inside / len(rows) <= 0.85, (inside, len(rows))
    # A tensor-parallel estimate carries that range; one device keeps its own.
    model, hw = catalog.model("llama-3-3-70b-instruct"), catalog.hw("h100-sxm")
    tp = estimate(model, hw, scenario(catalog, "BF16", "vllm", gpus=2), facts)
    assert tp.speed_range.decode_high == pytest.approx(tp.speed.decode_tok_s * high)
    one = estimate(model, hw, scenario(catalog, "FP8", "vllm"), facts)
    assert one.speed_range.decode_high == pytest.approx(one.speed.decode_tok_s * cal.decode.ratio_high)
