"""CPO trendlines across editions, one per workload version (standard §7).

Scores are never compared across workload versions: a version bump changes the dataset design,
prompt or pass criteria, so the line breaks there and a new one starts, and the site annotates
the break. Void cells are left out. Reference baselines are kept as points marked
`is_reference` (their compute cost per success is a useful floor to see) and never ranked.
A manual arm (ARCHITECTURE.md §12) is no model's trend and takes part in no index: left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ledgerrate.schema import EditionResults, TrendPoint

SeriesKey = tuple[str, str, str]  # (workload base id without `.vN`, model, mode)


def base_id(workload_id: str) -> str:
    """`extract.invoice.v2` → `extract.invoice`."""
    return workload_id.rsplit(".", 1)[0]


def trend_points(results: Iterable[EditionResults]) -> list[TrendPoint]:
    """One point per non-void cell that has counted attempts, in every edition given.

    Sorted by date, then edition, workload, model and mode, so plots are stable.
    """
    points = [
        TrendPoint(
            edition=edition.edition,
            date=edition.date,
            workload=cell.workload,
            model=cell.model,
            mode=cell.mode,
            cpo_usd=cell.cpo_usd,
            cpo_ci=cell.cpo_ci,
            pass_rate=cell.pass_rate,
            is_reference=cell.is_reference,
        )
        for edition in results
        for workload in edition.workloads
        for cell in workload.cells
        if not cell.void and cell.n > 0 and cell.manual is None
    ]
    return sorted(points, key=lambda p: (p.date, p.edition, p.workload, p.model, str(p.mode)))


@dataclass(frozen=True)
class TrendSegment:
    """Consecutive points of one workload version; `bump_from` names the version it follows."""

    workload: str
    points: list[TrendPoint] = field(default_factory=list)
    bump_from: str | None = None


def trend_segments(points: Iterable[TrendPoint]) -> dict[SeriesKey, list[TrendSegment]]:
    """Group points by (workload base id, model, mode) and break the line at version changes."""
    series: dict[SeriesKey, list[TrendPoint]] = {}
    for point in sorted(points, key=lambda p: (p.date, p.edition)):
        series.setdefault((base_id(point.workload), point.model, str(point.mode)), []).append(point)
    segments: dict[SeriesKey, list[TrendSegment]] = {}
    for key, line in sorted(series.items()):
        parts: list[TrendSegment] = []
        for point in line:
            if parts and parts[-1].workload == point.workload:
                parts[-1].points.append(point)
            else:
                previous = parts[-1].workload if parts else None
                parts.append(TrendSegment(point.workload, [point], bump_from=previous))
        segments[key] = parts
    return segments
