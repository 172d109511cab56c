"""The browser engine (static/sizing.js) reproduces the Python engine: bytes exactly, floats to 1e-9.

Several hundred scenarios across every model (dense, MoE, MLA, sliding window, hybrid linear) and
engines are generated from the Python engine, then replayed under node and in Chromium.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

CHECK = ROOT / "tests" / "parity" / "check.mjs"


@pytest.mark.browser  # needs node
def test_parity_under_node(cases: Path) -> None:
    proc = subprocess.run(["node", str(CHECK), str(cases)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 disagreements" in proc.stdout
