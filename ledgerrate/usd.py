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
_SCALES = (
    (Decimal(10) ** 3, "thousand"),
    (Decimal(10) ** 6, "million"),
    (Decimal(10) ** 9, "billion"),
    (Decimal(10) ** 12, "trillion"),
    (Decimal(10) ** 15, "quadrillion"),
)
Amount = Decimal | float | int | str


@dataclass(frozen=True)
class Reading:
    """An amount as a person reads it."""

    text: str  # "$12.28 per billion outcomes", "$0.42", "$1,235"
    exact: str  # every stored digit: "$0.00000001228"
    scale: Decimal  # 1, or the power of 1,000 the shown figure is per
    scale_word: str  # "" or "thousand", "million", …


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


def _plain(amount: Decimal, *, cents: bool = True) -> str:
    """A non-negative amount of at least a cent (or a rescaled one), or zero: four significant
    digits; cents kept below $1,000 when `cents`, whole dollars above."""
    if amount == 0:
        return "$0"
    if amount >= THOUSAND:
        return f"${amount.quantize(Decimal(1), rounding=ROUND_HALF_EVEN):,}"
    places = max(2 if cents else 0, 3 - amount.adjusted())
    rounded = amount.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)
    if rounded >= THOUSAND:
        return _plain(rounded, cents=cents)
    whole, _, frac = f"{rounded:f}".partition(".")
    frac = frac.rstrip("0").ljust(2, "0") if cents else frac.rstrip("0")
    return f"${int(whole):,}" + (f".{frac}" if frac else "")


def scale_for(value: Amount) -> tuple[Decimal, str]:
    """The power of 1,000 that lifts a sub-cent amount to at least $1 (1 for a cent or more)."""
    amount = abs(as_decimal(value))
    if amount == 0 or amount >= CENT:
        return Decimal(1), ""
    for factor, word in _SCALES:
        if amount * factor >= 1:
            return factor, word
    return _SCALES[-1]


def reading(value: Amount, unit: str = "", *, scale: tuple[Decimal, str] | None = None) -> Reading:
    """The amount as read. A per-unit figure (a rate, a CPO) names its `unit` ("jobs",
    "outcomes") and reads per thousand/million/… units below a cent; a total without a unit
    reads "under $0.01" there. `scale` forces the scale of another figure (the bounds of an
    interval are read in the scale of its point)."""
    amount = as_decimal(value)
    if scale is None and not unit and 0 < abs(amount) < CENT:
        # A total (spend, a grading bill) is not per anything: it is said to be under a cent.
        return Reading(("-" if amount < 0 else "") + "under $0.01", exact(amount), Decimal(1), "")
    factor, word = scale or scale_for(amount)
    sign = "-" if amount < 0 else ""
    # A rescaled figure is a reading aid, not a sum of money: no cents padding there.
    shown = sign + _plain(abs(amount) * factor, cents=factor == 1)
    if word:
        shown += f" per {word}" + (f" {unit}" if unit else "")
    return Reading(shown, exact(amount), factor, word)


def plain(value: Amount, digits: int = 3) -> str:
    """An amount in plain dollars, never rescaled: a cent or more as `reading` gives it, less
    than a cent to `digits` significant digits ("$0.000157"), so a job's cost and an item's read
    in the same unit however small they are."""
    amount = as_decimal(value)
    if amount == 0 or abs(amount) >= CENT:
        return reading(amount, "x", scale=(Decimal(1), "")).text
    places = digits - 1 - amount.adjusted()
    rounded = amount.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)
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


def usd(value: Amount | None, unit: str = "") -> str:
    """The one money formatter: `—` for an undefined amount."""
    return "—" if value is None else reading(value, unit).text
