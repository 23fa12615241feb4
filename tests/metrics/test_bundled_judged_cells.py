"""The bundled 2026-12 names a judge: each of its six judged cells carries the judged-task
protocol block, and every judge call it paid is in a figure, by revision."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from ledgerrate.metrics.report import edition_results

EDITIONS = Path(__file__).resolve().parents[2] / "editions"
JUDGED = ("generate.variance-commentary.v1", "synthesize.board-brief.v1")


@pytest.fixture(scope="module")
def results_2026_12():
    return edition_results(EDITIONS / "2026-12")


def test_every_judged_cell_carries_its_protocol_block(results_2026_12) -> None:
    cells = [c for w in results_2026_12.workloads if w.workload in JUDGED for c in w.cells]
    assert len(cells) == 6
    for cell in cells:
        block = cell.judge_protocol
        assert block is not None, (cell.workload, cell.model, str(cell.mode))
        assert block.judged_runs == 0  # no counted run has a usable verdict
        if cell.pending_judge:
            assert block.missing == [
                f"not every run graded: {cell.pending_judge} of {cell.n} runs have no final grade"
            ]
        else:
            assert block.missing == []
    unjudged = [c for w in results_2026_12.workloads if w.workload not in JUDGED for c in w.cells]
    assert all(c.judge_protocol is None for c in unjudged)


def test_grading_spend_of_earlier_revisions_is_reported(results_2026_12) -> None:
    (cell,) = [
        c
        for w in results_2026_12.workloads
        for c in w.cells
        if (c.workload, c.model, str(c.mode))
        == ("generate.variance-commentary.v1", "reference", "single-shot")
    ]
    by_revision = {r.revision: r.usd for r in cell.grading_cost_by_revision}
    assert by_revision[3] == cell.grading_cost_usd == Decimal("0.002682522250")
    earlier = by_revision[1] + by_revision[2]
    assert earlier == Decimal("0.005480009778")  # the $0.00548 no figure showed
