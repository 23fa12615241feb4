"""Figures re-priced at a reader's own prices, from each cell's published totals.

A token-priced cell's spend is its counted token totals × the per-million prices; a cell priced
by time is its seconds × the hourly rate ÷ 3600, rounded half-even to 1e-12 USD, plus what
rounding each call added (`TimePriced.rounding_usd`). A manual (by-hand) cell is priced by time
too: its stopwatch seconds × the hourly rate, rounded once over the counted items, plus its tool
lines (`TimePriced.fixed_usd`), which do not scale with the rate; an unknown line keeps its cost
unknown at any rate. At the frozen prices each gives the published spend exactly. CPO, rate,
premiums, multipliers and the cheapest qualifying model are then derived as for the published
figures (metrics/money.py, metrics/indices.py). Quality is not re-computed: who qualifies never
depends on price, and the manual arm is never ranked. The seeded bootstrap intervals and the
routing verdict rest on each item's cost, not on totals, and are not re-priced.
The same recipe runs in the browser (site/pages/javascripts/reprice.js).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, localcontext

from ledgerrate.core.cost import token_cost
from ledgerrate.metrics import indices
from ledgerrate.metrics.money import cpo, per_attempt, ratio, time_cost
from ledgerrate.schema import (
    MANUAL_MODEL,
    CellResult,
    EditionManifest,
    EditionResults,
    ModelPrice,
    PricingTable,
    ReaderPrices,
    RoutingVerdict,
    TokenTotals,
    Usage,
    Verdict,
    WorkloadResult,
)

TOKEN_CLASSES = (
    ("input_per_mtok", "input"),
    ("cached_input_per_mtok", "cached input"),
    ("cache_write_per_mtok", "cache write"),
    ("output_per_mtok", "output"),
    ("reasoning_per_mtok", "reasoning"),
)
LABEL = "re-priced with your prices — not a published figure"
# Exact: a re-priced amount never loses a digit before the published quantum (1e-12 USD).
PRECISION = 80


@dataclass(frozen=True)
class Prices:
    """Effective prices: every token-priced model's per-million prices and every time-priced
    model's hourly rate, with the lines a reader changed."""

    tokens: dict[str, ModelPrice]
    hourly: dict[str, Decimal]
    changed: list[str]


def _vendor_percent(
    model: str, manifest: EditionManifest, percent: Mapping[str, Decimal]
) -> Decimal | None:
    try:
        spec = manifest.model(model)
    except (KeyError, ValueError):
        return None
    # A reference solver has no API provider: its family alone names it.
    for key in (spec.family, spec.provider):
        if key is not None and key in percent:
            return percent[key]
    return None


def _scaled(value: Decimal, pct: Decimal | None) -> Decimal:
    return value if pct is None else value * (100 + pct) / 100


def _dollars(value: Decimal) -> str:
    return f"${value.normalize():f}"


def time_rates(results: EditionResults) -> dict[str, Decimal]:
    """The frozen hourly rate of each model whose cells are priced by server or CPU time (a
    model's rate is the same in every workload; the manual arm's is not: `manual_rates`)."""
    return {
        c.model: c.time_priced.hour_usd
        for w in results.workloads
        for c in w.cells
        if c.time_priced is not None and c.time_priced.basis != "manual"
    }


def manual_rates(results: EditionResults) -> list[Decimal]:
    """The distinct hourly rates recorded by the manual sittings re-pricing can use, lowest
    first: each workload's analyst states their own, and a reader's `hourly: manual` replaces
    every one of them."""
    return sorted(
        {
            c.time_priced.hour_usd
            for w in results.workloads
            for c in w.cells
            if c.time_priced is not None and c.time_priced.basis == "manual"
        }
    )


def problems(
    reader: ReaderPrices,
    pricing: PricingTable,
    manifest: EditionManifest,
    hourly: Mapping,
    manual: Sequence[Decimal] = (),
) -> list[str]:
    """What in the reader's file names nothing in the edition (field: why, and the fix)."""
    found = []
    if manual:
        hourly = {**hourly, MANUAL_MODEL: manual[0]}
    for model in reader.models:
        if model not in pricing.models:
            known = ", ".join(sorted(pricing.models)) or "none"
            found.append(
                f"models.{model}: no token-priced model of that id in edition {manifest.id}; "
                f"use one of: {known}"
            )
    for model in reader.hourly:
        if model not in hourly:
            known = ", ".join(sorted(hourly)) or "none"
            found.append(
                f"hourly.{model}: no model of edition {manifest.id} is priced by time under "
                f"that id; use one of: {known}"
            )
    vendors = {m.family for m in manifest.models}
    vendors |= {m.provider for m in manifest.models if m.provider}
    for key in reader.percent:
        if key not in vendors:
            found.append(
                f"percent.{key}: no model of edition {manifest.id} has that vendor family or "
                f"provider; use one of: {', '.join(sorted(vendors))}"
            )
    return found


