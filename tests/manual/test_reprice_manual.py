"""Re-pricing the manual arm (metrics/reprice.py, `results --prices`).

A reference-only edition with three TEST FIXTURE sittings (tests/manual/kit.py): extraction
with awkward stopwatch minutes and two known tool lines, month-end with an unknown tool line,
and reconciliation without a timing statement (void). At the reader's hourly rate a manual cell
must cost exactly what the manual arm's own recipe (metrics/manual.cost_lines) gives at that
rate; an unknown line keeps the cost unknown at any rate; a void arm has nothing to re-price.
"""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.core.io import FileProblem, load_model, write_yaml
from ledgerrate.grade.stage import grade_edition
from ledgerrate.manual.importer import import_manual
from ledgerrate.metrics.manual import cost_lines, seconds
from ledgerrate.metrics.money import cpo, per_attempt
from ledgerrate.metrics.report import edition_results
from ledgerrate.publish.repriced import repriced
from ledgerrate.schema import CellResult, EditionResults, ManualSitting, ReaderPrices
from tests.manual import kit

RECONCILE = "reconcile.ledger.v1"
BUNDLED = Path(__file__).resolve().parents[2] / "editions"


@pytest.fixture(scope="module")
def edition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reprice-manual")
    os.environ.setdefault("LEDGERRATE_PRIVATE_DIR", str(root / "private"))
    folder = kit.registered_edition(root / "2026-12-r", [kit.EXTRACT, kit.MONTH_END, RECONCILE])
    later = kit.window_close(folder)
    returns = [
        (kit.EXTRACT, {"rate": "42.50", "minutes": 6.37, "tools": {"sheet": "0", "ocr": "1.20"}}),
        (kit.MONTH_END, {"rate": "55", "minutes": 4.5, "tools": {"sql client": "unknown"}}),
        (RECONCILE, {"statement": None}),
    ]  # fmt: skip
    for workload, answers in returns:
        packet = kit.fill(folder, kit.packet(folder, workload, root / workload), **answers)
        import_manual(folder, packet, now=lambda: later)
    grade_edition(folder)
    return folder


@pytest.fixture(scope="module")
def published(edition: Path) -> EditionResults:
    return edition_results(edition)


def _manual(results: EditionResults, workload: str) -> CellResult:
    w = next(w for w in results.workloads if w.workload == workload)
    return next(c for c in w.cells if c.model == "manual")


def _at(edition: Path, tmp_path: Path, reader: ReaderPrices) -> Any:
    path = tmp_path / "my-prices.yaml"
    write_yaml(path, reader)
    return repriced(edition, path)


def test_a_manual_cell_publishes_the_seconds_and_rate_behind_its_cost(
    published: EditionResults, edition: Path
) -> None:
    cell = _manual(published, kit.EXTRACT)
    timed, arm = cell.time_priced, cell.manual
    assert timed is not None and arm is not None
    sitting = load_model(ManualSitting, edition / "manual" / kit.EXTRACT / "sitting-1.json")
    counted = sum((seconds(i.elapsed_s) for i in sitting.items), Decimal(0))
    assert timed.basis == "manual" and timed.seconds == counted
    assert timed.hour_usd == Decimal("42.50") and timed.seconds / 3600 == arm.hours
    assert timed.fixed_usd == Decimal("1.20") and timed.unknown_lines == []
    assert timed.rounding_usd == 0 and timed.infra_excluded_seconds == 0
    # The dump leaves the manual-only fields out of cells priced by server or CPU time.
    server = timed.model_copy(
        update={"basis": "self-hosted", "fixed_usd": None, "unknown_lines": []}
    )
    assert set(server.model_dump(mode="json")) == {
        "basis", "hour_usd", "seconds", "rounding_usd",
        "infra_excluded_seconds", "infra_excluded_rounding_usd",
    }  # fmt: skip


def test_at_the_recorded_rates_the_manual_cells_reprice_to_their_published_figures(
    published: EditionResults, edition: Path, tmp_path: Path
) -> None:
    view = _at(edition, tmp_path, ReaderPrices())
    assert view.changed == []
    for workload in (kit.EXTRACT, kit.MONTH_END):
        mine, theirs = _manual(view.results, workload), _manual(published, workload)
        for field in ("spend_usd", "cpo_usd", "cost_per_attempt_usd", "infra_excluded_usd"):
            assert getattr(mine, field) == getattr(theirs, field), (workload, field)
    assert _manual(published, kit.EXTRACT).cpo_usd is not None


