"""How an amount of US dollars reads: one rule for the site, the PDF, the CLI and run progress.

A cost per unit (a CPO, a rate, a cost per attempt) reads in plain dollars to three significant
digits however small (`plain`), and a CPO in the job's own unit, per job at the job's volume and
per single item (`job_and_item`): "$0.000157 per job · $0.000000157 per item", never "per
billion outcomes". A total reads to at most four significant digits, cents kept from $0.01 up
to $1,000; a total under a cent reads "under $0.01" (`usd`).
The exact stored value is always one call away (`exact`), and the site puts it on hover.
Formatting only: nothing here changes a figure, and the published files keep every digit.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

CENT = Decimal("0.01")
THOUSAND = Decimal(1000)
Amount = Decimal | float | int | str


@dataclass(frozen=True)
class Reading:
    """An amount as a person reads it."""

    text: str  # "$0.42", "$1,235", "under $0.01"
    exact: str  # every stored digit: "$0.00000001228"


def as_decimal(value: Amount) -> Decimal:
    # Floats (bootstrap bounds) go through repr so 0.1 stays 0.1, not its binary expansion.
    if isinstance(value, Decimal):
        return value
    return Decimal(repr(value) if isinstance(value, float) else str(value))


def exact(value: Amount) -> str:
    """Every digit of the amount, in plain notation (no exponent, no trailing zeros)."""
    amount = as_decimal(value)
    if amount == 0:
        return "$0"
    text = format(amount.normalize(), "f")
    sign, digits = ("-", text[1:]) if text.startswith("-") else ("", text)
    whole, _, frac = digits.partition(".")
    return f"{sign}${int(whole):,}" + (f".{frac}" if frac else "")


def _plain(amount: Decimal) -> str:
    """A non-negative amount of at least a cent, or zero: four significant digits; cents kept
    below $1,000, whole dollars above."""
    if amount == 0:
        return "$0"
    if amount >= THOUSAND:
        return f"${amount.quantize(Decimal(1), rounding=ROUND_HALF_EVEN):,}"
    places = max(2, 3 - amount.adjusted())
    rounded = amount.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)
    if rounded >= THOUSAND:
        return _plain(rounded)
    whole, _, frac = f"{rounded:f}".partition(".")
    return f"${int(whole):,}.{frac.rstrip('0').ljust(2, '0')}"


def reading(value: Amount) -> Reading:
    """A total as read (a spend, a grading bill, a run's cost): it is not per anything, so an
    amount under a cent is said to be "under $0.01"; a cost per unit reads with `plain`."""
    amount = as_decimal(value)
    sign = "-" if amount < 0 else ""
    if 0 < abs(amount) < CENT:
        return Reading(sign + "under $0.01", exact(amount))
    return Reading(sign + _plain(abs(amount)), exact(amount))


def plain(value: Amount, digits: int = 3) -> str:
    """An amount in plain dollars, never rescaled: a cent or more as `reading` gives it, less
    than a cent to `digits` significant digits ("$0.000157"), so a job's cost and an item's read
    in the same unit however small they are."""
    amount = as_decimal(value)
    if amount == 0 or abs(amount) >= CENT:
        return ("-" if amount < 0 else "") + _plain(abs(amount))
    places = digits - 1 - amount.adjusted()
    rounded = amount.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)
    if rounded.adjusted() > amount.adjusted():
        # Rounding carried into a new leading digit (0.0009995 → 0.001000): one place fewer
        # keeps the figure at `digits` significant digits ("$0.00100").
        rounded = rounded.quantize(Decimal(1).scaleb(1 - places))
    if abs(rounded) >= CENT:
        return plain(rounded, digits)
    sign = "-" if rounded < 0 else ""
    return f"{sign}${abs(rounded):f}"


def job_and_item(
    cpo: Amount, volume: int, lo: Amount | None = None, hi: Amount | None = None
) -> str:
    """A cost per successful item in the job's own unit, as the rate card reads it: per job at
    the job's volume and per single item, both `plain` ("$0.000157 per job · $0.000000157 per
    item"); an interval, when given, bounds the item's cost ("… per item [$a, $b]")."""
    item = as_decimal(cpo)
    text = f"{plain(item * volume)} per job · {plain(item)} per item"
    if lo is None or hi is None:
        return text
    return f"{text} [{plain(lo)}, {plain(hi)}]"


def usd(value: Amount | None) -> str:
    """A total as read, `—` for an undefined amount."""
    return "—" if value is None else reading(value).text
