"""Re-pricing from each cell's published totals (metrics/reprice.py, `results --prices`).

At the frozen prices the totals give every published spend, CPO and cost per attempt exactly,
on the bundled editions (self-hosted and reference cells, priced by time), on a small edition
whose calls are priced by tokens with the real cost function, and on the 40-model fixture; at a
reader's prices, nobody's qualification changes, and prices that invert two models' order change
the cheapest qualifying model.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledgerrate.core.cost import usage_cost
from ledgerrate.core.io import append_jsonl, write_yaml
from ledgerrate.metrics import reprice as rp
from ledgerrate.metrics.money import time_cost
from ledgerrate.metrics.report import edition_results
from ledgerrate.metrics.totals_format import in_format_of, predates_repricing_totals
from ledgerrate.publish.load import load_edition
from ledgerrate.schema import (
    CallRecord,
    Cost,
    EditionResults,
    PricingTable,
    ReaderPrices,
    RunRecord,
    Usage,
)
from tests.publish import card_fixture, reprice_fixture

BUNDLED = Path(__file__).resolve().parents[2] / "editions"
EDITIONS = ("2026-11", "2026-11-b", "2026-12")


@pytest.fixture(scope="module")
def bundled() -> dict[str, Any]:
    return {e: load_edition(BUNDLED / e) for e in EDITIONS}


def _frozen(edition: Any) -> rp.Prices:
    hourly = rp.time_rates(edition.results)
    return rp.effective_prices(ReaderPrices(), edition.pricing, edition.manifest, hourly)


def _same_money(repriced: EditionResults, published: EditionResults) -> int:
    checked = 0
    for mine, theirs in zip(repriced.workloads, published.workloads, strict=True):
        for a, b in zip(mine.cells, theirs.cells, strict=True):
            assert (a.model, a.mode) == (b.model, b.mode)
            for field in ("spend_usd", "cpo_usd", "cost_per_attempt_usd", "infra_excluded_usd"):
                assert getattr(a, field) == getattr(b, field), (a.workload, a.model, field)
            checked += 1
        if any(rp.withdrawn(c) and not c.is_reference for c in mine.cells):
            # Re-priced, never re-ranked: the withdrawn cell could rank anywhere.
            assert mine.cheapest_qualifying is None and mine.flagship_note == rp.UNRANKED
            continue
        for line in ("cheapest_qualifying", "flagship", "reference"):
            assert getattr(mine, line) == getattr(theirs, line), (mine.workload, line)
        assert mine.frontier_premium == theirs.frontier_premium
        assert mine.agentic_multiplier == theirs.agentic_multiplier
    return checked


def test_bundled_editions_reprice_to_every_published_figure_at_frozen_prices(
    bundled: dict[str, Any],
) -> None:
    checked = 0
    for edition in bundled.values():
        frozen = _frozen(edition)
        assert frozen.changed == []
        checked += _same_money(
            rp.reprice(edition.results, frozen, edition.manifest), edition.results
        )
    assert checked >= 30


def test_time_priced_cells_hold_the_seconds_behind_their_spend(bundled: dict[str, Any]) -> None:
    timed = 0
    for edition in bundled.values():
        for workload in edition.computed.workloads:
            for cell in workload.cells:
                t = cell.time_priced
                assert t is not None  # every bundled cell is self-hosted or a baseline
                assert time_cost(t.seconds, t.hour_usd) + t.rounding_usd == cell.spend_usd
                # Per-call rounding to 1e-12 adds at most half of 1e-12 a call (≤ 15 runs × a
                # few calls): the residue is rounding, not a price.
                assert abs(t.rounding_usd) <= Decimal("0.0000000001")
                assert t.seconds >= 0
                timed += t.seconds > 0
    assert timed >= 20


def test_sealed_results_predate_the_totals_and_are_compared_without_them(
    bundled: dict[str, Any],
) -> None:
    from ledgerrate.core.io import load_model

    edition = bundled["2026-12"]
    sealed = load_model(EditionResults, BUNDLED / "2026-12" / "results.json")
    assert predates_repricing_totals(sealed)
    assert not predates_repricing_totals(edition.computed)
    fitted = in_format_of(edition.computed, sealed)
    assert all(c.time_priced is None for w in fitted.workloads for c in w.cells)
    # A file that carries the totals is held to them.
    assert in_format_of(edition.computed, edition.computed) is edition.computed


# ------------------------------------------------------------------ token-priced, real costs

PRICE = {
    "input_per_mtok": "2.50",
    "output_per_mtok": "10.00",
    "cached_input_per_mtok": "1.25",
    "reasoning_per_mtok": "12.5",
    "source_url": "https://prices.example/cheap",
    "retrieved_at": "2026-06-30T00:00:00Z",
}
T0 = dt.datetime(2026, 7, 1, 1, 0, tzinfo=dt.UTC)


def _run(build: Any, item: str, status: str, attempt: int, pricing: PricingTable) -> RunRecord:
    rng = random.Random(f"{item}{attempt}")
    calls = []
    for step in range(rng.randint(1, 3)):
        usage = Usage(
            input_tokens=rng.randint(100, 90_000),
            cached_input_tokens=rng.randint(0, 9_000),
            output_tokens=(out := rng.randint(10, 4_000)),
            reasoning_tokens=rng.randint(0, out),
        )
        calls.append(
            CallRecord(
                step=step,
                started_at=T0,
                latency_s=1.5,
                usage=usage,
                cost=usage_cost(usage, pricing, "cheap"),
            )
        )
    base = build.run(item, attempt=attempt, status=status)
    total = sum((c.usage for c in calls), Usage())
    cost = sum((c.cost for c in calls), Cost())
    return base.model_copy(
        update={
            "calls": calls,
            "usage": total,
            "cost": cost,
            "failure": "ProviderError: 503" if status == "infra-excluded" else None,
            "run_id": "r-" + hashlib.sha256(f"{item}{attempt}".encode()).hexdigest()[:16],
        }
    )


def test_token_totals_are_what_each_call_was_priced_from(tmp_path: Path, build: Any) -> None:
    """Calls priced one by one with the real cost function; the cell's totals × the price give
    its spend and its infra-excluded spend exactly."""
    pricing = PricingTable.model_validate(
        {"frozen_at": "2026-07-01T00:00:00Z", "models": {"cheap": PRICE}}
    )
    runs = [_run(build, "item-01", "infra-excluded", 1, pricing)]
    runs += [
        _run(build, item, "completed", 1 + (item == "item-01"), pricing) for item in build.items()
    ]
    edition = tmp_path / build.EDITION
    write_yaml(edition / "edition.yaml", build.manifest())
    write_yaml(edition / "pricing.yaml", pricing)
    for record in runs:
        append_jsonl(edition / "runs" / build.WL / "cheap" / "single-shot.jsonl", record)
        append_jsonl(
            edition / "grades" / build.WL / "cheap" / "single-shot.jsonl",
            build.grade(record, "pass" if int(record.item_id[-2:]) % 4 else "fail"),
        )
    results = edition_results(edition, build.meta, reps=50)
    cell = next(c for c in results.workloads[0].cells if c.model == "cheap" and c.n)
    assert cell.infra_excluded_attempts == 1 and cell.infra_excluded_usd > 0
    assert cell.time_priced is None
    frozen = rp.effective_prices(ReaderPrices(), pricing, build.manifest(), {})
    spend, infra = rp.cell_spend(cell, frozen)
    assert spend == cell.spend_usd and infra == cell.infra_excluded_usd
    half = rp.effective_prices(ReaderPrices(percent={"openai": -50}), pricing, build.manifest(), {})
    spend_half, infra_half = rp.cell_spend(cell, half)
    assert spend_half * 2 == cell.spend_usd and infra_half * 2 == cell.infra_excluded_usd


# ------------------------------------------------------------------ the 40-model edition


@pytest.fixture(scope="module")
def forty(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return reprice_fixture.edition(tmp_path_factory.mktemp("forty"))


def test_forty_models_reprice_to_every_published_figure_at_frozen_prices(forty: Any) -> None:
    frozen = _frozen(forty)
    assert _same_money(rp.reprice(forty.results, frozen, forty.manifest), forty.results) > 500


def inverting_prices(edition: Any, workload: str) -> tuple[ReaderPrices, str, str]:
    """Prices that make the second-cheapest qualifying model of `workload` the cheapest: its
    every token price cut to a thousandth."""
    result = next(w for w in edition.results.workloads if w.workload == workload)
    ranked = sorted(
        (c for c in result.cells if c.qualifying and not c.is_reference and c.cpo_usd),
        key=lambda c: c.cpo_usd,
    )
    first = ranked[0]
    second = next(c for c in ranked if c.model != first.model)
    frozen = edition.pricing.models[second.model]
    cut = {
        field: getattr(frozen, field) / 1000
        for field, _ in rp.TOKEN_CLASSES
        if getattr(frozen, field) is not None
    }
    return ReaderPrices(models={second.model: cut}), first.model, second.model


def test_prices_that_invert_two_models_change_the_cheapest_qualifying(forty: Any) -> None:
    reader, was, now = inverting_prices(forty, "extract.invoice.v2")
    published = next(w for w in forty.results.workloads if w.workload == "extract.invoice.v2")
    assert published.cheapest_qualifying is not None
    assert published.cheapest_qualifying.model == was
    prices = rp.effective_prices(
        reader, forty.pricing, forty.manifest, rp.time_rates(forty.results)
    )
    assert len(prices.changed) >= 2
    repriced = rp.reprice(forty.results, prices, forty.manifest)
    result = next(w for w in repriced.workloads if w.workload == "extract.invoice.v2")
    assert result.cheapest_qualifying is not None
    assert result.cheapest_qualifying.model == now
    assert result.frontier_premium != published.frontier_premium


def test_a_withdrawn_figure_leaves_its_workload_unranked(forty: Any) -> None:
    prices = _frozen(forty)
    repriced = rp.reprice(forty.results, prices, forty.manifest)
    month_end = next(w for w in repriced.workloads if w.workload == card_fixture.WITHDRAWN_WORKLOAD)
    assert any(rp.withdrawn(c) for c in month_end.cells)
    assert month_end.cheapest_qualifying is None and month_end.flagship_note == rp.UNRANKED


# ------------------------------------------------------------------ who qualifies


PRICES = st.decimals(min_value=0, max_value=100, places=4, allow_nan=False, allow_infinity=False)


@settings(max_examples=25, deadline=None)
@given(
    scale=st.lists(PRICES, min_size=card_fixture.N_MODELS, max_size=card_fixture.N_MODELS),
    hourly=PRICES,
    percent=st.decimals(min_value=-100, max_value=1000, places=2),
)
def test_repricing_never_changes_who_qualifies(
    forty: Any, bundled: dict[str, Any], scale: list[Decimal], hourly: Decimal, percent: Decimal
) -> None:
    cases = [
        (
            forty,
            ReaderPrices(
                models={
                    f"m{i:02d}": {"input_per_mtok": v, "output_per_mtok": v * 3}
                    for i, v in enumerate(scale)
                    if i % 2
                },
                hourly={"reference": hourly},
                percent={"northwind": percent},
            ),
        ),
        *(
            (e, ReaderPrices(hourly={m: hourly for m in rp.time_rates(e.results)}))
            for e in bundled.values()
        ),
    ]
    for edition, reader in cases:
        prices = rp.effective_prices(
            reader, edition.pricing, edition.manifest, rp.time_rates(edition.results)
        )
        repriced = rp.reprice(edition.results, prices, edition.manifest)
        for mine, theirs in zip(repriced.workloads, edition.results.workloads, strict=True):
            for a, b in zip(mine.cells, theirs.cells, strict=True):
                for field in ("qualifying", "void", "pass_rate", "pass_rate_ci", "passes", "n"):
                    assert getattr(a, field) == getattr(b, field)
            line = mine.cheapest_qualifying
            if line is not None:
                cell = next(c for c in theirs.cells if (c.model, c.mode) == (line.model, line.mode))
                assert cell.qualifying
