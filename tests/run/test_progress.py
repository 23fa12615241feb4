"""The run display fits a terminal at a real edition's size (40 models, over 500 cells)."""

from __future__ import annotations

import io
from decimal import Decimal

from rich.console import Console

from ledgerrate.run.progress import MAX_CELL_BARS, CellProgress, CellSummary, RunSummary

CELLS = [f"wl{w}/model-{m:02d}/{mode}" for w in range(7) for m in range(40) for mode in "ab"]


def test_display_is_one_overall_line_and_a_few_active_cells() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, record=True)
    with CellProgress(console) as progress:
        for key in CELLS:
            progress.add(key, key, total=15, done=0)
        for key in CELLS[:20]:
            progress.spent(key, Decimal("0.0012"))
        for _ in range(15):
            progress.advance(CELLS[0])  # the first cell finishes and leaves the display
        progress.spent(CELLS[30], Decimal(0))  # the next cell with an attempt takes its place
        tasks = progress._progress.tasks
        visible = [t.description for t in tasks if t.visible]
        assert visible[0] == "all cells" and len(visible) == 1 + MAX_CELL_BARS
        assert CELLS[0] not in visible and CELLS[30] in visible
        overall = tasks[0]
        assert overall.total == 15 * len(CELLS) and overall.completed == 15
        assert overall.fields["spend"] == "$0.024"  # 20 × $0.0012, in the one money formatter
    assert 1 + MAX_CELL_BARS <= 24


def test_summary_names_only_cells_that_need_attention() -> None:
    cells = [CellSummary("wl", f"m{i}", "single-shot", 1, 15, finished=15) for i in range(500)]
    cells[7].missing = ["item-03"]
    cells[9].infra_excluded = 2
    lines = RunSummary("2026-12", False, cells).lines()
    assert len(lines) == 4
    assert "m7" in lines[0] and "item-03" in lines[0] and "m9" in lines[1]
    assert "500 cell(s), 7500/7500 items finished" in lines[2]
    assert lines[3].startswith("left undone: 1 item(s): ") and "item-03" in lines[3]
