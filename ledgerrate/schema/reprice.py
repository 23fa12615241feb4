"""A reader's own prices (`ledgerrate results EDITION --prices FILE`): what the figures would be
at the prices they pay. Never part of an edition; nothing here is a published figure."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field

from ledgerrate.schema.base import SCHEMA_VERSION, Line, Slug, Strict
from ledgerrate.schema.publication import EditionResults

# Twelve decimal places is a millionth of a millionth of a dollar per million tokens: finer than
# any price list, and it keeps every re-priced amount an exact decimal in the browser too.
Price = Annotated[Decimal, Field(ge=0, decimal_places=12, allow_inf_nan=False)]
Percent = Annotated[Decimal, Field(ge=-100, le=1000, decimal_places=6, allow_inf_nan=False)]


class ReaderModelPrice(Strict):
    """Per-million-token prices for one model; a class left out keeps the edition's frozen
    price (or the vendor's percentage applied to it)."""

    input_per_mtok: Price | None = Field(default=None, description="$ per 1M uncached input.")
    output_per_mtok: Price | None = Field(default=None, description="$ per 1M output tokens.")
    cached_input_per_mtok: Price | None = Field(
        default=None, description="$ per 1M cache-read input tokens."
    )
    cache_write_per_mtok: Price | None = Field(
        default=None, description="$ per 1M cache-write tokens."
    )
    reasoning_per_mtok: Price | None = Field(
        default=None, description="$ per 1M reasoning tokens, where priced apart from output."
    )


class ReaderPrices(Strict):
    """The reader's prices file: per-model token prices, hourly rates of arms priced by time,
    and a percentage per vendor. Every price is in US dollars, as the edition's."""

    schema_version: Literal[1] = SCHEMA_VERSION
    models: dict[Slug, ReaderModelPrice] = Field(
        default_factory=dict,
        description="Model id → its prices per million tokens, class by class.",
    )
    hourly: dict[Slug, Price] = Field(
        default_factory=dict,
        description="Model id → $ per hour, for a model priced by time: a self-hosted model's "
        "instance or a reference baseline's vCPU; `manual`: the analyst's hourly rate, used for "
        "the manual (by-hand) arm of every workload in place of each one's recorded rate.",
    )
    percent: dict[Line, Percent] = Field(
        default_factory=dict,
        description="Vendor family (the edition's `family`, e.g. `openai`) or API provider → a "
        "percentage added to every frozen price of its models (-20 is a 20% discount, -50 a "
        "batch API at half price). A price set under `models` or `hourly` is used as given.",
    )


class RepricedResults(Strict):
    """What `ledgerrate results EDITION --prices FILE --json` prints: the edition's figures
    re-priced at the reader's prices, labelled. Never written to an edition; not a published
    figure."""

    label: Literal["re-priced with your prices — not a published figure"] = Field(
        default="re-priced with your prices — not a published figure",
        description="Always this: the figures below are not published figures.",
    )
    edition: Slug
    """The edition re-priced."""
    prices_file: str = Field(description="The reader's prices file, as given.")
    changed: list[str] = Field(
        default_factory=list, description="Every price that differs from the frozen one."
    )
    not_repriced: list[str] = Field(
        default_factory=list,
        description="Figures left as published or absent because cell totals cannot re-derive "
        "them (seeded bootstrap intervals, the routing verdict).",
    )
    results: EditionResults = Field(description="The figures, in the shape of results.json.")
