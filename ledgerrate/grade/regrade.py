"""The full manual regrade of a cell whose judge–human disagreement exceeds 10% (§5.3).

A flagged cell's judge is not trusted on it: every judged run of the cell goes to people.
`regrade_runs` lists the runs still without a human verdict (the sampler writes them to
`spotchecks/<workload>.regrade.csv`); `spotcheck import` reads that form like the sample's.
Once every judged run of a flagged cell has a human verdict, `apply_regrade` appends a grade
revision per run whose outcome is the human verdict, keeping the judge's block beneath it,
and the cell's methodology note says so. Until then the cell reads "manual regrade required"
and does not qualify (metrics/protocol.py).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ledgerrate.core.io import append_jsonl
from ledgerrate.core.layout import EditionPaths
from ledgerrate.grade.history import latest_grades
from ledgerrate.schema import GradeRecord, Outcome

DISAGREEMENT_LIMIT = 0.10  # standard §5.3


def judged(latest: dict[str, GradeRecord]) -> list[GradeRecord]:
    return [g for g in latest.values() if g.judge is not None and g.judge.passed is not None]


def disagreement(records: list[GradeRecord]) -> tuple[int, int]:
    """(sampled spot-checks, of which the human disagrees with the judge)."""
    sampled = [g for g in records if g.spotcheck is not None and g.spotcheck.scope == "sample"]
    disagree = [
        g
        for g in sampled
        if g.judge is not None and g.spotcheck is not None and g.judge.passed != g.spotcheck.passed
    ]
    return len(sampled), len(disagree)


def flagged(records: list[GradeRecord]) -> bool:
    checked, disagree = disagreement(records)
    return bool(checked) and disagree / checked > DISAGREEMENT_LIMIT


def regrade_runs(paths: EditionPaths, workload: str, model: str, mode: str) -> list[str]:
    """Judged runs of a flagged cell that still lack a human verdict; [] if not flagged."""
    records = judged(latest_grades(paths.grades(workload, model, mode)))
    if not flagged(records):
        return []
    return sorted(g.run_id for g in records if g.spotcheck is None)


def apply_regrade(log: Path, now: dt.datetime) -> int | None:
    """Replace the judge's outcomes by the humans' once a flagged cell is fully regraded.

    Returns the runs whose outcome changed, or None when the cell is not (yet) complete."""
    latest = latest_grades(log)
    records = judged(latest)
    if not records or not flagged(records) or any(g.spotcheck is None for g in records):
        return None
    changed = 0
    for record in records:
        human = Outcome.passed if record.spotcheck.passed else Outcome.failed  # type: ignore[union-attr]
        if record.outcome == human:
            continue
        append_jsonl(
            log,
            record.model_copy(
                update={"revision": record.revision + 1, "graded_at": now, "outcome": human}
            ),
        )
        changed += 1
    return changed
