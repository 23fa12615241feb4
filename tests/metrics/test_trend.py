from __future__ import annotations

import datetime as dt
from decimal import Decimal

from ledgerrate.metrics.trend import base_id, trend_points, trend_segments
from ledgerrate.schema import TrendPoint


def point(edition: str, workload: str, day: int, cpo: str | None = "0.01") -> TrendPoint:
    return TrendPoint(
        edition=edition,
        date=dt.date(2026, day, 1),
        workload=workload,
        model="m",
        mode="single-shot",  # type: ignore[arg-type]
        cpo_usd=Decimal(cpo) if cpo else None,
        cpo_ci=None,
        pass_rate=1.0,
    )


def test_segments_break_at_every_version_change() -> None:
    points = [
        point("2026-09", "extract.invoice.v2", 9),
        point("2026-07", "extract.invoice.v1", 7),
        point("2026-08", "extract.invoice.v1", 8),
        point("2026-10", "extract.invoice.v2", 10, None),
    ]
    segments = trend_segments(points)
    [(key, parts)] = segments.items()
    assert key == ("extract.invoice", "m", "single-shot")
    assert [s.workload for s in parts] == ["extract.invoice.v1", "extract.invoice.v2"]
    assert [p.edition for p in parts[0].points] == ["2026-07", "2026-08"]
    assert parts[0].bump_from is None and parts[1].bump_from == "extract.invoice.v1"
    assert base_id("triage.ap-inbox.v12") == "triage.ap-inbox"


def test_points_skip_void_and_empty_cells_and_mark_references(build, lookup, tmp_path) -> None:
    from ledgerrate.metrics.report import edition_results

    cheap, cheap_g = build.graded_cell(13, model="cheap", usd="0.001")
    fake, fake_g = build.graded_cell(15, model="big", usd="0.01", simulated=True)
    ref, ref_g = build.graded_cell(15, model="ref", usd="0", compute="0.0000001", basis="compute")
    edition = build.write_edition(tmp_path, [*cheap, *fake, *ref], [*cheap_g, *fake_g, *ref_g])
    results = edition_results(edition, lookup, reps=200)
    points = trend_points([results])
    assert {(p.model, p.is_reference) for p in points} == {("cheap", False), ("ref", True)}
