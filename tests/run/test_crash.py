from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import stub
from runkit import model
from test_runner import run

from ledgerrate.generate.register import register_edition
from ledgerrate.io import read_jsonl
from ledgerrate.run.scheduler import RunOptions
from ledgerrate.schema import RunRecord

HERE = Path(__file__).parent


def _lines(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted((root / "runs").rglob("*.jsonl"))}


def test_kill_9_mid_run_then_resume_loses_no_finished_record(edition_factory, lookup) -> None:
    root = edition_factory(models=[model("m1"), model("m2", "anthropic")], n=15)
    register_edition(root, lookup=lookup)
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "crashrun.py"), str(root)],
        env={**os.environ, "PYTHONPATH": str(HERE.parent.parent)},
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            written = (
                sum(data.count(b"\n") for data in _lines(root).values())
                if (root / "runs").exists()
                else 0
            )
            if written >= 10:
                break
            assert proc.poll() is None, "the run ended before it could be killed"
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    before = _lines(root)
    finished_before = [
        r for path in before for r in read_jsonl(path, RunRecord) if r.status != "infra_excluded"
    ]
    assert 10 <= len(finished_before) < 60  # killed mid-run

    run(root, lookup, stub.sum_script, options=RunOptions(concurrency=2))

    after = _lines(root)
    for path, data in before.items():
        intact = data[: data.rfind(b"\n") + 1]
        assert after[path].startswith(intact)  # nothing written before the kill was rewritten
    recs = [r for path in after for r in read_jsonl(path, RunRecord)]
    cells = Counter((r.model, r.mode) for r in recs)
    assert cells == {(m, mode): 15 for m in ("m1", "m2") for mode in ("single-shot", "agentic")}
    assert {r.sitting for r in recs} == {1}
    assert len({r.run_id for r in recs}) == 60
    assert {r.run_id for r in finished_before} <= {r.run_id for r in recs}
