"""A grade log's history: the latest revision of each run's grade.

Its own module so that readers of grades (spot-checks, the metrics, verify) need none of the
grade stage's machinery, which calls the judge through the runner's limits.
"""

from __future__ import annotations

from pathlib import Path

from ledgerrate.core.io import iter_jsonl
from ledgerrate.schema import GradeRecord


def latest_grades(path: Path) -> dict[str, GradeRecord]:
    """The latest revision of each run's grade in a grade log."""
    latest: dict[str, GradeRecord] = {}
    for record in iter_jsonl(path, GradeRecord):
        held = latest.get(record.run_id)
        if held is None or record.revision >= held.revision:
            latest[record.run_id] = record
    return latest
