"""The maintained price database LedgerRate consults: genai-prices (pydantic/genai-prices).

Used three ways, never to set a frozen price by itself:

* `ledgerrate new` pre-fills `pricing.yaml` from it, every entry marked unconfirmed;
* `register` and the edition page set the frozen prices beside its prices for the window's
  opening instant (cross-check 1);
* the workload pages and `verify` set each cell's computed cost beside the cost it computes from
  the same usage (cross-check 2).

The package is imported where it is used (its data module is 1.6 MB). It is asked only for its
bundled snapshot, never to fetch newer prices (`UpdatePrices` is not used), so a given version
always answers the same.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from functools import cache, lru_cache
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

from ledgerrate.generate.vendors import VENDORS
from ledgerrate.schema import (
    PRICE_CLASSES,
    DatabaseRate,
    ModelSpec,
    PriceDatabaseEntry,
    PriceTier,
    Usage,
)

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo, Provider

NAME = "genai-prices"
REQUESTS_KEY = "requests_kcount"


def database_version() -> str:
    return version(NAME)


@dataclass(frozen=True)
class Found:
    """What the database says about one model at one instant."""

    provider: str
    model: str | None
    cites: str | None
    rates: dict[str, DatabaseRate]
    per_request_usd: Decimal | None
    unpriced: tuple[str, ...]
    """Price keys the database lists that no LedgerRate usage class maps to (web searches…)."""
    comments: str


def price_provider(spec: ModelSpec) -> str | None:
    """The database's provider id for a model, or None where no vendor's price applies."""
    if spec.is_reference or spec.local is not None:
        return None
    vendor = VENDORS.get(str(spec.provider))
    return vendor.price_provider if vendor else None


def _provider(provider_id: str) -> Provider | None:
    from genai_prices import data_snapshot

    return data_snapshot.find_provider_by_id(data_snapshot.get_snapshot().providers, provider_id)


@cache
def _model(provider_id: str, api_model: str) -> tuple[Provider | None, ModelInfo | None]:
    from genai_prices import data_snapshot

    snapshot = data_snapshot.get_snapshot()
    provider = _provider(provider_id)
    if provider is None:
        return None, None
    return provider, provider.find_model(api_model, all_providers=snapshot.providers)


def _rate(value: Any) -> DatabaseRate:
    from genai_prices.types import TieredPrices

    if isinstance(value, TieredPrices):
        return DatabaseRate(
            per_mtok=value.base,
            tiers=[PriceTier(above_input_tokens=t.start, per_mtok=t.price) for t in value.tiers],
        )
    return DatabaseRate(per_mtok=value)


def lookup(provider_id: str, api_model: str, at: dt.datetime) -> Found:
    """The database's prices for `api_model` at `at` (its entry's `model` None when unknown)."""
    provider, model = _model(provider_id, api_model)
    urls = (provider.pricing_urls or []) if provider is not None else []
    cites = urls[0] if urls else None
    if model is None:
        return Found(provider_id, None, cites, {}, None, (), "")
    prices = model.get_prices(at)
    listed = {k: v for k, v in vars(prices).items() if not k.startswith("_") and v is not None}
    by_key = {key: cls for cls, key in PRICE_CLASSES.items()}
    rates = {by_key[k]: _rate(v) for k, v in listed.items() if k in by_key}
    # A tiered per-request fee is not a thing the database holds; a plain one is $ per 1,000.
    fee = listed.get(REQUESTS_KEY)
    per_request = fee / 1000 if isinstance(fee, Decimal) else None
    unpriced = tuple(sorted(k for k in listed if k not in by_key and k != REQUESTS_KEY))
    ordered = {cls: rates[cls] for cls in PRICE_CLASSES if cls in rates}
    return Found(
        provider_id, model.id, cites, ordered, per_request, unpriced, model.price_comments or ""
    )


def entry(found: Found, at: dt.datetime) -> PriceDatabaseEntry:
    return PriceDatabaseEntry(
        name=NAME,
        version=database_version(),
        provider=found.provider,
        model=found.model,
        for_date=at.astimezone(dt.UTC).date(),
        cites=found.cites,
    )


def database_cost(provider_id: str, api_model: str, usage: Usage, at: dt.datetime) -> Decimal:
    """The cost genai-prices itself computes for one call's usage at `at`.

    LedgerRate's `Usage.input_tokens` excludes cached reads and cache writes; the database's
    counts all input, so the three are added back.
    """
    return _cost(
        provider_id,
        api_model,
        (
            usage.input_tokens,
            usage.cached_input_tokens,
            usage.cache_write_tokens,
            usage.output_tokens,
            usage.reasoning_tokens,
        ),
        at,
    )


# Calls of one model often report the same usage (a fixed prompt, a capped answer): each
# distinct usage is priced once. The database's snapshot never changes within a process.
@lru_cache(maxsize=65536)
def _cost(
    provider_id: str, api_model: str, counts: tuple[int, int, int, int, int], at: dt.datetime
) -> Decimal:
    import genai_prices

    uncached, cached, written, output, reasoning = counts
    provider, model = _model(provider_id, api_model)
    if provider is None or model is None:
        raise LookupError(f"{NAME} knows no model {api_model!r} of {provider_id!r}")
    theirs = genai_prices.Usage(
        input_tokens=uncached + cached + written,
        cache_read_tokens=cached,
        cache_write_tokens=written,
        output_tokens=output,
        output_reasoning_tokens=reasoning,
    )
    return model.calc_price(theirs, provider, genai_request_timestamp=at).total_price
