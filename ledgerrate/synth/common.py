"""Small seeded building blocks shared by every generator: money, dates, names."""

from __future__ import annotations

import datetime as dt
import random
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")

_PREFIXES = (
    "Northwind",
    "Bluegate",
    "Harbor",
    "Kestrel",
    "Alder",
    "Granite",
    "Meridian",
    "Copperline",
    "Tidewater",
    "Juniper",
    "Summit",
    "Brightwell",
    "Oakridge",
    "Silverleaf",
    "Ironbridge",
    "Lumen",
    "Fairhaven",
    "Westmarch",
    "Redfern",
    "Clearwater",
    "Stonegate",
    "Pinecrest",
)
_TRADES = (
    "Logistics",
    "Office Supply",
    "Facilities",
    "Catering",
    "IT Services",
    "Print Works",
    "Cleaning Co",
    "Freight",
    "Consulting",
    "Security",
    "Software",
    "Packaging",
    "Energy",
    "Telecom",
    "Legal Partners",
    "Maintenance",
    "Travel",
    "Staffing",
)
_SUFFIXES = ("Ltd", "LLC", "Inc.", "GmbH", "plc", "& Co.", "S.A.", "B.V.")
_FIRST = (
    "Ana",
    "Ben",
    "Chloe",
    "Dev",
    "Elif",
    "Farid",
    "Grace",
    "Hiro",
    "Ines",
    "Jonas",
    "Kara",
    "Liam",
    "Maya",
    "Noah",
    "Olga",
    "Priya",
    "Rafael",
    "Sofia",
    "Tomas",
    "Yara",
)
_LAST = (
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Tanaka",
    "Schmidt",
    "Alvarez",
    "Novak",
    "Walsh",
    "Haddad",
    "Kowalski",
    "Brennan",
    "Rossi",
    "Nakamura",
    "Fischer",
    "Osei",
    "Duarte",
)


def money(rng: random.Random, low: float, high: float) -> Decimal:
    """A dollar amount with cents, uniform on [low, high]."""
    cents = rng.randint(round(low * 100), round(high * 100))
    return (Decimal(cents) / 100).quantize(CENT)


def round_cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def company(rng: random.Random) -> str:
    return f"{rng.choice(_PREFIXES)} {rng.choice(_TRADES)} {rng.choice(_SUFFIXES)}"


def person(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"


def day_in(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    return start + dt.timedelta(days=rng.randint(0, (end - start).days))


def item_id(index: int) -> str:
    """Item ids are stable and sortable: item-01 … item-15."""
    return f"item-{index + 1:02d}"
