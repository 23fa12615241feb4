"""Seeded invoice data: what an invoice says, before any layout decides how it looks.

The generator plans a dataset first (which item gets which layout and which planted edge case),
so every dataset of the standard size contains each edge case at least once, then fills each
invoice from the `random.Random` it is given. Nothing here reads global state or the clock.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from ledgerrate.synth.common import company, day_in, round_cents

LAYOUTS: tuple[str, ...] = ("classic", "modern", "receipt", "european", "ledger")
EDGE_CASES: tuple[str, ...] = ("multi-page", "credit-note", "foreign-currency", "discount-lines")
HOME_CURRENCY = "USD"  # the buyer books in USD; any other currency is "foreign"

# Currencies a layout may bill in, with the tax label and rates that go with them.
_EUROPEAN_CURRENCIES = ("EUR", "EUR", "EUR", "CHF", "SEK", "DKK", "PLN")
_FOREIGN_CURRENCIES = ("EUR", "GBP", "JPY", "CAD", "AUD")
_TAX_RATES: dict[str, tuple[str, ...]] = {
    "USD": ("0", "0.04", "0.0625", "0.07", "0.0825", "0.09"),
    "EUR": ("0.19", "0.20", "0.21"),
    "CHF": ("0.081",),
    "SEK": ("0.25",),
    "DKK": ("0.25",),
    "PLN": ("0.23",),
    "GBP": ("0.20",),
    "JPY": ("0.10",),
    "CAD": ("0.05", "0.13"),
    "AUD": ("0.10",),
}
ZERO_DECIMAL_CURRENCIES = frozenset({"JPY"})

_GOODS = (
    ("Copier paper A4, 5 ream box", 18, 45),
    ("Toner cartridge, black", 40, 120),
    ("Ergonomic office chair", 140, 420),
    ("USB-C docking station", 90, 260),
    ("Pallet delivery, zone 2", 60, 180),
    ("Cleaning service, monthly", 300, 900),
    ("Catering, working lunch", 12, 30),
    ("Laptop stand, aluminium", 25, 70),
    ("Network switch, 24 port", 180, 520),
    ("Printed brochures (250)", 80, 240),
    ("Security patrol, night shift", 200, 600),
    ("Software licence, annual seat", 60, 480),
    ("Packaging tape, case of 36", 30, 75),
    ("Cable management kit", 15, 55),
    ("Whiteboard markers, 12 pack", 6, 18),
    ("Desk lamp, LED", 22, 65),
)
_SERVICES = (
    ("Consulting, senior analyst (hours)", 95, 240),
    ("Implementation support (hours)", 80, 180),
    ("On-site maintenance visit (hours)", 60, 150),
    ("Bookkeeping review (hours)", 55, 140),
)
# Details that make a description long enough to wrap inside its table cell, as real ones do.
_DETAILS = (
    "delivered to loading bay 3",
    "as per framework agreement",
    "site: Building C, level 2",
    "work order 4471",
    "replaces damaged unit",
    "billed monthly in arrears",
)
_DISCOUNTS = ("Loyalty discount", "Volume discount", "Early payment discount", "Promo credit")
_NUMBER_STYLES = ("INV-{year}-{n:05d}", "{prefix}-{n:06d}", "{n:07d}", "{prefix}/{n:04d}/{yy}")
_TERMS_DAYS = (14, 15, 30, 30, 45, 60)


@dataclass(frozen=True)
class Line:
    description: str
    quantity: Decimal
    unit_price: Decimal
    amount: Decimal


@dataclass(frozen=True)
class Invoice:
    """One invoice's content. Amounts are exact Decimals in the invoice currency."""

    layout: str
    credit_note: bool
    vendor: str
    vendor_address: tuple[str, ...]
    customer: str
    customer_address: tuple[str, ...]
    invoice_number: str
    reference: str  # a purchase order or original-invoice number: a plausible distractor
    issue_date: dt.date
    due_date: dt.date | None  # credit notes carry no payment due date
    currency: str
    lines: tuple[Line, ...]
    tax_rate: Decimal
    subtotal: Decimal
    tax: Decimal
    total: Decimal

    @property
    def has_discount(self) -> bool:
        return any(line.amount < 0 for line in self.lines) and not self.credit_note

    def strata(self, pages: int) -> tuple[str, ...]:
        """Edge cases as the rendered document shows them: `multi-page` counts real pages."""
        found = []
        if pages > 1:
            found.append("multi-page")
        if self.credit_note:
            found.append("credit-note")
        if self.currency != HOME_CURRENCY:
            found.append("foreign-currency")
        if self.has_discount:
            found.append("discount-lines")
        found.append(f"layout:{self.layout}")
        return tuple(found)


