"""The committed calibration is what the measurements give, and the fitted engine's error is reported."""

from __future__ import annotations

import datetime as dt
import statistics

from generator.build.calibration import render_calibration
from generator.content.catalog import Catalog
from generator.engine.calibrate import Fits, abs_errors, points
from tests.conftest import CONTENT


def _strip(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("fitted_on:"))


def test_committed_calibration_is_reproducible(catalog: Catalog) -> None:
    committed = (CONTENT / "calibration.yaml").read_text(encoding="utf-8")
    assert _strip(render_calibration(catalog, dt.date.today())) == _strip(committed)


def test_in_sample_error_is_smaller_than_out_of_sample(catalog: Catalog) -> None:
    """The recorded figures are what the predictions give, and held-out errors are never smaller."""
    assert catalog.calibration is not None and catalog.calibration.decode and catalog.calibration.prefill
    pts = points(catalog.throughput, catalog.models, catalog.hardware, catalog.formats)
    dec, pre = abs_errors(pts, Fits(catalog.calibration.decode_fits, catalog.calibration.prefill_fits))
    assert round(statistics.median(dec), 4) == catalog.calibration.decode.in_sample
    assert round(statistics.median(pre), 4) == catalog.calibration.prefill.in_sample
    for sm in (catalog.calibration.decode, catalog.calibration.prefill):
        assert sm.in_sample <= sm.out_of_sample
        assert sm.ratio_low < 1 < sm.ratio_high
