"""The rate card as data, on the realistic 7 × 40 fixture: each line says why it has no rate,
the flagship is never "not evaluated" when it was, and the premium is the metrics' own."""

from __future__ import annotations

import pytest

from ledgerrate.core.usd import exact, plain
from ledgerrate.publish.card import (
    AWAITING_JUDGE,
    NO_SUCCESS,
    NONE_QUALIFIES,
    NOT_EVALUATED,
    VOID,
    WITHDRAWN,
    RateCard,
    premium_text,
    rate_card,
)
from tests.publish import card_fixture


@pytest.fixture(scope="module")
def card() -> RateCard:
    return rate_card(card_fixture.shown_results(), card_fixture.manifest())


def _line(card: RateCard, workload: str):  # type: ignore[no-untyped-def]
    return next(line for line in card.lines if line.workload == workload)


def test_one_line_per_workload_with_the_reason_in_a_word(card: RateCard) -> None:
    assert [line.workload for line in card.lines] == list(card_fixture.WORKLOADS)
    assert _line(card, "triage.ap-inbox.v1").rate_status == NONE_QUALIFIES
    assert _line(card, "reconcile.ledger.v1").rate_status == VOID
    assert _line(card, "synthesize.board-brief.v1").rate_status == AWAITING_JUDGE
    assert _line(card, "execute.month-end.v1").rate_status == WITHDRAWN
    assert _line(card, "extract.invoice.v2").rate is not None


def test_an_evaluated_flagship_is_never_not_evaluated(card: RateCard) -> None:
    # Every flagship ran nl2sql and none had a successful outcome.
    line = _line(card, "query.nl2sql.v1")
    assert line.flagship is None and line.flagship_status == NO_SUCCESS
    assert all(ln.flagship_status != NOT_EVALUATED for ln in card.lines)
    # A flagship below the bar is shown with its rate, marked, not dropped.
    triage = _line(card, "triage.ap-inbox.v1")
    assert triage.flagship is not None and triage.flagship.below_bar


def test_premium_is_the_metrics_figure_as_read(card: RateCard) -> None:
    results = card_fixture.shown_results()
    for workload in results.workloads:
        assert _line(card, workload.workload).premium == premium_text(workload.frontier_premium)
    assert premium_text(12.4) == "×12" and premium_text(3.44) == "×3.4"
    assert premium_text(0.853) == "×0.85" and premium_text(None) is None


def test_sub_cent_rates_read_in_plain_dollars_per_job_and_per_item(card: RateCard) -> None:
    rate = _line(card, "extract.invoice.v2").rate
    assert rate is not None and rate.cpo is not None
    assert rate.per_job == plain(rate.cpo * rate.volume) and rate.per_item == plain(rate.cpo)
    assert rate.per_job.startswith("$0.0") and " per " not in rate.per_job
    assert exact(rate.cpo).startswith("$0.000")  # under a cent, exact on request


def test_footer_names_edition_id_and_date(card: RateCard) -> None:
    assert card.footer == "LedgerRate · methodology v1.0 · edition 2027-03 · 2027-03-14"