MULTI_PAGE_LINES = 48  # enough rows to overflow one page in every layout


@dataclass(frozen=True)
class Plan:
    layout: str
    edge_cases: frozenset[str]


def plan_dataset(rng: random.Random, n: int) -> list[Plan]:
    """Layouts dealt round-robin from a shuffled deck; each edge case on at least one item.

    Edge cases land on distinct items where n allows, then each other item gets each edge case
    with a modest probability so their position and count vary from seed to seed.
    """
    deck = list(LAYOUTS)
    rng.shuffle(deck)
    layouts = [deck[i % len(deck)] for i in range(n)]
    cases: list[set[str]] = [set() for _ in range(n)]
    if n:
        hosts = rng.sample(range(n), min(n, len(EDGE_CASES)))
        for index, case in enumerate(EDGE_CASES):
            cases[hosts[index % len(hosts)]].add(case)
    for index in range(n):
        for case, chance in (("discount-lines", 0.2), ("foreign-currency", 0.15)):
            if rng.random() < chance:
                cases[index].add(case)
    for index in range(n):
        # A European layout bills in a European currency, so it is foreign by construction.
        if layouts[index] == "european":
            cases[index].add("foreign-currency")
        # Discounts on a credit note would be a refund of a refund: keep them on invoices.
        if "credit-note" in cases[index]:
            cases[index].discard("discount-lines")
    _ensure_all_cases(rng, layouts, cases)
    return [Plan(layout, frozenset(found)) for layout, found in zip(layouts, cases, strict=True)]


def _ensure_all_cases(rng: random.Random, layouts: list[str], cases: list[set[str]]) -> None:
    # The discard above can remove the only discount item; re-plant it on a non-credit item.
    n = len(cases)
    if n < 2 or any("discount-lines" in found for found in cases):
        return
    candidates = [i for i in range(n) if "credit-note" not in cases[i]]
    cases[rng.choice(candidates)].add("discount-lines")


def make_invoice(rng: random.Random, plan: Plan, year: int = 2026) -> Invoice:
    credit = "credit-note" in plan.edge_cases
    currency = _pick_currency(rng, plan)
    lines = _lines(rng, plan, currency, credit)
    subtotal = sum((line.amount for line in lines), Decimal(0))
    tax_rate = Decimal(rng.choice(_TAX_RATES[currency]))
    tax = _round(subtotal * tax_rate, currency)
    issue = day_in(rng, dt.date(year, 1, 5), dt.date(year, 11, 30))
    due = None if credit else issue + dt.timedelta(days=rng.choice(_TERMS_DAYS))
    vendor = company(rng)
    customer = company(rng)
    while customer == vendor:
        customer = company(rng)
    return Invoice(
        layout=plan.layout,
        credit_note=credit,
        vendor=vendor,
        vendor_address=_address(rng, plan.layout),
        customer=customer,
        customer_address=_address(rng, plan.layout),
        invoice_number=_number(rng, vendor, issue, credit),
        reference=_reference(rng, credit),
        issue_date=issue,
        due_date=due,
        currency=currency,
        lines=tuple(lines),
        tax_rate=tax_rate,
        subtotal=subtotal,
        tax=tax,
        total=subtotal + tax,
    )


def _pick_currency(rng: random.Random, plan: Plan) -> str:
    if plan.layout == "european":
        return rng.choice(_EUROPEAN_CURRENCIES)
    if "foreign-currency" in plan.edge_cases:
        return rng.choice(_FOREIGN_CURRENCIES)
    return HOME_CURRENCY


