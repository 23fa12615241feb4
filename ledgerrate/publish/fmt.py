"""How figures read on a page. Formatting only: never rounds a figure into a different claim."""

from __future__ import annotations

from decimal import Decimal

from markupsafe import Markup

from ledgerrate.publish.safe import md_text
from ledgerrate.publish.withdrawals import is_withdrawn
from ledgerrate.schema import CellResult, Interval, RateLine

NO_SUCCESS = "no successful outcome"


def usd(value: Decimal | float | None, *, cents: bool = False) -> str:
    """Dollars. Rates are to the cent; CPOs keep four significant digits because a CPO of a
    fraction of a cent is common and rounding it to $0.00 would read as free."""
    if value is None:
        return "—"
    amount = Decimal(str(value))
    if cents or abs(amount) >= 100:
        return f"${amount:,.2f}"
    if amount == 0:
        return "$0"
    digits = max(2, 4 - amount.adjusted() - 1)
    text = f"{amount:.{digits}f}"
    # Four significant digits at most, and no trailing zeros past the cents: a CPO stored to
    # 1e-12 must not be printed with trailing zeros it does not have.
    whole, _, frac = text.partition(".")
    frac = frac.rstrip("0").ljust(2, "0")
    return f"${whole}.{frac}"


def rate_of(line: RateLine, volume: int) -> str:
    """A rate-card rate (CPO × volume, to the cent). A rate under a cent is said to be one,
    with its unrounded value, instead of reading as a free $0.00."""
    if line.rate_usd == 0 and line.cpo_usd > 0:
        return f"under $0.01 ({usd(line.cpo_usd * volume)})"
    return usd(line.rate_usd, cents=True)


def rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def interval(ci: Interval | None, *, money: bool = False) -> str:
    if ci is None or ci.lo is None or ci.hi is None:
        return "[undefined]"
    if money:
        return f"[{usd(ci.lo)}, {usd(ci.hi)}]"
    return f"[{float(ci.lo):.2f}, {float(ci.hi):.2f}]"


PENDING = "pending judge"
WITHDRAWN_TEXT = "withdrawn (see errata)"


def pass_rate(cell: CellResult) -> str:
    if is_withdrawn(cell, "pass_rate"):
        return WITHDRAWN_TEXT
    if cell.pending_judge:
        return (
            f"{PENDING}: {cell.pending_judge} of {cell.n} runs await the judge "
            f"({cell.passes} passed so far); no rate is stated until all are graded"
        )
    if cell.pass_rate is None:
        return "not graded yet"
    return f"{cell.passes}/{cell.n} = {rate(cell.pass_rate)} {interval(cell.pass_rate_ci)}"


def cpo(cell: CellResult) -> str:
    if is_withdrawn(cell, "cpo_usd") or is_withdrawn(cell, "spend_usd"):
        return WITHDRAWN_TEXT
    if cell.pending_judge:
        return PENDING
    if cell.cpo_usd is None:
        return NO_SUCCESS
    return f"{usd(cell.cpo_usd)} {interval(cell.cpo_ci, money=True)}"


def sample_label(n: int) -> str:
    """Every n here is small; the label says so instead of letting a rate look like a census."""
    return f"small sample: n = {n}"


def seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f} s"


def tokens(cell: CellResult) -> str:
    t = cell.tokens
    cached = f" (+{t.cached_input:,} cached)" if t.cached_input else ""
    return f"{t.input:,}{cached} in / {t.output:,} out"


def text(value: object) -> Markup:
    return md_text(value)
