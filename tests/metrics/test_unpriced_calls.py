"""Infra-excluded calls recorded with no server time are counted and never shown as $0
(2026-12: two unfinished SmolLM2 attempts, 14 calls at latency 0.0, cost $0)."""

from __future__ import annotations

from pathlib import Path

from ledgerrate.metrics.report import edition_results
from ledgerrate.publish.cell_figures import _infra

EDITIONS = Path(__file__).resolve().parents[2] / "editions"


def test_bundled_unfinished_calls_are_counted_and_shown_as_unknown() -> None:
    results = edition_results(EDITIONS / "2026-12")
    counted = {
        (c.workload, c.model, str(c.mode)): c
        for w in results.workloads
        for c in w.cells
        if c.infra_excluded_unpriced_calls
    }
    assert list(counted) == [("generate.variance-commentary.v1", "smollm2", "agentic")]
    cell = counted[("generate.variance-commentary.v1", "smollm2", "agentic")]
    assert cell.infra_excluded_attempts == 2 and cell.infra_excluded_unpriced_calls == 14
    shown = _infra(cell)
    assert shown.startswith("2 (spend unknown, not zero: 14 calls without a recorded server time")
    for edition in ("2026-11", "2026-11-b"):
        for w in edition_results(EDITIONS / edition).workloads:
            for c in w.cells:
                assert "infra_excluded_unpriced_calls" not in c.model_dump(mode="json")
