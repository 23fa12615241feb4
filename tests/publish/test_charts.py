"""Charts: SVG with alt text, readable without colour, the bar and the cheapest point marked."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from decimal import Decimal

from ledgerrate.publish.charts import cost_vs_pass_svg, trendline_svg
from ledgerrate.schema import (
    CellResult,
    Interval,
    Mode,
    RateLine,
    RoutingVerdict,
    TokenTotals,
    TrendPoint,
    WorkloadResult,
)

FOOTER = "LedgerRate · methodology v1.0 · 2026-07-15"


def _cell(model: str, mode: Mode, passes: int, cpo: str | None, *, ref: bool = False) -> CellResult:
    rate = passes / 15
    return CellResult(
        workload="extract.invoice.v1",
        model=model,
        mode=mode,
        sitting=1,
        is_reference=ref,
        n=15,
        completed=15,
        model_failures=0,
        missing=0,
        passes=passes,
        pending_judge=0,
        pass_rate=rate,
        pass_rate_ci=Interval(lo=max(rate - 0.2, 0), hi=min(rate + 0.1, 1), method="wilson-95"),
        spend_usd=Decimal("1.5"),
        cpo_usd=None if cpo is None else Decimal(cpo),
        cpo_ci=None,
        cost_per_attempt_usd=Decimal("0.1"),
        tokens=TokenTotals(),
        latency_median_s=1.0,
        latency_p90_s=2.0,
        infra_excluded_attempts=0,
        infra_excluded_usd=Decimal(0),
        grading_cost_usd=Decimal(0),
        cost_basis="measured",
        qualifying=rate >= 0.8,
    )


def _result() -> WorkloadResult:
    cheap = _cell("small-model", Mode.single_shot, 13, "0.0123")
    return WorkloadResult(
        workload="extract.invoice.v1",
        title="Invoice extraction",
        unit="Process 1,000 invoices",
        volume=1000,
        judged=False,
        cells=[
            cheap,
            _cell("big-model", Mode.agentic, 14, "0.25"),
            _cell("tiny-model", Mode.single_shot, 0, None),
            _cell("reference", Mode.single_shot, 11, "0.000004", ref=True),
        ],
        cheapest_qualifying=RateLine(
            model="small-model",
            model_name="Small <Model>",
            mode=Mode.single_shot,
            cpo_usd=Decimal("0.0123"),
            rate_usd=Decimal("12.30"),
            pass_rate=13 / 15,
            pass_rate_ci=cheap.pass_rate_ci,
            cost_basis="measured",
        ),
        flagship=None,
        frontier_premium=None,
        reference=None,
        routing=RoutingVerdict(verdict="not_applicable", reason="no flagship"),
    )


def test_cost_vs_pass_chart_is_accessible_svg() -> None:
    svg = cost_vs_pass_svg(_result(), FOOTER, {"small-model": "Small <Model>"})
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg" and root.get("role") == "img"
    assert "cost vs pass rate" in root.find(f"{ns}title").text
    desc = root.find(f"{ns}desc").text
    assert "Small <Model>" in desc and "no successful outcome" in desc
    assert "quality bar 0.80" in svg and "cheapest qualifying" in svg
    assert FOOTER in svg
    assert "tiny-model" in svg  # named, not plotted at an invented height
    assert "&lt;Model&gt;" in svg  # escaped, never live markup


def test_chart_is_deterministic() -> None:
    assert cost_vs_pass_svg(_result(), FOOTER) == cost_vs_pass_svg(_result(), FOOTER)


def test_trendline_breaks_at_version_bump() -> None:
    def point(edition: str, month: int, workload: str, cpo: str) -> TrendPoint:
        return TrendPoint(
            edition=edition,
            date=dt.date(2026, month, 15),
            workload=workload,
            model="m",
            mode=Mode.single_shot,
            cpo_usd=Decimal(cpo),
            cpo_ci=None,
            pass_rate=0.9,
        )

    points = [
        point("2026-04", 4, "triage.ap-inbox.v1", "0.02"),
        point("2026-07", 7, "triage.ap-inbox.v1", "0.018"),
        point("2026-10", 10, "triage.ap-inbox.v2", "0.03"),
    ]
    svg = trendline_svg(points, "triage.ap-inbox", FOOTER)
    ET.fromstring(svg)
    assert "v1 → v2: trendline restarts" in svg
    assert "2026-07 to 2026-10: v1 to v2" in svg
    # Two separate lines (one per version), never one joining v1 to v2.
    assert svg.count("m (single-shot) v1") == 1 and svg.count("m (single-shot) v2") == 1


def _withdraw(field: str) -> dict:
    return {
        "workload": "extract.invoice.v1",
        "model": "reference",
        "mode": "agentic",
        "field": field,
        "old": "as published",
        "new": None,
    }


def test_chart_over_a_withdrawn_cell_says_withdrawn_not_no_success() -> None:
    from ledgerrate.publish.withdrawals import apply_withdrawals
    from ledgerrate.schema import EditionResults, ErrataFile

    only = _cell("reference", Mode.agentic, 14, "0.0000001", ref=True)
    workload = _result().model_copy(update={"cells": [only], "cheapest_qualifying": None})
    results = EditionResults(
        edition="e1",
        date=dt.date(2026, 7, 15),
        methodology_version="1.0",
        brand="LedgerRate",
        reference_only=True,
        bootstrap_seed=1,
        bootstrap_reps=10,
        workloads=[workload],
    )
    errata = ErrataFile.model_validate(
        {
            "edition": "e1",
            "entries": [
                {
                    "id": "2026-07-20",
                    "date": "2026-07-20",
                    "title": "withdrawn",
                    "what_changed": "x",
                    "why": "y",
                    "figures": [_withdraw(f) for f in ("pass_rate", "cpo_usd")],
                }
            ],
        }
    )
    shown = apply_withdrawals(results, errata).workloads[0]
    svg = cost_vs_pass_svg(shown, FOOTER)
    assert "withdrawn" in svg
    assert "no cell had a successful outcome" not in svg


def test_gap_chart_words_never_cover_its_markers(monkeypatch) -> None:
    """2026-12's chart printed each row's words ("cheapest qualifying: none qualifies; …") over
    the only markers it had, the reference baselines' squares."""
    from pathlib import Path

    from ledgerrate.core.io import load_model
    from ledgerrate.publish import charts
    from ledgerrate.publish.card import rate_card
    from ledgerrate.publish.load import load_edition
    from ledgerrate.schema import EditionResults

    root = Path(__file__).resolve().parents[2] / "editions" / "2026-12"
    edition = load_edition(root, lambda r: load_model(EditionResults, r / "results.json"))
    overlaps: list[str] = []
    drawn: list[int] = []
    real = charts._to_svg

    def inspect(fig, title, desc):  # type: ignore[no-untyped-def]
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        ax = fig.axes[0]
        notes = [t for t in ax.texts if "none" in t.get_text() or ":" in t.get_text()]
        points = [
            ax.transData.transform(offset)
            for collection in ax.collections
            for offset in collection.get_offsets()
        ]
        drawn.append(len(points))
        for note in notes:
            box = note.get_window_extent(renderer).expanded(1.0, 1.0)
            for x, y in points:
                # A marker is a few points across: its centre inside the text's box is a hit,
                # and so is one within 3 px of it.
                if box.x0 - 3 <= x <= box.x1 + 3 and box.y0 - 3 <= y <= box.y1 + 3:
                    overlaps.append(f"{note.get_text()!r} covers a marker at ({x:.0f}, {y:.0f})")
        return real(fig, title, desc)

    monkeypatch.setattr(charts, "_to_svg", inspect)
    charts.gap_svg(edition.results, rate_card(edition.results, edition.manifest), "footer")
    assert drawn and drawn[0] >= 4  # the reference baselines' squares are on the chart
    assert overlaps == []