def effective_prices(
    reader: ReaderPrices,
    pricing: PricingTable,
    manifest: EditionManifest,
    hourly: Mapping[str, Decimal],
    manual: Sequence[Decimal] = (),
) -> Prices:
    """The reader's prices over the frozen ones: a price they set is used as given; a vendor's
    percentage scales the frozen prices of its models they did not set. The manual arm has no
    vendor: its cells keep each their recorded rate unless the reader sets `hourly: manual`."""
    tokens: dict[str, ModelPrice] = {}
    changed: list[str] = []
    with localcontext() as ctx:
        ctx.prec = PRECISION
        for model, frozen in pricing.models.items():
            pct = _vendor_percent(model, manifest, reader.percent)
            own = reader.models.get(model)
            values: dict[str, Decimal | None] = {}
            for field, label in TOKEN_CLASSES:
                was = getattr(frozen, field)
                given = getattr(own, field) if own is not None else None
                now = given if given is not None else (None if was is None else _scaled(was, pct))
                values[field] = now
                if now is not None and now != was:
                    before = _dollars(was) if was is not None else "as input"
                    changed.append(f"{model} {label}: {before} → {_dollars(now)} per 1M tokens")
            tokens[model] = frozen.model_copy(update=values)
        rates: dict[str, Decimal] = {}
        for model, was in hourly.items():
            given = reader.hourly.get(model)
            now = (
                given
                if given is not None
                else _scaled(was, _vendor_percent(model, manifest, reader.percent))
            )
            rates[model] = now
            if now != was:
                changed.append(f"{model} hourly rate: {_dollars(was)} → {_dollars(now)} per hour")
        by_hand_rate = reader.hourly.get(MANUAL_MODEL)
        if by_hand_rate is not None and manual:
            rates[MANUAL_MODEL] = by_hand_rate
            changed.extend(
                f"{MANUAL_MODEL} hourly rate: {_dollars(was)} → {_dollars(by_hand_rate)} per hour"
                for was in manual
                if was != by_hand_rate
            )
    return Prices(tokens=tokens, hourly=rates, changed=changed)


def _usage(totals: TokenTotals) -> Usage:
    return Usage(
        input_tokens=totals.input,
        cached_input_tokens=totals.cached_input,
        cache_write_tokens=totals.cache_write,
        output_tokens=totals.output,
        reasoning_tokens=totals.reasoning,
    )


def cell_spend(cell: CellResult, prices: Prices) -> tuple[Decimal | None, Decimal | None]:
    """(counted spend, infra-excluded spend) at `prices`; None where the cell's totals do not
    say (a token-priced model without a price, or results sealed before the totals)."""
    with localcontext() as ctx:
        ctx.prec = PRECISION
        timed = cell.time_priced
        if timed is not None:
            rate = prices.hourly.get(cell.model, timed.hour_usd)
            return (
                time_cost(timed.seconds, rate) + timed.rounding_usd + (timed.fixed_usd or 0),
                time_cost(timed.infra_excluded_seconds, rate) + timed.infra_excluded_rounding_usd,
            )
        price = prices.tokens.get(cell.model)
        if price is None:
            return None, None
        infra = cell.infra_excluded_tokens
        return (
            token_cost(_usage(cell.tokens), price),
            None if infra is None else token_cost(_usage(infra), price),
        )


def reprice_cell(cell: CellResult, prices: Prices) -> CellResult:
    """The cell at `prices`: spend, CPO and cost per attempt re-derived; a figure the
    published cell does not show (withdrawn, or no successful outcome) stays absent."""
    spend, infra = cell_spend(cell, prices)
    if spend is None and by_hand(cell):
        # A void manual arm, or one without a recorded rate: no figure at any rate.
        nothing = {"spend_usd": None, "cpo_usd": None, "cost_per_attempt_usd": None}
        return cell.model_copy(update={**nothing, "cpo_ci": None, "cpo_ci_dropped_share": None})
    if spend is None:
        return cell.model_copy(update={"cpo_ci": None})
    # A manual cell with an unknown line: its known lines at the reader's rate, as published,
    # and no CPO or cost per attempt, at any rate.
    unknown = cell.time_priced is not None and bool(cell.time_priced.unknown_lines)
    with localcontext() as ctx:
        ctx.prec = PRECISION
        update = {
            "spend_usd": spend if cell.spend_usd is not None else None,
            "cpo_usd": (
                cpo(spend, cell.passes) if cell.cpo_usd is not None and not unknown else None
            ),
            "cost_per_attempt_usd": (
                per_attempt(spend, cell.n)
                if cell.cost_per_attempt_usd is not None and not unknown
                else None
            ),
            "infra_excluded_usd": infra if infra is not None else cell.infra_excluded_usd,
            # A seeded bootstrap over each item's cost: not derivable from totals.
            "cpo_ci": None,
            "cpo_ci_dropped_share": None,
        }
    return cell.model_copy(update=update)


