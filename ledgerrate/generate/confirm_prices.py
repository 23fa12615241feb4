"""`ledgerrate prices confirm`: record that someone read a model's official price page.

Turns a draft entry of `pricing.yaml` (pre-filled from the price database, marked
`unconfirmed`) into a frozen price: the page read (`source_url`), when (`retrieved_at`), by whom
(`retrieved_by`), and any class the page shows differently from the draft. The database's
provenance (`database:`) stays. Editing the file by hand to the same effect works just as well:
the schema is the contract. A registered edition's prices are sealed and are never confirmed
again.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import explain, load_model, write_yaml
from ledgerrate.core.layout import EditionPaths
from ledgerrate.schema import ModelPrice, PricingTable

PRICE_FIELDS = (
    "input_per_mtok",
    "cached_input_per_mtok",
    "cache_write_per_mtok",
    "output_per_mtok",
    "reasoning_per_mtok",
)


def confirm_price(
    edition_dir: Path,
    model_id: str,
    *,
    source_url: str,
    retrieved_at: dt.datetime,
    by: str,
    prices: dict[str, Decimal | None] | None = None,
    now: dt.datetime | None = None,
) -> ModelPrice:
    """Confirm one model's entry; raises UsageProblem (one line) and writes nothing on error."""
    from pydantic import ValidationError

    paths = EditionPaths(edition_dir)
    if paths.registration.exists():
        raise UsageProblem(
            f"{paths.registration}: edition is registered and its prices are sealed; a wrong "
            "price is corrected by an erratum, never by confirming again"
        )
    pricing = load_model(PricingTable, paths.pricing)
    if model_id not in pricing.models:
        known = ", ".join(pricing.models) or "none"
        raise UsageProblem(
            f"{paths.pricing}: models: no entry {model_id!r}; confirm one of: {known}"
        )
    if retrieved_at.tzinfo is None:
        raise UsageProblem("--retrieved-at: give the time with its zone, e.g. 2027-01-04T10:00Z")
    if not source_url.startswith(("https://", "http://")):
        raise UsageProblem(
            f"--source-url {source_url!r}: give the address of the official price page you read"
        )
    if not by.strip():
        raise UsageProblem("--by: say who read the page")
    draft = pricing.models[model_id]
    changes = {k: v for k, v in (prices or {}).items() if v is not None}
    data = draft.model_dump(mode="python")
    data.update(changes)
    data.update(
        source_url=source_url,
        retrieved_at=retrieved_at.astimezone(dt.UTC),
        retrieved_by=" ".join(by.split()),
        unconfirmed=None,
    )
    try:
        confirmed = ModelPrice.model_validate(data)
    except ValidationError as exc:
        raise explain(paths.pricing, exc, f"models.{model_id}.") from None
    when = retrieved_at.astimezone(dt.UTC)
    if when > pricing.frozen_at:
        raise UsageProblem(
            f"--retrieved-at {_stamp(when)}: after the table's frozen_at "
            f"({_stamp(pricing.frozen_at)}, the window's opening); prices are frozen then, so "
            "read the page before it"
        )
    if when > (now or dt.datetime.now(dt.UTC)):
        raise UsageProblem(f"--retrieved-at {_stamp(when)}: in the future; give when you read it")
    updated = pricing.model_copy(update={"models": {**pricing.models, model_id: confirmed}})
    write_yaml(paths.pricing, updated)
    return confirmed


def _stamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
