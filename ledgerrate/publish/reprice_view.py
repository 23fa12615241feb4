"""The data behind the "Re-price" panel of the rate card and workload pages.

Each panel carries, inside the page, the edition's frozen prices and each shown cell's totals
(`CellResult.tokens`, `infra_excluded_tokens`, `time_priced`, passes): what
`javascripts/reprice.js` re-derives every CPO, rate, premium and the cheapest qualifying model
from, in the reader's browser, with the recipe of `metrics/reprice.py`. Nothing is fetched: the
data is in the page, so nothing a reader types can leave it.
"""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from ledgerrate.metrics.reprice import LABEL, UNRANKED, by_hand, withdrawn
from ledgerrate.publish.load import Edition
from ledgerrate.schema import MANUAL_MODEL, CellResult, TokenTotals, WorkloadResult

CLASSES = ("input", "cached_input", "cache_write", "output", "reasoning")


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _tokens(totals: TokenTotals | None) -> dict[str, int] | None:
    return None if totals is None else {c: getattr(totals, c) for c in CLASSES}


def _time(cell: CellResult) -> dict[str, Any] | None:
    timed = cell.time_priced
    if timed is None:
        return None
    out: dict[str, Any] = {
        "basis": timed.basis,
        "hour_usd": str(timed.hour_usd),
        "seconds": str(timed.seconds),
        "rounding_usd": str(timed.rounding_usd),
        "infra_seconds": str(timed.infra_excluded_seconds),
        "infra_rounding_usd": str(timed.infra_excluded_rounding_usd),
    }
    # A manual cell's tool lines; absent otherwise, so pages without one keep their bytes.
    if timed.fixed_usd is not None:
        out["fixed_usd"] = str(timed.fixed_usd)
        out["unknown"] = list(timed.unknown_lines)
    return out


def _cell(cell: CellResult) -> dict[str, Any]:
    shown = {
        "model": cell.model,
        "mode": str(cell.mode),
        "reference": cell.is_reference,
        "void": cell.void,
        "withdrawn": withdrawn(cell),
        "qualifying": cell.qualifying,
        "n": cell.n,
        "passes": cell.passes,
        "pass_rate": cell.pass_rate,
        "has_line": cell.pass_rate is not None and cell.pass_rate_ci is not None,
        "spend": _text(cell.spend_usd),
        "cpo": _text(cell.cpo_usd),
        "cpa": _text(cell.cost_per_attempt_usd),
        "infra_usd": _text(cell.infra_excluded_usd),
        "tokens": _tokens(cell.tokens),
        "infra_tokens": _tokens(cell.infra_excluded_tokens),
        "time": _time(cell),
    }
    if by_hand(cell):
        # Shown beside the models, never ranked (ARCHITECTURE.md §12).
        shown["by_hand"] = True
    return shown


def _workload(result: WorkloadResult) -> dict[str, Any]:
    return {
        "id": result.workload,
        "title": result.title,
        "volume": result.volume,
        "unit": result.unit,
        # Each model with an agentic multiplier, and whether the shown figures give it.
        "multipliers": {m: v is not None for m, v in sorted(result.agentic_multiplier.items())},
        "cells": [_cell(c) for c in result.cells],
    }


def reprice_data(edition: Edition, workload: str | None = None) -> dict[str, Any]:
    """The panel's data for the edition's shown figures (withdrawn ones removed), every
    workload or only `workload`."""
    results = [w for w in edition.results.workloads if workload is None or w.workload == workload]
    in_cells = {c.model for w in results for c in w.cells}
    pricing = edition.pricing
    prices = {}
    if pricing is not None:
        for model, price in pricing.models.items():
            if model in in_cells:
                prices[model] = {
                    "input": str(price.input_per_mtok),
                    "cached_input": _text(price.cached_input_per_mtok),
                    "cache_write": _text(price.cache_write_per_mtok),
                    "output": str(price.output_per_mtok),
                    "reasoning": _text(price.reasoning_per_mtok),
                }
    hourly: dict[str, dict[str, Any]] = {
        c.model: {"hour_usd": str(c.time_priced.hour_usd), "basis": c.time_priced.basis}
        for w in results
        for c in w.cells
        if c.time_priced is not None and c.time_priced.basis != "manual"
    }
    manual = sorted(
        {
            c.time_priced.hour_usd
            for w in results
            for c in w.cells
            if c.time_priced is not None and c.time_priced.basis == "manual"
        }
    )
    if manual:
        # One rate for every manual cell shown, as `hourly: manual` in a reader's file; each
        # workload's analyst recorded their own, all listed (`rates`) and kept until it is set.
        hourly[MANUAL_MODEL] = {
            "hour_usd": str(manual[0]) if len(manual) == 1 else None,
            "basis": "manual",
            "rates": [str(r) for r in manual],
        }
    models = [
        {
            "id": m.id,
            "name": m.name,
            "vendor": m.family,
            "provider": m.provider,
            "flagship": m.flagship,
        }
        for m in edition.manifest.models
        if m.id in in_cells
    ]
    return {
        "edition": edition.id,
        "label": LABEL,
        "unranked": UNRANKED,
        "models": models,
        "prices": prices,
        "hourly": dict(sorted(hourly.items())),
        "workloads": [_workload(w) for w in results],
    }


def data_script(data: dict[str, Any]) -> Markup:
    """The data as an inert JSON script element: `<`, `>` and `&` written as JSON escapes, so no
    text from an edition can close the element or be read as markup."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(f'<script type="application/json" class="lr-reprice-data">{text}</script>')


# The recipe's page, from a page at `root`.
METHOD = "{root}methodology/1.0/repricing/"


def script_for(edition: Edition, workload: str | None = None) -> Markup:
    return data_script(reprice_data(edition, workload))


def context(edition: Edition, root: str) -> dict[str, Any]:
    """What the rate card's panel needs in a page's template context."""
    return {"reprice_script": script_for(edition), "reprice_method": METHOD.format(root=root)}