@pytest.mark.parametrize("rate", ["0.001", "17", "42.5", "63.333333333333", "1234.56789"])
def test_at_any_hourly_rate_a_manual_cell_costs_what_its_own_recipe_gives(
    published: EditionResults, edition: Path, tmp_path: Path, rate: str
) -> None:
    view = _at(edition, tmp_path, ReaderPrices(hourly={"manual": Decimal(rate)}))
    sitting = load_model(ManualSitting, edition / "manual" / kit.EXTRACT / "sitting-1.json")
    counted = sum((seconds(i.elapsed_s) for i in sitting.items), Decimal(0))
    at_rate = sitting.model_copy(update={"hourly_rate_usd": Decimal(rate)})
    lines, total = cost_lines(at_rate, counted)
    assert total is not None and lines[0].usd is not None
    cell = _manual(view.results, kit.EXTRACT)
    assert cell.spend_usd == total
    assert cell.cpo_usd == cpo(total, cell.passes)
    assert cell.cost_per_attempt_usd == per_attempt(total, cell.n)
    # Who qualifies never depends on price.
    assert cell.qualifying == _manual(published, kit.EXTRACT).qualifying
    # One line per recorded rate it replaces (each workload's analyst recorded their own).
    now = f"${Decimal(rate).normalize():f}"
    assert view.changed == [
        f"manual hourly rate: ${was} → {now} per hour" for was in ("42.5", "55") if was != rate
    ]


def test_an_unknown_tool_line_keeps_the_cost_unknown_at_any_rate(
    published: EditionResults, edition: Path, tmp_path: Path
) -> None:
    shown = _manual(published, kit.MONTH_END)
    assert shown.time_priced is not None
    assert shown.time_priced.unknown_lines == ["tool: sql client"]
    assert shown.cpo_usd is None and shown.cost_per_attempt_usd is None
    for rate in ("0.5", "55", "900"):
        cell = _manual(_at(edition, tmp_path, ReaderPrices(hourly={"manual": rate})).results,
                       kit.MONTH_END)  # fmt: skip
        assert cell.cpo_usd is None and cell.cost_per_attempt_usd is None
        # spend_usd counts the known lines only, as published: the human time at this rate.
        sitting = load_model(ManualSitting, edition / "manual" / kit.MONTH_END / "sitting-1.json")
        counted = sum((seconds(i.elapsed_s) for i in sitting.items), Decimal(0))
        lines, total = cost_lines(sitting.model_copy(update={"hourly_rate_usd": Decimal(rate)}),
                                  counted)  # fmt: skip
        assert total is None and cell.spend_usd == lines[0].usd


def test_a_void_manual_arm_has_nothing_to_reprice(
    published: EditionResults, edition: Path, tmp_path: Path
) -> None:
    shown = _manual(published, RECONCILE)
    assert shown.void and shown.time_priced is None
    cell = _manual(_at(edition, tmp_path, ReaderPrices(hourly={"manual": "99"})).results, RECONCILE)
    assert cell.void and cell.cpo_usd is None and cell.cost_per_attempt_usd is None
    assert cell.spend_usd is None  # no re-priced figure, not even the known lines


def test_a_manual_rate_for_an_edition_without_a_manual_arm_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "my-prices.yaml"
    write_yaml(path, ReaderPrices(hourly={"manual": Decimal("30")}))
    with pytest.raises(FileProblem) as caught:
        repriced(BUNDLED / "2026-12", path)
    assert "hourly.manual" in str(caught.value)


def test_an_arm_without_a_recorded_rate_is_not_repriced(tmp_path: Path) -> None:
    """Its seconds are published (`manual.hours`) but no rate: it carries no `time_priced`,
    a reader's `hourly: manual` names nothing to re-price, and its cost stays unknown."""
    os.environ.setdefault("LEDGERRATE_PRIVATE_DIR", str(tmp_path / "private"))
    folder = kit.registered_edition(tmp_path / "2026-12-u", [kit.EXTRACT])
    packet = kit.fill(folder, kit.packet(folder, kit.EXTRACT, tmp_path / "p"), rate="unknown")
    import_manual(folder, packet, now=lambda: kit.window_close(folder))
    grade_edition(folder)
    cell = _manual(edition_results(folder), kit.EXTRACT)
    assert cell.time_priced is None and cell.manual is not None and cell.manual.hours
    path = tmp_path / "my-prices.yaml"
    write_yaml(path, ReaderPrices(hourly={"manual": Decimal("30")}))
    with pytest.raises(FileProblem) as caught:
        repriced(folder, path)
    assert "hourly.manual" in str(caught.value)
    again = _manual(_at(folder, tmp_path, ReaderPrices()).results, kit.EXTRACT)
    assert again.cpo_usd is None and again.spend_usd is None
