"""Seeded invoice data for extract.invoice.v2: v1's invoices, planted more evenly, plus two cases.

What v2 changes in the data, and why (the workload's changelog says the same for readers):

- Every planted edge case lands on at least `MIN_PER_CASE` items of a standard-size dataset.
  In v1 a case could sit on a single item, so a per-stratum pass rate rested on one document.
- `symbol-currency`: the document shows the currency only as a symbol (€, £, ¥), never as an
  ISO code, and the vendor's address says which country it is in. In v1 every layout printed
  the ISO code, so currency detection was never tested from a symbol and its context.
- `carried-forward`: a long remittance-style invoice paginated the way accounting systems do
  it, with the table header repeated on each page and "Carried forward" / "Brought forward"
  running totals that are not line items and not the subtotal.
- A sixth layout, `remittance`: customer account number and purchase order printed beside the
  invoice number, and a tear-off remittance slip that repeats the number and the amount due.

The invoice content itself (lines, amounts, tax, numbers, dates) is made by v1's helpers, so
an amount or a date means exactly what it meant in v1. Nothing here edits v1's module: v1's
generator hash covers its source, and v1 is frozen.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from decimal import Decimal

from ledgerrate.synth import invoices as v1
from ledgerrate.synth.common import company, day_in

LAYOUTS: tuple[str, ...] = (*v1.LAYOUTS, "remittance")
EDGE_CASES: tuple[str, ...] = (*v1.EDGE_CASES, "symbol-currency", "carried-forward")
MIN_PER_CASE = 2  # guaranteed for n >= 2 × len(EDGE_CASES); smaller n plants what fits

# Symbols that name one currency once the vendor's country is known (¥ alone could be CNY).
SYMBOL_CURRENCIES: tuple[str, ...] = ("EUR", "GBP", "JPY")

# Layouts able to show a case. Classic prints amounts with symbols, so dropping its one
# "All amounts in XXX" line leaves the symbol alone; the other v1 layouts print the code in
# their totals. Only the remittance layout paginates itself with running totals.
_HOST_LAYOUTS: dict[str, tuple[str, ...]] = {
    "multi-page": v1.LAYOUTS,
    "symbol-currency": ("classic", "remittance"),
    "carried-forward": ("remittance",),
}
# Most constrained first, so a narrow case still finds free hosts.
_PLANTING_ORDER: tuple[str, ...] = (
    "carried-forward",
    "symbol-currency",
    "multi-page",
    "credit-note",
    "discount-lines",
    "foreign-currency",
)
# Discounts on a credit note would be a refund of a refund (as in v1).
_EXCLUSIVE: dict[str, str] = {"credit-note": "discount-lines", "discount-lines": "credit-note"}

# A vendor address in the currency's country: the context that resolves the symbol.
_SYMBOL_ADDRESSES: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...]]] = {
    "EUR": (
        ("Hauptstraße", "Rue de la Gare", "Keizersgracht", "Via Roma"),
        (
            ("10115 Berlin", "Germany"),
            ("69002 Lyon", "France"),
            ("1016 GV Amsterdam", "Netherlands"),
            ("20121 Milano", "Italy"),
        ),
    ),
    "GBP": (
        ("Kingsway", "Deansgate", "Park Row", "Corn Street"),
        (
            ("London WC2B 6XF", "United Kingdom"),
            ("Manchester M3 2BY", "United Kingdom"),
            ("Bristol BS1 1HT", "United Kingdom"),
        ),
    ),
    "JPY": (
        ("Marunouchi", "Shibuya", "Umeda", "Sakae"),
        (
            ("Chiyoda-ku, Tokyo 100-0005", "Japan"),
            ("Shibuya-ku, Tokyo 150-0002", "Japan"),
            ("Kita-ku, Osaka 530-0001", "Japan"),
        ),
    ),
}


@dataclass(frozen=True)
class InvoiceV2(v1.Invoice):
    """A v1 invoice plus what v2's layouts show: v1's renderers accept it unchanged."""

    account_number: str = ""
    bank_account: str = ""
    symbol_only: bool = False
    carried_forward: bool = False

    def strata(self, pages: int) -> tuple[str, ...]:
        found = list(super().strata(pages))
        extra = [name for name, on in (("symbol-currency", self.symbol_only),) if on]
        if self.carried_forward and pages > 1:
            extra.append("carried-forward")
        # Layout stays last, as in v1, so edge cases read first on the dataset card.
        return (*found[:-1], *extra, found[-1])


def plan_dataset(rng: random.Random, n: int) -> list[v1.Plan]:
    """Layouts from a dealt deck; each edge case on `MIN_PER_CASE` items, distinct where possible.

    The remittance layout is dealt first so a 15-item dataset has three of them: two carry
    forward over pages and at least one is a single page with its slip.
    """
    layouts = _deal_layouts(rng, n)
    cases: list[set[str]] = [set() for _ in range(n)]
    for case in _PLANTING_ORDER:
        allowed = _HOST_LAYOUTS.get(case, LAYOUTS)
        eligible = [
            i for i in range(n) if layouts[i] in allowed and _EXCLUSIVE.get(case) not in cases[i]
        ]
        free = [i for i in eligible if not cases[i]]
        pool = free if len(free) >= MIN_PER_CASE else eligible
        for index in rng.sample(pool, min(MIN_PER_CASE, len(pool))):
            cases[index].add(case)
    for index in range(n):
        # As in v1, a few more discounts and foreign currencies, so counts vary by seed.
        for case, chance in (("discount-lines", 0.2), ("foreign-currency", 0.15)):
            if rng.random() < chance and _EXCLUSIVE.get(case) not in cases[index]:
                cases[index].add(case)
        if layouts[index] == "european":
            cases[index].add("foreign-currency")
    return [v1.Plan(layout, frozenset(found)) for layout, found in zip(layouts, cases, strict=True)]


def _deal_layouts(rng: random.Random, n: int) -> list[str]:
    deck = list(v1.LAYOUTS)
    rng.shuffle(deck)
    deck.insert(0, "remittance")
    layouts = [deck[i % len(deck)] for i in range(n)]
    rng.shuffle(layouts)
    return layouts


def make_invoice(rng: random.Random, plan: v1.Plan, year: int = 2026) -> InvoiceV2:
    """One invoice for `plan`, its lines and amounts made by v1's helpers."""
    credit = "credit-note" in plan.edge_cases
    symbol = "symbol-currency" in plan.edge_cases
    carried = "carried-forward" in plan.edge_cases
    currency = _pick_currency(rng, plan)
    # v1's line maker reads "multi-page" to decide on a long invoice; carrying forward needs one.
    cases = plan.edge_cases | ({"multi-page"} if carried else set())
    lines = v1._lines(rng, v1.Plan(plan.layout, frozenset(cases)), currency, credit)
    subtotal = sum((line.amount for line in lines), Decimal(0))
    tax_rate = Decimal(rng.choice(v1._TAX_RATES[currency]))
    tax = v1._round(subtotal * tax_rate, currency)
    issue = day_in(rng, dt.date(year, 1, 5), dt.date(year, 11, 30))
    due = None if credit else issue + dt.timedelta(days=rng.choice(v1._TERMS_DAYS))
    vendor = company(rng)
    customer = company(rng)
    while customer == vendor:
        customer = company(rng)
    vendor_address = _symbol_address(rng, currency) if symbol else v1._address(rng, plan.layout)
    return InvoiceV2(
        layout=plan.layout,
        credit_note=credit,
        vendor=vendor,
        vendor_address=vendor_address,
        customer=customer,
        customer_address=v1._address(rng, plan.layout),
        invoice_number=v1._number(rng, vendor, issue, credit),
        reference=v1._reference(rng, credit),
        issue_date=issue,
        due_date=due,
        currency=currency,
        lines=tuple(lines),
        tax_rate=tax_rate,
        subtotal=subtotal,
        tax=tax,
        total=subtotal + tax,
        account_number=f"C{rng.randint(100000, 999999)}",
        bank_account=f"{rng.randint(10, 99)}-{rng.randint(10, 99)}-{rng.randint(10, 99)} "
        f"{rng.randint(10_000_000, 99_999_999)}",
        symbol_only=symbol,
        carried_forward=carried,
    )


def _pick_currency(rng: random.Random, plan: v1.Plan) -> str:
    if "symbol-currency" in plan.edge_cases:
        return rng.choice(SYMBOL_CURRENCIES)
    if plan.layout == "european":
        return rng.choice(v1._EUROPEAN_CURRENCIES)
    if "foreign-currency" in plan.edge_cases:
        return rng.choice(v1._FOREIGN_CURRENCIES)
    return v1.HOME_CURRENCY


def _symbol_address(rng: random.Random, currency: str) -> tuple[str, ...]:
    streets, places = _SYMBOL_ADDRESSES[currency]
    street = rng.choice(streets)
    city, country = rng.choice(places)
    number = rng.randint(1, 240)
    # House numbers where each country writes them.
    if currency == "EUR":
        line = f"{street} {number}"
    elif currency == "JPY":
        line = f"{number}-{rng.randint(1, 9)} {street}"
    else:
        line = f"{number} {street}"
    return (line, city, country)
