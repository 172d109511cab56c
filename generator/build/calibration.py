"""Write content/calibration.yaml from the measurements (``make calibrate``)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import statistics
from pathlib import Path

import yaml

from generator.content.catalog import Catalog
from generator.engine.calibrate import abs_errors, calibrate, points

METHOD = (
    "decode: least squares of 1/tok_s on bytes_read/bandwidth per engine and hardware class "
    "(slope = 1/efficiency, intercept = per-token latency); prefill: median achieved/peak FLOP/s"
)


def calibration_file(content: Path) -> Path:
    """Where the fitted constants live."""
    return content / "calibration.yaml"


def render_calibration(catalog: Catalog, today: dt.date) -> str:
    """The YAML text of a fresh fit over the catalog's measurements."""
    pts = points(catalog.throughput, catalog.models, catalog.hardware, catalog.formats)
    entries = calibrate(pts)
    dec, pre = abs_errors(pts, entries)
    rows = [p.row.model_dump(mode="json") for p in pts]
    digest = hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()
    data = {
        "fitted_on": today,
        "measurements_sha256": digest,
        "method": METHOD,
        "decode_median_abs_error": round(statistics.median(dec), 4) if dec else None,
        "prefill_median_abs_error": round(statistics.median(pre), 4) if pre else None,
        "entries": [e.model_dump(mode="json") for e in entries],
    }
    header = "# Written by `make calibrate` from content/measurements/. Do not edit by hand.\n"
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
