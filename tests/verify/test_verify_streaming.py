"""verify streams an edition's records: reading the logs keeps none of them as objects (holding
every record of a 215-model edition at once was 1.4 GB), and each walk still yields every
record with its line number. The memory itself is measured in benchmarks/scale_speed.py."""

from __future__ import annotations

import gc
from pathlib import Path

from ledgerrate.schema import GradeRecord, RunRecord
from ledgerrate.verify.evidence import latest_grades
from ledgerrate.verify.parsed import EditionLogs

EDITION = Path(__file__).resolve().parents[2] / "editions" / "2026-11"


def _alive(kind: type) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is kind)


def test_reading_the_logs_holds_no_record():
    runs, grades = _alive(RunRecord), _alive(GradeRecord)
    logs = EditionLogs.read(EDITION)
    assert logs.runs and logs.grades
    assert _alive(RunRecord) == runs
    assert _alive(GradeRecord) == grades
    # The re-grading's latest grades are facts, not the records.
    latest = latest_grades(logs)
    assert latest
    assert _alive(GradeRecord) == grades


def test_each_walk_yields_every_record_with_its_line():
    logs = EditionLogs.read(EDITION)
    for log in [*logs.runs, *logs.grades]:
        lines = [n for n, raw in enumerate(log.path.read_text().split("\n"), 1) if raw.strip()]
        walked = list(log.numbered)
        assert [n for n, _ in walked] == lines
        assert [n for n, _ in walked] == [n for n, _ in log.numbered]  # a second walk agrees
        assert all(type(r) is log.model for _, r in walked)
