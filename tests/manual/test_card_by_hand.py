"""The by-hand line on the card: "no manual arm recorded" where there is none (every bundled
edition), and a realistic card with a manual arm on all seven jobs still on one A4 page."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pdfplumber
import pytest

from ledgerrate.core.io import load_model
from ledgerrate.core.layout import EditionPaths
from ledgerrate.publish.by_hand import COST_UNKNOWN, NO_MANUAL, by_hand, ratio_text
from ledgerrate.publish.card import rate_card
from ledgerrate.publish.pdf import render_ratecard_pdf
from ledgerrate.publish.tables import card_rows
from ledgerrate.schema import (
    CellCostBasis,
    CellResult,
    CostItem,
    EditionManifest,
    EditionResults,
    Interval,
    ManualArm,
    Mode,
    TokenTotals,
    WorkloadResult,
)
from tests.publish import card_fixture

REPO = Path(__file__).resolve().parents[2]
BUNDLED = sorted(p for p in (REPO / "editions").iterdir() if (p / "results.json").exists())


@pytest.mark.parametrize("edition", BUNDLED, ids=lambda p: p.name)
def test_the_bundled_editions_say_no_manual_arm_recorded(edition: Path) -> None:
    paths = EditionPaths(edition)
    results = load_model(EditionResults, paths.results)
    manifest = load_model(EditionManifest, paths.manifest)
    card = rate_card(results, manifest)
    assert card.lines and all(line.by_hand is None for line in card.lines)
    assert {line.by_hand_status for line in card.lines} == {NO_MANUAL}
    assert (NO_MANUAL, "no analyst has done this job's items by hand for this edition") in (
        card.legend
    )
    rows = [r for r in card_rows(results, card) if r["line"] == "by_hand"]
    assert len(rows) == len(results.workloads)
    assert all(r["reason"] == NO_MANUAL and r["cpo_usd"] is None for r in rows)


def _manual_cell(workload: WorkloadResult, index: int) -> CellResult:
    """A manual cell as metrics/manual.py makes it (seeded test figures, never shown outside
    the tests): every shape a card line can take, cycling over the jobs."""
    void = index == 2
    unknown = index == 4
    passes = 0 if void else 12 + index % 4
    cpo = None if void or unknown else Decimal("3.4") * (index + 1)
    statement = (
        "Stopwatch on my phone, started when I opened the item's folder and stopped when I "
        "saved the answer; I paused it for every interruption and for the lunch break."
    )
    return CellResult(
        workload=workload.workload,
        model="manual",
        mode=Mode.by_hand,
        sitting=2,
        other_sittings=1,
        is_reference=False,
        n=0 if void else 15,
        completed=0 if void else 15,
        model_failures=0,
        missing=15 if void else 0,
        passes=passes,
        pending_judge=0,
        pass_rate=None if void else passes / 15,
        pass_rate_ci=None if void else Interval(lo=0.6, hi=0.95, method="wilson-95"),
        spend_usd=Decimal(0) if void else Decimal("51.00"),
        cpo_usd=cpo,
        cpo_ci=None,
        cost_per_attempt_usd=None,
        tokens=TokenTotals(),
        latency_median_s=None,
        latency_p90_s=None,
        infra_excluded_attempts=0,
        infra_excluded_usd=Decimal(0),
        grading_cost_usd=Decimal(0),
        cost_basis=CellCostBasis.manual,
        qualifying=not void and passes >= 12,
        void=void,
        void_reasons=["no timing statement: the analyst did not state how the time was measured"]
        if void
        else [],
        manual=ManualArm(
            analyst_role="senior accounts-payable clerk, shared-services centre, 6 years",
            test_fixture="TEST FIXTURE: seeded figures of the card test",
            timing_statement=None if void else statement,
            hours=None if void else Decimal("1.2"),
            hourly_rate_usd=Decimal("42.50"),
            rate_basis="loaded cost of a senior AP clerk, UK, 2026 (salary, on-costs, overhead)",
            tools=["spreadsheet", "SQL client"],
            cost_lines=[
                CostItem(line="human time", usd=Decimal("51.00"), basis="1.2 h × $42.50/h"),
                CostItem(line="tool: spreadsheet", usd=Decimal(0), basis="licence already paid"),
                CostItem(
                    line="tool: SQL client",
                    usd=None if unknown else Decimal(0),
                    basis="nobody knows the licence share" if unknown else "free software",
                ),
            ],
            total_usd=None if unknown or void else Decimal("51.00"),
            sittings=[1, 2],
        ),
    )


def _with_manual_arms() -> EditionResults:
    results = card_fixture.shown_results()
    workloads = [
        w.model_copy(update={"cells": [*w.cells, _manual_cell(w, i)]})
        for i, w in enumerate(results.workloads)
    ]
    return results.model_copy(update={"workloads": workloads})


def test_a_card_with_a_manual_arm_on_every_job_of_40_models_fits_one_page(
    tmp_path: Path,
) -> None:
    results, manifest = _with_manual_arms(), card_fixture.manifest()
    card = rate_card(results, manifest)
    assert all(line.by_hand is not None for line in card.lines)
    assert {line.by_hand_status for line in card.lines} >= {None, "void", COST_UNKNOWN}
    # The manual cell never changes who is cheapest, nor the premium.
    plain = rate_card(card_fixture.shown_results(), manifest)
    assert [(x.rate, x.flagship, x.premium) for x in card.lines] == [
        (x.rate, x.flagship, x.premium) for x in plain.lines
    ]
    out = render_ratecard_pdf(results, manifest, tmp_path / "ratecard.pdf")
    with pdfplumber.open(out) as pdf:
        assert len(pdf.pages) == 1
        text = " ".join((pdf.pages[0].extract_text() or "").split())
    assert "By hand" in text and "TEST FIXTURE" in text and COST_UNKNOWN in text
    assert "not quotes, offers or guarantees" in text  # the disclaimer is still on the page


def test_the_ratio_is_shown_only_where_both_qualify() -> None:
    results = _with_manual_arms()
    for index, workload in enumerate(results.workloads):
        hand = by_hand(workload, workload.flagship, True)
        assert hand is not None
        cheapest = workload.cheapest_qualifying
        manual = _manual_cell(workload, index)
        if cheapest is not None and manual.qualifying and manual.cpo_usd is not None:
            assert hand.vs_cheapest == float(manual.cpo_usd / cheapest.cpo_usd)
        else:
            assert hand.vs_cheapest is None and hand.vs_cheapest_text is None
    assert ratio_text(1250.4) == "×1,250" and ratio_text(0.0123) == "×0.012"


def test_the_manual_arm_has_no_trendline() -> None:
    from ledgerrate.metrics.trend import trend_points

    points = trend_points([_with_manual_arms()])
    assert points and all(p.model != "manual" for p in points)
