"""The benchmarks still run, at a tiny size. They are scripts outside the package, and no test
imports them, so a change to the schema or to an API can break one unseen: `record_size.py`
was found registering an edition that the sampling rule and the seed escrow refuse. No timing
is asserted here; the targets live in the benchmarks (benchmarks/README.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def _last_line(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / script), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done.stdout.strip().splitlines()[-1]


def test_record_size_registers_runs_and_measures_a_tiny_edition() -> None:
    last = _last_line("record_size.py", "--models", "1", "--n", "1")
    assert last.startswith("stored / whole = ")
    assert "KB per record in git = " in last


def test_runner_throughput_runs_against_its_fake_provider() -> None:
    last = _last_line(
        "runner_throughput.py",
        *("--requests", "20", "--rate", "1000", "--burst", "50", "--latency", "0.001"),
    )
    assert last.startswith("throughput / limit = ")
