"""`price-check.json` (written by `register`) and the site's `price-database.json` (the same with
its cells filled in by the build): the frozen prices and computed costs beside a price database.

A second source, never applied: the database's prices for the window's opening instant, per
model and price class, the differences from the frozen table, and per cell the cost LedgerRate
computed against the cost the database computes from the same usage. Published with each
edition's data so an outsider can recompute the per-cell figures from the raw logs and this file
alone (methodology/1.0/price-check.md).
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from ledgerrate.schema.base import SCHEMA_VERSION, Line, Note, Slug, Strict, Url, Usd, WorkloadId

# LedgerRate's price classes, in pricing.yaml order, and the database's key for each.
PRICE_CLASSES: dict[str, str] = {
    "input": "input_mtok",
    "cached_input": "cache_read_mtok",
    "cache_write": "cache_write_mtok",
    "output": "output_mtok",
    "reasoning": "output_reasoning_mtok",
}


class PriceTier(Strict):
    above_input_tokens: int = Field(
        ge=0, description="Applies to every token of the class when a call's input exceeds this."
    )
    per_mtok: Usd = Field(ge=0, description="$ per 1M tokens in this tier.")


class DatabaseRate(Strict):
    per_mtok: Usd = Field(ge=0, description="$ per 1M tokens below the first tier.")
    tiers: list[PriceTier] = Field(default_factory=list, description="Higher tiers, if any.")


class ModelCheck(Strict):
    """One model's frozen prices beside the database's."""

    known: bool = Field(description="Whether the database knows the model.")
    reason: Note = Field(default="", description="Why not, or what the database adds.")
    provider: Line | None = Field(default=None, description="The database's provider id.")
    model: Line | None = Field(default=None, description="The database's model id.")
    cites: Url | None = Field(default=None, description="The vendor page the database cites.")
    database: dict[str, DatabaseRate] = Field(
        default_factory=dict, description="Database price per class it prices (PRICE_CLASSES)."
    )
    per_request_usd: Usd | None = Field(
        default=None, description="A fee per request the database lists, if any."
    )
    frozen: dict[str, Usd | None] = Field(
        default_factory=dict, description="The frozen price per class (null = not priced apart)."
    )
    differences: list[Note] = Field(
        default_factory=list, description="Each class where the two differ, in words."
    )


class CellCheck(Strict):
    """One cell's counted calls costed both ways."""

    workload: WorkloadId
    model: Slug
    mode: Line = Field(description="`single-shot` or `agentic`.")
    calls: int = Field(ge=0, description="Counted calls compared.")
    ledgerrate_usd: Usd = Field(description="Sum of the calls' recorded costs (frozen prices).")
    database_usd: Usd = Field(description="Sum of the database's costs for the same usage.")
    difference_usd: Usd = Field(description="database_usd − ledgerrate_usd (information).")


class PriceCheck(Strict):
    """The edition's prices and costs beside the price database's."""

    schema_version: Literal[1] = SCHEMA_VERSION
    edition: Slug
    database: Line = Field(description="The price database, e.g. `genai-prices`.")
    database_version: Line = Field(description="Its version.")
    at: dt.datetime = Field(description="The instant asked for: the window's opening.")
    models: dict[Slug, ModelCheck] = Field(
        default_factory=dict, description="Per model and judge, its prices beside the database's."
    )
    cells: list[CellCheck] = Field(
        default_factory=list, description="Per cell, the counted calls costed both ways."
    )
