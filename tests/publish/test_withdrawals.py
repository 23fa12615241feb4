"""A withdrawn figure leaves every table, chart and rate card; its tombstone stays."""

from __future__ import annotations

import datetime as dt

from ledgerrate.publish.withdrawals import apply_withdrawals
from ledgerrate.schema import ErrataFile
from tests.publish.factory import write_edition


def _errata(workload: str, model: str, mode: str) -> ErrataFile:
    return ErrataFile.model_validate(
        {
            "edition": "2026-07",
            "entries": [
                {
                    "id": "2026-07-20",
                    "date": dt.date(2026, 7, 20),
                    "title": "withdrawn",
                    "what_changed": "x",
                    "why": "y",
                    "withdrawn": True,
                    "figures": [
                        {
                            "workload": workload,
                            "model": model,
                            "mode": mode,
                            "field": field,
                            "old": "old",
                            "new": None,
                        }
                        for field in ("pass_rate", "cpo_usd")
                    ],
                }
            ],
        }
    )


def test_withdrawn_cell_leaves_figures_and_rate_lines(tmp_path) -> None:
    results = write_edition(tmp_path, "2026-07", "2026-07-01")
    workload = results.workloads[0]
    line = workload.cheapest_qualifying
    assert line is not None
    shown = apply_withdrawals(results, _errata(workload.workload, line.model, str(line.mode)))
    cell = next(c for c in shown.workloads[0].cells if (c.model, c.mode) == (line.model, line.mode))
    assert cell.pass_rate is None and cell.pass_rate_ci is None
    assert cell.cpo_usd is None and cell.cpo_ci is None and not cell.qualifying
    assert shown.workloads[0].cheapest_qualifying is None
    # The computed results are untouched: they are what verify re-derives.
    assert results.workloads[0].cheapest_qualifying == line


def test_no_errata_changes_nothing(tmp_path) -> None:
    results = write_edition(tmp_path, "2026-07", "2026-07-01")
    assert apply_withdrawals(results, None) is results


def test_withdrawn_figures_read_as_withdrawn(tmp_path) -> None:
    from ledgerrate.publish import fmt

    results = write_edition(tmp_path, "2026-07", "2026-07-01")
    workload = results.workloads[0]
    cell = workload.cells[0]
    shown = apply_withdrawals(results, _errata(workload.workload, cell.model, str(cell.mode)))
    gone = shown.workloads[0].cells[0]
    assert fmt.pass_rate(gone) == fmt.cpo(gone, workload.volume) == "withdrawn (see errata)"
    assert any("by erratum 2026-07-20" in flag for flag in gone.flags)


def test_indices_resting_on_a_withdrawn_cell_go_with_it(tmp_path) -> None:
    results = write_edition(tmp_path, "2026-07", "2026-07-01")
    workload = results.workloads[0]
    line = workload.cheapest_qualifying
    assert line is not None and workload.frontier_premium is not None
    shown = apply_withdrawals(results, _errata(workload.workload, line.model, str(line.mode)))
    # The premium divided by the withdrawn cell's CPO: it is withdrawn with it.
    assert shown.workloads[0].frontier_premium is None
    assert all(p.premium is None for p in shown.workloads[0].flagship_premiums)
    assert results.workloads[0].frontier_premium == workload.frontier_premium
