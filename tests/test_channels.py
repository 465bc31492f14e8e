"""The covert-channel driver (scripts/measure_channels.py) runs end to end: a sender and
a receiver, each in the sandbox the arena builds, and a result line per channel asked.
What bandwidth it reports is a measurement of the machine, not checked here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.process.sandbox import probe

ROOT = Path(__file__).resolve().parent.parent
needs_sandbox = pytest.mark.skipif(not probe().sandbox and os.environ.get("CI") != "true",
                                   reason=f"no sandbox here: {probe().why}")


@needs_sandbox
def test_the_driver_reports_a_line_per_channel_asked() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "measure_channels.py"), "ptys", "names",
                           "--bits", "8", "--seed", "1"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    rows = [line.split("|")[1:-1] for line in done.stdout.splitlines() if line.startswith("| ")]
    results = {cells[0].strip(): [cell.strip() for cell in cells[1:]] for cells in rows[2:]}
    assert list(results) == ["ptys", "names"], done.stdout
    for sent, right, seconds, _rate, errors in results.values():
        assert sent == "8" and 0 <= int(right) <= 8, done.stdout
        assert float(seconds) > 0 and errors.endswith("%"), done.stdout  # not "did not start", not "failed"
