"""Write content/calibration.yaml from the measurements (``make calibrate``)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

import yaml

from generator.content.catalog import Catalog
from generator.sizing.calibrate import (
    calibrate,
    fit_tp,
    implied_held_out,
    implied_peaks,
    kin_of,
    points,
    range_summary,
    summaries,
    tp_held_out,
    unrated_points,
)

METHOD = (
    "decode: least squares of 1/tok_s on bytes_read/bandwidth and layers per engine and memory technology, "
    "from two devices or more (coefficients: 1/efficiency and latency per layer); prefill: per engine and "
    "compute class, the median over dense models of FLOPs / (peak x the time left once the weight reads and "
    "latency at the decode fit are taken out); mixture-of-experts models: one factor per engine, the median of "
    "their efficiency / their class's. An engine with speed_from in engines.yaml takes that engine's fit for "
    "each class it has none of its own for (marked borrowed_from). Tensor parallel: per engine, link and dense "
    "or MoE model, the median seconds per all-reduce (two per layer) that one-sequence decode over several "
    "devices leaves once the single-device fit is taken out. A chip with no published dense 16-bit peak but "
    "prefill measurements of its own gets the peak at which its class's fitted efficiency gives them (the "
    "median over its rows), validated by predicting each row from the others of its chip. Validation: each "
    "hardware entry, then each "
    "model, is predicted by a fit made without its rows; ranges are the 10th-90th percentiles of "
    "measured/predicted over the leave-one-hardware-out predictions"
)


def calibration_file(content: Path) -> Path:
    """Where the fitted constants live."""
    return content / "calibration.yaml"


def render_calibration(catalog: Catalog, today: dt.date) -> str:
    """The YAML text of a fresh fit over the catalog's measurements."""
    pts = points(catalog.throughput, catalog.models, catalog.hardware, catalog.formats, catalog.engines)
    kin = kin_of(catalog.engines.values())
    fits = calibrate(pts, kin)
    decode, prefill, by_engine = summaries(pts, fits, kin)
    tp_pts = points(
        catalog.throughput, catalog.models, catalog.hardware, catalog.formats, catalog.engines, tensor_parallel=True
    )
    tp = fit_tp(tp_pts, fits.decode, catalog.engines, kin)
    tp_range = range_summary(tp_held_out(tp_pts, fits.decode, catalog.engines, kin))
    unrated = unrated_points(catalog.throughput, catalog.models, catalog.hardware, catalog.formats, catalog.engines)
    implied_range = range_summary(implied_held_out(unrated, fits))
    rows = [p.row.model_dump(mode="json") for p in pts]
    digest = hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()
    data = {
        "fitted_on": today,
        "measurements_sha256": digest,
        "method": METHOD,
        "decode": decode.model_dump(mode="json") if decode else None,
        "prefill": prefill.model_dump(mode="json") if prefill else None,
        "by_engine": [e.model_dump(mode="json") for e in by_engine],
        "tensor_parallel": tp_range.model_dump(mode="json") if tp_range else None,
        "decode_fits": [f.model_dump(mode="json", exclude_none=True) for f in fits.decode],
        "prefill_fits": [f.model_dump(mode="json", exclude_none=True) for f in fits.prefill],
        "moe_fits": [f.model_dump(mode="json", exclude_none=True) for f in fits.moe],
        "tp_fits": [f.model_dump(mode="json", exclude_none=True) for f in tp],
        "implied_prefill": implied_range.model_dump(mode="json") if implied_range else None,
        "implied_peaks": [p.model_dump(mode="json") for p in implied_peaks(unrated, fits)],
    }
    header = "# Written by `make calibrate` from content/measurements/. Do not edit by hand.\n"
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
