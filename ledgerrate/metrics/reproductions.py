"""What a cell's reproductions show: per reproduction sitting, counted from the records.

Reproductions never enter a published figure (`load.runs_frame` drops them); this module only
describes them, one row per sitting, so two sittings are never pooled here either. Pure: records
in, rows out; reading the logs is the caller's edge.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from ledgerrate.schema import GradeRecord, Outcome, RunRecord, RunStatus


@dataclass(frozen=True)
class ReproductionSitting:
    sitting: int
    first_started: dt.datetime
    last_finished: dt.datetime
    runs: int
    """Counted runs: completed or model failure (infra-excluded attempts are not runs)."""
    attempts: int
    infra_excluded: int
    outside_window: int
    """Attempts that started outside the edition window."""
    graded: int
    """Counted runs whose latest grade is a pass or a fail."""
    passed: int
    pending_judge: int

    @property
    def not_graded(self) -> int:
        return self.runs - self.graded - self.pending_judge

    @property
    def dates(self) -> str:
        first, last = self.first_started.date(), self.last_finished.date()
        return first.isoformat() if first == last else f"{first.isoformat()} – {last.isoformat()}"


def _latest(grades: Iterable[GradeRecord]) -> dict[str, GradeRecord]:
    latest: dict[str, GradeRecord] = {}
    for grade in grades:
        held = latest.get(grade.run_id)
        if held is None or grade.revision >= held.revision:
            latest[grade.run_id] = grade
    return latest


def reproduction_sittings(
    runs: Iterable[RunRecord], grades: Iterable[GradeRecord] = ()
) -> list[ReproductionSitting]:
    """One row per reproduction sitting of a cell, oldest first; registered records are ignored."""
    latest = _latest(grades)
    by_sitting: dict[int, list[RunRecord]] = {}
    for run in runs:
        if run.kind == "reproduction":
            by_sitting.setdefault(run.sitting, []).append(run)
    rows = []
    for sitting, records in sorted(by_sitting.items()):
        counted = [r for r in records if r.status != RunStatus.infra_excluded]
        outcomes = [latest[r.run_id].outcome for r in counted if r.run_id in latest]
        rows.append(
            ReproductionSitting(
                sitting=sitting,
                first_started=min(r.started_at for r in records),
                last_finished=max(r.finished_at for r in records),
                runs=len(counted),
                attempts=len(records),
                infra_excluded=len(records) - len(counted),
                outside_window=sum(1 for r in records if r.outside_window),
                graded=sum(1 for o in outcomes if o != Outcome.pending_judge),
                passed=sum(1 for o in outcomes if o == Outcome.passed),
                pending_judge=sum(1 for o in outcomes if o == Outcome.pending_judge),
            )
        )
    return rows