NOT_REPRICED = RoutingVerdict(
    verdict=Verdict.not_applicable,
    reason="the routing verdict rests on each item's cost, not on a cell's totals, and is not "
    "re-priced; the published verdict stands at the published prices",
)


# The mark publish/withdrawals.py puts on a cell an erratum withdrew a figure of.
WITHDRAWN_FLAG = "withdrawn: "
UNRANKED = (
    "not re-ranked: an erratum withdrew a figure of a model in this workload, and at other "
    "prices the withdrawn cell could rank anywhere"
)


def by_hand(cell: CellResult) -> bool:
    """The manual arm's cell (ARCHITECTURE.md §12)."""
    return cell.manual is not None or cell.model == MANUAL_MODEL


def withdrawn(cell: CellResult) -> bool:
    return any(flag.startswith(WITHDRAWN_FLAG) for flag in cell.flags)


def _unranked(
    workload: WorkloadResult, cells: list[CellResult], names: Callable[[str], str]
) -> WorkloadResult:
    """A workload with a withdrawn figure: cells re-priced, but no model is named cheapest or
    flagship and no premium is given, since the withdrawn cell's place is unknown."""
    return workload.model_copy(
        update={
            "cells": cells,
            "cheapest_qualifying": None,
            "flagship": None,
            "flagship_note": UNRANKED,
            "frontier_premium": None,
            "flagship_premiums": [],
            "agentic_multiplier": {
                model: None if value is None else _multiplier(cells, model)
                for model, value in workload.agentic_multiplier.items()
            },
            "reference": indices.rate_line(indices.reference_cell(cells), names, workload.volume),
            "routing": NOT_REPRICED,
        }
    )


def _multiplier(cells: list[CellResult], model: str) -> float | None:
    arms = {str(c.mode): c for c in cells if c.model == model and not c.is_reference}
    agentic, single = arms.get("agentic"), arms.get("single-shot")
    if agentic is None or single is None or agentic.void or single.void:
        return None
    with localcontext() as ctx:
        ctx.prec = PRECISION
        return ratio(agentic.cpo_usd, single.cpo_usd)


def reprice_workload(
    workload: WorkloadResult, prices: Prices, manifest: EditionManifest
) -> WorkloadResult:
    cells = [reprice_cell(c, prices) for c in workload.cells]
    names = indices.model_names({m.id: m.name for m in manifest.models})
    # The manual arm is shown beside the models, never ranked among them (metrics/compute.py).
    ranked = [c for c in cells if not by_hand(c)]
    # A withdrawn reference baseline ranks against nothing; a withdrawn model cell could
    # outrank any other at the reader's prices.
    if any(withdrawn(c) and not c.is_reference for c in ranked):
        return _unranked(workload, cells, names)
    references = {c.model for c in cells if c.is_reference}
    flagships = {m.id: m.family for m in manifest.models if m.flagship and m.id not in references}
    cheapest = indices.cheapest_qualifying(ranked)
    flagship = indices.flagship_cell(ranked, set(flagships))
    with localcontext() as ctx:
        ctx.prec = PRECISION
        return workload.model_copy(
            update={
                "cells": cells,
                "cheapest_qualifying": indices.rate_line(cheapest, names, workload.volume),
                "flagship": indices.rate_line(flagship, names, workload.volume),
                "flagship_note": indices.flagship_note(flagship, set(flagships)),
                "frontier_premium": indices.frontier_premium(flagship, cheapest),
                "flagship_premiums": indices.flagship_premiums(
                    ranked, flagships, cheapest, names, workload.volume
                ),
                "agentic_multiplier": {
                    model: value
                    for model, value in indices.agentic_multipliers(
                        ranked, {str(c.mode) for c in ranked}
                    ).items()
                    if model in workload.agentic_multiplier
                },
                "reference": indices.rate_line(
                    indices.reference_cell(ranked), names, workload.volume
                ),
                "routing": NOT_REPRICED,
            }
        )


def reprice(results: EditionResults, prices: Prices, manifest: EditionManifest) -> EditionResults:
    """Every workload of `results` at `prices` (ratios as `metrics/money.ratio` gives them)."""
    return results.model_copy(
        update={"workloads": [reprice_workload(w, prices, manifest) for w in results.workloads]}
    )