def _round(value: Decimal, currency: str) -> Decimal:
    if currency in ZERO_DECIMAL_CURRENCIES:
        return value.quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return round_cents(value)


def _lines(rng: random.Random, plan: Plan, currency: str, credit: bool) -> list[Line]:
    count = (
        rng.randint(MULTI_PAGE_LINES, 60) if "multi-page" in plan.edge_cases else rng.randint(2, 7)
    )
    # JPY prices are whole yen, around 150 yen per dollar of the USD price range.
    scale = Decimal(150) if currency in ZERO_DECIMAL_CURRENCIES else Decimal(1)
    lines = []
    for _ in range(count):
        if rng.random() < 0.25:
            name, low, high = rng.choice(_SERVICES)
            quantity = Decimal(rng.randint(2, 24)) / 2  # half hours: 1, 1.5, 2 …
        else:
            name, low, high = rng.choice(_GOODS)
            quantity = Decimal(rng.randint(1, 12))
            if rng.random() < 0.25:
                name = f"{name} - {rng.choice(_DETAILS)}"
        unit = _round(Decimal(rng.randint(low * 100, high * 100)) / 100 * scale, currency)
        if credit:
            unit = -unit
        lines.append(Line(name, quantity, unit, _round(quantity * unit, currency)))
    if "discount-lines" in plan.edge_cases and not credit:
        for _ in range(rng.choice((1, 1, 2))):
            gross = sum((line.amount for line in lines if line.amount > 0), Decimal(0))
            cut = -_round(gross * Decimal(rng.choice(("0.03", "0.05", "0.1"))) / 2, currency)
            position = rng.randint(1, len(lines))
            lines.insert(position, Line(rng.choice(_DISCOUNTS), Decimal(1), cut, cut))
    return lines


def _address(rng: random.Random, layout: str) -> tuple[str, ...]:
    number = rng.randint(2, 480)
    if layout == "european":
        street = rng.choice(("Hauptstraße", "Rue de la Gare", "Keizersgracht", "Via Roma"))
        city = rng.choice(("10115 Berlin", "69002 Lyon", "1016 GV Amsterdam", "20121 Milano"))
        return (f"{street} {number}", city)
    street = rng.choice(("Market Street", "Harbor Road", "Elm Avenue", "Commerce Way", "Main St"))
    city = rng.choice(("Portland, OR 97204", "Austin, TX 78701", "Leeds LS1 4AP", "Denver, CO"))
    return (f"{number} {street}", city)


def _number(rng: random.Random, vendor: str, issue: dt.date, credit: bool) -> str:
    prefix = "".join(word[0] for word in vendor.split()[:2]).upper()
    style = rng.choice(_NUMBER_STYLES)
    number = style.format(
        year=issue.year, yy=f"{issue.year % 100:02d}", n=rng.randint(1, 99999), prefix=prefix
    )
    return f"CN-{number}" if credit else number


def _reference(rng: random.Random, credit: bool) -> str:
    if credit:
        return f"INV-{rng.randint(2025, 2026)}-{rng.randint(1, 99999):05d}"
    return f"PO-{rng.randint(10000, 99999)}"


def to_truth(invoice: Invoice) -> dict[str, object]:
    """The expected answer, shaped like the published output schema; amounts as exact strings."""
    return {
        "vendor": invoice.vendor,
        "invoice_number": invoice.invoice_number,
        "issue_date": invoice.issue_date.isoformat(),
        "due_date": invoice.due_date.isoformat() if invoice.due_date else None,
        "currency": invoice.currency,
        "line_items": [
            {
                "description": line.description,
                "quantity": _plain(line.quantity),
                "unit_price": _plain(line.unit_price),
                "amount": _plain(line.amount),
            }
            for line in invoice.lines
        ],
        "subtotal": _plain(invoice.subtotal),
        "tax": _plain(invoice.tax),
        "total": _plain(invoice.total),
    }


def _plain(value: Decimal) -> str:
    # Fixed-point text keeps the truth file exact and readable (no exponents, no float drift).
    return format(value, "f")
