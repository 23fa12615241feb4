"""Itemised cost of a manual sitting: zero reads 0, unknown stays unknown, never one figure."""

from __future__ import annotations

import datetime as dt
import os
from decimal import Decimal
from pathlib import Path

import pytest

from ledgerrate.manual.importer import import_manual
from ledgerrate.metrics.manual import cost_lines
from ledgerrate.metrics.report import edition_results
from ledgerrate.schema import ManualItem, ManualSitting, ToolCost
from tests.manual import kit

NOW = dt.datetime(2026, 12, 6, 9, 0, tzinfo=dt.UTC)


def _sitting(rate: str | None, tools: dict[str, str]) -> ManualSitting:
    return ManualSitting(
        edition="2026-12-c",
        workload="extract.invoice.v2",
        sitting=1,
        imported_at=NOW,
        packet_sha256="0" * 64,
        returned_sha256="1" * 64,
        analyst_role="AP clerk",
        timing_statement="phone stopwatch",
        hourly_rate_usd=None if rate is None else Decimal(rate),
        rate_basis="test fixture",
        tools=list(tools),
        tool_costs=[ToolCost(tool=t, usd=v, basis="test fixture") for t, v in tools.items()],  # type: ignore[arg-type]
        items=[ManualItem(item_id="item-01", started_at=NOW, elapsed_s=360.0, answered=True)],
    )


def test_time_times_rate_plus_each_tool_line() -> None:
    lines, total = cost_lines(_sitting("42.50", {"spreadsheet": "0", "ocr": "1.20"}), Decimal(5400))
    assert [(line.line, line.usd) for line in lines] == [
        ("human time", Decimal("63.75")),
        ("tool: spreadsheet", Decimal(0)),  # genuinely zero reads 0
        ("tool: ocr", Decimal("1.20")),
    ]
    assert total == Decimal("64.95")
    assert "1.5 h × $42.50/h" in lines[0].basis


@pytest.mark.parametrize(
    ("rate", "tools", "unknown"),
    [
        (None, {"spreadsheet": "0"}, "human time"),
        ("42.50", {"spreadsheet": "unknown"}, "tool: spreadsheet"),
    ],
)
def test_an_unknown_line_stays_unknown_and_so_does_the_total(
    rate: str | None, tools: dict[str, str], unknown: str
) -> None:
    lines, total = cost_lines(_sitting(rate, tools), Decimal(5400))
    assert total is None
    shown = {line.line: line.usd for line in lines}
    assert shown[unknown] is None  # never filled in with 0 or a guess
    assert all(v is not None for k, v in shown.items() if k != unknown)


def test_an_unknown_rate_leaves_cpo_unknown_and_says_so(tmp_path: Path) -> None:
    os.environ.setdefault("LEDGERRATE_PRIVATE_DIR", str(tmp_path / "private"))
    edition = kit.registered_edition(tmp_path / "2026-12-u", [kit.EXTRACT])
    packet = kit.fill(edition, kit.packet(edition, kit.EXTRACT, tmp_path / "p"), rate="unknown")
    import_manual(edition, packet, now=lambda: kit.window_close(edition))
    from ledgerrate.grade.stage import grade_edition

    grade_edition(edition)
    cell = next(
        c for w in edition_results(edition).workloads for c in w.cells if c.model == "manual"
    )
    assert cell.pass_rate == 1.0 and cell.passes == 15
    assert cell.cpo_usd is None and cell.cpo_ci is None and cell.cost_per_attempt_usd is None
    assert cell.manual is not None and cell.manual.total_usd is None
    assert cell.manual.hourly_rate_usd is None and cell.manual.hours == Decimal("1.5")
    assert any("cost unknown (human time)" in flag for flag in cell.flags)
    assert cell.spend_usd == 0  # the known lines only: the spreadsheet's 0
