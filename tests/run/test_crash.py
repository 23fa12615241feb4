from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from ledgerrate.core.io import read_jsonl
from ledgerrate.generate.register import register_edition
from ledgerrate.run import bodies, probe, unfinished
from ledgerrate.run.scheduler import RunOptions
from ledgerrate.schema import CostBasis, ProbeRecord, RunRecord, RunStatus, UsageBasis
from tests.run import stub
from tests.run.runkit import model
from tests.run.test_runner import run

# `python -m` from the checkout finds the test package the way pytest does.
REPO = Path(__file__).resolve().parents[2]


def _lines(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted((root / "runs").rglob("*.jsonl"))}


def test_kill_9_mid_run_then_resume_loses_no_finished_record(edition_factory, lookup) -> None:
    root = edition_factory(models=[model("m1"), model("m2", "anthropic")], n=15)
    register_edition(root, lookup=lookup)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.run.crashrun", str(root)],
        cwd=REPO,
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
        r
        for path in before
        for r in read_jsonl(path, RunRecord)
        if r.status != RunStatus.infra_excluded
    ]
    assert 10 <= len(finished_before) < 60  # killed mid-run

    run(root, lookup, stub.sum_script, options=RunOptions(concurrency=2))

    after = _lines(root)
    for path, data in before.items():
        intact = data[: data.rfind(b"\n") + 1]
        assert after[path].startswith(intact)  # nothing written before the kill was rewritten
    recs = [r for path in after for r in read_jsonl(path, RunRecord)]
    finished = [r for r in recs if r.status != RunStatus.infra_excluded]
    cells = Counter((r.model, r.mode) for r in finished)
    assert cells == {(m, mode): 15 for m in ("m1", "m2") for mode in ("single-shot", "agentic")}
    assert {r.sitting for r in recs} == {1}
    assert len({r.run_id for r in finished}) == 60
    assert {r.run_id for r in finished_before} <= {r.run_id for r in recs}


def _crashrun(root: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.run.crashrun", str(root)],
        cwd=REPO,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _probes(root: Path) -> list[ProbeRecord]:
    return [
        r
        for path in sorted((root / "probes").glob("*.jsonl"))
        for r in read_jsonl(path, ProbeRecord)
    ]


def _assert_every_answer_accounted(root: Path) -> list[RunRecord]:
    """Each request the provider answered (its bill) has a call in some record of its item."""
    answered = Counter(
        tuple(line.split("\t", 2))
        for line in (root.parent / "answered.log").read_text().splitlines()
    )
    recs = [r for path in _lines(root) for r in read_jsonl(path, RunRecord)]
    recorded: Counter[tuple[str, ...]] = Counter()
    for r in recs:
        request = bodies.whole(r, root).request
        assert request is not None
        recorded[(r.model, str(r.mode), request["messages"][0]["content"])] += len(r.calls)
    for probe_record in _probes(root):
        # The tools probe: a bare request, then one with a tool (infrastructure spend).
        for call, mode in zip(probe_record.calls, ("single-shot", "agentic"), strict=True):
            if call.http_status is not None:
                recorded[(probe_record.model, mode, probe.USER)] += 1
    unaccounted = {k: n - recorded[k] for k, n in answered.items() if n > recorded[k]}
    assert not unaccounted, f"answered but never recorded: {unaccounted}"
    finished = Counter((r.model, str(r.mode)) for r in recs if r.status != RunStatus.infra_excluded)
    assert finished == {(m, mode): 15 for m in ("m1", "m2") for mode in ("single-shot", "agentic")}
    return recs


def test_kill_9_right_after_an_answer_leaves_no_paid_request_unaccounted(
    edition_factory, lookup
) -> None:
    root = edition_factory(models=[model("m1"), model("m2", "anthropic")], n=15)
    register_edition(root, lookup=lookup)
    killed = _crashrun(root, CRASH_AFTER="12")
    assert killed.returncode == -signal.SIGKILL
    resumed = _crashrun(root)
    assert resumed.returncode == 0, resumed.stderr
    recs = _assert_every_answer_accounted(root)
    estimated = [r for r in recs if r.failure == unfinished.FAILURE]
    assert estimated, "the request answered at the kill must be accounted"
    for r in estimated:
        assert r.status == RunStatus.infra_excluded and r.cost_basis == CostBasis.estimated
        assert r.usage_basis == UsageBasis.estimated and r.cost.total_usd > 0
        assert all(c.usage.output_tokens == 4096 for c in r.calls)  # the model's output cap


def test_ctrl_c_ends_with_one_line_saying_how_to_resume(edition_factory, lookup) -> None:
    root = edition_factory(models=[model("m1")], n=15)
    register_edition(root, lookup=lookup)
    interrupted = _crashrun(root, CRASH_AFTER="7", CRASH_SIGNAL="INT")
    assert interrupted.returncode == 2
    lines = interrupted.stderr.strip().splitlines()
    assert len(lines) == 1 and "resume with `ledgerrate run" in lines[0], interrupted.stderr
    assert str(root) in lines[0]
    resumed = _crashrun(root)
    assert resumed.returncode == 0, resumed.stderr
    answered = (root.parent / "answered.log").read_text().splitlines()
    assert len(answered) >= 7
    recs = [r for path in _lines(root) for r in read_jsonl(path, RunRecord)]
    probe_calls = sum(len(p.calls) for p in _probes(root))
    assert sum(len(r.calls) for r in recs) + probe_calls >= len(answered)
