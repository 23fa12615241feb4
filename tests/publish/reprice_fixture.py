"""A 40-model edition for the re-pricing tests: the realistic card of `card_fixture` (7
workloads × 40 models, flagships, pending, void and withdrawn cells), each model given its own
seeded per-million prices in a frozen price table, and each cell seeded token totals whose cost
at those prices *is* its spend (the real `cost.token_cost`), so re-pricing from totals has
something real to reproduce. The reference baseline is priced by time, with a per-call rounding
residue. Test inputs only, never shown as measurements; the derived figures come from the real
metrics functions and the withdrawals from the real erratum path.
"""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal
from pathlib import Path

from ledgerrate.core.cost import token_cost
from ledgerrate.core.layout import EditionPaths
from ledgerrate.metrics import indices
from ledgerrate.metrics.money import cpo, per_attempt, time_cost
from ledgerrate.publish.load import Edition
from ledgerrate.publish.withdrawals import apply_withdrawals
from ledgerrate.schema import (
    CellResult,
    EditionResults,
    ModelPrice,
    PricingTable,
    TimePriced,
    TokenTotals,
    Usage,
    WorkloadResult,
)
from tests.publish import card_fixture

VCPU_HOUR = Decimal("0.05")
FROZEN = dt.datetime(2027, 3, 10, tzinfo=dt.UTC)


def pricing(seed: int = 7) -> PricingTable:
    rng = random.Random(seed)
    models = {}
    for i in range(card_fixture.N_MODELS):
        base = Decimal(rng.randint(5, 15_000)) / Decimal(1000)  # $0.005 … $15 per 1M
        models[f"m{i:02d}"] = ModelPrice(
            input_per_mtok=base,
            output_per_mtok=base * rng.choice([2, 3, 4, 5, 8]),
            cached_input_per_mtok=(base / 10).quantize(Decimal("0.0001")) if i % 3 else None,
            cache_write_per_mtok=base * Decimal("1.25") if i % 4 == 0 else None,
            reasoning_per_mtok=base * 6 if i % 5 == 0 else None,
            source_url="https://prices.example/test-fixture",
            retrieved_at=FROZEN,
        )
    from ledgerrate.schema import ComputePrice

    return PricingTable(
        frozen_at=FROZEN,
        models=models,
        compute=ComputePrice(
            vcpu_hour_usd=VCPU_HOUR, source_url="https://prices.example/vcpu", retrieved_at=FROZEN
        ),
    )


def _tokens(rng: random.Random, scale: int) -> TokenTotals:
    output = rng.randint(1_000, 60_000) * scale
    return TokenTotals(
        input=rng.randint(20_000, 900_000) * scale,
        cached_input=rng.choice([0, rng.randint(1_000, 300_000)]) * scale,
        cache_write=rng.choice([0, 0, rng.randint(1_000, 50_000)]) * scale,
        output=output,
        reasoning=rng.choice([0, output // 3]),
    )


def _usage(t: TokenTotals) -> Usage:
    return Usage(
        input_tokens=t.input,
        cached_input_tokens=t.cached_input,
        cache_write_tokens=t.cache_write,
        output_tokens=t.output,
        reasoning_tokens=t.reasoning,
    )


def _priced(cell: CellResult, table: PricingTable, rng: random.Random) -> CellResult:
    infra_tokens = _tokens(rng, 1) if rng.random() < 0.2 else TokenTotals()
    if cell.is_reference:
        seconds = Decimal(rng.randint(1_000, 90_000)) / Decimal(1_000_000)
        rounding = Decimal(rng.randint(-7, 7)) / Decimal(10**12)
        spend = time_cost(seconds, VCPU_HOUR) + rounding
        timed = TimePriced(
            basis="compute",
            hour_usd=VCPU_HOUR,
            seconds=seconds,
            rounding_usd=rounding,
            infra_excluded_seconds=Decimal(0),
            infra_excluded_rounding_usd=Decimal(0),
        )
        infra_usd = Decimal(0)
        tokens = TokenTotals()
        infra_tokens = TokenTotals()
    else:
        tokens = _tokens(rng, rng.choice([1, 1, 10, 100]))
        price = table.models[cell.model]
        spend = token_cost(_usage(tokens), price)
        infra_usd = token_cost(_usage(infra_tokens), price)
        timed = None
    return cell.model_copy(
        update={
            "tokens": tokens,
            "spend_usd": spend,
            "cpo_usd": cpo(spend, cell.passes) if cell.cpo_usd is not None else None,
            "cost_per_attempt_usd": per_attempt(spend, cell.n),
            "infra_excluded_tokens": infra_tokens,
            "infra_excluded_usd": infra_usd,
            "infra_excluded_attempts": 0 if infra_tokens == TokenTotals() else 1,
            "time_priced": timed,
        }
    )


def _indexed(result: WorkloadResult, cells: list[CellResult]) -> WorkloadResult:
    manifest = card_fixture.manifest()
    names = indices.model_names({m.id: m.name for m in manifest.models})
    flagships = {m.id: m.family for m in manifest.models if m.flagship}
    cheapest = indices.cheapest_qualifying(cells)
    flagship = indices.flagship_cell(cells, set(flagships))
    modes = {str(c.mode) for c in cells}
    return result.model_copy(
        update={
            "cells": cells,
            "cheapest_qualifying": indices.rate_line(cheapest, names, result.volume),
            "flagship": indices.rate_line(flagship, names, result.volume),
            "flagship_note": indices.flagship_note(flagship, set(flagships)),
            "frontier_premium": indices.frontier_premium(flagship, cheapest),
            "flagship_premiums": indices.flagship_premiums(
                cells, flagships, cheapest, names, result.volume
            ),
            "agentic_multiplier": indices.agentic_multipliers(cells, modes),
            "reference": indices.rate_line(indices.reference_cell(cells), names, result.volume),
        }
    )


def computed_results(seed: int = 11) -> EditionResults:
    """The figures as the metrics stage would write them, every cell's spend its totals'."""
    table = pricing()
    rng = random.Random(seed)
    base = card_fixture.computed_results()
    return base.model_copy(
        update={
            "workloads": [
                _indexed(w, [_priced(c, table, rng) for c in w.cells]) for w in base.workloads
            ]
        }
    )


def edition(root: Path) -> Edition:
    """The fixture as the site loads an edition: withdrawn figures removed for display."""
    computed = computed_results()
    errata = card_fixture.errata(computed)
    return Edition(
        paths=EditionPaths(root / card_fixture.EDITION),
        manifest=card_fixture.manifest(),
        pricing=pricing(),
        registration=None,
        errata=errata,
        seeds=None,
        cards={},
        results=apply_withdrawals(computed, errata),
        computed=computed,
    )
