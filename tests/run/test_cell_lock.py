"""A second `run` on a cell another `run` is still writing is refused before any call.

Before, both appended the same attempts, each took the other's in-flight attempt for a killed
one, and the log held duplicated records that `verify` refuses."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import pytest
from rich.console import Console

from ledgerrate.core.errors import UsageProblem
from ledgerrate.generate.register import register_edition
from ledgerrate.run import celllock
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.testing.reference_edition import write_reference_edition

WORKLOAD = "query.nl2sql.v1"


def _run(root: Path) -> None:
    run_edition(
        root,
        RunOptions(concurrency=1),
        console=Console(file=io.StringIO()),
        show_progress=False,
    )


def test_a_cell_being_written_is_refused_and_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(celllock.LOCK_ENV, str(tmp_path / "locks"))
    root = tmp_path / "editions" / "2026-09"
    write_reference_edition(root, now=dt.datetime.now(dt.UTC), workloads=[WORKLOAD])
    register_edition(root)
    log = root / "runs" / WORKLOAD / "reference" / "single-shot.jsonl"
    # Another runner (here: this process, through its own open file) holds the cell.
    with celllock.locked([log]), pytest.raises(UsageProblem) as refused:
        _run(root)
    assert len(refused.value.args) == 1
    assert str(log) in refused.value.args[0] and "another `ledgerrate run`" in refused.value.args[0]
    assert not (root / "runs").exists()
    # Once the other runner has ended, the same command runs the cell.
    _run(root)
    assert log.read_text().strip()
